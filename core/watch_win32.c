/* watch_win32.c - watched processes from one Toolhelp32 process snapshot
 * (names without opening each process: no access needed to match). */
#include "watch.h"

#include <windows.h>
#include <tlhelp32.h>

int mw_watch_targets(const struct mw_watch *w, struct mw_targets *out, struct mw_err *err)
{
	HANDLE snap;
	PROCESSENTRY32W pe;
	uint32_t self = mw_self_pid();

	out->n = 0;
	if (!w->n)	/* an empty list selects nothing: no snapshot */
		return 0;
	snap = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
	if (snap == INVALID_HANDLE_VALUE)
		return mw_error(err, "CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS): Win32 error %lu",
				GetLastError());
	pe.dwSize = sizeof(pe);
	if (Process32FirstW(snap, &pe)) {
		do {
			char name[MAX_PATH * 3];

			if (!WideCharToMultiByte(CP_UTF8, 0, pe.szExeFile, -1, name, sizeof(name),
						 NULL, NULL))
				name[0] = '\0';
			if (mw_watch_match(w, pe.th32ProcessID, name, self))
				mw_targets_add(out, pe.th32ProcessID, name, pe.th32ProcessID == self);
		} while (Process32NextW(snap, &pe));
	}
	CloseHandle(snap);
	return 0;
}
