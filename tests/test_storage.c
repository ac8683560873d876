/* test_storage.c - the store and the read API against a real SQLite file. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <dirent.h>

#include "storage/codec.h"
#include "storage/query.h"
#include "storage/schema.h"
#include "storage/storage.h"
#include "storage/store.h"
#include "core/batch.h"
#include "base/clock.h"
#include "core/config.h"
#include "tests/support/test_db.h"
#include "tests/support/test_reader.h"
#include "tests/support/test_file.h"
#include "tests/support/test_main.h"

#define T0 1699999200000LL	/* a whole hour */
#define DB "test_storage.tmp.db"

static void remove_db(void)
{
	mw_test_db_remove(DB);
	mw_test_db_remove(DB "2");	/* copies, opened as after a crash */
	mw_test_db_remove(DB "3");
}

static int setup(void **state)
{
	(void)state;
	remove_db();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	remove_db();
	return 0;
}

static struct mw_store *open_store(uint64_t chunk_points)
{
	struct mw_store_options o;

	mw_test_store_options(&o, DB);
	o.chunk_points = (int64_t)chunk_points;
	return mw_test_store_open_with(&o);
}

static void add(struct mw_store *s, const char *pid, int64_t ts, double v)
{
	struct mw_label l[1] = { { "pid", pid } };
	char key[128];

	mw_series_key_format(key, sizeof(key), "memwatch_process_private_bytes", l, 1);
	mw_store_add(s, key, "memwatch_process_private_bytes", l, 1, ts, v);
}

static void flush(struct mw_store *s)
{
	struct mw_err err;

	if (mw_store_flush(s, &err))
		fail_msg("%s", err.msg);
}

/* Points at 1 Hz across several chunks; raw reads return all of them. */
static void raw_round_trip(void **state)
{
	struct mw_store *s = open_store(10);
	struct mw_reader *r;
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_raw_iter *it;
	struct mw_err err;
	int64_t ts, i;
	double v;

	(void)state;
	for (i = 0; i < 95; i++) {
		add(s, "1", T0 + i * 1000, (double)(i * 4096));
		add(s, "2", T0 + i * 1000, i == 50 ? NAN : 0.5 * (double)i);
	}
	flush(s);
	r = mw_test_reader_open(DB);
	mw_range_query_init(&q, T0 + 5000, T0 + 30000);
	q.step_ms = MW_STEP_RAW;
	assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes{pid=\"1\"}", &q, &res,
					 &err), 0);
	assert_int_equal(res.nseries, 1);
	assert_int_equal(res.nt, 26);
	for (i = 0; i < 26; i++) {
		assert_int_equal(res.t[i], T0 + (5 + i) * 1000);
		assert_true(res.values[0][i] == (double)((5 + i) * 4096));
	}
	mw_range_result_release(&res);

	assert_int_equal(mw_raw_iter_open(&it, r, 2, T0, T0 + 100000, &err), 0);
	for (i = 0; mw_raw_iter_next(it, &ts, &v, &err) == 1; i++) {
		assert_int_equal(ts, T0 + i * 1000);
		if (i == 50)
			assert_true(isnan(v));
		else
			assert_true(v == 0.5 * (double)i);
	}
	assert_int_equal(i, 95);
	mw_raw_iter_free(it);
	mw_reader_free(r);
	mw_store_free(s);
}

/* An open chunk's row has its true max_ts and no last_ts for its first
 * two writes (what a series that lives seconds costs), then keeps an
 * upper bound as max_ts (its index entry does not move at each flush) and its newest
 * point in last_ts; readers see the exact points and times; a store
 * closing, or opening after a crash, puts the true max_ts. */
/* The WAL is checkpointed after every eighth commit (store.c: wal_committed),
 * not after every 1,000 pages as SQLite's default does. */
static void wal_checkpointed_every_eighth_commit(void **state)
{
	struct mw_store *s = open_store(720);
	struct mw_store_stats st;
	uint64_t before;
	int i;

	(void)state;
	mw_store_get_stats(s, &st);
	before = st.checkpoints;
	for (i = 0; i < 16; i++) {
		add(s, "7", T0 + i * 1000, 100 + i);
		flush(s);
		mw_store_get_stats(s, &st);
		if (i == 7)
			assert_int_equal(st.checkpoints, before + 1);
	}
	assert_int_equal(st.checkpoints, before + 2);
	/* the 12th flush rewrote the chunk whole (MW_TAIL_FOLD_EVERY), the
	 * four after it appended their point each (storage/chunk_tail.h) */
	assert_int_equal(mw_db_int(mw_store_db(s), "SELECT npoints FROM chunk"), 12);
	assert_int_equal(mw_db_int(mw_store_db(s), "SELECT count(*) FROM chunk_tail"), 4);
	mw_store_free(s);
}

