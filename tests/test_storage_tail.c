/*
 * test_storage_tail.c - the bits a flush appends to chunk_tail instead of
 * rewriting the open chunks (storage/chunk_tail.h): every reader lays
 * them over the chunk rows, a chunk rewritten whole since (a fold, a
 * close, an integer chunk turned float) reads the same, a tail whose
 * chunk row is gone is ignored, and start-up folds them into the chunks.
 *
 * Each check reads one series back through the raw range query, the raw
 * iterator (export, the forwarder), the series list's last_ts and the
 * latest values (/metrics, the process table).
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "storage/chunk_tail.h"
#include "storage/codec.h"
#include "storage/query.h"
#include "storage/store.h"
#include "tests/support/test_db.h"
#include "tests/support/test_file.h"
#include "tests/support/test_main.h"
#include "tests/support/test_reader.h"

#define DB "test_storage_tail.tmp.db"
#define DB2 "test_storage_tail.tmp.db2"	/* a copy, opened as after a crash */
#define T0 1699999200000LL
#define METRIC "memwatch_process_private_bytes"

static int setup(void **state)
{
	(void)state;
	mw_test_db_remove(DB);
	mw_test_db_remove(DB2);
	return 0;
}

static int teardown(void **state)
{
	return setup(state);
}

static struct mw_store *open_store(const char *path, int64_t chunk_points)
{
	struct mw_store_options o;

	mw_test_store_options(&o, path);
	o.chunk_points = chunk_points;
	return mw_test_store_open_with(&o);
}

/* Series "1": page counts; series "2": the same until point 8, then a
 * fraction (its chunk turns float). */
static double value_of(int pid, int i)
{
	double v = (double)(i * 4096 + pid);

	if (pid == 3)	/* integers, floats from point 100 on; steps of all sizes */
		v = (double)((i * 7919) % 1000 * (i % 5 ? 4096 : 1)) + (i >= 100 ? 0.25 : 0);
	return pid == 2 && i >= 8 ? v + 0.5 : v;
}

static void add(struct mw_store *s, int pid, int i)
{
	char p[8], key[128];
	struct mw_label l[1] = { { "pid", p } };

	snprintf(p, sizeof(p), "%d", pid);
	mw_series_key_format(key, sizeof(key), METRIC, l, 1);
	mw_store_add(s, key, METRIC, l, 1, T0 + i * 1000LL, value_of(pid, i));
}

static void flush(struct mw_store *s)
{
	struct mw_err err;

	if (mw_store_flush(s, &err))
		fail_msg("%s", err.msg);
}

static int64_t db_int(const char *path, const char *sql)
{
	return mw_test_db_int(path, sql);
}

/* Points 0..n-1 of series pid, as every reader returns them. */
static void expect_points(const char *path, int pid, int n)
{
	struct mw_reader *r = mw_test_reader_open(path);
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_series_list sl;
	struct mw_latest_list l;
	struct mw_raw_iter *it;
	struct mw_err err;
	char sel[64];
	int64_t ts;
	double v;
	int i;

	snprintf(sel, sizeof(sel), METRIC "{pid=\"%d\"}", pid);
	mw_range_query_init(&q, T0, T0 + 3600000);
	q.step_ms = MW_STEP_RAW;
	assert_int_equal(mw_reader_range(r, sel, &q, &res, &err), 0);
	assert_int_equal(res.nseries, 1);
	assert_int_equal(res.nt, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(res.t[i], T0 + i * 1000LL);
		assert_true(res.values[0][i] == value_of(pid, i));
	}
	mw_range_result_release(&res);

	assert_int_equal(mw_reader_find(r, sel, &sl, &err), 0);
	assert_int_equal(sl.n, 1);
	assert_int_equal(sl.items[0].last_ts, T0 + (n - 1) * 1000LL);
	assert_int_equal(mw_raw_iter_open(&it, r, sl.items[0].id, T0, T0 + 3600000, &err), 0);
	for (i = 0; mw_raw_iter_next(it, &ts, &v, &err) == 1; i++) {
		assert_int_equal(ts, T0 + i * 1000LL);
		assert_true(v == value_of(pid, i));
	}
	assert_int_equal(i, n);
	mw_raw_iter_free(it);
	mw_series_list_release(&sl);

	assert_int_equal(mw_reader_latest(r, sel, &l, &err), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.items[0].ts_ms, T0 + (n - 1) * 1000LL);
	assert_true(l.items[0].value == value_of(pid, n - 1));
	mw_latest_list_release(&l);
	mw_reader_free(r);
}

