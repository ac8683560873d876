/*
 * exit_leaks_win32.c - the Windows side of the exit leak collector
 * (exit_leaks.h's os hooks): ntdll's heap leak check at a normal exit,
 * turned on per image and captured headless by being the process's
 * debugger.
 *
 * - init sets the IFEO value ShutdownFlags = 1 for each configured image
 *   (never bit 2: that breaks into a debugger after the check, which kills
 *   the exit when none handles it), keeping the value it replaced in
 *   MW_IFEO_SAVED_VALUE under the same key, and puts back the images that a
 *   former run configured and this one does not; fini puts every value
 *   back; mw_exit_leaks_restore_all does it for `service uninstall` (or
 *   after a crash left values behind).
 * - A debugger thread (Windows delivers a debuggee's events only to the
 *   thread that attached) lists the processes each second (and at each
 *   poll), attaches to each new process of an image with
 *   DebugActiveProcess, never killing it on detach
 *   (DebugSetProcessKillOnExit(FALSE)), continues the attach breakpoint and
 *   passes every other exception back unhandled, reads each debug string
 *   (DbgPrint arrives as OUTPUT_DEBUG_STRING_EVENT) into the process's
 *   ntdll report parser, and at the exit event queues the reports with
 *   pid, start and exit time.  poll hands the queue to deliver.
 * - A process that cannot be attached (another debugger has it, or it is
 *   protected) is not captured: one log line each, counted with the last
 *   reason in mw_exit_leaks_os_counts.
 * - fini detaches from every process (DebugActiveProcessStop): a program
 *   never dies because memwatch stopped; if memwatch dies, Windows detaches
 *   for it (kill-on-exit is off).
 *
 * Each OS call is a thin function; what they feed is in exit_leaks_dbg.c.
 */
#include "exit_leaks.h"
#include "exit_leaks_dbg.h"
#include "process.h"

#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/utf16.h"
#include "base/utf8_wide.h"
#include "base/xalloc.h"
#include "base/thread_name.h"

#define IFEO_PATH L"SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Image File Execution Options"
#define SCAN_EVERY_MS 1000
#define WAIT_SLICE_MS 100
/* the attach breakpoint of a 32-bit process under WOW64 */
#define WX86_BREAKPOINT 0x4000001FUL

struct mw_exit_leaks_os {
	char **images;
	size_t nimages;
	HANDLE thread;
	HANDLE wake;		/* auto-reset: stop, or scan now */
	volatile LONG stop, scan_now;
	CRITICAL_SECTION lock;	/* queue and counts */
	struct mw_report_queue queue;
	struct mw_exit_leaks_os_counts counts;
	/* the debugger thread's own */
	struct mw_dbg_targets targets;
	struct mw_process_reader *reader;
	struct mw_process_table table;
	size_t nattached;
};

/* --- the registry: thin calls ------------------------------------------- */

static int win32_error(struct mw_err *err, const char *what, const char *image, LONG code)
{
	return mw_error(err, "exit_leaks: %s for '%s': Win32 error %ld", what, image, (long)code);
}

/* The image's IFEO key; *created when this call made it.  0 or a Win32
 * error (ERROR_FILE_NOT_FOUND when !create and there is none). */
static LONG ifeo_open(const char *image, bool create, HKEY *key, bool *created)
{
	wchar_t path[600];
	wchar_t *wide = mw_utf8_to_wide(image);
	DWORD disposition = 0;
	LONG rc;

	if (!wide)
		return ERROR_INVALID_NAME;
	_snwprintf(path, MW_ARRAY_SIZE(path), L"%ls\\%ls", IFEO_PATH, wide);
	path[MW_ARRAY_SIZE(path) - 1] = L'\0';
	free(wide);
	if (create)
		rc = RegCreateKeyExW(HKEY_LOCAL_MACHINE, path, 0, NULL, 0,
				     KEY_QUERY_VALUE | KEY_SET_VALUE | KEY_WOW64_64KEY, NULL, key,
				     &disposition);
	else
		rc = RegOpenKeyExW(HKEY_LOCAL_MACHINE, path, 0,
				   KEY_QUERY_VALUE | KEY_SET_VALUE | KEY_WOW64_64KEY, key);
	if (created)
		*created = rc == ERROR_SUCCESS && disposition == REG_CREATED_NEW_KEY;
	return rc;
}

