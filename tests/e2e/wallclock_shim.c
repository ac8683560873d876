/*
 * wallclock_shim.c - an LD_PRELOAD library for tests/e2e/clock_step.sh:
 * the wall clock (clock_gettime of CLOCK_REALTIME and its coarse kind,
 * gettimeofday, time) moved by a number of seconds read from the file
 * named by MW_WALLCLOCK_OFFSET_FILE, which the test rewrites while the
 * daemon runs: a step of the wall clock as the daemon sees it.  (A time
 * namespace moves the monotonic clocks only, never CLOCK_REALTIME.)  The
 * kernel's own clock is not moved: a CLOCK_REALTIME deadline computed
 * from the moved clock is off by the offset, which is what a step does to
 * a wait already under way.
 *
 * Built by the test (cc -shared -fPIC), never part of memwatch.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

typedef int (*gettime_fn)(clockid_t, struct timespec *);

static _Atomic long long offset_s;
static _Atomic long long read_at_ns;	/* monotonic time of the last read */

static gettime_fn real_gettime(void)
{
	static _Atomic(gettime_fn) fn;
	gettime_fn f = atomic_load(&fn);

	if (!f) {
		f = (gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
		atomic_store(&fn, f);
	}
	return f;
}

/* The offset, read again at most every 50 ms. */
static long long offset(void)
{
	struct timespec m;
	long long now, last = atomic_load(&read_at_ns);
	const char *path = getenv("MW_WALLCLOCK_OFFSET_FILE");

	real_gettime()(CLOCK_MONOTONIC, &m);
	now = (long long)m.tv_sec * 1000000000LL + m.tv_nsec;
	if (path && (last == 0 || now - last > 50000000LL) &&
	    atomic_compare_exchange_strong(&read_at_ns, &last, now)) {
		FILE *f = fopen(path, "r");
		long long v;

		if (f) {
			if (fscanf(f, "%lld", &v) == 1)
				atomic_store(&offset_s, v);
			fclose(f);
		}
	}
	return atomic_load(&offset_s);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	int rc = real_gettime()(id, ts);

	if (rc == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
		ts->tv_sec += (time_t)offset();
	return rc;
}

int gettimeofday(struct timeval *tv, void *tz)
{
	struct timespec ts;

	(void)tz;
	if (clock_gettime(CLOCK_REALTIME, &ts))
		return -1;
	tv->tv_sec = ts.tv_sec;
	tv->tv_usec = ts.tv_nsec / 1000;
	return 0;
}

time_t time(time_t *out)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (out)
		*out = ts.tv_sec;
	return ts.tv_sec;
}
