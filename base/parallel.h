/*
 * parallel.h - one piece of work shared by a few threads: worker 0 is the
 * calling thread, the others are started for it and joined before the
 * call returns.  The workers share out the work themselves (mw_share: a
 * counter of the next item), so a thread that cannot start leaves its
 * share to the others and nothing is lost.
 *
 * Used by the leak report (analysis/leak_report_parallel.c) to judge
 * groups side by side and by range reads of many series
 * (storage/query_range.c).  Owned by base/.  pthreads: glibc natively,
 * winpthreads on MinGW.
 */
#ifndef MW_BASE_PARALLEL_H
#define MW_BASE_PARALLEL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "base/mwerr.h"

/* Run fn(arg, k) for workers k = 0 .. n-1 (n 0 is taken as 1) and wait
 * for all of them.  Returns how many ran (1 .. n). */
size_t mw_parallel_run(size_t n, void (*fn)(void *arg, size_t worker), void *arg);

/*
 * Items 0 .. n-1 shared out among the workers of one mw_parallel_run:
 * each takes the next with mw_share_next until it says none is left; an
 * item that fails is told with mw_share_fail, after which no worker
 * takes another.  The failure kept is the lowest-numbered item's, so the
 * error is the one a single worker going in order would meet first.
 */
struct mw_share {
	size_t n;
	atomic_size_t next;
	atomic_bool failed;
	pthread_mutex_t lock;	/* guards the three below */
	size_t failed_item;	/* (size_t)-1: none */
	struct mw_err err;
	int kind;		/* the caller's kind of failure */
};

void mw_share_init(struct mw_share *sh, size_t n);
/* The next item into *item; false when all are taken or one failed. */
bool mw_share_next(struct mw_share *sh, size_t *item);
void mw_share_fail(struct mw_share *sh, size_t item, const struct mw_err *err, int kind);
/* After the run: whether an item failed (its err and kind into the
 * arguments, each may be NULL); the lock is freed. */
bool mw_share_end(struct mw_share *sh, struct mw_err *err, int *kind);

#endif
