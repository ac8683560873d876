/*
 * cond.h - condition variables whose timed waits run on the monotonic
 * clock, so a wall clock stepped back (NTP after a VM resume, an admin)
 * neither stalls a waiting thread for the length of the step nor, stepped
 * forward, wakes it early.  Every timed wait of the daemon uses these: the
 * worker threads (base/worker.c: leak judgement, slow-client guard), the
 * storage writer and the remote-write forwarder.
 *
 * Linux: pthread_condattr_setclock(CLOCK_MONOTONIC), the deadline on that
 * clock (cond_linux.c).  Windows: winpthreads accepts only CLOCK_REALTIME
 * in pthread_condattr_setclock (EINVAL otherwise) and turns an absolute
 * deadline into a relative wait from the wall clock, so the wait is made
 * relative (pthread_cond_timedwait_relative_np: a WaitForSingleObject
 * timeout, which counts ticks) from the monotonic time left (cond_win32.c).
 */
#ifndef MW_BASE_COND_H
#define MW_BASE_COND_H

#include <pthread.h>
#include <stdint.h>

/* Initialise c for mw_cond_wait_until.  0, or the pthread error. */
int mw_cond_init(pthread_cond_t *c);

/* The monotonic deadline ms milliseconds from now (mw_clock_mono_ns's
 * scale). */
int64_t mw_cond_deadline(int64_t ms);

/* With m held: wait for a signal on c or until the monotonic deadline
 * (nanoseconds, mw_clock_mono_ns's scale).  0 when woken (perhaps
 * spuriously), ETIMEDOUT once the deadline passed. */
int mw_cond_wait_until(pthread_cond_t *c, pthread_mutex_t *m, int64_t deadline_ns);

#endif