/* One reader kept open across flushes, as the web's pool and the judge
 * keep theirs: it keeps the tails it read while the writer has not
 * committed, gives them back when it idles, and sees every flush's
 * points after it (through folds that delete the rows and new rows that
 * take their ids again). */
static void reader_kept_across_flushes(void **state)
{
	struct mw_store *s = open_store(DB, 720);
	struct mw_reader *r;
	int i;

	(void)state;
	assert_non_null(s);
	add(s, 1, 0);
	flush(s);
	r = mw_test_reader_open(DB);
	for (i = 1; i < 40; i++) {
		struct mw_range_query q;
		struct mw_range_result res;
		struct mw_err err;
		int k;

		add(s, 1, i);
		flush(s);
		/* the third read after the reader idled (as the pool's and the
		 * judge's do between uses): its tails were given back and are
		 * read again, though the writer did not commit in between */
		for (k = 0; k < 3; k++) {
			if (k == 2)
				assert_true(mw_reader_idle(r) >= 0);
			mw_range_query_init(&q, T0, T0 + 3600000);
			q.step_ms = MW_STEP_RAW;
			assert_int_equal(mw_reader_range(r, METRIC "{pid=\"1\"}", &q, &res, &err), 0);
			assert_int_equal(res.nseries, 1);
			assert_int_equal(res.nt, i + 1);
			assert_true(res.values[0][i] == value_of(1, i));
			mw_range_result_release(&res);
		}
	}
	assert_true(db_int(DB, "SELECT count(*) FROM chunk_tail") > 0);
	mw_reader_free(r);
	mw_store_free(s);
}

/* A flush from the chunk row's fourth write on appends a tail; every
 * reader sees its points although the row has only the first three. */
static void readers_see_tail_points(void **state)
{
	struct mw_store *s = open_store(DB, 720);
	int i;

	(void)state;
	for (i = 0; i < 7; i++) {
		add(s, 1, i);
		flush(s);
	}
	assert_int_equal(db_int(DB, "SELECT count(*) FROM chunk_tail"), 4);
	assert_int_equal(db_int(DB, "SELECT max(npoints) FROM chunk"), 3);
	expect_points(DB, 1, 7);
	mw_store_free(s);
	/* a clean stop rewrites the chunks whole and empties chunk_tail */
	assert_int_equal(db_int(DB, "SELECT count(*) FROM chunk_tail"), 0);
	assert_int_equal(db_int(DB, "SELECT npoints FROM chunk"), 7);
	expect_points(DB, 1, 7);
}

/* Tails older than a chunk's whole rewrite are not laid over it: the
 * fold every 12th flush, a chunk closing (10 points) while it has tails,
 * and series 2's chunk re-encoded as floats at point 8 (its earlier
 * tails hold integer-coded bits).  Read after every flush. */
static void chunk_rewritten_after_tails(void **state)
{
	struct mw_store *s = open_store(DB, 10);
	int i, tails_seen = 0, folds_seen = 0;

	(void)state;
	for (i = 0; i < 30; i++) {
		int64_t tails;

		add(s, 1, i);
		add(s, 2, i);
		flush(s);
		tails = db_int(DB, "SELECT count(*) FROM chunk_tail");
		tails_seen += tails > 0;
		folds_seen += i > 0 && tails == 0;
		expect_points(DB, 1, i + 1);
		expect_points(DB, 2, i + 1);
	}
	assert_true(tails_seen > 0);
	assert_true(folds_seen > 0);
	mw_store_free(s);
	expect_points(DB, 1, 30);
	expect_points(DB, 2, 30);
}

/* A tail whose chunk row is gone (removed behind the writer's back) is
 * ignored by the readers and by the start-up fold. */
