/*
 * system_win32.c - mw_system_read() on Windows.
 *
 * GetPerformanceInfo gives the commit charge and limit the way Task
 * Manager shows them; Wine returns zeros there, so GlobalMemoryStatusEx
 * (whose "page file" figures are the commit limit and what is left of it)
 * fills in whatever is zero.
 */
#include "system.h"

#include <windows.h>
#include <psapi.h>
#include <string.h>

int mw_system_read(struct mw_system_memory *out, struct mw_err *err)
{
	MEMORYSTATUSEX ms;
	PERFORMANCE_INFORMATION pi;

	memset(out, 0, sizeof(*out));
	ms.dwLength = sizeof(ms);
	if (!GlobalMemoryStatusEx(&ms))
		return mw_error(err, "GlobalMemoryStatusEx failed: error %lu", GetLastError());
	out->physical_bytes = ms.ullTotalPhys;
	out->available_bytes = ms.ullAvailPhys;
	out->commit_limit_bytes = ms.ullTotalPageFile;
	out->commit_bytes = ms.ullTotalPageFile - ms.ullAvailPageFile;

	memset(&pi, 0, sizeof(pi));
	pi.cb = sizeof(pi);
	if (GetPerformanceInfo(&pi, sizeof(pi)) && pi.CommitLimit && pi.PageSize) {
		out->commit_bytes = (uint64_t)pi.CommitTotal * pi.PageSize;
		out->commit_limit_bytes = (uint64_t)pi.CommitLimit * pi.PageSize;
	}
	return 0;
}
