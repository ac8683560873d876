/* test_leak.c - leak verdicts on constructed traces: each test asserts
 * something a wrong detector would get wrong. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "analysis/leak.h"
#include "analysis/robust_stats.h"
#include "analysis/leak_steps.h"
#include "analysis/robust_stats.h"
#include "tests/leak_corpus.h"
#include "tests/support/test_main.h"

#define T0 1700000000000LL	/* 2023-11-14 22:13:20 UTC */

static double *series(struct lc_shape *s, uint64_t seed, size_t n)
{
	struct lc_rng r = { seed };
	double *v = malloc(n * sizeof(*v));

	assert_non_null(v);
	lc_generate(s, &r, LC_MIN, v, n);
	return v;
}

static void theil_sen_exact_line(void **state)
{
	double x[50], y[50], b, lo, hi;
	size_t i;

	(void)state;
	for (i = 0; i < 50; i++) {
		x[i] = (double)i * 1000.0;
		y[i] = 7.0 + 0.25 * x[i];
	}
	assert_int_equal(mw_theil_sen(x, y, 50, 50, &b, &lo, &hi), 0);
	assert_true(fabs(b - 0.25) < 1e-12);
	assert_true(fabs(lo - 0.25) < 1e-12 && fabs(hi - 0.25) < 1e-12);
	assert_int_equal(mw_theil_sen(x, y, 2, 2, &b, &lo, &hi), -1);
}

static void theil_sen_ci_and_outliers(void **state)
{
	double x[200], y[200], b, lo, hi, b2, lo2, hi2;
	struct lc_rng r = { 7 };
	size_t i;

	(void)state;
	for (i = 0; i < 200; i++) {
		x[i] = (double)i;
		y[i] = 3.0 * x[i] + 20.0 * lc_normal(&r);
	}
	assert_int_equal(mw_theil_sen(x, y, 200, 200, &b, &lo, &hi), 0);
	assert_true(lo < 3.0 && 3.0 < hi);
	assert_true(lo < b && b < hi);
	/* a smaller effective sample size widens the interval */
	assert_int_equal(mw_theil_sen(x, y, 200, 10, &b2, &lo2, &hi2), 0);
	assert_true(lo2 < lo && hi2 > hi);
	/* 20 % huge outliers barely move the slope */
	for (i = 0; i < 200; i += 5)
		y[i] += 1e6;
	assert_int_equal(mw_theil_sen(x, y, 200, 200, &b, &lo, &hi), 0);
	assert_true(fabs(b - 3.0) < 0.5);
}

static int cmp_slope(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The slope is the median of the pairwise slopes, exactly, and the
 * interval's ends are pairwise slopes too: with ties (small integer
 * values), even and odd pair counts, the selection of several ranks at
 * once must give what sorting gives. */
static void theil_sen_is_the_median_of_pair_slopes(void **state)
{
	static double x[60], y[60], slopes[60 * 59 / 2];
	struct lc_rng r = { 99 };
	size_t n, i, j, m;

	(void)state;
	for (n = 3; n <= 60; n += 1) {
		double b, lo, hi, med;
		int lo_found = 0, hi_found = 0;

		for (i = 0; i < n; i++) {
			x[i] = (double)i * 1000.0;
			y[i] = (double)(int)(4.0 * fabs(lc_normal(&r))) + (n % 3 ? 0.5 * (double)i : 0.0);
		}
		for (i = 0, m = 0; i < n; i++)
			for (j = i + 1; j < n; j++)
				slopes[m++] = (y[j] - y[i]) / (x[j] - x[i]);
		qsort(slopes, m, sizeof(*slopes), cmp_slope);
		med = m % 2 ? slopes[m / 2] : (slopes[m / 2 - 1] + slopes[m / 2]) / 2.0;
		assert_int_equal(mw_theil_sen(x, y, n, (double)n / (1.0 + (double)(n % 4)), &b, &lo,
					      &hi), 0);
		assert_true(b == med);
		assert_true(lo <= b && b <= hi);
		for (i = 0; i < m; i++) {
			lo_found |= slopes[i] == lo;
			hi_found |= slopes[i] == hi;
		}
		assert_true((lo_found || lo == b) && (hi_found || hi == b));
	}
}

/* The order statistics every rule is built on (robust_stats.c: a
 * three-way branchless split on large ranges, Hoare's partition on small
 * ones): mw_select_kth is the sorted array's k-th with every element
 * before it <= and after it >=, and mw_median_inplace the sorted median,
 * on random values, few distinct ones (the zero slopes of a series in
 * pages), sorted, reversed and all-equal input, 1 to 3,000 elements. */
static void selection_is_the_sorted_order(void **state)
{
	enum { NMAX = 3000 };
	static double a[NMAX], sorted[NMAX];
	struct lc_rng r = { 17 };
	size_t n, i, k;
	int pattern;

	(void)state;
	for (n = 1; n <= NMAX; n = n < 100 ? n + 1 : n * 3 / 2)
		for (pattern = 0; pattern < 5; pattern++) {
			size_t ks[] = { 0, n / 10, n / 2, n - 1 - n / 10, n - 1 };

			for (k = 0; k < sizeof(ks) / sizeof(ks[0]); k++) {
				double v, med;

				for (i = 0; i < n; i++)
					a[i] = pattern == 0 ? lc_normal(&r) :
					       pattern == 1 ? (double)(int)lc_range(&r, 0.0, 4.0) :
					       pattern == 2 ? (double)i :
					       pattern == 3 ? (double)(n - i) : 7.0;
				memcpy(sorted, a, n * sizeof(*a));
				qsort(sorted, n, sizeof(*sorted), cmp_slope);
				v = mw_select_kth(a, n, ks[k]);
				if (v != sorted[ks[k]])
					fail_msg("n %zu pattern %d k %zu: %g, sorted %g", n, pattern,
						 ks[k], v, sorted[ks[k]]);
				for (i = 0; i < n; i++)
					if (i < ks[k] ? a[i] > v : i > ks[k] && a[i] < v)
						fail_msg("n %zu pattern %d k %zu: not partitioned at %zu",
							 n, pattern, ks[k], i);
				med = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
				assert_true(mw_median_inplace(a, n) == med);
			}
		}
}

/* Large fits take their ranks from a bracket a sample finds (robust_stats.c,
 * select_close_ranks): the median and the interval's ends must still be
 * the sorted slopes' own, on ties (integer values), a line, noise, a
 * step and a constant, at the variance factors the judge uses. */
static void theil_sen_large_fits_are_exact(void **state)
{
	enum { NMAX = 300 };
	static double x[NMAX], y[NMAX], slopes[NMAX * (NMAX - 1) / 2];
	static const size_t sizes[] = { 91, 92, 120, 168, 250, 300 };
	static const double factors[] = { 1.0, 3.0, 30.0 };
	struct lc_rng r = { 17 };
	size_t si, i, j, m, n;
	int shape, fi;

	(void)state;
	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++)
		for (shape = 0; shape < 5; shape++)
			for (fi = 0; fi < 3; fi++) {
				double b, lo, hi, med, f = factors[fi];
				size_t mid, ilo, ihi;

				n = sizes[si];
				for (i = 0; i < n; i++) {
					double t = (double)i;

					x[i] = 1.7e12 + 60000.0 * t;
					y[i] = shape == 0 ? (double)(int)(4.0 * fabs(lc_normal(&r)))
					       : shape == 1 ? 1e9 + 4096.0 * t
					       : shape == 2 ? 1e9 + 1e5 * lc_normal(&r) + 300.0 * t
					       : shape == 3 ? (t < (double)n / 2 ? 5e8 : 6e8) + 10.0 * lc_normal(&r)
					       : 7e7;
				}
				for (i = 0, m = 0; i < n; i++)
					for (j = i + 1; j < n; j++)
						slopes[m++] = (y[j] - y[i]) / (x[j] - x[i]);
				qsort(slopes, m, sizeof(*slopes), cmp_slope);
				mid = m / 2;
				med = m % 2 ? slopes[mid] : (slopes[mid - 1] + slopes[mid]) / 2.0;
				/* the interval's ranks for the factor mw_theil_sen takes */
				mw_ts_interval_ranks(m, n, (double)n / ((double)n / f), MW_Z95, &ilo, &ihi);
				assert_int_equal(mw_theil_sen(x, y, n, (double)n / f, &b, &lo, &hi), 0);
				assert_true(b == med);
				assert_true(lo == (slopes[ilo] < b ? slopes[ilo] : b));
				assert_true(hi == (slopes[ihi] > b ? slopes[ihi] : b));
			}
}

/* A flat trace at level with noise sd: the shape every test varies. */
static struct lc_shape flat_shape(double level, double sd)
{
	struct lc_shape s = { 0 };

	s.level = level;
	s.sd = sd;
	return s;
}

static enum mw_verdict judge_shape(struct lc_shape *s, size_t n, struct mw_leak_result *res)
{
	struct mw_leak_params p;
	double *v = series(s, 11, n);
	struct mw_trace tr = { T0, LC_MIN, v, n };

	mw_leak_params_init(&p);
	mw_leak_judge(&tr, &p, res);
	free(v);
	return res->verdict;
}

/* The searches by every break's own least-squares fit (mw_ls_fit1 on the
 * regressor), the earliest of the ties: what the break searches must
 * give, to the bit. */
static size_t break_by_every_fit(const double *x, const double *y, size_t n, size_t kfrom,
				 size_t kto, bool hinge, double *h, double *sse_out)
{
	double best_sse = INFINITY;
	size_t k, best = 0;

	for (k = kfrom; k <= kto && k < n; k++) {
		double sse;

		if (hinge)
			mw_hinge_regressor(x, n, k, h);
		else
			mw_plateau_regressor(x, n, k, h);
		sse = mw_ls_fit1(h, y, n, NULL);
		if (sse < best_sse * (1.0 - 1e-12)) {
			best_sse = sse;
			best = k;
		}
	}
	*sse_out = best_sse;
	return best;
}

/* The hinge and plateau searches estimate each break's fit from running
 * sums and fit exactly only the breaks near the best: the same break and
 * SSE as fitting every break, on traces where sums lose most (perfect
 * lines and steps at byte counts near 1e9 on epoch-ms times, constants,
 * page-quantized noise, repeated times). */
static void break_search_matches_every_break(void **state)
{
	enum { N = 300 };
	static double x[N], y[N], h[N], h2[N];
	struct lc_rng r = { 21 };
	int trial, shape;

	(void)state;
	for (trial = 0; trial < 60; trial++)
		for (shape = 0; shape < 8; shape++) {
			size_t n = 12 + (size_t)(lc_unif(&r) * (N - 12)), i, k, kb;
			double x0 = trial % 2 ? 1.795e12 : 0.0, dx = trial % 3 ? 60000.0 : 1.0;
			double s1, s2;

			for (i = 0; i < n; i++) {
				double t = (double)i, v;

				x[i] = x0 + dx * t;
				if (shape == 7 && i % 5 == 1)
					x[i] = x[i - 1];	/* a repeated time */
				switch (shape) {
				case 0: v = 1e9 + 4096.0 * floor(lc_normal(&r) * 30); break;
				case 1: v = 1e9 + 1234567.0 * t; break;
				case 2: v = 5e8; break;
				case 3: v = 1e9 + (t > (double)n / 3 ? 8192.0 * (t - (double)n / 3) : 0); break;
				case 4: v = 1e9 + (t < (double)n / 2 ? 8192.0 * t : 8192.0 * (double)n / 2); break;
				case 5: v = 1e9 + (t > (double)n / 2 ? 1e6 : 0) + 100 * lc_normal(&r); break;
				case 6: v = 3e7 + 2e4 * t + 5e5 * lc_normal(&r); break;
				default: v = 2e8 + 4096.0 * floor(t / 7) + 4096.0 * floor(lc_normal(&r)); break;
				}
				y[i] = v;
			}
			kb = n - (n / 10 > 8 ? n / 10 : 8);
			k = mw_hinge_search(x, y, n, kb, h, &s1);
			assert_int_equal(k, break_by_every_fit(x, y, n, 0, kb, true, h2, &s2));
			assert_true(s1 == s2);
			k = mw_plateau_search(x, y, n, n / 10, h, &s1);
			assert_int_equal(k, break_by_every_fit(x, y, n, n / 10, n - 1, false, h2, &s2));
			assert_true(s1 == s2);
		}
}

