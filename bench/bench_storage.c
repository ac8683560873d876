/*
 * bench_storage.c - storage figures against a plain-SQLite baseline
 * measured in the same run (prepared inserts of (series_id, ts, value)
 * into an unindexed table, one transaction per batch, same WAL and
 * synchronous settings as the store).
 *
 *   ingest tick:   2,000 series, one tick per transaction (flush every tick)
 *   ingest bulk:   many ticks, one flush per minute of data
 *   bytes/point:   after a checkpoint; realistic memory workload, random
 *   query:         7 days at 1 Hz to 1,000 buckets; one day raw
 *   small:         one series of 2,000 over the last minute; latest of all
 *   rollup rows:   bytes per 1-minute / 10-minute / 1-hour row (dbstat)
 *   live hour:     a daemon's hour: 150 processes x the process collector's
 *                  Linux metric set, 1 s ticks started +-1 ms off their due
 *                  time, flushed every 5 s, file bytes per point all-in
 *   2 s processes: processes that live two seconds (2 points per series),
 *                  file bytes per series created
 *
 *   flush:         issue 26: a live daemon's flushes at 1,000 processes
 *                  (12,000 series, 1 s ticks, a flush every 5 s, 10 minutes,
 *                  so open chunks grow as they do between closes): CPU per
 *                  series and flush in the first and the last two minutes,
 *                  against appending the same points as one row per flush
 *                  (uncompressed, 16 bytes a point) in a plain file
 *
 * `bench_storage history` runs only the 300-series 7-day read (issue 26),
 * `bench_storage bytes` only the bytes per point (and per rollup row),
 * `bench_storage flush` only the flushes (~15 s of the default run),
 * `bench_storage week` a simulated week through the writer (MW_BENCH_WEEK_*,
 * at bench_week; not part of the default run: an hour or more).
 * `bench_storage live` runs only the live hour and the 2 s processes,
 * `bench_storage query` only bulk ingest and the 7-day query.
 *
 * Files go to the working directory as bench_storage*.tmp.db and are
 * removed at the end.
 */
#include <math.h>
#include <stdint.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#ifndef _WIN32
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "storage/query.h"
#include "storage/schema.h"
#include "storage/store.h"
#include "base/clock.h"
#include "base/cpu_count.h"
#include "core/scheduler.h"
#include "tests/support/test_db.h"
#include "tests/support/xorshift.h"
#include "tests/support/bench_store.h"
#include "tests/support/proc_series.h"

#define T0 1699999200000LL
#define TICK_SERIES 2000

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static double now_s(void)
{
	return (double)mw_clock_mono_ns() / 1e9;
}

static void die_sql(sqlite3 *db, const char *what)
{
	fprintf(stderr, "bench_storage: %s: %s\n", what, sqlite3_errmsg(db));
	exit(1);
}

/* ---- baseline -------------------------------------------------------------- */

struct base {
	sqlite3 *db;
	sqlite3_stmt *ins;
};

static void base_open(struct base *b, const char *path)
{
	struct mw_err err;

	mw_test_db_remove(path);
	if (sqlite3_open(path, &b->db) != SQLITE_OK ||
	    mw_db_exec(b->db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;"
		       "CREATE TABLE p (series_id INTEGER, ts INTEGER, value REAL)", &err) ||
	    sqlite3_prepare_v2(b->db, "INSERT INTO p VALUES (?, ?, ?)", -1, &b->ins, NULL))
		die_sql(b->db, "baseline");
}

static void base_insert(struct base *b, int64_t id, int64_t ts, double v)
{
	sqlite3_bind_int64(b->ins, 1, id);
	sqlite3_bind_int64(b->ins, 2, ts);
	sqlite3_bind_double(b->ins, 3, v);
	if (sqlite3_step(b->ins) != SQLITE_DONE)
		die_sql(b->db, "baseline insert");
	sqlite3_reset(b->ins);
}

static void base_close(struct base *b, const char *path)
{
	sqlite3_finalize(b->ins);
	sqlite3_close(b->db);
	mw_test_db_remove(path);
}

static int64_t used_bytes(sqlite3 *db)
{
	sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
	return (mw_db_int(db, "PRAGMA page_count") - mw_db_int(db, "PRAGMA freelist_count")) *
	       mw_db_int(db, "PRAGMA page_size");
}

/* ---- workloads ------------------------------------------------------------- */

/* A memory-like series: kind by id; state in *v. */
static double realistic_next(int id, double *v)
{
	uint64_t r = mw_xorshift(&rng);

	switch (id % 20) {
	case 0: case 1: case 2:	/* noisy: a few pages up or down each second */
		*v += 4096.0 * (double)((int64_t)(r % 9) - 4);
		break;
	case 3: case 4: case 5: case 6:	/* slow leak: a page every ~10 s */
		if (r % 10 == 0)
			*v += 4096;
		break;
	default:		/* flat with an occasional step */
		if (r % 600 == 0)
			*v += 4096.0 * (double)((int64_t)(r >> 32) % 512 - 256);
		break;
	}
	if (*v < 0)
		*v = 4096;
	return *v;
}

static char keys[TICK_SERIES][48];

static void make_keys(void)
{
	int i;

	for (i = 0; i < TICK_SERIES; i++)
		snprintf(keys[i], sizeof(keys[i]), "bench_bytes{id=\"%d\"}", i);
}

static struct mw_store *store_open(const char *path)
{
	mw_test_db_remove(path);
	return mw_bench_store_open(path);
}

static void add(struct mw_store *s, int id, int64_t ts, double v)
{
	struct mw_label l = { "id", keys[id] + 16 };	/* label value unused for speed */

	(void)l;
	mw_store_add(s, keys[id], "bench_bytes", NULL, 0, ts, v);
}

/* ---- benchmarks ------------------------------------------------------------ */

static double table_bytes_per_row(sqlite3 *db, const char *table);

static void bench_tick(void)
{
	enum { TICKS = 120 };
	static double v[TICK_SERIES];
	struct mw_store *s = store_open("bench_storage.tmp.db");
	struct base b;
	double t, ours, base;
	int i, k;

	for (i = 0; i < TICK_SERIES; i++)
		v[i] = 1e8;
	/* warm up: the series exist, as after the first minute of a run */
	for (i = 0; i < TICK_SERIES; i++)
		add(s, i, T0, v[i]);
	mw_bench_store_flush(s);
	t = now_s();
	for (k = 1; k <= TICKS; k++) {
		for (i = 0; i < TICK_SERIES; i++)
			add(s, i, T0 + k * 1000, realistic_next(i, &v[i]));
		mw_bench_store_flush(s);
	}
	ours = (now_s() - t) / TICKS;
	mw_store_free(s);
	mw_test_db_remove("bench_storage.tmp.db");

	base_open(&b, "bench_storage_base.tmp.db");
	t = now_s();
	for (k = 1; k <= TICKS; k++) {
		sqlite3_exec(b.db, "BEGIN", NULL, NULL, NULL);
		for (i = 0; i < TICK_SERIES; i++)
			base_insert(&b, i, T0 + k * 1000, realistic_next(i, &v[i]));
		sqlite3_exec(b.db, "COMMIT", NULL, NULL, NULL);
	}
	base = (now_s() - t) / TICKS;
	base_close(&b, "bench_storage_base.tmp.db");
	printf("ingest tick %d series: %.2f ms/tick (baseline %.2f ms, ratio %.2f) target <= 10 ms\n",
	       TICK_SERIES, ours * 1e3, base * 1e3, ours / base);
}