static void open_chunk_row_carries_a_bound(void **state)
{
	struct mw_store *s = open_store(720), *s2;
	struct mw_store_options o;
	struct mw_reader *r;
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_series_list sl;
	struct mw_err err;
	sqlite3 *db;
	const int64_t bound = T0 + 2 * 3600000 - 1;	/* chunk_duration 2 h */

	(void)state;
	add(s, "7", T0, 100);
	flush(s);
	db = mw_store_db(s);
	assert_int_equal(mw_db_int(db, "SELECT max_ts FROM chunk"), T0);
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM chunk WHERE last_ts IS NULL"), 1);
	add(s, "7", T0 + 250, 125);
	flush(s);
	assert_int_equal(mw_db_int(db, "SELECT max_ts FROM chunk"), T0 + 250);
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM chunk WHERE last_ts IS NULL"), 1);
	add(s, "7", T0 + 500, 150);
	flush(s);
	assert_int_equal(mw_db_int(db, "SELECT max_ts FROM chunk"), bound);
	assert_int_equal(mw_db_int(db, "SELECT last_ts FROM chunk"), T0 + 500);
	add(s, "7", T0 + 1000, 200);
	flush(s);
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM chunk"), 1);
	assert_int_equal(mw_db_int(db, "SELECT max_ts FROM chunk"), bound);
	/* from the row's third write on, a flush appends only the new bits
	 * (chunk_tail, storage/chunk_tail.h): the row is as the third left it */
	assert_int_equal(mw_db_int(db, "SELECT last_ts FROM chunk"), T0 + 500);
	assert_int_equal(mw_db_int(db, "SELECT npoints FROM chunk"), 3);
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM chunk_tail"), 1);
	r = mw_test_reader_open(DB);
	mw_range_query_init(&q, T0, T0 + 3 * 3600000);
	q.step_ms = MW_STEP_RAW;
	assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes", &q, &res, &err), 0);
	assert_int_equal(res.nseries, 1);
	assert_int_equal(res.nt, 4);
	assert_int_equal(res.t[3], T0 + 1000);
	assert_true(res.values[0][3] == 200);
	mw_range_result_release(&res);
	assert_int_equal(mw_reader_find(r, "memwatch_process_private_bytes", &sl, &err), 0);
	assert_int_equal(sl.n, 1);
	assert_int_equal(sl.items[0].last_ts, T0 + 1000);
	mw_series_list_release(&sl);
	mw_reader_free(r);
	/* a crash now: the files as they are, opened elsewhere */
	mw_test_copy_file(DB, DB "2");
	mw_test_copy_file(DB "-wal", DB "2-wal");
	mw_test_copy_file(DB, DB "3");
	mw_test_copy_file(DB "-wal", DB "3-wal");
	mw_test_store_options(&o, DB "2");
	assert_int_equal(mw_store_open(&s2, &o, &err), 0);
	/* start-up folds the tail into its chunk before anything reads it,
	 * and takes the chunk up again with its bound (series.c keep_bound) */
	db = mw_store_db(s2);
	assert_int_equal(mw_db_int(db, "SELECT max_ts FROM chunk"), bound);
	assert_int_equal(mw_db_int(db, "SELECT npoints FROM chunk"), 4);
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM chunk_tail"), 0);
	/* so its next point is a tail, as before the crash: no whole rewrite */
	add(s2, "7", T0 + 1250, 225);
	flush(s2);
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM chunk"), 1);
	assert_int_equal(mw_db_int(db, "SELECT npoints FROM chunk"), 4);
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM chunk_tail"), 1);
	r = mw_test_reader_open(DB "2");
	assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes", &q, &res, &err), 0);
	assert_int_equal(res.nseries, 1);
	assert_int_equal(res.nt, 5);
	assert_int_equal(res.t[4], T0 + 1250);
	assert_true(res.values[0][3] == 200 && res.values[0][4] == 225);
	mw_range_result_release(&res);
	mw_reader_free(r);
	mw_store_free(s2);
	assert_int_equal(sqlite3_open(DB "2", &db), SQLITE_OK);
	assert_int_equal(mw_db_int(db, "SELECT max_ts FROM chunk"), T0 + 1250);
	assert_int_equal(mw_db_int(db, "SELECT npoints FROM chunk"), 5);
	sqlite3_close(db);
	/* a bound below the one this run would put (chunk_duration grew) is
	 * not kept: the row gets its true max_ts at start-up */
	mw_test_store_options(&o, DB "3");
	o.chunk_duration_ms = 3 * 3600000;
	assert_int_equal(mw_store_open(&s2, &o, &err), 0);
	assert_int_equal(mw_db_int(mw_store_db(s2), "SELECT max_ts FROM chunk"), T0 + 1000);
	mw_store_free(s2);
	/* a store closing writes the true max_ts itself */
	mw_store_free(s);
	assert_int_equal(sqlite3_open(DB, &db), SQLITE_OK);
	assert_int_equal(mw_db_int(db, "SELECT max_ts FROM chunk"), T0 + 1000);
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM chunk WHERE last_ts IS NOT NULL"), 0);
	sqlite3_close(db);
}

static void open_chunk_visible_after_flush(void **state)
{
	struct mw_store *s = open_store(720);
	struct mw_reader *r;
	struct mw_latest_list l;
	struct mw_series_list sl;
	struct mw_err err;

	(void)state;
	add(s, "7", T0, 100);
	flush(s);
	add(s, "7", T0 + 1000, 200);
	flush(s);
	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_latest(r, NULL, &l, &err), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.items[0].ts_ms, T0 + 1000);
	assert_true(l.items[0].value == 200);
	assert_string_equal(l.items[0].info.key, "memwatch_process_private_bytes{pid=\"7\"}");
	assert_int_equal(l.items[0].info.nlabels, 1);
	assert_string_equal(l.items[0].info.labels[0].value, "7");
	mw_latest_list_release(&l);

	assert_int_equal(mw_reader_find(r, "{pid=~\"[0-9]+\"}", &sl, &err), 0);
	assert_int_equal(sl.n, 1);
	assert_int_equal(sl.items[0].first_ts, T0);
	assert_int_equal(sl.items[0].last_ts, T0 + 1000);
	mw_series_list_release(&sl);
	assert_int_equal(mw_reader_find(r, "{pid!~\"[0-9]+\"}", &sl, &err), 0);
	assert_int_equal(sl.n, 0);
	mw_series_list_release(&sl);
	assert_int_equal(mw_reader_find(r, "bad{", &sl, &err), -1);
	assert_non_null(strstr(err.msg, "bad{"));
	mw_reader_free(r);
	mw_store_free(s);
}

/* Three hours at 1 Hz: rollup tiers answer exactly what raw points give. */
static void tiers_agree_with_raw(void **state)
{
	struct mw_store *s = open_store(720);
	struct mw_reader *r;
	struct mw_range_query q;
	struct mw_range_result a, b;
	struct mw_err err;
	int64_t i, n = 3 * 3600 + 1234;
	int agg, step_i;
	size_t j;
	static const int64_t steps[] = { 60000, 600000, 3600000 };

	(void)state;
	for (i = 0; i < n; i++)
		add(s, "1", T0 + i * 1000, (double)((i * 7919) % 1000 + i / 100));
	flush(s);
	r = mw_test_reader_open(DB);
	for (step_i = 0; step_i < 3; step_i++)
		for (agg = MW_AGG_AVG; agg <= MW_AGG_LAST; agg++) {
			mw_range_query_init(&q, T0 + 90 * 1000, T0 + n * 1000);
			q.step_ms = steps[step_i];
			q.agg = (enum mw_agg)agg;
			q.tier = MW_TIER_RAW;
			assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes", &q,
							 &a, &err), 0);
			q.tier = MW_TIER_AUTO;
			assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes", &q,
							 &b, &err), 0);
			assert_int_equal(b.tier, step_i == 2 ? MW_TIER_1H :
						 step_i == 1 ? MW_TIER_10M : MW_TIER_1M);
			assert_int_equal(a.nt, b.nt);
			assert_int_equal(a.step_ms, steps[step_i]);
			for (j = 0; j < a.nt; j++) {
				assert_int_equal(a.t[j], b.t[j]);
				assert_true(fabs(a.values[0][j] - b.values[0][j]) < 1e-6);
				assert_false(isnan(a.values[0][j]));
			}
			mw_range_result_release(&a);
			mw_range_result_release(&b);
		}
	/* auto step: a day to 1000 points picks whole minutes from the 1m tier */
	mw_range_query_init(&q, T0, T0 + 86400000 - 1);
	assert_int_equal(mw_reader_range(r, "", &q, &a, &err), 0);
	assert_int_equal(a.step_ms, 120000);
	assert_int_equal(a.tier, MW_TIER_1M);
	assert_int_equal(a.nt, 720);
	assert_true(isnan(a.values[0][719]));
	mw_range_result_release(&a);
	mw_reader_free(r);
	mw_store_free(s);
}

