/*
 * test_leak_mapped.c - resident file pages that only fill files the
 * process had mapped before pass; a leak of mappings, or pages beyond
 * what is mapped, stays a fail (analysis/leak_bound.c,
 * mw_leak_mapped_bound; issue 20: the recorded indexer ok_mapscan read
 * through a 1 GiB file it mapped once and failed "mapped").
 *
 * One hour at 1-minute floors: resident file pages rising 600 MiB/h from
 * 20 MiB, judged with the defaults (a fail), then held against traces of
 * what is mapped built for each case.  Then through the report, as an
 * unwatched Linux process records it: RssFile against statm's size less
 * its data; and as Windows records it: the shareable working set against
 * the virtual size less private bytes, a watched process's working-set
 * categories saying whether views of files or a section grew.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "analysis/leak.h"
#include "analysis/leak_report.h"
#include "storage/store.h"
#include "tests/support/leak_report_parsed.h"
#include "tests/support/test_db.h"

#define DB "test_leak_mapped.tmp.db"

#define N 60
#define STEP 60000LL
#define T0 1790000000000LL
#define MIB 1048576.0

static double resident[N], mapped[N];

/* 20 MiB + 600 MiB/h, with a few pages of wobble so it is no ruler line. */
static void build_resident(void)
{
	int i;

	for (i = 0; i < N; i++)
		resident[i] = 20 * MIB + 10 * MIB * i + (i % 3) * 16384.0;
}

static struct mw_trace trace_of(const double *v)
{
	return (struct mw_trace){ T0, STEP, v, N };
}

/* resident judged with the defaults (a fail), then held against
 * mapped[] as pages of what: the bound's answer, with the verdict it
 * leaves in *r. */
static int bound_as(enum mw_leak_mapped_what what, struct mw_leak_result *r)
{
	struct mw_leak_params p;
	struct mw_trace res = trace_of(resident), m = trace_of(mapped);
	int bounded;

	mw_leak_params_init(&p);
	mw_leak_judge(&res, &p, r);
	assert_int_equal(r->verdict, MW_VERDICT_FAIL);
	bounded = mw_leak_mapped_bound(&m, &res, &p, what, r);
	assert_int_equal(r->verdict, bounded ? MW_VERDICT_PASS : MW_VERDICT_FAIL);
	return bounded;
}

static int bound_of(struct mw_leak_result *r)
{
	return bound_as(MW_LEAK_MAPPED_FILES, r);
}

static void mapped_flat_at(double level)
{
	int i;

	for (i = 0; i < N; i++)
		mapped[i] = level + (i % 2) * 4096.0;
}

/* an indexer reading through a 1 GiB file it mapped at its start */
static void reading_a_mapped_file_passes(void **state)
{
	struct mw_leak_result r;

	(void)state;
	mapped_flat_at(1100 * MIB);
	assert_int_equal(bound_of(&r), 1);
	assert_non_null(strstr(r.reason, "reading through files it had mapped before"));
	assert_non_null(strstr(r.reason, "no leak"));
	/* a pass shows no leak-like figure */
	assert_true(isnan(r.slope_bph));
	assert_true(r.projected_bytes == 0);
}

/* Windows: the reason says what the pages lie in */
static void the_reason_names_views_on_windows(void **state)
{
	struct mw_leak_result r;

	(void)state;
	mapped_flat_at(1100 * MIB);
	assert_int_equal(bound_as(MW_LEAK_MAPPED_FILE_VIEWS, &r), 1);
	assert_non_null(strstr(r.reason, "file pages Windows takes back"));
	assert_int_equal(bound_as(MW_LEAK_MAPPED_VIEWS, &r), 1);
	assert_non_null(strstr(r.reason, "filling views it had mapped before"));
	assert_non_null(strstr(r.reason, "watch it to tell"));
	assert_null(strstr(r.reason, "page cache"));
}

