/* test_service_args.c - the command line `service install` registers: paths
 * absolute (a service starts in System32), relative paths of the config file
 * against its folder, --db beside the exe only when no database is
 * configured anywhere, quoting, and errors instead of truncation. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "app/service_args.h"
#include "tests/support/test_main.h"

/* GetFullPathName as if the current folder were C:\cwd. */
static int fake_abspath(const char *in, char *out, size_t size)
{
	return mw_path_join(out, size, "C:\\cwd", in);
}

static char line[4096];

static const char *cmdline(const char *const *args, int nargs, const char *config_db,
			   const char *config_log)
{
	struct mw_service_install in = { "C:\\Program Files\\memwatch\\memwatchd.exe", args, nargs,
					 config_db, config_log, fake_abspath };
	struct mw_err err = { "" };

	assert_int_equal(mw_service_cmdline(&in, line, sizeof(line), &err), 0);
	return line;
}

#define EXE "\"C:\\Program Files\\memwatch\\memwatchd.exe\" run"
#define BESIDE_EXE " \"--db\" \"C:\\Program Files\\memwatch\\memwatch.db\""

static void paths(void **state)
{
	char out[64];

	(void)state;
	assert_true(mw_path_is_absolute("C:\\x"));
	assert_true(mw_path_is_absolute("c:/x"));
	assert_true(mw_path_is_absolute("\\\\server\\share\\x"));
	assert_true(mw_path_is_absolute("/x"));
	assert_false(mw_path_is_absolute("x.db"));
	assert_false(mw_path_is_absolute(".\\x.db"));
	assert_false(mw_path_is_absolute("..\\data\\x.db"));
	assert_int_equal(mw_path_join(out, sizeof(out), "D:\\conf", "data\\m.db"), 0);
	assert_string_equal(out, "D:\\conf\\data\\m.db");
	assert_int_equal(mw_path_join(out, sizeof(out), "D:\\conf\\", ".\\m.db"), 0);
	assert_string_equal(out, "D:\\conf\\m.db");
	assert_int_equal(mw_path_join(out, sizeof(out), "D:\\conf", "E:\\m.db"), 0);
	assert_string_equal(out, "E:\\m.db");
	assert_int_equal(mw_path_dirname(out, sizeof(out), "D:\\conf\\memwatch.ini"), 0);
	assert_string_equal(out, "D:\\conf");
	assert_int_equal(mw_path_dirname(out, sizeof(out), "D:\\memwatch.ini"), 0);
	assert_string_equal(out, "D:\\");
	/* no silent truncation */
	assert_int_equal(mw_path_join(out, 10, "D:\\conf", "memwatch.db"), -1);
	assert_int_equal(mw_path_dirname(out, 4, "D:\\conf\\x"), -1);
}

static void quoting(void **state)
{
	char cmd[32] = "x";

	(void)state;
	assert_int_equal(mw_cmdline_append(cmd, sizeof(cmd), "a b"), 0);
	assert_string_equal(cmd, "x \"a b\"");
	assert_int_equal(mw_cmdline_append(cmd, sizeof(cmd), "C:\\d\\"), 0);
	assert_string_equal(cmd, "x \"a b\" \"C:\\d\\\\\"");
	strcpy(cmd, "x");
	assert_int_equal(mw_cmdline_append(cmd, sizeof(cmd), "say \\\"hi\""), 0);
	assert_string_equal(cmd, "x \"say \\\\\\\"hi\\\"\"");
	/* too long: an error and the line unchanged, never half an argument */
	strcpy(cmd, "x");
	assert_int_equal(mw_cmdline_append(cmd, 8, "abcdef"), -1);
	assert_string_equal(cmd, "x");
}

static void no_db_anywhere_goes_beside_exe(void **state)
{
	const char *args[] = { "--listen", "127.0.0.1:9" };

	(void)state;
	assert_string_equal(cmdline(args, 2, NULL, NULL),
			    EXE " \"--listen\" \"127.0.0.1:9\"" BESIDE_EXE);
}

static void command_line_db_made_absolute(void **state)
{
	const char *a1[] = { "--db", "data\\m.db" };
	const char *a2[] = { "--db=m.db" };
	const char *a3[] = { "--set", "storage.db=m.db" };

	(void)state;
	assert_string_equal(cmdline(a1, 2, NULL, NULL), EXE " \"--db\" \"C:\\cwd\\data\\m.db\"");
	assert_string_equal(cmdline(a2, 1, NULL, NULL), EXE " \"--db\" \"C:\\cwd\\m.db\"");
	assert_string_equal(cmdline(a3, 2, NULL, NULL),
			    EXE " \"--set\" \"storage.db=C:\\cwd\\m.db\"");
}