static void basic_shapes(void **state)
{
	struct lc_shape s;
	struct mw_leak_result res;

	(void)state;
	s = flat_shape(200 * LC_MIB, 1 * LC_MIB);
	assert_int_equal(judge_shape(&s, 480, &res), MW_VERDICT_PASS);

	s.leak_bph = 10 * LC_MIB;
	assert_int_equal(judge_shape(&s, 480, &res), MW_VERDICT_FAIL);
	assert_true(fabs(res.slope_bph - 10 * LC_MIB) < 1 * LC_MIB);
	assert_true(res.slope_lo_bph <= res.slope_bph && res.slope_bph <= res.slope_hi_bph);
	assert_true(res.projected_bytes > 200 * LC_MIB);
	assert_non_null(strstr(res.reason, "rising"));

	/* within the budget: a real but tiny rise passes */
	s.sd = 0.01 * LC_MIB;
	s.leak_bph = 32 * 1024;
	assert_int_equal(judge_shape(&s, 480, &res), MW_VERDICT_PASS);
	assert_non_null(strstr(res.reason, "budget"));

	/* warm-up growth then plateau */
	s = flat_shape(200 * LC_MIB, 1 * LC_MIB);
	s.warm_amp = 100 * LC_MIB;
	s.warm_tau_ms = 20 * LC_MIN;
	assert_int_equal(judge_shape(&s, 480, &res), MW_VERDICT_PASS);

	/* a single step that stays */
	s.warm_amp = 0;
	s.step_h = 50 * LC_MIB;
	s.step_at_ms = 3 * LC_HOUR;
	assert_int_equal(judge_shape(&s, 600, &res), MW_VERDICT_PASS);

	/* GC sawtooth, flat floor, then rising floor */
	s.step_h = 0;
	s.saw_amp = 100 * LC_MIB;
	s.saw_period_ms = 15 * LC_MIN;
	assert_int_equal(judge_shape(&s, 600, &res), MW_VERDICT_PASS);
	s.leak_bph = 5 * LC_MIB;
	assert_int_equal(judge_shape(&s, 600, &res), MW_VERDICT_FAIL);
	assert_true(fabs(res.slope_bph - 5 * LC_MIB) < 1 * LC_MIB);
}

static void onset_position(void **state)
{
	struct lc_shape s;
	struct mw_leak_result res;

	(void)state;
	s = flat_shape(500 * LC_MIB, 1 * LC_MIB);
	s.leak_bph = 8 * LC_MIB;
	s.onset_ms = 4 * LC_HOUR;
	assert_int_equal(judge_shape(&s, 420, &res), MW_VERDICT_FAIL);
	assert_true(res.onset_ms != INT64_MIN);
	assert_true(llabs((long long)(res.onset_ms - (T0 + 4 * LC_HOUR))) <= 15 * LC_MIN);
	assert_true(fabs(res.slope_bph - 8 * LC_MIB) < 1.6 * LC_MIB);
	/* T0 + 4h is 02:13 UTC: the reason names it, whatever the local zone */
	assert_non_null(strstr(res.reason, "UTC"));
	assert_true(res.fit_t0_ms == res.onset_ms);
}

/* 50 minutes at 5 s: flat at 40 MiB (noise 30 KiB) until onset_min, then
 * 20 MiB/h. */
static void late_trace(double *v, size_t n, double onset_min, uint64_t seed)
{
	struct lc_rng r = { seed };
	size_t i;

	for (i = 0; i < n; i++) {
		double t_min = (double)i * 5.0 / 60.0;

		v[i] = 40 * LC_MIB + 30e3 * lc_normal(&r) +
		       (t_min > onset_min ? 20 * LC_MIB * (t_min - onset_min) / 60.0 : 0.0);
	}
}

/* Growth that starts three minutes after the warm-up is dated where it
 * starts (the hinge inside the judged range cannot see it: too close to
 * its start), within two minutes, also after a start-up ramp; growth
 * from the first sample says so. */
static void onset_is_the_change_point(void **state)
{
	static double v[600];
	struct mw_trace tr = { T0, 5000, v, 600 };
	struct mw_leak_params p;
	struct mw_leak_result res;
	uint64_t seed;

	(void)state;
	mw_leak_params_init(&p);
	for (seed = 1; seed <= 5; seed++) {
		late_trace(v, 600, 13.0, seed);
		mw_leak_judge(&tr, &p, &res);
		assert_int_equal(res.verdict, MW_VERDICT_FAIL);
		assert_false(res.onset_at_start);
		assert_true(llabs((long long)(res.onset_ms - (T0 + 13 * LC_MIN))) <= 2 * LC_MIN);
		assert_null(strstr(res.reason, "warm-up"));
	}
	/* ... also after a start-up ramp in the first minutes (an allocator
	 * warming its arenas: +2 MiB, most of it in the first 5 minutes;
	 * lk_je, a real jemalloc service leaking from 12 minutes, was dated
	 * from its start, -11.9 min) */
	for (seed = 1; seed <= 5; seed++) {
		size_t i;

		late_trace(v, 600, 12.0, seed);
		for (i = 0; i < 600; i++) {
			double t_min = (double)i * 5.0 / 60.0;

			v[i] += 2 * LC_MIB * (1.0 - exp(-t_min / 2.0));
		}
		mw_leak_judge(&tr, &p, &res);
		assert_int_equal(res.verdict, MW_VERDICT_FAIL);
		if (res.onset_at_start ||
		    llabs((long long)(res.onset_ms - (T0 + 12 * LC_MIN))) > 2 * LC_MIN)
			fail_msg("ramp, seed %d: %s", (int)seed, res.reason);
	}
	/* ... and after a steep one (vk_fraglate, recorded: +2.2 MiB in its
	 * first 5 minutes, flat until its leak at 14): one line then fits
	 * the whole trace better than any flat-then-rising hinge, and the
	 * judged span's own change point dates it */
	for (seed = 1; seed <= 5; seed++) {
		size_t i;

		late_trace(v, 600, 14.0, seed);
		for (i = 0; i < 600; i++) {
			double t_min = (double)i * 5.0 / 60.0;

			v[i] += 8 * LC_MIB * (t_min < 5.0 ? t_min / 5.0 : 1.0);
		}
		mw_leak_judge(&tr, &p, &res);
		assert_int_equal(res.verdict, MW_VERDICT_FAIL);
		if (res.onset_at_start ||
		    llabs((long long)(res.onset_ms - (T0 + 14 * LC_MIN))) > 2 * LC_MIN)
			fail_msg("steep ramp, seed %d: %s", (int)seed, res.reason);
	}
	late_trace(v, 600, 0.0, 9);
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_FAIL);
	assert_true(res.onset_at_start);
	assert_true(res.onset_ms == T0);
	assert_non_null(strstr(res.reason, "since the start, 2023-11-14 22:13:20 UTC"));
	/* a pass carries no growth and no projection */
	{
		size_t i;

		for (i = 0; i < 600; i++)
			v[i] = 40 * LC_MIB + (i % 7) * 4096.0;
		mw_leak_judge(&tr, &p, &res);
		assert_int_equal(res.verdict, MW_VERDICT_PASS);
		assert_true(isnan(res.growth_bytes));
		assert_true(res.projected_bytes == 0.0);
		assert_null(strstr(res.reason, "/h"));
	}
}

/* Handles are counted: judged against the count budget, in their unit. */
/* The warm-up is the process's: a process seen long after it began
 * (memwatch started later, or the range begins later) is warm, and 25
 * minutes of it are judged whole; a leak under way from its first point
 * was under way before it ("since before").  One seen within a minute
 * of its start (the sampling interval), or of no known start (a group's
 * total), warms up over its first 10 minutes as before. */
static void warm_up_from_the_process_start(void **state)
{
	static double v[300];
	struct mw_trace tr = { T0, 5000, v, 300 };
	struct mw_leak_params p;
	struct mw_leak_result res;
	size_t i;

	(void)state;
	mw_leak_params_init(&p);
	assert_true(p.process_start_ms == INT64_MIN);
	/* 25 minutes rising 10 MB/h, with a little scatter */
	for (i = 0; i < 300; i++)
		v[i] = 50e6 + 10e6 * (double)i * 5000.0 / 3600000.0 + (double)(i % 7) * 2e3;
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(res.reason, "too little data after warm-up: 15 min"));
	/* seen 30 s after its start: the same */
	p.process_start_ms = T0 - 30000;
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	/* seen two days after its start: judged from its first point */
	p.process_start_ms = T0 - 2 * 86400000LL;
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_FAIL);
	assert_true(res.judged_from_ms == T0);
	assert_true(fabs(res.slope_bph - 10e6) < 1e6);
	assert_true(res.onset_at_start && res.onset_before_data);
	assert_true(res.onset_ms == T0);
	assert_non_null(strstr(res.reason, " since before "));
	if (!strstr(res.reason, "(its first data, 2d 0h after the process started)"))
		fail_msg("%s", res.reason);
	/* seen 4 minutes after its start: 6 minutes of warm-up left, too
	 * few for 20 judged in 25 */
	p.process_start_ms = T0 - 4 * 60000;
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(res.reason, "too little data after warm-up: 19 min"));
	/* a zeroed start (a caller's struct not initialised) is none */
	p.process_start_ms = 0;
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	/* a run shorter than what is left of its warm-up says so */
	tr.n = 60;
	p.process_start_ms = T0 - 4 * 60000;
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(res.reason, "shorter than the 6 min left of its warm-up"));
}

/* Samples sparser than the buckets are the sampling's spacing, not
 * missing data: a 10 s interval read in 5 s buckets (a report over less
 * than an hour), every other bucket empty, read "data mostly missing:
 * 50 % of the buckets after warm-up" for every process until session
 * 34; a 2-minute interval over two hours, 13 %.  A gap in the samples is
 * still missing data. */
struct sparse_case {
	const char *what;
	int64_t step_ms;
	size_t every, skip, skip_at;	/* a sample every `every` buckets, but
					 * none where i % skip == skip_at */
	bool gap;			/* none in the middle 60 % either */
	enum mw_verdict want;
	const char *says;		/* in its reason; NULL: anything */
	double coverage;		/* its coverage; 0: any */
};

static void sparse_samples_are_not_missing_data(void **state)
{
	static const struct sparse_case cases[] = {
		{ "a sample every 8 buckets (2 minutes in 15 s)", 15000, 8, 0, 0, false,
		  MW_VERDICT_PASS, NULL, 0 },
		{ "a sample every 15 s in 10 s buckets (gaps of 1 and 2 in turn)", 10000, 1, 3, 2,
		  false, MW_VERDICT_PASS, NULL, 0 },
		{ "a sample nearly every bucket, one in 20 skipped: judged as it is", 5000, 1, 20,
		  7, false, MW_VERDICT_PASS, NULL, 0.95 },
		{ "every bucket filled but for the middle 60 %", 5000, 1, 0, 0, true,
		  MW_VERDICT_INCONCLUSIVE, "data mostly missing", 0 },
		{ "sparse and a gap", 5000, 2, 0, 0, true, MW_VERDICT_INCONCLUSIVE,
		  "data mostly missing", 0 },
	};
	static double v[720];
	struct mw_trace tr = { T0, 5000, v, 720 };
	struct mw_leak_params p;
	struct mw_leak_result res, dense;
	size_t i, c;

	(void)state;
	mw_leak_params_init(&p);
	/* an hour at 5 s buckets, a sample every 10 s, leaking 10 MB/h */
	for (i = 0; i < 720; i++)
		v[i] = i % 2 ? NAN : 50e6 + 10e6 * (double)i * 5000.0 / 3600000.0 +
					 (double)(i % 7) * 2e3;
	mw_leak_judge(&tr, &p, &res);
	if (res.verdict != MW_VERDICT_FAIL)
		fail_msg("every other bucket: %s", res.reason);
	assert_true(fabs(res.slope_bph - 10e6) < 1e6);
	assert_true(res.coverage == 1.0);
	/* the same as the samples judged in 10 s buckets */
	{
		static double w[360];
		struct mw_trace tw = { T0, 10000, w, 360 };

		for (i = 0; i < 360; i++)
			w[i] = v[2 * i];
		mw_leak_judge(&tw, &p, &dense);
		assert_int_equal(dense.verdict, res.verdict);
		assert_true(dense.slope_bph == res.slope_bph);
		assert_string_equal(dense.reason, res.reason);
	}
	/* flat traces, sampled in several ways */
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct sparse_case *k = &cases[c];

		tr.step_ms = k->step_ms;
		for (i = 0; i < 720; i++) {
			bool empty = i % k->every || (k->skip && i % k->skip == k->skip_at) ||
				     (k->gap && i > 144 && i < 576);

			v[i] = empty ? NAN : 80e6 + (double)(i % 5) * 1e4;
		}
		mw_leak_judge(&tr, &p, &res);
		if (res.verdict != k->want || (k->says && !strstr(res.reason, k->says)) ||
		    (k->coverage > 0 && fabs(res.coverage - k->coverage) > 0.01))
			fail_msg("%s: %s (coverage %.2f)", k->what, res.reason, res.coverage);
	}
}

