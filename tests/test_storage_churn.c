/*
 * test_storage_churn.c - series that come and go ("weeks unattended"):
 * the writer keeps only live series in memory, start-up loads only those,
 * a series that comes back continues exactly (rollups included), readers
 * answer over dead series and /metrics over live ones only, and first_ts
 * is the first point's timestamp.
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
#include <sqlite3.h>

#include "storage/query.h"
#include "storage/schema.h"
#include "storage/store.h"
#include "core/batch.h"
#include "tests/support/test_db.h"
#include "tests/support/test_reader.h"
#include "tests/support/test_main.h"

#define T0 1699999200000LL	/* a whole hour */
#define DB "test_storage_churn.tmp.db"
#define IDLE 60000		/* the stores' series idle bound here */
#define METRIC "memwatch_process_private_bytes"

MW_TEST_DB_FIXTURES(DB)

/* The store here: series idle after IDLE.  retention_days > 0 keeps raw
 * points that many days, minute rollups twice and hour rollups three
 * times as long; 0 keeps the defaults (mw_store_maintain applies them,
 * and only the retention tests call it). */
static struct mw_store *open_store(int64_t retention_days)
{
	struct mw_store_options o;

	mw_test_store_options(&o, DB);
	o.series_idle_ms = IDLE;
	if (retention_days > 0) {
		o.retention_raw_ms = retention_days * 86400000LL;
		o.retention_1m_ms = 2 * o.retention_raw_ms;
		o.retention_1h_ms = 3 * o.retention_raw_ms;
	}
	return mw_test_store_open_with(&o);
}

static void add(struct mw_store *s, int pid, int64_t ts, double v)
{
	char p[16], key[128];
	struct mw_label l[1] = { { "pid", p } };

	snprintf(p, sizeof(p), "%d", pid);
	mw_series_key_format(key, sizeof(key), METRIC, l, 1);
	mw_store_add(s, key, METRIC, l, 1, ts, v);
}

static void flush(struct mw_store *s)
{
	struct mw_err err;

	if (mw_store_flush(s, &err))
		fail_msg("%s", err.msg);
}

static uint64_t in_memory(struct mw_store *s)
{
	struct mw_store_stats st;

	mw_store_get_stats(s, &st);
	return st.series;
}

static int64_t db_int(struct mw_store *s, const char *sql)
{
	return mw_db_int(mw_store_db(s), sql);
}

/* 1000 short-lived series then one that lives on: once the short-lived
 * ones have been idle longer than the bound they leave memory (and
 * series_live), but stay in the database. */
static void idle_series_leave_memory(void **state)
{
	struct mw_store *s = open_store(0);
	struct mw_store_stats st;
	int i, k;

	(void)state;
	for (k = 0; k < 10; k++) {	/* ten ticks of 100 processes each */
		for (i = 0; i < 100; i++)
			add(s, 1000 + k * 100 + i, T0 + k * 5000, 4096);
		add(s, 1, T0 + k * 5000, 1);
		flush(s);
	}
	assert_int_equal(in_memory(s), 1001);
	for (k = 10; k < 40; k++) {	/* 150 s later, only pid 1 */
		add(s, 1, T0 + k * 5000, 1);
		flush(s);
	}
	mw_store_get_stats(s, &st);
	assert_int_equal(st.series, 1);
	assert_int_equal(st.series_evicted_total, 1000);
	assert_int_equal(db_int(s, "SELECT count(*) FROM series"), 1001);
	assert_int_equal(db_int(s, "SELECT count(*) FROM series_live"), 1);
	assert_int_equal(db_int(s, "SELECT count(*) FROM latest"), 1001);
	/* their buckets in progress are not written when they leave: the raw
	 * points hold them until retention rolls them up */
	assert_int_equal(db_int(s, "SELECT count(*) FROM rollup_1h_data"), 0);
	mw_store_free(s);
}

/* One keyed sample per pid in [from, to) at ts, tail id base + pid (as
 * the process collector adds them), into the store as one batch; ending
 * [end_from, end_to) in the same batch. */
