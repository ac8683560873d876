/* test_leak_corpus.c - the leak detector scored on a seeded synthetic
 * corpus (tests/leak_corpus.h says how traces are made).  Prints a table
 * (pattern, traces, pass/fail/inconclusive, median slope error, onset
 * misses) and asserts the targets:
 *   - no fail on any not-leak trace;
 *   - >= 95 % of leaks failed overall, >= 80 % of the slow ones;
 *   - every trace with too little data inconclusive;
 *   - median slope error <= 20 % over the failed leaks (reported slope
 *     against the leak's true mean rate over the judged span since onset);
 *   - onset within 30 minutes on the late-onset leaks that fail.
 * Speed is printed, never asserted. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "analysis/leak.h"
#include "tests/leak_corpus.h"
#include "tests/support/test_main.h"

#ifndef SEEDS
#define SEEDS 12
#endif
#define MAXINC 40
#define T0 1700000000000LL	/* an epoch in ms; the reason prints UTC */

enum lc_class { NOT_LEAK, LEAK, SLOW_LEAK, NO_DATA };

struct lc_case {
	size_t ninc;
	struct mw_trace tr[MAXINC];
	double *buf[MAXINC];
	int group;		/* judged with mw_leak_judge_group */
	double true_bph;	/* leak's mean rate over the judged span since onset */
	int64_t true_onset;	/* absolute, INT64_MIN: none asserted */
};

typedef void (*lc_make)(struct lc_rng *r, struct lc_case *c);

static void shape_init(struct lc_shape *s, struct lc_rng *r)
{
	memset(s, 0, sizeof(*s));
	s->level = exp(lc_range(r, log(20 * LC_MIB), log(2048 * LC_MIB)));
	s->sd = exp(lc_range(r, log(0.1 * LC_MIB), log(5 * LC_MIB)));
	s->onset_ms = 0;
}

static void add_inc(struct lc_case *c, const struct lc_shape *s, struct lc_rng *r,
		    int64_t t0, int64_t range_ms, int64_t step)
{
	size_t n = (size_t)(range_ms / step);
	double *v = malloc(n * sizeof(*v));

	assert_non_null(v);
	lc_generate(s, r, step, v, n);
	c->buf[c->ninc] = v;
	c->tr[c->ninc].t0_ms = t0;
	c->tr[c->ninc].step_ms = step;
	c->tr[c->ninc].v = v;
	c->tr[c->ninc].n = n;
	c->ninc++;
}

/* Mean rate of the leak part over [from, end] (ms since start). */
static double true_rate(const struct lc_shape *s, int64_t from, int64_t end)
{
	if (s->onset_ms > from)
		from = s->onset_ms;
	return (lc_leak_at(s, (double)end) - lc_leak_at(s, (double)from)) /
	       ((double)(end - from) / (double)LC_HOUR);
}

static void one(struct lc_rng *r, struct lc_case *c, struct lc_shape *s, int64_t range)
{
	int64_t step = lc_step_for(range);

	add_inc(c, s, r, T0, range, step);
	c->true_bph = true_rate(s, 10 * LC_MIN, (int64_t)c->tr[0].n * step - step);
}

static int64_t hours(struct lc_rng *r, double a, double b)
{
	return (int64_t)(lc_range(r, a, b) * (double)LC_HOUR);
}

/* ---- not leaks ---------------------------------------------------------- */

static void mk_flat_white(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;

	shape_init(&s, r);
	one(r, c, &s, hours(r, 2, 12));
}

static void mk_flat_ar(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;

	shape_init(&s, r);
	s.sd = exp(lc_range(r, log(0.1 * LC_MIB), log(1 * LC_MIB)));
	s.ar_sd = lc_range(r, 1, 5) * LC_MIB;
	s.ar_tau_ms = lc_range(r, 10, 60) * LC_MIN;
	one(r, c, &s, hours(r, 4, 12));
}

static void mk_warmup(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;

	shape_init(&s, r);
	s.warm_amp = lc_range(r, 20, 300) * LC_MIB;
	s.warm_tau_ms = lc_range(r, 5, 40) * LC_MIN;
	one(r, c, &s, hours(r, 5, 12));
}