static void counts_have_their_own_budget(void **state)
{
	static double v[600];
	struct mw_trace tr = { T0, 5000, v, 600 };
	struct mw_leak_params p;
	struct mw_leak_result res;
	size_t i;

	(void)state;
	mw_leak_params_init(&p);
	p.count_unit = "handles";
	/* one more handle every 10 s: 360 an hour */
	for (i = 0; i < 600; i++)
		v[i] = 40.0 + (double)(i / 2);
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_FAIL);
	assert_non_null(strstr(res.reason, "360 handles/h"));
	assert_non_null(strstr(res.reason, "budget 10 handles/h"));
	/* one every 10 minutes is within it */
	for (i = 0; i < 600; i++)
		v[i] = 40.0 + (double)(i / 120);
	mw_leak_judge(&tr, &p, &res);
	assert_int_not_equal(res.verdict, MW_VERDICT_FAIL);
	/* a count that never moves is flat in its unit, not in bytes */
	for (i = 0; i < 600; i++)
		v[i] = 20.0;
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_PASS);
	assert_string_equal(res.reason, "flat: constant at 20 handles");
	/* in bytes, the same 360 an hour is far below 64 KiB/h */
	p.count_unit = NULL;
	for (i = 0; i < 600; i++)
		v[i] = 40.0 + (double)(i / 2);
	mw_leak_judge(&tr, &p, &res);
	assert_int_not_equal(res.verdict, MW_VERDICT_FAIL);
}

/* A count that rises in steps that stay is judged as bytes are
 * (rises_in_steps): Wine reports a process's handle count as its handle
 * table's size, which doubles, so 360 events an hour leaked read 128,
 * 256, then 512 handles at 20 and 41 minutes (the Wine set's
 * lk_winhandles.exe), and passed "no steady trend over 40 min (p 0.09)":
 * counts were left out of the rule.  Steps the count's budget over the
 * horizon allows (10 an hour, 240 in a day) stay a pass. */
static void count_in_steps_is_not_a_pass(void **state)
{
	enum { N = 50 * 12 };
	static double v[N];
	struct mw_trace tr = { T0, 5000, v, N };
	struct mw_leak_params p;
	struct mw_leak_result res;
	size_t i;

	(void)state;
	mw_leak_params_init(&p);
	p.count_unit = "handles";
	for (i = 0; i < N; i++) {
		double m = (double)i / 12.0;

		v[i] = m < 9 ? 64 : m < 20 ? 128 : m < 41 ? 256 : 512;
	}
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	if (!strstr(res.reason, "rising in steps over 40 min (+384 handles)"))
		fail_msg("%s", res.reason);
	/* two steps of 50 handles: 100 in all, under the 240 a day allows */
	for (i = 0; i < N; i++) {
		double m = (double)i / 12.0;

		v[i] = m < 20 ? 100 : m < 41 ? 150 : 200;
	}
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_PASS);
}

/* Real shapes over the shortest span the defaults judge (31 minutes at
 * 5 s): a leak in bursts every 7 minutes and growth that slows but never
 * stops, fast against the process (both decided by the rise around their
 * monotone fit), an allocator's creep that settles after a cache reached
 * its cap (settling), and a one-time load (not a pass until it has held
 * half an hour). */
static void shapes_of_real_programs(void **state)
{
	static double v[372];
	struct mw_trace tr = { T0, 5000, v, 372 };
	struct mw_leak_params p;
	struct mw_leak_result res;
	struct lc_rng r = { 5 };
	size_t i;

	(void)state;
	mw_leak_params_init(&p);
	for (i = 0; i < 372; i++) {
		double t = (double)i * 5.0 / 60.0;	/* minutes */

		v[i] = 8 * LC_MIB + 1.2 * LC_MIB * floor((t + 3.0) / 7.0) + 4096.0 * (double)(i % 3);
	}
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_FAIL);
	assert_true(res.slope_bph > 7 * LC_MIB && res.slope_bph < 14 * LC_MIB);

	for (i = 0; i < 372; i++) {
		double t = (double)i * 5.0 / 60.0;

		v[i] = 3 * LC_MIB + 20 * LC_MIB * sqrt(t / 60.0) + 20e3 * lc_normal(&r) +
		       (t > 17 ? 4 * LC_MIB : 0.0);	/* the table doubles */
	}
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_FAIL);

	for (i = 0; i < 372; i++) {
		double t = (double)i * 5.0 / 60.0;

		v[i] = 30 * LC_MIB + 1.0 * LC_MIB * (1.0 - 2.0 / sqrt(t + 4.0)) + 2e3 * lc_normal(&r);
	}
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_PASS);
	if (!strstr(res.reason, "settling"))
		fail_msg("%s", res.reason);

	/* a one-time load at 15 minutes: held 16 minutes at the end, it may
	 * be the first step of a staircase (Ruby's heap, recorded, steps 22
	 * minutes apart), not a pass yet; held 30 minutes, it passes */
	for (i = 0; i < 372; i++)
		v[i] = 50 * LC_MIB + (i > 180 ? 40 * LC_MIB : 0.0) + 8192.0 * (double)(i % 2);
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	if (!strstr(res.reason, "one step up (+40.0 MiB), held 16 min"))
		fail_msg("%s", res.reason);
	{
		static double longer[552];	/* 46 minutes */
		struct mw_trace tl = { T0, 5000, longer, 552 };

		for (i = 0; i < 552; i++)
			longer[i] = 50 * LC_MIB + (i > 180 ? 40 * LC_MIB : 0.0) +
				    8192.0 * (double)(i % 2);
		mw_leak_judge(&tl, &p, &res);
		assert_int_equal(res.verdict, MW_VERDICT_PASS);
	}
}

/* An allocator's creep after the warm-up that slows smoothly, about as
 * 1/t (a Perl cache of random-size strings replaced at random, recorded:
 * 6.2, 4.5, 2.6, 2.2 MiB/h in 5-minute windows from 10 to 30 minutes, a
 * 30 MiB process): over 10-31 minutes it rises 13 % of the process an
 * hour, fast enough to have counted as a leak however it slowed, and
 * failed.  Its last third creeps at under a tenth of the process an hour,
 * each third slower than the one before: "slowing, not settled yet", not
 * a fail.  The same creep beside a steady 5 MiB/h leak still fails (its
 * last third climbs a quarter of the process an hour). */
static void creep_that_slows_is_not_a_fail(void **state)
{
	enum { N = 31 * 60 };	/* 31 minutes at 1 s */
	static double v[N];
	struct mw_trace tr = { T0, 1000, v, N };
	struct mw_leak_params p;
	struct mw_leak_result res;
	uint64_t seed;
	size_t i;

	(void)state;
	mw_leak_params_init(&p);
	for (seed = 1; seed <= 6; seed++) {
		struct lc_rng r = { seed };

		for (i = 0; i < N; i++) {
			/* minutes since the creep began, a minute after start */
			double t = (double)i / 60.0 - 1.0;

			v[i] = 26 * LC_MIB + 0.9 * LC_MIB * log(t > 1.0 ? t : 1.0) +
			       8e3 * lc_normal(&r);
		}
		mw_leak_judge(&tr, &p, &res);
		if (res.verdict != MW_VERDICT_INCONCLUSIVE || !strstr(res.reason, "slowing"))
			fail_msg("creep, seed %d: %s", (int)seed, res.reason);
		for (i = 0; i < N; i++)
			v[i] += 5 * LC_MIB * (double)i / 3600.0;
		mw_leak_judge(&tr, &p, &res);
		if (res.verdict != MW_VERDICT_FAIL)
			fail_msg("creep and leak, seed %d: %s", (int)seed, res.reason);
	}
}

/* A staircase slow against the process (tcmalloc taking spans for a
 * churn: 300 KiB every few minutes on 60 MiB, each step three jumps over
 * 20 s, a page now and then between), judged at 33 minutes: with 4 steps
 * after the warm-up it is no fail; with 8 it fails; a fast staircase of
 * 3 (a tenth of the process a step) is no pass.  These bound the rule
 * for few steps (few_steps_to_fit in analysis/leak.c) from both sides
 * without reaching it: over this trace the trend test does not cross
 * its bar with 4 steps, and 8 fail by the shape shortcuts.  Where it
 * does cross it - the recorded ok_tc at 32-33 minutes - test_leak_real's
 * allocators set is the test (no not-leak fails at any minute). */
static double stair_at(const double *mins, size_t nsteps, double step, double t_min)
{
	double v = 0;
	size_t k;

	for (k = 0; k < nsteps; k++) {
		double d = t_min - mins[k];	/* a step: three jumps 10 s apart */

		v += d >= 0 ? step / 3 : 0;
		v += d >= 10.0 / 60 ? step / 3 : 0;
		v += d >= 20.0 / 60 ? step / 3 : 0;
	}
	return v;
}

static void slow_staircase_waits_for_steps(void **state)
{
	enum { N = 33 * 60 };
	static double v[N];
	static const double four[] = { 13.8, 17.4, 24.9, 31.2 };
	static const double eight[] = { 11.5, 14.0, 16.5, 19.0, 21.5, 24.0, 26.5, 29.0 };
	static const double three_fast[] = { 15.0, 23.3, 29.9 };
	struct mw_trace tr = { T0, 1000, v, N };
	struct mw_leak_params p;
	struct mw_leak_result res;
	struct lc_rng r = { 7 };
	size_t i;

	(void)state;
	mw_leak_params_init(&p);
	for (i = 0; i < N; i++)
		v[i] = 60 * LC_MIB + stair_at(four, 4, 300 * 1024.0, i / 60.0) +
		       4096.0 * (double)(i / 90);
	mw_leak_judge(&tr, &p, &res);
	if (res.verdict == MW_VERDICT_FAIL)
		fail_msg("four slow steps: %s", res.reason);
	for (i = 0; i < N; i++)
		v[i] = 60 * LC_MIB + stair_at(eight, 8, 300 * 1024.0, i / 60.0) +
		       4096.0 * (double)(lc_next(&r) % 2);
	mw_leak_judge(&tr, &p, &res);
	if (res.verdict != MW_VERDICT_FAIL)
		fail_msg("eight slow steps: %s", res.reason);
	for (i = 0; i < N; i++)
		v[i] = 6 * LC_MIB + stair_at(three_fast, 3, 1.1 * LC_MIB, i / 60.0) +
		       4096.0 * (double)(lc_next(&r) % 2);
	mw_leak_judge(&tr, &p, &res);
	if (res.verdict == MW_VERDICT_PASS)
		fail_msg("three fast steps: %s", res.reason);
}

/* A cache filling to its cap through a Go heap that grows in jumps (the
 * Go set's ok_gocache: a jump of 0.5-9 MiB every half minute to two
 * between 10 and 24 minutes, +60 MiB, then flat): judged at 34 minutes,
 * 10 minutes after it stopped - shorter than the rise took, so no
 * "stopped rising" yet - it failed "rising 162 MiB/h ... steady to the
 * end".  A flat twice as long as the longest quiet during the rise, that
 * moved by almost nothing of what the rate would have added, is
 * inconclusive.  The same quiet after steps 9 minutes apart still fails
 * (bursts_every_8_minutes_fail, test_leak_report's worker added every 20
 * minutes). */
static void filled_then_paused_is_not_steady_to_the_end(void **state)
{
	enum { N = 34 * 60 };
	static double v[N];
	struct mw_trace tr = { T0, 1000, v, N };
	struct mw_leak_params p;
	struct mw_leak_result res;
	struct lc_rng r = { 11 };
	double level = 50 * LC_MIB;
	size_t i;

	(void)state;
	mw_leak_params_init(&p);
	for (i = 0; i < N; i++) {
		/* a jump of 1-6 MiB every 45 s while filling (10-24 min) */
		if (i >= 600 && i < 1440 && (i - 600) % 45 == 0)
			level += (double)(1 + lc_next(&r) % 6) * LC_MIB;
		v[i] = level + 4096.0 * (double)(lc_next(&r) % 3);
	}
	assert_true(level > 90 * LC_MIB);
	mw_leak_judge(&tr, &p, &res);
	if (res.verdict == MW_VERDICT_FAIL)
		fail_msg("filled, then 10 minutes flat: %s", res.reason);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(res.reason, "not rising to the end"));
}

/* Floors that scatter by a third of their level from one bucket to the
 * next (a GC sawtooth of a gigabyte read at its floors) cannot show a
 * leak of a tenth of the process an hour within 31 minutes: no pass (it
 * read "no steady trend", a clean pass, for a real Node leak), but
 * inconclusive with the growth that cannot be seen yet - whether a 20
 * MiB/h leak lies under it or not.  The same level with a small scatter,
 * a one-time load and a slow wander still pass (shapes_of_real_programs,
 * basic_shapes). */