/* ShutdownFlags: 0 read, ERROR_FILE_NOT_FOUND when absent. */
static LONG flags_read(HKEY key, DWORD *value)
{
	DWORD type = 0, size = sizeof(*value);
	LONG rc = RegQueryValueExW(key, L"ShutdownFlags", NULL, &type, (BYTE *)value, &size);

	if (rc == ERROR_SUCCESS && (type != REG_DWORD || size != sizeof(*value)))
		*value = 0;	/* another type: ntdll reads nothing from it either */
	return rc;
}

static LONG flags_write(HKEY key, DWORD value)
{
	return RegSetValueExW(key, L"ShutdownFlags", 0, REG_DWORD, (const BYTE *)&value,
			      sizeof(value));
}

/* The saved value: 0 read (parsed into *s), else a Win32 error or
 * ERROR_INVALID_DATA when it is not memwatch's text. */
static LONG saved_read(HKEY key, struct mw_ifeo_saved *s)
{
	wchar_t text[64];
	char utf8[64 * 3 + 1];
	DWORD type = 0, size = sizeof(text) - sizeof(wchar_t);
	LONG rc = RegQueryValueExW(key, L"" MW_IFEO_SAVED_VALUE, NULL, &type, (BYTE *)text, &size);

	if (rc != ERROR_SUCCESS)
		return rc;
	if (type != REG_SZ)
		return ERROR_INVALID_DATA;
	mw_utf16le_decode((const unsigned char *)text, size / 2, utf8, sizeof(utf8));
	return mw_ifeo_saved_parse(utf8, s) ? ERROR_SUCCESS : ERROR_INVALID_DATA;
}

static LONG saved_write(HKEY key, const struct mw_ifeo_saved *s)
{
	char utf8[64];
	wchar_t *wide;
	LONG rc;

	mw_ifeo_saved_format(s, utf8, sizeof(utf8));
	wide = mw_utf8_to_wide(utf8);
	rc = RegSetValueExW(key, L"" MW_IFEO_SAVED_VALUE, 0, REG_SZ, (const BYTE *)wide,
			    (DWORD)((wcslen(wide) + 1) * sizeof(wchar_t)));
	free(wide);
	return rc;
}

/* Whether the key holds nothing (no value, no subkey) any more. */
static bool key_empty(HKEY key)
{
	DWORD subkeys = 1, values = 1;

	return RegQueryInfoKeyW(key, NULL, NULL, NULL, &subkeys, NULL, NULL, &values, NULL, NULL,
				NULL, NULL) == ERROR_SUCCESS &&
	       subkeys == 0 && values == 0;
}

static void key_delete(const char *image)
{
	wchar_t path[600];
	wchar_t *wide = mw_utf8_to_wide(image);

	if (!wide)
		return;
	_snwprintf(path, MW_ARRAY_SIZE(path), L"%ls\\%ls", IFEO_PATH, wide);
	path[MW_ARRAY_SIZE(path) - 1] = L'\0';
	free(wide);
	RegDeleteKeyExW(HKEY_LOCAL_MACHINE, path, KEY_WOW64_64KEY, 0);
}

/* --- the registry: what memwatch does with it ----------------------------- */

/* ShutdownFlags = 1 for image, the value it replaces saved first (unless a
 * former run saved it already and never put it back). */
static int ifeo_enable(const char *image, struct mw_err *err)
{
	struct mw_ifeo_saved s = { 0 };
	HKEY key;
	bool created;
	DWORD old;
	LONG rc = ifeo_open(image, true, &key, &created);

	if (rc != ERROR_SUCCESS)
		return win32_error(err, "cannot open the Image File Execution Options key", image,
				   rc);
	if (saved_read(key, &s) != ERROR_SUCCESS) {
		s.had_value = flags_read(key, &old) == ERROR_SUCCESS;
		s.value = s.had_value ? old : 0;
		s.created_key = created;
		rc = saved_write(key, &s);
		if (rc != ERROR_SUCCESS) {
			RegCloseKey(key);
			return win32_error(err, "cannot save ShutdownFlags", image, rc);
		}
	}
	rc = flags_write(key, 1);
	RegCloseKey(key);
	if (rc != ERROR_SUCCESS)
		return win32_error(err, "cannot set ShutdownFlags", image, rc);
	return 0;
}

/* Put image's ShutdownFlags back as memwatch found it: 1 when it did,
 * 0 when there was nothing of memwatch's to put back.  A value someone
 * changed since (not 1 any more) is theirs and stays. */