/* An explicit step is honoured even when the range starts before the
 * series' first raw point and a 1-minute rollup row exists (the bucket
 * start is floored before that point): the API test saw step 1s come
 * back as 60000 ms from the 1m tier.  max_points never widens an
 * explicit step; AUTO switches tiers only on real expiry. */
static void explicit_step_honoured(void **state)
{
	struct mw_store *s = open_store(60);
	struct mw_reader *r;
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_err err;
	sqlite3 *db;
	int64_t i;
	size_t j;

	(void)state;
	for (i = 30; i <= 90; i++)	/* straddles the minute at T0 + 60 s */
		add(s, "1", T0 + i * 1000, (double)(i * 4096));
	for (i = 0; i < 600; i++)
		add(s, "2", T0 + i * 1000, 8192);
	flush(s);
	db = mw_store_db(s);
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM rollup_1m WHERE ts = "
				   "1699999200000"), 2);
	r = mw_test_reader_open(DB);

	mw_range_query_init(&q, T0 + 20000, T0 + 90000);
	q.step_ms = 1000;
	assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes{pid=\"1\"}", &q,
					 &res, &err), 0);
	assert_int_equal(res.step_ms, 1000);
	assert_int_equal(res.tier, MW_TIER_RAW);
	assert_int_equal(res.nt, 71);
	for (j = 0; j < res.nt; j++) {
		assert_int_equal(res.t[j], T0 + 20000 + (int64_t)j * 1000);
		if (j < 10)
			assert_true(isnan(res.values[0][j]));
		else
			assert_true(res.values[0][j] == (double)((20 + (int64_t)j) * 4096));
	}
	mw_range_result_release(&res);

	/* too many buckets for max_points: an error, not a wider step */
	q.max_points = 10;
	assert_int_equal(mw_range_query_check(&q, &err), -1);
	assert_non_null(strstr(err.msg, "step"));
	assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes{pid=\"1\"}", &q,
					 &res, &err), -1);
	assert_int_equal(res.nt, 0);
	mw_range_result_release(&res);
	/* a forced tier must divide the step */
	q.max_points = 0;
	q.tier = MW_TIER_1M;
	assert_int_equal(mw_range_query_check(&q, &err), -1);

	/* auto: a young series is not "expired" at from_ms */
	mw_range_query_init(&q, T0 + 20000, T0 + 90000);
	q.max_points = 10;
	assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes{pid=\"1\"}", &q,
					 &res, &err), 0);
	assert_int_equal(res.tier, MW_TIER_RAW);
	assert_true(res.step_ms < 60000);
	assert_true(res.nt <= 10);
	mw_range_result_release(&res);
	mw_reader_free(r);

	/* auto: raw chunks really gone at from_ms -> the 1m tier */
	assert_int_equal(mw_db_exec(db, "DELETE FROM chunk WHERE series_id = 2 AND "
				    "max_ts < 1699999500000", &err), 0);
	r = mw_test_reader_open(DB);
	mw_range_query_init(&q, T0, T0 + 599999);
	q.max_points = 20;
	assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes{pid=\"2\"}", &q,
					 &res, &err), 0);
	assert_int_equal(res.tier, MW_TIER_1M);
	assert_int_equal(res.step_ms, 60000);
	assert_true(res.values[0][0] == 8192);
	mw_range_result_release(&res);
	mw_reader_free(r);
	mw_store_free(s);
}

/*
 * A step that is not a whole number of minutes (90 s) reads the 1-minute
 * rows, each going whole into the step bucket holding its start: min,
 * max, sum and count are exact over those minutes' points.
 */
static void step_between_tiers(void **state)
{
	static const enum mw_agg aggs[] = { MW_AGG_MIN, MW_AGG_MAX, MW_AGG_AVG, MW_AGG_LAST };
	struct mw_store *s = open_store(720);
	struct mw_reader *r;
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_err err;
	double mn[8], mx[8], sum[8], last[8];
	int64_t cnt[8], i;
	size_t a, j;

	(void)state;
	for (j = 0; j < 8; j++) {
		mn[j] = INFINITY;
		mx[j] = -INFINITY;
		sum[j] = 0;
		cnt[j] = 0;
	}
	for (i = 0; i < 600; i++) {	/* 10 minutes, 1 Hz */
		double v = (double)((i * 7919) % 1000);
		int64_t ts = T0 + i * 1000;
		/* its minute's start decides its 90 s bucket */
		size_t b = (size_t)((ts / 60000 * 60000 - T0) / 90000);

		add(s, "1", ts, v);
		mn[b] = fmin(mn[b], v);
		mx[b] = fmax(mx[b], v);
		sum[b] += v;
		cnt[b]++;
		last[b] = v;
	}
	mw_store_free(s);	/* every minute rolled up */
	r = mw_test_reader_open(DB);
	for (a = 0; a < 4; a++) {
		mw_range_query_init(&q, T0, T0 + 600000 - 1);
		q.step_ms = 90000;
		q.agg = aggs[a];
		assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes{pid=\"1\"}",
						 &q, &res, &err), 0);
		assert_int_equal(res.tier, MW_TIER_1M);
		assert_int_equal(res.step_ms, 90000);
		assert_true(res.nt >= 7);
		for (j = 0; j < res.nt && j < 8; j++) {
			double want = aggs[a] == MW_AGG_MIN ? mn[j] : aggs[a] == MW_AGG_MAX ? mx[j]
				      : aggs[a] == MW_AGG_LAST ? last[j] : sum[j] / (double)cnt[j];

			assert_int_equal(res.t[j], T0 + (int64_t)j * 90000);
			if (!cnt[j])
				assert_true(isnan(res.values[0][j]));
			else
				assert_true(fabs(res.values[0][j] - want) < 1e-9);
		}
		mw_range_result_release(&res);
	}
	/* 1.5 s: below a minute, raw */
	mw_range_query_init(&q, T0, T0 + 60000 - 1);
	q.step_ms = 1500;
	assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes{pid=\"1\"}", &q,
					 &res, &err), 0);
	assert_int_equal(res.tier, MW_TIER_RAW);
	mw_range_result_release(&res);
	/* 90 min: the 1-hour tier */
	mw_range_query_init(&q, T0, T0 + 3 * 3600000 - 1);
	q.step_ms = 5400000;
	assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes{pid=\"1\"}", &q,
					 &res, &err), 0);
	assert_int_equal(res.tier, MW_TIER_1H);
	mw_range_result_release(&res);
	mw_reader_free(r);
}