static void too_noisy_is_not_a_pass(void **state)
{
	enum { N = 31 * 12 };	/* 31 minutes at 5 s */
	static double v[N];
	struct lc_rng r = { 11 };
	struct mw_leak_result res;
	struct mw_trace tr = { T0, 5000, v, N };
	struct mw_leak_params p;
	size_t i;
	int leak;

	(void)state;
	mw_leak_params_init(&p);
	for (leak = 0; leak < 2; leak++) {
		for (i = 0; i < N; i++)
			v[i] = 300 * LC_MIB + 100 * LC_MIB * lc_normal(&r) +
			       (leak ? 20 * LC_MIB * (double)i * 5.0 / 3600.0 : 0.0);
		mw_leak_judge(&tr, &p, &res);
		assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
		if (!strstr(res.reason, "too noisy"))
			fail_msg("%s", res.reason);
		/* 100 MiB of white scatter over 21 judged minutes: about 200 MiB/h */
		assert_true(res.detectable_bph > 30 * LC_MIB && res.detectable_bph < 300 * LC_MIB);
		assert_true(isnan(res.slope_bph) && res.projected_bytes == 0.0);
	}
	for (i = 0; i < N; i++)
		v[i] = 300 * LC_MIB + 1 * LC_MIB * lc_normal(&r);
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_PASS);
	assert_true(isnan(res.detectable_bph));

	/* a group of the quiet one and a noisy one is not passed on the
	 * quiet one */
	{
		static double nv[N];
		struct mw_trace two[2] = { { T0, 5000, v, N }, { T0, 5000, nv, N } };
		struct mw_leak_result each[2];
		struct mw_leak_group_result g;

		for (i = 0; i < N; i++)
			nv[i] = 300 * LC_MIB + 100 * LC_MIB * lc_normal(&r);
		mw_leak_judge_group(two, 2, &p, each, &g);
		assert_int_equal(each[0].verdict, MW_VERDICT_PASS);
		assert_int_equal(g.r.verdict, MW_VERDICT_INCONCLUSIVE);
		if (!strstr(g.r.reason, "too noisy") || !isfinite(g.r.detectable_bph))
			fail_msg("%s", g.r.reason);
	}

	/* a longer run decides: the same scatter over four hours sees a
	 * tenth of the process an hour, no longer too noisy, but cannot rule
	 * out a few MiB/h yet (unbounded_without_trend); over sixteen hours
	 * it bounds the rate under 1 MiB/h, and passes */
	{
		static double lv[16 * 720 + 120];
		struct mw_trace longer = { T0, 5000, lv, 4 * 720 + 120 };

		for (i = 0; i < sizeof(lv) / sizeof(lv[0]); i++)
			lv[i] = 300 * LC_MIB + 100 * LC_MIB * lc_normal(&r);
		mw_leak_judge(&longer, &p, &res);
		assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
		if (strstr(res.reason, "too noisy") || !strstr(res.reason, "cannot be ruled out"))
			fail_msg("%s", res.reason);
		longer.n = sizeof(lv) / sizeof(lv[0]);
		mw_leak_judge(&longer, &p, &res);
		if (res.verdict != MW_VERDICT_PASS)
			fail_msg("sixteen hours: %s", res.reason);
	}
}

/* n points at 5 s of a 40 MiB process wandering as AR(1) (0.9 a step,
 * innovations of innov_mib MiB), plus a leak of leak_mib_h MiB/h. */
static void wander_at_5s(double *v, size_t n, uint64_t seed, double innov_mib, double leak_mib_h)
{
	struct lc_rng r = { seed };
	double w = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		w = 0.9 * w + lc_normal(&r);
		v[i] = 40 * LC_MIB + innov_mib * LC_MIB * w +
		       leak_mib_h * LC_MIB * (double)i * 5.0 / 3600.0;
	}
}

/* A rise the trend test does not yet call significant (p between 0.01 and
 * 0.001) but whose Sen interval reaches the smallest leak the defaults
 * must fail is not a pass: 4 MiB/h under a wander (AR(0.9) steps of 0.5
 * MiB) over 31 minutes at 5 s, seed 13, read "no steady trend (p 0.0025)"
 * and passed; a fresh Python leak under churn did the same at 31-33
 * minutes.
 * The same wander without the leak still passes. */
static void rising_not_yet_sure_is_not_a_pass(void **state)
{
	enum { N = 31 * 12 };
	static double v[N];
	struct mw_trace tr = { T0, 5000, v, N };
	struct mw_leak_result res;
	struct mw_leak_params p;
	int leak;

	(void)state;
	mw_leak_params_init(&p);
	for (leak = 1; leak >= 0; leak--) {
		wander_at_5s(v, N, 13, 0.5, leak ? 4.0 : 0.0);
		mw_leak_judge(&tr, &p, &res);
		if (leak) {
			assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
			if (!strstr(res.reason, "not yet sure enough"))
				fail_msg("%s", res.reason);
			assert_true(res.p_value > 0.001 && res.p_value < 0.01);
			assert_true(isnan(res.slope_bph) && res.projected_bytes == 0.0);
		} else if (res.verdict != MW_VERDICT_PASS) {
			fail_msg("the wander alone: %s", res.reason);
		}
	}
}

/* A rise hinted at (p < 0.01) whose rate the data cannot bound below the
 * smallest leak that matters is no pass; one it can bound passes, naming
 * the bound.  A 4 MiB/h leak under a wander
 * (AR(1), 0.9 a step at 5 s, 0.25 MiB innovations) read "no steady trend
 * over 21 min (p 0.0067)" with seed 7 until session 24 (Sen's lower bound
 * had to reach 1 MiB/h); the wander alone is never failed, and passes
 * nearly always over 90 minutes. */
static void hinted_rise_that_may_matter_is_not_a_pass(void **state)
{
	enum { N = 31 * 12, SEEDS = 200 };
	static double v[N];
	struct mw_trace tr = { T0, 5000, v, N };
	struct mw_leak_result res;
	struct mw_leak_params p;
	uint64_t seed;
	int leak, passes = 0;

	(void)state;
	mw_leak_params_init(&p);
	for (leak = 1; leak >= 0; leak--) {
		for (seed = leak ? 7 : 1; seed <= (leak ? 7 : SEEDS); seed++) {
			wander_at_5s(v, N, seed, 0.25, leak ? 4.0 : 0.0);
			mw_leak_judge(&tr, &p, &res);
			if (leak) {
				assert_true(res.p_value < 0.01);
				if (res.verdict == MW_VERDICT_PASS)
					fail_msg("a 4 MiB/h leak passed: %s", res.reason);
			} else {
				if (res.verdict == MW_VERDICT_FAIL)
					fail_msg("the wander alone failed: %s", res.reason);
				passes += res.verdict == MW_VERDICT_PASS;
			}
		}
	}
	/* 198 of 200 before the change, 197 after; 62 since session 35:
	 * +-0.6 MiB of wander over 21 minutes cannot rule out 1 MiB/h
	 * (unbounded_without_trend, and a settling's last third: the others
	 * are inconclusive), and the same wander over 90 minutes passes
	 * nearly always */
	assert_true(passes >= 50);
	{
		static double lv[90 * 12];
		struct mw_trace longer = { T0, 5000, lv, 90 * 12 };

		for (passes = 0, seed = 1; seed <= SEEDS; seed++) {
			wander_at_5s(lv, longer.n, seed, 0.25, 0.0);
			mw_leak_judge(&longer, &p, &res);
			if (res.verdict == MW_VERDICT_FAIL)
				fail_msg("the wander alone failed: %s", res.reason);
			passes += res.verdict == MW_VERDICT_PASS;
		}
		assert_true(passes >= 190);
	}
	/* a creep of 0.3 MiB/h under a small wander (seed 86: p 0.0027, its
	 * bound under 1 MiB/h) passes, and says what its p means rather than
	 * "no steady trend (p 0.0027)" alone */
	wander_at_5s(v, N, 86, 0.05, 0.3);
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_PASS);
	assert_true(res.p_value < 0.01);
	if (!strstr(res.reason, "a slight rise (p ") || !strstr(res.reason, "of at most "))
		fail_msg("%s", res.reason);
	/* a significant fall passes as one: "no steady trend (p 1e-09)"
	 * alone read as if it were a trend of a leak */
	wander_at_5s(v, N, 86, 0.05, -3.0);
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_PASS);
	assert_true(res.p_value < 0.001);
	if (!strstr(res.reason, "falling (p "))
		fail_msg("%s", res.reason);
}

/* n points at 5 s: a cache filled by 20 MiB between 10 and 20 minutes,
 * then keeping leak_mib_h MiB/h, under wander_at_5s's wander. */
static void filled_then_leaking(double *v, size_t n, uint64_t seed, double innov_mib,
				double leak_mib_h)
{
	size_t i;

	wander_at_5s(v, n, seed, innov_mib, leak_mib_h);
	for (i = 0; i < n; i++) {
		double t = (double)i / 12.0;

		/* the fill, and the leak only after it */
		v[i] += (t < 10 ? 0 : t < 20 ? 2 * LC_MIB * (t - 10) : 20 * LC_MIB) -
			leak_mib_h * LC_MIB * (t < 20 ? t : 20.0) / 60.0;
	}
}

/* No rise seen is a pass only where the data bounds the rate under the
 * smallest leak the defaults must fail (1 MiB/h): 1.5 MiB/h under a
 * wander of +-0.6 MiB (AR(1), 0.9 a step at 5 s) read "no steady trend
 * over 21 min (p 0.3)" and passed, as Go services keeping 1.5-2 MiB/h did
 * at 30-38 minutes (the Go sets: lk_goscav, lk_goslice); it is
 * inconclusive, naming the growth it cannot rule out, and three hours of
 * it fail.  The same for "stopped rising": a cache filled by 20 MiB, then
 * 1.5 MiB/h under a wander, passed as flat over its last 30 minutes
 * (lk_goslow at 40 minutes); the same fill that truly stopped, quiet,
 * still passes (settling); and "settling" over a slope under 1 MiB/h
 * whose bound is not. */
static void no_rise_seen_is_a_pass_only_when_bounded(void **state)
{
	enum { N = 180 * 12 };
	static double v[N];
	struct mw_trace tr = { T0, 5000, v, 31 * 12 };
	struct mw_leak_result res;
	struct mw_leak_params p;
	int leak;

	(void)state;
	mw_leak_params_init(&p);
	wander_at_5s(v, N, 2, 0.25, 1.5);
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	assert_true(res.p_value > 0.01 && res.unbounded && res.undecided);
	assert_true(isnan(res.slope_bph) && res.projected_bytes == 0.0);
	if (strncmp(res.reason, "no steady trend over 21 min (p ", 31) ||
	    !strstr(res.reason, "/h cannot be ruled out"))
		fail_msg("%s", res.reason);
	tr.n = N;
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_FAIL);
	assert_true(res.slope_bph > 1.2 * LC_MIB && res.slope_bph < 1.8 * LC_MIB);

	/* filled by 20 MiB between 10 and 20 minutes, then flat, 50 minutes */
	tr.n = 50 * 12;
	for (leak = 1; leak >= 0; leak--) {
		filled_then_leaking(v, tr.n, 1, leak ? 0.1 : 0.002, leak ? 1.5 : 0.0);
		mw_leak_judge(&tr, &p, &res);
		if (leak) {
			static const char want[] =
				"rose 21.0 MiB, then no steady rise over the last 30 min, yet a growth up to ";

			assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
			assert_true(res.undecided && res.unbounded && res.trended);
			if (strncmp(res.reason, want, sizeof(want) - 1))
				fail_msg("%s", res.reason);
		} else if (res.verdict != MW_VERDICT_PASS) {
			fail_msg("the fill alone: %s", res.reason);
		}
	}
	/* "settling" too: the same fill, then 1 MiB/h under a wander of
	 * +-0.1 MiB, 70 minutes, read "settling: slowed to 994 KiB/h" (the
	 * last third's slope under 1 MiB/h, its bound not) */
	tr.n = 70 * 12;
	filled_then_leaking(v, tr.n, 5, 0.05, 1.0);
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	if (strncmp(res.reason, "slowing to ", 11) ||
	    !strstr(res.reason, "/h in the last third, yet a growth up to "))
		fail_msg("%s", res.reason);
	/* and "stopped" bounded with the stretch's autocorrelation counted:
	 * under a wander of +-2.5 MiB the tail's own interval (none counted)
	 * read "stopped rising: flat over the last 30 min" */
	filled_then_leaking(v, tr.n, 38, 1.1, 1.0);
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	if (!strstr(res.reason, ", then no steady rise over the last 30 min, yet a growth up to "))
		fail_msg("%s", res.reason);
}

