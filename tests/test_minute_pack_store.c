/*
 * test_minute_pack_store.c - packed hours of minute rows (schema 9,
 * storage/minute_packer.c, minute_vtab.c) read back through every
 * reader as the rows they replaced: rollup_1m_all row for row, range
 * queries at 60 s, 90 s and 600 s steps bit for bit, first and last,
 * the processes view's past value; a late point for a packed minute;
 * retention and the size cut by whole packs; start-up after a crash
 * with the newest minutes packed; a schema-8 file migrating; the packer
 * at rest between closed hours.
 */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "storage/query.h"
#include "storage/schema.h"
#include "storage/store.h"
#include "tests/support/double_bits.h"
#include "tests/support/test_db.h"
#include "tests/support/test_file.h"
#include "tests/support/test_main.h"
#include "tests/support/test_reader.h"

#define DB "test_minute_pack_store.tmp.db"
#define CRASHED "test_minute_pack_store2.tmp.db"
#define T0 1699999200000LL	/* a whole hour */
#define HOUR_MS 3600000LL
#define EVERY_S 10		/* a point every 10 s */
#define NSERIES 3

MW_TEST_DB_FIXTURES(DB)

static const char *const names[NSERIES] = { "mem", "frac", "gaps" };

/* Series k's value at second sec; NAN: no point (gaps skips minutes). */
static double value(int k, int64_t sec)
{
	int64_t m = sec / 60;

	if (k == 0)
		return 4096.0 * (double)(250000 + (sec * 7919 % 97) + m);
	if (k == 1)
		return 0.1 * (double)(sec % 1000) + 1e-3 * (double)m;
	return m % 7 == 3 || m % 11 == 5 ? NAN : 4096.0 * (double)(m % 5) + 65536.0;
}

static void feed(struct mw_store *s, int64_t from_s, int64_t to_s)
{
	struct mw_err err;
	int64_t sec;
	int k;

	for (sec = from_s; sec < to_s; sec += EVERY_S) {
		for (k = 0; k < NSERIES; k++) {
			char key[32];
			struct mw_label l = { "n", names[k] };
			double v = value(k, sec);

			if (isnan(v))
				continue;
			snprintf(key, sizeof(key), "m{n=\"%s\"}", names[k]);
			mw_store_add(s, key, "m", &l, 1, T0 + sec * 1000, v);
		}
		if (sec % 300 == 0)
			assert_int_equal(mw_store_flush(s, &err), 0);
	}
	/* not a flush without points: it would store the minute in progress */
	if ((to_s - EVERY_S) % 300 != 0)
		assert_int_equal(mw_store_flush(s, &err), 0);
}

static void maintain(struct mw_store *s, int64_t now_ms)
{
	struct mw_err err;

	if (mw_store_maintain(s, now_ms, &err))
		fail_msg("%s", err.msg);
}

/* ---- rows of the tier, as stored values ------------------------------------ */

struct row {
	int64_t series, t, count;
	int type[5];
	uint64_t bits[5];	/* base, min, max, last, sum */
};

struct rows {
	struct row *v;
	size_t n;
};

static sqlite3 *open_db(const char *path)
{
	struct mw_err err;
	sqlite3 *db;

	if (mw_db_open(&db, path, SQLITE_OPEN_READONLY, 1000, "", &err))
		fail_msg("%s", err.msg);
	return db;
}

static struct rows dump(const char *path, const char *table)
{
	sqlite3 *db = open_db(path);
	struct rows r = { calloc(100000, sizeof(struct row)), 0 };
	sqlite3_stmt *st;
	char sql[160];
	int k;

	snprintf(sql, sizeof(sql), "SELECT series_id, t, count, base, min, max, last, sum FROM %s"
		 " ORDER BY series_id, t", table);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		struct row *w = &r.v[r.n++];

		assert_true(r.n < 100000);
		w->series = sqlite3_column_int64(st, 0);
		w->t = sqlite3_column_int64(st, 1);
		w->count = sqlite3_column_int64(st, 2);
		for (k = 0; k < 5; k++) {
			w->type[k] = sqlite3_column_type(st, 3 + k);
			w->bits[k] = mw_test_bits_of(sqlite3_column_double(st, 3 + k));
		}
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return r;
}