static void add_keyed(struct mw_store *s, int from, int to, int64_t ts, uint64_t base,
		      int end_from, int end_to)
{
	struct mw_batch *b = mw_batch_new();
	char tail[64];
	int pid;

	for (pid = from; pid < to; pid++) {
		struct mw_label *l = mw_batch_alloc(b, sizeof(*l));

		snprintf(tail, sizeof(tail), "{pid=\"%d\"}", pid);
		l->name = "pid";
		l->value = mw_batch_strdup(b, tail + 6);
		((char *)l->value)[strlen(l->value) - 2] = 0;
		mw_batch_add_keyed(b, METRIC, l, 1, tail, strlen(tail), base + (uint64_t)pid,
				   (double)pid, ts);
	}
	for (pid = end_from; pid < end_to; pid++)
		mw_batch_end_tails(b, base + (uint64_t)pid, 1);
	mw_store_add_batch(s, b);
	mw_batch_free(b);
}

/* Series whose process ended (mw_batch_end_tails) leave memory at the
 * flush after their first commit, long before series_idle, with every
 * point stored; a point that comes after all finds the series again. */
static void ended_series_leave_at_once(void **state)
{
	struct mw_store *s = open_store(0);
	struct mw_store_stats st;
	uint64_t base = mw_batch_tail_ids(10000) - 1;

	(void)state;
	add_keyed(s, 1, 101, T0, base, 0, 0);
	flush(s);
	assert_int_equal(in_memory(s), 100);
	/* a second tick: pids 51..100 ended (their last points in this batch) */
	add_keyed(s, 1, 101, T0 + 1000, base, 51, 101);
	flush(s);
	assert_int_equal(in_memory(s), 50);
	mw_store_get_stats(s, &st);
	assert_int_equal(st.series_evicted_total, 50);
	assert_int_equal(db_int(s, "SELECT count(*) FROM series_live"), 50);
	assert_int_equal(db_int(s, "SELECT sum(npoints) FROM chunk"), 200);
	/* ended before its first commit: written first, then leaves */
	add_keyed(s, 200, 201, T0 + 2000, base, 200, 201);
	flush(s);
	assert_int_equal(in_memory(s), 51);
	add_keyed(s, 1, 2, T0 + 3000, base, 0, 0);
	flush(s);
	assert_int_equal(in_memory(s), 50);
	assert_int_equal(db_int(s, "SELECT count(*) FROM series"), 101);
	/* pid 60 again, keys made anew (a new tail id): found again, kept */
	add_keyed(s, 60, 61, T0 + 4000, base + 5000, 0, 0);
	flush(s);
	add_keyed(s, 60, 61, T0 + 5000, base + 5000, 0, 0);
	flush(s);
	assert_int_equal(in_memory(s), 51);
	assert_int_equal(db_int(s, "SELECT count(*) FROM series"), 101);
	assert_int_equal(db_int(s, "SELECT sum(npoints) FROM chunk"), 204);
	mw_store_free(s);
}

/* A series that leaves memory and comes back keeps its id and continues
 * exactly: its rollup buckets in progress when it left are completed with
 * the points before and after. */
static void series_comes_back_exactly(void **state)
{
	struct mw_store *s = open_store(0);
	struct mw_reader *r;
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_store_stats st;
	struct mw_err err;
	int64_t i, n = 0;
	double sum = 0;

	(void)state;
	for (i = 0; i < 30; i++, n++) {	/* pid 7: 30 s of minute 0 */
		add(s, 7, T0 + i * 1000, (double)(100 + i));
		sum += (double)(100 + i);
	}
	flush(s);
	for (i = 0; i < 200; i++) {	/* others go on 200 s: pid 7 leaves */
		add(s, 2, T0 + 40000 + i * 1000, 5);
		flush(s);
	}
	mw_store_get_stats(s, &st);
	assert_int_equal(st.series, 1);
	for (i = 0; i < 60; i++, n++) {	/* pid 7 again, minutes 4 and 5 */
		add(s, 7, T0 + 240000 + i * 2000, (double)(200 + i));
		sum += (double)(200 + i);
	}
	mw_store_get_stats(s, &st);
	assert_int_equal(st.series_reloaded_total, 1);
	mw_store_free(s);

	s = open_store(0);
	assert_int_equal(db_int(s, "SELECT count(*) FROM series_label WHERE name = 'pid' AND value = '7'"), 1);
	mw_store_free(s);
	r = mw_test_reader_open(DB);
	mw_range_query_init(&q, T0, T0 + 3599999);
	q.step_ms = 3600000;
	q.tier = MW_TIER_1H;
	q.agg = MW_AGG_AVG;
	assert_int_equal(mw_reader_range(r, METRIC "{pid=\"7\"}", &q, &res, &err), 0);
	assert_int_equal(res.nseries, 1);
	assert_int_equal(res.nt, 1);
	assert_true(fabs(res.values[0][0] - sum / (double)n) < 1e-9);
	mw_range_result_release(&res);
	q.agg = MW_AGG_MIN;
	assert_int_equal(mw_reader_range(r, METRIC "{pid=\"7\"}", &q, &res, &err), 0);
	assert_true(res.values[0][0] == 100);
	mw_range_result_release(&res);
	mw_range_query_init(&q, T0, T0 + 359999);
	q.step_ms = 60000;
	q.tier = MW_TIER_1M;
	q.agg = MW_AGG_LAST;
	assert_int_equal(mw_reader_range(r, METRIC "{pid=\"7\"}", &q, &res, &err), 0);
	assert_int_equal(res.nt, 6);
	assert_true(res.values[0][0] == 129);
	assert_true(isnan(res.values[0][1]));
	assert_true(res.values[0][4] == 229);
	assert_true(res.values[0][5] == 259);
	mw_range_result_release(&res);
	q.step_ms = MW_STEP_RAW;
	q.tier = MW_TIER_AUTO;
	assert_int_equal(mw_reader_range(r, METRIC "{pid=\"7\"}", &q, &res, &err), 0);
	assert_int_equal(res.nt, (size_t)n);
	mw_range_result_release(&res);
	mw_reader_free(r);
}

