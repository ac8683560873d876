/*
 * thread_name.h - naming the calling thread, so `top -H`, `ps -L`, perf,
 * Process Explorer and debuggers tell memwatch's threads apart (the
 * sampler, the writer, the judge, the forwarders...) instead of showing
 * every one as "memwatchd".
 *
 * Linux (thread_name_linux.c): pthread_setname_np, at most 15 bytes (the
 * kernel's comm), longer names cut.  Windows (thread_name_win32.c):
 * SetThreadDescription, looked up at run time (Windows 10 1607 and
 * later; elsewhere the name is simply not set).  Naming is best effort:
 * a thread that cannot be named works the same.
 *
 * Owned by base/ (the compat layer).
 */
#ifndef MW_BASE_THREAD_NAME_H
#define MW_BASE_THREAD_NAME_H

#include <stddef.h>

/* The names memwatch's threads take: "mw-" and what the thread does. */
#define MW_THREAD_NAME_MAX 15

void mw_thread_set_name(const char *name);

/* The calling thread's name as the OS holds it, into buf (NUL terminated);
 * 0, or -1 where the OS cannot say. */
int mw_thread_get_name(char *buf, size_t size);

#endif
