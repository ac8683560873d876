/* cond_win32.c - cond.h with winpthreads: relative waits (a tick-count
 * timeout), computed from the monotonic time left; see cond.h for why. */
#include "cond.h"

#include <errno.h>
#include <time.h>

#include "clock.h"

int mw_cond_init(pthread_cond_t *c)
{
	return pthread_cond_init(c, NULL);
}

int64_t mw_cond_deadline(int64_t ms)
{
	return mw_clock_mono_ns() + ms * 1000000;
}

int mw_cond_wait_until(pthread_cond_t *c, pthread_mutex_t *m, int64_t deadline_ns)
{
	int64_t left = deadline_ns - mw_clock_mono_ns();
	struct timespec rel;

	if (left <= 0)
		return ETIMEDOUT;
	/* winpthreads waits whole milliseconds, rounded down: round up so a
	 * wait never ends before its deadline (and never spins at 0 ms) */
	left += 999999;
	rel.tv_sec = (time_t)(left / 1000000000);
	rel.tv_nsec = (long)(left % 1000000000);
	pthread_cond_timedwait_relative_np(c, m, &rel);
	/* the deadline decides, not the return value: the caller loops on
	 * 0 and stops on ETIMEDOUT */
	return mw_clock_mono_ns() >= deadline_ns ? ETIMEDOUT : 0;
}
