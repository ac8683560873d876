/*
 * test_exit_leaks_win32.c - the Windows exit leak capture end to end
 * (collectors/exit_leaks_win32.c), under Wine (and on Windows) from the
 * repository root, against build/win64/helpers/ntdll_report_win32.exe,
 * which prints ntdll's report lines with DbgPrint and exits normally:
 *
 * - the report comes out of os_poll with the exact figures, the pid and
 *   the times, and the helper exits with its own code;
 * - ShutdownFlags is 1 while capturing and put back at fini: removed when
 *   there was none, its former value when there was one; an image a
 *   former run left set and no longer configured is put back at init;
 *   mw_exit_leaks_restore_all puts back every one;
 * - fini detaches while the helper waits: it goes on and exits with its
 *   own code; so it does when the capturing process is killed (this
 *   program run with --capture IMAGE is that process);
 * - a process that already has a debugger is not captured, with the
 *   reason.
 *
 * Writes under HKLM in the Wine prefix (scripts/wine-run.sh's), only the
 * IFEO keys of the helper and of made-up images.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <cmocka.h>

#include "collectors/exit_leaks.h"
#include "collectors/exit_leaks_dbg.h"
#include "base/clock.h"
#include "tests/support/child_win32.h"
#include "tests/support/known_report.h"

#define HELPER "ntdll_report_win32.exe"
#define STALE "memwatch_stale_test.exe"
#define IFEO L"SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Image File Execution Options\\"
#define DEADLINE_MS 20000

struct child {
	PROCESS_INFORMATION pi;
	HANDLE in_w, out_r;
};

static void start_helper(struct child *c, int exit_code, DWORD flags)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "build\\win64\\helpers\\" HELPER " %d", exit_code);
	mw_test_child_start(cmd, flags, &c->pi, &c->in_w, &c->out_r);
}

static void wait_ready(struct child *c)
{
	char line[64];
	unsigned long pid = 0;

	mw_test_child_read_line(c->out_r, line, sizeof(line));
	assert_int_equal(sscanf(line, "ready %lu", &pid), 1);
	assert_int_equal(pid, c->pi.dwProcessId);
}

static void say_go(struct child *c)
{
	DWORD w;

	assert_true(WriteFile(c->in_w, "go\n", 3, &w, NULL));
}

/* The helper's exit code once it exited (bounded wait). */
static DWORD wait_exit(struct child *c)
{
	DWORD code = 12345;

	assert_int_equal(WaitForSingleObject(c->pi.hProcess, DEADLINE_MS), WAIT_OBJECT_0);
	assert_true(GetExitCodeProcess(c->pi.hProcess, &code));
	mw_test_child_forget(c->pi.hProcess);
	CloseHandle(c->in_w);
	CloseHandle(c->out_r);
	CloseHandle(c->pi.hProcess);
	CloseHandle(c->pi.hThread);
	return code;
}

/* --- the registry, read and set directly ------------------------------------ */

static HKEY open_ifeo(const wchar_t *image, bool create)
{
	wchar_t path[400];
	HKEY key = NULL;
	LONG rc;

	_snwprintf(path, MW_ARRAY_SIZE(path), L"%ls%ls", IFEO, image);
	if (create)
		rc = RegCreateKeyExW(HKEY_LOCAL_MACHINE, path, 0, NULL, 0,
				     KEY_ALL_ACCESS | KEY_WOW64_64KEY, NULL, &key, NULL);
	else
		rc = RegOpenKeyExW(HKEY_LOCAL_MACHINE, path, 0, KEY_ALL_ACCESS | KEY_WOW64_64KEY,
				   &key);
	return rc == ERROR_SUCCESS ? key : NULL;
}

/* ShutdownFlags of image: its value, -1 when absent, -2 when no key. */
static long long flags_of(const wchar_t *image)
{
	HKEY key = open_ifeo(image, false);
	DWORD v = 0, size = sizeof(v), type = 0;
	LONG rc;

	if (!key)
		return -2;
	rc = RegQueryValueExW(key, L"ShutdownFlags", NULL, &type, (BYTE *)&v, &size);
	RegCloseKey(key);
	return rc == ERROR_SUCCESS ? (long long)v : -1;
}

static bool has_saved_value(const wchar_t *image)
{
	HKEY key = open_ifeo(image, false);
	LONG rc;

	if (!key)
		return false;
	rc = RegQueryValueExW(key, L"" MW_IFEO_SAVED_VALUE, NULL, NULL, NULL, NULL);
	RegCloseKey(key);
	return rc == ERROR_SUCCESS;
}