static int ifeo_restore(const char *image)
{
	struct mw_ifeo_saved s;
	HKEY key;
	DWORD now = 0;
	bool ours;
	bool drop_key;

	if (ifeo_open(image, false, &key, NULL) != ERROR_SUCCESS)
		return 0;
	if (saved_read(key, &s) != ERROR_SUCCESS) {
		RegCloseKey(key);
		return 0;
	}
	ours = flags_read(key, &now) != ERROR_SUCCESS || now == 1;
	if (ours && s.had_value)
		flags_write(key, s.value);
	else if (ours)
		RegDeleteValueW(key, L"ShutdownFlags");
	RegDeleteValueW(key, L"" MW_IFEO_SAVED_VALUE);
	drop_key = s.created_key && key_empty(key);
	RegCloseKey(key);
	if (drop_key)
		key_delete(image);
	mw_log_info("exit_leaks: ShutdownFlags of '%s' put back (%s)", image,
		    !ours ? "changed since: left as it is" : s.had_value ? "its former value" : "removed");
	return 1;
}

/* The images under IFEO that hold memwatch's saved value (UTF-8, to free
 * with the array). */
static char **ifeo_marked(size_t *n)
{
	HKEY root;
	char **names = NULL;
	size_t cap = 0;
	wchar_t name[256];

	*n = 0;
	if (RegOpenKeyExW(HKEY_LOCAL_MACHINE, IFEO_PATH, 0,
			  KEY_ENUMERATE_SUB_KEYS | KEY_WOW64_64KEY, &root) != ERROR_SUCCESS)
		return NULL;
	for (DWORD i = 0;; i++) {
		DWORD len = MW_ARRAY_SIZE(name);
		char utf8[sizeof(name) / 2 * 3 + 1];
		struct mw_ifeo_saved s;
		HKEY key;
		LONG rc = RegEnumKeyExW(root, i, name, &len, NULL, NULL, NULL, NULL);

		if (rc == ERROR_MORE_DATA)
			continue;	/* longer than an image name: not one of ours */
		if (rc != ERROR_SUCCESS)
			break;
		mw_utf16le_decode((const unsigned char *)name, len, utf8, sizeof(utf8));
		if (!mw_image_name_valid(utf8) || ifeo_open(utf8, false, &key, NULL) != ERROR_SUCCESS)
			continue;
		if (saved_read(key, &s) == ERROR_SUCCESS) {
			MW_GROW(names, cap, *n + 1);
			names[(*n)++] = mw_xstrdup(utf8);
		}
		RegCloseKey(key);
	}
	RegCloseKey(root);
	return names;
}

static void names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Put back every image memwatch set that is not in keep. */
static size_t ifeo_restore_except(char *const *keep, size_t nkeep)
{
	size_t n, restored = 0;
	char **marked = ifeo_marked(&n);

	for (size_t i = 0; i < n; i++)
		if (!mw_image_matches(keep, nkeep, marked[i]))
			restored += (size_t)ifeo_restore(marked[i]);
	names_free(marked, n);
	return restored;
}

int mw_exit_leaks_restore_all(void)
{
	return (int)ifeo_restore_except(NULL, 0);
}

/* --- the debugger thread: thin calls ------------------------------------- */

/* Why pid cannot be attached, after DebugActiveProcess failed with code. */
static void refusal_reason(uint32_t pid, DWORD code, char *out, size_t size)
{
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
	BOOL debugged = FALSE;
	DWORD exit_code = STILL_ACTIVE;

	if (h && CheckRemoteDebuggerPresent(h, &debugged) && debugged)
		snprintf(out, size, "another debugger is attached (DebugActiveProcess: Win32 error %lu)",
			 (unsigned long)code);
	else if (h && GetExitCodeProcess(h, &exit_code) && exit_code != STILL_ACTIVE)
		snprintf(out, size, "it exited before memwatch could attach");
	else if (code == ERROR_ACCESS_DENIED)
		snprintf(out, size, "access denied (protected, or another debugger): Win32 error 5");
	else
		snprintf(out, size, "DebugActiveProcess failed: Win32 error %lu", (unsigned long)code);
	if (h)
		CloseHandle(h);
}