/* Start-up loads the live series only, however many dead ones the file
 * holds; a dead one that comes back is found by key. */
static void startup_loads_live_series_only(void **state)
{
	struct mw_store *s = open_store(0);
	struct mw_store_stats st;
	int i;

	(void)state;
	for (i = 0; i < 2000; i++)
		add(s, 10000 + i, T0, i);
	flush(s);
	for (i = 0; i < 5; i++)
		add(s, i, T0 + 2 * IDLE, i);
	flush(s);
	assert_int_equal(in_memory(s), 5);
	mw_store_free(s);

	s = open_store(0);
	assert_int_equal(in_memory(s), 5);
	add(s, 10042, T0 + 2 * IDLE + 1000, 1);
	flush(s);
	mw_store_get_stats(s, &st);
	assert_int_equal(st.series, 6);
	assert_int_equal(st.series_reloaded_total, 1);
	assert_int_equal(db_int(s, "SELECT count(*) FROM series"), 2005);
	assert_int_equal(db_int(s, "SELECT count(*) FROM series_live"), 6);
	mw_store_free(s);
}

/* Readers: selectors find dead series (by name, label, regex, key, id);
 * the newest values are those of live series only. */
static void readers_over_dead_and_live(void **state)
{
	struct mw_store *s = open_store(0);
	struct mw_reader *r = NULL;
	struct mw_series_list sl;
	struct mw_latest_list l;
	struct mw_series_info info;
	struct mw_err err;
	int64_t id;
	int i;

	(void)state;
	for (i = 0; i < 300; i++)
		add(s, 5000 + i, T0 + i, 7);
	flush(s);
	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_latest(r, NULL, &l, &err), 0);
	assert_int_equal(l.n, 300);
	mw_latest_list_release(&l);
	add(s, 1, T0 + 10 * IDLE, 1);
	add(s, 2, T0 + 10 * IDLE, 2);
	flush(s);

	assert_int_equal(mw_reader_latest(r, NULL, &l, &err), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.items[0].info.key, METRIC "{pid=\"1\"}");
	assert_string_equal(l.items[0].info.labels[0].name, "pid");
	assert_true(l.items[1].value == 2);
	mw_latest_list_release(&l);
	assert_int_equal(mw_reader_latest(r, "{pid=\"2\"}", &l, &err), 0);
	assert_int_equal(l.n, 1);
	mw_latest_list_release(&l);
	/* by the metric's name (its own statement): its live series only,
	 * not its 300 dead ones; another name, none */
	assert_int_equal(mw_reader_latest(r, METRIC, &l, &err), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.items[1].info.key, METRIC "{pid=\"2\"}");
	assert_true(l.items[1].value == 2);
	mw_latest_list_release(&l);
	assert_int_equal(mw_reader_latest(r, METRIC "{pid=\"1\"}", &l, &err), 0);
	assert_int_equal(l.n, 1);
	mw_latest_list_release(&l);
	assert_int_equal(mw_reader_latest(r, "memwatch_no_such_metric", &l, &err), 0);
	assert_int_equal(l.n, 0);
	mw_latest_list_release(&l);

	assert_int_equal(mw_reader_find(r, NULL, &sl, &err), 0);
	assert_int_equal(sl.n, 302);
	for (i = 1; i < 302; i++)
		assert_true(strcmp(sl.items[i - 1].key, sl.items[i].key) < 0);
	mw_series_list_release(&sl);
	assert_int_equal(mw_reader_find(r, METRIC, &sl, &err), 0);
	assert_int_equal(sl.n, 302);
	mw_series_list_release(&sl);
	assert_int_equal(mw_reader_find(r, "{pid=\"5042\"}", &sl, &err), 0);
	assert_int_equal(sl.n, 1);
	assert_int_equal(sl.items[0].first_ts, T0 + 42);
	assert_int_equal(sl.items[0].last_ts, T0 + 42);
	assert_int_equal(sl.items[0].nlabels, 1);
	assert_string_equal(sl.items[0].labels[0].value, "5042");
	mw_series_list_release(&sl);
	assert_int_equal(mw_reader_find(r, METRIC "{pid=\"5042\"}", &sl, &err), 0);
	assert_int_equal(sl.n, 1);
	mw_series_list_release(&sl);
	assert_int_equal(mw_reader_find(r, "{__name__=~\"memwatch_.*\",pid=~\"510.\"}", &sl,
					&err), 0);
	assert_int_equal(sl.n, 10);
	mw_series_list_release(&sl);
	assert_int_equal(mw_reader_find(r, "{__name__!=\"x\",pid!~\"5...\"}", &sl, &err), 0);
	assert_int_equal(sl.n, 2);
	mw_series_list_release(&sl);
	assert_int_equal(mw_reader_find(r, "{__name__=~\"nothing.*\"}", &sl, &err), 0);
	assert_int_equal(sl.n, 0);
	mw_series_list_release(&sl);
	assert_int_equal(mw_reader_series_by_key(r, METRIC "{pid=\"5299\"}", &info, &err), 0);
	assert_int_equal(info.first_ts, T0 + 299);
	id = info.id;
	mw_series_info_release(&info);
	assert_int_equal(mw_reader_series_by_id(r, id, &info, &err), 0);
	assert_string_equal(info.key, METRIC "{pid=\"5299\"}");
	mw_series_info_release(&info);
	assert_int_equal(mw_reader_series_by_key(r, METRIC "{pid=\"999999\"}", &info, &err), 1);
	mw_series_info_release(&info);
	mw_reader_free(r);
	mw_store_free(s);
}