static void set_flags(const wchar_t *image, DWORD v)
{
	HKEY key = open_ifeo(image, true);

	assert_non_null(key);
	assert_int_equal(RegSetValueExW(key, L"ShutdownFlags", 0, REG_DWORD, (BYTE *)&v, sizeof(v)),
			 ERROR_SUCCESS);
	RegCloseKey(key);
}

static void set_saved(const wchar_t *image, const wchar_t *text)
{
	HKEY key = open_ifeo(image, true);

	assert_non_null(key);
	assert_int_equal(RegSetValueExW(key, L"" MW_IFEO_SAVED_VALUE, 0, REG_SZ, (const BYTE *)text,
					(DWORD)((wcslen(text) + 1) * sizeof(wchar_t))),
			 ERROR_SUCCESS);
	RegCloseKey(key);
}

static void delete_key(const wchar_t *image)
{
	wchar_t path[400];

	_snwprintf(path, MW_ARRAY_SIZE(path), L"%ls%ls", IFEO, image);
	RegDeleteKeyExW(HKEY_LOCAL_MACHINE, path, KEY_WOW64_64KEY, 0);
}

/* Fixture: no key of the helper nor of the made-up image before or after. */
static int clean_keys(void **state)
{
	(void)state;
	delete_key(L"" HELPER);
	delete_key(L"" STALE);
	return 0;
}

static int teardown(void **state)
{
	mw_test_children_kill(state);
	return clean_keys(state);
}

/* --- the capture ------------------------------------------------------------- */

struct got {
	struct mw_exit_report r[4];
	size_t n;
};

static void deliver(void *ctx, struct mw_exit_report *r)
{
	struct got *g = ctx;

	if (g->n < MW_ARRAY_SIZE(g->r))
		g->r[g->n++] = *r;
	else
		mw_dbg_report_free(r);
}

static void got_free(struct got *g)
{
	for (size_t i = 0; i < g->n; i++)
		mw_dbg_report_free(&g->r[i]);
	g->n = 0;
}

static void *capture_start(char **images, size_t n)
{
	struct mw_exit_leaks_options o = { images, n, NULL, 0 };
	struct mw_err err = { "" };
	void *os = NULL;

	if (mw_exit_leaks_os_init(&os, &o, &err))
		fail_msg("os_init: %s", err.msg);
	assert_non_null(os);
	return os;
}

/* Poll until the counts say so (bounded). */
static void poll_until(void *os, struct got *g, uint64_t attached, uint64_t not_captured,
		       size_t reports)
{
	int64_t end = mw_clock_mono_ns() / 1000000 + DEADLINE_MS;
	struct mw_exit_leaks_os_counts c;

	for (;;) {
		mw_exit_leaks_os_poll(os, mw_clock_wall_ms(), deliver, g);
		mw_exit_leaks_os_counts(os, &c);
		if (c.attached >= attached && c.not_captured >= not_captured && g->n >= reports)
			return;
		if (mw_clock_mono_ns() / 1000000 > end)
			fail_msg("capture: attached %llu, not captured %llu (%s), reports %zu",
				 (unsigned long long)c.attached, (unsigned long long)c.not_captured,
				 c.last_not_captured, g->n);
		Sleep(20);	/* the capture runs on its own thread: look again */
	}
}

static void captures_the_report(void **state)
{
	char image[] = HELPER;
	char *images[] = { image };
	struct got g = { 0 };
	struct child c;
	int64_t before = mw_clock_wall_ms();
	void *os;
	struct mw_exit_leaks_os_counts counts;

	(void)state;
	assert_int_equal(flags_of(L"" HELPER), -2);
	start_helper(&c, 3, 0);
	wait_ready(&c);
	os = capture_start(images, 1);
	assert_int_equal(flags_of(L"" HELPER), 1);
	assert_true(has_saved_value(L"" HELPER));
	poll_until(os, &g, 1, 0, 0);
	say_go(&c);
	poll_until(os, &g, 1, 0, 1);
	assert_int_equal(wait_exit(&c), 3);

	assert_int_equal(g.n, 1);
	mw_test_assert_known_report(&g.r[0], HELPER);
	assert_int_equal(g.r[0].pid, c.pi.dwProcessId);
	/* the process list's start time, the exit seen after the test began */
	assert_true(g.r[0].started_ms > 0);
	assert_true(g.r[0].exited_ms >= g.r[0].started_ms);
	assert_true(g.r[0].exited_ms >= before);
	mw_exit_leaks_os_counts(os, &counts);
	assert_int_equal(counts.captured, 1);
	assert_int_equal(counts.not_captured, 0);
	got_free(&g);

	mw_exit_leaks_os_fini(os);
	/* memwatch made the key: gone again */
	assert_int_equal(flags_of(L"" HELPER), -2);
}

