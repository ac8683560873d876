/* test_storage_selector.c - selectors and the regex matcher. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "storage/selector.h"

static bool re(const char *pattern, const char *text)
{
	struct mw_regex *r;
	struct mw_err err;
	bool m;

	if (mw_regex_compile(&r, pattern, &err))
		fail_msg("%s", err.msg);
	m = mw_regex_match(r, text);
	mw_regex_free(r);
	return m;
}

static void regex_matches(void **state)
{
	(void)state;
	assert_true(re("memwatch_process_.*", "memwatch_process_threads"));
	assert_false(re("memwatch_process_.*", "memwatch_system_x"));
	assert_true(re("abc", "abc"));
	assert_false(re("abc", "abcd"));	/* anchored */
	assert_false(re("bc", "abc"));
	assert_true(re("a|b|cd", "cd"));
	assert_true(re("(ab)+c?", "ababab"));
	assert_false(re("(ab)+c?", "aba"));
	assert_true(re("[0-9]+", "12345"));
	assert_false(re("[0-9]+", ""));
	assert_true(re("[^0-9]*", "abc"));
	assert_true(re("\\d\\w\\s\\.", "1a .") );
	assert_true(re("(a*)*b", "aaab"));
	assert_true(re("(|x)y", "y"));
	assert_true(re("chrome|fire(fox)?", "firefox"));
	assert_true(re("chrome|fire(fox)?", "fire"));
	assert_true(re("[a-c\\]]+", "ab]c"));
	assert_true(re("x?", ""));
}

static void regex_rejects(void **state)
{
	static const char *const bad[] = { "*a", "a**", "(ab", "ab)", "[ab", "a{2}", "\\", "^a" };
	struct mw_regex *r;
	struct mw_err err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(mw_regex_compile(&r, bad[i], &err), -1);
		assert_null(r);
	}
}

static void selectors(void **state)
{
	struct mw_label l[2] = { { "name", "chrome.exe" }, { "pid", "42" } };
	struct mw_selector s;
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_selector_parse(&s, "m{pid=\"42\", name=~\"chrome.*\"}", &err), 0);
	assert_true(mw_selector_match(&s, "m", l, 2));
	assert_false(mw_selector_match(&s, "n", l, 2));
	mw_selector_release(&s);
	assert_int_equal(mw_selector_parse(&s, "{__name__=~\"m|n\",pid!=\"1\",x=\"\"}", &err), 0);
	assert_true(mw_selector_match(&s, "n", l, 2));
	assert_false(mw_selector_match(&s, "o", l, 2));
	mw_selector_release(&s);
	assert_int_equal(mw_selector_parse(&s, "m{name!~\"chrome\\\\.exe\"}", &err), 0);
	assert_false(mw_selector_match(&s, "m", l, 2));
	mw_selector_release(&s);
	assert_int_equal(mw_selector_parse(&s, "", &err), 0);
	assert_true(mw_selector_match(&s, "anything", NULL, 0));
	mw_selector_release(&s);
	assert_int_equal(mw_selector_parse(&s, "m{pid=42}", &err), -1);
	assert_non_null(strstr(err.msg, "m{pid=42}"));
	assert_int_equal(mw_selector_parse(&s, "m{pid=\"4}", &err), -1);
	assert_int_equal(mw_selector_parse(&s, "m x", &err), -1);
	assert_int_equal(mw_selector_parse(&s, "m{a=~\"(\"}", &err), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(regex_matches),
		cmocka_unit_test(regex_rejects),
		cmocka_unit_test(selectors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