static void bench_bulk(void)
{
	enum { SERIES = 1000, TICKS = 3600 };
	static double v[TICK_SERIES];
	struct mw_store *s = store_open("bench_storage.tmp.db");
	struct base b;
	double t, ours, base;
	int i, k;

	for (i = 0; i < SERIES; i++)
		v[i] = 1e8;
	t = now_s();
	for (k = 0; k < TICKS; k++) {
		for (i = 0; i < SERIES; i++)
			add(s, i, T0 + (int64_t)k * 1000, realistic_next(i, &v[i]));
		if (k % 60 == 59)
			mw_bench_store_flush(s);
	}
	mw_bench_store_flush(s);
	ours = (double)SERIES * TICKS / (now_s() - t);
	mw_store_free(s);
	mw_test_db_remove("bench_storage.tmp.db");

	base_open(&b, "bench_storage_base.tmp.db");
	t = now_s();
	for (k = 0; k < TICKS; k++) {
		if (k % 5 == 0)
			sqlite3_exec(b.db, "BEGIN", NULL, NULL, NULL);
		for (i = 0; i < SERIES; i++)
			base_insert(&b, i, T0 + (int64_t)k * 1000, realistic_next(i, &v[i]));
		if (k % 5 == 4)
			sqlite3_exec(b.db, "COMMIT", NULL, NULL, NULL);
	}
	base = (double)SERIES * TICKS / (now_s() - t);
	base_close(&b, "bench_storage_base.tmp.db");
	printf("ingest bulk %d series x %d points: %.2f M points/s (baseline %.2f M/s, ratio %.2f) "
	       "target >= 1 M/s\n", SERIES, TICKS, ours / 1e6, base / 1e6, ours / base);
}

static void bench_bytes(int realistic)
{
	enum { SERIES = 200, TICKS = 6 * 3600 };
	static double v[TICK_SERIES];
	struct mw_store *s = store_open("bench_storage.tmp.db");
	struct base b;
	double ours, raw, base;
	int64_t used, chunks;
	int i, k;

	for (i = 0; i < SERIES; i++)
		v[i] = 1e8 + (double)i * 4096;
	for (k = 0; k < TICKS; k++) {
		int64_t ts = T0 + (int64_t)k * 1000 + (int64_t)(mw_xorshift(&rng) % 3);	/* jitter */

		for (i = 0; i < SERIES; i++)
			add(s, i, ts, realistic ? realistic_next(i, &v[i])
					      : mw_xorshift_unit(&rng));
		if (k % 60 == 59)
			mw_bench_store_flush(s);
	}
	mw_bench_store_flush(s);
	used = used_bytes(mw_store_db(s));
	chunks = mw_db_int(mw_store_db(s), "SELECT sum(length(data)) + count(*) * 40 FROM chunk");
	ours = (double)used / ((double)SERIES * TICKS);
	raw = (double)chunks / ((double)SERIES * TICKS);
	if (realistic)
		printf("rollup rows (%s workload): %.1f bytes per 1m row, %.1f bytes per 1h row "
		       "(b-tree pages / rows)\n", "realistic",
		       table_bytes_per_row(mw_store_db(s), "rollup_1m"),
		       table_bytes_per_row(mw_store_db(s), "rollup_1h"));
	if (realistic)
		printf("1m rollups at the default retention (90 days) vs raw chunks (7 days): "
		       "%.2f x\n", table_bytes_per_row(mw_store_db(s), "rollup_1m") * 90 * 1440 /
		       (raw * 7 * 86400));
	if (realistic)	/* kept as long as the minutes (storage/SCHEMA.md) */
		printf("10m rollups (%.1f bytes per row) at their retention (90 days): %.3f x the "
		       "1m rollups, %.2f x raw chunks (7 days)\n",
		       table_bytes_per_row(mw_store_db(s), "rollup_10m"),
		       table_bytes_per_row(mw_store_db(s), "rollup_10m") /
			       (10 * table_bytes_per_row(mw_store_db(s), "rollup_1m")),
		       table_bytes_per_row(mw_store_db(s), "rollup_10m") * 90 * 144 /
			       (raw * 7 * 86400));
	mw_store_free(s);
	mw_test_db_remove("bench_storage.tmp.db");

	base_open(&b, "bench_storage_base.tmp.db");
	sqlite3_exec(b.db, "BEGIN", NULL, NULL, NULL);
	for (k = 0; k < TICKS / 10; k++)
		for (i = 0; i < SERIES; i++)
			base_insert(&b, i, T0 + (int64_t)k * 1000,
				    realistic ? realistic_next(i, &v[i]) : (double)mw_xorshift(&rng));
	sqlite3_exec(b.db, "COMMIT", NULL, NULL, NULL);
	base = (double)used_bytes(b.db) / ((double)SERIES * (TICKS / 10));
	base_close(&b, "bench_storage_base.tmp.db");
	printf("bytes per point, %s (%d series x %d s): %.2f B/pt incl. rollups and indexes, "
	       "%.2f B/pt raw chunks (baseline %.2f B/pt, ratio %.3f)%s\n",
	       realistic ? "realistic memory workload" : "random values", SERIES, TICKS,
	       ours, raw, base, ours / base, realistic ? " target <= 3" : "");
}

/* Bytes per row of one table (pages of its b-tree, dbstat), after a checkpoint. */
static double table_bytes_per_row(sqlite3 *db, const char *table)
{
	char sql[160];
	int64_t bytes, rows;

	sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
	/* the b-tree: the table itself, or <table>_data behind a view */
	snprintf(sql, sizeof(sql), "SELECT sum(pgsize) FROM dbstat WHERE name IN ('%s', "
		 "'%s_data')", table, table);
	bytes = mw_db_int(db, sql);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
	rows = mw_db_int(db, sql);
	return rows > 0 ? (double)bytes / (double)rows : 0;
}

/*
 * Small reads as the web does them: one series of 2,000 (selector on a
 * label), the last 60 s at step 1 s; and the newest value of every series
 * (/metrics).  Baseline: prepared reads of a WITHOUT ROWID
 * (series_id, ts, value) table holding the same points: 60 rows of one
 * series, and one newest row per series.
 */
