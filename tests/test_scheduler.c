/* test_scheduler.c - due times, skipped ticks, backoff, failure logging
 * and status, with collectors defined here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/collector.h"
#include "base/log.h"
#include "core/scheduler.h"
#include "base/stop.h"
#include "tests/support/test_main.h"

#define MS 1000000LL

static void next_due_without_lag(void **state)
{
	uint64_t skipped = 0;

	(void)state;
	assert_int_equal(mw_schedule_next(0, 10 * MS, 5 * MS, &skipped), 10 * MS);
	assert_int_equal(skipped, 0);
	/* Exactly on the next tick is already late: it is skipped. */
	assert_int_equal(mw_schedule_next(0, 10 * MS, 10 * MS, &skipped), 20 * MS);
	assert_int_equal(skipped, 1);
}

static void falling_behind_skips_instead_of_bursting(void **state)
{
	uint64_t skipped = 0;

	(void)state;
	/* Due at 0, took until 35: ticks at 10, 20, 30 are gone; next is 40. */
	assert_int_equal(mw_schedule_next(0, 10 * MS, 35 * MS, &skipped), 40 * MS);
	assert_int_equal(skipped, 3);
}

/* Wall clock 1.7e12 ms when the monotonic clock reads 5e9 ns (+0.4 ms, so
 * the offset is not a whole number of milliseconds). */
#define WALL0 1700000000000LL
#define MONO0 (5000LL * MS + 400000)

static int64_t wall_at(int64_t mono_ns, int64_t step_ms)
{
	return WALL0 + (mono_ns - MONO0) / MS + step_ms;
}

static void tick_stamp_is_the_due_time_despite_jitter(void **state)
{
	static const int64_t jitter_us[] = { 0, 900, 150, 1000, 20, 999, 3, 24000 };
	struct mw_tick_clock c = { false, 0 };
	int64_t prev = 0, d, prevd = 0;
	size_t k;

	(void)state;
	for (k = 0; k < sizeof(jitter_us) / sizeof(jitter_us[0]); k++) {
		int64_t due = MONO0 + (int64_t)k * 1000 * MS;
		int64_t start = due + jitter_us[k] * 1000;
		int64_t ts = mw_tick_stamp(&c, due, 1000 * MS, start, wall_at(start, 0));

		if (k > 0) {
			d = ts - prev;
			assert_int_equal(d, 1000);	/* exactly one interval */
			if (k > 1)
				assert_int_equal(d - prevd, 0);	/* delta-of-delta 0 */
			prevd = d;
		}
		prev = ts;
	}
	/* the stamp is the due instant's wall time (within the clocks' 1 ms) */
	assert_true(prev - wall_at(MONO0 + 7000 * MS, 0) >= -1 &&
		    prev - wall_at(MONO0 + 7000 * MS, 0) <= 1);
}

static void late_or_early_tick_is_stamped_when_it_started(void **state)
{
	struct mw_tick_clock c = { false, 0 };
	int64_t due = MONO0, start;

	(void)state;
	mw_tick_stamp(&c, due, 1000 * MS, due, wall_at(due, 0));
	/* 26 ms late: beyond the 25 ms tolerance */
	due += 1000 * MS;
	start = due + 26 * MS;
	assert_int_equal(mw_tick_stamp(&c, due, 1000 * MS, start, wall_at(start, 0)),
			 wall_at(start, 0));
	/* started before its due time (a test calling sample_one directly) */
	start = due - 5 * MS;
	assert_int_equal(mw_tick_stamp(&c, due, 1000 * MS, start, wall_at(start, 0)),
			 wall_at(start, 0));
	/* a 100 ms interval: the tolerance is 5 ms */
	start = due + 6 * MS;
	assert_int_equal(mw_tick_stamp(&c, due, 100 * MS, start, wall_at(start, 0)),
			 wall_at(start, 0));
	start = due + 4 * MS;
	assert_int_equal(mw_tick_stamp(&c, due, 100 * MS, start, wall_at(start, 0)),
			 wall_at(due, 0));
}