static void mk_saw_flat(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;

	shape_init(&s, r);
	s.saw_amp = lc_range(r, 20, 200) * LC_MIB;
	s.saw_period_ms = lc_range(r, 7, 40) * LC_MIN;
	s.saw_phase = lc_unif(r);
	one(r, c, &s, hours(r, 6, 12));
}

static void mk_step(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;
	int64_t range = hours(r, 4, 12);

	shape_init(&s, r);
	s.step_h = lc_range(r, 10, 50) * s.sd;
	s.step_at_ms = 10 * LC_MIN + (int64_t)(lc_range(r, 0.15, 0.55) * (double)(range - 10 * LC_MIN));
	one(r, c, &s, range);
}

static void mk_bursts(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;
	int64_t range = hours(r, 3, 12);
	int i;

	shape_init(&s, r);
	s.nbursts = 3 + (int)(lc_unif(r) * 6);
	s.burst_amp = lc_range(r, 50, 500) * LC_MIB;
	for (i = 0; i < s.nbursts; i++) {
		s.burst_at[i] = (int64_t)(lc_unif(r) * (double)range);
		s.burst_len[i] = (int64_t)(lc_range(r, 2, 10) * LC_MIN);
	}
	s.outlier_p = 0.005;
	s.outlier_mag = lc_range(r, 20, 100) * s.sd + 10 * LC_MIB;
	one(r, c, &s, range);
}

static void mk_daily(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;

	shape_init(&s, r);
	s.cyc_amp = lc_range(r, 20, 200) * LC_MIB;
	s.cyc_period_ms = (double)LC_DAY;
	s.cyc_phase = lc_range(r, 0, 6.283185307179586);
	if (s.level < 2 * s.cyc_amp)
		s.level = 2 * s.cyc_amp;
	one(r, c, &s, (int64_t)lc_range(r, 3, 6) * LC_DAY);
}

static void mk_hourly(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;

	shape_init(&s, r);
	s.cyc_amp = lc_range(r, 10, 100) * LC_MIB;
	s.cyc_period_ms = lc_range(r, 30, 90) * LC_MIN;
	s.cyc_phase = lc_range(r, 0, 6.283185307179586);
	if (s.level < 2 * s.cyc_amp)
		s.level = 2 * s.cyc_amp;
	one(r, c, &s, hours(r, 6, 12));
}

static void mk_restarts_flat(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;
	int k, nk = 3 + (int)(lc_unif(r) * 4);
	int64_t t = 0;

	shape_init(&s, r);
	c->group = 1;
	for (k = 0; k < nk; k++) {
		int64_t len = hours(r, 1, 3);

		s.warm_amp = lc_range(r, 10, 100) * LC_MIB;
		s.warm_tau_ms = lc_range(r, 1, 4) * LC_MIN;
		add_inc(c, &s, r, T0 + t, len, LC_MIN);
		t += len + (int64_t)lc_range(r, 1, 3) * LC_MIN;
	}
}

/* ---- leaks -------------------------------------------------------------- */

static void mk_fast(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;

	shape_init(&s, r);
	s.leak_bph = exp(lc_range(r, log(5), log(200))) * LC_MIB;
	one(r, c, &s, hours(r, 2, 10));
}

static void mk_slow(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;

	shape_init(&s, r);
	s.sd = lc_range(r, 1, 5) * LC_MIB;
	/* drift over the day 5-10x the floors' noise (0.70 sd) */
	s.leak_bph = lc_range(r, 5, 10) * 0.70 * s.sd / 24.0;
	one(r, c, &s, LC_DAY);
}

static void mk_very_slow(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;
	int64_t range = (int64_t)lc_range(r, 3, 7) * LC_DAY;
	double drift;

	shape_init(&s, r);
	s.leak_bph = lc_range(r, 0.13, 0.6) * LC_MIB;
	drift = s.leak_bph * (double)range / (double)LC_HOUR;
	s.sd = drift / lc_range(r, 6, 15) / 0.70;
	if (s.sd > 5 * LC_MIB)
		s.sd = 5 * LC_MIB;
	one(r, c, &s, range);
}

static void mk_saw_rising(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;

	shape_init(&s, r);
	s.saw_amp = lc_range(r, 20, 200) * LC_MIB;
	s.saw_period_ms = lc_range(r, 7, 40) * LC_MIN;
	s.saw_phase = lc_unif(r);
	s.leak_bph = lc_range(r, 2, 50) * LC_MIB;
	one(r, c, &s, hours(r, 6, 12));
}

