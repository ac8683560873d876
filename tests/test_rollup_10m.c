/*
 * test_rollup_10m.c - the 10-minute rollup tier (issue 26: a week of 300
 * series to 1,000 buckets read 10,080 minute rows a series):
 * - a file of schema 7 gets it at start-up, filled from its stored
 *   minutes: each row reads back as the minutes it covers aggregated;
 * - the writer stores each 10 minutes when they complete, never the
 *   bucket in progress, derived from the stored minutes (and each hour
 *   from its 10 minutes), a late point counted once; a crash rebuilds
 *   the minute in progress from raw points (the bucket comes out whole
 *   at the next stop);
 * - the planner reads it for a step of a multiple of 10 minutes (the
 *   automatic step over a week is one), with the same answers as the
 *   1-minute tier at that step, and not for 11 or 15 minutes;
 * - retention keeps it as long as the minutes; the size cut takes it
 *   after every minute row and before any hour row.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "storage/query.h"
#include "storage/rollup.h"
#include "storage/schema.h"
#include "storage/store.h"
#include "tests/support/test_db.h"
#include "tests/support/test_file.h"
#include "tests/support/test_main.h"
#include "tests/support/test_reader.h"

#define DB "test_rollup_10m.tmp.db"
#define CRASHED "test_rollup_10m2.tmp.db"
#define T0 1699999200000LL	/* a whole hour */
#define MIN_MS 60000LL
#define TEN_MS 600000LL

MW_TEST_DB_FIXTURES(DB)

static void add(struct mw_store *s, const char *n, int64_t ts, double v)
{
	char key[64];
	struct mw_label l = { "n", n };

	snprintf(key, sizeof(key), "m{n=\"%s\"}", n);
	mw_store_add(s, key, "m", &l, 1, ts, v);
}

static void flush(struct mw_store *s)
{
	struct mw_err err;

	assert_int_equal(mw_store_flush(s, &err), 0);
}

/* An aggregate of points or minutes, as a rollup row holds it. */
struct agg {
	double min, max, sum, last;
	int64_t count;
};

static void agg_add(struct agg *a, double min, double max, double sum, double last,
		    int64_t count)
{
	if (!a->count) {
		a->min = min;
		a->max = max;
	}
	a->min = fmin(a->min, min);
	a->max = fmax(a->max, max);
	a->sum += sum;
	a->count += count;
	a->last = last;
}

/* The stored row of series n at bucket start ts in table (a rollup view)
 * equals a. */
static void tier_row_equals(const char *path, const char *table, const char *n, int64_t ts,
			    const struct agg *a)
{
	static const char *const col[] = { "min", "max", "sum", "last", "count" };
	const double want[] = { a->min, a->max, a->sum, a->last, (double)a->count };
	char sql[256];
	size_t i;

	for (i = 0; i < 5; i++) {
		sqlite3 *db;
		sqlite3_stmt *st;

		snprintf(sql, sizeof(sql), "SELECT r.%s FROM %s r JOIN series_label l "
			 "ON l.series_id = r.series_id AND l.name = 'n' AND l.value = '%s' "
			 "WHERE r.ts = %lld", col[i], table, n, (long long)ts);
		assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		if (fabs(sqlite3_column_double(st, 0) - want[i]) > 1e-9 * fabs(want[i]) + 1e-9)
			fail_msg("%s: %s is %.17g, want %.17g", sql, col[i],
				 sqlite3_column_double(st, 0), want[i]);
		sqlite3_finalize(st);
		sqlite3_close(db);
	}
}

static void row_equals(const char *path, const char *n, int64_t ts, const struct agg *a)
{
	tier_row_equals(path, "rollup_10m", n, ts, a);
}

/* A query of series n over [from, to] at step on tier (auto: MW_TIER_AUTO). */
static void range(struct mw_reader *r, const char *n, int64_t from, int64_t to, int64_t step,
		  enum mw_tier tier, enum mw_agg agg, size_t maxp, struct mw_range_result *res)
{
	struct mw_range_query q;
	struct mw_err err;
	char sel[64];

	snprintf(sel, sizeof(sel), "m{n=\"%s\"}", n);
	mw_range_query_init(&q, from, to);
	q.step_ms = step;
	q.tier = tier;
	q.agg = agg;
	q.max_points = maxp;
	if (mw_reader_range(r, sel, &q, res, &err))
		fail_msg("range: %s", err.msg);
	assert_int_equal(res->nseries, 1);
}

