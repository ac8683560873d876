/* test_privilege_win32.c - SeDebugPrivilege through the real token calls
 * (Wine's default account is an administrator and holds it). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <windows.h>
#include <cmocka.h>

#include "base/privilege.h"
#include "tests/support/test_main.h"

static int debug_privilege_enabled(void)
{
	HANDLE token;
	PRIVILEGE_SET ps;
	BOOL on = FALSE;

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &token))
		return -1;
	ps.PrivilegeCount = 1;
	ps.Control = PRIVILEGE_SET_ALL_NECESSARY;
	ps.Privilege[0].Attributes = 0;
	LookupPrivilegeValueW(NULL, L"SeDebugPrivilege", &ps.Privilege[0].Luid);
	PrivilegeCheck(token, &ps, &on);
	CloseHandle(token);
	return on ? 1 : 0;
}

static void enables_debug_privilege(void **state)
{
	struct mw_err why = { "" };

	(void)state;
	print_message("before: %d\n", debug_privilege_enabled());
	if (mw_enable_debug_privilege(&why))
		fail_msg("%s", why.msg);
	assert_int_equal(debug_privilege_enabled(), 1);
	/* Asking twice is harmless. */
	assert_int_equal(mw_enable_debug_privilege(&why), 0);
}

MW_TEST_MAIN(
	cmocka_unit_test(enables_debug_privilege),
)