/* Rollup state survives a restart: the bucket in progress is rebuilt. */
static void rollups_across_restart(void **state)
{
	struct mw_store *s = open_store(720);
	struct mw_reader *r;
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_err err;
	int64_t i;

	(void)state;
	for (i = 0; i < 90; i++)
		add(s, "1", T0 + i * 1000, 10);
	mw_store_free(s);	/* minute 1 is partial: written at close */
	s = open_store(720);
	for (i = 90; i < 180; i++)
		add(s, "1", T0 + i * 1000, 20);
	mw_store_free(s);
	r = mw_test_reader_open(DB);
	mw_range_query_init(&q, T0, T0 + 179999);
	q.step_ms = 60000;
	q.agg = MW_AGG_AVG;
	assert_int_equal(mw_reader_range(r, NULL, &q, &res, &err), 0);
	assert_int_equal(res.tier, MW_TIER_1M);
	assert_int_equal(res.nt, 3);
	assert_true(res.values[0][0] == 10);
	assert_true(res.values[0][1] == 15);
	assert_true(res.values[0][2] == 20);
	mw_range_result_release(&res);
	mw_reader_free(r);
}

/* Retention removes old raw chunks and rollups, keeps the rest. */
static void retention(void **state)
{
	struct mw_store *s = open_store(60);
	struct mw_reader *r;
	struct mw_series_list sl;
	struct mw_err err;
	int64_t now = T0 + 100LL * 86400000, i;
	sqlite3 *db;

	(void)state;
	for (i = 0; i < 600; i++)
		add(s, "1", now - 95LL * 86400000 + i * 1000, 1);	/* beyond 90 days */
	for (i = 0; i < 600; i++)
		add(s, "1", now - 8LL * 86400000 + i * 1000, 2);	/* beyond 7 days */
	for (i = 0; i < 600; i++)
		add(s, "1", now - 3600000 + i * 1000, 3);
	flush(s);
	db = mw_store_db(s);
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM chunk"), 30);
	assert_int_equal(mw_store_maintain(s, now, &err), 0);
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM chunk"), 10);
	assert_int_equal(mw_db_int(db, "SELECT min(min_ts) FROM chunk"), now - 3600000);
	/* 1m: 95-day-old rows gone, 8-day-old kept, the newest minute is in
	 * progress; 1h: everything kept (2 years), the newest hour in progress */
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM rollup_1m_all"), 19);	/* packed too */
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM rollup_1h"), 2);
	mw_store_free(s);
	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_find(r, NULL, &sl, &err), 0);
	assert_int_equal(sl.items[0].first_ts, now - 95LL * 86400000);	/* 1h tier */
	mw_series_list_release(&sl);
	mw_reader_free(r);
}

/* A version-1 file is migrated on open and its data stays readable. */
static void migration_from_v1(void **state)
{
	struct mw_chunk_enc e;
	struct mw_store *s;
	struct mw_reader *r;
	struct mw_latest_list l;
	struct mw_err err;
	sqlite3 *db;
	sqlite3_stmt *st;
	const uint8_t *blob;
	size_t len;
	int i;

	(void)state;
	assert_int_equal(sqlite3_open(DB, &db), SQLITE_OK);
	assert_int_equal(mw_schema_migrate(db, 1, &err), 0);
	assert_int_equal(mw_schema_version(db), 1);
	assert_int_equal(mw_db_exec(db, "INSERT INTO series VALUES (1, 'm', 'm', 0)", &err), 0);
	mw_chunk_enc_init(&e);
	for (i = 0; i < 5; i++)
		mw_chunk_enc_append(&e, T0 + i * 1000, i * 1.5);
	blob = mw_chunk_enc_blob(&e, &len);
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO chunk VALUES (1, 1, ?, ?, 5, ?)",
					    -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, T0);
	sqlite3_bind_int64(st, 2, T0 + 4000);
	sqlite3_bind_blob(st, 3, blob, (int)len, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	mw_chunk_enc_release(&e);
	sqlite3_close(db);

	s = open_store(720);
	assert_int_equal(mw_schema_version(mw_store_db(s)), MW_SCHEMA_VERSION);
	mw_store_free(s);
	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_latest(r, "m", &l, &err), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.items[0].ts_ms, T0 + 4000);
	assert_true(l.items[0].value == 6);
	mw_latest_list_release(&l);
	mw_reader_free(r);

	/* a newer schema is refused, not touched */
	assert_int_equal(sqlite3_open(DB, &db), SQLITE_OK);
	assert_int_equal(mw_db_exec(db, "PRAGMA user_version = 99", &err), 0);
	sqlite3_close(db);
	{
		struct mw_store_options o;

		mw_store_options_init(&o);
		o.db_path = DB;
		assert_int_equal(mw_store_open(&s, &o, &err), -1);
		assert_non_null(strstr(err.msg, "newer"));
	}
}

/* A version-2 file (newest point per chunk) gains the latest table. */
static void migration_from_v2(void **state)
{
	struct mw_chunk_enc e;
	struct mw_store *s;
	struct mw_reader *r;
	struct mw_latest_list l;
	struct mw_err err;
	sqlite3 *db;
	sqlite3_stmt *st;
	const uint8_t *blob;
	size_t len;
	int i;

	(void)state;
	assert_int_equal(sqlite3_open(DB, &db), SQLITE_OK);
	assert_int_equal(mw_schema_migrate(db, 2, &err), 0);
	assert_int_equal(mw_schema_version(db), 2);
	assert_int_equal(mw_db_exec(db, "INSERT INTO series VALUES (1, 'm', 'm', 0, 1);"
				    "INSERT INTO series VALUES (2, 'n{a=\"b\"}', 'n', 0, NULL);"
				    "INSERT INTO series_label VALUES (2, 'a', 'b');", &err), 0);
	mw_chunk_enc_init(&e);
	for (i = 0; i < 5; i++)
		mw_chunk_enc_append(&e, T0 + i * 1000, i * 1.5);
	blob = mw_chunk_enc_blob(&e, &len);
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO chunk VALUES (1, 1, ?, ?, 5, ?, ?, 6)",
					    -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, T0);
	sqlite3_bind_int64(st, 2, T0 + 4000);
	sqlite3_bind_blob(st, 3, blob, (int)len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, T0 + 4000);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	mw_chunk_enc_release(&e);
	sqlite3_close(db);

	s = open_store(720);
	db = mw_store_db(s);
	assert_int_equal(mw_schema_version(db), MW_SCHEMA_VERSION);
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM latest"), 1);
	assert_int_equal(mw_db_int(db, "SELECT ts FROM latest WHERE series_id = 1"), T0 + 4000);
	mw_store_free(s);
	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_latest(r, NULL, &l, &err), 0);
	assert_int_equal(l.n, 1);	/* n has no points */
	assert_string_equal(l.items[0].info.key, "m");
	assert_int_equal(l.items[0].ts_ms, T0 + 4000);
	assert_true(l.items[0].value == 6);
	mw_latest_list_release(&l);
	mw_reader_free(r);
}

/* A reader's series catalogue follows series added after it was opened;
 * selectors by name, by label and by regex agree with a full scan, and
 * latest values (NaN included) come from the latest table. */
