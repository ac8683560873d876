/*
 * jvm_win32.c - where HotSpot keeps its performance-data files on Windows
 * and reading one.  The JVM puts its file in its user's temporary folder
 * (GetTempPath: %TEMP%\hsperfdata_USER\PID; a service's under the
 * system's Temp or SystemTemp) and maps it; a read of the file sees the
 * mapped bytes.  The folders looked in: this process's own temporary
 * folder, %SystemRoot%\Temp and \SystemTemp, and every profile's
 * AppData\Local\Temp under %SystemDrive%\Users (others' need the rights
 * a service running as LocalSystem has).  A file is read only when its
 * owner is the user its process runs as, or the owner that process gives
 * what it creates (mw_jvm_owner_ok), as jvm_linux.c compares uids.
 */
#include "jvm.h"

#include <windows.h>
#include <aclapi.h>
#include <sddl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8_wide.h"
#include "process.h"

static bool to_utf8(const wchar_t *w, char *out, size_t size)
{
	return WideCharToMultiByte(CP_UTF8, 0, w, -1, out, (int)size, NULL, NULL) > 0;
}

/* Each entry of dir matching pattern ("*", "hsperfdata_*") that is a
 * folder (folders true; reparse points left out) or a file, by UTF-8 name. */
static void each_entry(const char *dir, const char *pattern, bool folders,
		       void (*fn)(const char *dir, const char *name, void *arg), void *arg)
{
	char path[1024];
	wchar_t *wp;
	WIN32_FIND_DATAW fd;
	HANDLE h;

	snprintf(path, sizeof(path), "%s\\%s", dir, pattern);
	if (!(wp = mw_utf8_to_wide(path)))
		return;
	h = FindFirstFileW(wp, &fd);
	free(wp);
	if (h == INVALID_HANDLE_VALUE)
		return;
	do {
		char name[MAX_PATH * 3];
		bool is_dir = fd.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY;

		if (is_dir != folders || (fd.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) ||
		    fd.cFileName[0] == L'.' || !to_utf8(fd.cFileName, name, sizeof(name)))
			continue;
		fn(dir, name, arg);
	} while (FindNextFileW(h, &fd));
	FindClose(h);
}

static void add_dir(const char *dir, const char *name, void *arg)
{
	struct mw_jvm_dirs *out = arg;
	size_t i;
	int n;

	if (out->n >= MW_JVM_MAX_DIRS)
		return;
	n = snprintf(out->dir[out->n], sizeof(out->dir[0]), "%s\\%s", dir, name);
	if (n <= 0 || (size_t)n >= sizeof(out->dir[0]))
		return;
	/* the same folder reached twice (our own temp is the system's) */
	for (i = 0; i < out->n && _stricmp(out->dir[i], out->dir[out->n]); i++)
		;
	if (i == out->n)
		out->n++;
}

static void add_profile(const char *dir, const char *name, void *arg)
{
	char temp[1024];

	if (snprintf(temp, sizeof(temp), "%s\\%s\\AppData\\Local\\Temp", dir, name) <
	    (int)sizeof(temp))
		each_entry(temp, "hsperfdata_*", true, add_dir, arg);
}

/* An environment variable as UTF-8; false when unset. */
static bool env_utf8(const wchar_t *name, char *out, size_t size)
{
	wchar_t w[MAX_PATH + 1];
	DWORD n = GetEnvironmentVariableW(name, w, MAX_PATH + 1);

	return n > 0 && n <= MAX_PATH && to_utf8(w, out, size);
}

void mw_jvm_find_dirs(struct mw_jvm_dirs *out)
{
	wchar_t w[MAX_PATH + 1];
	char base[MAX_PATH * 3], dir[MAX_PATH * 3 + 16];
	DWORD n;
	size_t len;

	out->n = 0;
	n = GetTempPathW(MAX_PATH + 1, w);
	if (n > 0 && n <= MAX_PATH && to_utf8(w, base, sizeof(base))) {
		len = strlen(base);
		if (len && base[len - 1] == '\\')
			base[len - 1] = '\0';
		each_entry(base, "hsperfdata_*", true, add_dir, out);
	}
	if (env_utf8(L"SystemRoot", base, sizeof(base))) {
		snprintf(dir, sizeof(dir), "%s\\Temp", base);
		each_entry(dir, "hsperfdata_*", true, add_dir, out);
		snprintf(dir, sizeof(dir), "%s\\SystemTemp", base);
		each_entry(dir, "hsperfdata_*", true, add_dir, out);
	}
	if (env_utf8(L"SystemDrive", base, sizeof(base))) {
		snprintf(dir, sizeof(dir), "%s\\Users", base);
		each_entry(dir, "*", true, add_profile, out);
	}
}

static void add_file(const char *dir, const char *name, void *arg)
{
	uint32_t pid = mw_jvm_pid_of_name(name);

	if (pid)
		mw_jvm_files_add(arg, pid, dir, name);
}

void mw_jvm_list_dir(const char *dir, struct mw_jvm_files *out)
{
	each_entry(dir, "*", false, add_file, out);
}

/* The image base name and start time of the process open as h; -1 when
 * it is gone. */