/* A slow rise (under 512 KiB/h, half the smallest leak the defaults must
 * fail) is judged over an hour: over the first hour an allocator settling
 * under a steady load creeps that fast (recorded: Debian's redis under
 * expiring keys, 19.23 -> 19.52 MiB from 3 to 43 minutes, failed "rising
 * 305 KiB/h" at 30-33 and from 42 minutes).  300 KiB/h under a small
 * wander: inconclusive at 40 minutes, naming the rate; two hours of it
 * fail.  1 MiB/h still fails at 31 minutes. */
static void slow_rise_waits_for_an_hour(void **state)
{
	enum { N = 120 * 12 };
	static double v[N];
	struct mw_trace tr = { T0, 5000, v, 40 * 12 };
	struct mw_leak_result res;
	struct mw_leak_params p;

	(void)state;
	mw_leak_params_init(&p);
	wander_at_5s(v, N, 3, 0.002, 300.0 / 1024.0);
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	assert_true(res.undecided && isnan(res.slope_bph) && res.projected_bytes == 0.0);
	if (strncmp(res.reason, "rising slowly, 2", 16) ||
	    !strstr(res.reason, "/h over 30 min: too soon to tell from an allocator's creep "
				"(a rise under 512 KiB/h is judged over 1h 00m)"))
		fail_msg("%s", res.reason);
	tr.n = N;
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_FAIL);
	assert_true(res.slope_bph > 250 * 1024.0 && res.slope_bph < 350 * 1024.0);
	/* the smallest leak the defaults must fail, from 31 minutes */
	wander_at_5s(v, N, 3, 0.002, 1.0);
	tr.n = 31 * 12;
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_FAIL);
}

/* A heap that grows by a chunk every 20 minutes (Ruby's, recorded: 24.9,
 * 31.2, 36.2 MiB) is a staircase the trend test cannot see; two steps up
 * that stay are not "no steady trend" (inconclusive), one step is a
 * one-time load (a pass), and steps up and down are a process whose
 * memory moves (a pass). */
static void rise_in_steps_is_not_a_pass(void **state)
{
	enum { N = 50 * 60 };
	static double v[N];
	struct mw_trace tr = { T0, 1000, v, N };
	struct mw_leak_result res;
	struct mw_leak_params p;
	int shape;

	(void)state;
	mw_leak_params_init(&p);
	/* shapes 3 and 4: the first step as the warm-up ends (10.5 minutes,
	 * Ruby's recorded one), with a second step or alone */
	for (shape = 0; shape < 5; shape++) {
		struct lc_rng r = { 29 };
		size_t i;

		for (i = 0; i < N; i++) {
			double m = (double)i / 60.0, level = 24.9 * LC_MIB;

			if (m >= (shape >= 3 ? 10.5 : 12))
				level += 6.3 * LC_MIB;
			if (m >= 33)
				level += (shape == 2 ? -6.3 : 5.0) * LC_MIB;
			if ((shape == 1 || shape == 4) && m >= 33)
				level -= 5.0 * LC_MIB;	/* one step only */
			/* page-sized jitter, as an allocator's floors show */
			v[i] = level + 4096.0 * floor(3.0 * lc_unif(&r));
		}
		mw_leak_judge(&tr, &p, &res);
		if (shape == 0 || shape == 3) {
			assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
			if (!strstr(res.reason, "rising in steps"))
				fail_msg("%s", res.reason);
			assert_true(isnan(res.slope_bph) && res.projected_bytes == 0.0);
			/* the rise counted from before the first step */
			if (shape == 3 && !strstr(res.reason, "(+11.3 MiB)"))
				fail_msg("%s", res.reason);
		} else if (res.verdict != MW_VERDICT_PASS) {
			fail_msg("shape %d: %s", shape, res.reason);
		}
	}
	/* judged at 31 minutes, Ruby's first step alone is 20.5 minutes old
	 * (held since the span began: 21 minutes): the first of a staircase
	 * or a one-time load, not a pass yet (it
	 * passed until the step at the span's start counted when the span's
	 * own rise was only what came after it) */
	{
		struct mw_trace early = { T0, 1000, v, 31 * 60 };
		struct lc_rng r = { 29 };
		size_t i;

		for (i = 0; i < 31 * 60; i++)
			v[i] = 24.9 * LC_MIB + (i >= 630 ? 6.3 * LC_MIB : 0.0) +
			       4096.0 * floor(3.0 * lc_unif(&r));
		mw_leak_judge(&early, &p, &res);
		assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
		if (!strstr(res.reason, "one step up (+6.3 MiB), held 21 min"))
			fail_msg("%s", res.reason);
	}
}

/* A ramp that ended a while before the end is not "steady to the end": a
 * JVM's private bytes while G1 sized its heap, recorded (lk_java in the
 * corpus's jvm2 set, the floors of every 30 s in MiB: +170 MiB between 11
 * and 18 minutes, 1 MiB over the 13 after, then the JVM's 1 MiB step
 * at 34), judged at 31 minutes in a report failed as "rising 301 MiB/h
 * ... steady to the end".  Judged alone: not failed at any end time up to
 * 40 minutes; at 32-36 the stop is named (then "slowing"). */
static const double jvm_sizing_mib[] = {
	81.8,  101.4, 105.6, 108.7, 110.8, 110.8, 110.8, 110.9, 110.9, 110.9, 110.9, 112.0,
	112.0, 112.0, 112.0, 112.0, 112.0, 112.0, 112.1, 112.1, 112.1, 112.1, 112.1, 126.8,
	148.2, 160.7, 168.1, 173.3, 189.7, 191.8, 204.9, 237.9, 238.0, 238.0, 255.6, 281.7,
	281.7, 281.7, 282.4, 282.4, 282.4, 282.4, 282.4, 282.4, 282.4, 282.4, 282.4, 282.5,
	282.5, 282.5, 282.5, 282.5, 282.5, 282.5, 282.6, 282.6, 282.6, 282.6, 282.6, 282.6,
	282.7, 282.7, 282.7, 282.8, 282.8, 282.8, 282.8, 282.8, 283.8, 283.9, 283.9, 283.9,
	283.9, 283.9, 283.9, 283.9, 283.9, 283.9, 283.9, 284.0,
};

static void ramp_then_flat_is_not_steady_to_the_end(void **state)
{
	enum { N = 50 * 60, NJ = sizeof(jvm_sizing_mib) / sizeof(jvm_sizing_mib[0]) };
	_Static_assert(NJ * 30 <= N, "the recorded floors fit the trace");
	static double v[N];
	struct mw_trace tr = { T0, 1000, v, N };
	struct mw_leak_result res;
	struct mw_leak_params p;
	size_t i;
	int end;

	(void)state;
	mw_leak_params_init(&p);
	for (i = 0; i < NJ * 30; i++)
		v[i] = jvm_sizing_mib[i / 30] * LC_MIB;
	for (end = 31; end <= NJ / 2; end++) {
		tr.n = (size_t)end * 60;
		mw_leak_judge(&tr, &p, &res);
		if (res.verdict == MW_VERDICT_FAIL)
			fail_msg("judged at %d min: %s", end, res.reason);
		if (end > 31 && end <= 36 && !strstr(res.reason, "then within"))
			fail_msg("judged at %d min: %s", end, res.reason);
	}
}

/* A leak in bursts of 1.5 MiB every 8 minutes (11 MiB/h) fails at every
 * end time from 30 minutes: Theil-Sen over a third holding one step near
 * its edge is about flat, and it read "settling: slowed to 48 KiB/h" at
 * 40 minutes. */
static void bursts_every_8_minutes_fail(void **state)
{
	enum { N = 50 * 60 };
	static double v[N];
	struct mw_trace tr = { T0, 1000, v, N };
	struct mw_leak_result res;
	struct mw_leak_params p;
	int end;

	(void)state;
	mw_leak_params_init(&p);
	for (end = 30; end <= 50; end++) {
		struct lc_rng r = { (uint64_t)end };
		size_t i;

		for (i = 0; i < N; i++)
			v[i] = 50 * LC_MIB + 1.5 * LC_MIB * floor((double)i / 480.0) +
			       4096.0 * floor(3.0 * lc_unif(&r));
		tr.n = (size_t)end * 60;
		mw_leak_judge(&tr, &p, &res);
		if (res.verdict != MW_VERDICT_FAIL)
			fail_msg("judged at %d min: %s", end, res.reason);
	}
}

/* A leak in bursts under a runtime that hands freed pages back now and
 * then (Go's scavenger after a forced collection, as the recorded
 * lk_goburst): 1.2 MiB kept every 7 minutes, and for one minute of each
 * 7 the process drops 16 MiB to what is live, which climbs too.  A dip in
 * the last third flattens its slope: it read "settling: slowed to 480
 * KiB/h" at some end times.  Never a pass from 30 to 50 minutes. */
static void releases_are_no_settling(void **state)
{
	enum { N = 50 * 60 };
	static double v[N];
	struct mw_trace tr = { T0, 1000, v, N };
	struct mw_leak_result res;
	struct mw_leak_params p;
	int end;

	(void)state;
	mw_leak_params_init(&p);
	for (end = 30; end <= 50; end++) {
		struct lc_rng r = { (uint64_t)end };
		size_t i;

		for (i = 0; i < N; i++) {
			double cycle = floor((double)i / 420.0), in = fmod((double)i, 420.0);

			v[i] = (in >= 270 && in < 330 ? 28 * LC_MIB + 0.6 * LC_MIB * cycle :
							  44 * LC_MIB + 1.2 * LC_MIB * cycle) +
			       4096.0 * floor(3.0 * lc_unif(&r));
		}
		tr.n = (size_t)end * 60;
		mw_leak_judge(&tr, &p, &res);
		if (res.verdict == MW_VERDICT_PASS)
			fail_msg("judged at %d min: %s", end, res.reason);
	}
}

/* A Go service handing its freed pages back every 3 minutes (as the
 * recorded lk_goscav, debug.FreeOSMemory): for 20 s after each release it
 * holds only what is live, a floor rising floor_mib_h (and scattering by
 * half a MiB from one release to the next, floor_scatter), then climbs
 * back to a working level that wanders 3 MiB with its heap goal, held flat
 * between collections, as Go's resident set is. */
static void go_releases(double *v, size_t n, uint64_t seed, double floor_mib_h,
			double floor_scatter)
{
	struct lc_rng r = { seed };
	double level = 0.0, floor_at = 0.0;
	size_t i;

	for (i = 0; i < n; i++) {
		double in = fmod((double)i, 180.0);

		if (fmod((double)i, 30.0) == 0.0)
			level = 38 * LC_MIB + lc_range(&r, -1.5, 1.5) * LC_MIB;
		if (in == 0.0)
			floor_at = 24 * LC_MIB + floor_mib_h * LC_MIB * (double)i / 3600.0 +
				   floor_scatter * lc_range(&r, -0.5, 0.5) * LC_MIB;
		v[i] = in < 20 ? floor_at + 4096.0 * floor(3.0 * lc_unif(&r)) : level;
	}
}

/* Over every point the wander hides a rise of the floors after releases
 * ("no steady trend over 30 min (p 0.74)" before they were judged); the
 * floors show it: never a pass from 40 to 50 minutes, a fail at 50 naming
 * them.  Floors that only scatter are no leak: never a fail. */
static void floors_after_releases_rise(void **state)
{
	enum { N = 50 * 60 };
	static double v[N];
	struct mw_trace tr = { T0, 1000, v, N };
	struct mw_leak_result res;
	struct mw_leak_params p;
	int end;

	(void)state;
	mw_leak_params_init(&p);
	for (end = 40; end <= 50; end++) {
		go_releases(v, N, (uint64_t)end, 4.0, 0.0);
		tr.n = (size_t)end * 60;
		mw_leak_judge(&tr, &p, &res);
		if (res.verdict == MW_VERDICT_PASS)
			fail_msg("judged at %d min: %s", end, res.reason);
	}
	assert_int_equal(res.verdict, MW_VERDICT_FAIL);
	assert_non_null(strstr(res.reason, "floors after releases"));
	assert_true(res.slope_bph > 3 * LC_MIB && res.slope_bph < 5 * LC_MIB);
	for (end = 30; end <= 50; end++) {
		go_releases(v, N, (uint64_t)end, 0.0, 1.0);
		tr.n = (size_t)end * 60;
		mw_leak_judge(&tr, &p, &res);
		if (res.verdict == MW_VERDICT_FAIL)
			fail_msg("flat floors judged at %d min: %s", end, res.reason);
	}
}

