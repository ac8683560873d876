/* test_watch.c - watch-list parsing and matching. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/watch.h"

static void wildcards(void **state)
{
	(void)state;
	assert_true(mw_wildcard_match("*", ""));
	assert_true(mw_wildcard_match("note*", "NotePad.exe"));
	assert_true(mw_wildcard_match("n?tepad.EXE", "notepad.exe"));
	assert_true(mw_wildcard_match("*pad*", "notepad.exe"));
	assert_true(mw_wildcard_match("a*b*c", "aXbYbZc"));
	assert_false(mw_wildcard_match("a*b*c", "aXbYbZ"));
	assert_false(mw_wildcard_match("note", "notepad.exe"));
	assert_false(mw_wildcard_match("?", ""));
	assert_string_equal(mw_path_basename("C:\\Windows\\notepad.exe"), "notepad.exe");
	assert_string_equal(mw_path_basename("/usr/bin/vim"), "vim");
}

static void matching(void **state)
{
	const char *list[] = { "self", "1234", "svc*.exe", "notepad", "  Chrome.exe" };
	struct mw_watch w;
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_watch_init(&w, list, 5, &err), 0);
	assert_true(mw_watch_match(&w, 77, "whatever", 77));	/* self */
	assert_false(mw_watch_match(&w, 78, "whatever", 77));
	assert_true(mw_watch_match(&w, 1234, "x", 1));
	assert_true(mw_watch_match(&w, 5, "SVCHOST.EXE", 1));
	assert_true(mw_watch_match(&w, 5, "C:\\Windows\\notepad.exe", 1));	/* stem */
	assert_false(mw_watch_match(&w, 5, "notepad2.exe", 1));
	assert_true(mw_watch_match(&w, 5, "chrome.exe", 1));
	assert_false(mw_watch_match(&w, 5, NULL, 1));
	mw_watch_release(&w);
}

static void bad_entries(void **state)
{
	const char *empty[] = { "self", "  " };
	const char *big[] = { "99999999999" };
	const char *junk[] = { "12ab" };
	struct mw_watch w;
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_watch_init(&w, empty, 2, &err), -1);
	assert_non_null(strstr(err.msg, "entry 2 is empty"));
	assert_int_equal(mw_watch_init(&w, big, 1, &err), -1);
	assert_int_equal(mw_watch_init(&w, junk, 1, &err), -1);
	assert_non_null(strstr(err.msg, "not a pid"));
}

/* The live table always holds the test itself under "self". */
static void targets_self(void **state)
{
	const char *list[] = { "self" };
	struct mw_watch w;
	struct mw_targets t = { 0 };
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_watch_init(&w, list, 1, &err), 0);
	assert_int_equal(mw_watch_targets(&w, &t, &err), 0);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.t[0].pid, mw_self_pid());
	assert_true(t.t[0].self);
	assert_true(strlen(t.t[0].name) > 0);
	mw_targets_release(&t);
	mw_watch_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(wildcards),
		cmocka_unit_test(matching),
		cmocka_unit_test(bad_entries),
		cmocka_unit_test(targets_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
