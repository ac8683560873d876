/*
 * stop_win32.c - stop.h with a manual-reset event, set by the console
 * control handler (Ctrl+C, Ctrl+Break, console close, logoff, shutdown)
 * and by the service control handler.
 */
#include "stop.h"

#include <windows.h>

static HANDLE stop_event;
static volatile LONG stop_flag;

static BOOL WINAPI on_console_ctrl(DWORD type)
{
	(void)type;
	mw_stop_request();
	/* TRUE: handled; the main thread finishes writing and exits 0. */
	return TRUE;
}

int mw_stop_init(void)
{
	if (!stop_event) {
		stop_event = CreateEventW(NULL, TRUE, FALSE, NULL);
		if (!stop_event)
			return -1;
	}
	SetConsoleCtrlHandler(on_console_ctrl, TRUE);
	return 0;
}

void mw_stop_request(void)
{
	InterlockedExchange(&stop_flag, 1);
	if (stop_event)
		SetEvent(stop_event);
}

bool mw_stop_requested(void)
{
	return InterlockedCompareExchange(&stop_flag, 0, 0) != 0;
}

bool mw_stop_wait(int64_t timeout_ms)
{
	if (mw_stop_requested())
		return true;
	if (!stop_event)
		return false;
	if (timeout_ms < 0)
		timeout_ms = 0;
	if (timeout_ms > 0x7fffffff)
		timeout_ms = 0x7fffffff;
	WaitForSingleObject(stop_event, (DWORD)timeout_ms);
	return mw_stop_requested();
}

void mw_stop_reset(void)
{
	InterlockedExchange(&stop_flag, 0);
	if (stop_event)
		ResetEvent(stop_event);
}