static void rows_equal(const struct rows *a, const struct rows *b)
{
	size_t i;

	assert_int_equal(a->n, b->n);
	for (i = 0; i < a->n; i++)
		assert_memory_equal(&a->v[i], &b->v[i], sizeof(struct row));
}

static int64_t db_int(const char *path, const char *sql)
{
	sqlite3 *db = open_db(path);
	int64_t v = mw_db_int(db, sql);

	sqlite3_close(db);
	return v;
}

/* ---- the readers' answers ---------------------------------------------------- */

#define NQUERIES 12

struct answers {
	struct mw_range_result res[NQUERIES];
	int64_t first[NSERIES], last[NSERIES];
	struct mw_latest_list procs;
};

static void ask(const char *path, int64_t to_ms, struct answers *a)
{
	static const int64_t steps[] = { 60000, 90000, 600000 };
	struct mw_reader *r = mw_test_reader_open(path);
	struct mw_range_query q;
	struct mw_series_info info;
	struct mw_err err;
	int i, k;

	for (i = 0; i < NQUERIES; i++) {
		mw_range_query_init(&q, T0 + 150000, to_ms);
		q.step_ms = steps[i % 3];
		q.agg = (enum mw_agg)(i / 3);
		if (q.step_ms != 90000)
			q.tier = MW_TIER_1M;	/* the minutes even where 10 minutes would do */
		if (mw_reader_range(r, "{__name__=\"m\"}", &q, &a->res[i], &err))
			fail_msg("%s", err.msg);
		assert_int_equal(a->res[i].tier, MW_TIER_1M);
		assert_int_equal(a->res[i].nseries, NSERIES);
	}
	for (k = 0; k < NSERIES; k++) {
		char key[32];

		snprintf(key, sizeof(key), "m{n=\"%s\"}", names[k]);
		assert_int_equal(mw_reader_series_by_key(r, key, &info, &err), 0);
		a->first[k] = info.first_ts;
		a->last[k] = info.last_ts;
		mw_series_info_release(&info);
	}
	assert_int_equal(mw_reader_processes(r, 2 * HOUR_MS, &a->procs, &err), 0);
	mw_reader_free(r);
}

static void answers_equal(struct answers *a, struct answers *b)
{
	size_t i, j, s;

	for (i = 0; i < NQUERIES; i++) {
		assert_int_equal(a->res[i].nt, b->res[i].nt);
		assert_true(a->res[i].nt > 10);
		for (s = 0; s < NSERIES; s++)
			for (j = 0; j < a->res[i].nt; j++)
				assert_int_equal(mw_test_bits_of(a->res[i].values[s][j]),
						 mw_test_bits_of(b->res[i].values[s][j]));
		mw_range_result_release(&a->res[i]);
		mw_range_result_release(&b->res[i]);
	}
	for (s = 0; s < NSERIES; s++) {
		assert_int_equal(a->first[s], b->first[s]);
		assert_int_equal(a->last[s], b->last[s]);
	}
	assert_int_equal(a->procs.n, b->procs.n);
	for (i = 0; i < a->procs.n; i++) {
		assert_int_equal(a->procs.items[i].past_ts_ms, b->procs.items[i].past_ts_ms);
		assert_int_equal(mw_test_bits_of(a->procs.items[i].past_value),
				 mw_test_bits_of(b->procs.items[i].past_value));
	}
	mw_latest_list_release(&a->procs);
	mw_latest_list_release(&b->procs);
}

/* ---- tests ------------------------------------------------------------------------ */

/* 3 h 10 min of points: hours 0-2 closed (their 1-hour rows written). */
static struct mw_store *three_hours(void)
{
	struct mw_store *s = mw_test_store_open(DB);

	assert_non_null(s);
	feed(s, 0, 3 * 3600 + 600);
	return s;
}