static void attach(struct mw_exit_leaks_os *os, struct mw_dbg_target *t)
{
	if (t->pid == GetCurrentProcessId()) {
		t->state = MW_DBG_REFUSED;
		snprintf(t->reason, sizeof(t->reason), "it is memwatch itself");
	} else if (DebugActiveProcess(t->pid)) {
		/* applies to this thread's debuggees: detaching never kills one */
		DebugSetProcessKillOnExit(FALSE);
		t->state = MW_DBG_ATTACHED;
		t->attached_ms = mw_clock_wall_ms();
		os->nattached++;
		mw_log_info("exit_leaks: attached to %s pid %lu as its debugger", t->image,
			    (unsigned long)t->pid);
		EnterCriticalSection(&os->lock);
		os->counts.attached++;
		LeaveCriticalSection(&os->lock);
		return;
	} else {
		t->state = MW_DBG_REFUSED;
		refusal_reason(t->pid, GetLastError(), t->reason, sizeof(t->reason));
	}
	mw_log_warn("exit_leaks: %s pid %lu not captured: %s", t->image, (unsigned long)t->pid,
		    t->reason);
	EnterCriticalSection(&os->lock);
	os->counts.not_captured++;
	snprintf(os->counts.last_not_captured, sizeof(os->counts.last_not_captured),
		 "%s pid %lu: %s", t->image, (unsigned long)t->pid, t->reason);
	LeaveCriticalSection(&os->lock);
}

static void scan(struct mw_exit_leaks_os *os)
{
	struct mw_err err;

	if (mw_process_table_read(os->reader, &os->table, &err)) {
		mw_log_warn("exit_leaks: cannot list processes: %s", err.msg);
		return;
	}
	mw_dbg_scan_begin(&os->targets);
	for (size_t i = 0; i < os->table.nprocs; i++) {
		const struct mw_process_info *p = &os->table.procs[i];
		struct mw_dbg_target *t;

		if (!mw_image_matches(os->images, os->nimages, p->name))
			continue;
		t = mw_dbg_scan_see(&os->targets, p->pid, p->start_ms, p->name);
		if (t)
			attach(os, t);
	}
	mw_dbg_scan_end(&os->targets);
}

/* A debug string's bytes (UTF-16LE, or the ANSI code page DbgPrint and
 * OutputDebugStringA write in) up to the first NUL as UTF-8. */
static size_t string_text(const unsigned char *raw, size_t nbytes, bool unicode, char *out,
			  size_t out_size)
{
	wchar_t wide[MW_DBG_STRING_MAX];
	size_t n = 0;
	int units;

	if (unicode)
		return mw_utf16le_decode(raw, nbytes / 2, out, out_size);
	while (n < nbytes && raw[n] != 0)
		n++;
	units = n ? MultiByteToWideChar(CP_ACP, 0, (const char *)raw, (int)n, wide,
					(int)MW_ARRAY_SIZE(wide))
		  : 0;
	return mw_utf16le_decode((const unsigned char *)wide, (size_t)units, out, out_size);
}

/* One debug string out of the target, as UTF-8, into its capture. */
static void read_string(struct mw_dbg_target *t, const OUTPUT_DEBUG_STRING_INFO *s)
{
	unsigned char raw[MW_DBG_STRING_MAX];
	char text[MW_DBG_STRING_MAX * 3 + 1];
	size_t want = (size_t)s->nDebugStringLength * (s->fUnicode ? 2 : 1);
	SIZE_T got = 0;
	size_t n;

	if (!t->process || want == 0)
		return;
	if (want > sizeof(raw))
		want = sizeof(raw);
	if (!ReadProcessMemory(t->process, s->lpDebugStringData, raw, want, &got) && got == 0)
		return;
	n = string_text(raw, got, s->fUnicode != 0, text, sizeof(text));
	mw_dbg_capture_string(&t->cap, text, n);
}

/* The process exited: its reports, with who and when, to the queue. */
static void finish(struct mw_exit_leaks_os *os, struct mw_dbg_target *t, DWORD exit_code)
{
	struct mw_exit_report r;
	int64_t now = mw_clock_wall_ms();
	size_t n = 0;

	mw_dbg_capture_end(&t->cap);
	while (mw_dbg_capture_take(&t->cap, &r)) {
		/* the process list's name: the one its memory series carry */
		free(r.process);
		r.process = mw_xstrdup(t->image);
		r.pid = t->pid;
		r.started_ms = t->start_ms;
		r.exited_ms = now;
		mw_log_info("exit_leaks: %s pid %lu exited with %llu leaks, %llu bytes%s", t->image,
			    (unsigned long)t->pid, (unsigned long long)r.leaks,
			    (unsigned long long)r.bytes, r.complete ? "" : " (report incomplete)");
		EnterCriticalSection(&os->lock);
		mw_report_queue_push(&os->queue, &r);
		os->counts.captured++;
		LeaveCriticalSection(&os->lock);
		n++;
	}
	if (n == 0) {
		mw_log_info("exit_leaks: %s pid %lu exited (code %lu) without a leak report: started "
			    "before ShutdownFlags was set, ended by TerminateProcess, or run with "
			    "Application Verifier or page heap",
			    t->image, (unsigned long)t->pid, (unsigned long)exit_code);
		EnterCriticalSection(&os->lock);
		os->counts.exited_without_report++;
		LeaveCriticalSection(&os->lock);
	}
	os->nattached--;
	mw_dbg_targets_remove(&os->targets, t);
}

