/* test_mwerr_text.c - the system's text for an error code (base/mwerr_text.h)
 * is valid UTF-8, trimmed, and names the error; on Windows (under Wine)
 * both from the system table and from winhttp.dll's, and under a French
 * user locale, where the ANSI text (FormatMessageA, code page 1252) of
 * "access denied" is not UTF-8. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "base/mwerr_text.h"
#include "base/utf8.h"
#include "tests/support/test_main.h"

static void expect_text(unsigned long code, const char *module)
{
	char out[256];
	size_t n;

	mw_system_error_text(code, module, out, sizeof(out));
	n = strlen(out);
	print_message("%lu: %s\n", code, out);
	assert_true(n > 0);
	assert_true(mw_utf8_valid(out));
	assert_false(out[n - 1] == '\n' || out[n - 1] == '\r' || out[n - 1] == '.');
	assert_null(strstr(out, "error "));	/* the system had words for it */
}

static void known_codes(void **state)
{
	(void)state;
	expect_text(2, NULL);	/* ERROR_FILE_NOT_FOUND / ENOENT */
	expect_text(5, NULL);	/* ERROR_ACCESS_DENIED / EIO */
}

static void unknown_code(void **state)
{
	char out[64];

	(void)state;
	mw_system_error_text(0x7ffffff0UL, NULL, out, sizeof(out));
	print_message("%s\n", out);
	assert_true(mw_utf8_valid(out));
}

static void cut_short(void **state)
{
	char out[8];

	(void)state;
	mw_system_error_text(5, NULL, out, sizeof(out));
	assert_true(strlen(out) < sizeof(out));
	assert_true(mw_utf8_valid(out));
}

MW_TEST_MAIN(cmocka_unit_test(known_codes), cmocka_unit_test(unknown_code),
	     cmocka_unit_test(cut_short))
