/* test_mwerr_text_win32.c - base/mwerr_text.h on Windows (under Wine):
 * with a module named, the system's codes still have words (the module's
 * table is tried first); under a French user interface (Wine started with
 * LANG=fr_FR.UTF-8: tests/e2e/error_text_win64.sh) the text of
 * ERROR_ACCESS_DENIED, "Accès refusé", comes out as valid UTF-8, where
 * FormatMessageA's (code page 1252 bytes) is not. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <windows.h>
#include <winhttp.h>
#include <cmocka.h>

#include "base/mwerr_text.h"
#include "base/utf8.h"
#include "tests/support/test_main.h"

static void module_then_system(void **state)
{
	char out[256];
	HINTERNET s = WinHttpOpen(L"t", WINHTTP_ACCESS_TYPE_NO_PROXY, WINHTTP_NO_PROXY_NAME,
				  WINHTTP_NO_PROXY_BYPASS, 0);	/* loads winhttp.dll */

	(void)state;
	assert_non_null(s);
	mw_system_error_text(ERROR_WINHTTP_CANNOT_CONNECT, "winhttp.dll", out, sizeof(out));
	print_message("12029: %s\n", out);	/* Wine's winhttp.dll has no table */
	assert_true(mw_utf8_valid(out));
	mw_system_error_text(ERROR_ACCESS_DENIED, "winhttp.dll", out, sizeof(out));
	print_message("5: %s\n", out);
	assert_true(mw_utf8_valid(out));
	assert_null(strstr(out, "error 5"));
	WinHttpCloseHandle(s);
}

/* The French text: the wide text converted, not the ANSI bytes. */
static void french_text_is_utf8(void **state)
{
	char out[256], ansi[256];
	DWORD n;

	(void)state;
	if (PRIMARYLANGID(GetUserDefaultUILanguage()) != LANG_FRENCH &&
	    PRIMARYLANGID(GetUserDefaultLangID()) != LANG_FRENCH) {
		print_message("the user interface is not French here: skipped\n");
		skip();
	}
	n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL,
			   ERROR_ACCESS_DENIED, 0, ansi, sizeof(ansi), NULL);
	mw_system_error_text(ERROR_ACCESS_DENIED, NULL, out, sizeof(out));
	print_message("wide: %s\n", out);
	assert_true(mw_utf8_valid(out));
	assert_non_null(strstr(out, "\xc3\xa8"));	/* è in UTF-8 */
	/* what the old FormatMessageA gave: not UTF-8 */
	assert_true(n > 0);
	assert_false(mw_utf8_valid(ansi));
}

MW_TEST_MAIN(cmocka_unit_test(module_then_system), cmocka_unit_test(french_text_is_utf8))
