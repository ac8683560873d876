/*
 * test_reader_snapshot.c - a held read snapshot (storage/query.h,
 * mw_reader_snapshot_begin/end): calls between begin and end share one
 * read transaction, so what the writer commits meanwhile is not seen
 * until the outermost end; pairs nest; without a snapshot each call sees
 * the newest commit.  The leak judgement holds one while it finds its
 * series and while it judges each group (thousands of small reads, a
 * BEGIN and COMMIT each before).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <sqlite3.h>

#include "storage/query.h"
#include "storage/query_impl.h"
#include "storage/store.h"
#include "core/batch.h"
#include "tests/support/test_db.h"
#include "tests/support/test_main.h"

#define DB "test_reader_snapshot.tmp.db"
#define METRIC "memwatch_process_private_bytes"
#define T0 1699999200000LL

MW_TEST_DB_FIXTURES(DB)

/* one point of the one series, committed */
static void put(struct mw_store *s, int64_t ts, double v)
{
	struct mw_label l = { "pid", "7" };
	char key[96];
	struct mw_err err;

	mw_series_key_format(key, sizeof(key), METRIC, &l, 1);
	mw_store_add(s, key, METRIC, &l, 1, ts, v);
	if (mw_store_flush(s, &err))
		fail_msg("flush: %s", err.msg);
}

/* the newest value the reader sees of the one series */
static double newest(struct mw_reader *r)
{
	struct mw_latest_list l = { 0 };
	struct mw_err err;
	double v;

	if (mw_reader_latest(r, METRIC, &l, &err))
		fail_msg("latest: %s", err.msg);
	assert_int_equal(l.n, 1);
	v = l.items[0].value;
	mw_latest_list_release(&l);
	return v;
}

static void a_held_snapshot_spans_calls_and_nests(void **state)
{
	struct mw_store *s = mw_test_store_open(DB);
	struct mw_reader *r;
	struct mw_err err;

	(void)state;
	assert_non_null(s);
	put(s, T0, 1);
	assert_int_equal(mw_reader_open(&r, DB, &err), 0);

	/* no snapshot: every call sees the newest commit */
	assert_true(newest(r) == 1);
	put(s, T0 + 1000, 2);
	assert_true(newest(r) == 2);

	/* held: a commit in between is not seen, nested pairs included */
	assert_int_equal(mw_reader_snapshot_begin(r, &err), 0);
	assert_true(newest(r) == 2);
	put(s, T0 + 2000, 3);
	assert_true(newest(r) == 2);
	assert_int_equal(mw_reader_snapshot_begin(r, &err), 0);
	put(s, T0 + 3000, 4);
	assert_true(newest(r) == 2);
	mw_reader_snapshot_end(r);	/* the inner end leaves it held */
	assert_true(newest(r) == 2);
	mw_reader_snapshot_end(r);	/* the outermost ends it */
	assert_true(newest(r) == 4);

	/* an end too many is harmless: the next call starts its own */
	mw_reader_snapshot_end(r);
	put(s, T0 + 4000, 5);
	assert_true(newest(r) == 5);

	mw_reader_free(r);
	mw_store_free(s);
}

/* mw_reader_fill_spans: the first points of series known from
 * mw_reader_latest, as mw_reader_series_by_id reads them */
static void spans_of_known_series(void **state)
{
	struct mw_store *s = mw_test_store_open(DB);
	struct mw_latest_list l = { 0 };
	struct mw_series_info by_id;
	struct mw_reader *r;
	struct mw_err err;

	(void)state;
	assert_non_null(s);
	put(s, T0 + 5000, 1);
	put(s, T0 + 6000, 2);
	put(s, T0 + 9000, 3);
	assert_int_equal(mw_reader_open(&r, DB, &err), 0);
	assert_int_equal(mw_reader_latest(r, METRIC, &l, &err), 0);
	assert_int_equal(l.n, 1);
	l.items[0].info.first_ts = l.items[0].info.last_ts = INT64_MIN;
	assert_int_equal(mw_reader_fill_spans(r, &l.items[0].info, 1, &err), 0);
	assert_true(l.items[0].info.first_ts == T0 + 5000);
	assert_true(l.items[0].info.last_ts == INT64_MIN);	/* the caller has it */
	assert_true(l.items[0].ts_ms == T0 + 9000);
	assert_int_equal(mw_reader_series_by_id(r, l.items[0].info.id, &by_id, &err), 0);
	assert_true(by_id.first_ts == l.items[0].info.first_ts);
	assert_true(by_id.last_ts == l.items[0].ts_ms);
	assert_string_equal(by_id.key, l.items[0].info.key);
	mw_series_info_release(&by_id);
	mw_latest_list_release(&l);
	mw_reader_free(r);
	mw_store_free(s);
}

static int64_t cache_size_of(struct mw_reader *r)
{
	sqlite3_stmt *st;
	int64_t v = 0;

	assert_int_equal(sqlite3_prepare_v2(mw_reader_sqlite(r), "PRAGMA cache_size", -1, &st,
					    NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* A reader's own page cache (the background judge's, smaller than the
 * default), passed on to the reader opened like it to share its work. */
static void a_reader_cache_of_its_own(void **state)
{
	struct mw_store *s = mw_test_store_open(DB);
	struct mw_reader *r, *twin, *plain;
	struct mw_err err;

	(void)state;
	assert_non_null(s);
	put(s, T0, 1);
	mw_reader_set_default_cache(1u << 20);
	assert_int_equal(mw_reader_open(&r, DB, &err), 0);
	assert_int_equal(cache_size_of(r), -1024);
	mw_reader_set_cache(r, 256u << 10);
	assert_int_equal(cache_size_of(r), -256);
	assert_int_equal(mw_reader_open_like(&twin, r, &err), 0);
	assert_int_equal(cache_size_of(twin), -256);
	assert_int_equal(mw_reader_open(&plain, DB, &err), 0);
	assert_int_equal(cache_size_of(plain), -1024);
	mw_reader_free(plain);
	mw_reader_free(twin);
	mw_reader_free(r);
	mw_reader_set_default_cache(0);
	mw_store_free(s);
}

MW_TEST_MAIN(
	MW_FIXTURE_TEST(a_held_snapshot_spans_calls_and_nests),
	MW_FIXTURE_TEST(spans_of_known_series),
	MW_FIXTURE_TEST(a_reader_cache_of_its_own),
)