static void bench_small(void)
{
	enum { SERIES = 2000, TICKS = 181, QUERIES = 2000, LATEST = 50 };
	struct mw_store *s = store_open("bench_storage.tmp.db");
	struct mw_reader *r;
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_latest_list l;
	struct mw_err err;
	struct base b;
	sqlite3_stmt *st;
	static double v[SERIES];
	char idx[16];
	struct mw_label lab = { "id", idx };
	int64_t end = T0 + (TICKS - 1) * 1000LL;
	double t = 0, q_s, l_s, bq_s, bl_s;
	int i, k, rows = 0;

	for (i = 0; i < SERIES; i++)
		v[i] = 1e8 + (double)i * 4096;
	for (k = 0; k < TICKS; k++) {
		for (i = 0; i < SERIES; i++) {
			snprintf(idx, sizeof(idx), "%d", i);
			mw_store_add(s, keys[i], "bench_bytes", &lab, 1, T0 + k * 1000LL,
				     realistic_next(i, &v[i]));
		}
		if (k % 5 == 4)
			mw_bench_store_flush(s);
	}
	mw_bench_store_flush(s);
	if (mw_reader_open(&r, "bench_storage.tmp.db", &err)) {
		fprintf(stderr, "bench_storage: %s\n", err.msg);
		exit(1);
	}
	mw_range_query_init(&q, end - 60000, end);
	q.step_ms = 1000;
	for (i = 0; i <= QUERIES; i++) {
		if (i == 1)
			t = now_s();	/* the first call warms the reader */
		if (mw_reader_range(r, "bench_bytes{id=\"42\"}", &q, &res, &err) ||
		    res.nseries != 1 || res.nt != 61) {
			fprintf(stderr, "bench_storage: small query: %s\n", err.msg);
			exit(1);
		}
		mw_range_result_release(&res);
	}
	q_s = (now_s() - t) / QUERIES;
	for (i = 0; i <= LATEST; i++) {
		if (i == 1)
			t = now_s();
		if (mw_reader_latest(r, NULL, &l, &err) || l.n != SERIES) {
			fprintf(stderr, "bench_storage: latest: %s\n", err.msg);
			exit(1);
		}
		mw_latest_list_release(&l);
	}
	l_s = (now_s() - t) / LATEST;
	mw_reader_free(r);
	mw_store_free(s);
	mw_test_db_remove("bench_storage.tmp.db");

	mw_test_db_remove("bench_storage_base.tmp.db");
	if (sqlite3_open("bench_storage_base.tmp.db", &b.db) != SQLITE_OK ||
	    mw_db_exec(b.db, "PRAGMA journal_mode = WAL; CREATE TABLE p (series_id INTEGER, "
		       "ts INTEGER, value REAL, PRIMARY KEY (series_id, ts)) WITHOUT ROWID", &err) ||
	    sqlite3_prepare_v2(b.db, "INSERT INTO p VALUES (?, ?, ?)", -1, &b.ins, NULL))
		die_sql(b.db, "baseline");
	sqlite3_exec(b.db, "BEGIN", NULL, NULL, NULL);
	for (k = 0; k < TICKS; k++)
		for (i = 0; i < SERIES; i++)
			base_insert(&b, i, T0 + k * 1000LL, realistic_next(i, &v[i]));
	sqlite3_exec(b.db, "COMMIT", NULL, NULL, NULL);
	sqlite3_prepare_v2(b.db, "SELECT ts, value FROM p WHERE series_id = ? AND ts BETWEEN ? AND ?",
			   -1, &st, NULL);
	t = now_s();
	for (i = 0; i < QUERIES; i++) {
		sqlite3_bind_int64(st, 1, 42);
		sqlite3_bind_int64(st, 2, end - 60000);
		sqlite3_bind_int64(st, 3, end);
		while (sqlite3_step(st) == SQLITE_ROW)
			rows++;
		sqlite3_reset(st);
	}
	bq_s = (now_s() - t) / QUERIES;
	sqlite3_finalize(st);
	sqlite3_prepare_v2(b.db, "SELECT ts, value FROM p WHERE series_id = ? ORDER BY ts DESC "
			   "LIMIT 1", -1, &st, NULL);
	t = now_s();
	for (k = 0; k < LATEST; k++)
		for (i = 0; i < SERIES; i++) {
			sqlite3_bind_int64(st, 1, i);
			if (sqlite3_step(st) == SQLITE_ROW)
				rows++;
			sqlite3_reset(st);
		}
	bl_s = (now_s() - t) / LATEST;
	sqlite3_finalize(st);
	base_close(&b, "bench_storage_base.tmp.db");
	printf("small query (1 of %d series, 60 s at step 1 s): %.1f us (baseline 61-row read "
	       "%.1f us, ratio %.2f) target <= 50 us\n", SERIES, q_s * 1e6, bq_s * 1e6, q_s / bq_s);
	printf("latest of %d series: %.0f us (baseline one read per series %.0f us, ratio %.2f)%s\n",
	       SERIES, l_s * 1e6, bl_s * 1e6, l_s / bl_s, rows ? "" : " (no rows)");
}

static void bench_query(void)
{
	const int64_t n = 7 * 86400;
	struct mw_store *s = store_open("bench_storage.tmp.db");
	struct mw_reader *r;
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_err err;
	struct base b;
	sqlite3_stmt *st;
	double v = 1e8, t, auto_s, raw_s, day_s, base_s, base_day_s, odd_s;
	enum mw_tier odd_tier = MW_TIER_RAW;
	int64_t k;
	int rounds = 5, i;

	for (k = 0; k < n; k++) {
		add(s, 0, T0 + k * 1000, realistic_next(3, &v));
		if (k % 3600 == 3599)
			mw_bench_store_flush(s);
	}
	mw_store_free(s);
	if (mw_reader_open(&r, "bench_storage.tmp.db", &err)) {
		fprintf(stderr, "bench_storage: %s\n", err.msg);
		exit(1);
	}
	mw_range_query_init(&q, T0, T0 + n * 1000 - 1);
	q.max_points = 1000;
	t = now_s();
	for (i = 0; i < rounds; i++) {
		if (mw_reader_range(r, NULL, &q, &res, &err))
			fprintf(stderr, "bench_storage: %s\n", err.msg);
		mw_range_result_release(&res);
	}
	auto_s = (now_s() - t) / rounds;
	/* an explicit step that is not whole minutes: 1-minute rows still */
	mw_range_query_init(&q, T0, T0 + n * 1000 - 1);
	q.step_ms = 605000;
	t = now_s();
	for (i = 0; i < rounds; i++) {
		if (mw_reader_range(r, NULL, &q, &res, &err))
			fprintf(stderr, "bench_storage: %s\n", err.msg);
		odd_tier = res.tier;
		mw_range_result_release(&res);
	}
	odd_s = (now_s() - t) / rounds;
	mw_range_query_init(&q, T0, T0 + n * 1000 - 1);
	q.max_points = 1000;
	q.tier = MW_TIER_RAW;
	t = now_s();
	for (i = 0; i < rounds; i++) {
		mw_reader_range(r, NULL, &q, &res, &err);
		mw_range_result_release(&res);
	}
	raw_s = (now_s() - t) / rounds;
	mw_range_query_init(&q, T0 + 86400000LL * 3, T0 + 86400000LL * 4 - 1);
	q.step_ms = MW_STEP_RAW;
	q.max_points = MW_QUERY_MAX_POINTS;
	t = now_s();
	for (i = 0; i < rounds; i++) {
		mw_reader_range(r, NULL, &q, &res, &err);
		if (res.nt != 86400)
			fprintf(stderr, "bench_storage: one day read %zu points\n", res.nt);
		mw_range_result_release(&res);
	}
	day_s = (now_s() - t) / rounds;
	mw_reader_free(r);
	mw_test_db_remove("bench_storage.tmp.db");

	v = 1e8;
	base_open(&b, "bench_storage_base.tmp.db");
	sqlite3_exec(b.db, "BEGIN", NULL, NULL, NULL);
	for (k = 0; k < n; k++)
		base_insert(&b, 0, T0 + k * 1000, realistic_next(3, &v));
	sqlite3_exec(b.db, "COMMIT", NULL, NULL, NULL);
	sqlite3_prepare_v2(b.db, "SELECT (ts - ?1) / ?3, min(value), max(value), avg(value) "
			   "FROM p WHERE series_id = 0 AND ts BETWEEN ?1 AND ?2 GROUP BY 1",
			   -1, &st, NULL);
	t = now_s();
	for (i = 0; i < rounds; i++) {
		sqlite3_bind_int64(st, 1, T0);
		sqlite3_bind_int64(st, 2, T0 + n * 1000 - 1);
		sqlite3_bind_int64(st, 3, 660000);
		while (sqlite3_step(st) == SQLITE_ROW)
			;
		sqlite3_reset(st);
	}
	base_s = (now_s() - t) / rounds;
	sqlite3_finalize(st);
	sqlite3_prepare_v2(b.db, "SELECT ts, value FROM p WHERE series_id = 0 AND ts BETWEEN ? AND ?",
			   -1, &st, NULL);
	t = now_s();
	for (i = 0; i < rounds; i++) {
		sqlite3_bind_int64(st, 1, T0 + 86400000LL * 3);
		sqlite3_bind_int64(st, 2, T0 + 86400000LL * 4 - 1);
		while (sqlite3_step(st) == SQLITE_ROW)
			;
		sqlite3_reset(st);
	}
	base_day_s = (now_s() - t) / rounds;
	sqlite3_finalize(st);
	base_close(&b, "bench_storage_base.tmp.db");
	printf("query 7 days at 1 Hz to 1000 buckets: %.2f ms auto tier, %.2f ms decoding all "
	       "604800 raw points (baseline GROUP BY %.2f ms, ratios %.3f / %.2f) target <= 50 ms\n",
	       auto_s * 1e3, raw_s * 1e3, base_s * 1e3, auto_s / base_s, raw_s / base_s);
	printf("query 7 days at step 605 s (not whole minutes): %.2f ms from the %s tier "
	       "(baseline GROUP BY %.2f ms, ratio %.3f)\n", odd_s * 1e3, mw_tier_name(odd_tier),
	       base_s * 1e3, odd_s / base_s);
	printf("query one day raw (86400 points): %.2f ms (baseline scan %.2f ms, ratio %.2f)\n",
	       day_s * 1e3, base_day_s * 1e3, day_s / base_day_s);
}

