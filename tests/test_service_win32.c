/* test_service_win32.c - the console control handler as Windows calls it
 * (on a thread of its own), under Wine: in service mode a logoff or
 * shutdown does not stop the daemon; in a console, a close blocks until
 * the final write is done. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <windows.h>

#include "base/stop.h"
#include "tests/support/test_main.h"

BOOL WINAPI mw_stop_console_ctrl(DWORD type);

static int setup(void **state)
{
	(void)state;
	assert_int_equal(mw_stop_init(), 0);
	mw_stop_reset();
	mw_stop_set_service_mode(false);
	return 0;
}

static void service_ignores_logoff_and_shutdown(void **state)
{
	(void)state;
	mw_stop_set_service_mode(true);
	assert_true(mw_stop_console_ctrl(CTRL_LOGOFF_EVENT));
	assert_true(mw_stop_console_ctrl(CTRL_SHUTDOWN_EVENT));
	assert_true(mw_stop_console_ctrl(CTRL_CLOSE_EVENT));
	assert_false(mw_stop_requested());
	mw_stop_set_service_mode(false);
}

static void ctrl_c_stops_at_once(void **state)
{
	DWORD t0 = GetTickCount();

	(void)state;
	assert_true(mw_stop_console_ctrl(CTRL_C_EVENT));
	assert_true(mw_stop_requested());
	assert_true(GetTickCount() - t0 < 1000);
}

static DWORD WINAPI close_thread(LPVOID arg)
{
	DWORD *returned_at = arg;

	mw_stop_console_ctrl(CTRL_CLOSE_EVENT);
	*returned_at = GetTickCount();
	return 0;
}

static void close_waits_for_final_write(void **state)
{
	DWORD returned_at = 0, finished_at;
	HANDLE t;

	(void)state;
	t = CreateThread(NULL, 0, close_thread, &returned_at, 0, NULL);
	assert_non_null(t);
	/* The main thread sees the stop and writes for a while ... */
	assert_true(mw_stop_wait(5000));
	Sleep(400);
	assert_int_equal(WaitForSingleObject(t, 0), WAIT_TIMEOUT);	/* still blocked */
	finished_at = GetTickCount();
	mw_stop_finished();
	assert_int_equal(WaitForSingleObject(t, 3000), WAIT_OBJECT_0);
	CloseHandle(t);
	assert_true(returned_at >= finished_at);
}

static void close_gives_up_within_windows_limit(void **state)
{
	DWORD returned_at = 0, t0 = GetTickCount();
	HANDLE t;

	(void)state;
	/* Nobody calls mw_stop_finished: the handler still returns before
	 * the 5 s after which Windows would end the process anyway. */
	t = CreateThread(NULL, 0, close_thread, &returned_at, 0, NULL);
	assert_non_null(t);
	assert_int_equal(WaitForSingleObject(t, 6000), WAIT_OBJECT_0);
	CloseHandle(t);
	assert_true(returned_at - t0 >= MW_STOP_CLOSE_WAIT_MS - 100);
	assert_true(returned_at - t0 < 5000);
}

MW_TEST_MAIN(
	cmocka_unit_test_setup(service_ignores_logoff_and_shutdown, setup),
	cmocka_unit_test_setup(ctrl_c_stops_at_once, setup),
	cmocka_unit_test_setup(close_waits_for_final_write, setup),
	cmocka_unit_test_setup(close_gives_up_within_windows_limit, setup),
)