static void maintain(struct mw_store *s, int64_t now)
{
	struct mw_err err;
	int i;

	for (i = 0; i < 4; i++)		/* 64 series a step: a few steps */
		if (mw_store_maintain(s, now, &err))
			fail_msg("%s", err.msg);
}

/* "Since when": first_ts is the first point, not the start of the rollup
 * bucket holding it, also once the raw chunks have expired. */
static void first_ts_is_first_point(void **state)
{
	const int64_t start = T0 + 58 * 60000 + 32000;	/* 18:58:32 after 18:00 */
	struct mw_store *s = open_store(0);
	struct mw_reader *r;
	struct mw_series_list sl;
	struct mw_err err;
	int64_t i;

	(void)state;
	for (i = 0; i < 240; i++)	/* into the next hour */
		add(s, 3, start + i * 1000, 10);
	mw_store_free(s);
	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_find(r, "{pid=\"3\"}", &sl, &err), 0);
	assert_int_equal(sl.n, 1);
	assert_int_equal(sl.items[0].first_ts, start);
	assert_int_equal(sl.items[0].last_ts, start + 239000);
	mw_series_list_release(&sl);
	mw_reader_free(r);

	/* raw points expired: the first stored bucket still holds the first
	 * point, whose time retention recorded before the chunk went */
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM series WHERE first_ts IS NULL"), 1);
	s = open_store(1);
	add(s, 4, start + 86400000LL + 7200000, 1);
	flush(s);
	maintain(s, start + 86400000LL + 7200000);
	assert_int_equal(db_int(s, "SELECT count(*) FROM chunk c JOIN series_label l ON "
			 "l.series_id = c.series_id WHERE l.value = '3'"), 0);
	mw_store_free(s);
	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_find(r, "{pid=\"3\"}", &sl, &err), 0);
	assert_int_equal(sl.items[0].first_ts, start);
	mw_series_list_release(&sl);
	mw_reader_free(r);
}