static void readers_see_packed_minutes_as_rows(void **state)
{
	struct mw_store *s = three_hours();
	struct answers before, after;
	struct rows loose, all;
	int64_t loose_n;

	(void)state;
	loose = dump(DB, "rollup_1m_data");
	all = dump(DB, "rollup_1m_all");
	rows_equal(&loose, &all);	/* nothing packed yet: the same rows */
	free(all.v);
	ask(DB, T0 + 3 * HOUR_MS + 599999, &before);
	maintain(s, T0 + 3 * HOUR_MS + 600000);
	/* each series' three closed hours packed, only the open hour loose;
	 * but "frac", whose fractions would pack into more than a page can
	 * hold, stays loose (minute_packer.c PACK_MAX_BYTES) */
	assert_int_equal(db_int(DB, "SELECT count(*) FROM rollup_1m_pack"), 3 * (NSERIES - 1));
	assert_int_equal(db_int(DB, "SELECT count(*) FROM rollup_1m_data WHERE t < "
				"28333320 + 180 AND series_id != 2"), 0);
	assert_int_equal(db_int(DB, "SELECT count(*) FROM rollup_1m_data WHERE t < "
				"28333320 + 180 AND series_id = 2"), 180);
	loose_n = db_int(DB, "SELECT count(*) FROM rollup_1m_data");
	assert_true(loose_n > 180 && loose_n <= 10 * NSERIES + 180);
	/* the memory series' packs take a few bytes a minute (rows: ~29) */
	assert_true(db_int(DB, "SELECT sum(length(data)) FROM rollup_1m_pack"
			   " WHERE series_id = 1") <= 3 * 60 * 8);
	all = dump(DB, "rollup_1m_all");
	rows_equal(&loose, &all);
	free(all.v);
	ask(DB, T0 + 3 * HOUR_MS + 599999, &after);
	answers_equal(&before, &after);
	/* another step finds nothing more to pack */
	maintain(s, T0 + 3 * HOUR_MS + 600000);
	assert_int_equal(db_int(DB, "SELECT count(*) FROM rollup_1m_data"), loose_n);
	mw_store_free(s);
	free(loose.v);
}

/* More closed hours than a step's budget of rows (minute_packer.c,
 * PACK_ROWS 8,192): a step stops inside a series, and the next resumes
 * there; every minute is still there, packed or loose. */
static void a_step_that_runs_out_loses_no_minute(void **state)
{
	enum { MANY = 150 };	/* 150 x 60 rows of a closed hour: 9,000 */
	struct mw_store *s = mw_test_store_open(DB);
	struct rows loose, all;
	struct mw_err err;
	int64_t sec;
	int k, step;

	(void)state;
	assert_non_null(s);
	for (sec = 0; sec < 3600 + 600; sec += 60) {
		for (k = 0; k < MANY; k++) {
			char key[32], name[16];
			struct mw_label l = { "n", name };

			snprintf(name, sizeof(name), "s%d", k);
			snprintf(key, sizeof(key), "m{n=\"%s\"}", name);
			mw_store_add(s, key, "m", &l, 1, T0 + sec * 1000, 4096.0 * (double)(k + sec));
		}
		assert_int_equal(mw_store_flush(s, &err), 0);
	}
	loose = dump(DB, "rollup_1m_data");
	for (step = 0; step < 4; step++)
		maintain(s, T0 + HOUR_MS + 600000);
	/* every closed hour packed, in more than one step */
	assert_int_equal(db_int(DB, "SELECT count(*) FROM rollup_1m_pack"), MANY);
	all = dump(DB, "rollup_1m_all");
	rows_equal(&loose, &all);
	mw_store_free(s);
	free(loose.v);
	free(all.v);
}

/* The row of minute t of series id in rollup_1m_all, or fails. */
static struct row row_at(const struct rows *r, int64_t id, int64_t t)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->v[i].series == id && r->v[i].t == t)
			return r->v[i];
	fail_msg("no row %lld of series %lld", (long long)t, (long long)id);
	return r->v[0];
}

/* The rows of the closed hours 0-2. */
static size_t closed_rows(const struct rows *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->n; i++)
		n += r->v[i].t < T0 / 60000 + 180;
	return n;
}

static double num(const struct row *w, int k)
{
	return mw_test_from_bits(w->bits[k]);
}