static void reader_follows_new_series(void **state)
{
	struct mw_store *s = open_store(720);
	struct mw_reader *r;
	struct mw_series_list sl;
	struct mw_latest_list l;
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_err err;
	char pid[16];
	int i;

	(void)state;
	add(s, "1", T0, 1);
	flush(s);
	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_find(r, NULL, &sl, &err), 0);
	assert_int_equal(sl.n, 1);
	mw_series_list_release(&sl);
	for (i = 2; i <= 40; i++) {
		snprintf(pid, sizeof(pid), "%d", i);
		add(s, pid, T0 + 1000, i == 7 ? NAN : (double)i);
	}
	add(s, "1", T0 + 2000, 11);
	flush(s);
	assert_int_equal(mw_reader_find(r, NULL, &sl, &err), 0);
	assert_int_equal(sl.n, 40);
	for (i = 1; i < 40; i++)	/* sorted by key */
		assert_true(strcmp(sl.items[i - 1].key, sl.items[i].key) < 0);
	mw_series_list_release(&sl);
	assert_int_equal(mw_reader_find(r, "{pid=\"7\"}", &sl, &err), 0);
	assert_int_equal(sl.n, 1);
	assert_string_equal(sl.items[0].labels[0].value, "7");
	assert_int_equal(sl.items[0].first_ts, T0 + 1000);
	mw_series_list_release(&sl);
	assert_int_equal(mw_reader_find(r, "memwatch_process_private_bytes{pid=\"7\",pid!=\"7\"}",
					&sl, &err), 0);
	assert_int_equal(sl.n, 0);
	mw_series_list_release(&sl);
	assert_int_equal(mw_reader_find(r, "{__name__=~\"memwatch_.*\",pid=~\"3.\"}", &sl,
					&err), 0);
	assert_int_equal(sl.n, 10);
	mw_series_list_release(&sl);
	assert_int_equal(mw_reader_find(r, "{__name__=\"nothing\"}", &sl, &err), 0);
	assert_int_equal(sl.n, 0);
	mw_series_list_release(&sl);

	assert_int_equal(mw_reader_latest(r, NULL, &l, &err), 0);	/* one scan */
	assert_int_equal(l.n, 40);
	assert_string_equal(l.items[0].info.key, "memwatch_process_private_bytes{pid=\"1\"}");
	assert_int_equal(l.items[0].ts_ms, T0 + 2000);
	assert_true(l.items[0].value == 11);
	for (i = 0; i < 40; i++)
		if (!strcmp(l.items[i].info.labels[0].value, "7"))
			assert_true(isnan(l.items[i].value));
	mw_latest_list_release(&l);
	assert_int_equal(mw_reader_latest(r, "{pid=\"12\"}", &l, &err), 0);	/* a seek */
	assert_int_equal(l.n, 1);
	assert_true(l.items[0].value == 12);
	mw_latest_list_release(&l);

	mw_range_query_init(&q, T0, T0 + 2000);
	q.step_ms = MW_STEP_RAW;
	assert_int_equal(mw_reader_range(r, "{pid=\"1\"}", &q, &res, &err), 0);
	assert_int_equal(res.nseries, 1);
	assert_int_equal(res.nt, 2);
	assert_true(res.values[0][1] == 11);
	mw_range_result_release(&res);
	mw_reader_free(r);
	mw_store_free(s);
}

/* Rollup rows are stored compactly (base + offsets when integral) and
 * read back exactly, fractional values included; a version-3 file's
 * rollup rows are converted and read the same through the view. */
static void rollup_rows_exact(void **state)
{
	struct mw_store *s = open_store(720);
	struct mw_reader *r;
	struct mw_range_query q;
	struct mw_range_result a, b;
	struct mw_err err;
	sqlite3 *db;
	const char *sel[2] = { "memwatch_process_private_bytes{pid=\"1\"}",
			       "memwatch_process_private_bytes{pid=\"2\"}" };
	int64_t i;
	int k, agg;
	size_t j;

	(void)state;
	for (i = 0; i < 3 * 3600; i++) {
		add(s, "1", T0 + i * 1000, 1e9 + (double)((i * 7919) % 1000) * 4096);
		add(s, "2", T0 + i * 1000, (double)((i * 7919) % 1000) / 7.0 - 3.3);
	}
	flush(s);
	db = mw_store_db(s);
	/* integral buckets: the minimum as base, min offset 0, small offsets */
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM rollup_1m_data WHERE series_id = 1 "
				   "AND (typeof(min) != 'real' OR min != 0 OR base < 1e9)"), 0);
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM rollup_1m_data WHERE series_id = 2 "
				   "AND base != 0"), 0);
	/* the view gives the documented columns */
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM rollup_1m r JOIN rollup_1m_data d "
				   "ON d.series_id = r.series_id AND d.t * 60000 = r.ts "
				   "WHERE r.min > r.max OR r.avg < r.min OR r.avg > r.max "
				   "OR r.sum != r.avg * r.count AND abs(r.sum - r.avg * r.count) > 1e-3"),
			 0);
	mw_store_free(s);
	r = mw_test_reader_open(DB);
	for (k = 0; k < 2; k++)
		for (agg = MW_AGG_AVG; agg <= MW_AGG_LAST; agg++) {
			mw_range_query_init(&q, T0, T0 + 3 * 3600000 - 1);
			q.step_ms = 600000;
			q.agg = (enum mw_agg)agg;
			q.tier = MW_TIER_RAW;
			assert_int_equal(mw_reader_range(r, sel[k], &q, &a, &err), 0);
			q.tier = MW_TIER_AUTO;
			assert_int_equal(mw_reader_range(r, sel[k], &q, &b, &err), 0);
			assert_int_equal(b.tier, MW_TIER_10M);
			assert_int_equal(a.nt, b.nt);
			for (j = 0; j < a.nt; j++)
				if (agg == MW_AGG_AVG)
					assert_true(fabs(a.values[0][j] - b.values[0][j]) <=
						    1e-12 * fabs(a.values[0][j]) + 1e-12);
				else
					assert_true(a.values[0][j] == b.values[0][j]);
			mw_range_result_release(&a);
			mw_range_result_release(&b);
		}
	mw_reader_free(r);
}

