/*
 * test_query_multi.c - mw_reader_range_multi (storage/query_range.c), the
 * read behind /api/v1/query with match= repeated: on random data its
 * values are exactly those of one mw_reader_range per series, on the
 * same time axis, for every aggregation, tier and step kind; a series
 * matched twice is read once; a bad selector is a clear error.  And the
 * rollup reads, which fetch only the aggregation's column, give what the
 * raw points give: min, max and last bit for bit, avg to rounding.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "storage/query.h"
#include "storage/store.h"
#include "core/batch.h"
#include "tests/support/test_db.h"
#include "tests/support/test_reader.h"
#include "tests/support/test_main.h"
#include "tests/support/xorshift.h"

#define T0 1699999200000LL	/* a whole hour */
#define DB "test_query_multi.tmp.db"
#define METRIC "memwatch_process_private_bytes"
#define NPID 12
#define HOURS 5

MW_TEST_DB_FIXTURES(DB)

/* Series pid of METRIC: its key and label, made once. */
static char pid_text[NPID][8], pid_key[NPID][96];
static struct mw_label pid_label[NPID];

static void point(struct mw_store *s, int pid, int64_t ts, double v)
{
	if (!pid_label[pid].name) {
		snprintf(pid_text[pid], sizeof(pid_text[pid]), "%d", pid);
		pid_label[pid].name = "pid";
		pid_label[pid].value = pid_text[pid];
		mw_series_key_format(pid_key[pid], sizeof(pid_key[pid]), METRIC, &pid_label[pid], 1);
	}
	mw_store_add(s, pid_key[pid], METRIC, &pid_label[pid], 1, ts, v);
}

/* NPID series over HOURS hours: random gaps (1-40 s), random values,
 * some series starting late or ending early; flushed every 10 minutes so
 * rollups exist and the newest stretch stays raw. */
static void fill(void)
{
	struct mw_store *s = mw_test_store_open(DB);
	uint64_t rng = 0x2545f4914f6cdd1dULL;
	int64_t next[NPID], end = T0 + HOURS * 3600000LL, t;
	double v[NPID];
	struct mw_err err;
	int p;

	for (p = 0; p < NPID; p++) {
		next[p] = T0 + (int64_t)(mw_xorshift(&rng) % (p % 3 ? 60000 : 5400000));
		v[p] = 1e6 * (p + 1);
	}
	for (t = T0; t < end; t += 600000) {
		for (p = 0; p < NPID; p++) {
			int64_t stop = p % 4 == 1 ? end - 3600000 : end;

			for (; next[p] < t + 600000 && next[p] < stop;
			     next[p] += 1000 * (int64_t)(1 + mw_xorshift(&rng) % 40)) {
				v[p] += (double)((int64_t)(mw_xorshift(&rng) % 20001) - 10000) / 8.0;
				point(s, p, next[p], v[p]);
			}
		}
		if (mw_store_flush(s, &err))
			fail_msg("%s", err.msg);
	}
	mw_store_free(s);
}

static bool same_double(double a, double b)
{
	return (isnan(a) && isnan(b)) || memcmp(&a, &b, sizeof(a)) == 0;
}

static void compare(struct mw_reader *r, const struct mw_range_query *q)
{
	char sel[NPID][64];
	const char *sels[NPID];
	struct mw_range_result all, one;
	struct mw_err err;
	size_t i, j;
	int p;

	for (p = 0; p < NPID; p++) {
		snprintf(sel[p], sizeof(sel[p]), METRIC "{pid=\"%d\"}", p);
		sels[p] = sel[p];
	}
	if (mw_reader_range_multi(r, sels, NPID, q, &all, &err))
		fail_msg("multi: %s", err.msg);
	assert_int_equal(all.nseries, NPID);
	for (p = 0; p < NPID; p++) {
		if (mw_reader_range(r, sel[p], q, &one, &err))
			fail_msg("one: %s", err.msg);
		assert_int_equal(one.nseries, 1);
		assert_int_equal(all.series[p].id, one.series[0].id);
		/* Bucketed reads share one axis whatever the series; a raw
		 * read's axis is the union of the points' timestamps. */
		if (all.step_ms != MW_STEP_RAW) {
			assert_int_equal(one.step_ms, all.step_ms);
			assert_int_equal(one.tier, all.tier);
			assert_int_equal(one.nt, all.nt);
			for (j = 0; j < one.nt; j++) {
				assert_int_equal(one.t[j], all.t[j]);
				assert_true(same_double(one.values[0][j], all.values[p][j]));
			}
		} else {
			for (i = 0, j = 0; i < one.nt; i++) {
				while (j < all.nt && all.t[j] < one.t[i])
					j++;
				assert_true(j < all.nt && all.t[j] == one.t[i]);
				assert_true(same_double(one.values[0][i], all.values[p][j]));
			}
		}
		mw_range_result_release(&one);
	}
	mw_range_result_release(&all);
}

