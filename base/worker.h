/*
 * worker.h - a background thread that works, sleeps a while and works
 * again until told to stop: its lock, its wake-up condition and the
 * stop flag, started and stopped the same way for the leak judgement
 * (app/leak_judge.c) and the web server's slow-client guard
 * (web/conn_guard.c).  Its sleeps run on the monotonic clock (base/cond.h)
 * and poll for wall-clock steps (base/clock_step.h).
 */
#ifndef MW_BASE_WORKER_H
#define MW_BASE_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct mw_worker {
	pthread_mutex_t lock;	/* guards stopping, and whatever the owner puts under it */
	pthread_cond_t wake;
	pthread_t thread;
	bool started, stopping;
};

/* Start main(arg) on a new thread.  -1 when the thread cannot start; call
 * mw_worker_stop either way. */
int mw_worker_start(struct mw_worker *w, void *(*main)(void *), void *arg);

/* With w->lock held: sleep ms milliseconds (the lock released meanwhile),
 * or less when told to stop. */
void mw_worker_sleep(struct mw_worker *w, int64_t ms);

/* With w->lock held: wait up to ms milliseconds (the lock released
 * meanwhile), or less when told to stop or when another thread signals
 * w->wake (mw_worker_wake). */
void mw_worker_wait(struct mw_worker *w, int64_t ms);

/* With w->lock held: end the thread's mw_worker_wait early. */
void mw_worker_wake(struct mw_worker *w);

/* Tell the thread to stop, wake it, wait for it and free the lock and the
 * condition. */
void mw_worker_stop(struct mw_worker *w);

#endif
