/*
 * stop_win32.c - stop.h with a manual-reset event, set by the console
 * control handler (Ctrl+C, Ctrl+Break, console close, logoff, shutdown;
 * see mw_console_ctrl_action) and by the service control handler.
 *
 * A console close, logoff or shutdown ends the process as soon as the
 * handler returns, so the handler (which runs on a thread of its own)
 * blocks on finished_event until the main thread has written the samples
 * in flight.
 */
#include "stop.h"

#include <windows.h>

static HANDLE stop_event, finished_event;
static volatile LONG stop_flag, service_mode;

/* Not static: tests call it as Windows would. */
BOOL WINAPI mw_stop_console_ctrl(DWORD type);

BOOL WINAPI mw_stop_console_ctrl(DWORD type)
{
	switch (mw_console_ctrl_action(type, InterlockedCompareExchange(&service_mode, 0, 0))) {
	case MW_CONSOLE_IGNORE:
		return TRUE;
	case MW_CONSOLE_STOP:
		mw_stop_request();
		/* TRUE: handled; the main thread finishes writing and exits 0. */
		return TRUE;
	case MW_CONSOLE_STOP_WAIT:
		mw_stop_request();
		if (finished_event)
			WaitForSingleObject(finished_event, MW_STOP_CLOSE_WAIT_MS);
		return TRUE;
	case MW_CONSOLE_PASS:
	default:
		return FALSE;
	}
}

int mw_stop_init(void)
{
	if (!stop_event) {
		stop_event = CreateEventW(NULL, TRUE, FALSE, NULL);
		if (!stop_event)
			return -1;
	}
	if (!finished_event) {
		finished_event = CreateEventW(NULL, TRUE, FALSE, NULL);
		if (!finished_event)
			return -1;
	}
	SetConsoleCtrlHandler(mw_stop_console_ctrl, TRUE);
	return 0;
}

void mw_stop_finished(void)
{
	if (finished_event)
		SetEvent(finished_event);
}

void mw_stop_set_service_mode(bool on)
{
	InterlockedExchange(&service_mode, on ? 1 : 0);
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
	if (finished_event)
		ResetEvent(finished_event);
}