/* The tier picked and the values equal those of the 1-minute tier at the
 * same step, every aggregate (avg within rounding of the sums). */
static void same_as_minutes(struct mw_reader *r, const char *n, int64_t from, int64_t to,
			    int64_t step, size_t maxp, enum mw_tier want_tier)
{
	int agg;

	for (agg = MW_AGG_AVG; agg <= MW_AGG_LAST; agg++) {
		struct mw_range_result a, b;
		size_t j, values = 0;

		range(r, n, from, to, step, MW_TIER_AUTO, (enum mw_agg)agg, maxp, &a);
		assert_int_equal(a.tier, want_tier);
		range(r, n, from, to, a.step_ms, MW_TIER_1M, (enum mw_agg)agg, 0, &b);
		assert_int_equal(a.nt, b.nt);
		for (j = 0; j < a.nt; j++) {
			double x = a.values[0][j], y = b.values[0][j];

			assert_int_equal(a.t[j], b.t[j]);
			assert_int_equal(isnan(x), isnan(y));
			if (!isnan(x) && fabs(x - y) > 1e-9 * fabs(y) + 1e-9)
				fail_msg("bucket %zu: %.17g on the %s tier, %.17g from minutes", j,
					 x, mw_tier_name(a.tier), y);
			values += !isnan(x);
		}
		assert_true(values > 0);
		mw_range_result_release(&a);
		mw_range_result_release(&b);
	}
}

/* ---- the migration ---------------------------------------------------------- */

#define V7_MINUTES 47	/* 4 whole 10 minutes and 7 minutes */

static double v7_value(int series, int m)
{
	/* series 1: byte counts (stored as base + offsets), 2: fractions */
	return series == 1 ? 1e9 + (double)((m * 7919) % 1000) * 4096
			   : (double)((m * 7919) % 1000) / 7.0 - 3.3;
}

/* A file of schema 7 with two series' minute rows: three points a minute
 * (v, v + 1, v - 2, the last v + 1), minute 23 missing. */
static void make_v7(void)
{
	sqlite3 *db;
	sqlite3_stmt *ins;
	struct mw_err err;
	int series, m;

	assert_int_equal(sqlite3_open(DB, &db), SQLITE_OK);
	assert_int_equal(mw_schema_migrate(db, 7, &err), 0);
	assert_int_equal(mw_db_exec(db, "BEGIN;"
				    "INSERT INTO metric (id, name) VALUES (1, 'm');"
				    "INSERT INTO label (id, name, value) VALUES (1, 'n', 'a'), (2, 'n', 'b');"
				    "INSERT INTO label_set (id, labels) VALUES (1, '1'), (2, '2');"
				    "INSERT INTO label_set_member VALUES (1, 1), (2, 2);"
				    "INSERT INTO series (id, metric_id, set_id) VALUES (1, 1, 1), (2, 1, 2);",
				    &err), 0);
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO rollup_1m_data (series_id, t, base, "
					    "min, max, last, sum, count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
					    -1, &ins, NULL), SQLITE_OK);
	for (series = 1; series <= 2; series++)
		for (m = 0; m < V7_MINUTES; m++) {
			double v = v7_value(series, m);

			if (m == 23)
				continue;
			sqlite3_bind_int64(ins, 1, series);
			sqlite3_bind_int64(ins, 2, T0 / MIN_MS + m);
			mw_rollup_bind(ins, 3, v - 2, v + 1, v + 1, 3 * v - 1, 3);
			sqlite3_bind_int64(ins, 8, 3);
			assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
			sqlite3_reset(ins);
		}
	sqlite3_finalize(ins);
	assert_int_equal(mw_db_exec(db, "COMMIT", &err), 0);
	sqlite3_close(db);
}