static void migration_from_v3(void **state)
{
	struct mw_store *s;
	struct mw_reader *r;
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_err err;
	sqlite3 *db;

	(void)state;
	assert_int_equal(sqlite3_open(DB, &db), SQLITE_OK);
	assert_int_equal(mw_schema_migrate(db, 3, &err), 0);
	assert_int_equal(mw_db_exec(db,
		"INSERT INTO series VALUES (1, 'm', 'm', 0, NULL);"
		"INSERT INTO rollup_1m VALUES (1, 1699999200000, 4096, 12288, 8192.5, 8192, 2);"
		"INSERT INTO rollup_1m VALUES (1, 1699999260000, 0.25, 0.75, 0.5, 0.75, 3);"
		"INSERT INTO rollup_1h VALUES (1, 1699999200000, 0.25, 12288, 3277.1, 0.75, 5);"
		/* integral min, max, last but a fractional sum (1, 1.5, 2) */
		"INSERT INTO rollup_1m VALUES (1, 1699999320000, 1, 2, 1.5, 2, 3);",
		&err), 0);
	sqlite3_close(db);
	s = open_store(720);
	db = mw_store_db(s);
	assert_int_equal(mw_schema_version(db), MW_SCHEMA_VERSION);
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM rollup_1m"), 3);
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM rollup_1m WHERE ts = 1699999320000 "
				   "AND avg = 1.5 AND sum = 4.5 AND min = 1 AND max = 2"), 1);
	assert_int_equal(mw_db_int(db, "SELECT base FROM rollup_1m_data WHERE t = 28333320"), 4096);
	assert_int_equal(mw_db_int(db, "SELECT sum FROM rollup_1m_data WHERE t = 28333320"), 8193);
	assert_int_equal(mw_db_int(db, "SELECT max FROM rollup_1m WHERE ts = 1699999200000"), 12288);
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM rollup_1h WHERE ts = 1699999200000 "
				   "AND min = 0.25 AND last = 0.75 AND abs(avg - 3277.1) < 1e-9"), 1);
	mw_store_free(s);
	r = mw_test_reader_open(DB);
	mw_range_query_init(&q, T0, T0 + 119999);
	q.step_ms = 60000;
	q.tier = MW_TIER_1M;
	q.agg = MW_AGG_AVG;
	assert_int_equal(mw_reader_range(r, "m", &q, &res, &err), 0);
	assert_int_equal(res.nt, 2);
	assert_true(res.values[0][0] == 8192.5);
	assert_true(res.values[0][1] == 0.5);
	mw_range_result_release(&res);
	q.agg = MW_AGG_MAX;
	assert_int_equal(mw_reader_range(r, "m", &q, &res, &err), 0);
	assert_true(res.values[0][0] == 12288);
	assert_true(res.values[0][1] == 0.75);
	mw_range_result_release(&res);
	mw_reader_free(r);
}

/* Disk full (max_page_count): writes fail, points are held then dropped
 * and counted, and writing resumes once there is room. */
static void disk_full(void **state)
{
	struct mw_store_options o;
	struct mw_store *s;
	struct mw_store_stats st;
	struct mw_err err;
	sqlite3 *db;
	int64_t i, pages;
	char sql[64], pid[16];
	int k, failures = 0;

	(void)state;
	mw_store_options_init(&o);
	o.db_path = DB;
	o.chunk_points = 50;
	o.max_pending_points = 2000;
	o.self_metrics = false;
	assert_int_equal(mw_store_open(&s, &o, &err), 0);
	add(s, "1", T0, 1);
	flush(s);
	db = mw_store_db(s);
	pages = mw_db_int(db, "PRAGMA page_count");
	snprintf(sql, sizeof(sql), "PRAGMA max_page_count = %lld", (long long)pages);
	assert_int_equal(mw_db_exec(db, sql, &err), 0);
	for (k = 0; k < 10; k++) {
		for (i = 0; i < 1000; i++) {
			snprintf(pid, sizeof(pid), "%d", (int)(i % 40) + 100);
			add(s, pid, T0 + (k * 1000 + i / 40 + 1) * 1000, (double)(i * 131071 + k) / 3);
		}
		failures += mw_store_flush(s, &err) != 0;
	}
	assert_true(failures > 0);
	mw_store_get_stats(s, &st);
	assert_true(st.dropped_points_total > 0);
	assert_true(st.pending_points <= 2000 + 40 * 50);
	/* 40 new series may still fit the last pages' free space (schema 7
	 * series rows are small), so at most the first flush got through */
	assert_true(st.points_total <= 1 + 1000);
	assert_int_equal(mw_db_int(db, "SELECT sum(npoints) FROM chunk"), (int64_t)st.points_total);

	assert_int_equal(mw_db_exec(db, "PRAGMA max_page_count = 1000000", &err), 0);
	flush(s);
	mw_store_get_stats(s, &st);
	assert_int_equal(st.pending_points, 0);
	assert_int_equal(st.points_total + st.dropped_points_total, 1 + 10 * 1000);
	assert_int_equal(mw_db_int(db, "SELECT sum(npoints) FROM chunk"), (int64_t)st.points_total);
	mw_store_free(s);
}

/* A file that is not a database is moved aside and a new one created. */
static void corrupt_file_renamed(void **state)
{
	struct mw_store *s;
	FILE *f = fopen(DB, "wb");
	struct dirent *de;
	DIR *dir;
	sqlite3 *db;
	int i, found = 0;

	(void)state;
	assert_non_null(f);
	for (i = 0; i < 4096; i++)
		fputc("garbage!"[i % 8], f);
	fclose(f);
	s = open_store(720);
	add(s, "1", T0, 1);
	mw_store_free(s);
	assert_int_equal(sqlite3_open(DB, &db), SQLITE_OK);
	assert_int_equal(mw_db_int(db, "SELECT count(*) FROM series"), 1);
	sqlite3_close(db);
	dir = opendir(".");
	assert_non_null(dir);
	while ((de = readdir(dir)))
		if (!strncmp(de->d_name, DB ".corrupt-", strlen(DB ".corrupt-"))) {
			found++;
			remove(de->d_name);
		}
	closedir(dir);
	assert_int_equal(found, 1);
}

/* Size limit: the oldest raw chunks go first. */
static int64_t used_bytes(sqlite3 *db)
{
	return (mw_db_int(db, "PRAGMA page_count") - mw_db_int(db, "PRAGMA freelist_count")) *
	       mw_db_int(db, "PRAGMA page_size");
}

static void size_limit(void **state)
{
	struct mw_store_options o;
	struct mw_store *s;
	struct mw_err err;
	sqlite3 *db;
	int64_t i, before, used, k;

	(void)state;
	mw_test_store_options(&o, DB);
	o.chunk_points = 100;
	assert_int_equal(mw_store_open(&s, &o, &err), 0);
	for (i = 0; i < 40000; i++)
		add(s, "1", T0 + i * 1000, (double)(i * 7919 % 100003) * 0.25);
	flush(s);
	used = used_bytes(mw_store_db(s));
	mw_store_free(s);

	o.max_db_bytes = (uint64_t)used * 3 / 5;	/* the chunks are about half */
	assert_int_equal(mw_store_open(&s, &o, &err), 0);
	db = mw_store_db(s);
	before = mw_db_int(db, "SELECT count(*) FROM chunk");
	for (k = 0; k < 50; k++)
		assert_int_equal(mw_store_maintain(s, T0 + i * 1000, &err), 0);
	assert_true(mw_db_int(db, "SELECT count(*) FROM chunk") < before);
	assert_true(used_bytes(db) <= (int64_t)o.max_db_bytes);
	/* the newest chunk survives */
	assert_int_equal(mw_db_int(db, "SELECT max(max_ts) FROM chunk"), T0 + 39999 * 1000);
	mw_store_free(s);
}