static void late_point_merges_into_a_packed_minute(void **state)
{
	struct mw_store *s = three_hours();
	const int64_t t = T0 / 60000 + 30, sec = 30 * 60 + 5;
	struct rows before, merged, repacked;
	struct row old, now;
	struct mw_err err;

	(void)state;
	maintain(s, T0 + 3 * HOUR_MS + 600000);
	before = dump(DB, "rollup_1m_all");
	old = row_at(&before, 1, t);
	/* a point between stored ones of minute 30 (hour 0, packed): an
	 * import, or the clock stepped back */
	mw_store_add(s, "m{n=\"mem\"}", "m", &(struct mw_label){ "n", "mem" }, 1,
		     T0 + sec * 1000, 4096.0 * 1e6);
	assert_int_equal(mw_store_flush(s, &err), 0);
	/* a loose row stands for the minute, merged with the packed one */
	assert_int_equal(db_int(DB, "SELECT count(*) FROM rollup_1m_data WHERE series_id = 1"
				" AND t = 28333350"), 1);
	merged = dump(DB, "rollup_1m_all");
	/* no other minute of the closed hours changed (the other series'
	 * minute in progress was written: they got no point in that flush) */
	assert_int_equal(closed_rows(&merged), closed_rows(&before));
	now = row_at(&merged, 1, t);
	assert_int_equal(now.count, old.count + 1);
	assert_true(num(&now, 0) + num(&now, 2) == 4096.0 * 1e6);	/* the new max */
	assert_true(num(&now, 0) * (double)now.count + num(&now, 4) ==
		    num(&old, 0) * (double)old.count + num(&old, 4) + 4096.0 * 1e6);
	assert_true(num(&now, 0) + num(&now, 3) == num(&old, 0) + num(&old, 3));	/* last stays */
	/* the next step folds it into the pack: the same rows, no loose one */
	maintain(s, T0 + 3 * HOUR_MS + 600000);
	assert_int_equal(db_int(DB, "SELECT count(*) FROM rollup_1m_data WHERE series_id = 1"
				" AND t = 28333350"), 0);
	repacked = dump(DB, "rollup_1m_all");
	rows_equal(&merged, &repacked);
	mw_store_free(s);
	free(before.v);
	free(merged.v);
	free(repacked.v);
}

static void retention_drops_whole_packs(void **state)
{
	struct mw_store *s = three_hours();
	struct mw_store_options o;
	int64_t now = T0 + 90 * 86400000LL + HOUR_MS + HOUR_MS / 2;

	(void)state;
	maintain(s, T0 + 3 * HOUR_MS + 600000);
	mw_store_free(s);
	/* 90 days later, retention_1m's cutoff half-way into hour 1 */
	mw_test_store_options(&o, DB);
	o.retention_raw_ms = 0;
	s = mw_test_store_open_with(&o);
	assert_non_null(s);
	maintain(s, now);
	/* hour 0 goes whole; hour 1, which the cutoff falls in, stays (hour
	 * 3 was closed by the clean stop and packed by the same step) */
	assert_int_equal(db_int(DB, "SELECT count(*) FROM rollup_1m_pack WHERE series_id != 2"),
			 3 * (NSERIES - 1));
	assert_int_equal(db_int(DB, "SELECT count(*) FROM rollup_1m_data WHERE series_id != 2"), 0);
	assert_int_equal(db_int(DB, "SELECT min(h) FROM rollup_1m_pack"), T0 / HOUR_MS + 1);
	assert_int_equal(db_int(DB, "SELECT min(t) FROM rollup_1m_all"), T0 / 60000 + 60);
	mw_store_free(s);
	/* a series with nothing left but packs is not emptied */
	assert_int_equal(db_int(DB, "SELECT count(*) FROM series"), NSERIES);
}

static void size_cut_takes_oldest_packs_first(void **state)
{
	struct mw_store *s = three_hours();
	struct mw_store_options o;
	int64_t tens, packs, i;

	(void)state;
	maintain(s, T0 + 3 * HOUR_MS + 600000);
	mw_store_free(s);
	tens = db_int(DB, "SELECT count(*) FROM rollup_10m_data");
	mw_test_store_options(&o, DB);
	o.max_db_bytes = 4096;	/* nothing fits: everything that may go goes */
	s = mw_test_store_open_with(&o);
	assert_non_null(s);
	for (i = 0; i < 200; i++) {
		maintain(s, T0 + 3 * HOUR_MS + 600000);
		packs = db_int(DB, "SELECT count(*) FROM rollup_1m_pack");
		/* per series the packs left are the newest, contiguous (hour 3
		 * closed by the clean stop and packed by the first step) */
		assert_int_equal(db_int(DB, "SELECT count(*) FROM (SELECT series_id FROM"
					" rollup_1m_pack GROUP BY series_id"
					" HAVING max(h) - min(h) + 1 != count(*)"
					" OR max(h) != 28333320 / 60 + 3)"), 0);
		/* the minute tier goes before the 10-minute one */
		if (db_int(DB, "SELECT count(*) FROM rollup_10m_data") < tens)
			assert_int_equal(packs, 0);
	}
	/* the older hours went (the newest may stay while the horizon,
	 * which slows as it nears now, has not passed its end) */
	assert_true(db_int(DB, "SELECT count(*) FROM rollup_1m_pack") <= NSERIES);
	mw_store_free(s);
}