static void multi_equals_one_by_one(void **state)
{
	enum mw_agg aggs[4] = { MW_AGG_MIN, MW_AGG_MAX, MW_AGG_AVG, MW_AGG_LAST };
	int64_t steps[5] = { MW_STEP_AUTO, 60000, 90000, 660000, 3600000 };
	struct mw_range_query q;
	struct mw_reader *r;
	int a, k;

	(void)state;
	fill();
	r = mw_test_reader_open(DB);
	for (a = 0; a < 4; a++)
		for (k = 0; k < 5; k++) {
			mw_range_query_init(&q, T0 + 123456, T0 + HOURS * 3600000LL - 7);
			q.agg = aggs[a];
			q.step_ms = steps[k];
			q.max_points = k ? 0 : 100;
			compare(r, &q);
		}
	mw_range_query_init(&q, T0 + 3 * 3600000LL, T0 + 3 * 3600000LL + 300000);
	q.step_ms = MW_STEP_RAW;
	compare(r, &q);
	mw_reader_free(r);
}

/* Each series' buckets from tier against the same buckets from raw. */
static void tier_equals_raw(struct mw_reader *r, enum mw_tier tier, int64_t step, enum mw_agg agg)
{
	struct mw_range_query q;
	struct mw_range_result rolled, raw;
	struct mw_err err;
	size_t i, j, filled = 0;

	mw_range_query_init(&q, T0, T0 + HOURS * 3600000LL - 1);
	q.step_ms = step;
	q.agg = agg;
	q.tier = tier;
	if (mw_reader_range(r, METRIC, &q, &rolled, &err))
		fail_msg("tier: %s", err.msg);
	assert_int_equal(rolled.tier, tier);
	q.tier = MW_TIER_RAW;
	if (mw_reader_range(r, METRIC, &q, &raw, &err))
		fail_msg("raw: %s", err.msg);
	assert_int_equal(rolled.nseries, raw.nseries);
	assert_int_equal(rolled.nt, raw.nt);
	for (i = 0; i < raw.nseries; i++)
		for (j = 0; j < raw.nt; j++) {
			double a = rolled.values[i][j], b = raw.values[i][j];

			assert_int_equal(isnan(a), isnan(b));
			if (isnan(b))
				continue;
			filled++;
			if (agg == MW_AGG_AVG)
				assert_true(fabs(a - b) <= 1e-9 * fabs(b));
			else
				assert_true(same_double(a, b));
		}
	assert_true(filled > 0);
	mw_range_result_release(&rolled);
	mw_range_result_release(&raw);
}

static void rollup_reads_equal_raw(void **state)
{
	enum mw_agg aggs[4] = { MW_AGG_MIN, MW_AGG_MAX, MW_AGG_AVG, MW_AGG_LAST };
	struct mw_reader *r;
	int a;

	(void)state;
	fill();
	r = mw_test_reader_open(DB);
	for (a = 0; a < 4; a++) {
		tier_equals_raw(r, MW_TIER_1M, 60000, aggs[a]);
		tier_equals_raw(r, MW_TIER_1M, 660000, aggs[a]);
		tier_equals_raw(r, MW_TIER_1H, 3600000, aggs[a]);
	}
	mw_reader_free(r);
}

static void a_series_matched_twice_is_read_once(void **state)
{
	const char *sels[3] = { METRIC "{pid=\"3\"}", METRIC, METRIC "{pid=\"3\"}" };
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_reader *r;
	struct mw_err err;

	(void)state;
	fill();
	r = mw_test_reader_open(DB);
	mw_range_query_init(&q, T0, T0 + HOURS * 3600000LL - 1);
	q.step_ms = 3600000;
	assert_int_equal(mw_reader_range_multi(r, sels, 3, &q, &res, &err), 0);
	assert_int_equal(res.nseries, NPID);
	assert_string_equal(res.series[0].labels[0].value, "3");
	mw_range_result_release(&res);
	mw_reader_free(r);
}