static void tail_of_removed_chunk(void **state)
{
	struct mw_store *s = open_store(DB, 720), *s2;
	struct mw_reader *r;
	struct mw_series_list sl;
	struct mw_err err;
	sqlite3 *db;
	int i;

	(void)state;
	for (i = 0; i < 6; i++) {
		add(s, 1, i);
		add(s, 2, i);
		flush(s);
	}
	mw_test_copy_file(DB, DB2);
	mw_test_copy_file(DB "-wal", DB2 "-wal");
	mw_store_free(s);
	assert_int_equal(sqlite3_open(DB2, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DELETE FROM chunk WHERE series_id = (SELECT s.id FROM"
				      " series s JOIN series_live l ON l.series_id = s.id"
				      " ORDER BY s.id LIMIT 1)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_true(mw_test_db_int(DB2, "SELECT count(*) FROM chunk_tail") > 0);
	r = mw_test_reader_open(DB2);
	assert_int_equal(mw_reader_find(r, METRIC "{pid=\"1\"}", &sl, &err), 0);
	assert_int_equal(sl.n, 1);
	assert_int_equal(sl.items[0].last_ts, INT64_MIN);	/* no raw point left */
	mw_series_list_release(&sl);
	mw_reader_free(r);
	expect_points(DB2, 2, 6);
	s2 = open_store(DB2, 720);
	assert_int_equal(mw_test_db_int(DB2, "SELECT count(*) FROM chunk_tail"), 0);
	mw_store_free(s2);
	expect_points(DB2, 2, 6);
}

/* A crash leaves tails; the next start folds them into their chunks
 * (the rows and the sqlite3 shell's latest view have every point) and
 * the writer goes on appending to those chunks. */
static void startup_folds_tails(void **state)
{
	struct mw_store *s = open_store(DB, 720), *s2;
	int i;

	(void)state;
	for (i = 0; i < 7; i++) {
		add(s, 1, i);
		flush(s);
	}
	mw_test_copy_file(DB, DB2);
	mw_test_copy_file(DB "-wal", DB2 "-wal");
	mw_store_free(s);
	assert_int_equal(mw_test_db_int(DB2, "SELECT npoints FROM chunk"), 3);
	assert_int_equal(mw_test_db_int(DB2, "SELECT count(*) FROM chunk_tail"), 4);
	s2 = open_store(DB2, 720);
	assert_int_equal(mw_test_db_int(DB2, "SELECT count(*) FROM chunk_tail"), 0);
	assert_int_equal(mw_test_db_int(DB2, "SELECT npoints FROM chunk"), 7);
	assert_int_equal(mw_test_db_int(DB2, "SELECT ts FROM latest"), T0 + 6000);
	assert_int_equal(mw_test_db_int(DB2, "SELECT value FROM latest"), (int64_t)value_of(1, 6));
	for (i = 7; i < 12; i++) {
		add(s2, 1, i);
		flush(s2);
	}
	assert_true(mw_test_db_int(DB2, "SELECT count(*) FROM chunk_tail") > 0);
	expect_points(DB2, 1, 12);
	mw_store_free(s2);
	expect_points(DB2, 1, 12);
}

/* The readers' map of a minute of tails at 5,000 open chunks (11 rows, a
 * record of each chunk in each), read back: each chunk's newest record,
 * its bytes laid over a blob in row order, a damaged row left out whole
 * (its chunk 9,999 unknown), and what the map holds.  It held every
 * record's fields parsed (48 bytes) and twice as many slots as records:
 * 6.6 MB here, the background judge's transient every minute at 300
 * processes; now under 3 MB. */
#define MAP_CHUNKS 5000
#define MAP_ROWS 11
static void map_of_a_minute(void **state)
{
	struct mw_tail_row w = { 0 };
	struct mw_tail_map *m;
	struct mw_tail_newest *nm;
	struct mw_tail_scratch sc = { 0 };
	struct mw_err err;
	sqlite3 *db;
	sqlite3_stmt *ins;
	int64_t ts, n;
	double v;
	uint8_t bytes[4], blob[64];
	const uint8_t *merged;
	size_t len, nids;
	int row, c;

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, MW_TAIL_TABLE_SQL, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO chunk_tail(data) VALUES (?)", -1,
					    &ins, NULL), SQLITE_OK);
	for (row = 0; row < MAP_ROWS; row++) {
		mw_tail_row_clear(&w);
		for (c = 1; c <= MAP_CHUNKS; c++) {
			memset(bytes, row + 1, sizeof(bytes));
			/* chunk c's row holds 0 points; each row adds 5 bytes'
			 * worth (4 written, the last one again next time) */
			mw_tail_row_put(&w, c, (size_t)row * 4, bytes, sizeof(bytes),
					(uint32_t)(5 * (row + 1)), T0 + row * 5000 + c,
					row == MAP_ROWS - 1 && c == 7 ? 0.25 : (double)(c * 4096));
		}
		if (row == 5) {	/* a record of an unknown chunk, cut short */
			mw_tail_row_put(&w, 9999, 0, bytes, sizeof(bytes), 99, T0, 1.0);
			w.len -= 2;
		}
		sqlite3_bind_blob(ins, 1, w.buf, (int)w.len, SQLITE_STATIC);
		assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	mw_tail_row_release(&w);
	assert_int_equal(mw_tail_map_load(db, &m, &err), 0);
	assert_non_null(m);
	mw_tail_map_ids(m, &nids);
	assert_int_equal(nids, MAP_CHUNKS);
	assert_int_equal(mw_tail_newest(m, 9999, 0, &ts, &v, &n), 0);
	assert_int_equal(mw_tail_newest(m, 7, 0, &ts, &v, &n), 1);
	assert_int_equal(n, 5 * MAP_ROWS);
	assert_int_equal(ts, T0 + (MAP_ROWS - 1) * 5000 + 7);
	assert_true(v == 0.25);
	assert_int_equal(mw_tail_newest(m, 4242, 0, &ts, &v, &n), 1);
	assert_true(v == 4242.0 * 4096);
	assert_int_equal(mw_tail_newest(m, 4242, 5 * MAP_ROWS, &ts, &v, &n), 0);
	/* an empty compact blob of chunk 3 (format byte, count 0): rows 0-4
	 * laid in order; row 5 is out whole (damaged), so row 6's bytes
	 * would leave a gap and are not laid */
	blob[0] = MW_CHUNK_FMT_INT_C;
	blob[1] = 0;
	len = 2;
	merged = mw_tail_merge(m, 3, blob, &len, &sc);
	assert_int_equal(len, 2 + 4 * 5);
	assert_int_equal(merged[1], 5 * 5);
	for (row = 0; row < 5; row++)
		assert_int_equal(merged[2 + row * 4 + 3], row + 1);
	print_message("the map of %d chunks x %d rows holds %zu bytes\n", MAP_CHUNKS, MAP_ROWS,
		      mw_tail_map_bytes(m));
	if (mw_tail_map_bytes(m) >= 3u << 20)
		fail_msg("the map holds %zu bytes", mw_tail_map_bytes(m));
	/* the newest records alone (/metrics' and the judge's map):
	 * the same answer for every chunk, the damaged row left out too, in
	 * a tenth of the memory */
	assert_int_equal(mw_tail_newest_load(db, &nm, &err), 0);
	assert_non_null(nm);
	for (c = 1; c <= MAP_CHUNKS + 1; c++) {
		int64_t have[] = { 0, 5 * MAP_ROWS - 1, 5 * MAP_ROWS };
		size_t k;

		for (k = 0; k < 3; k++) {
			int64_t ts2 = 0, n2 = 0;
			double v2 = 0;
			int got = mw_tail_newest(m, c, have[k], &ts, &v, &n);

			assert_int_equal(mw_tail_newest_get(nm, c, have[k], &ts2, &v2, &n2), got);
			if (got) {
				assert_int_equal(ts2, ts);
				assert_int_equal(n2, n);
				assert_true(v2 == v);
			}
		}
	}
	assert_int_equal(mw_tail_newest_get(nm, 9999, 0, &ts, &v, &n), 0);
	print_message("the newest records alone: %zu bytes\n", mw_tail_newest_bytes(nm));
	if (mw_tail_newest_bytes(nm) * 8 > mw_tail_map_bytes(m))
		fail_msg("the newest map holds %zu bytes, the whole map %zu",
			 mw_tail_newest_bytes(nm), mw_tail_map_bytes(m));
	mw_tail_newest_free(nm);
	free(sc.buf);
	mw_tail_map_free(m);
	sqlite3_close(db);
}

static int64_t chunks_of(const char *path, int pid)
{
	char sql[256];

	snprintf(sql, sizeof(sql), "SELECT count(*) FROM chunk WHERE series_id = (SELECT"
		 " series_id FROM series_label WHERE name = 'pid' AND value = '%d')", pid);
	return mw_test_db_int(path, sql);
}

/* Once a flush wrote an open chunk whole (its third write, every fold),
 * the writer holds only the bytes after it (codec.h: trimmed); the next
 * whole write puts the stored bytes back around the new ones, in SQL.
 * 300 points a second in three series, read back after every whole
 * write: one chunk of 720 points at most; one closing every 50 points;
 * one whose values turn fractional at point 100 (a trimmed chunk closes
 * there instead of being encoded again).  A copy taken between folds
 * starts as after a crash and goes on; the clean stop writes whole. */
static void trimmed_chunks_read_the_same(void **state)
{
	struct mw_store *s = open_store(DB, 720), *s2, *s50 = open_store(DB2, 50);
	struct mw_store_stats st;
	int i, pid;

	(void)state;
	for (i = 0; i < 300; i++) {
		for (pid = 1; pid <= 3; pid++)
			add(s, pid, i);
		add(s50, 1, i);
		flush(s);
		flush(s50);
		if ((i + 1) % 12 == 0 || i == 2 || i == 150) {
			mw_store_get_stats(s, &st);
			/* a fold: three encoders holding blocks of what a
			 * minute's points need, not their chunks' bytes (1,100
			 * and more by the end) */
			if ((i + 1) % 12 == 0)
				assert_true(st.open_chunk_bytes <= 3 * 128);
			for (pid = 1; pid <= 3; pid++)
				expect_points(DB, pid, i + 1);
			expect_points(DB2, 1, i + 1);
		}
	}
	assert_int_equal(chunks_of(DB, 1), 1);
	assert_int_equal(chunks_of(DB, 3), 2);	/* closed at point 100 */
	assert_int_equal(chunks_of(DB2, 1), 6);
	mw_store_free(s50);
	expect_points(DB2, 1, 300);
	mw_test_db_remove(DB2);
	/* between folds, as after a crash: start-up folds the tails in, and
	 * the chunks go on (taken up whole, trimmed again at the next fold) */
	for (; i < 305; i++) {
		for (pid = 1; pid <= 3; pid++)
			add(s, pid, i);
		flush(s);
	}
	mw_test_copy_file(DB, DB2);
	mw_test_copy_file(DB "-wal", DB2 "-wal");
	mw_store_free(s);
	for (pid = 1; pid <= 3; pid++)
		expect_points(DB, pid, 305);
	s2 = open_store(DB2, 720);
	for (i = 305; i < 340; i++) {
		for (pid = 1; pid <= 3; pid++)
			add(s2, pid, i);
		flush(s2);
	}
	/* 11 flushes after the last fold: the bytes since, a third of the
	 * chunks' at most */
	mw_store_get_stats(s2, &st);
	assert_true(st.open_chunk_bytes * 3 <
		    (uint64_t)mw_test_db_int(DB2, "SELECT sum(length(data)) FROM chunk c"
					     " JOIN series s ON s.last_chunk = c.id"));
	for (pid = 1; pid <= 3; pid++)
		expect_points(DB2, pid, 340);
	mw_store_free(s2);
	for (pid = 1; pid <= 3; pid++)
		expect_points(DB2, pid, 340);
}

/* A trimmed chunk whose row lost its bytes behind the writer's back (a
 * file changed by hand): its next whole write (the fold at the 36th
 * flush) says so in the log, writes nothing over the row, and the series
 * goes on in a new chunk from the next point. */
static void trimmed_chunk_row_gone(void **state)
{
	struct mw_store *s = open_store(DB, 720);
	struct mw_store_stats st;
	sqlite3 *db;
	int i;

	(void)state;
	for (i = 0; i < 24; i++) {
		add(s, 3, i);
		flush(s);
	}
	mw_store_get_stats(s, &st);
	/* trimmed at the fold: the writer holds less than the chunk */
	assert_true((int64_t)st.open_chunk_bytes < mw_test_db_int(DB, "SELECT length(data) FROM chunk"));
	assert_int_equal(sqlite3_open(DB, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE chunk SET data = x'13'", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	for (; i < 42; i++) {
		add(s, 3, i);
		flush(s);
	}
	mw_store_get_stats(s, &st);
	assert_int_equal(st.failed_flushes, 0);
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM chunk WHERE data = x'13'"), 1);
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM chunk"), 2);
	assert_int_equal(mw_test_db_int(DB, "SELECT min_ts FROM chunk WHERE data <> x'13'"),
			 T0 + 36 * 1000LL);
	mw_store_free(s);
	assert_int_equal(mw_test_db_int(DB, "SELECT npoints FROM chunk WHERE data <> x'13'"), 6);
}

MW_TEST_MAIN(
	cmocka_unit_test_setup_teardown(readers_see_tail_points, setup, teardown),
	cmocka_unit_test_setup_teardown(reader_kept_across_flushes, setup, teardown),
	cmocka_unit_test_setup_teardown(chunk_rewritten_after_tails, setup, teardown),
	cmocka_unit_test_setup_teardown(tail_of_removed_chunk, setup, teardown),
	cmocka_unit_test_setup_teardown(startup_folds_tails, setup, teardown),
	cmocka_unit_test(map_of_a_minute),
	cmocka_unit_test_setup_teardown(trimmed_chunks_read_the_same, setup, teardown),
	cmocka_unit_test_setup_teardown(trimmed_chunk_row_gone, setup, teardown)
)