/* The writer thread: submit, flush synchronously, read back, stop. */
static void writer_thread(void **state)
{
	struct mw_config cfg;
	struct mw_writer *w;
	struct mw_reader *r;
	struct mw_latest_list l;
	struct mw_store_stats st;
	struct mw_err err;
	struct mw_label lab[1] = { { "pid", "9" } };
	int64_t now = mw_clock_wall_ms() - 60000;
	int i;

	(void)state;
	mw_config_init(&cfg);
	free(cfg.db_path);
	cfg.db_path = strdup(DB);
	cfg.flush_interval_ms = 3600000;	/* only explicit flushes */
	assert_int_equal(mw_writer_start(&w, &cfg, &err), 0);
	for (i = 0; i < 20; i++) {
		struct mw_batch *b = mw_batch_new();

		mw_batch_add(b, "memwatch_process_threads", lab, 1, i, now + i * 1000);
		mw_writer_submit(w, b);
	}
	mw_writer_flush_sync(w);
	mw_writer_get_stats(w, &st);
	assert_true(st.points_total >= 20);
	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_processes(r, 0, &l, &err), 0);
	assert_int_equal(l.n, 1);
	assert_true(l.items[0].value == 19);
	assert_int_equal(l.items[0].past_ts_ms, now);
	assert_true(l.items[0].past_value == 0);
	mw_latest_list_release(&l);
	assert_int_equal(mw_reader_latest(r, "memwatch_storage_points_total", &l, &err), 0);
	assert_int_equal(l.n, 1);
	mw_latest_list_release(&l);
	mw_reader_free(r);
	mw_writer_stop(w);
	mw_config_release(&cfg);
}

/* ---- hostile queries ("Weeks unattended") ------------------------------ */

static void add_to(struct mw_store *s, const char *pid, int64_t ts, double v)
{
	add(s, pid, ts, v);
}

/* A few hours of data for three series (1-minute points). */
static void hostile_fill(void)
{
	struct mw_store *s = open_store(64);
	int64_t i;

	for (i = 0; i < 300; i++) {
		add_to(s, "1", T0 + i * 60000, (double)i);
		add_to(s, "2", T0 + i * 60000, 2.0 * (double)i);
		add_to(s, "3", T0 + i * 60000, 1000.0 - (double)i);
	}
	flush(s);
	mw_store_free(s);
}

/*
 * Regression: huge ranges, max_points 1, steps near the limits, from
 * before 1970, to far in the future.  The old auto step widened the step
 * one hour at a time and, for a range across 1970 with max_points=1,
 * never fitted: query_bucketed looped for ever.  Every one of these must
 * return (0 with a bounded axis, or -1 with a bad-request message).
 */
static void huge_ranges_terminate(void **state)
{
	static const struct {
		int64_t from, to, step;
		size_t maxp;
	} cases[] = {
		{ -2208988800000LL, T0 + 86400000, 0, 1 },		/* from=1900 */
		{ T0 - 3000LL * 604800000, T0 + 86400000, 0, 1 },	/* from=-3000w */
		{ T0 - 3000LL * 604800000, T0 + 86400000, 0, 2 },
		{ T0 - 3000LL * 604800000, T0 + 86400000, 0, 3 },
		{ -2208988800000LL, T0 + 86400000, 0, 1000 },
		{ 0, T0 + 86400000, 0, 1 },
		{ 1, MW_TIME_MAX, 0, 1 },
		{ MW_TIME_MIN, MW_TIME_MAX, 0, 1 },
		{ MW_TIME_MIN, MW_TIME_MAX, 0, 100000 },
		{ MW_TIME_MIN, MW_TIME_MAX, MW_STEP_RAW, 1 },
		{ MW_TIME_MIN, MW_TIME_MAX, MW_TIME_MAX, 0 },
		{ MW_TIME_MIN, MW_TIME_MAX, 1, 0 },			/* too many buckets */
		{ -2208988800000LL, -2177452800000LL, 0, 1 },		/* 1900 to 1901 */
		{ T0, T0 + 18000000, 0, 1 },
		{ T0 + 1, T0 + 18000000, 0, 1 },
		{ T0 - 1, T0 + 1, 0, 1 },
		{ INT64_MIN, INT64_MAX, 0, 1 },				/* out of bounds */
		{ 0, INT64_MAX, 3600000, 0 },
		{ 0, T0, INT64_MAX, 0 },
	};
	struct mw_reader *r;
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_err err;
	size_t i;

	(void)state;
	hostile_fill();
	r = mw_test_reader_open(DB);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		mw_range_query_init(&q, cases[i].from, cases[i].to);
		q.step_ms = cases[i].step;
		q.max_points = cases[i].maxp;
		rc = mw_reader_range(r, "memwatch_process_private_bytes", &q, &res, &err);
		if (rc) {
			assert_int_equal(mw_reader_error_kind(r), MW_QERR_BAD);
			assert_true(!strncmp(err.msg, "bad ", 4) || !strncmp(err.msg, "step: ", 6));
			continue;
		}
		assert_int_equal(res.nseries, 3);
		assert_true(res.nt <= (cases[i].maxp ? cases[i].maxp : MW_QUERY_MAX_POINTS));
		mw_range_result_release(&res);
	}
	/* max_points=1 from 1900: one point summarising everything stored. */
	mw_range_query_init(&q, -2208988800000LL, T0 + 86400000);
	q.max_points = 1;
	assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes{pid=\"1\"}", &q,
					 &res, &err), 0);
	assert_int_equal(res.nt, 1);
	assert_true(res.t[0] <= T0);
	assert_true(fabs(res.values[0][0] - 149.5) < 1e-9);
	mw_range_result_release(&res);
	mw_reader_free(r);
}

/* Series x points over the limit: an error naming both, before reading;
 * top keeps the limit on the series it returns. */
