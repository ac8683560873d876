/* test_stop_console.c - what the Windows console control handler does with
 * each event, in a console and under the service control manager (the
 * decision is pure, so both platforms pin it). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/stop.h"

enum { C_C = 0, C_BREAK = 1, C_CLOSE = 2, C_LOGOFF = 5, C_SHUTDOWN = 6 };

static void console_mode(void **state)
{
	(void)state;
	assert_int_equal(mw_console_ctrl_action(C_C, false), MW_CONSOLE_STOP);
	assert_int_equal(mw_console_ctrl_action(C_BREAK, false), MW_CONSOLE_STOP);
	/* Windows ends the process when these return: wait for the write. */
	assert_int_equal(mw_console_ctrl_action(C_CLOSE, false), MW_CONSOLE_STOP_WAIT);
	assert_int_equal(mw_console_ctrl_action(C_LOGOFF, false), MW_CONSOLE_STOP_WAIT);
	assert_int_equal(mw_console_ctrl_action(C_SHUTDOWN, false), MW_CONSOLE_STOP_WAIT);
	assert_int_equal(mw_console_ctrl_action(99, false), MW_CONSOLE_PASS);
}

static void service_mode_never_stops(void **state)
{
	(void)state;
	/* Any user's logoff reaches every service process: not a stop. */
	assert_int_equal(mw_console_ctrl_action(C_LOGOFF, true), MW_CONSOLE_IGNORE);
	/* Shutdown arrives as SERVICE_CONTROL_PRESHUTDOWN / SHUTDOWN instead. */
	assert_int_equal(mw_console_ctrl_action(C_SHUTDOWN, true), MW_CONSOLE_IGNORE);
	assert_int_equal(mw_console_ctrl_action(C_CLOSE, true), MW_CONSOLE_IGNORE);
	assert_int_equal(mw_console_ctrl_action(C_C, true), MW_CONSOLE_IGNORE);
	assert_int_equal(mw_console_ctrl_action(C_BREAK, true), MW_CONSOLE_IGNORE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(console_mode),
		cmocka_unit_test(service_mode_never_stops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