/* A Go cache handing its pages back every 3 minutes (as the recorded
 * ok_gocachefree): the floors it drops to rise 10 MiB a cycle while it
 * fills, then by half as much each cycle after cycle cap (its cap
 * reached at 24 minutes); its working level stays 15 MiB over the floor.
 * A floor does not rise at cycle stall (a leak stalling a cycle). */
static void go_cache_cycles(double *v, size_t n, uint64_t seed, size_t cap, size_t stall)
{
	struct lc_rng r = { seed };
	double floor_at = 60 * LC_MIB, step = 10 * LC_MIB;
	size_t i;

	for (i = 0; i < n; i++) {
		size_t cycle = i / 180;
		double in = fmod((double)i, 180.0);

		if (in == 0.0 && cycle > 0) {
			if (cycle > cap)
				step *= 0.5;
			floor_at += cycle != stall ? step : 0.0;
		}
		v[i] = (in < 20 ? floor_at : floor_at + 15 * LC_MIB) +
		       4096.0 * floor(3.0 * lc_unif(&r));
	}
}

/* From 33 to 38 minutes the capped cache failed "rising ... steady to the
 * end, sawtooth floors"; now never a fail from 33 to 50, and inconclusive
 * while it slows.  The same sawtooth whose floors keep rising fails at
 * every end from 34 (at 33, over eight floors, the rank test is not sure
 * yet: p 0.0027, as before this rule); when its last floor did not rise,
 * it is not taken for slowing. */
static void sawtooth_fill_slows_to_cap(void **state)
{
	enum { N = 50 * 60 };
	static double v[N];
	struct mw_trace tr = { T0, 1000, v, N };
	struct mw_leak_result res;
	struct mw_leak_params p;
	int end;

	(void)state;
	mw_leak_params_init(&p);
	for (end = 33; end <= 50; end++) {
		go_cache_cycles(v, N, (uint64_t)end, 8, SIZE_MAX);
		tr.n = (size_t)end * 60;
		mw_leak_judge(&tr, &p, &res);
		if (res.verdict == MW_VERDICT_FAIL)
			fail_msg("capped cache judged at %d min: %s", end, res.reason);
		if (end == 34) {
			assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
			assert_non_null(strstr(res.reason, "sawtooth floors"));
			assert_true(isnan(res.slope_bph));
		}
	}
	for (end = 33; end <= 50; end++) {
		size_t last_cycle = ((size_t)end * 60 - 1) / 180;

		go_cache_cycles(v, N, (uint64_t)end, SIZE_MAX, SIZE_MAX);
		tr.n = (size_t)end * 60;
		mw_leak_judge(&tr, &p, &res);
		if (res.verdict != MW_VERDICT_FAIL && end > 33)
			fail_msg("leaking floors judged at %d min: %s", end, res.reason);
		/* a stalled last cycle is no slowing (with 8 or 9 floors the
		 * rank test alone may not be sure yet: "not yet sure") */
		go_cache_cycles(v, N, (uint64_t)end, SIZE_MAX, last_cycle);
		mw_leak_judge(&tr, &p, &res);
		if (strstr(res.reason, "slowing"))
			fail_msg("stalled leak judged at %d min: %s", end, res.reason);
	}
}

/* A Node service's private bytes wandering under a churn of Buffers (as
 * the recorded ok_nodebuf, 95 MiB): up 0.4 MiB by 8 minutes, down to
 * -0.16 at 17, up again to +0.5 by 27 and held, under white scatter of
 * 300 KiB a second (its points jump by up to 656 KiB).  At 31 minutes the
 * hinge sits at the low of 17 minutes, the rise after it is significant,
 * and it failed "rising 3.2 MiB/h since ..., steady to the end", though it
 * ends no higher than it stood before.  Its twin, flat under the same
 * scatter until 17 minutes and then leaking 6 MiB/h, goes beyond: a fail.
 * Under 100 KiB of scatter the same wander failed "..., floors after
 * releases": the lowest points between its falls of a few standard
 * deviations, taken for releases, followed the wander (RELEASE_NOISE_SIGMA
 * in analysis/leak.c); now no fail. */
static double wander_at(double t_min)
{
	static const double knot[][2] = { { 0, 0 },	  { 8, 390 },	  { 11, 290 }, { 13, -70 },
					   { 16.8, -160 }, { 27, 520 }, { 60, 480 } };
	size_t i;

	for (i = 1; i < sizeof(knot) / sizeof(knot[0]); i++)
		if (t_min <= knot[i][0])
			return 1024.0 * (knot[i - 1][1] + (knot[i][1] - knot[i - 1][1]) *
							      (t_min - knot[i - 1][0]) /
							      (knot[i][0] - knot[i - 1][0]));
	return 1024.0 * knot[i - 1][1];
}

static void wander_back_is_not_a_leak(void **state)
{
	enum { N = 31 * 60 };
	static double v[N];
	struct mw_trace tr = { T0, 1000, v, N };
	struct mw_leak_result res;
	struct mw_leak_params p;
	struct lc_rng r = { 31 };
	size_t i;

	(void)state;
	mw_leak_params_init(&p);
	for (i = 0; i < N; i++)
		v[i] = 95 * LC_MIB + wander_at((double)i / 60.0) + 100e3 * lc_normal(&r);
	mw_leak_judge(&tr, &p, &res);
	assert_int_not_equal(res.verdict, MW_VERDICT_FAIL);
	assert_null(strstr(res.reason, "releases"));
	r.s = 31;
	for (i = 0; i < N; i++)
		v[i] = 95 * LC_MIB + wander_at((double)i / 60.0) + 300e3 * lc_normal(&r);
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(res.reason, "no higher than it stood before"));
	assert_true(isnan(res.slope_bph));
	r.s = 31;
	for (i = 0; i < N; i++) {
		double t_min = (double)i / 60.0;

		v[i] = 95 * LC_MIB + (t_min > 17 ? 6 * LC_MIB * (t_min - 17) / 60.0 : 0.0) +
		       300e3 * lc_normal(&r);
	}
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_FAIL);
}

/* A pool that fills 4 MiB between 10 and 23 minutes and then holds,
 * under floors that wander +-2 MiB (a group's summed PSS, read process by
 * process: PostgreSQL's): over 35 judged minutes the whole span's rise is
 * significant enough to hint and not to fail, but it has settled, and says
 * so, with no negative rate in a pass's words (or, where its last third
 * cannot rule out 1 MiB/h, says that); it used to read "rising about 5
 * MiB/h, not yet sure enough to call a leak" (8 of these 12). */
static void settled_fill_is_not_rising(void **state)
{
	enum { N = 45 * 60 };
	static double v[N];
	struct mw_trace tr = { T0, 1000, v, N };
	struct mw_leak_result res;
	struct mw_leak_params p;
	uint64_t seed;
	int passes = 0;

	(void)state;
	mw_leak_params_init(&p);
	for (seed = 1; seed <= 12; seed++) {
		struct lc_rng r = { seed };
		double wander = 0.0;
		size_t i;

		for (i = 0; i < N; i++) {
			double m = (double)i / 60.0;
			double fill = m < 10 ? 0.0 : m < 23 ? (m - 10) / 13.0 : 1.0;

			if (i % 40 == 0)
				wander = lc_range(&r, -2.0, 2.0) * LC_MIB;
			v[i] = 150 * LC_MIB + 4 * LC_MIB * fill + wander;
		}
		mw_leak_judge(&tr, &p, &res);
		if (res.verdict == MW_VERDICT_FAIL || strstr(res.reason, "rising about") ||
		    strstr(res.reason, "to -"))
			fail_msg("seed %d: %s", (int)seed, res.reason);
		passes += res.verdict == MW_VERDICT_PASS;
	}
	/* 8 of 12 until session 35; since, +-2 MiB of wander over a last
	 * third of 12 minutes cannot rule out 1 MiB/h: "no rise in the last
	 * third, yet a growth up to 5.4 MiB/h cannot be ruled out" */
	assert_true(passes >= 2);
}

/* A second instance of a program started beside the first (the first
 * flat, the second sizing its heap): one more alive at the end is no
 * accumulation of workers, and the group does not fail (recorded: a
 * second JVM of the same name started 25 minutes into a check's range
 * failed its group as "rising 670 MiB/h"). */
static void group_second_instance(void **state)
{
	enum { N1 = 45 * 6, N2 = 20 * 6 };
	static double v1[N1], v2[N2];
	struct mw_trace tr[2] = { { T0, 10000, v1, N1 }, { T0 + 25 * LC_MIN, 10000, v2, N2 } };
	struct mw_leak_result incs[2];
	struct mw_leak_group_result g;
	struct mw_leak_params p;
	struct lc_rng r = { 7 };
	size_t i;

	(void)state;
	mw_leak_params_init(&p);
	/* the first flat; the second sizing its heap 100 -> 280 MiB over its
	 * first 15 minutes, judged 20 minutes after it started */
	for (i = 0; i < N1; i++)
		v1[i] = 280 * LC_MIB + 4096.0 * floor(3.0 * lc_unif(&r));
	for (i = 0; i < N2; i++)
		v2[i] = (100 + 180 * (i < 90 ? (double)i / 90.0 : 1.0)) * LC_MIB +
			4096.0 * floor(3.0 * lc_unif(&r));
	mw_leak_judge_group(tr, 2, &p, incs, &g);
	assert_false(g.total_failed);
	assert_int_not_equal(g.r.verdict, MW_VERDICT_FAIL);
}

/* A trace of n floors a minute apart from t0. */
static struct mw_trace minute_trace(int64_t t0, double *v, size_t n)
{
	struct mw_trace t = { t0, LC_MIN, v, n };

	return t;
}

static void group_growing_workers(void **state)
{
	struct mw_trace tr[12];
	double *buf[12];
	struct mw_leak_result incs[12];
	struct mw_leak_group_result g;
	struct mw_leak_params p;
	struct lc_shape s;
	size_t k, n = 12;

	(void)state;
	mw_leak_params_init(&p);
	s = flat_shape(60 * LC_MIB, 0.3 * LC_MIB);
	for (k = 0; k < n; k++) {
		size_t len = 240 - k * 20;

		buf[k] = series(&s, 100 + k, len);
		tr[k] = minute_trace(T0 + (int64_t)k * 20 * LC_MIN, buf[k], len);
	}
	mw_leak_judge_group(tr, n, &p, incs, &g);
	for (k = 0; k < n; k++)
		assert_int_not_equal(incs[k].verdict, MW_VERDICT_FAIL);
	assert_int_equal(g.r.verdict, MW_VERDICT_FAIL);
	assert_int_equal(g.deciding_incarnation, -1);
	assert_true(g.total_failed);
	assert_true(fabs(g.r.slope_bph - 180 * LC_MIB) < 40 * LC_MIB);
	/* the same workers, all started together: flat */
	for (k = 0; k < n; k++)
		tr[k].t0_ms = T0;
	for (k = 0; k < n; k++)
		tr[k].n = 240 - 11 * 20;
	mw_leak_judge_group(tr, n, &p, incs, &g);
	assert_int_not_equal(g.r.verdict, MW_VERDICT_FAIL);
	for (k = 0; k < n; k++)
		free(buf[k]);
}

/* A few small steps that stopped pass: a prefork master's private bytes
 * (recorded at 1 s, the pools set's ok_poolidle master, every change from
 * 4 minutes on): glibc's heap top stepped up 68 KiB between 10:45 and
 * 12:08 under a churn of 1,000 blocks, then stood to the byte.  At 31
 * minutes it read "rising in steps over 20 min (p 0.001), too few yet to
 * fit a steady rate", and a step stays significant to the rank test for
 * as long as the values stand.  Steps still coming, or a rise beyond what
 * the budget allows over the horizon, stay undecided. */