static void migration_fills_from_minutes(void **state)
{
	struct mw_store *s;
	struct mw_reader *r;
	int series, b, m;

	(void)state;
	make_v7();
	s = mw_test_store_reopen(DB);
	assert_non_null(s);
	assert_int_equal(mw_schema_version(mw_store_db(s)), MW_SCHEMA_VERSION);
	mw_store_free(s);
	/* one row per series and 10 minutes holding minutes, the last partial */
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM rollup_10m_data"), 2 * 5);
	for (series = 1; series <= 2; series++)
		for (b = 0; b * 10 < V7_MINUTES; b++) {
			struct agg a = { 0, 0, 0, 0, 0 };

			for (m = b * 10; m < b * 10 + 10 && m < V7_MINUTES; m++) {
				double v = v7_value(series, m);

				if (m != 23)
					agg_add(&a, v - 2, v + 1, 3 * v - 1, v + 1, 3);
			}
			row_equals(DB, series == 1 ? "a" : "b", T0 + b * TEN_MS, &a);
		}
	/* integral buckets stored as the writer stores them: base and offsets */
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM rollup_10m_data WHERE "
				       "series_id = 1 AND (base < 9e8 OR min != 0)"), 0);
	/* and read as the minutes read at 10 and 30 minutes */
	r = mw_test_reader_open(DB);
	same_as_minutes(r, "a", T0, T0 + V7_MINUTES * MIN_MS - 1, TEN_MS, 0, MW_TIER_10M);
	same_as_minutes(r, "b", T0, T0 + V7_MINUTES * MIN_MS - 1, 3 * TEN_MS, 0, MW_TIER_10M);
	mw_reader_free(r);
}

/* ---- the writer -------------------------------------------------------------- */

static double point(int64_t i)
{
	return (double)((i * 7919) % 1000 + i / 100);
}

/* Points of series n at 1 Hz from second `from` to `to` (exclusive),
 * flushed every 5 s. */
static void feed(struct mw_store *s, const char *n, int64_t from, int64_t to)
{
	int64_t i;

	for (i = from; i < to; i++) {
		add(s, n, T0 + i * 1000, point(i));
		if (i % 5 == 4)
			flush(s);
	}
	flush(s);
}

/* The aggregate of the points of seconds [from, to). */
static struct agg points(int64_t from, int64_t to)
{
	struct agg a = { 0, 0, 0, 0, 0 };
	int64_t i;

	for (i = from; i < to; i++)
		agg_add(&a, point(i), point(i), point(i), point(i), 1);
	return a;
}

static void writer_stores_complete_buckets(void **state)
{
	struct mw_store *s = mw_test_store_open(DB);
	struct mw_reader *r;
	struct agg a;

	(void)state;
	assert_non_null(s);
	feed(s, "w", 0, 25 * 60 + 30);
	/* two whole 10 minutes stored, the third in progress not */
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM rollup_10m_data"), 2);
	a = points(0, 600);
	row_equals(DB, "w", T0, &a);
	a = points(600, 1200);
	row_equals(DB, "w", T0 + TEN_MS, &a);
	/* read back with the part in progress from raw: as the minutes give */
	r = mw_test_reader_open(DB);
	same_as_minutes(r, "w", T0, T0 + 1530 * 1000 - 1, TEN_MS, 0, MW_TIER_10M);
	mw_reader_free(r);
	mw_store_free(s);	/* a clean stop writes the bucket in progress */
	a = points(1200, 1530);
	row_equals(DB, "w", T0 + 2 * TEN_MS, &a);
}

static void crash_rebuilds_bucket_in_progress(void **state)
{
	struct mw_store *s = mw_test_store_open(DB);
	struct agg a;

	(void)state;
	assert_non_null(s);
	mw_test_db_remove(CRASHED);
	feed(s, "c", 0, 24 * 60 + 10);
	/* a crash now: the files as they are, opened elsewhere */
	mw_test_copy_file(DB, CRASHED);
	mw_test_copy_file(DB "-wal", CRASHED "-wal");
	mw_store_free(s);
	s = mw_test_store_reopen(CRASHED);
	assert_non_null(s);
	/* the third 10 minutes: rebuilt from the stored minutes (20-23) and
	 * the raw points after them, then completed by new points */
	feed(s, "c", 24 * 60 + 10, 31 * 60);
	a = points(1200, 1800);
	row_equals(CRASHED, "c", T0 + 2 * TEN_MS, &a);
	mw_store_free(s);
	a = points(1800, 31 * 60);
	row_equals(CRASHED, "c", T0 + 3 * TEN_MS, &a);
	mw_test_db_remove(CRASHED);
}

/*
 * The 10 minutes and the hours are derived from the stored rows of the
 * finer tier as their buckets complete (storage/rollup_acc.c): an hour is
 * the aggregate of its points, and a late point (the clock stepped back)
 * reaches a bucket derived already through a merge and a bucket still in
 * progress through its minute, each counted once.
 */