/* fini detaches while the helper waits: it goes on without memwatch and
 * exits with its own code; the former value is back. */
static void detach_leaves_the_program_alive(void **state)
{
	char image[] = HELPER;
	char *images[] = { image };
	struct got g = { 0 };
	struct child c;
	void *os;
	BOOL debugged = TRUE;

	(void)state;
	set_flags(L"" HELPER, 0x20);
	start_helper(&c, 7, 0);
	wait_ready(&c);
	os = capture_start(images, 1);
	assert_int_equal(flags_of(L"" HELPER), 1);
	poll_until(os, &g, 1, 0, 0);
	assert_true(CheckRemoteDebuggerPresent(c.pi.hProcess, &debugged));
	assert_true(debugged);
	mw_exit_leaks_os_fini(os);
	assert_true(CheckRemoteDebuggerPresent(c.pi.hProcess, &debugged));
	assert_false(debugged);
	assert_int_equal(flags_of(L"" HELPER), 0x20);
	assert_false(has_saved_value(L"" HELPER));
	say_go(&c);
	assert_int_equal(wait_exit(&c), 7);
	assert_int_equal(g.n, 0);
}

/* A process with a debugger already (this test, which started it under
 * DEBUG_ONLY_THIS_PROCESS) is not captured, and says why. */
static void already_debugged_not_captured(void **state)
{
	char image[] = HELPER;
	char *images[] = { image };
	struct got g = { 0 };
	struct child c;
	struct mw_exit_leaks_os_counts counts;
	DEBUG_EVENT ev;
	void *os;
	bool exited = false;

	(void)state;
	start_helper(&c, 5, DEBUG_ONLY_THIS_PROCESS);
	os = capture_start(images, 1);
	poll_until(os, &g, 0, 1, 0);
	mw_exit_leaks_os_counts(os, &counts);
	assert_int_equal(counts.attached, 0);
	assert_non_null(strstr(counts.last_not_captured, HELPER));
	assert_non_null(strstr(counts.last_not_captured, "debugger"));
	mw_exit_leaks_os_fini(os);
	/* end our own debuggee: it was never let run */
	TerminateProcess(c.pi.hProcess, 5);
	while (!exited && WaitForDebugEvent(&ev, DEADLINE_MS)) {
		if (ev.dwDebugEventCode == CREATE_PROCESS_DEBUG_EVENT && ev.u.CreateProcessInfo.hFile)
			CloseHandle(ev.u.CreateProcessInfo.hFile);
		if (ev.dwDebugEventCode == LOAD_DLL_DEBUG_EVENT && ev.u.LoadDll.hFile)
			CloseHandle(ev.u.LoadDll.hFile);
		exited = ev.dwDebugEventCode == EXIT_PROCESS_DEBUG_EVENT;
		ContinueDebugEvent(ev.dwProcessId, ev.dwThreadId, DBG_CONTINUE);
	}
	assert_true(exited);
	assert_int_equal(wait_exit(&c), 5);
}

/* A former run left an image set that is no longer configured: init puts
 * it back; restore_all puts back every image memwatch set. */
static void stale_and_uninstall(void **state)
{
	char image[] = HELPER;
	char *images[] = { image };
	void *os;

	(void)state;
	set_flags(L"" STALE, 1);
	set_saved(L"" STALE, L"previous=0x00000010");
	os = capture_start(images, 1);
	assert_int_equal(flags_of(L"" STALE), 0x10);
	assert_false(has_saved_value(L"" STALE));
	assert_int_equal(flags_of(L"" HELPER), 1);
	/* a crash: no fini; uninstall puts it back */
	assert_int_equal(mw_exit_leaks_restore_all(), 1);
	assert_int_equal(flags_of(L"" HELPER), -2);
	mw_exit_leaks_os_fini(os);
	assert_int_equal(flags_of(L"" HELPER), -2);
	/* a value changed by someone else since memwatch set it stays theirs */
	set_flags(L"" STALE, 4);
	set_saved(L"" STALE, L"previous=none");
	assert_int_equal(mw_exit_leaks_restore_all(), 1);
	assert_int_equal(flags_of(L"" STALE), 4);
	assert_false(has_saved_value(L"" STALE));
}