/* files mapped and never unmapped: what is mapped grows with the pages */
static void a_leak_of_mappings_still_fails(void **state)
{
	struct mw_leak_result r;
	int i;

	(void)state;
	for (i = 0; i < N; i++)
		mapped[i] = 40 * MIB + 10 * MIB * i;
	assert_int_equal(bound_of(&r), 0);
}

/* a mapping of 300 MiB added within the span, then filled: a step that
 * passes alone, but more than the budget allows over the horizon */
static void a_large_mapping_added_in_the_span_still_fails(void **state)
{
	struct mw_leak_result r;
	int i;

	(void)state;
	for (i = 0; i < N; i++)
		mapped[i] = (i < 20 ? 800 * MIB : 1100 * MIB);
	assert_int_equal(bound_of(&r), 0);
}

/* resident pages beyond what is mapped: series that do not match */
static void pages_beyond_the_mappings_still_fail(void **state)
{
	struct mw_leak_result r;

	(void)state;
	mapped_flat_at(300 * MIB);
	assert_int_equal(bound_of(&r), 0);
}

/* what is mapped read only in the first half: no bound */
static void stale_mappings_still_fail(void **state)
{
	struct mw_leak_result r;
	int i;

	(void)state;
	mapped_flat_at(1100 * MIB);
	for (i = N / 2; i < N; i++)
		mapped[i] = NAN;
	assert_int_equal(bound_of(&r), 0);
}

/* only a byte fail is looked at */
static void only_a_byte_fail_is_bounded(void **state)
{
	struct mw_leak_params p;
	struct mw_leak_result r;
	struct mw_trace res = trace_of(resident), m = trace_of(mapped);

	(void)state;
	mapped_flat_at(1100 * MIB);
	mw_leak_params_init(&p);
	mw_leak_judge(&res, &p, &r);
	p.count_unit = "handles";
	assert_int_equal(mw_leak_mapped_bound(&m, &res, &p, MW_LEAK_MAPPED_FILES, &r), 0);
	p.count_unit = NULL;
	r.verdict = MW_VERDICT_INCONCLUSIVE;
	assert_int_equal(mw_leak_mapped_bound(&m, &res, &p, MW_LEAK_MAPPED_FILES, &r), 0);
	assert_int_equal(r.verdict, MW_VERDICT_INCONCLUSIVE);
}

/* ---- through the report ----------------------------------------------------- */

MW_TEST_DB_FIXTURES(DB)

/* An hour at 10 s of one process: RssFile 20 MiB + 600 MiB/h, private
 * bytes flat, statm's size 1.1 GiB above its data (maps_grow: size
 * growing with the pages, a new mapping for each). */
static void write_process(bool maps_grow)
{
	struct mw_label l[3] = { { "pid", "4343" }, { "process", "indexer" }, { "started", "77" } };
	struct mw_label lf[4] = { { "kind", "file" }, { "pid", "4343" }, { "process", "indexer" },
				  { "started", "77" } };
	struct mw_store *s = mw_test_store_open(DB);
	struct mw_err err;
	char kf[256], kp[256], kv[256], kd[256];
	int64_t i;

	assert_non_null(s);
	mw_series_key_format(kf, sizeof(kf), "memwatch_process_resident_bytes", lf, 4);
	mw_series_key_format(kp, sizeof(kp), "memwatch_process_private_bytes", l, 3);
	mw_series_key_format(kv, sizeof(kv), "memwatch_process_virtual_bytes", l, 3);
	mw_series_key_format(kd, sizeof(kd), "memwatch_process_data_bytes", l, 3);
	for (i = 0; i < 360; i++) {
		double t_h = (double)i / 360.0;
		double file = 20 * MIB + 600 * MIB * t_h + (i % 3) * 16384.0;
		double data = 6 * MIB;
		double virt = data + (maps_grow ? 40 * MIB + 600 * MIB * t_h : 1100 * MIB);

		mw_store_add(s, kf, "memwatch_process_resident_bytes", lf, 4, T0 + i * 10000, file);
		mw_store_add(s, kp, "memwatch_process_private_bytes", l, 3, T0 + i * 10000, 5 * MIB);
		mw_store_add(s, kv, "memwatch_process_virtual_bytes", l, 3, T0 + i * 10000, virt);
		mw_store_add(s, kd, "memwatch_process_data_bytes", l, 3, T0 + i * 10000, data);
	}
	if (mw_store_flush(s, &err))
		fail_msg("%s", err.msg);
	mw_store_free(s);
}