static void mk_staircase(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;

	shape_init(&s, r);
	s.stair_h = lc_range(r, 5, 50) * LC_MIB;
	s.stair_period_ms = lc_range(r, 20, 90) * LC_MIN;
	one(r, c, &s, hours(r, 6, 12));
}

static void mk_restarts_leak(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;
	int k, nk = 3 + (int)(lc_unif(r) * 3);
	int64_t t = 0;

	shape_init(&s, r);
	s.leak_bph = lc_range(r, 20, 100) * LC_MIB;
	c->group = 1;
	for (k = 0; k < nk; k++) {
		int64_t len = hours(r, 1.5, 3);

		/* grows, reaches its cap (the OOM limit) and dies soon after */
		s.cap = s.leak_bph * ((double)len / (double)LC_HOUR) * 0.9;
		add_inc(c, &s, r, T0 + t, len, LC_MIN);
		t += len + 2 * LC_MIN;
	}
	/* the cap flattens the last tenth: the rate over the judged span */
	c->true_bph = s.leak_bph;
}

static void mk_late(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;
	int64_t flat = hours(r, 2, 6), grow = hours(r, 1.5, 4);

	shape_init(&s, r);
	s.leak_bph = exp(lc_range(r, log(2), log(50))) * LC_MIB;
	if (s.leak_bph < 3 * s.sd)
		s.leak_bph = 3 * s.sd;
	s.onset_ms = flat;
	one(r, c, &s, flat + grow);
	c->true_onset = T0 + flat;
}

static void mk_accel(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;
	int64_t range = hours(r, 4, 12);
	double hrs = (double)range / (double)LC_HOUR, endrate;

	shape_init(&s, r);
	s.leak_bph = exp(lc_range(r, log(2), log(30))) * LC_MIB;
	endrate = s.leak_bph * lc_range(r, 2, 4);
	s.accel_bph2 = (endrate - s.leak_bph) / (2.0 * hrs);
	one(r, c, &s, range);
}

static void mk_workers(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;
	int64_t range = hours(r, 4, 8), every = (int64_t)lc_range(r, 15, 30) * LC_MIN, t;
	double lvl = 0;

	c->group = 1;
	for (t = 0; t + 10 * LC_MIN < range && c->ninc < MAXINC; t += every) {
		shape_init(&s, r);
		s.level = lc_range(r, 20, 200) * LC_MIB;
		s.sd = lc_range(r, 0.1, 2) * LC_MIB;
		lvl += s.level;
		add_inc(c, &s, r, T0 + t, range - t, LC_MIN);
	}
	c->true_bph = lvl / (double)c->ninc / ((double)every / (double)LC_HOUR);
}

static void mk_gaps(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;
	int64_t range = hours(r, 4, 12);
	int i;

	shape_init(&s, r);
	s.leak_bph = exp(lc_range(r, log(3), log(100))) * LC_MIB;
	s.ngaps = 2 + (int)(lc_unif(r) * 3);
	for (i = 0; i < s.ngaps; i++) {
		s.gap_at[i] = (int64_t)(lc_range(r, 0.1, 0.95) * (double)range);
		s.gap_len[i] = (int64_t)(lc_range(r, 0.01, 0.04) * (double)range);
	}
	one(r, c, &s, range);
}

/* ---- not enough data ---------------------------------------------------- */

static void mk_shorter_than_warmup(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;

	shape_init(&s, r);
	s.leak_bph = lc_range(r, 0, 100) * LC_MIB;
	add_inc(c, &s, r, T0, (int64_t)lc_range(r, 2, 9.5) * LC_MIN, LC_MIN);
}

static void mk_too_short(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;

	shape_init(&s, r);
	s.leak_bph = lc_range(r, 0, 100) * LC_MIB;
	add_inc(c, &s, r, T0, (int64_t)lc_range(r, 12, 29) * LC_MIN, LC_MIN);
}