/* One 90 s bucket of pid over [T0, T0 + 90 s) from the 1m tier. */
static void bucket_of(struct mw_reader *r, int pid, double *min, double *max, double *sum,
		      double *last)
{
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_err err;
	char sel[64];
	enum mw_agg aggs[4] = { MW_AGG_MIN, MW_AGG_MAX, MW_AGG_AVG, MW_AGG_LAST };
	double *out[4] = { min, max, sum, last };
	int a;

	snprintf(sel, sizeof(sel), METRIC "{pid=\"%d\"}", pid);
	for (a = 0; a < 4; a++) {
		mw_range_query_init(&q, T0, T0 + 89999);
		q.step_ms = 60000;
		q.agg = aggs[a];
		assert_int_equal(mw_reader_range(r, sel, &q, &res, &err), 0);
		assert_int_equal(res.nseries, 1);
		assert_int_equal(res.nt, 2);
		*out[a] = res.values[0][0];
		mw_range_result_release(&res);
	}
}

/*
 * Processes that lived seconds: their 1-minute bucket is written at the
 * first flush that brings them no point (store.c: it survives a crash);
 * retention rolls up the rest (the hour) before it removes the raw points
 * (the same answers), and once the rollups expired too the series leave
 * the catalogue with their labels.
 */
static void retention_rolls_up_then_removes(void **state)
{
	struct mw_store *s = open_store(1);
	struct mw_reader *r;
	struct mw_series_list sl;
	struct mw_err err;
	double mn, mx, avg, last, mn2, mx2, avg2, last2;
	int i;

	(void)state;
	add(s, 1, T0, 1);	/* id 1; the short ones 2..11 */
	for (i = 0; i < 10; i++) {
		add(s, 100 + i, T0 + 1000, 4096.0 * (i + 2));
		add(s, 100 + i, T0 + 2000, 4096.0 * (i + 1));
		add(s, 100 + i, T0 + 3000, 4096.0 * (i + 3));
	}
	flush(s);
	add(s, 1, T0 + 2 * IDLE, 1);	/* the short ones leave memory */
	flush(s);
	assert_int_equal(in_memory(s), 1);
	/* the short ones' minute (they went quiet), pid 1's completed first
	 * minute; no hour yet */
	assert_int_equal(db_int(s, "SELECT count(*) FROM rollup_1m_data"), 10 + 1);
	assert_int_equal(db_int(s, "SELECT count(*) FROM rollup_1h_data"), 0);
	r = mw_test_reader_open(DB);
	bucket_of(r, 105, &mn, &mx, &avg, &last);
	mw_reader_free(r);
	assert_true(mn == 4096.0 * 6 && mx == 4096.0 * 8 && avg == 4096.0 * 7 &&
		    last == 4096.0 * 8);

	/* a day later: raw expired, rolled up first */
	add(s, 1, T0 + 86400000LL + 3600000, 1);
	flush(s);
	maintain(s, T0 + 86400000LL + 3600000);
	assert_int_equal(db_int(s, "SELECT count(*) FROM chunk c JOIN series_label l ON "
			 "l.series_id = c.series_id WHERE l.value = '105'"), 0);
	assert_int_equal(db_int(s, "SELECT count(*) FROM rollup_1m_all"), 10 + 2);	/* packed too */
	assert_int_equal(db_int(s, "SELECT count(*) FROM rollup_1h_data"), 10 + 1);
	assert_int_equal(db_int(s, "SELECT count(*) FROM series"), 11);
	r = mw_test_reader_open(DB);
	bucket_of(r, 105, &mn2, &mx2, &avg2, &last2);
	assert_true(mn2 == mn && mx2 == mx && avg2 == avg && last2 == last);
	assert_int_equal(mw_reader_find(r, "{pid=\"105\"}", &sl, &err), 0);
	assert_int_equal(sl.n, 1);
	assert_int_equal(sl.items[0].first_ts, T0 + 1000);	/* recorded before expiry */
	mw_series_list_release(&sl);
	mw_reader_free(r);

	/* four days later every row of theirs expired: they go */
	add(s, 1, T0 + 4 * 86400000LL, 1);
	flush(s);
	maintain(s, T0 + 4 * 86400000LL);
	assert_int_equal(db_int(s, "SELECT count(*) FROM series"), 1);
	assert_int_equal(db_int(s, "SELECT count(*) FROM label"), 1);
	assert_int_equal(db_int(s, "SELECT count(*) FROM label_set"), 1);
	assert_int_equal(db_int(s, "SELECT count(*) FROM label_set_member"), 1);
	assert_int_equal(db_int(s, "SELECT count(*) FROM metric"), 1);
	assert_int_equal(db_int(s, "SELECT count(*) FROM series_live"), 1);
	/* a new series never takes a removed one's id */
	add(s, 200, T0 + 4 * 86400000LL, 1);
	flush(s);
	assert_int_equal(db_int(s, "SELECT max(id) FROM series"), 12);
	mw_store_free(s);
	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_find(r, "{pid=\"105\"}", &sl, &err), 0);
	assert_int_equal(sl.n, 0);
	mw_series_list_release(&sl);
	assert_int_equal(mw_reader_find(r, "{pid=\"1\"}", &sl, &err), 0);
	assert_int_equal(sl.n, 1);
	mw_series_list_release(&sl);
	mw_reader_free(r);
}