static void report_passes_reading_through_a_mapped_file(void **state)
{
	cJSON *rep, *g, *mapped_aspect;

	(void)state;
	write_process(false);
	g = mw_test_leak_group_of(DB, "indexer", &rep);
	assert_non_null(g);
	assert_string_equal(cJSON_GetObjectItem(g, "verdict")->valuestring, "pass");
	/* the group's reason says why its resident set rose, not "flat" */
	assert_string_equal(cJSON_GetObjectItem(g, "aspect")->valuestring, "mapped");
	assert_non_null(strstr(cJSON_GetObjectItem(g, "reason")->valuestring, "page cache"));
	mapped_aspect = cJSON_GetObjectItem(cJSON_GetObjectItem(g, "aspects"), "mapped");
	assert_non_null(mapped_aspect);
	assert_string_equal(cJSON_GetObjectItem(mapped_aspect, "verdict")->valuestring, "pass");
	assert_non_null(strstr(cJSON_GetObjectItem(mapped_aspect, "reason")->valuestring,
			       "reading through files it had mapped before"));
	cJSON_Delete(rep);
}

static void report_fails_a_leak_of_mappings(void **state)
{
	cJSON *rep, *g;

	(void)state;
	write_process(true);
	g = mw_test_leak_group_of(DB, "indexer", &rep);
	assert_non_null(g);
	assert_string_equal(cJSON_GetObjectItem(g, "verdict")->valuestring, "fail");
	assert_string_equal(cJSON_GetObjectItem(g, "kind")->valuestring, "mapped");
	cJSON_Delete(rep);
}

/* ---- Windows, through the report ------------------------------------------- */

enum views { VIEWS_FLAT, VIEWS_GROW };

/* An hour at 10 s of one Windows process: its shareable working set
 * 20 MiB + 600 MiB/h, private bytes (commit) flat, the virtual size 1.1
 * GiB above them (VIEWS_GROW: growing with the pages, a view for each).
 * watched: NULL for an unwatched process (no working-set categories),
 * else the category that carries the growth ("mapped_file": views of
 * files; "shareable": a pagefile-backed section). */
static void write_windows(enum views views, const char *watched)
{
	static const char *const cats[] = { "image", "mapped_file", "shareable", "heap" };
	struct mw_label l[3] = { { "pid", "4848" }, { "process", "indexer.exe" },
				 { "started", "77" } };
	struct mw_label lc[3] = { { "category", NULL }, { "pid", "4848" },
				  { "process", "indexer.exe" } };
	struct mw_store *s = mw_test_store_open(DB);
	struct mw_err err;
	char ks[256], kp[256], kv[256], kc[256];
	int64_t i;
	size_t c;

	assert_non_null(s);
	mw_series_key_format(ks, sizeof(ks), "memwatch_process_shareable_working_set_bytes", l, 3);
	mw_series_key_format(kp, sizeof(kp), "memwatch_process_private_bytes", l, 3);
	mw_series_key_format(kv, sizeof(kv), "memwatch_process_virtual_bytes", l, 3);
	for (i = 0; i < 360; i++) {
		int64_t ts = T0 + i * 10000;
		double t_h = (double)i / 360.0, grow = 600 * MIB * t_h;
		double priv = 30 * MIB;
		double virt = priv + (views == VIEWS_GROW ? 60 * MIB + grow : 1100 * MIB);

		mw_store_add(s, ks, "memwatch_process_shareable_working_set_bytes", l, 3, ts,
			     20 * MIB + grow + (i % 3) * 16384.0);
		mw_store_add(s, kp, "memwatch_process_private_bytes", l, 3, ts, priv);
		mw_store_add(s, kv, "memwatch_process_virtual_bytes", l, 3, ts, virt);
		for (c = 0; watched && c < 4; c++) {
			lc[0].value = cats[c];
			mw_series_key_format(kc, sizeof(kc), "memwatch_workingset_bytes", lc, 3);
			mw_store_add(s, kc, "memwatch_workingset_bytes", lc, 3, ts,
				     8 * MIB + (!strcmp(cats[c], watched) ? grow : 0.0));
		}
	}
	if (mw_store_flush(s, &err))
		fail_msg("%s", err.msg);
	mw_store_free(s);
}

