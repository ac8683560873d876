/* test_private_folder_win32.c - mw_folder_private (base/private_files.h),
 * what `service install` does to the database's folder: a protected DACL
 * (nothing inherited from the folders above) of exactly two entries,
 * Administrators and SYSTEM, inherited by files and folders created in it
 * afterwards.  Read back through GetNamedSecurityInfoW.  Wine takes the
 * call but keeps no file ACL (it answers its default: the user, SYSTEM,
 * Everyone): under Wine only the call is checked, the ACL on real Windows
 * (docs/first-run-windows.md). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <windows.h>
#include <aclapi.h>
#include <sddl.h>
#include <cmocka.h>

#include "base/private_files.h"
#include "tests/support/test_main.h"

#define DIR_A L"test_private_folder.tmp"
#define FILE_A L"test_private_folder.tmp\\inside.db"

/* The DACL of path: whether protected, its entries' SIDs (up to 4). */
static int read_dacl(const WCHAR *path, BOOL *is_protected, PSID sids[4], DWORD masks[4],
		     PSECURITY_DESCRIPTOR *sd)
{
	PACL dacl = NULL;
	SECURITY_DESCRIPTOR_CONTROL control = 0;
	DWORD rev, i;
	ACL_SIZE_INFORMATION info;

	if (GetNamedSecurityInfoW(path, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
				  &dacl, NULL, sd) != ERROR_SUCCESS || !dacl)
		return -1;
	GetSecurityDescriptorControl(*sd, &control, &rev);
	*is_protected = (control & SE_DACL_PROTECTED) != 0;
	if (!GetAclInformation(dacl, &info, sizeof(info), AclSizeInformation))
		return -1;
	for (i = 0; i < info.AceCount && i < 4; i++) {
		ACCESS_ALLOWED_ACE *ace;

		if (!GetAce(dacl, i, (void **)&ace) || ace->Header.AceType != ACCESS_ALLOWED_ACE_TYPE)
			return -1;
		sids[i] = (PSID)&ace->SidStart;
		masks[i] = ace->Mask;
	}
	return (int)info.AceCount;
}

static void show(const char *what, PSID sids[4], int n)
{
	int i;

	for (i = 0; i < n && i < 4; i++) {
		WCHAR *text = NULL;

		if (ConvertSidToStringSidW(sids[i], &text)) {
			printf("# %s entry %d: %ls\n", what, i, text);
			LocalFree(text);
		}
	}
}

static bool has_sid(PSID sids[4], int n, WELL_KNOWN_SID_TYPE type)
{
	int i;

	for (i = 0; i < n; i++)
		if (IsWellKnownSid(sids[i], type))
			return true;
	return false;
}

static bool under_wine(void)
{
	HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");

	return ntdll && GetProcAddress(ntdll, "wine_get_version");
}

static void admins_and_system_only(void **state)
{
	struct mw_err err;
	PSECURITY_DESCRIPTOR sd = NULL;
	PSID sids[4];
	DWORD masks[4];
	BOOL prot = FALSE;
	HANDLE h;
	int n;

	(void)state;
	DeleteFileW(FILE_A);
	RemoveDirectoryW(DIR_A);
	assert_true(CreateDirectoryW(DIR_A, NULL));
	if (mw_folder_private("test_private_folder.tmp", &err))
		fail_msg("%s", err.msg);
	if (under_wine()) {
		printf("# Wine keeps no file ACL: only the call is checked here\n");
		RemoveDirectoryW(DIR_A);
		return;
	}
	n = read_dacl(DIR_A, &prot, sids, masks, &sd);
	show("folder", sids, n);
	assert_int_equal(n, 2);
	assert_true(prot);
	assert_true(has_sid(sids, n, WinBuiltinAdministratorsSid));
	assert_true(has_sid(sids, n, WinLocalSystemSid));
	LocalFree(sd);
	/* a file made afterwards (the database, its -wal) inherits them */
	h = CreateFileW(FILE_A, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
	assert_true(h != INVALID_HANDLE_VALUE);
	CloseHandle(h);
	sd = NULL;
	n = read_dacl(FILE_A, &prot, sids, masks, &sd);
	assert_true(n >= 2 && n <= 4);
	assert_true(has_sid(sids, n, WinBuiltinAdministratorsSid));
	assert_true(has_sid(sids, n, WinLocalSystemSid));
	/* no one else by group (Wine adds its creator's own entry) */
	assert_false(has_sid(sids, n, WinBuiltinUsersSid));
	assert_false(has_sid(sids, n, WinWorldSid));
	assert_false(has_sid(sids, n, WinAuthenticatedUserSid));
	show("file", sids, n);
	LocalFree(sd);
	DeleteFileW(FILE_A);
	RemoveDirectoryW(DIR_A);
}

static void names_the_folder(void **state)
{
	struct mw_err err = { "" };

	(void)state;
	assert_int_equal(mw_folder_private("no-such-folder.tmp\\x", &err), -1);
	assert_non_null(strstr(err.msg, "no-such-folder.tmp\\x"));
}

MW_TEST_MAIN(
	cmocka_unit_test(admins_and_system_only),
	cmocka_unit_test(names_the_folder),
)