/* ---- history at the scale of a soak (issue 26) ------------------------------ */

/* 300 series over 7 days to 1,000 buckets: the auto step is 20 minutes,
 * read from the 10-minute rollups (1,008 rows a series).  One point a
 * minute makes the same rollup rows as 1 Hz would, without a long ingest.
 * Baselines in the same run: the way before the 10-minute tier (11-minute
 * steps from the 1-minute rollups, 10,080 rows a series), and the same
 * minute rows in a plain table, one GROUP BY over all series. */
static double history_read(struct mw_reader *r, const struct mw_range_query *q, int rounds,
			   size_t *nt, size_t *ns, enum mw_tier *tier)
{
	struct mw_range_result res;
	struct mw_err err;
	double t = now_s();
	int i;

	for (i = 0; i < rounds; i++) {
		if (mw_reader_range(r, "bench_bytes", q, &res, &err))
			fprintf(stderr, "bench_storage: history: %s\n", err.msg);
		*nt = res.nt;
		*ns = res.nseries;
		*tier = res.tier;
		mw_range_result_release(&res);
	}
	return (now_s() - t) / rounds;
}

/* Whether two results hold the same values, bit for bit. */
static bool same_values(const struct mw_range_result *a, const struct mw_range_result *b)
{
	size_t i;

	if (a->nseries != b->nseries || a->nt != b->nt)
		return false;
	for (i = 0; i < a->nseries; i++)
		if (a->series[i].id != b->series[i].id ||
		    memcmp(a->values[i], b->values[i], a->nt * sizeof(double)))
			return false;
	return true;
}

/* The same read on one thread and shared out to every processor
 * (mw_range_query.threads, as /api/v1/query reads), alternating, the best
 * of each, and whether the values are the same. */
static void history_threads(struct mw_reader *r, const struct mw_range_query *q_in)
{
	struct mw_range_query q = *q_in;
	struct mw_range_result res[2];
	struct mw_err err;
	size_t n = mw_cpu_count(), nt, ns;
	double best[2] = { 1e9, 1e9 }, t;
	enum mw_tier tier;
	bool same;
	int k, m;

	for (k = 0; k < 3; k++)
		for (m = 0; m < 2; m++) {
			q.threads = m ? n : 1;
			if ((t = history_read(r, &q, 1, &nt, &ns, &tier)) < best[m])
				best[m] = t;
		}
	for (m = 0; m < 2; m++) {
		q.threads = m ? n : 1;
		if (mw_reader_range(r, "bench_bytes", &q, &res[m], &err)) {
			fprintf(stderr, "bench_storage: history: %s\n", err.msg);
			exit(1);
		}
	}
	same = same_values(&res[0], &res[1]);
	mw_range_result_release(&res[0]);
	mw_range_result_release(&res[1]);
	printf("history %zu series x 7 days to %zu buckets on %zu threads: %.1f ms against one "
	       "thread %.1f ms in the same run (%.2fx); the same values: %s\n", ns, nt,
	       n < MW_RANGE_MAX_THREADS ? n : MW_RANGE_MAX_THREADS, best[1] * 1e3, best[0] * 1e3,
	       best[1] / best[0], same ? "yes" : "NO");
}

