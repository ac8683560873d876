/* worker.c - see worker.h. */
#include "worker.h"

#include <errno.h>

#include "clock_step.h"
#include "cond.h"

int mw_worker_start(struct mw_worker *w, void *(*main)(void *), void *arg)
{
	pthread_mutex_init(&w->lock, NULL);
	mw_cond_init(&w->wake);
	if (pthread_create(&w->thread, NULL, main, arg))
		return -1;
	w->started = true;
	return 0;
}

void mw_worker_sleep(struct mw_worker *w, int64_t ms)
{
	/* a monotonic deadline: a wall clock stepped back does not stretch
	 * the pause by the step (base/cond.h) */
	int64_t until = mw_cond_deadline(ms);

	while (!w->stopping && mw_cond_wait_until(&w->wake, &w->lock, until) != ETIMEDOUT)
		;
	/* every worker ticks: a step of the wall clock is noticed here too */
	mw_clock_step_poll();
}

void mw_worker_wait(struct mw_worker *w, int64_t ms)
{
	if (!w->stopping)
		(void)mw_cond_wait_until(&w->wake, &w->lock, mw_cond_deadline(ms));
	mw_clock_step_poll();
}

void mw_worker_wake(struct mw_worker *w)
{
	pthread_cond_signal(&w->wake);
}

void mw_worker_stop(struct mw_worker *w)
{
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	if (w->started)
		pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
}