/* A file of schema 4: its series are not all loaded at the first
 * start-up, only those written in the last two hours. */
static void migration_from_v4(void **state)
{
	struct mw_store *s;
	struct mw_reader *r;
	struct mw_series_list sl;
	struct mw_err err;
	sqlite3 *db;

	(void)state;
	assert_int_equal(sqlite3_open(DB, &db), SQLITE_OK);
	assert_int_equal(mw_schema_migrate(db, 4, &err), 0);
	assert_int_equal(mw_db_exec(db,
		"INSERT INTO series VALUES (1, 'old', 'old', 0, NULL);"
		"INSERT INTO series VALUES (2, 'new', 'new', 0, NULL);"
		"INSERT INTO latest VALUES (1, 1699999200000, 1);"
		"INSERT INTO latest VALUES (2, 1700099200000, 2);", &err), 0);
	sqlite3_close(db);
	s = open_store(0);
	assert_int_equal(mw_schema_version(mw_store_db(s)), MW_SCHEMA_VERSION);
	assert_int_equal(in_memory(s), 1);
	mw_store_free(s);
	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_find(r, "old", &sl, &err), 0);
	assert_int_equal(sl.n, 1);
	mw_series_list_release(&sl);
	mw_reader_free(r);
}

/* A batch of the pids in list[0..n), each point's value = its pid * 1000
 * plus the tick k (so a point in the wrong series shows). */
static void add_batch(struct mw_store *s, const int *list, size_t n, int k)
{
	struct mw_batch b;
	size_t i;

	mw_batch_init(&b);
	for (i = 0; i < n; i++) {
		char p[16];
		struct mw_label l[1] = { { "pid", p } };

		snprintf(p, sizeof(p), "%d", list[i]);
		mw_batch_add(&b, METRIC, l, 1, list[i] * 1000.0 + k, T0 + k * 1000);
	}
	mw_store_add_batch(s, &b);
	mw_batch_release(&b);
}

/* Every raw point of pid's series of metric has value sign * (pid * 1000
 * + its tick), and there are `want` of them. */