static void bench_history(void)
{
	enum { NS = 300, ROUNDS = 3 };
	const int64_t mins = 7 * 1440, span = mins * 60000;
	static double v[NS];
	/* MW_BENCH_HISTORY_DB: write that file once and keep it, so a
	 * profiler (perf record) sees the read alone on later runs. */
	const char *kept = getenv("MW_BENCH_HISTORY_DB");
	const char *path = kept ? kept : "bench_storage.tmp.db";
	FILE *f = kept ? fopen(kept, "rb") : NULL;
	/* MW_BENCH_HISTORY_EVERY_S: a point every that many seconds (default
	 * 60: the same rollup rows as 1 Hz, a quick ingest; less makes the
	 * raw chunks of a real soak, which the auto choice counts). */
	const char *every = getenv("MW_BENCH_HISTORY_EVERY_S");
	int64_t every_ms = every && atoi(every) > 0 && atoi(every) <= 60 ? atoi(every) * 1000LL : 60000;
	size_t nt = 0, ns = 0, old_nt = 0;
	double t, ours, old, base;
	enum mw_tier tier = MW_TIER_AUTO, old_tier = MW_TIER_AUTO;
	struct mw_range_query q;
	struct mw_store *s = NULL;
	sqlite3_stmt *st;
	struct mw_reader *r;
	struct base b;
	struct mw_err err;
	int64_t k;
	int i;

	for (i = 0; i < NS; i++)
		v[i] = 1e8;
	if (f)
		fclose(f);
	else
		s = store_open(path);
	for (k = 0; s && k < mins; k++) {
		int64_t p;

		for (p = 0; p < 60000; p += every_ms)
			for (i = 0; i < NS; i++)
				add(s, i, T0 + k * 60000 + p, realistic_next(i, &v[i]));
		if (k % 60 == 59 || every_ms < 60000)
			mw_bench_store_flush(s);
	}
	if (s)
		mw_store_free(s);
	if (mw_reader_open(&r, path, &err)) {
		fprintf(stderr, "bench_storage: %s\n", err.msg);
		exit(1);
	}
	mw_range_query_init(&q, T0, T0 + span - 1);
	q.max_points = 1000;
	ours = history_read(r, &q, ROUNDS, &nt, &ns, &tier);
	history_threads(r, &q);
	/* before the 10-minute tier: the auto step was 11 minutes, read from
	 * the minute rows */
	q.step_ms = 11 * 60000;
	q.tier = MW_TIER_1M;
	old = history_read(r, &q, ROUNDS, &old_nt, &ns, &old_tier);
	mw_reader_free(r);
	if (!kept)
		mw_test_db_remove(path);
	if (kept && getenv("MW_BENCH_HISTORY_ONLY")) {
		printf("history %zu series x 7 days to %zu buckets (%s tier): %.1f ms; %zu buckets "
		       "from the %s tier %.1f ms\n", ns, nt, mw_tier_name(tier), ours * 1e3, old_nt,
		       mw_tier_name(old_tier), old * 1e3);
		return;
	}

	if (sqlite3_open("bench_storage_base.tmp.db", &b.db) != SQLITE_OK ||
	    sqlite3_exec(b.db, "CREATE TABLE m (series_id INTEGER, t INTEGER, count INTEGER, "
			 "min REAL, max REAL, sum REAL, PRIMARY KEY (series_id, t)) WITHOUT ROWID",
			 NULL, NULL, NULL) ||
	    sqlite3_prepare_v2(b.db, "INSERT INTO m VALUES (?, ?, 1, ?, ?, ?)", -1, &st, NULL))
		die_sql(b.db, "baseline");
	sqlite3_exec(b.db, "BEGIN", NULL, NULL, NULL);
	for (i = 0; i < NS; i++)
		v[i] = 1e8;
	for (k = 0; k < mins; k++)
		for (i = 0; i < NS; i++) {
			double x = realistic_next(i, &v[i]);

			sqlite3_bind_int(st, 1, i);
			sqlite3_bind_int64(st, 2, T0 / 60000 + k);
			sqlite3_bind_double(st, 3, x);
			sqlite3_bind_double(st, 4, x);
			sqlite3_bind_double(st, 5, x);
			if (sqlite3_step(st) != SQLITE_DONE)
				die_sql(b.db, "baseline insert");
			sqlite3_reset(st);
		}
	sqlite3_exec(b.db, "COMMIT", NULL, NULL, NULL);
	sqlite3_finalize(st);
	sqlite3_prepare_v2(b.db, "SELECT series_id, t / 11, min(min), max(max), sum(sum) / sum(count) "
			   "FROM m WHERE t BETWEEN ?1 AND ?2 GROUP BY 1, 2", -1, &st, NULL);
	t = now_s();
	for (i = 0; i < ROUNDS; i++) {
		sqlite3_bind_int64(st, 1, T0 / 60000);
		sqlite3_bind_int64(st, 2, T0 / 60000 + mins - 1);
		while (sqlite3_step(st) == SQLITE_ROW)
			;
		sqlite3_reset(st);
	}
	base = (now_s() - t) / ROUNDS;
	sqlite3_finalize(st);
	sqlite3_close(b.db);
	mw_test_db_remove("bench_storage_base.tmp.db");
	printf("history %zu series x 7 days to %zu buckets (%s tier, step %lld min): %.1f ms "
	       "(%.2f ms a series; before the 10-minute tier, %zu buckets from the %s tier "
	       "%.1f ms, ratio %.2f; one GROUP BY over minute rows %.1f ms, ratio %.3f) "
	       "target <= 150 ms\n", ns, nt, mw_tier_name(tier),
	       (long long)(span / (int64_t)(nt ? nt : 1) / 60000), ours * 1e3,
	       ours * 1e3 / (double)(ns ? ns : 1), old_nt, mw_tier_name(old_tier), old * 1e3,
	       ours / old, base * 1e3, ours / base);
}

/* ---- a live daemon ------------------------------------------------------ */

/* The process collector's series on Linux (tests/support/proc_series.h). */
#define PROC_METRICS MW_PROC_SERIES
#define proc_metric mw_proc_series_metric
#define proc_kind mw_proc_series_kind

struct proc {
	int pid;
	int64_t started;
	double v[PROC_METRICS];
};

static void proc_init(struct proc *p, int pid, int64_t started)
{
	int m;

	p->pid = pid;
	p->started = started;
	for (m = 0; m < PROC_METRICS; m++)
		p->v[m] = 4096.0 * (double)(1000 + mw_xorshift(&rng) % 100000);
	p->v[4] = (double)(1 + mw_xorshift(&rng) % 32);	/* threads */
	p->v[5] = (double)(mw_xorshift(&rng) % 100000);	/* page faults */
	p->v[9] = 0;				/* swap */
}

/* One tick of a process: memory moves like realistic_next's kinds. */
static void proc_step(struct proc *p)
{
	uint64_t r = mw_xorshift(&rng);
	double d = (p->pid % 3 == 0) ? 4096.0 * (double)((int64_t)(r % 9) - 4)
		   : (r % 10 == 0 ? 4096.0 : 0);

	p->v[0] += d;			/* working set */
	if (p->v[0] > p->v[1])
		p->v[1] = p->v[0];	/* peak */
	p->v[2] += d;			/* private */
	if (r % 600 == 0)
		p->v[3] += 65536.0 * 16;	/* virtual: rare */
	if (r % 3000 == 1)
		p->v[4] += 1;		/* threads */
	p->v[5] += (double)((r >> 8) % 4 == 0 ? (r >> 16) % 50 : 0);	/* faults */
	p->v[6] += d;			/* anon */
	if (r % 300 == 2)
		p->v[7] += 4096;	/* file */
	if ((r >> 20) % 10 == 0) {	/* pss/uss refreshed every ~10 s */
		p->v[10] = p->v[0] * 0.75;
		p->v[11] = p->v[0] * 0.5;
	}
}

static void proc_add(struct mw_store *s, const struct proc *p, int64_t ts)
{
	char pid[16], started[24], key[256];
	struct mw_label l[4];
	int m;

	snprintf(pid, sizeof(pid), "%d", p->pid);
	snprintf(started, sizeof(started), "%lld", (long long)(p->started / 1000));
	for (m = 0; m < PROC_METRICS; m++) {
		size_t n = 3;

		/* sorted by name: kind, pid, process, started */
		if (proc_kind[m]) {
			l[0] = (struct mw_label){ "kind", proc_kind[m] };
			n = 4;
		}
		l[n - 3] = (struct mw_label){ "pid", pid };
		l[n - 2] = (struct mw_label){ "process", "worker" };
		l[n - 1] = (struct mw_label){ "started", started };
		mw_series_key_format(key, sizeof(key), proc_metric[m], l, n);
		mw_store_add(s, key, proc_metric[m], l, n, ts, floor(p->v[m]));
	}
}

static int64_t file_bytes(sqlite3 *db)
{
	sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
	return mw_db_int(db, "PRAGMA page_count") * mw_db_int(db, "PRAGMA page_size");
}

/* The timestamp of tick k (1 s ticks): started 0-2 ms after its due time
 * (a loaded host), stamped as the scheduler stamps it (at_start: as it did
 * before schema 7, the wall time at the start). */
static struct mw_tick_clock tick_clock;
static bool at_start;