static void tick_stamp_follows_wall_clock_steps(void **state)
{
	struct mw_tick_clock c = { false, 0 };
	int64_t due = MONO0, ts0, ts1, ts2;

	(void)state;
	ts0 = mw_tick_stamp(&c, due, 1000 * MS, due + MS, wall_at(due + MS, 0));
	/* NTP steps the wall clock 30 s back between two ticks */
	due += 1000 * MS;
	ts1 = mw_tick_stamp(&c, due, 1000 * MS, due + MS, wall_at(due + MS, -30000));
	assert_true(ts1 - (ts0 + 1000 - 30000) >= -1 && ts1 - (ts0 + 1000 - 30000) <= 1);
	/* and the next tick is regular again from the new offset */
	due += 1000 * MS;
	ts2 = mw_tick_stamp(&c, due, 1000 * MS, due + 2 * MS, wall_at(due + 2 * MS, -30000));
	assert_int_equal(ts2 - ts1, 1000);
	/* a 3 ms step (within the tolerance) is absorbed: still regular */
	due += 1000 * MS;
	assert_int_equal(mw_tick_stamp(&c, due, 1000 * MS, due, wall_at(due, -30003)) - ts2,
			 1000);
}

static void backoff_doubles_up_to_a_cap(void **state)
{
	(void)state;
	assert_int_equal(mw_schedule_backoff(1000 * MS, 1), 1000 * MS);
	assert_int_equal(mw_schedule_backoff(1000 * MS, 2), 2000 * MS);
	assert_int_equal(mw_schedule_backoff(1000 * MS, 4), 8000 * MS);
	assert_int_equal(mw_schedule_backoff(1000 * MS, 60), 300000 * MS);
	/* An interval longer than the cap is never shortened. */
	assert_int_equal(mw_schedule_backoff(3600000 * MS, 5), 3600000 * MS);
}

/* --- collectors for the tests -------------------------------------------- */

static int flaky_calls;
static int flaky_fail_from, flaky_fail_to;	/* calls in [from, to) fail */
static int stop_after;

static int flaky_init(void **st, const struct mw_collector_env *env, struct mw_err *why)
{
	(void)env;
	(void)why;
	*st = &flaky_calls;
	return MW_COLLECTOR_OK;
}

static int flaky_sample(void *st, struct mw_sample_ctx *ctx)
{
	int n = (*(int *)st)++;

	if (stop_after && n + 1 >= stop_after)
		mw_stop_request();
	if (n >= flaky_fail_from && n < flaky_fail_to)
		return mw_error(&ctx->err, "disk on fire (call %d)", n);
	mw_batch_add(ctx->batch, "test_value", NULL, 0, n, ctx->ts_ms);
	snprintf(ctx->mode, sizeof(ctx->mode), "flaky mode");
	ctx->inaccessible = 2;
	return MW_COLLECTOR_OK;
}

static void nop_fini(void *st)
{
	(void)st;
}

static int unsupported_init(void **st, const struct mw_collector_env *env, struct mw_err *why)
{
	(void)st;
	(void)env;
	mw_error(why, "needs a real kernel");
	return MW_COLLECTOR_UNSUPPORTED;
}

static int bad_option_init(void **st, const struct mw_collector_env *env, struct mw_err *why)
{
	(void)st;
	(void)env;
	mw_error(why, "option 'colour': 'red' is not a number");
	return MW_COLLECTOR_ERROR;
}

static int never_sample(void *st, struct mw_sample_ctx *ctx)
{
	(void)st;
	(void)ctx;
	fail_msg("an unsupported collector was sampled");
	return MW_COLLECTOR_ERROR;
}

static const struct mw_collector flaky = { "flaky", "test", 10, true, NULL, 0, 0,
					   flaky_init, flaky_sample, nop_fini };
static const struct mw_collector unsupported = { "unsup", "test", 10, true, NULL, 0, 0,
						 unsupported_init, never_sample, nop_fini };
static const struct mw_collector bad_option = { "badopt", "test", 10, true, NULL, 0, 0,
						bad_option_init, never_sample, nop_fini };

static struct mw_collector_config ccs[2];
static struct mw_config cfg;

static void setup_config(const struct mw_collector *a, const struct mw_collector *b)
{
	memset(&cfg, 0, sizeof(cfg));
	memset(ccs, 0, sizeof(ccs));
	cfg.interval_ms = 1000;
	ccs[0].collector = a;
	ccs[0].enabled = true;
	ccs[0].interval_ms = 10;
	ccs[1].collector = b;
	ccs[1].enabled = true;
	ccs[1].interval_ms = 10;
	cfg.collectors = ccs;
	cfg.ncollectors = b ? 2 : 1;
	flaky_calls = 0;
	flaky_fail_from = flaky_fail_to = 0;
	stop_after = 0;
}