/* Expected minute aggregates of series k over [from_s, to_s). */
static void expect(int k, int64_t from_s, int64_t to_s, double *min, double *max, double *sum,
		   int64_t *count)
{
	int64_t sec;

	*min = INFINITY, *max = -INFINITY, *sum = 0, *count = 0;
	for (sec = from_s; sec < to_s; sec += EVERY_S) {
		double v = value(k, sec);

		if (isnan(v))
			continue;
		*min = fmin(*min, v);
		*max = fmax(*max, v);
		*sum += v;
		(*count)++;
	}
}

static void bucket_is(const char *path, const char *table, int64_t id, int64_t t, int k,
		      int64_t from_s, int64_t to_s)
{
	char sql[300];
	double min, max, sum;
	int64_t count;

	expect(k, from_s, to_s, &min, &max, &sum, &count);
	snprintf(sql, sizeof(sql), "SELECT count FROM %s WHERE series_id = %lld AND t = %lld",
		 table, (long long)id, (long long)t);
	assert_int_equal(db_int(path, sql), count ? count : -1);	/* -1: no row */
	if (!count)
		return;
	/* the sum within rounding: minutes add up in another order than points */
	snprintf(sql, sizeof(sql), "SELECT abs(base * count + sum - %.17g) <= 1e-9 * %.17g"
		 " AND base + max = %.17g AND base + min = %.17g FROM %s"
		 " WHERE series_id = %lld AND t = %lld", sum, fabs(sum), max, min, table,
		 (long long)id, (long long)t);
	if (db_int(path, sql) != 1)
		fail_msg("%s series %lld bucket %lld: not min %.17g max %.17g sum %.17g", table,
			 (long long)id, (long long)t, min, max, sum);
}

static void crash_with_the_newest_minutes_packed(void **state)
{
	struct mw_store *s = mw_test_store_open(DB);
	const int64_t h0 = T0 / HOUR_MS, m0 = T0 / 60000;
	int k;

	(void)state;
	assert_non_null(s);
	mw_test_db_remove(CRASHED);
	/* hours 0-2 and 5 s of hour 3: the minute in progress not stored,
	 * the newest stored minute is 2:59, packed with its hour */
	feed(s, 0, 3 * 3600 + 10);
	maintain(s, T0 + 3 * HOUR_MS + 10000);
	assert_int_equal(db_int(DB, "SELECT count(*) FROM rollup_1m_data WHERE series_id != 2"), 0);
	assert_int_equal(db_int(DB, "SELECT count(*) FROM rollup_1m_pack"), 3 * (NSERIES - 1));
	/* a crash now: the files as they are, opened elsewhere */
	mw_test_copy_file(DB, CRASHED);
	mw_test_copy_file(DB "-wal", CRASHED "-wal");
	mw_store_free(s);
	s = mw_test_store_reopen(CRASHED);
	assert_non_null(s);
	feed(s, 3 * 3600 + 10, 4 * 3600 + 60);
	mw_store_free(s);
	/* the buckets the restart rebuilt from the packed minutes and raw
	 * points: 2:50-3:00, the hour 2, and the hour 3 after it */
	for (k = 0; k < NSERIES; k++) {
		bucket_is(CRASHED, "rollup_10m_data", k + 1, m0 / 10 + 17, k, 170 * 60, 180 * 60);
		bucket_is(CRASHED, "rollup_1h_data", k + 1, h0 + 2, k, 2 * 3600, 3 * 3600);
		bucket_is(CRASHED, "rollup_1h_data", k + 1, h0 + 3, k, 3 * 3600, 4 * 3600);
		bucket_is(CRASHED, "rollup_1m_all", k + 1, m0 + 178, k, 178 * 60, 179 * 60);
		bucket_is(CRASHED, "rollup_1m_all", k + 1, m0 + 180, k, 180 * 60, 181 * 60);
	}
	mw_test_db_remove(CRASHED);
}

