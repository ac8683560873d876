/* cond_linux.c - cond.h on POSIX: the condition itself runs on
 * CLOCK_MONOTONIC, the clock of mw_clock_mono_ns. */
#include "cond.h"

#include <errno.h>
#include <time.h>

#include "clock.h"

int mw_cond_init(pthread_cond_t *c)
{
	pthread_condattr_t a;
	int rc;

	rc = pthread_condattr_init(&a);
	if (rc)
		return rc;
	rc = pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	if (!rc)
		rc = pthread_cond_init(c, &a);
	pthread_condattr_destroy(&a);
	return rc;
}

int64_t mw_cond_deadline(int64_t ms)
{
	return mw_clock_mono_ns() + ms * 1000000;
}

int mw_cond_wait_until(pthread_cond_t *c, pthread_mutex_t *m, int64_t deadline_ns)
{
	struct timespec ts;

	if (deadline_ns <= mw_clock_mono_ns())
		return ETIMEDOUT;
	ts.tv_sec = (time_t)(deadline_ns / 1000000000);
	ts.tv_nsec = (long)(deadline_ns % 1000000000);
	return pthread_cond_timedwait(c, m, &ts) == ETIMEDOUT ? ETIMEDOUT : 0;
}
