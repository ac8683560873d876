/* test_storage_selector.c - selectors and the regex matcher. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/selector.h"
#include "tests/support/test_main.h"

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

/* Regression ("Weeks unattended"): nested and repeated stars over a
 * text that does not match.  The old backtracking matcher needed
 * C(n + k, k) steps here and never returned; a linear-time matcher
 * answers at once.  Asserts on the answers, not on a clock. */
static void regex_pathological_terminates(void **state)
{
	char text[200];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(text) - 1; i++)
		text[i] = (char)('a' + i % 23);
	text[sizeof(text) - 1] = '\0';
	assert_false(re(".*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*x", text));
	assert_false(re("(a*)*(a*)*(a*)*(a*)*(a*)*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	assert_false(re("(a|aa)*(a|aa)*(a|aa)*c", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	assert_true(re(".*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*a", text) == (text[sizeof(text) - 2] == 'a'));
	text[sizeof(text) - 2] = 'x';
	assert_true(re(".*.*.*.*.*.*.*.*.*.*.*.*.*.*.*.*x", text));
}

/* Work is linear in the text: the step counter stays under
 * (len + 1) * 2 * program size for patterns that blow up backtracking,
 * and grows by a constant factor when the text doubles. */
static void regex_linear_work(void **state)
{
	static const char *const pats[] = {
		".*.*.*.*.*.*x", "(a*)*(a*)*(a*)*b", "(a|aa)*(a|aa)*c", "(.*)*(.*)*(.*)*y",
		"((a|b|ab)*)*(a|b)*z", "[a-z]*[a-z]*[^q]*\\d",
	};
	char text[4001];
	size_t i, len;

	(void)state;
	memset(text, 'a', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		struct mw_regex *r;
		struct mw_err err;
		uint64_t small = 0, big = 0;

		assert_int_equal(mw_regex_compile(&r, pats[i], &err), 0);
		len = sizeof(text) - 1;
		assert_false(mw_regex_match_steps(r, text + len / 2, &small));
		assert_false(mw_regex_match_steps(r, text, &big));
		assert_true(big <= (uint64_t)(len + 1) * 2 * mw_regex_program_size(r));
		assert_true(big <= 3 * small);
		mw_regex_free(r);
	}
}

/* Pattern and program size are bounded; the messages say which. */
static void regex_limits(void **state)
{
	char pat[MW_REGEX_MAX_PATTERN + 2];
	struct mw_regex *r;
	struct mw_err err;

	(void)state;
	memset(pat, 'a', sizeof(pat) - 1);
	pat[sizeof(pat) - 1] = '\0';
	assert_int_equal(mw_regex_compile(&r, pat, &err), -1);
	assert_non_null(strstr(err.msg, "longer than"));
	pat[MW_REGEX_MAX_PATTERN] = '\0';
	assert_int_equal(mw_regex_compile(&r, pat, &err), 0);
	assert_true(mw_regex_match(r, pat));
	assert_true(mw_regex_program_size(r) <= MW_REGEX_MAX_PROG);
	mw_regex_free(r);
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
	{
		/* A value ending in a backslash at the end of the text: an
		 * error, and no read past the text (fuzz_selector's find; the
		 * copy is on the heap so ASan sees one byte too far). */
		char *text = strdup("x{a=\"\\");

		assert_non_null(text);
		assert_int_equal(mw_selector_parse(&s, text, &err), -1);
		assert_non_null(strstr(err.msg, text));
		/* the error points at the end of the text, not one byte past */
		assert_non_null(strstr(err.msg, "at offset 6"));
		free(text);
	}
}

MW_TEST_MAIN(
	cmocka_unit_test(regex_matches),
	cmocka_unit_test(regex_rejects),
	cmocka_unit_test(regex_pathological_terminates),
	cmocka_unit_test(regex_linear_work),
	cmocka_unit_test(regex_limits),
	cmocka_unit_test(selectors),
)