/* the group's verdict, and the reason when it passes (its shared
 * aspect's), kind when it fails */
static void check_windows(const char *verdict, const char *said)
{
	cJSON *rep, *g, *shared;

	g = mw_test_leak_group_of(DB, "indexer.exe", &rep);
	assert_non_null(g);
	assert_string_equal(cJSON_GetObjectItem(g, "verdict")->valuestring, verdict);
	if (!strcmp(verdict, "pass")) {
		assert_string_equal(cJSON_GetObjectItem(g, "aspect")->valuestring, "shared");
		assert_non_null(strstr(cJSON_GetObjectItem(g, "reason")->valuestring, said));
		shared = cJSON_GetObjectItem(cJSON_GetObjectItem(g, "aspects"), "shared");
		assert_non_null(shared);
		assert_string_equal(cJSON_GetObjectItem(shared, "verdict")->valuestring, "pass");
	} else {
		assert_string_equal(cJSON_GetObjectItem(g, "kind")->valuestring, said);
	}
	cJSON_Delete(rep);
}

/* an unwatched process reading through views mapped before: a pass that
 * says it cannot tell files from sections */
static void windows_unwatched_views_mapped_before_pass(void **state)
{
	(void)state;
	write_windows(VIEWS_FLAT, NULL);
	check_windows("pass", "filling views it had mapped before");
}

/* one view leaked after another: what is mapped grows, still a fail */
static void windows_a_leak_of_views_still_fails(void **state)
{
	(void)state;
	write_windows(VIEWS_GROW, NULL);
	check_windows("fail", "shared");
}

/* watched, the growth in views of files: a pass naming file pages */
static void windows_watched_file_views_pass(void **state)
{
	(void)state;
	write_windows(VIEWS_FLAT, "mapped_file");
	check_windows("pass", "file pages Windows takes back");
}

/* watched, the growth in a pagefile-backed section mapped in advance:
 * the program's own data, still a fail */
static void windows_watched_section_filled_still_fails(void **state)
{
	(void)state;
	write_windows(VIEWS_FLAT, "shareable");
	check_windows("fail", "shared");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reading_a_mapped_file_passes),
		cmocka_unit_test(the_reason_names_views_on_windows),
		cmocka_unit_test(a_leak_of_mappings_still_fails),
		cmocka_unit_test(a_large_mapping_added_in_the_span_still_fails),
		cmocka_unit_test(pages_beyond_the_mappings_still_fail),
		cmocka_unit_test(stale_mappings_still_fail),
		cmocka_unit_test(only_a_byte_fail_is_bounded),
		cmocka_unit_test_setup_teardown(report_passes_reading_through_a_mapped_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(report_fails_a_leak_of_mappings, setup, teardown),
		cmocka_unit_test_setup_teardown(windows_unwatched_views_mapped_before_pass, setup,
						teardown),
		cmocka_unit_test_setup_teardown(windows_a_leak_of_views_still_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(windows_watched_file_views_pass, setup, teardown),
		cmocka_unit_test_setup_teardown(windows_watched_section_filled_still_fails, setup,
						teardown),
	};

	build_resident();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