static void mk_mostly_missing(struct lc_rng *r, struct lc_case *c)
{
	struct lc_shape s;
	int64_t range = hours(r, 3, 10);
	size_t i;

	shape_init(&s, r);
	s.leak_bph = lc_range(r, 0, 100) * LC_MIB;
	one(r, c, &s, range);
	{
		double keep = lc_range(r, 0.2, 0.7);

		for (i = 0; i < c->tr[0].n; i++)
			if (lc_unif(r) > keep)
				c->buf[0][i] = NAN;
	}
}

struct lc_pattern {
	const char *name;
	enum lc_class cls;
	lc_make make;
};

static const struct lc_pattern patterns[] = {
	{ "flat+white", NOT_LEAK, mk_flat_white },
	{ "flat+ar1 wander", NOT_LEAK, mk_flat_ar },
	{ "warm-up plateau", NOT_LEAK, mk_warmup },
	{ "gc sawtooth flat", NOT_LEAK, mk_saw_flat },
	{ "step up, stays", NOT_LEAK, mk_step },
	{ "bursts+outliers", NOT_LEAK, mk_bursts },
	{ "restarts, flat", NOT_LEAK, mk_restarts_flat },
	{ "daily cycle", NOT_LEAK, mk_daily },
	{ "hourly cycle", NOT_LEAK, mk_hourly },
	{ "fast linear", LEAK, mk_fast },
	{ "slow (1 day)", SLOW_LEAK, mk_slow },
	{ "very slow (days)", SLOW_LEAK, mk_very_slow },
	{ "sawtooth rising", LEAK, mk_saw_rising },
	{ "staircase", LEAK, mk_staircase },
	{ "restarts+leak", LEAK, mk_restarts_leak },
	{ "late onset", LEAK, mk_late },
	{ "accelerating", LEAK, mk_accel },
	{ "worker count", LEAK, mk_workers },
	{ "leak with gaps", LEAK, mk_gaps },
	{ "< warm-up", NO_DATA, mk_shorter_than_warmup },
	{ "< min duration", NO_DATA, mk_too_short },
	{ "mostly missing", NO_DATA, mk_mostly_missing },
};
#define NPAT (sizeof(patterns) / sizeof(patterns[0]))

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *a, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(a, n, sizeof(*a), cmp_d);
	return n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
}

