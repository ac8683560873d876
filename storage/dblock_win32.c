/*
 * dblock_win32.c - see dblock.h.
 *
 * The lock: DB.lock opened without sharing and deleted on close, so nobody
 * can open or delete it while the daemon runs, and the system closes it
 * when the process ends, however it ends.  The watch: the database's
 * volume serial number and file index (GetFileInformationByHandle) as
 * followed after opening, compared with the file at the path before each
 * flush.  (SQLite opens the database without FILE_SHARE_DELETE, so it can
 * be neither deleted nor replaced while open; the check costs one open of
 * the path per flush and catches what a file system or tool does anyway.)
 */
#include "dblock.h"
#include "dblock_win32.h"

#include <windows.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mwerr_text.h"
#include "base/utf8_wide.h"
#include "base/xalloc.h"

/* ntdll: the NT status behind the last Win32 error (ERROR_ACCESS_DENIED is
 * also what a delete-pending file gives). */
NTSYSAPI LONG NTAPI RtlGetLastNtStatus(void);
#define MW_STATUS_DELETE_PENDING ((LONG)0xC0000056L)

struct mw_dblock {
	HANDLE h;		/* DB.lock */
	bool followed;		/* volume, index valid */
	DWORD volume;
	DWORD index_high, index_low;
};

enum mw_dblock_failure mw_dblock_win32_failure(unsigned long win32_error, long nt_status,
					       unsigned long attributes)
{
	if (win32_error == ERROR_SHARING_VIOLATION)
		return MW_DBLOCK_HELD;
	if (win32_error == ERROR_DELETE_PENDING ||
	    (win32_error == ERROR_ACCESS_DENIED && nt_status == MW_STATUS_DELETE_PENDING))
		return MW_DBLOCK_DELETE_PENDING;
	if (win32_error != ERROR_ACCESS_DENIED)
		return MW_DBLOCK_OTHER;
	if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY))
		return MW_DBLOCK_FOLDER;
	if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_READONLY))
		return MW_DBLOCK_READ_ONLY;
	return MW_DBLOCK_DENIED;
}

/* A wide copy of a UTF-8 path ("" when it is not UTF-8: opening fails). */
static wchar_t *wide(const char *path)
{
	wchar_t *w = mw_utf8_to_wide(path);

	if (!w)
		w = mw_xcalloc(1, sizeof(*w));
	return w;
}

int mw_dblock_acquire(struct mw_dblock **out, const char *db_path, struct mw_err *err)
{
	size_t n = strlen(db_path) + 6;
	char *path = mw_xmalloc(n), pid[32];
	wchar_t *wpath;
	HANDLE h;
	DWORD wrote;

	*out = NULL;
	snprintf(path, n, "%s.lock", db_path);
	wpath = wide(path);
	h = CreateFileW(wpath, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_ALWAYS,
			FILE_ATTRIBUTE_NORMAL | FILE_FLAG_DELETE_ON_CLOSE, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		DWORD e = GetLastError();
		LONG nt = RtlGetLastNtStatus();
		enum mw_dblock_failure why = mw_dblock_win32_failure(e, nt, GetFileAttributesW(wpath));
		char text[256], os[300];

		mw_system_error_text(e, NULL, text, sizeof(text));
		snprintf(os, sizeof(os), "%s (Win32 error %lu)", text, (unsigned long)e);
		mw_dblock_lock_error(err, why, db_path, path, os);
		free(wpath);
		free(path);
		return -1;
	}
	free(wpath);
	snprintf(pid, sizeof(pid), "%lu\r\n", (unsigned long)GetCurrentProcessId());
	WriteFile(h, pid, (DWORD)strlen(pid), &wrote, NULL);
	free(path);
	*out = mw_xcalloc(1, sizeof(**out));
	(*out)->h = h;
	return 0;
}

/* The identity of the file at db_path: 0, or a Win32 error. */
static DWORD identify(const char *db_path, BY_HANDLE_FILE_INFORMATION *info)
{
	wchar_t *wpath = wide(db_path);
	HANDLE h = CreateFileW(wpath, FILE_READ_ATTRIBUTES,
			       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
			       OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
	DWORD e = 0;

	free(wpath);
	if (h == INVALID_HANDLE_VALUE)
		return GetLastError();
	if (!GetFileInformationByHandle(h, info))
		e = GetLastError();
	CloseHandle(h);
	return e;
}

int mw_dblock_follow(struct mw_dblock *l, const char *db_path, struct mw_err *err)
{
	BY_HANDLE_FILE_INFORMATION info;
	DWORD e = identify(db_path, &info);

	if (e)
		return mw_error(err, "cannot identify the database file '%s': Win32 error %lu",
				db_path, (unsigned long)e);
	l->volume = info.dwVolumeSerialNumber;
	l->index_high = info.nFileIndexHigh;
	l->index_low = info.nFileIndexLow;
	l->followed = true;
	return 0;
}

int mw_dblock_check(struct mw_dblock *l, const char *db_path, struct mw_err *err)
{
	BY_HANDLE_FILE_INFORMATION info;
	DWORD e;

	if (!l->followed)
		return 0;
	e = identify(db_path, &info);
	if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND)
		return mw_dblock_deleted_error(err, db_path);
	if (e)
		return mw_error(err, "cannot check the database file '%s': Win32 error %lu",
				db_path, (unsigned long)e);
	if (info.dwVolumeSerialNumber != l->volume || info.nFileIndexHigh != l->index_high ||
	    info.nFileIndexLow != l->index_low)
		return mw_dblock_replaced_error(err, db_path);
	return 0;
}

void mw_dblock_release(struct mw_dblock *l)
{
	if (!l)
		return;
	CloseHandle(l->h);
	free(l);
}