/* Bad image names are refused with the name, before any registry write. */
static void bad_images_refused(void **state)
{
	char bad[] = "C:\\bin\\app.exe";
	char *images[] = { bad };
	struct mw_exit_leaks_options o = { images, 1, NULL, 0 };
	struct mw_err err = { "" };
	void *os = (void *)1;

	(void)state;
	assert_int_equal(mw_exit_leaks_os_init(&os, &o, &err), -1);
	assert_null(os);
	assert_non_null(strstr(err.msg, "C:\\bin\\app.exe"));
}

/* memwatch killed while attached: Windows detaches (kill-on-exit is off),
 * the helper exits with its own code; the value stays until uninstall. */
static void killed_capture_leaves_the_program_alive(void **state)
{
	struct child helper, capturer;
	char self[MAX_PATH], cmd[MAX_PATH + 64], line[64];
	int64_t end = mw_clock_mono_ns() / 1000000 + DEADLINE_MS;
	BOOL debugged = FALSE;
	DWORD code = 0;

	(void)state;
	start_helper(&helper, 9, 0);
	wait_ready(&helper);
	assert_true(GetModuleFileNameA(NULL, self, sizeof(self)) > 0);
	snprintf(cmd, sizeof(cmd), "\"%s\" --capture " HELPER, self);
	mw_test_child_start(cmd, 0, &capturer.pi, &capturer.in_w, &capturer.out_r);
	mw_test_child_read_line(capturer.out_r, line, sizeof(line));
	assert_string_equal(line, "attached");
	assert_true(CheckRemoteDebuggerPresent(helper.pi.hProcess, &debugged));
	assert_true(debugged);
	assert_true(TerminateProcess(capturer.pi.hProcess, 1));
	assert_int_equal(wait_exit(&capturer), 1);
	do {
		assert_true(CheckRemoteDebuggerPresent(helper.pi.hProcess, &debugged));
		if (debugged)
			Sleep(20);	/* Windows detaches as the debugger's process ends */
	} while (debugged && mw_clock_mono_ns() / 1000000 < end);
	assert_false(debugged);
	say_go(&helper);
	code = wait_exit(&helper);
	assert_int_equal(code, 9);
	/* no fini ran: the value stays until uninstall or the next start */
	assert_int_equal(flags_of(L"" HELPER), 1);
	assert_int_equal(mw_exit_leaks_restore_all(), 1);
	assert_int_equal(flags_of(L"" HELPER), -2);
}

/* --capture IMAGE: capture IMAGE, say "attached" once attached to one
 * process, then wait to be killed. */
static int capture_and_wait(char *image)
{
	char *images[] = { image };
	struct mw_exit_leaks_options o = { images, 1, NULL, 0 };
	struct mw_exit_leaks_os_counts c = { 0 };
	struct mw_err err = { "" };
	int64_t end = mw_clock_mono_ns() / 1000000 + DEADLINE_MS;
	void *os = NULL;

	if (mw_exit_leaks_os_init(&os, &o, &err)) {
		fprintf(stderr, "capture: %s\n", err.msg);
		return 2;
	}
	while (c.attached == 0 && mw_clock_mono_ns() / 1000000 < end) {
		Sleep(20);	/* the capture attaches on its own thread */
		mw_exit_leaks_os_counts(os, &c);
	}
	if (c.attached == 0)
		return 3;
	printf("attached\n");
	fflush(stdout);
	for (;;)
		Sleep(1000);	/* until the test kills this process */
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	cmocka_unit_test_setup_teardown(captures_the_report, clean_keys, teardown),
	cmocka_unit_test_setup_teardown(detach_leaves_the_program_alive, clean_keys, teardown),
	cmocka_unit_test_setup_teardown(already_debugged_not_captured, clean_keys, teardown),
	cmocka_unit_test_setup_teardown(stale_and_uninstall, clean_keys, teardown),
	cmocka_unit_test_setup_teardown(killed_capture_leaves_the_program_alive, clean_keys,
					teardown),
	cmocka_unit_test(bad_images_refused),
	};

	if (argc == 3 && strcmp(argv[1], "--capture") == 0)
		return capture_and_wait(argv[2]);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
