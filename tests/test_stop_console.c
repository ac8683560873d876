/* test_stop_console.c - what the Windows console control handler does with
 * each event, in a console and under the service control manager (the
 * decision is pure, so both platforms pin it). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/stop.h"
#include "tests/support/test_main.h"

enum { C_C = 0, C_BREAK = 1, C_CLOSE = 2, C_LOGOFF = 5, C_SHUTDOWN = 6 };

/* Each event, what a console process does with it and what the service
 * process does.  In a console, close, logoff and shutdown end the process
 * when the handler returns: it must wait for the write.  Under the SCM,
 * any user's logoff reaches every service process (not a stop), and
 * shutdown arrives as SERVICE_CONTROL_PRESHUTDOWN / SHUTDOWN instead. */
static const struct {
	int event;
	int console, service;
} actions[] = {
	{ C_C, MW_CONSOLE_STOP, MW_CONSOLE_IGNORE },
	{ C_BREAK, MW_CONSOLE_STOP, MW_CONSOLE_IGNORE },
	{ C_CLOSE, MW_CONSOLE_STOP_WAIT, MW_CONSOLE_IGNORE },
	{ C_LOGOFF, MW_CONSOLE_STOP_WAIT, MW_CONSOLE_IGNORE },
	{ C_SHUTDOWN, MW_CONSOLE_STOP_WAIT, MW_CONSOLE_IGNORE },
};

/* Every event of the table has the action of its column. */
static void check_actions(bool service)
{
	size_t i;

	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		assert_int_equal(mw_console_ctrl_action(actions[i].event, service),
				 service ? actions[i].service : actions[i].console);
}

static void console_mode(void **state)
{
	(void)state;
	check_actions(false);
	assert_int_equal(mw_console_ctrl_action(99, false), MW_CONSOLE_PASS);
}

static void service_mode_never_stops(void **state)
{
	(void)state;
	check_actions(true);
}

MW_TEST_MAIN(
	cmocka_unit_test(console_mode),
	cmocka_unit_test(service_mode_never_stops),
)
