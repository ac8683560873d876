/*
 * child_win32.c - a test's child program on pipes (child_win32.h).
 */
#include "child_win32.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

/* Children started and not yet forgotten: one a failed test left running
 * would keep its output pipe open and show up in later tests. */
static HANDLE kept[8];

static void keep(HANDLE h)
{
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (!kept[i]) {
			kept[i] = h;
			return;
		}
	fail_msg("too many children");
}

void mw_test_child_forget(HANDLE process)
{
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (kept[i] == process)
			kept[i] = NULL;
}

int mw_test_children_kill(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		if (kept[i]) {
			TerminateProcess(kept[i], 1);
			WaitForSingleObject(kept[i], 10000);
			kept[i] = NULL;
		}
	return 0;
}

void mw_test_child_start(char *cmd, DWORD flags, PROCESS_INFORMATION *pi, HANDLE *in_w,
			 HANDLE *out_r)
{
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
	HANDLE in_r, out_w;
	STARTUPINFOA si;

	assert_true(CreatePipe(&in_r, in_w, &sa, 0));
	assert_true(CreatePipe(out_r, &out_w, &sa, 0));
	/* our ends stay ours: the child must not hold its own pipe open */
	SetHandleInformation(*in_w, HANDLE_FLAG_INHERIT, 0);
	SetHandleInformation(*out_r, HANDLE_FLAG_INHERIT, 0);
	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	si.dwFlags = STARTF_USESTDHANDLES;
	si.hStdInput = in_r;
	si.hStdOutput = out_w;
	si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
	if (!CreateProcessA(NULL, cmd, NULL, NULL, TRUE, flags, NULL, NULL, &si, pi))
		fail_msg("cannot start %s: Win32 error %lu (build the helpers first)", cmd,
			 GetLastError());
	CloseHandle(in_r);
	CloseHandle(out_w);
	keep(pi->hProcess);
}

void mw_test_child_read_line(HANDLE out_r, char *buf, size_t size)
{
	size_t n = 0;
	DWORD got;
	char ch;

	while (n + 1 < size && ReadFile(out_r, &ch, 1, &got, NULL) && got == 1 && ch != '\n')
		buf[n++] = ch;
	if (n > 0 && buf[n - 1] == '\r')
		n--;	/* a child's stdout in text mode ends lines with CRLF */
	buf[n] = '\0';
}