static void check_metric_series(struct mw_reader *r, const char *metric, double sign, int pid,
				size_t want)
{
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_err err;
	char sel[96];
	size_t i, got = 0;

	snprintf(sel, sizeof(sel), "%s{pid=\"%d\"}", metric, pid);
	mw_range_query_init(&q, T0, T0 + 3599999);
	q.step_ms = MW_STEP_RAW;
	if (mw_reader_range(r, sel, &q, &res, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(res.nseries, 1);
	for (i = 0; i < res.nt; i++) {
		int64_t k = (res.t[i] - T0) / 1000;

		if (isnan(res.values[0][i]))
			continue;
		got++;
		if (res.values[0][i] != sign * (pid * 1000.0 + (double)k))
			fail_msg("%s tick %lld: %g", sel, (long long)k, res.values[0][i]);
	}
	assert_int_equal(got, want);
	mw_range_result_release(&res);
}

static void check_series(struct mw_reader *r, int pid, size_t want)
{
	check_metric_series(r, METRIC, 1.0, pid, want);
}

/* mw_store_add_batch takes a sample's series from the same place in the
 * batch before when the keys agree: shifted, shrunk, grown, repeated and
 * reordered batches, and a series that left memory between two batches,
 * still put every point in its own series. */
static void batch_order_hint_follows_changes(void **state)
{
	static const int b0[] = { 1, 2, 3, 4 }, b1[] = { 2, 3, 4 }, b2[] = { 9, 1, 2, 3, 4 },
			 b3[] = { 4, 3, 2, 1, 9 }, b4[] = { 1, 1, 2, 2 }, b5[] = { 5, 1, 2 };
	struct mw_store *s = open_store(0);
	struct mw_store_stats st;
	struct mw_reader *r;
	int k = 0;

	(void)state;
	add_batch(s, b0, 4, k++);
	add_batch(s, b0, 4, k++);
	add_batch(s, b1, 3, k++);	/* the first one gone: all shift */
	add_batch(s, b2, 5, k++);	/* a new one in front */
	add_batch(s, b3, 5, k++);	/* reversed */
	add_batch(s, b4, 4, k++);	/* twice each (two ticks' points at one time) */
	add_batch(s, NULL, 0, k++);	/* an empty batch keeps the order */
	add_batch(s, b0, 4, k++);
	flush(s);
	/* 5 comes once; then only 1 and 2 for longer than the idle bound, so
	 * 3, 4, 5 and 9 leave memory at a flush */
	add_batch(s, (const int[]){ 5 }, 1, k++);
	for (; k < 80; k++) {
		add_batch(s, b5 + 1, 2, k);
		flush(s);
	}
	mw_store_get_stats(s, &st);
	assert_true(st.series_evicted_total >= 4);
	add_batch(s, b0, 4, k++);	/* 3 and 4 come back behind 1 and 2 */
	add_batch(s, b5, 3, k++);	/* and 5 in front */
	flush(s);
	mw_store_free(s);
	r = mw_test_reader_open(DB);
	/* ticks 0-7 less those without it (b4's repeated points share a
	 * timestamp: the reader keeps one), 9-79, 80-81 */
	check_series(r, 1, 6 + 71 + 2);	/* not in b1 (2) nor the empty batch (6) */
	check_series(r, 2, 7 + 71 + 2);
	check_series(r, 3, 6 + 1);	/* not in b4 */
	check_series(r, 4, 6 + 1);
	check_series(r, 5, 2);
	check_series(r, 9, 2);
	mw_reader_free(r);
}

/* Statements the store's connection ran in autocommit, each taking and
 * dropping the WAL's read lock on its own (sqlite3_trace_v2), the BEGIN
 * that opens a transaction aside. */
static int autocommit_statements;

static int count_autocommit(unsigned type, void *ctx, void *stmt, void *sql)
{
	(void)type;
	if (sqlite3_get_autocommit(sqlite3_db_handle(stmt)) && strcmp(sql, "BEGIN"))
		(*(int *)ctx)++;
	return 0;
}

/* Fifty series that left memory come back in one batch beside fifty new
 * ones: their look-ups share one read transaction (none runs in
 * autocommit; before, all 600 did), the batch leaves no
 * transaction open (the next flush begins its own), every series is
 * found again, and every point lands in its own series. */
static void batch_lookups_share_one_read(void **state)
{
	int back[100], stay[1] = { 1 }, k = 0, i;
	struct mw_store *s = open_store(0);
	struct mw_store_stats st;
	struct mw_reader *r;

	(void)state;
	for (i = 0; i < 100; i++)
		back[i] = 100 + i;
	add_batch(s, back, 50, k++);	/* 100-149 come once */
	flush(s);
	for (; k < 80; k++) {		/* then only pid 1, past the idle bound */
		add_batch(s, stay, 1, k);
		flush(s);
	}
	mw_store_get_stats(s, &st);
	assert_int_equal(st.series, 1);
	sqlite3_trace_v2(mw_store_db(s), SQLITE_TRACE_STMT, count_autocommit,
			 &autocommit_statements);
	add_batch(s, back, 100, k++);	/* 100-149 again, and 150-199 new */
	sqlite3_trace_v2(mw_store_db(s), 0, NULL, NULL);
	assert_int_equal(autocommit_statements, 0);
	assert_true(sqlite3_get_autocommit(mw_store_db(s)));
	mw_store_get_stats(s, &st);
	assert_int_equal(st.series_reloaded_total, 50);
	assert_int_equal(st.series, 101);
	flush(s);
	mw_store_free(s);
	r = mw_test_reader_open(DB);
	for (i = 0; i < 100; i++)
		check_series(r, back[i], i < 50 ? 2 : 1);
	mw_reader_free(r);
}

/* The keyed path (mw_batch_add_keyed): each pid's two series share a key
 * tail and its id, so only the metric tells them apart; a tail formatted
 * again gets a new id for the same text.  METRIC carries pid * 1000 + k,
 * METRIC2 its negation: a point matched by tail id alone lands in the
 * other metric and shows. */
#define METRIC2 "memwatch_process_virtual_bytes"

static void add_keyed_batch(struct mw_store *s, const int *list, size_t n, int k, bool swap,
			    const uint64_t *ids)
{
	struct mw_batch b;
	size_t i;

	mw_batch_init(&b);
	for (i = 0; i < n; i++) {
		char tail[32], pid_s[16];
		struct mw_label *l = mw_batch_alloc(&b, sizeof(*l));
		int len = snprintf(tail, sizeof(tail), "{pid=\"%d\"}", list[i]);
		double v = list[i] * 1000.0 + k;

		snprintf(pid_s, sizeof(pid_s), "%d", list[i]);
		l->name = "pid";
		l->value = mw_batch_strdup(&b, pid_s);
		if (swap)
			mw_batch_add_keyed(&b, METRIC2, l, 1, tail, (size_t)len, ids[list[i]], -v,
					   T0 + k * 1000);
		mw_batch_add_keyed(&b, METRIC, l, 1, tail, (size_t)len, ids[list[i]], v,
				   T0 + k * 1000);
		if (!swap)
			mw_batch_add_keyed(&b, METRIC2, l, 1, tail, (size_t)len, ids[list[i]], -v,
					   T0 + k * 1000);
	}
	mw_store_add_batch(s, &b);
	mw_batch_release(&b);
}

static void keyed_hint_tells_metrics_apart(void **state)
{
	static const int b0[] = { 1, 2, 3 }, b1[] = { 2, 3 }, b2[] = { 3, 1, 2 };
	uint64_t ids[4];
	struct mw_store *s = open_store(0);
	struct mw_reader *r;
	int k = 0, pid, m;

	(void)state;
	for (pid = 1; pid <= 3; pid++)
		ids[pid] = mw_batch_tail_ids(1);
	add_keyed_batch(s, b0, 3, k++, false, ids);
	add_keyed_batch(s, b0, 3, k++, true, ids);	/* the metrics swap places */
	add_keyed_batch(s, b0, 3, k++, false, ids);
	add_keyed_batch(s, b1, 2, k++, false, ids);	/* shifted */
	ids[2] = mw_batch_tail_ids(1);		/* pid 2's tail formatted again */
	add_keyed_batch(s, b2, 3, k++, true, ids);	/* reordered and swapped */
	add_keyed_batch(s, b2, 3, k++, false, ids);
	flush(s);
	mw_store_free(s);
	r = mw_test_reader_open(DB);
	for (m = 0; m < 2; m++)
		for (pid = 1; pid <= 3; pid++)
			check_metric_series(r, m ? METRIC2 : METRIC, m ? -1.0 : 1.0, pid,
					    pid == 1 ? 5 : 6);
	mw_reader_free(r);
}

MW_TEST_MAIN(
	MW_FIXTURE_TEST(idle_series_leave_memory),
	MW_FIXTURE_TEST(ended_series_leave_at_once),
	MW_FIXTURE_TEST(series_comes_back_exactly),
	MW_FIXTURE_TEST(startup_loads_live_series_only),
	MW_FIXTURE_TEST(readers_over_dead_and_live),
	MW_FIXTURE_TEST(first_ts_is_first_point),
	MW_FIXTURE_TEST(migration_from_v4),
	MW_FIXTURE_TEST(retention_rolls_up_then_removes),
	MW_FIXTURE_TEST(batch_order_hint_follows_changes),
	MW_FIXTURE_TEST(keyed_hint_tells_metrics_apart),
	MW_FIXTURE_TEST(batch_lookups_share_one_read),
)