static DWORD on_event(struct mw_exit_leaks_os *os, DEBUG_EVENT *ev)
{
	struct mw_dbg_target *t = mw_dbg_targets_find(&os->targets, ev->dwProcessId);
	DWORD code;

	if (t && t->state != MW_DBG_ATTACHED)
		t = NULL;
	switch (ev->dwDebugEventCode) {
	case CREATE_PROCESS_DEBUG_EVENT:
		if (ev->u.CreateProcessInfo.hFile)
			CloseHandle(ev->u.CreateProcessInfo.hFile);
		/* closed by Windows at the exit event or the detach */
		if (t)
			t->process = ev->u.CreateProcessInfo.hProcess;
		return DBG_CONTINUE;
	case LOAD_DLL_DEBUG_EVENT:
		if (ev->u.LoadDll.hFile)
			CloseHandle(ev->u.LoadDll.hFile);
		return DBG_CONTINUE;
	case EXCEPTION_DEBUG_EVENT:
		code = ev->u.Exception.ExceptionRecord.ExceptionCode;
		if (t && !t->first_break_seen &&
		    (code == EXCEPTION_BREAKPOINT || code == WX86_BREAKPOINT)) {
			t->first_break_seen = true;	/* the one the attach raised */
			return DBG_CONTINUE;
		}
		/* the program's own: its handlers decide, as without memwatch */
		return DBG_EXCEPTION_NOT_HANDLED;
	case OUTPUT_DEBUG_STRING_EVENT:
		if (t)
			read_string(t, &ev->u.DebugString);
		return DBG_CONTINUE;
	case EXIT_PROCESS_DEBUG_EVENT:
		if (t)
			finish(os, t, ev->u.ExitProcess.dwExitCode);
		return DBG_CONTINUE;
	default:
		return DBG_CONTINUE;
	}
}

/* memwatch stops: every debuggee goes on without it. */
static void detach_all(struct mw_exit_leaks_os *os)
{
	for (size_t i = os->targets.n; i-- > 0;) {
		struct mw_dbg_target *t = os->targets.t[i];

		if (t->state != MW_DBG_ATTACHED)
			continue;
		if (DebugActiveProcessStop(t->pid))
			mw_log_info("exit_leaks: detached from %s pid %lu", t->image,
				    (unsigned long)t->pid);
		else
			mw_log_warn("exit_leaks: cannot detach from %s pid %lu: Win32 error %lu",
				    t->image, (unsigned long)t->pid, (unsigned long)GetLastError());
		EnterCriticalSection(&os->lock);
		os->counts.detached++;
		LeaveCriticalSection(&os->lock);
		os->nattached--;
		mw_dbg_targets_remove(&os->targets, t);
	}
}

static DWORD WINAPI debugger_main(void *arg)
{
	struct mw_exit_leaks_os *os = arg;
	int64_t next_scan = 0;

	mw_thread_set_name("mw-exitleaks");
	while (!InterlockedCompareExchange(&os->stop, 0, 0)) {
		int64_t now = mw_clock_mono_ns() / 1000000;
		DEBUG_EVENT ev;

		if (now >= next_scan || InterlockedExchange(&os->scan_now, 0)) {
			scan(os);
			next_scan = now + SCAN_EVERY_MS;
		}
		/* with no debuggee WaitForDebugEvent fails at once: wait on the
		 * wake event instead */
		if (os->nattached == 0) {
			WaitForSingleObject(os->wake, WAIT_SLICE_MS);
			continue;
		}
		if (WaitForDebugEvent(&ev, WAIT_SLICE_MS))
			ContinueDebugEvent(ev.dwProcessId, ev.dwThreadId, on_event(os, &ev));
	}
	detach_all(os);
	return 0;
}

/* --- the hooks ------------------------------------------------------------ */