static void schema_8_file_migrates(void **state)
{
	struct mw_store *s;
	struct mw_err err;
	sqlite3 *db;

	(void)state;
	assert_int_equal(sqlite3_open(DB, &db), SQLITE_OK);
	assert_int_equal(mw_schema_migrate(db, 8, &err), 0);
	assert_int_equal(mw_db_exec(db, "INSERT INTO metric (id, name) VALUES (1, 'm');"
				    "INSERT INTO series (id, metric_id, set_id) VALUES (1, 1, 0);"
				    "INSERT INTO rollup_1m_data VALUES (1, 28333320, 7, 0, 2, 1, 3, 3);"
				    "INSERT INTO rollup_1h_data VALUES (1, 472222, 7, 0, 2, 1, 3, 3);",
				    &err), 0);
	sqlite3_close(db);
	s = mw_test_store_reopen(DB);
	assert_non_null(s);
	assert_int_equal(mw_schema_version(mw_store_db(s)), MW_SCHEMA_VERSION);
	maintain(s, T0 + 2 * HOUR_MS);
	mw_store_free(s);
	/* its closed hour packed, read back as the row it was */
	assert_int_equal(db_int(DB, "SELECT count(*) FROM rollup_1m_pack"), 1);
	assert_int_equal(db_int(DB, "SELECT count(*) FROM rollup_1m_data"), 0);
	assert_int_equal(db_int(DB, "SELECT base * 1000 + max * 100 + last * 10 + sum"
				" FROM rollup_1m_all WHERE series_id = 1 AND t = 28333320"), 7213);
}

/* Statements of the packer's sweep run (sqlite3_trace_v2): each visited
 * series' newest closed hour is looked up. */
static int count_sweeps(unsigned type, void *ctx, void *stmt, void *sql)
{
	(void)type;
	(void)stmt;
	if (strstr(sql, "SELECT max(t) FROM rollup_1h_data"))
		(*(int *)ctx)++;
	return 0;
}

/* With every closed hour packed, the packer rests: the steps after
 * flushes that close no hour look at no series; the flush that closes
 * the next hour wakes it, and that hour is packed. */
static void the_packer_rests_until_an_hour_closes(void **state)
{
	struct mw_store *s = three_hours();
	int looks = 0;

	(void)state;
	maintain(s, T0 + 3 * HOUR_MS + 600000);
	assert_int_equal(db_int(DB, "SELECT count(*) FROM rollup_1m_pack"), 3 * (NSERIES - 1));
	sqlite3_trace_v2(mw_store_db(s), SQLITE_TRACE_STMT, count_sweeps, &looks);
	/* the sweep that found nothing: then at rest */
	maintain(s, T0 + 3 * HOUR_MS + 600000);
	looks = 0;
	/* 40 more minutes, none closing an hour: no look */
	feed(s, 3 * 3600 + 600, 3 * 3600 + 3000);
	maintain(s, T0 + 3 * HOUR_MS + 3000000);
	maintain(s, T0 + 3 * HOUR_MS + 3000000);
	assert_int_equal(looks, 0);
	/* hour 3 closes: looked at again, and packed */
	feed(s, 3 * 3600 + 3000, 4 * 3600 + 300);
	maintain(s, T0 + 4 * HOUR_MS + 300000);
	sqlite3_trace_v2(mw_store_db(s), 0, NULL, NULL);
	assert_int_equal(looks, NSERIES);
	assert_int_equal(db_int(DB, "SELECT count(*) FROM rollup_1m_pack"), 4 * (NSERIES - 1));
	assert_int_equal(db_int(DB, "SELECT count(*) FROM rollup_1m_data WHERE t < "
				"28333320 + 240 AND series_id != 2"), 0);
	mw_store_free(s);
}

MW_TEST_MAIN(
	MW_FIXTURE_TEST(readers_see_packed_minutes_as_rows),
	MW_FIXTURE_TEST(a_step_that_runs_out_loses_no_minute),
	MW_FIXTURE_TEST(late_point_merges_into_a_packed_minute),
	MW_FIXTURE_TEST(retention_drops_whole_packs),
	MW_FIXTURE_TEST(size_cut_takes_oldest_packs_first),
	MW_FIXTURE_TEST(crash_with_the_newest_minutes_packed),
	MW_FIXTURE_TEST(schema_8_file_migrates),
	MW_FIXTURE_TEST(the_packer_rests_until_an_hour_closes),
)