static void derived_tiers_count_every_point_once(void **state)
{
	struct mw_store *s = mw_test_store_open(DB);
	struct agg a;

	(void)state;
	assert_non_null(s);
	feed(s, "d", 0, 25 * 60);
	/* late: into the first 10 minutes (derived already) and into minute
	 * 21 (closed; its 10 minutes in progress) */
	add(s, "d", T0 + 300 * 1000 + 500, 5000);
	add(s, "d", T0 + 1260 * 1000 + 500, 7000);
	flush(s);
	feed(s, "d", 25 * 60, 65 * 60);
	a = points(0, 600);
	agg_add(&a, 5000, 5000, 5000, a.last, 1);	/* a merge keeps the row's last */
	row_equals(DB, "d", T0, &a);
	a = points(1200, 1800);
	agg_add(&a, 7000, 7000, 7000, a.last, 1);
	row_equals(DB, "d", T0 + 2 * TEN_MS, &a);
	a = points(600, 1200);
	row_equals(DB, "d", T0 + TEN_MS, &a);
	/* the first hour: every point, the late ones once */
	a = points(0, 3600);
	agg_add(&a, 5000, 5000, 5000, a.last, 1);
	agg_add(&a, 7000, 7000, 7000, a.last, 1);
	tier_row_equals(DB, "rollup_1h", "d", T0, &a);
	/* a late point into the hour derived already: merged there too */
	add(s, "d", T0 + 1800 * 1000 + 500, 9000);
	flush(s);
	agg_add(&a, 9000, 9000, 9000, a.last, 1);
	tier_row_equals(DB, "rollup_1h", "d", T0, &a);
	mw_store_free(s);
	/* the clean stop writes the buckets in progress as they stand */
	a = points(3600, 3900);
	row_equals(DB, "d", T0 + 6 * TEN_MS, &a);
	tier_row_equals(DB, "rollup_1h", "d", T0 + 6 * TEN_MS, &a);
}

/* ---- the planner --------------------------------------------------------------- */

static void planner_reads_it_for_a_week(void **state)
{
	struct mw_store *s = mw_test_store_open(DB);
	struct mw_range_result res;
	struct mw_reader *r;
	const int64_t week = 7 * 86400000LL;
	int64_t m;

	(void)state;
	assert_non_null(s);
	/* a point a minute for a week and a half hour: the same rows as 1 Hz */
	for (m = 0; m < week / MIN_MS + 30; m++) {
		add(s, "p", T0 + m * MIN_MS, 1e8 + (double)((m * 7919) % 1000) * 4096);
		if (m % 60 == 59)
			flush(s);
	}
	flush(s);
	r = mw_test_reader_open(DB);
	/* a week to 1,000 buckets: 20-minute steps from 10-minute rows (11
	 * from minute rows before the tier) */
	same_as_minutes(r, "p", T0, T0 + week - 1, 0, 1000, MW_TIER_10M);
	range(r, "p", T0, T0 + week - 1, 0, MW_TIER_AUTO, MW_AGG_AVG, 1000, &res);
	assert_int_equal(res.step_ms, 2 * TEN_MS);
	assert_int_equal(res.nt, 504);
	mw_range_result_release(&res);
	/* explicit steps: 30 min from 10-minute rows; 11 and 15 min, not
	 * multiples of it, from minute rows as before; 2 h from hours */
	same_as_minutes(r, "p", T0, T0 + week - 1, 3 * TEN_MS, 0, MW_TIER_10M);
	same_as_minutes(r, "p", T0, T0 + week - 1, 11 * MIN_MS, 0, MW_TIER_1M);
	same_as_minutes(r, "p", T0, T0 + week - 1, 15 * MIN_MS, 0, MW_TIER_1M);
	range(r, "p", T0, T0 + week - 1, 7200000, MW_TIER_AUTO, MW_AGG_MAX, 0, &res);
	assert_int_equal(res.tier, MW_TIER_1H);
	mw_range_result_release(&res);
	/* a day stays on minute rows (2-minute steps) */
	range(r, "p", T0, T0 + 86400000 - 1, 0, MW_TIER_AUTO, MW_AGG_AVG, 1000, &res);
	assert_int_equal(res.tier, MW_TIER_1M);
	assert_int_equal(res.step_ms, 2 * MIN_MS);
	mw_range_result_release(&res);
	mw_reader_free(r);
	mw_store_free(s);
}