static int log_errors, log_recoveries;

static void count_logs(enum mw_log_level level, const char *line)
{
	if (level == MW_LOG_ERROR && strstr(line, "flaky: disk on fire"))
		log_errors++;
	if (level == MW_LOG_INFO && strstr(line, "flaky: recovered"))
		log_recoveries++;
}

static void failures_are_logged_once_and_counted(void **state)
{
	struct mw_status_table *st;
	struct mw_scheduler s;
	struct mw_collector_status cs;
	struct mw_batch b;
	int i;

	(void)state;
	setup_config(&flaky, &unsupported);
	flaky_fail_from = 1;
	flaky_fail_to = 4;
	st = mw_status_new(2);
	assert_int_equal(mw_scheduler_init(&s, &cfg, st, NULL), 0);
	log_errors = log_recoveries = 0;
	mw_log_set_sink(count_logs);
	mw_log_open(NULL, MW_LOG_INFO, NULL);
	mw_batch_init(&b);
	for (i = 0; i < 6; i++)
		mw_scheduler_sample_one(&s, 0, &b);
	mw_log_set_sink(NULL);
	mw_status_get(st, 0, &cs);
	assert_int_equal(cs.runs, 6);
	assert_int_equal(cs.errors, 3);
	assert_false(cs.failing);
	assert_non_null(strstr(cs.last_error, "call 3"));
	assert_string_equal(cs.mode, "flaky mode");
	assert_int_equal(cs.inaccessible, 2);
	assert_int_equal(log_errors, 1);
	assert_int_equal(log_recoveries, 1);
	/* 3 successful calls: 3 samples of its own (self metrics are not counted) */
	assert_int_equal(cs.samples, 3);
	assert_int_equal(b.nsamples, 3 + 6 * 3);
	mw_status_get(st, 1, &cs);
	assert_false(cs.supported);
	assert_string_equal(cs.reason, "needs a real kernel");
	mw_batch_release(&b);
	mw_scheduler_release(&s);
	mw_status_free(st);
}

static void bad_option_stops_start_up(void **state)
{
	struct mw_status_table *st = mw_status_new(2);
	struct mw_scheduler s;
	struct mw_err err = { "" };

	(void)state;
	setup_config(&flaky, &bad_option);
	assert_int_equal(mw_scheduler_init(&s, &cfg, st, &err), -1);
	assert_non_null(strstr(err.msg, "badopt"));
	assert_non_null(strstr(err.msg, "colour"));
	mw_status_free(st);
}

static int batches_seen;
static size_t samples_seen;

static void collect(void *arg, struct mw_batch *b)
{
	(void)arg;
	batches_seen++;
	samples_seen += b->nsamples;
	mw_batch_free(b);
}

static void loop_runs_until_stopped(void **state)
{
	struct mw_status_table *st = mw_status_new(1);
	struct mw_scheduler s;

	(void)state;
	setup_config(&flaky, NULL);
	stop_after = 3;
	assert_int_equal(mw_stop_init(), 0);
	mw_stop_reset();
	assert_int_equal(mw_scheduler_init(&s, &cfg, st, NULL), 0);
	batches_seen = 0;
	samples_seen = 0;
	mw_scheduler_loop(&s, collect, NULL);
	assert_true(mw_stop_requested());
	assert_int_equal(flaky_calls, 3);
	assert_int_equal(batches_seen, 3);
	assert_int_equal(samples_seen, 3 * (1 + 3));
	mw_scheduler_release(&s);
	mw_status_free(st);
	mw_stop_reset();
}

MW_TEST_MAIN(
	cmocka_unit_test(next_due_without_lag),
	cmocka_unit_test(falling_behind_skips_instead_of_bursting),
	cmocka_unit_test(tick_stamp_is_the_due_time_despite_jitter),
	cmocka_unit_test(late_or_early_tick_is_stamped_when_it_started),
	cmocka_unit_test(tick_stamp_follows_wall_clock_steps),
	cmocka_unit_test(backoff_doubles_up_to_a_cap),
	cmocka_unit_test(failures_are_logged_once_and_counted),
	cmocka_unit_test(bad_option_stops_start_up),
	cmocka_unit_test(loop_runs_until_stopped),
)