static int process_of(HANDLE h, struct mw_jvm_process *p)
{
	wchar_t path[MAX_PATH * 2];
	DWORD n = MAX_PATH * 2, code = 0;
	FILETIME created, ex, k, u;
	const wchar_t *base;

	if (!GetExitCodeProcess(h, &code) || code != STILL_ACTIVE ||
	    !QueryFullProcessImageNameW(h, 0, path, &n) || !GetProcessTimes(h, &created, &ex, &k, &u))
		return -1;
	base = wcsrchr(path, L'\\');
	base = base ? base + 1 : path;
	if (!to_utf8(base, p->name, sizeof(p->name)))
		return -1;
	p->start_ms = mw_filetime_to_unix_ms((uint64_t)created.dwHighDateTime << 32 |
					     created.dwLowDateTime);
	return 0;
}

/* A SID as its string ("S-1-5-21-..."); false when it cannot be. */
static bool sid_text(PSID sid, char *out, size_t size)
{
	char *s = NULL;
	bool ok = sid && ConvertSidToStringSidA(sid, &s) && strlen(s) < size;

	if (ok)
		memcpy(out, s, strlen(s) + 1);
	LocalFree(s);
	return ok;
}

/* The owner of the open file h; false when it cannot be read. */
static bool file_owner(HANDLE h, char *out, size_t size)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	PSID owner = NULL;
	bool ok = GetSecurityInfo(h, SE_FILE_OBJECT, OWNER_SECURITY_INFORMATION, &owner, NULL,
				  NULL, NULL, &sd) == ERROR_SUCCESS &&
		  sid_text(owner, out, size);

	LocalFree(sd);
	return ok;
}

/* The user the process open as proc runs as and the owner it gives what
 * it creates (its token's TokenUser and TokenOwner); 0, or the Windows
 * error. */
static DWORD process_sids(HANDLE proc, char *user, char *owner, size_t size)
{
	union {
		TOKEN_USER user;
		TOKEN_OWNER owner;
		BYTE bytes[SECURITY_MAX_SID_SIZE + 64];
	} info;
	HANDLE token = NULL;
	DWORD n, rc = 0;

	user[0] = owner[0] = '\0';
	if (!OpenProcessToken(proc, TOKEN_QUERY, &token))
		return GetLastError();
	if (GetTokenInformation(token, TokenUser, &info, sizeof(info), &n))
		sid_text(info.user.User.Sid, user, size);
	if (GetTokenInformation(token, TokenOwner, &info, sizeof(info), &n))
		sid_text(info.owner.Owner, owner, size);
	if (!user[0] && !owner[0])
		rc = GetLastError() ? GetLastError() : ERROR_INVALID_SID;
	CloseHandle(token);
	return rc;
}

/* 0 when the file open as h may be read as the process's open as proc
 * (its owner is that process's user or default owner), else -1 and err
 * saying why. */
static int check_owner(const struct mw_jvm_file *file, HANDLE h, HANDLE proc, struct mw_err *err)
{
	char fo[256], user[256], owner[256];
	DWORD rc;

	if (!file_owner(h, fo, sizeof(fo)))
		return mw_error(err, "%s: its owner cannot be read (error %lu)", file->path,
				(unsigned long)GetLastError());
	if ((rc = process_sids(proc, user, owner, sizeof(user))))
		return mw_error(err, "%s: who runs its process %u cannot be told (error %lu)",
				file->path, file->pid, (unsigned long)rc);
	if (!mw_jvm_owner_ok(fo, user, owner))
		return mw_error(err, "%s: owned by %s, its process runs as %s", file->path, fo,
				user[0] ? user : owner);
	return 0;
}

/* Read the file into buf once it proves the process's (open as proc). */
static int read_file(const struct mw_jvm_file *file, HANDLE proc, uint8_t *buf, size_t cap,
		     size_t *len, struct mw_err *err)
{
	wchar_t *wp = mw_utf8_to_wide(file->path);
	HANDLE h;
	size_t got = 0;

	if (!wp)
		return mw_error(err, "%s: not a UTF-8 path", file->path);
	/* the JVM holds it open and mapped: share everything; a reparse
	 * point is opened as itself, not followed */
	h = CreateFileW(wp, GENERIC_READ | READ_CONTROL,
			FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
			FILE_FLAG_OPEN_REPARSE_POINT, NULL);
	free(wp);
	if (h == INVALID_HANDLE_VALUE)
		return mw_error(err, "%s: error %lu", file->path, (unsigned long)GetLastError());
	if (GetFileType(h) != FILE_TYPE_DISK) {
		CloseHandle(h);
		return mw_error(err, "%s: not a file", file->path);
	}
	if (check_owner(file, h, proc, err)) {
		CloseHandle(h);
		return -1;
	}
	while (got < cap) {
		DWORD want = cap - got > (1u << 20) ? (1u << 20) : (DWORD)(cap - got), n = 0;

		if (!ReadFile(h, buf + got, want, &n, NULL) || !n)
			break;
		got += n;
	}
	CloseHandle(h);
	*len = got;
	return 0;
}

int mw_jvm_read(const struct mw_jvm_file *file, uint8_t *buf, size_t cap, size_t *len,
		struct mw_jvm_process *p, struct mw_err *err)
{
	/* opened once: its token for the file's owner, then its name and
	 * start */
	HANDLE proc = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, file->pid);
	int rc;

	if (!proc)
		return mw_error(err, "%s: its process %u is gone", file->path, file->pid);
	rc = read_file(file, proc, buf, cap, len, err);
	if (!rc && process_of(proc, p))
		rc = mw_error(err, "%s: its process %u is gone", file->path, file->pid);
	CloseHandle(proc);
	return rc;
}