static void small_steps_that_stopped_pass(void **state)
{
	enum { N = 31 * 12 };	/* 5-s floors, as the report reads 31 minutes */
	static const struct { int s; double v; } rec[] = {
		{ 0, 2457600 }, { 233, 2461696 }, { 235, 2465792 }, { 236, 2473984 },
		{ 237, 2478080 }, { 238, 2486272 }, { 239, 2490368 }, { 384, 2498560 },
		{ 385, 2502656 }, { 386, 2519040 }, { 387, 2523136 }, { 645, 2527232 },
		{ 649, 2531328 }, { 650, 2547712 }, { 651, 2551808 }, { 652, 2555904 },
		{ 653, 2560000 }, { 654, 2564096 }, { 655, 2568192 }, { 657, 2584576 },
		{ 676, 2588672 }, { 728, 2592768 },
	};
	static double v[N];
	struct mw_trace tr = { T0, 5000, v, N };
	struct mw_leak_result res;
	struct mw_leak_params p;
	size_t i, k = 0;

	(void)state;
	mw_leak_params_init(&p);
	for (i = 0; i < N; i++) {
		while (k + 1 < sizeof(rec) / sizeof(rec[0]) && rec[k + 1].s <= 5 * (int)i)
			k++;
		v[i] = rec[k].v;
	}
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_PASS);
	if (!strstr(res.reason, "stepped up +") || !strstr(res.reason, "then still for the last 19 min (the budget allows "))
		fail_msg("%s", res.reason);
	assert_true(isnan(res.slope_bph) && res.projected_bytes == 0.0);
	/* another step at 25 minutes: not still for half the span */
	for (i = 25 * 12; i < N; i++)
		v[i] += 40.0 * 1024;
	mw_leak_judge(&tr, &p, &res);
	if (strstr(res.reason, "stepped up"))
		fail_msg("%s", res.reason);
	/* the same steps 32 times as high (+2.1 MiB): over the 1.5 MiB the
	 * budget allows a day */
	for (i = 0; i < N; i++)
		v[i] = 2457600 + (v[i] - 40.0 * 1024 * (i >= 25 * 12) - 2457600) * 32;
	mw_leak_judge(&tr, &p, &res);
	if (strstr(res.reason, "stepped up"))
		fail_msg("%s", res.reason);
}

/* A pool of POOL_W incarnations of POOL_N minutes each, 12 MiB under its
 * own scatter and keeping its own rate (seeds seed, seed + 1, ...), built
 * and judged as one group; pool_free releases its points. */
enum { POOL_N = 45, POOL_W = 5 };
struct pool {
	double *buf[POOL_W];
	struct mw_trace tr[POOL_W];
	struct mw_leak_result incs[POOL_W];
	struct mw_leak_group_result g;
	struct mw_leak_params p;
};

static void pool_build(struct pool *pl, const double *scatter, const double *leak, uint64_t seed)
{
	size_t k;

	mw_leak_params_init(&pl->p);
	for (k = 0; k < POOL_W; k++) {
		struct lc_shape s = flat_shape(12 * LC_MIB, scatter[k]);

		s.leak_bph = leak[k];
		pl->buf[k] = series(&s, seed + k, POOL_N);
		pl->tr[k] = minute_trace(T0, pl->buf[k], POOL_N);
	}
}

static void pool_judge(struct pool *pl)
{
	mw_leak_judge_group(pl->tr, POOL_W, &pl->p, pl->incs, &pl->g);
}

static void pool_free(struct pool *pl)
{
	size_t k;

	for (k = 0; k < POOL_W; k++)
		free(pl->buf[k]);
}

/* A pool whose workers all leak grows by their rates together: the
 * group's rate is the sum of the failing incarnations alive at the end,
 * not the steepest one's alone (recorded, the pools set: four workers
 * keeping 1.5 MiB/h each read "incarnation 5 of 5: rising 1.8 MiB/h").
 * One that ended is no longer growing and is not summed. */
static void group_pool_rates_add(void **state)
{
	/* the master flat, four workers keeping 1.5 MiB/h each */
	static const double scatter[POOL_W] = { 0.02 * LC_MIB, 0.02 * LC_MIB, 0.02 * LC_MIB,
						0.02 * LC_MIB, 0.02 * LC_MIB };
	static const double leak[POOL_W] = { 0, 1.5 * LC_MIB, 1.5 * LC_MIB, 1.5 * LC_MIB,
					     1.5 * LC_MIB };
	struct pool pl;
	const struct mw_leak_result *incs = pl.incs;
	const struct mw_leak_group_result *g = &pl.g;
	size_t k;

	(void)state;
	pool_build(&pl, scatter, leak, 300);
	pool_judge(&pl);
	for (k = 1; k < POOL_W; k++)
		assert_int_equal(incs[k].verdict, MW_VERDICT_FAIL);
	assert_int_equal(g->r.verdict, MW_VERDICT_FAIL);
	assert_int_equal((int)g->nfail, 4);
	assert_int_equal((int)g->nfail_alive, 4);
	if (!(fabs(g->r.slope_bph - 6 * LC_MIB) < 1.0 * LC_MIB))
		fail_msg("group rate %.0f B/h, not about 6 MiB/h: %s", g->r.slope_bph, g->r.reason);
	assert_true(g->r.slope_lo_bph < g->r.slope_bph && g->r.slope_bph < g->r.slope_hi_bph);
	assert_true(g->r.projected_bytes > 4 * incs[1].projected_bytes * 0.8);
	if (strncmp(g->r.reason, "4 of 5 incarnations rising, ", 28) ||
	    !strstr(g->r.reason, "/h together; the steepest: rising "))
		fail_msg("%s", g->r.reason);
	/* the fourth worker ended 3 minutes before the end: three add */
	pl.tr[4].n = POOL_N - 3;
	pool_judge(&pl);
	assert_int_equal(incs[4].verdict, MW_VERDICT_FAIL);
	assert_int_equal((int)g->nfail, 4);
	assert_int_equal((int)g->nfail_alive, 3);
	if (!(fabs(g->r.slope_bph - 4.5 * LC_MIB) < 0.8 * LC_MIB))
		fail_msg("group rate %.0f B/h, not about 4.5 MiB/h: %s", g->r.slope_bph, g->r.reason);
	/* one failing worker: its own figures and words, as before */
	for (k = 2; k < POOL_W; k++)
		pl.tr[k].n = 5;
	pool_judge(&pl);
	assert_int_equal((int)g->nfail, 1);
	assert_true(g->r.slope_bph == incs[1].slope_bph);
	if (strncmp(g->r.reason, "incarnation 2 of 5: ", 20))
		fail_msg("%s", g->r.reason);
	pool_free(&pl);
}

/* A pool whose workers each keep a little, each passing alone, fails
 * together: with the same incarnations throughout and every one passing,
 * their total is judged (recorded, the pools set: four workers keeping
 * 0.4 MiB/h each in glibc heap steps passed as "5 incarnations, none
 * growing; total: the same 5 throughout" at 30-37, 39-41 and 44-50
 * minutes).  The same pool without the leak passes (40 seeds at each of
 * 0.05-0.3 MiB of scatter: no fail in the 239 where every incarnation
 * passed).  So do workers that see no rise but cannot rule one out. */
static void group_pool_fails_together(void **state)
{
	static const double scatter[POOL_W] = { 0.15 * LC_MIB, 0.15 * LC_MIB, 0.15 * LC_MIB,
						0.15 * LC_MIB, 0.15 * LC_MIB };
	static const double leaks[POOL_W] = { 0, 0.4 * LC_MIB, 0.4 * LC_MIB, 0.4 * LC_MIB,
					      0.4 * LC_MIB };
	static const double none[POOL_W] = { 0 };
	struct pool pl;
	int leak;
	size_t k;

	(void)state;
	for (leak = 1; leak >= 0; leak--) {
		pool_build(&pl, scatter, leak ? leaks : none, 80);
		pool_judge(&pl);
		for (k = 0; k < POOL_W; k++)
			assert_int_equal(pl.incs[k].verdict, MW_VERDICT_PASS);
		if (leak) {
			assert_int_equal(pl.g.r.verdict, MW_VERDICT_FAIL);
			assert_int_equal(pl.g.deciding_incarnation, -1);
			if (strncmp(pl.g.r.reason,
				    "5 incarnations together, none failing alone: rising ", 52))
				fail_msg("%s", pl.g.r.reason);
			assert_true(pl.g.r.slope_bph > 0.8 * LC_MIB && pl.g.r.slope_bph < 3.2 * LC_MIB);
		} else {
			assert_int_equal(pl.g.r.verdict, MW_VERDICT_PASS);
		}
		pool_free(&pl);
	}
	/* noisier workers (0.35 MiB of scatter) keeping 0.5 MiB/h: three see
	 * no rise, but cannot rule one out (leak.c unbounded_without_trend),
	 * the others pass; the total is judged all the same (before, the
	 * group was inconclusive on the first of the three) */
	{
		static const double noisier[POOL_W] = { 0.35 * LC_MIB, 0.35 * LC_MIB, 0.35 * LC_MIB,
							0.35 * LC_MIB, 0.35 * LC_MIB };
		static const double half[POOL_W] = { 0, 0.5 * LC_MIB, 0.5 * LC_MIB, 0.5 * LC_MIB,
						     0.5 * LC_MIB };
		int unbounded = 0;

		pool_build(&pl, noisier, half, 70);
		pool_judge(&pl);
		for (k = 0; k < POOL_W; k++) {
			assert_int_not_equal(pl.incs[k].verdict, MW_VERDICT_FAIL);
			unbounded += pl.incs[k].unbounded;
			assert_true(pl.incs[k].unbounded || pl.incs[k].verdict == MW_VERDICT_PASS);
		}
		assert_true(unbounded >= 2);
		assert_int_equal(pl.g.r.verdict, MW_VERDICT_FAIL);
		if (strncmp(pl.g.r.reason, "5 incarnations together, none failing alone: rising ", 52))
			fail_msg("%s", pl.g.r.reason);
		pool_free(&pl);
	}
}

/* A pool whose workers each keep a little, one of them enough to fail
 * alone: the group's rate is the pool's total, not that one's (recorded,
 * the pools set: "incarnation 5 of 5: rising 553 KiB/h" for a pool
 * keeping 1.6 MiB/h); with the others quiet, the one keeps its own. */
static void group_pool_total_beyond_one(void **state)
{
	static const double scatter[POOL_W] = { 0.15 * LC_MIB, 0.15 * LC_MIB, 0.15 * LC_MIB,
						0.15 * LC_MIB, 0.02 * LC_MIB };
	static const double leaks[POOL_W] = { 0, 0.4 * LC_MIB, 0.4 * LC_MIB, 0.4 * LC_MIB,
					      0.8 * LC_MIB };
	static const double one[POOL_W] = { 0, 0, 0, 0, 0.8 * LC_MIB };
	struct pool pl;
	int others;
	size_t k;

	(void)state;
	for (others = 1; others >= 0; others--) {
		pool_build(&pl, scatter, others ? leaks : one, 80);
		pool_judge(&pl);
		assert_int_equal(pl.incs[POOL_W - 1].verdict, MW_VERDICT_FAIL);
		for (k = 0; k + 1 < POOL_W; k++)
			assert_int_equal(pl.incs[k].verdict, MW_VERDICT_PASS);
		assert_int_equal(pl.g.r.verdict, MW_VERDICT_FAIL);
		assert_int_equal(pl.g.deciding_incarnation, POOL_W - 1);
		assert_true(fabs(pl.g.steepest.slope_bph - 0.8 * LC_MIB) < 0.2 * LC_MIB);
		if (others) {
			assert_true(pl.g.pool_total);
			if (strncmp(pl.g.r.reason, "5 incarnations rising ", 22) ||
			    !strstr(pl.g.r.reason, "; alone, incarnation 5 of 5: rising "))
				fail_msg("%s", pl.g.r.reason);
			assert_true(pl.g.r.slope_bph > 1.4 * LC_MIB && pl.g.r.slope_bph < 2.8 * LC_MIB);
		} else {
			assert_false(pl.g.pool_total);
			assert_true(fabs(pl.g.r.slope_bph - 0.8 * LC_MIB) < 0.2 * LC_MIB);
		}
		pool_free(&pl);
	}
}

static void kind_selection(void **state)
{
	struct lc_shape s;
	struct mw_leak_result res;
	struct mw_trace kinds[3];
	double *kv[3], shares[3];
	size_t n = 480, i;

	(void)state;
	s = flat_shape(100 * LC_MIB, 0.5 * LC_MIB);
	kv[0] = series(&s, 1, n);	/* heap: flat */
	s.leak_bph = 12 * LC_MIB;
	kv[1] = series(&s, 2, n);	/* private data: carries it */
	s.leak_bph = 0;
	kv[2] = series(&s, 3, n);	/* stacks: flat */
	{
		double *tot = malloc(n * sizeof(*tot));
		struct mw_trace tr = { T0, LC_MIN, tot, n };
		struct mw_leak_params p;

		assert_non_null(tot);
		for (i = 0; i < n; i++)
			tot[i] = kv[0][i] + kv[1][i] + kv[2][i];
		mw_leak_params_init(&p);
		mw_leak_judge(&tr, &p, &res);
		free(tot);
	}
	assert_int_equal(res.verdict, MW_VERDICT_FAIL);
	for (i = 0; i < 3; i++) {
		kinds[i].t0_ms = T0;
		kinds[i].step_ms = LC_MIN;
		kinds[i].v = kv[i];
		kinds[i].n = n;
	}
	assert_int_equal(mw_leak_kind(kinds, 3, &res, shares), 1);
	assert_true(fabs(shares[1] - 12 * LC_MIB) < 2 * LC_MIB);
	assert_true(fabs(shares[0]) < 2 * LC_MIB);
	/* none of the kinds carries it: -1 */
	assert_int_equal(mw_leak_kind(kinds, 1, &res, NULL), -1);
	for (i = 0; i < 3; i++)
		free(kv[i]);
}