/* ---- retention and the size cut ------------------------------------------------- */

#define DAYS 3

/* Two series with a point a minute for DAYS days, stopped cleanly (so
 * held again, as live, by the next store). */
static void three_days(void)
{
	struct mw_store *s = mw_test_store_open(DB);
	int64_t m;

	assert_non_null(s);
	for (m = 0; m < DAYS * 1440; m++) {
		add(s, "x", T0 + m * MIN_MS, 1e8 + (double)(m % 977) * 4096);
		add(s, "y", T0 + m * MIN_MS, (double)(m % 13) / 3.0);
		if (m % 60 == 59)
			flush(s);
	}
	mw_store_free(s);
}

static void retention_keeps_it_as_long_as_minutes(void **state)
{
	const int64_t end = T0 + DAYS * 86400000LL, keep = 86400000LL;
	struct mw_store_options o;
	struct mw_store *s;
	struct mw_err err;
	char sql[160];
	int i;

	(void)state;
	three_days();
	mw_test_store_options(&o, DB);
	o.retention_1m_ms = keep;
	s = mw_test_store_open_with(&o);
	assert_non_null(s);
	for (i = 0; i < 8; i++)
		assert_int_equal(mw_store_maintain(s, end, &err), 0);
	mw_store_free(s);
	/* the last day of minutes and of 10 minutes, every hour */
	snprintf(sql, sizeof(sql), "SELECT min(t) * 60000 FROM rollup_1m_data");
	assert_true(mw_test_db_int(DB, sql) >= end - keep);
	snprintf(sql, sizeof(sql), "SELECT min(t) * 600000 FROM rollup_10m_data");
	assert_int_equal(mw_test_db_int(DB, sql), end - keep);
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM rollup_10m_data"), 2 * 144);
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM rollup_1h_data"), 2 * DAYS * 24);
}

static void size_cut_takes_minutes_then_tens_then_hours(void **state)
{
	const int64_t end = T0 + DAYS * 86400000LL + MIN_MS;
	struct mw_store_options o;
	struct mw_store *s;
	struct mw_err err;
	int64_t tens, hours, n1m, n10m, n1h;
	bool tens_cut = false, hours_cut = false;
	int step;

	(void)state;
	three_days();
	tens = mw_test_db_int(DB, "SELECT count(*) FROM rollup_10m_data");
	hours = mw_test_db_int(DB, "SELECT count(*) FROM rollup_1h_data");
	assert_int_equal(tens, 2 * DAYS * 144);
	assert_int_equal(hours, 2 * DAYS * 24);
	mw_test_store_options(&o, DB);
	o.max_db_bytes = 16384;	/* less than the file can ever be */
	s = mw_test_store_open_with(&o);
	assert_non_null(s);
	sqlite3_exec(mw_store_db(s), "PRAGMA synchronous = OFF", NULL, NULL, NULL);
	for (step = 0; step < 4000 && !hours_cut; step++) {
		sqlite3 *db = mw_store_db(s);

		assert_int_equal(mw_store_maintain(s, end, &err), 0);
		n1m = mw_db_int(db, "SELECT count(*) FROM rollup_1m_all");	/* packed too */
		n10m = mw_db_int(db, "SELECT count(*) FROM rollup_10m_data");
		n1h = mw_db_int(db, "SELECT count(*) FROM rollup_1h_data");
		/* 10-minute rows go only once no minute row is left, hours
		 * only once no 10-minute row is */
		if (n10m < tens) {
			assert_int_equal(n1m, 0);
			tens_cut = true;
		}
		if (n1h < hours) {
			assert_int_equal(n10m, 0);
			hours_cut = true;
		}
	}
	assert_true(tens_cut);
	assert_true(hours_cut);
	mw_store_free(s);
}

MW_TEST_MAIN(
	MW_FIXTURE_TEST(migration_fills_from_minutes),
	MW_FIXTURE_TEST(writer_stores_complete_buckets),
	MW_FIXTURE_TEST(crash_rebuilds_bucket_in_progress),
	MW_FIXTURE_TEST(derived_tiers_count_every_point_once),
	MW_FIXTURE_TEST(planner_reads_it_for_a_week),
	MW_FIXTURE_TEST(retention_keeps_it_as_long_as_minutes),
	MW_FIXTURE_TEST(size_cut_takes_minutes_then_tens_then_hours),
)
