/* dblock_win32.c - see dblock.h. */
#include "dblock.h"

#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

struct mw_dblock {
	HANDLE h;
};

int mw_dblock_acquire(struct mw_dblock **out, const char *db_path, struct mw_err *err)
{
	size_t n = strlen(db_path) + 6;
	char *path = mw_xmalloc(n), pid[32];
	HANDLE h;
	DWORD wrote;

	*out = NULL;
	snprintf(path, n, "%s.lock", db_path);
	/* No sharing: a second open fails while we hold the handle; the
	 * system closes it when the process ends, however it ends. */
	{
		/* UTF-8 path (as SQLite takes it) to UTF-16 */
		int wn = MultiByteToWideChar(CP_UTF8, 0, path, -1, NULL, 0);
		wchar_t *wpath = mw_xmalloc((size_t)(wn > 0 ? wn : 1) * sizeof(wchar_t));

		wpath[0] = 0;
		if (wn > 0)
			MultiByteToWideChar(CP_UTF8, 0, path, -1, wpath, wn);
		h = CreateFileW(wpath, GENERIC_READ | GENERIC_WRITE, 0, NULL, OPEN_ALWAYS,
				FILE_ATTRIBUTE_NORMAL | FILE_FLAG_DELETE_ON_CLOSE, NULL);
		free(wpath);
	}
	if (h == INVALID_HANDLE_VALUE) {
		DWORD e = GetLastError();

		if (e == ERROR_SHARING_VIOLATION || e == ERROR_ACCESS_DENIED)
			mw_error(err, "database '%s' is in use by another memwatchd (lock '%s'); "
				 "stop it or give this one another --db", db_path, path);
		else
			mw_error(err, "cannot create the lock file '%s': Win32 error %lu", path,
				 (unsigned long)e);
		free(path);
		return -1;
	}
	snprintf(pid, sizeof(pid), "%lu\r\n", (unsigned long)GetCurrentProcessId());
	WriteFile(h, pid, (DWORD)strlen(pid), &wrote, NULL);
	free(path);
	*out = mw_xmalloc(sizeof(**out));
	(*out)->h = h;
	return 0;
}

void mw_dblock_release(struct mw_dblock *l)
{
	if (!l)
		return;
	CloseHandle(l->h);
	free(l);
}