static void a_bad_selector_is_an_error(void **state)
{
	const char *sels[2] = { METRIC, METRIC "{pid=" };
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_reader *r;
	struct mw_err err = { "" };

	(void)state;
	fill();
	r = mw_test_reader_open(DB);
	mw_range_query_init(&q, T0, T0 + 3600000);
	assert_int_equal(mw_reader_range_multi(r, sels, 2, &q, &res, &err), -1);
	assert_true(err.msg[0] != '\0');
	assert_int_equal(res.nseries, 0);
	/* the reader is usable afterwards */
	assert_int_equal(mw_reader_range_multi(r, sels, 1, &q, &res, &err), 0);
	mw_range_result_release(&res);
	mw_reader_free(r);
}

/* mw_reader_range_known (the judge's read of series it has found) gives
 * the values and axis of mw_reader_range_ids bit for bit, without looking
 * the series up again; an id that names no series reads as no data, not
 * an error.  mw_reader_series_identity names a series without its span;
 * the span mw_reader_find gives is the one mw_reader_series_by_id gives
 * (the newest point from the raw chunks when there are any). */
static void known_series_read_as_by_id(void **state)
{
	enum mw_agg aggs[2] = { MW_AGG_MIN, MW_AGG_AVG };
	int64_t steps[3] = { 60000, 660000, 3600000 }, ids[NPID + 1];
	struct mw_series_info known[NPID + 1], one;
	struct mw_range_result a, b;
	struct mw_series_list list;
	struct mw_range_query q;
	struct mw_reader *r;
	struct mw_err err;
	size_t i, j;
	int g, k;

	(void)state;
	fill();
	r = mw_test_reader_open(DB);
	if (mw_reader_find(r, METRIC, &list, &err))
		fail_msg("find: %s", err.msg);
	assert_int_equal(list.n, NPID);
	for (i = 0; i < list.n; i++) {
		ids[i] = list.items[i].id;
		known[i] = list.items[i];
		assert_int_equal(mw_reader_series_by_id(r, ids[i], &one, &err), 0);
		assert_int_equal(one.first_ts, list.items[i].first_ts);
		assert_int_equal(one.last_ts, list.items[i].last_ts);
		assert_true(one.last_ts > T0);
		mw_series_info_release(&one);
		assert_int_equal(mw_reader_series_identity(r, ids[i], &one, &err), 0);
		assert_string_equal(one.key, list.items[i].key);
		assert_true(one.first_ts == INT64_MIN && one.last_ts == INT64_MIN);
		mw_series_info_release(&one);
	}
	for (g = 0; g < 2; g++)
		for (k = 0; k < 3; k++) {
			mw_range_query_init(&q, T0 + 123456, T0 + HOURS * 3600000LL - 7);
			q.agg = aggs[g];
			q.step_ms = steps[k];
			if (mw_reader_range_ids(r, ids, list.n, &q, &a, &err) ||
			    mw_reader_range_known(r, known, list.n, &q, &b, &err))
				fail_msg("range: %s", err.msg);
			assert_int_equal(a.nseries, b.nseries);
			assert_int_equal(a.nt, b.nt);
			assert_int_equal(a.tier, b.tier);
			for (j = 0; j < a.nt; j++)
				assert_int_equal(a.t[j], b.t[j]);
			for (i = 0; i < a.nseries; i++) {
				bool any = false;

				assert_int_equal(a.series[i].id, b.series[i].id);
				for (j = 0; j < a.nt; j++) {
					assert_true(same_double(a.values[i][j], b.values[i][j]));
					any = any || !isnan(b.values[i][j]);
				}
				assert_true(any);
			}
			mw_range_result_release(&a);
			mw_range_result_release(&b);
		}
	/* an id no series has: no data, no error */
	memset(&known[NPID], 0, sizeof(known[NPID]));
	known[NPID].id = 987654321;
	known[NPID].first_ts = T0;
	known[NPID].last_ts = T0 + 3600000;
	mw_range_query_init(&q, T0, T0 + 3600000);
	q.step_ms = 600000;
	assert_int_equal(mw_reader_range_known(r, &known[NPID], 1, &q, &b, &err), 0);
	assert_int_equal(b.nseries, 1);
	for (j = 0; j < b.nt; j++)
		assert_true(isnan(b.values[0][j]));
	mw_range_result_release(&b);
	mw_series_list_release(&list);
	mw_reader_free(r);
}

MW_TEST_MAIN(
	MW_FIXTURE_TEST(multi_equals_one_by_one),
	MW_FIXTURE_TEST(rollup_reads_equal_raw),
	MW_FIXTURE_TEST(a_series_matched_twice_is_read_once),
	MW_FIXTURE_TEST(a_bad_selector_is_an_error),
	MW_FIXTURE_TEST(known_series_read_as_by_id),
)