static int64_t tick_ts(int64_t k)
{
	int64_t due = 7000000000LL + k * 1000000000LL;
	int64_t start = due + (int64_t)(mw_xorshift(&rng) % 2000001);
	int64_t wall = T0 + (start - 7000000000LL) / 1000000;

	return at_start ? wall : mw_tick_stamp(&tick_clock, due, 1000000000LL, start, wall);
}

/* Tick k of n processes: each moves and adds its series. */
static void procs_tick(struct mw_store *s, struct proc *p, long n, int64_t k)
{
	int64_t ts = tick_ts(k);
	long i;

	for (i = 0; i < n; i++) {
		proc_step(&p[i]);
		proc_add(s, &p[i], ts);
	}
}

static void bench_live_hour(bool start_stamps)
{
	enum { PROCS = 150, TICKS = 3600, FLUSH = 5 };
	static struct proc p[PROCS];
	struct mw_store *s = store_open("bench_storage.tmp.db");
	struct base b;
	int64_t bytes, npoints = (int64_t)PROCS * PROC_METRICS * TICKS;
	double t, ours, base;
	int i, k, m;

	at_start = start_stamps;
	for (i = 0; i < PROCS; i++)
		proc_init(&p[i], 1000 + i, T0 - 86400000LL);
	t = now_s();
	for (k = 0; k < TICKS; k++) {
		procs_tick(s, p, PROCS, k);
		if (k % FLUSH == FLUSH - 1)
			mw_bench_store_flush(s);
	}
	mw_bench_store_flush(s);
	t = now_s() - t;
	bytes = file_bytes(mw_store_db(s));
	ours = (double)bytes / (double)npoints;
	mw_store_free(s);
	mw_test_db_remove("bench_storage.tmp.db");

	base_open(&b, "bench_storage_base.tmp.db");
	sqlite3_exec(b.db, "BEGIN", NULL, NULL, NULL);
	for (k = 0; k < TICKS / 10; k++)
		for (i = 0; i < PROCS; i++) {
			proc_step(&p[i]);
			for (m = 0; m < PROC_METRICS; m++)
				base_insert(&b, i * PROC_METRICS + m, tick_ts(k), floor(p[i].v[m]));
		}
	sqlite3_exec(b.db, "COMMIT", NULL, NULL, NULL);
	base = (double)file_bytes(b.db) / ((double)PROCS * PROC_METRICS * (TICKS / 10));
	base_close(&b, "bench_storage_base.tmp.db");
	at_start = false;
	printf("live daemon hour (%d processes x %d series, 1 s ticks 0-2 ms late, %s, "
	       "flush 5 s): %.2f B/pt file all-in (%.1f MB, %.1f s to write; baseline row table "
	       "%.2f B/pt, ratio %.3f)%s\n", PROCS, PROC_METRICS,
	       start_stamps ? "stamped at start" : "stamped at due time", ours,
	       (double)bytes / 1e6, t, base, ours / base, start_stamps ? "" : " target <= 1.5");
}

/* Processes living two seconds: 20 born per tick for 300 ticks, then the
 * store runs on (a steady process) until they all left memory. */
static void bench_short_lived(void)
{
	enum { BORN = 20, TICKS = 300, LIFE = 2 };
	struct mw_store *s = store_open("bench_storage.tmp.db");
	struct proc steady, p;
	struct base b;
	sqlite3_stmt *ins;
	int64_t before, before_used, bytes, used, nseries = (int64_t)BORN * TICKS * PROC_METRICS;
	double ours, ours_used, base;
	int i, k, m, age;

	proc_init(&steady, 1, T0 - 86400000LL);
	for (k = 0; k < 20; k++) {	/* the file as a running daemon has it */
		proc_add(s, &steady, tick_ts(k));
		mw_bench_store_flush(s);
	}
	before = file_bytes(mw_store_db(s));
	before_used = used_bytes(mw_store_db(s));
	for (k = 20; k < 20 + TICKS + 720; k++) {
		int64_t ts = tick_ts(k);

		proc_step(&steady);
		proc_add(s, &steady, ts);
		for (age = 0; age < LIFE; age++) {
			int born = k - age;

			if (born < 20 || born >= 20 + TICKS)
				continue;
			for (i = 0; i < BORN; i++) {
				rng = (uint64_t)(born * BORN + i) * 0x9e3779b97f4a7c15ULL + 1;
				proc_init(&p, 100000 + born * BORN + i, T0 + (int64_t)born * 1000);
				proc_add(s, &p, ts);
			}
		}
		if (k % 5 == 4)
			mw_bench_store_flush(s);
	}
	mw_bench_store_flush(s);
	bytes = file_bytes(mw_store_db(s)) - before;
	used = used_bytes(mw_store_db(s)) - before_used;
	ours = (double)bytes / (double)nseries;
	ours_used = (double)used / (double)nseries;
	mw_store_free(s);
	mw_test_db_remove("bench_storage.tmp.db");

	/* baseline: a plain catalogue (id, unique key text) and the points as rows */
	base_open(&b, "bench_storage_base.tmp.db");
	if (mw_db_exec(b.db, "CREATE TABLE s (id INTEGER PRIMARY KEY, key TEXT UNIQUE)", NULL) ||
	    sqlite3_prepare_v2(b.db, "INSERT INTO s (key) VALUES (?)", -1, &ins, NULL))
		die_sql(b.db, "baseline");
	sqlite3_exec(b.db, "BEGIN", NULL, NULL, NULL);
	for (k = 0; k < TICKS / 10; k++)
		for (i = 0; i < BORN; i++)
			for (m = 0; m < PROC_METRICS; m++) {
				char key[256], pid[16];
				int64_t id;

				snprintf(pid, sizeof(pid), "%d", 100000 + k * BORN + i);
				snprintf(key, sizeof(key), "%s{%s%s%spid=\"%s\",process=\"worker\","
					 "started=\"%lld\"}", proc_metric[m],
					 proc_kind[m] ? "kind=\"" : "",
					 proc_kind[m] ? proc_kind[m] : "", proc_kind[m] ? "\"," : "",
					 pid, (long long)(T0 / 1000 + k));
				sqlite3_bind_text(ins, 1, key, -1, SQLITE_TRANSIENT);
				if (sqlite3_step(ins) != SQLITE_DONE)
					die_sql(b.db, "baseline");
				sqlite3_reset(ins);
				id = sqlite3_last_insert_rowid(b.db);
				for (age = 0; age < LIFE; age++)
					base_insert(&b, id, T0 + (k + age) * 1000LL, 4096.0 * (double)id);
			}
	sqlite3_exec(b.db, "COMMIT", NULL, NULL, NULL);
	sqlite3_finalize(ins);
	base = (double)used_bytes(b.db) / ((double)(TICKS / 10) * BORN * PROC_METRICS);
	base_close(&b, "bench_storage_base.tmp.db");
	printf("2-second processes (%d x %d series, 2 points each): %.0f bytes per series "
	       "created in pages in use, %.0f with free pages (baseline key table + point rows "
	       "%.0f B, ratio %.2f) target <= 150\n", BORN * TICKS, PROC_METRICS, ours_used, ours,
	       base, ours_used / base);
}

