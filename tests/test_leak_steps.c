/*
 * test_leak_steps.c - a leak across a step of the wall clock forward
 * (issue 22): the store holds the step the writer noticed
 * (memwatch_clock_step_seconds) and the leak report reads it, so the hour
 * without points the step left is no missing data and the leak fails;
 * without the step stored the same data is inconclusive ("data mostly
 * missing"), as every verdict was after a step.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "analysis/leak_report.h"
#include "analysis/leak_steps.h"
#include "base/json_out.h"
#include "core/metric_catalog.h"
#include "storage/query.h"
#include "storage/store.h"
#include "tests/support/leak_report_parsed.h"
#include "tests/support/test_db.h"
#include "tests/support/test_main.h"

#define DB "test_leak_steps.tmp.db"
#define MIN 60000LL
#define T0 1790000000000LL	/* 2026-09-21 */

MW_TEST_DB_FIXTURES(DB)

/* 20 MiB/h at 10 s for 40 minutes, an hour without points (the clock
 * stepped forward), 30 more minutes; the step stored when with_step. */
static void write_store(bool with_step)
{
	static const char metric[] = "memwatch_process_private_bytes";
	struct mw_label l[3] = { { "pid", "7" }, { "process", "stepped" }, { "started", "1790000000" } };	/* T0 */
	struct mw_store *s = mw_test_store_open(DB);
	struct mw_err err;
	char key[256];
	double v = 50e6;
	int64_t t;

	assert_non_null(s);
	mw_series_key_format(key, sizeof(key), metric, l, 3);
	for (t = T0; t < T0 + 130 * MIN; t += 10000) {
		if (t >= T0 + 40 * MIN && t < T0 + 100 * MIN)
			continue;	/* the hour the clock jumped over */
		mw_store_add(s, key, metric, l, 3, t, v);
		v += 20.0 * 1048576 / 360;
	}
	if (with_step)
		mw_store_add(s, "memwatch_clock_step_seconds",
			     mw_metric_name(MW_M_CLOCK_STEP_SECONDS), NULL, 0, T0 + 100 * MIN + 2000, 3600.0);
	if (mw_store_flush(s, &err))
		fail_msg("%s", err.msg);
	mw_store_free(s);
}

static cJSON *report(void)
{
	return mw_test_leak_report_of(DB, "stepped");
}

static const char *group_str(const cJSON *rep, const char *key)
{
	const cJSON *g = cJSON_GetArrayItem(cJSON_GetObjectItem(rep, "groups"), 0);

	assert_non_null(g);
	return cJSON_GetObjectItem(g, key)->valuestring;
}

static void leak_across_a_step_fails(void **state)
{
	struct mw_reader *r;
	struct mw_time_hole holes[4];
	struct mw_err err;
	cJSON *rep;

	(void)state;
	write_store(true);
	assert_int_equal(mw_reader_open(&r, DB, &err), 0);
	assert_int_equal(mw_leak_read_holes(r, T0, T0 + 130 * MIN, holes, 4), 1);
	assert_true(holes[0].from_ms <= T0 + 40 * MIN + 2000 && holes[0].to_ms >= T0 + 100 * MIN);
	mw_reader_free(r);
	rep = report();
	assert_string_equal(group_str(rep, "verdict"), "fail");
	cJSON_Delete(rep);
}

static void without_the_step_it_is_missing_data(void **state)
{
	cJSON *rep;

	(void)state;
	write_store(false);
	rep = report();
	assert_string_equal(group_str(rep, "verdict"), "inconclusive");
	assert_non_null(strstr(group_str(rep, "reason"), "data mostly missing"));
	cJSON_Delete(rep);
}

/* The background judgement's window (the last hour here) is the
 * processes' own time: the hour the clock jumped over widens it, so the
 * leak is judged on an hour of data, not on the 30 minutes after the step
 * (with a 35-minute minimum duration: "too little data after warm-up").
 * The process is warm after the step (40 minutes old on its own time):
 * those 30 minutes are judged whole (analysis/leak.c warmup_left), which
 * a minimum of 25 minutes, this test's until session 34, let pass. */
static void window_widened_by_the_hole(void **state)
{
	struct mw_reader *r;
	struct mw_err err;
	struct mw_leak_query q;
	const int64_t to = T0 + 130 * MIN;
	int64_t from;
	cJSON *rep;

	(void)state;
	write_store(true);
	assert_int_equal(mw_reader_open(&r, DB, &err), 0);
	from = mw_leak_window_from(r, to, 60 * MIN);
	mw_reader_free(r);
	/* 30 minutes after the step, 30 before it */
	assert_true(from <= T0 + 10 * MIN + 1000 && from >= T0 + 10 * MIN - 5000);

	mw_leak_query_init(&q);
	q.process = strdup("stepped");
	q.to_ms = to;
	/* judged time needed: 35 minutes */
	q.params.min_duration_ms = 35 * MIN;
	q.from_ms = to - 60 * MIN;	/* the window as the wall clock counts it */
	rep = mw_test_leak_report(DB, &q);
	assert_string_equal(group_str(rep, "verdict"), "inconclusive");
	cJSON_Delete(rep);
	q.from_ms = from;
	rep = mw_test_leak_report(DB, &q);
	assert_string_equal(group_str(rep, "verdict"), "fail");
	cJSON_Delete(rep);
	mw_leak_query_release(&q);

	/* no step stored: the window is what it says */
	write_store(false);
	assert_int_equal(mw_reader_open(&r, DB, &err), 0);
	assert_true(mw_leak_window_from(r, to, 60 * MIN) == to - 60 * MIN);
	mw_reader_free(r);
}

MW_TEST_MAIN(
	MW_FIXTURE_TEST(leak_across_a_step_fails),
	MW_FIXTURE_TEST(without_the_step_it_is_missing_data),
	MW_FIXTURE_TEST(window_widened_by_the_hole),
)
