/* worker.c - see worker.h. */
#include "worker.h"

#include <errno.h>
#include <time.h>

int mw_worker_start(struct mw_worker *w, void *(*main)(void *), void *arg)
{
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	if (pthread_create(&w->thread, NULL, main, arg))
		return -1;
	w->started = true;
	return 0;
}

void mw_worker_sleep(struct mw_worker *w, int64_t ms)
{
	struct timespec until;
	int64_t ns;

	/* pthread_cond_timedwait takes the wall clock */
	clock_gettime(CLOCK_REALTIME, &until);
	ns = (int64_t)until.tv_nsec + (ms % 1000) * 1000000;
	until.tv_sec += (time_t)(ms / 1000 + ns / 1000000000);
	until.tv_nsec = (long)(ns % 1000000000);
	while (!w->stopping && pthread_cond_timedwait(&w->wake, &w->lock, &until) != ETIMEDOUT)
		;
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