int mw_exit_leaks_os_init(void **out, const struct mw_exit_leaks_options *o, struct mw_err *err)
{
	struct mw_exit_leaks_os *os;
	size_t restored;

	*out = NULL;
	for (size_t i = 0; i < o->nimages; i++)
		if (!mw_image_name_valid(o->images[i]))
			return mw_error(err,
					"exit_leaks: images: '%s' is not an image file name (like app.exe)",
					o->images[i]);
	restored = ifeo_restore_except(o->images, o->nimages);
	if (restored)
		mw_log_info("exit_leaks: %zu image(s) no longer configured put back", restored);
	for (size_t i = 0; i < o->nimages; i++)
		if (ifeo_enable(o->images[i], err)) {
			for (size_t j = 0; j < i; j++)
				ifeo_restore(o->images[j]);
			return -1;
		}
	os = mw_xcalloc(1, sizeof(*os));
	os->nimages = o->nimages;
	os->images = mw_xcalloc(o->nimages + 1, sizeof(*os->images));
	for (size_t i = 0; i < o->nimages; i++)
		os->images[i] = mw_xstrdup(o->images[i]);
	InitializeCriticalSection(&os->lock);
	os->wake = CreateEventW(NULL, FALSE, FALSE, NULL);
	os->reader = mw_process_reader_new();
	if (o->nimages > 0) {
		os->thread = CreateThread(NULL, 0, debugger_main, os, 0, NULL);
		if (!os->thread) {
			mw_error(err, "exit_leaks: cannot start the debugger thread: Win32 error %lu",
				 (unsigned long)GetLastError());
			mw_exit_leaks_os_fini(os);
			return -1;
		}
		mw_log_info("exit_leaks: ShutdownFlags set for %zu image(s); attaching to each new "
			    "process as its debugger", o->nimages);
	}
	*out = os;
	return 0;
}

void mw_exit_leaks_os_poll(void *p, int64_t now_ms,
			   void (*deliver)(void *ctx, struct mw_exit_report *r), void *ctx)
{
	struct mw_exit_leaks_os *os = p;
	struct mw_report_queue got = { 0 };
	struct mw_exit_report r;

	(void)now_ms;
	if (!os)
		return;
	if (os->thread) {
		InterlockedExchange(&os->scan_now, 1);
		SetEvent(os->wake);
	}
	/* deliver outside the lock: the debugger thread never waits on it */
	EnterCriticalSection(&os->lock);
	got.r = os->queue.r;
	got.n = os->queue.n;
	got.cap = os->queue.cap;
	os->queue.r = NULL;	/* its dropped count stays, for the counts */
	os->queue.n = os->queue.cap = 0;
	LeaveCriticalSection(&os->lock);
	while (mw_report_queue_pop(&got, &r))
		deliver(ctx, &r);
	mw_report_queue_release(&got);
}

void mw_exit_leaks_os_counts(void *p, struct mw_exit_leaks_os_counts *out)
{
	struct mw_exit_leaks_os *os = p;

	memset(out, 0, sizeof(*out));
	if (!os)
		return;
	EnterCriticalSection(&os->lock);
	*out = os->counts;
	out->dropped = os->queue.dropped;
	LeaveCriticalSection(&os->lock);
}

void mw_exit_leaks_os_describe(void *p, char *buf, size_t n)
{
	struct mw_exit_leaks_os_counts c;

	mw_exit_leaks_os_counts(p, &c);
	if (c.not_captured)
		snprintf(buf, n, "attached %llu, not captured %llu (last: %s)",
			 (unsigned long long)c.attached, (unsigned long long)c.not_captured,
			 c.last_not_captured);
	else
		snprintf(buf, n, "attached %llu", (unsigned long long)c.attached);
}

void mw_exit_leaks_os_fini(void *p)
{
	struct mw_exit_leaks_os *os = p;

	if (!os)
		return;
	if (os->thread) {
		InterlockedExchange(&os->stop, 1);
		SetEvent(os->wake);
		WaitForSingleObject(os->thread, INFINITE);
		CloseHandle(os->thread);
	}
	for (size_t i = 0; i < os->nimages; i++)
		ifeo_restore(os->images[i]);
	mw_dbg_targets_release(&os->targets);
	mw_process_table_release(&os->table);
	mw_process_reader_free(os->reader);
	mw_report_queue_release(&os->queue);
	if (os->wake)
		CloseHandle(os->wake);
	DeleteCriticalSection(&os->lock);
	for (size_t i = 0; i < os->nimages; i++)
		free(os->images[i]);
	free(os->images);
	free(os);
}