static void corpus_scores(void **state)
{
	struct mw_leak_params p;
	size_t pi;
	unsigned leaks = 0, leaks_failed = 0, slow = 0, slow_failed = 0;
	unsigned false_fails = 0, nodata = 0, nodata_inc = 0, onset_miss = 0;
	double all_err[NPAT * SEEDS];
	size_t nall = 0;
	int verbose = getenv("MW_LEAK_VERBOSE") != NULL;

	(void)state;
	mw_leak_params_init(&p);
	printf("%-18s %6s %5s %5s %5s %9s %6s\n", "pattern", "traces", "pass", "fail", "inc",
	       "slope err", "onset");
	for (pi = 0; pi < NPAT; pi++) {
		unsigned cnt[4] = { 0 }, om = 0;
		double err[SEEDS];
		size_t ne = 0, k, seed;

		for (seed = 0; seed < SEEDS; seed++) {
			struct lc_rng r = { 0x6c65616b00000000ULL ^ (pi << 16) ^ seed };
			struct lc_case c;
			struct mw_leak_result res, incs[MAXINC];
			struct mw_leak_group_result g;
			const struct mw_leak_result *rr;

			memset(&c, 0, sizeof(c));
			c.true_onset = INT64_MIN;
			patterns[pi].make(&r, &c);
			if (c.group) {
				mw_leak_judge_group(c.tr, c.ninc, &p, incs, &g);
				rr = &g.r;
			} else {
				mw_leak_judge(&c.tr[0], &p, &res);
				rr = &res;
			}
			cnt[rr->verdict]++;
			if (verbose && c.group)
				for (k = 0; k < c.ninc && k < 6; k++)
					printf("    inc %zu: %s\n", k, incs[k].reason);
			if (verbose)
				printf("  %s #%zu: %s %.3f MiB/h (true %.3f) onset %+.0f min: %s\n",
				       patterns[pi].name, seed, mw_verdict_name(rr->verdict),
				       rr->slope_bph / LC_MIB, c.true_bph / LC_MIB,
				       c.true_onset == INT64_MIN ? 0.0 :
				       rr->onset_ms == INT64_MIN ? -99999.0 :
				       (double)(rr->onset_ms - c.true_onset) / LC_MIN, rr->reason);
			switch (patterns[pi].cls) {
			case NOT_LEAK:
				false_fails += rr->verdict == MW_VERDICT_FAIL;
				break;
			case SLOW_LEAK:
				slow++;
				slow_failed += rr->verdict == MW_VERDICT_FAIL;
				/* fall through */
			case LEAK:
				leaks++;
				if (rr->verdict != MW_VERDICT_FAIL)
					break;
				leaks_failed++;
				if (c.true_bph > 0 && isfinite(rr->slope_bph)) {
					err[ne] = fabs(rr->slope_bph - c.true_bph) / c.true_bph;
					all_err[nall++] = err[ne];
					ne++;
				}
				if (c.true_onset != INT64_MIN &&
				    (rr->onset_ms == INT64_MIN ||
				     llabs((long long)(rr->onset_ms - c.true_onset)) > 30 * LC_MIN)) {
					om++;
					onset_miss++;
				}
				break;
			case NO_DATA:
				nodata++;
				nodata_inc += rr->verdict == MW_VERDICT_INCONCLUSIVE;
				break;
			}
			for (k = 0; k < c.ninc; k++)
				free(c.buf[k]);
		}
		if (ne)
			printf("%-18s %6d %5u %5u %5u %8.1f%% %6u\n", patterns[pi].name, SEEDS,
			       cnt[MW_VERDICT_PASS], cnt[MW_VERDICT_FAIL], cnt[MW_VERDICT_INCONCLUSIVE],
			       100.0 * median(err, ne), om);
		else
			printf("%-18s %6d %5u %5u %5u %9s %6s\n", patterns[pi].name, SEEDS,
			       cnt[MW_VERDICT_PASS], cnt[MW_VERDICT_FAIL], cnt[MW_VERDICT_INCONCLUSIVE],
			       "-", "-");
	}
	{
		double med = median(all_err, nall);

		printf("false fails %u; leaks failed %u/%u (%.1f %%), slow %u/%u (%.1f %%); "
		       "no-data inconclusive %u/%u; median slope error %.1f %%; onset misses %u\n",
		       false_fails, leaks_failed, leaks, 100.0 * leaks_failed / leaks, slow_failed, slow,
		       100.0 * slow_failed / slow, nodata_inc, nodata, 100.0 * med, onset_miss);
		assert_int_equal(false_fails, 0);
		assert_true(leaks_failed * 100 >= leaks * 95);
		assert_true(slow_failed * 100 >= slow * 80);
		assert_int_equal(nodata_inc, nodata);
		assert_true(med <= 0.20);
		assert_int_equal(onset_miss, 0);
	}
}

/* 300 processes x 1000 buckets, the caller's load: printed, not asserted. */
static void corpus_speed(void **state)
{
	struct mw_leak_params p;
	struct mw_leak_result res;
	struct lc_rng r = { 42 };
	struct lc_shape s;
	double *v = malloc(1000 * sizeof(*v)), worst = 0, judging = 0;
	struct mw_trace tr = { T0, LC_MIN, v, 1000 };
	clock_t all = clock();
	int i;

	(void)state;
	assert_non_null(v);
	mw_leak_params_init(&p);
	for (i = 0; i < 300; i++) {
		clock_t c0;
		double ms;

		shape_init(&s, &r);
		s.leak_bph = (i % 3) * lc_range(&r, 0, 20) * LC_MIB;
		s.ar_sd = (i % 2) * LC_MIB;
		s.ar_tau_ms = 20 * LC_MIN;
		lc_generate(&s, &r, LC_MIN, v, 1000);
		c0 = clock();
		mw_leak_judge(&tr, &p, &res);
		ms = 1000.0 * (double)(clock() - c0) / CLOCKS_PER_SEC;
		judging += ms;
		if (ms > worst)
			worst = ms;
	}
	printf("speed: 300 x 1000 buckets: judging %.0f ms (with generation %.0f ms), "
	       "worst single judge %.1f ms\n",
	       judging, 1000.0 * (double)(clock() - all) / CLOCKS_PER_SEC, worst);
	free(v);
}

MW_TEST_MAIN(
	cmocka_unit_test(corpus_scores),
	cmocka_unit_test(corpus_speed),
)