/* A short, steady leak as the end-to-end test recorded it: 256 KiB every
 * 100 ms (260 pages with malloc's own), 1 s floors of 10 Hz samples, in
 * pages above the first.  Every 24 s or so a second holds 9 allocations
 * instead of 10: residuals that look autocorrelated.  Some such runs kept
 * the corrected rank test above p 0.001 however steep the leak (this one
 * does not; tests/api/leaks.sh failed 5 checks without the dominant-rise
 * rule in leak.c and passes with it); either way it must fail. */
static void short_steady_leak_with_beat(void **state)
{
	static const int pages[] = {
		0, 260, 910, 1560, 2210, 2860, 3510, 4160, 4810, 5460, 6110, 6760, 7410, 8060,
		8710, 9360, 10010, 10660, 11310, 11960, 12610, 13260, 13910, 14495, 15145, 15795,
		16445, 17095, 17745, 18395, 19045, 19695, 20345, 20995, 21645, 22295, 22945, 23595,
		24245, 24895, 25545, 26195, 26845, 27495, 28145, 28795, 29445, 30030, 30680, 31330,
		31980, 32630, 33280, 33930, 34580, 35230, 35880, 36530,
	};
	double v[sizeof(pages) / sizeof(pages[0])];
	struct mw_trace tr = { 1763683200000LL, 1000, v, sizeof(pages) / sizeof(pages[0]) };
	struct mw_leak_params p;
	struct mw_leak_result r;
	size_t i;

	(void)state;
	for (i = 0; i < tr.n; i++)
		v[i] = 12e6 + 4096.0 * pages[i];
	mw_leak_params_init(&p);
	p.warmup_ms = 3000;
	p.min_duration_ms = 20000;
	mw_leak_judge(&tr, &p, &r);
	assert_int_equal(r.verdict, MW_VERDICT_FAIL);
	/* 650 pages a second */
	assert_true(fabs(r.slope_bph - 650 * 4096.0 * 3600) < 0.05 * 650 * 4096.0 * 3600);
	/* killed at the end: its last floor caught the teardown */
	v[tr.n - 1] = 12e6;
	mw_leak_judge(&tr, &p, &r);
	assert_int_equal(r.verdict, MW_VERDICT_FAIL);
}

/* The wall clock stepped forward an hour in the middle of a leak (NTP
 * after a VM resume): an hour of buckets without points.  Counted as
 * missing data the leak was inconclusive ("data mostly missing"); told as
 * the hole of a step (leak_steps.h), the axis closes over it and the
 * slope is the leak's own. */
static void step_forward_is_no_missing_data(void **state)
{
	enum { BEFORE = 40, HOLE = 60, AFTER = 30, N = BEFORE + HOLE + AFTER };
	double v[N], rate = 20.0 * 1048576 / 60;	/* 20 MiB/h, per minute */
	struct mw_trace tr = { T0, LC_MIN, v, N };
	struct mw_time_hole hole;
	struct mw_leak_params p;
	struct mw_leak_result r;
	struct lc_rng rng = { 11 };
	size_t i, k = 0;

	(void)state;
	for (i = 0; i < N; i++)
		v[i] = i >= BEFORE && i < BEFORE + HOLE ? NAN
							: 50e6 + rate * (double)k++ + 20e3 * lc_normal(&rng);
	mw_leak_params_init(&p);
	mw_leak_judge(&tr, &p, &r);
	assert_int_equal(r.verdict, MW_VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(r.reason, "data mostly missing"));

	/* noticed a few seconds after the first tick on the new clock */
	hole = mw_leak_hole_of_step(T0 + (BEFORE + HOLE) * LC_MIN + 3000, HOLE * 60.0);
	assert_true(hole.from_ms < T0 + (BEFORE + 1) * LC_MIN && hole.to_ms > T0 + (BEFORE + HOLE - 1) * LC_MIN);
	p.holes = &hole;
	p.nholes = 1;
	mw_leak_judge(&tr, &p, &r);
	assert_int_equal(r.verdict, MW_VERDICT_FAIL);
	assert_true(fabs(r.slope_bph - 20.0 * 1048576) < 0.1 * 20.0 * 1048576);
	assert_true(r.coverage > 0.99);
}

/* Since when, across a step of the wall clock forward: the hour the clock
 * jumped over is no time for the process, so a leak that started before
 * the step is dated where it started (on the wall clock it looks flat over
 * the hole and was dated after it), one that started after the step is
 * drawn from there (its fit was early by the step), and the growth counts
 * only the time the process lived (it counted the hour too). */
static void onset_across_a_step(void **state)
{
	enum { HOLE_AT = 45, HOLE = 60, N = 160 };
	static const int onsets[] = { 20, 35, 55 };	/* process minutes */
	double v[N], rate = 20.0 * 1048576 / 60;	/* 20 MiB/h, per minute */
	struct mw_trace tr = { T0, LC_MIN, v, N };
	struct mw_time_hole hole = mw_leak_hole_of_step(T0 + (HOLE_AT + HOLE) * LC_MIN + 3000,
							 HOLE * 60.0);
	struct mw_leak_params p;
	struct mw_leak_result r;
	struct lc_rng rng = { 3 };
	size_t o;
	int i;

	(void)state;
	mw_leak_params_init(&p);
	p.holes = &hole;
	p.nholes = 1;
	for (o = 0; o < sizeof(onsets) / sizeof(onsets[0]); o++) {
		int on = onsets[o];
		int64_t truth = T0 + (on < HOLE_AT ? on : on + HOLE) * LC_MIN;
		double lived = (double)(N - 1 - HOLE - on);	/* minutes since the onset */

		for (i = 0; i < N; i++) {
			int proc = i < HOLE_AT ? i : i - HOLE;

			v[i] = i >= HOLE_AT && i < HOLE_AT + HOLE ? NAN :
			       50e6 + rate * (proc > on ? proc - on : 0) + 20e3 * lc_normal(&rng);
		}
		mw_leak_judge(&tr, &p, &r);
		assert_int_equal(r.verdict, MW_VERDICT_FAIL);
		if (r.onset_ms == INT64_MIN || llabs(r.onset_ms - truth) > 2 * LC_MIN)
			fail_msg("onset at process minute %d: %+.1f min off (%s)", on,
				 (double)(r.onset_ms - truth) / (double)LC_MIN, r.reason);
		if (fabs(r.growth_bytes - rate * lived) > 0.15 * rate * lived)
			fail_msg("onset %d: growth %.1f MiB, truth %.1f MiB", on,
				 r.growth_bytes / 1048576, rate * lived / 1048576);
		if (on > HOLE_AT && llabs(r.fit_t0_ms - truth) > 2 * LC_MIN)
			fail_msg("onset %d: fit from %+.1f min off", on,
				 (double)(r.fit_t0_ms - truth) / (double)LC_MIN);
	}
}

static void bad_input(void **state)
{
	struct mw_leak_params p;
	struct mw_leak_result res;
	double v[600], nan_only[30];
	struct mw_trace tr = { T0, LC_MIN, v, 600 };
	size_t i;

	(void)state;
	mw_leak_params_init(&p);
	assert_true(p.warmup_ms == 10 * LC_MIN && p.budget_bytes_per_hour == 65536.0);
	assert_string_equal(mw_verdict_name(MW_VERDICT_INCONCLUSIVE), "inconclusive");
	assert_true(mw_verdict_rank(MW_VERDICT_FAIL) > mw_verdict_rank(MW_VERDICT_INCONCLUSIVE));
	assert_true(mw_verdict_rank(MW_VERDICT_INCONCLUSIVE) > mw_verdict_rank(MW_VERDICT_PASS));

	mw_leak_judge(NULL, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	tr.n = 0;
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	tr.n = 600;
	tr.step_ms = 0;
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	assert_true(strlen(res.reason) > 0);
	tr.step_ms = -5;
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	tr.step_ms = LC_MIN;

	for (i = 0; i < 30; i++)
		nan_only[i] = NAN;
	{
		struct mw_trace t2 = { T0, LC_MIN, nan_only, 30 };

		mw_leak_judge(&t2, &p, &res);
		assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	}
	/* all equal: flat, slope 0 */
	for (i = 0; i < 600; i++)
		v[i] = 123456789.0;
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_PASS);
	assert_true(res.slope_bph == 0.0);
	/* huge, negative, infinite and NaN values mixed in */
	for (i = 0; i < 600; i++)
		v[i] = (i % 7 == 0) ? 1e300 : (i % 11 == 0) ? -5.0 : (i % 13 == 0) ? INFINITY :
		       (i % 17 == 0) ? NAN : 1e9 + (double)(i % 5);
	mw_leak_judge(&tr, &p, &res);
	assert_int_not_equal(res.verdict, MW_VERDICT_FAIL);
	assert_true(strlen(res.reason) > 0);
	/* shorter than the warm-up, and too short after it */
	for (i = 0; i < 600; i++)
		v[i] = 1e8 + (double)i * 1e5;
	tr.n = 8;
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(res.reason, "warm-up"));
	tr.n = 12;
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	assert_non_null(strstr(res.reason, "too little data after warm-up: 2 min"));
	/* time axis that would overflow */
	tr.n = 600;
	tr.t0_ms = INT64_MAX - 1000;
	mw_leak_judge(&tr, &p, &res);
	assert_int_equal(res.verdict, MW_VERDICT_INCONCLUSIVE);
	/* groups with nothing in them */
	{
		struct mw_leak_group_result g;

		mw_leak_judge_group(NULL, 0, &p, NULL, &g);
		assert_int_equal(g.r.verdict, MW_VERDICT_INCONCLUSIVE);
	}
	assert_int_equal(mw_leak_kind(NULL, 0, NULL, NULL), -1);
}

MW_TEST_MAIN(
	cmocka_unit_test(theil_sen_exact_line),
	cmocka_unit_test(warm_up_from_the_process_start),
	cmocka_unit_test(sparse_samples_are_not_missing_data),
	cmocka_unit_test(theil_sen_ci_and_outliers),
	cmocka_unit_test(theil_sen_is_the_median_of_pair_slopes),
	cmocka_unit_test(theil_sen_large_fits_are_exact),
	cmocka_unit_test(selection_is_the_sorted_order),
	cmocka_unit_test(break_search_matches_every_break),
	cmocka_unit_test(basic_shapes),
	cmocka_unit_test(onset_position),
	cmocka_unit_test(group_growing_workers),
	cmocka_unit_test(releases_are_no_settling),
	cmocka_unit_test(floors_after_releases_rise),
	cmocka_unit_test(sawtooth_fill_slows_to_cap),
	cmocka_unit_test(wander_back_is_not_a_leak),
	cmocka_unit_test(group_pool_rates_add),
	cmocka_unit_test(group_pool_total_beyond_one),
	cmocka_unit_test(small_steps_that_stopped_pass),
	cmocka_unit_test(group_pool_fails_together),
	cmocka_unit_test(group_second_instance),
	cmocka_unit_test(onset_is_the_change_point),
	cmocka_unit_test(shapes_of_real_programs),
	cmocka_unit_test(creep_that_slows_is_not_a_fail),
	cmocka_unit_test(slow_staircase_waits_for_steps),
	cmocka_unit_test(too_noisy_is_not_a_pass),
	cmocka_unit_test(rising_not_yet_sure_is_not_a_pass),
	cmocka_unit_test(hinted_rise_that_may_matter_is_not_a_pass),
	cmocka_unit_test(no_rise_seen_is_a_pass_only_when_bounded),
	cmocka_unit_test(slow_rise_waits_for_an_hour),
	cmocka_unit_test(rise_in_steps_is_not_a_pass),
	cmocka_unit_test(ramp_then_flat_is_not_steady_to_the_end),
	cmocka_unit_test(filled_then_paused_is_not_steady_to_the_end),
	cmocka_unit_test(bursts_every_8_minutes_fail),
	cmocka_unit_test(settled_fill_is_not_rising),
	cmocka_unit_test(counts_have_their_own_budget),
	cmocka_unit_test(count_in_steps_is_not_a_pass),
	cmocka_unit_test(kind_selection),
	cmocka_unit_test(short_steady_leak_with_beat),
	cmocka_unit_test(step_forward_is_no_missing_data),
	cmocka_unit_test(onset_across_a_step),
	cmocka_unit_test(bad_input),
)
