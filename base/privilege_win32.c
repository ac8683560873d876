/*
 * privilege_win32.c - privilege.h on Windows: AdjustTokenPrivileges for
 * SeDebugPrivilege.  AdjustTokenPrivileges "succeeds" even when the token
 * lacks the privilege, so ERROR_NOT_ALL_ASSIGNED is checked explicitly.
 */
#include "privilege.h"

#include <windows.h>
#include <string.h>

int mw_enable_debug_privilege(struct mw_err *why)
{
	TOKEN_PRIVILEGES tp;
	HANDLE token;
	DWORD e;

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY, &token))
		return mw_error(why, "OpenProcessToken: Win32 error %lu", GetLastError());
	memset(&tp, 0, sizeof(tp));
	tp.PrivilegeCount = 1;
	tp.Privileges[0].Attributes = SE_PRIVILEGE_ENABLED;
	if (!LookupPrivilegeValueW(NULL, L"SeDebugPrivilege", &tp.Privileges[0].Luid)) {
		e = GetLastError();
		CloseHandle(token);
		return mw_error(why, "LookupPrivilegeValue(SeDebugPrivilege): Win32 error %lu", e);
	}
	if (!AdjustTokenPrivileges(token, FALSE, &tp, sizeof(tp), NULL, NULL) ||
	    (e = GetLastError()) == ERROR_NOT_ALL_ASSIGNED) {
		e = GetLastError();
		CloseHandle(token);
		return mw_error(why, "SeDebugPrivilege not held (Win32 error %lu): run elevated or "
				     "as LocalSystem to read other users' processes", e);
	}
	CloseHandle(token);
	return 0;
}