static void config_db_relative_to_config_folder(void **state)
{
	const char *args[] = { "--config", "D:\\conf\\memwatch.ini" };
	const char *rel[] = { "--config=conf\\memwatch.ini" };

	(void)state;
	/* the file's relative db resolves next to the file, not in System32 */
	assert_string_equal(cmdline(args, 2, "data\\m.db", NULL),
			    EXE " \"--config\" \"D:\\conf\\memwatch.ini\" \"--db\" \"D:\\conf\\data\\m.db\"");
	/* a relative --config itself: against the current folder first */
	assert_string_equal(cmdline(rel, 1, "m.db", "m.log"),
			    EXE " \"--config\" \"C:\\cwd\\conf\\memwatch.ini\""
			    " \"--db\" \"C:\\cwd\\conf\\m.db\" \"--log-file\" \"C:\\cwd\\conf\\m.log\"");
	/* an absolute db in the file: nothing added, the file's value stands */
	assert_string_equal(cmdline(args, 2, "E:\\db\\m.db", "E:\\m.log"),
			    EXE " \"--config\" \"D:\\conf\\memwatch.ini\"");
	/* no db in the file: beside the exe */
	assert_string_equal(cmdline(args, 2, NULL, NULL),
			    EXE " \"--config\" \"D:\\conf\\memwatch.ini\"" BESIDE_EXE);
}

static void command_line_wins_over_config(void **state)
{
	const char *args[] = { "--db", "C:\\x.db", "--config", "D:\\conf\\memwatch.ini" };

	(void)state;
	assert_string_equal(cmdline(args, 4, "data\\m.db", NULL),
			    EXE " \"--db\" \"C:\\x.db\" \"--config\" \"D:\\conf\\memwatch.ini\"");
	assert_string_equal(mw_service_config_arg(args, 4), "D:\\conf\\memwatch.ini");
}

static void too_long_is_an_error(void **state)
{
	struct mw_err err = { "" };
	char *big = malloc(5000), small[64];
	const char *args[] = { "--db", big };
	struct mw_service_install in = { "C:\\memwatchd.exe", args, 2, NULL, NULL, fake_abspath };

	(void)state;
	memset(big, 'a', 4999);
	big[4999] = '\0';
	assert_int_equal(mw_service_cmdline(&in, small, sizeof(small), &err), -1);
	assert_non_null(strstr(err.msg, "longer than"));
	free(big);
}

/* --firewall's port: the last --listen or --set web.listen=, then the port
 * of the address, loopback or not. */
static void listen_port_for_the_firewall(void **state)
{
	const char *const args[] = { "--listen", "127.0.0.1:1", "--set", "web.listen=0.0.0.0:9182",
				     "--db", "x.db" };
	const char *const none[] = { "--set", "storage.db=x.db", "--listen" };
	unsigned port = 0;
	bool loopback = true;

	(void)state;
	assert_string_equal(mw_service_listen_arg(args, 6), "0.0.0.0:9182");
	assert_string_equal(mw_service_listen_arg(args, 2), "127.0.0.1:1");
	assert_null(mw_service_listen_arg(none, 3));
	assert_int_equal(mw_listen_port("0.0.0.0:9182", &port, &loopback), 0);
	assert_int_equal(port, 9182);
	assert_false(loopback);
	assert_int_equal(mw_listen_port("[::1]:8080", &port, &loopback), 0);
	assert_true(loopback);
	assert_int_equal(mw_listen_port("localhost:80", &port, &loopback), 0);
	assert_true(loopback);
	assert_int_equal(mw_listen_port("[::]:65535", &port, &loopback), 0);
	assert_int_equal(port, 65535);
	assert_false(loopback);
	assert_int_equal(mw_listen_port("off", &port, &loopback), -1);
	assert_int_equal(mw_listen_port("0.0.0.0:65536", &port, &loopback), -1);
	assert_int_equal(mw_listen_port("0.0.0.0:", &port, &loopback), -1);
	assert_int_equal(mw_listen_port("0.0.0.0:80x", &port, &loopback), -1);
}

MW_TEST_MAIN(
	cmocka_unit_test(paths),
	cmocka_unit_test(quoting),
	cmocka_unit_test(no_db_anywhere_goes_beside_exe),
	cmocka_unit_test(command_line_db_made_absolute),
	cmocka_unit_test(config_db_relative_to_config_folder),
	cmocka_unit_test(command_line_wins_over_config),
	cmocka_unit_test(too_long_is_an_error),
	cmocka_unit_test(listen_port_for_the_firewall),
)
