/*
 * test_leak_bound.c - a resident fail that only fills memory committed
 * before it passes; every other shape of the same rise stays a fail
 * (analysis/leak_bound.c, issue 20: ok_cache's fragmentation creep).
 *
 * One hour at 1-minute floors: resident private memory rising 1 MiB/h
 * from 30 MiB, judged with the defaults (a fail), then held against
 * committed traces built for each case.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/leak.h"

#define N 60
#define STEP 60000LL
#define T0 1790000000000LL
#define MIB 1048576.0
#define KIB 1024.0

static double resident[N], committed[N], flat_resident[N];

/* 30 MiB + 1 MiB/h, with a page of wobble so it is no ruler line. */
static void build_resident(void)
{
	int i;

	for (i = 0; i < N; i++) {
		resident[i] = 30 * MIB + MIB * i / 60.0 + (i % 3) * 4096.0;
		flat_resident[i] = 30 * MIB;
	}
}

static struct mw_trace trace_of(const double *v)
{
	return (struct mw_trace){ T0, STEP, v, N };
}

/* The fail every case starts from. */
static void judged(struct mw_leak_params *p, struct mw_leak_result *r)
{
	struct mw_trace tr = trace_of(resident);

	mw_leak_params_init(p);
	mw_leak_judge(&tr, p, r);
	assert_int_equal(r->verdict, MW_VERDICT_FAIL);
}

static void committed_flat_with(double headroom)
{
	int i;

	for (i = 0; i < N; i++)
		committed[i] = i < 5 ? 20 * MIB : resident[N - 1] + headroom;
}

static void bounded_rise_passes(void **state)
{
	struct mw_leak_params p;
	struct mw_leak_result r;
	struct mw_trace c, res = trace_of(resident);

	(void)state;
	judged(&p, &r);
	committed_flat_with(256 * KIB);
	c = trace_of(committed);
	assert_int_equal(mw_leak_commit_bound(&c, &res, &p, &r), 1);
	assert_int_equal(r.verdict, MW_VERDICT_PASS);
	/* a pass reads like no leak: no rate, no projection */
	assert_true(isnan(r.slope_bph));
	assert_true(r.projected_bytes == 0.0);
	assert_non_null(strstr(r.reason, "at most 256 KiB more"));
	assert_non_null(strstr(r.reason, "filling memory it committed before"));
}

/* lk_slow's shape: glibc extends the heap 128 KiB at a time as the leak
 * grows, so committed follows the rise in steps. */
static void committed_growing_in_steps_still_fails(void **state)
{
	struct mw_leak_params p;
	struct mw_leak_result r;
	struct mw_trace c, res = trace_of(resident);
	int i;

	(void)state;
	judged(&p, &r);
	for (i = 0; i < N; i++)
		committed[i] = 30 * MIB + 128 * KIB * (1 + i / 7);
	c = trace_of(committed);
	assert_int_equal(mw_leak_commit_bound(&c, &res, &p, &r), 0);
	assert_int_equal(r.verdict, MW_VERDICT_FAIL);
}

/* A leak inside a region committed in advance: far more left to fill
 * than the budget allows over the horizon (64 KiB/h x 24 h). */
static void large_headroom_still_fails(void **state)
{
	struct mw_leak_params p;
	struct mw_leak_result r;
	struct mw_trace c, res = trace_of(resident);

	(void)state;
	judged(&p, &r);
	committed_flat_with(64 * MIB);
	c = trace_of(committed);
	assert_int_equal(mw_leak_commit_bound(&c, &res, &p, &r), 0);
	assert_int_equal(r.verdict, MW_VERDICT_FAIL);
	/* just over budget x horizon (1.5 MiB): still a fail */
	committed_flat_with(1.6 * MIB);
	assert_int_equal(mw_leak_commit_bound(&c, &res, &p, &r), 0);
	committed_flat_with(1.4 * MIB);
	assert_int_equal(mw_leak_commit_bound(&c, &res, &p, &r), 1);
}

/* The judged series grew, the private mappings' resident pages did not
 * (it grew elsewhere: swap, a writable image): nothing bounds it. */
static void growth_outside_the_mappings_still_fails(void **state)
{
	struct mw_leak_params p;
	struct mw_leak_result r;
	struct mw_trace c, res = trace_of(flat_resident);

	(void)state;
	judged(&p, &r);
	committed_flat_with(256 * KIB);
	c = trace_of(committed);
	assert_int_equal(mw_leak_commit_bound(&c, &res, &p, &r), 0);
	assert_int_equal(r.verdict, MW_VERDICT_FAIL);
}

/* Committed read stopped 10 minutes before the end: no bound from it. */
static void stale_committed_still_fails(void **state)
{
	struct mw_leak_params p;
	struct mw_leak_result r;
	struct mw_trace c, res = trace_of(resident);
	int i;

	(void)state;
	judged(&p, &r);
	committed_flat_with(256 * KIB);
	for (i = N - 10; i < N; i++)
		committed[i] = NAN;
	c = trace_of(committed);
	assert_int_equal(mw_leak_commit_bound(&c, &res, &p, &r), 0);
	assert_int_equal(r.verdict, MW_VERDICT_FAIL);
}

/* Only fails of bytes: a pass, and a count, are left alone. */
static void only_byte_fails(void **state)
{
	struct mw_leak_params p;
	struct mw_leak_result r;
	struct mw_trace c, res = trace_of(resident);

	(void)state;
	judged(&p, &r);
	committed_flat_with(256 * KIB);
	c = trace_of(committed);
	p.count_unit = "handles";
	assert_int_equal(mw_leak_commit_bound(&c, &res, &p, &r), 0);
	p.count_unit = NULL;
	r.verdict = MW_VERDICT_INCONCLUSIVE;
	assert_int_equal(mw_leak_commit_bound(&c, &res, &p, &r), 0);
	assert_int_equal(r.verdict, MW_VERDICT_INCONCLUSIVE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bounded_rise_passes),
		cmocka_unit_test(committed_growing_in_steps_still_fails),
		cmocka_unit_test(large_headroom_still_fails),
		cmocka_unit_test(growth_outside_the_mappings_still_fails),
		cmocka_unit_test(stale_committed_still_fails),
		cmocka_unit_test(only_byte_fails),
	};

	build_resident();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