/* ---- a simulated week (issue 26) ---------------------------------------------- */

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v && atol(v) > 0 ? atol(v) : def;
}

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Seconds mw_store_open takes on path (full_check_every_ms 0: the full
 * quick_check, as after a crash; else skipped after the clean stop), the
 * check read at start-up or, for a file of background_from bytes or more,
 * beside the store (storage/bg_check.h: then waited for before closing,
 * untimed). */
/* The store opened with o, timed: wall and CPU seconds (cpu may be NULL);
 * a failure ends the benchmark. */
static struct mw_store *open_timed(const struct mw_store_options *o, double *wall, double *cpu)
{
	struct mw_store *s;
	struct mw_err err;
	double t = now_s(), c = cpu_s();

	if (mw_store_open(&s, o, &err)) {
		fprintf(stderr, "bench_storage: week: %s\n", err.msg);
		exit(1);
	}
	*wall = now_s() - t;
	if (cpu)
		*cpu = cpu_s() - c;
	return s;
}

static double open_seconds(const char *path, int64_t full_check_every_ms, int64_t background_from)
{
	struct mw_store_options o;
	struct mw_store *s;
	double t;

	mw_test_store_options(&o, path);
	o.full_check_every_ms = full_check_every_ms;
	o.full_check_background_from = background_from;
	s = open_timed(&o, &t, NULL);
	mw_store_wait_check(s);
	mw_store_free(s);
	return t;
}

/* The three start-ups on a written file: after its clean stop, with the
 * full check a crash makes read first, and with that check read in the
 * background. */
static void startups(const char *path, double *clean_s, double *full_s, double *bg_s)
{
	*clean_s = open_seconds(path, 7 * 86400000LL, INT64_MAX);
	*full_s = open_seconds(path, 0, INT64_MAX);
	*bg_s = open_seconds(path, 0, 0);
}

/* One start-up on the kept file at path, timed, then the next two ticks
 * of its processes (from tick k; MW_BENCH_WEEK_HOURS and _MINUTES as the
 * file was written), each added and flushed: the first tick after a
 * start-up also takes the open chunks up (series.c), the second is an
 * ordinary one. */
static void reopen_round(const char *path, struct proc *p, long procs, int64_t k)
{
	struct mw_store_options o;
	struct mw_store *s;
	double t, c, tick[2], tick_cpu[2];
	int j;

	mw_test_store_options(&o, path);
	s = open_timed(&o, &t, &c);
	for (j = 0; j < 2; j++) {
		tick[j] = now_s();
		tick_cpu[j] = cpu_s();
		procs_tick(s, p, procs, k + j);
		mw_bench_store_flush(s);
		tick[j] = now_s() - tick[j];
		tick_cpu[j] = cpu_s() - tick_cpu[j];
	}
	mw_store_free(s);
	printf("week: start-up %.3f s after a clean stop (%.3f CPU s); the first tick after it "
	       "%.3f s (%.3f CPU s), the next %.3f s (%.3f CPU s)\n", t, c, tick[0], tick_cpu[0],
	       tick[1], tick_cpu[1]);
}

#ifndef _WIN32
/* to becomes a copy of from. */
static void copy_file(const char *from, const char *to)
{
	FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
	char buf[65536];
	size_t n;

	if (!in || !out) {
		fprintf(stderr, "bench_storage: cannot copy '%s' to '%s'\n", from, to);
		exit(1);
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n) {
			fprintf(stderr, "bench_storage: cannot write '%s'\n", to);
			exit(1);
		}
	fclose(in);
	if (fclose(out)) {
		fprintf(stderr, "bench_storage: cannot write '%s'\n", to);
		exit(1);
	}
}

/* A crash on a copy of the kept file at path: a child process opens it,
 * writes two ticks (from tick k) and dies without closing the store, as
 * a kill would leave it (the WAL holding its last flushes, no clean-stop
 * mark); then the start-up on that copy, timed, and two ticks after it. */
static void crash_round(const char *path, struct proc *p, long procs, int64_t k)
{
	const char *copy = "bench_storage_crash.tmp.db";
	struct mw_store_options o;
	struct mw_store *s;
	struct mw_err err;
	double t, c, tick;
	pid_t child;
	int j, status;

	mw_test_db_remove(copy);
	copy_file(path, copy);
	mw_test_store_options(&o, copy);
	child = fork();
	if (child == 0) {
		if (mw_store_open(&s, &o, &err))
			_exit(1);
		for (j = 0; j < 2; j++) {
			procs_tick(s, p, procs, k + j);
			mw_bench_store_flush(s);
		}
		_exit(0);	/* no mw_store_free: a crash */
	}
	if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "bench_storage: week: the crashing child failed\n");
		exit(1);
	}
	s = open_timed(&o, &t, &c);
	tick = now_s();
	procs_tick(s, p, procs, k + 2);
	mw_bench_store_flush(s);
	tick = now_s() - tick;
	mw_store_wait_check(s);
	mw_store_free(s);
	mw_test_db_remove(copy);
	printf("week: start-up %.3f s after a crash (%.3f CPU s); the first tick after it %.3f s\n",
	       t, c, tick);
}
#endif

/* The tick after the newest point of the kept file at path, so that each
 * MW_BENCH_WEEK_REOPEN run goes on from where the last one left it: the
 * same ticks added again were points older than their chunk's newest (as
 * after a clock step back), and fix_open_bounds decoded every such chunk
 * at each later start-up (0.22-0.26 s of 0.4-0.6 s on a day's file). */
static int64_t next_tick(const char *path)
{
	sqlite3 *db;
	int64_t newest;

	if (sqlite3_open(path, &db) != SQLITE_OK)
		die_sql(db, "week");
	newest = mw_db_int(db, "SELECT max(c.max_ts) FROM series s JOIN chunk c ON c.id = "
			   "s.last_chunk");
	sqlite3_close(db);
	return newest > T0 ? (newest - T0) / 1000 + 1 : 0;
}

/* MW_BENCH_WEEK_PROCS processes (1,000) x the process collector's 12
 * series at 1 s for MW_BENCH_WEEK_DAYS days (7; or MW_BENCH_WEEK_HOURS
 * hours, for a shorter run; plus MW_BENCH_WEEK_MINUTES minutes, so the
 * run can stop in the middle of the open chunks: a whole number of hours
 * ends on a 720-point chunk boundary), through the writer with
 * the default retention and a maintenance step after each flush (every
 * MW_BENCH_WEEK_FLUSH ticks, 5 as the daemon's flush_interval), stopped
 * cleanly: file bytes per point all-in, and the start-up on that file
 * after the clean stop and with the full check a crash makes.
 * MW_BENCH_WEEK_REOPEN: only the start-up and the two ticks after it,
 * three times, on a file an earlier run kept (MW_BENCH_WEEK_KEEP), then
 * three start-ups after a crash (crash_round). */
