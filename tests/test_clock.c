/* test_clock.c - the monotonic timed waits (base/cond.h) and the
 * wall-clock step rule (base/clock_step.h); runs natively and under Wine
 * (winpthreads' relative waits).  A real step of the wall clock is
 * tests/e2e/clock_step.sh's. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <cmocka.h>

#include "base/clock.h"
#include "base/clock_step.h"
#include "base/cond.h"
#include "base/worker.h"
#include "tests/support/test_main.h"

static void step_rule(void **state)
{
	(void)state;
	/* the clocks agree to a second: no step */
	assert_int_equal(mw_clock_step_of(1000, 1000000000LL), 0);
	assert_int_equal(mw_clock_step_of(1900, 1000000000LL), 0);
	assert_int_equal(mw_clock_step_of(100, 1000000000LL), 0);
	/* an hour back or forward within a second */
	assert_int_equal(mw_clock_step_of(1000 - 3600000, 1000000000LL), -3600000);
	assert_int_equal(mw_clock_step_of(1000 + 3600000, 1000000000LL), 3600000);
	/* slewing (500 ppm) over an hour between polls is no step; 2 % is */
	assert_int_equal(mw_clock_step_of(3600000 + 1800, 3600LL * 1000000000LL), 0);
	assert_int_equal(mw_clock_step_of(3600000 + 72000, 3600LL * 1000000000LL), 72000);
}

static void no_step_without_one(void **state)
{
	struct mw_clock_step last;

	(void)state;
	mw_clock_step_poll();
	assert_int_equal(mw_clock_step_poll(), 0);
	assert_false(mw_clock_step_last(&last));
}

static void wait_times_out_at_its_deadline(void **state)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c;
	int64_t until;
	int rc;

	(void)state;
	assert_int_equal(mw_cond_init(&c), 0);
	pthread_mutex_lock(&m);
	/* a deadline passed: at once */
	assert_int_equal(mw_cond_wait_until(&c, &m, mw_clock_mono_ns() - 1), ETIMEDOUT);
	until = mw_cond_deadline(50);
	while ((rc = mw_cond_wait_until(&c, &m, until)) == 0)
		;	/* spurious */
	assert_int_equal(rc, ETIMEDOUT);
	assert_true(mw_clock_mono_ns() >= until);
	pthread_mutex_unlock(&m);
	pthread_cond_destroy(&c);
}

struct signaller {
	pthread_mutex_t m;
	pthread_cond_t c;
	bool flag;
};

static void *signal_main(void *arg)
{
	struct signaller *s = arg;

	pthread_mutex_lock(&s->m);
	s->flag = true;
	pthread_cond_signal(&s->c);
	pthread_mutex_unlock(&s->m);
	return NULL;
}

static void wait_wakes_on_a_signal(void **state)
{
	struct signaller s;
	pthread_t t;
	int64_t until;

	(void)state;
	memset(&s, 0, sizeof(s));
	pthread_mutex_init(&s.m, NULL);
	assert_int_equal(mw_cond_init(&s.c), 0);
	until = mw_cond_deadline(60000);
	pthread_mutex_lock(&s.m);
	assert_int_equal(pthread_create(&t, NULL, signal_main, &s), 0);
	while (!s.flag)
		assert_int_equal(mw_cond_wait_until(&s.c, &s.m, until), 0);
	pthread_mutex_unlock(&s.m);
	pthread_join(t, NULL);
	assert_true(mw_clock_mono_ns() < until);
	pthread_cond_destroy(&s.c);
	pthread_mutex_destroy(&s.m);
}

static void *sleeper_main(void *arg)
{
	struct mw_worker *w = arg;

	pthread_mutex_lock(&w->lock);
	while (!w->stopping)
		mw_worker_sleep(w, 3600000);
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

/* A worker sleeping an hour stops when told (the join returns). */
static void worker_stops_while_asleep(void **state)
{
	struct mw_worker w = { 0 };

	(void)state;
	assert_int_equal(mw_worker_start(&w, sleeper_main, &w), 0);
	mw_worker_stop(&w);
	assert_true(w.stopping);
}

MW_TEST_MAIN(
	cmocka_unit_test(step_rule),
	cmocka_unit_test(no_step_without_one),
	cmocka_unit_test(wait_times_out_at_its_deadline),
	cmocka_unit_test(wait_wakes_on_a_signal),
	cmocka_unit_test(worker_stops_while_asleep),
)
