/*
 * test_future_points.c - a point stamped in the future that is already in
 * the store (a clock-skewed import by an older memwatch, a clock step)
 * does not stand for "now" (issue 22): the processes view still lists the
 * processes sampled just now, and the leak verdicts (check,
 * /api/v1/leaks) still work with a point after year 9999 stored, their
 * open range ending at the present.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/leak_report.h"
#include "base/clock.h"
#include "storage/processes.h"
#include "storage/query.h"
#include "storage/store.h"
#include "tests/support/leak_report_parsed.h"
#include "tests/support/test_db.h"
#include "tests/support/test_main.h"

#define DB "test_future_points.tmp.db"
#define MIN 60000LL

MW_TEST_DB_FIXTURES(DB)

static void add(struct mw_store *s, const char *process, const char *pid, int64_t ts, double v)
{
	static const char metric[] = "memwatch_process_private_bytes";
	struct mw_label l[3] = { { "pid", pid }, { "process", process }, { "started", "1" } };
	char key[256];

	mw_series_key_format(key, sizeof(key), metric, l, 3);
	mw_store_add(s, key, metric, l, 3, ts, v);
}

/* As in the field: an import stores "skewed.exe" with a point at ahead
 * (its own store, closed), then the daemon samples "live.exe" every 10 s
 * up to now. */
static void write_store(int64_t now, int64_t ahead)
{
	struct mw_store *s = mw_test_store_open(DB);
	struct mw_err err;
	int m;

	assert_non_null(s);
	add(s, "skewed.exe", "20", now - 20000, 5);
	add(s, "skewed.exe", "20", ahead, 5);
	mw_store_free(s);
	s = mw_test_store_reopen(DB);
	assert_non_null(s);
	for (m = 30; m >= 0; m--)
		add(s, "live.exe", "10", now - m * 10000LL, 1e6 + m);
	if (mw_store_flush(s, &err))
		fail_msg("%s", err.msg);
	mw_store_free(s);
}

static double no_rate(const double *t_ms, const double *v, size_t n)
{
	(void)t_ms;
	(void)v;
	(void)n;
	return NAN;
}

/* The processes table of the store as the web asks for it now. */
static bool lists_live(int64_t now)
{
	struct mw_reader *r = NULL;
	struct mw_proc_query q;
	struct mw_proc_view v;
	struct mw_err err;
	bool found = false;
	size_t i;

	assert_int_equal(mw_reader_open(&r, DB, &err), 0);
	memset(&q, 0, sizeof(q));
	q.window_ms = 3600000;
	q.sort = MW_PROC_PRIVATE;
	q.limit = 200;
	q.interval_ms = 10000;
	q.now_ms = now;
	q.rate = no_rate;
	if (mw_reader_proc_view(r, &q, &v, &err))
		fail_msg("%s", err.msg);
	for (i = 0; i < v.n; i++)
		if (!strcmp(v.rows[i].process, "live.exe"))
			found = true;
	mw_proc_view_release(&v);
	mw_reader_free(r);
	return found;
}

static void processes_judged_by_the_clock(void **state)
{
	int64_t now = mw_clock_wall_ms();

	(void)state;
	write_store(now, now + 24 * 3600000LL);	/* a day ahead */
	assert_true(lists_live(now));
}

static void processes_after_year_9999(void **state)
{
	int64_t now = mw_clock_wall_ms();

	(void)state;
	write_store(now, MW_TIME_MAX + 3600000LL);
	assert_true(lists_live(now));
}

/* The leak report over everything stored (no from, no to), as `check
 * --db` and GET /api/v1/leaks ask for it. */
static void verdicts_after_year_9999(void **state)
{
	int64_t now = mw_clock_wall_ms();
	struct mw_leak_query q;
	cJSON *rep = NULL;
	const cJSON *to;

	(void)state;
	write_store(now, 300000000000000LL);	/* year 11476 */
	mw_leak_query_init(&q);
	rep = mw_test_leak_report(DB, &q);
	/* the judged range ends at the present, not at the skewed point */
	to = cJSON_GetObjectItemCaseSensitive(rep, "to_ms");
	assert_true(cJSON_IsNumber(to));
	assert_true(to->valuedouble <= (double)mw_clock_wall_ms());
	assert_true(to->valuedouble >= (double)now);
	cJSON_Delete(rep);
	mw_leak_query_release(&q);
}

/* A point a day ahead does not become the store's present: series keep
 * going idle (and leaving memory) as the wall clock passes. */
static void store_present_is_not_the_future(void **state)
{
	struct mw_store *s = mw_test_store_open(DB);
	int64_t now = mw_clock_wall_ms();

	(void)state;
	assert_non_null(s);
	add(s, "skewed.exe", "20", now + 86400000, 5);
	add(s, "live.exe", "10", now, 1e6);
	assert_true(mw_store_now(s) <= mw_clock_wall_ms() + 60000);
	assert_true(mw_store_now(s) >= now);
	mw_store_free(s);
}

MW_TEST_MAIN(
	MW_FIXTURE_TEST(store_present_is_not_the_future),
	MW_FIXTURE_TEST(processes_judged_by_the_clock),
	MW_FIXTURE_TEST(processes_after_year_9999),
	MW_FIXTURE_TEST(verdicts_after_year_9999),
)