static void bench_week(void)
{
	const long procs = env_long("MW_BENCH_WEEK_PROCS", 1000);
	const long hours = env_long("MW_BENCH_WEEK_HOURS", 24 * env_long("MW_BENCH_WEEK_DAYS", 7));
	const long flush = env_long("MW_BENCH_WEEK_FLUSH", 5);
	const char *path = "bench_storage_week.tmp.db";
	struct proc *p = calloc((size_t)procs, sizeof(*p));
	const long minutes = env_long("MW_BENCH_WEEK_MINUTES", 0);
	int64_t k, ticks = (int64_t)hours * 3600 + (int64_t)minutes * 60, bytes;
	struct mw_store_options o;
	struct mw_store *s;
	struct mw_err err;
	double t, write_s, clean_s, full_s, bg_s;
	sqlite3 *db;
	long i;

	if (getenv("MW_BENCH_WEEK_REOPEN")) {	/* a file kept by MW_BENCH_WEEK_KEEP */
		int64_t k0 = next_tick(path);

		for (i = 0; i < procs; i++)
			proc_init(&p[i], 1000 + (int)i, T0 - 86400000LL);
		for (i = 0; i < 3; i++)
			reopen_round(path, p, procs, k0 + 2 * i);
#ifndef _WIN32
		for (i = 0; i < 3; i++)	/* each on a copy of the file as it is now */
			crash_round(path, p, procs, k0 + 6);
#endif
		startups(path, &clean_s, &full_s, &bg_s);
		printf("week: start-up %.3f s after a clean stop, %.3f s with the full check read "
		       "first, %.3f s with it read in the background\n", clean_s, full_s, bg_s);
		free(p);
		return;
	}
	mw_test_db_remove(path);
	mw_bench_store_options(&o, path);
	if (!p || mw_store_open(&s, &o, &err)) {
		fprintf(stderr, "bench_storage: week: %s\n", p ? err.msg : "out of memory");
		exit(1);
	}
	for (i = 0; i < procs; i++)
		proc_init(&p[i], 1000 + (int)i, T0 - 86400000LL);
	t = now_s();
	for (k = 0; k < ticks; k++) {
		procs_tick(s, p, procs, k);
		if (k % flush == flush - 1) {
			mw_bench_store_flush(s);
			if (mw_store_maintain(s, T0 + k * 1000, &err))
				fprintf(stderr, "bench_storage: week: %s\n", err.msg);
		}
		if (k % 86400 == 86399)
			fprintf(stderr, "bench_storage: week: day %lld written (%.0f s)\n",
				(long long)(k / 86400 + 1), now_s() - t);
	}
	mw_store_free(s);
	write_s = now_s() - t;
	if (sqlite3_open(path, &db) != SQLITE_OK)
		die_sql(db, "week");
	bytes = file_bytes(db);
	sqlite3_close(db);
	startups(path, &clean_s, &full_s, &bg_s);
	printf("week: %ld processes x %d series x %ld h %ld min at 1 s (flush every %ld s, default "
	       "retention): %.3f B/pt file all-in (%.1f MB, %.0f s to write) target <= 1; "
	       "start-up %.3f s after a clean stop, %.3f s with the full check read first, "
	       "%.3f s with it read in the background target <= 1 s\n",
	       procs, PROC_METRICS, hours, minutes, flush,
	       (double)bytes / ((double)procs * PROC_METRICS * (double)ticks), (double)bytes / 1e6,
	       write_s, clean_s, full_s, bg_s);
	free(p);
	if (!getenv("MW_BENCH_WEEK_KEEP"))
		mw_test_db_remove(path);
}

/*
 * Issue 26: each flush rewrites every live series' open chunk (one
 * UPDATE each), so its cost grows with the series and with the chunks'
 * size.  The baseline is the cheapest durable write of the same points:
 * one row per flush holding them all, raw.
 */
static void bench_flushes(void)
{
	enum { SERIES = 12000, TICKS = 600, EVERY = 5, PHASE = 120 };
	static char (*fkeys)[48];
	static double v[SERIES], raw[SERIES * EVERY * 2];
	struct mw_store *s = store_open("bench_storage.tmp.db");
	double first = 0, last = 0, t, base = 0;
	struct base b;
	sqlite3_stmt *ins;
	int i, k;

	fkeys = calloc(SERIES, sizeof(*fkeys));
	for (i = 0; i < SERIES; i++) {
		snprintf(fkeys[i], sizeof(fkeys[i]), "bench_bytes{id=\"%d\"}", i);
		v[i] = 1e8;
	}
	for (k = 0; k < TICKS; k++) {
		for (i = 0; i < SERIES; i++)
			mw_store_add(s, fkeys[i], "bench_bytes", NULL, 0, T0 + k * 1000LL,
				     realistic_next(i, &v[i]));
		if (k % EVERY != EVERY - 1)
			continue;
		t = cpu_s();
		mw_bench_store_flush(s);
		t = cpu_s() - t;
		if (k >= EVERY && k < PHASE + EVERY)	/* not the first: it inserts the series */
			first += t;
		else if (k >= TICKS - PHASE)
			last += t;
	}
	mw_store_free(s);
	mw_test_db_remove("bench_storage.tmp.db");
	free(fkeys);

	base_open(&b, "bench_storage_base.tmp.db");
	if (sqlite3_prepare_v2(b.db, "CREATE TABLE j (id INTEGER PRIMARY KEY, data BLOB)", -1, &ins,
			       NULL) != SQLITE_OK || sqlite3_step(ins) != SQLITE_DONE)
		die_sql(b.db, "baseline table");
	sqlite3_finalize(ins);
	if (sqlite3_prepare_v2(b.db, "INSERT INTO j (data) VALUES (?)", -1, &ins, NULL) != SQLITE_OK)
		die_sql(b.db, "baseline insert");
	for (k = 0; k < TICKS / EVERY; k++) {
		for (i = 0; i < SERIES * EVERY; i++) {
			raw[2 * i] = (double)(T0 + k * 1000LL);
			raw[2 * i + 1] = realistic_next(i % SERIES, &v[i % SERIES]);
		}
		t = cpu_s();
		sqlite3_exec(b.db, "BEGIN", NULL, NULL, NULL);
		sqlite3_bind_blob(ins, 1, raw, (int)sizeof(raw), SQLITE_STATIC);
		if (sqlite3_step(ins) != SQLITE_DONE)
			die_sql(b.db, "baseline insert");
		sqlite3_reset(ins);
		sqlite3_exec(b.db, "COMMIT", NULL, NULL, NULL);
		base += cpu_s() - t;
	}
	sqlite3_finalize(ins);
	base_close(&b, "bench_storage_base.tmp.db");
	first /= PHASE / EVERY * (double)SERIES;
	last /= PHASE / EVERY * (double)SERIES;
	base /= TICKS / EVERY * (double)SERIES;
	printf("flushes, %d series at 1 s, a flush every %d s: %.2f us CPU per series and flush "
	       "in minutes 1-2, %.2f in minutes 9-10 (baseline: the same points as one row per "
	       "flush %.3f us; ratios %.0f, %.0f)\n", SERIES, EVERY, first * 1e6, last * 1e6,
	       base * 1e6, first / base, last / base);
}

int main(int argc, char **argv)
{
	make_keys();
	if (argc > 1 && !strcmp(argv[1], "query")) {
		bench_bulk();
		bench_query();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "flush")) {
		bench_flushes();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "week")) {
		bench_week();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "bytes")) {
		bench_bytes(1);
		bench_bytes(0);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "history")) {
		bench_history();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "live")) {
		bench_live_hour(true);
		bench_live_hour(false);
		bench_short_lived();
		return 0;
	}
	bench_tick();
	bench_bulk();
	bench_bytes(1);
	bench_bytes(0);
	bench_query();
	bench_small();
	bench_live_hour(true);
	bench_live_hour(false);
	bench_short_lived();
	bench_flushes();
	return 0;
}
