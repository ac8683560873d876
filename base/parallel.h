/*
 * parallel.h - one piece of work shared by a few threads: worker 0 is the
 * calling thread, the others are started for it and joined before the
 * call returns.  The workers share out the work themselves (a counter of
 * the next item, under the caller's own atomic), so a thread that cannot
 * start leaves its share to the others and nothing is lost.
 *
 * Used by the leak report (analysis/leak_report.c) to judge groups side
 * by side.  Owned by base/.  pthreads: glibc natively, winpthreads on
 * MinGW.
 */
#ifndef MW_BASE_PARALLEL_H
#define MW_BASE_PARALLEL_H

#include <stddef.h>

/* Run fn(arg, k) for workers k = 0 .. n-1 (n 0 is taken as 1) and wait
 * for all of them.  Returns how many ran (1 .. n). */
size_t mw_parallel_run(size_t n, void (*fn)(void *arg, size_t worker), void *arg);

#endif