static void size_cap(void **state)
{
	struct mw_reader *r;
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_series_list list;
	struct mw_err err;

	(void)state;
	hostile_fill();
	r = mw_test_reader_open(DB);
	mw_range_query_init(&q, T0, T0 + 300 * 60000);
	q.step_ms = 60000;
	q.max_values = 600;	/* 3 series x 301 buckets = 903 */
	assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes", &q, &res, &err), -1);
	assert_int_equal(mw_reader_error_kind(r), MW_QERR_LIMIT);
	assert_non_null(strstr(err.msg, "3 series x 301 points is over the limit of 600 values"));
	q.step_ms = MW_STEP_RAW;
	q.max_points = 1000;
	assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes", &q, &res, &err), -1);
	assert_int_equal(mw_reader_error_kind(r), MW_QERR_LIMIT);
	/* top 1: one series of 301 buckets fits; the largest growth wins. */
	q.step_ms = 60000;
	q.max_points = 0;
	q.top = 1;
	assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes", &q, &res, &err), 0);
	assert_int_equal(mw_reader_error_kind(r), MW_QERR_NONE);
	assert_int_equal(res.nseries, 1);
	assert_int_equal(res.series_total, 3);
	assert_non_null(strstr(res.series[0].key, "pid=\"2\""));
	assert_true(fabs(res.growth[0] - 598.0) < 1e-9);
	mw_range_result_release(&res);
	/* top 2 ordered by growth, over an auto step */
	q.step_ms = MW_STEP_AUTO;
	q.max_values = 0;
	q.top = 2;
	assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes", &q, &res, &err), 0);
	assert_int_equal(res.nseries, 2);
	assert_non_null(strstr(res.series[0].key, "pid=\"2\""));
	assert_non_null(strstr(res.series[1].key, "pid=\"1\""));
	mw_range_result_release(&res);
	/* the series list */
	assert_int_equal(mw_reader_find_max(r, "memwatch_process_private_bytes", 2, &list, &err),
			 -1);
	assert_int_equal(mw_reader_error_kind(r), MW_QERR_LIMIT);
	assert_non_null(strstr(err.msg, "3 series is over the limit of 2"));
	assert_int_equal(mw_reader_find_max(r, "memwatch_process_private_bytes", 3, &list, &err),
			 0);
	assert_int_equal(list.n, 3);
	mw_series_list_release(&list);
	mw_reader_free(r);
}

/* A deadline in the past stops every call with MW_QERR_DEADLINE and
 * leaves no read transaction open; clearing it makes the reader work. */
static void deadline_stops_queries(void **state)
{
	struct mw_reader *r;
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_series_list list;
	struct mw_raw_iter *it;
	struct mw_err err;
	int64_t ts;
	double v;

	(void)state;
	hostile_fill();
	r = mw_test_reader_open(DB);
	mw_reader_set_deadline(r, mw_clock_mono_ns() - 1);
	mw_range_query_init(&q, T0, T0 + 300 * 60000);
	assert_int_equal(mw_reader_range(r, "{__name__=~\".*.*.*.*.*x|memwatch.*\"}", &q, &res,
					 &err), -1);
	assert_int_equal(mw_reader_error_kind(r), MW_QERR_DEADLINE);
	assert_non_null(strstr(err.msg, "deadline"));
	assert_int_equal(mw_reader_find(r, NULL, &list, &err), -1);
	assert_int_equal(mw_reader_error_kind(r), MW_QERR_DEADLINE);
	assert_int_equal(mw_raw_iter_open(&it, r, 1, T0, T0 + 300 * 60000, &err), 0);
	assert_int_equal(mw_raw_iter_next(it, &ts, &v, &err), -1);
	mw_raw_iter_free(it);
	mw_reader_set_deadline(r, mw_clock_mono_ns() + 60 * 1000000000LL);
	assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes", &q, &res, &err), 0);
	assert_int_equal(res.nseries, 3);
	mw_range_result_release(&res);
	mw_reader_set_deadline(r, 0);
	assert_int_equal(mw_reader_deadline(r), 0);
	assert_int_equal(mw_reader_find(r, NULL, &list, &err), 0);
	assert_int_equal(list.n, 3);
	mw_series_list_release(&list);
	mw_reader_free(r);
}

/* The queues of closed rollup rows and chunks fill at a boundary, every
 * series at once, and are empty after the flush: one that grew past 256
 * KB is given back then (it stayed resident at rest, 1 MB at 300
 * processes), a small one is kept; every queued row is written first. */
static void queues_given_back_after_flush(void **state)
{
	struct mw_store *s = open_store(720);
	struct mw_store_stats st;
	struct mw_reader *r;
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_err err;
	char pid[16];
	int i;

	(void)state;
	/* 6,000 series across an hour's boundary: 18,000 rows of 3 tiers */
	for (i = 0; i < 6000; i++) {
		snprintf(pid, sizeof(pid), "%d", i);
		add(s, pid, T0 - 1000, (double)i);
		add(s, pid, T0 + 1000, (double)i);
	}
	mw_store_get_stats(s, &st);
	assert_true(st.queue_bytes > 256 * 1024);
	flush(s);
	mw_store_get_stats(s, &st);
	assert_int_equal(st.queue_bytes, 0);
	r = mw_test_reader_open(DB);
	mw_range_query_init(&q, T0 - 3600000, T0 - 1);
	q.step_ms = 3600000;
	q.tier = MW_TIER_1H;
	assert_int_equal(mw_reader_range(r, "memwatch_process_private_bytes{pid=\"5999\"}", &q,
					 &res, &err), 0);
	assert_int_equal(res.nseries, 1);
	assert_int_equal(res.nt, 1);
	assert_true(res.values[0][0] == 5999.0);
	mw_range_result_release(&res);
	mw_reader_free(r);
	/* ten series across a minute's boundary: a small queue is kept */
	for (i = 0; i < 10; i++) {
		snprintf(pid, sizeof(pid), "%d", i);
		add(s, pid, T0 + 61000, (double)i);
	}
	flush(s);
	mw_store_get_stats(s, &st);
	assert_true(st.queue_bytes > 0 && st.queue_bytes <= 256 * 1024);
	mw_store_free(s);
}

MW_TEST_MAIN(
	MW_FIXTURE_TEST(raw_round_trip),
	MW_FIXTURE_TEST(open_chunk_visible_after_flush),
	MW_FIXTURE_TEST(open_chunk_row_carries_a_bound),
	MW_FIXTURE_TEST(wal_checkpointed_every_eighth_commit),
	MW_FIXTURE_TEST(tiers_agree_with_raw),
	MW_FIXTURE_TEST(explicit_step_honoured),
	MW_FIXTURE_TEST(step_between_tiers),
	MW_FIXTURE_TEST(rollups_across_restart),
	MW_FIXTURE_TEST(retention),
	MW_FIXTURE_TEST(migration_from_v1),
	MW_FIXTURE_TEST(migration_from_v2),
	MW_FIXTURE_TEST(migration_from_v3),
	MW_FIXTURE_TEST(rollup_rows_exact),
	MW_FIXTURE_TEST(reader_follows_new_series),
	MW_FIXTURE_TEST(disk_full),
	MW_FIXTURE_TEST(corrupt_file_renamed),
	MW_FIXTURE_TEST(size_limit),
	MW_FIXTURE_TEST(writer_thread),
	MW_FIXTURE_TEST(huge_ranges_terminate),
	MW_FIXTURE_TEST(size_cap),
	MW_FIXTURE_TEST(deadline_stops_queries),
	MW_FIXTURE_TEST(queues_given_back_after_flush),
)
