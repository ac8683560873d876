/*
 * child_win32.h - a Windows test's child program with its stdin and
 * stdout on pipes, the one copy for the Wine tests that drive a helper
 * line by line (test_collectors_wine_win32, test_exit_leaks_win32).
 */
#ifndef MW_TESTS_SUPPORT_CHILD_WIN32_H
#define MW_TESTS_SUPPORT_CHILD_WIN32_H

#include <stddef.h>
#include <windows.h>

/* Start cmd (CreateProcess flags as given) with its stdin fed from *in_w
 * and its stdout read from *out_r (stderr is the test's); fails the
 * running cmocka test when it cannot start.  The child is kept in a list
 * until mw_test_child_forget, so a failed test cannot leave it behind. */
void mw_test_child_start(char *cmd, DWORD flags, PROCESS_INFORMATION *pi, HANDLE *in_w,
			 HANDLE *out_r);

/* The child exited (or the test ends it itself): no longer kept. */
void mw_test_child_forget(HANDLE process);

/* A cmocka teardown: end the children still kept (a failed test's), by
 * their handles. */
int mw_test_children_kill(void **state);

/* One line from out_r without its '\n' or "\r\n" (what came before the
 * end of the output, when it ends first); NUL-terminated in buf. */
void mw_test_child_read_line(HANDLE out_r, char *buf, size_t size);

#endif
