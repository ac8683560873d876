/*
 * test_web.c - the web module's pure parts: the JSON writer, number and
 * time formatting, query-parameter parsing (time formats, durations,
 * UTF-8), and Prometheus exposition escaping.  Runs natively and under
 * Wine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_out.h"
#include "base/utf8.h"
#include "core/leak_gauges.h"
#include "app/leak_judge.h"
#include "web/metrics.h"
#include "core/params.h"
#include "tests/support/test_main.h"

static void test_json_strings(void **state)
{
	struct mw_jbuf b;

	(void)state;
	mw_jbuf_init(&b);
	mw_j_str(&b, "a\"b\\c\n\t\x01 é");
	assert_string_equal(b.p, "\"a\\\"b\\\\c\\n\\t\\u0001 é\"");
	b.len = 0;
	mw_j_str(&b, "bad \xff\xc3 end \xed\xa0\x80");	/* stray, truncated, surrogate */
	assert_string_equal(b.p, "\"bad \xEF\xBF\xBD\xEF\xBF\xBD end \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");
	b.len = 0;
	mw_j_str(&b, NULL);
	assert_string_equal(b.p, "null");
	mw_jbuf_release(&b);
}

static void test_json_numbers(void **state)
{
	struct mw_jbuf b;
	char buf[40];

	(void)state;
	mw_jbuf_init(&b);
	mw_j_int(&b, INT64_MIN);
	mw_j_char(&b, ' ');
	mw_j_int(&b, 0);
	mw_j_char(&b, ' ');
	mw_j_uint(&b, UINT64_MAX);
	mw_j_char(&b, ' ');
	mw_j_double(&b, NAN);
	mw_j_char(&b, ' ');
	mw_j_double(&b, INFINITY);
	mw_j_char(&b, ' ');
	mw_j_double(&b, 1234567890123.0);
	mw_j_char(&b, ' ');
	mw_j_double(&b, 0.1);
	mw_j_char(&b, ' ');
	mw_j_double(&b, -0.0);
	mw_j_char(&b, ' ');
	mw_j_double(&b, 1e300);
	assert_string_equal(b.p, "-9223372036854775808 0 18446744073709551615 null null "
				 "1234567890123 0.1 0 1e+300");
	mw_jbuf_release(&b);
	/* Round trip of an awkward value. */
	mw_fmt_double(buf, 2.0 / 3.0);
	assert_true(strtod(buf, NULL) == 2.0 / 3.0);
	assert_int_equal(mw_fmt_double(buf, NAN), 3);
	assert_string_equal(buf, "NaN");
	mw_fmt_double(buf, -INFINITY);
	assert_string_equal(buf, "-Inf");
}

static void test_json_growth(void **state)
{
	struct mw_jbuf b;
	size_t i, len;
	char *p;

	(void)state;
	mw_jbuf_init(&b);
	for (i = 0; i < 100000; i++)
		mw_j_lit(&b, "0123456789");
	assert_int_equal(b.len, 1000000);
	assert_int_equal(b.p[b.len], '\0');
	p = mw_jbuf_detach(&b, &len);
	assert_int_equal(len, 1000000);
	assert_int_equal(b.len, 0);
	free(p);
	mw_jbuf_release(&b);
}

static void test_utf8(void **state)
{
	struct mw_err err = { "" };

	(void)state;
	assert_int_equal(mw_utf8_valid_prefix("abc", 3), 3);
	assert_int_equal(mw_utf8_valid_prefix("a\xc3\xa9", 3), 3);
	assert_int_equal(mw_utf8_valid_prefix("a\xc0\x80", 3), 1);	/* overlong NUL */
	assert_int_equal(mw_utf8_valid_prefix("\xf4\x90\x80\x80", 4), 0);	/* > U+10FFFF */
	assert_int_equal(mw_utf8_valid_prefix("\xf0\x9f\x98\x80", 4), 4);	/* emoji */
	assert_int_equal(mw_param_check("ok", 2, 10, &err), 0);
	assert_int_equal(mw_param_check("a\0b", 3, 10, &err), -1);
	assert_non_null(strstr(err.msg, "NUL"));
	assert_int_equal(mw_param_check("\xff", 1, 10, &err), -1);
	assert_non_null(strstr(err.msg, "UTF-8"));
	assert_int_equal(mw_param_check("abcdef", 6, 5, &err), -1);
	assert_non_null(strstr(err.msg, "too long"));
}

static void test_time(void **state)
{
	const int64_t now = 1763768400000;	/* 2025-11-21T23:40:00Z */
	struct mw_err err = { "" };
	int64_t t;

	(void)state;
	assert_int_equal(mw_param_time("now", now, &t, &err), 0);
	assert_true(t == now);
	assert_int_equal(mw_param_time("-1h", now, &t, &err), 0);
	assert_true(t == now - 3600000);
	assert_int_equal(mw_param_time("now-15m", now, &t, &err), 0);
	assert_true(t == now - 900000);
	assert_int_equal(mw_param_time("now+30s", now, &t, &err), 0);
	assert_true(t == now + 30000);
	assert_int_equal(mw_param_time("-500ms", now, &t, &err), 0);
	assert_true(t == now - 500);
	assert_int_equal(mw_param_time("-2d", now, &t, &err), 0);
	assert_true(t == now - 2 * 86400000LL);
	assert_int_equal(mw_param_time("1700000000000", now, &t, &err), 0);
	assert_true(t == 1700000000000LL);
	assert_int_equal(mw_param_time("2025-11-21T23:40:00Z", now, &t, &err), 0);
	assert_true(t == now);
	assert_int_equal(mw_param_time("2025-11-21t23:40:00.5z", now, &t, &err), 0);
	assert_true(t == now + 500);
	assert_int_equal(mw_param_time("2025-11-22T01:40:00.123456+02:00", now, &t, &err), 0);
	assert_true(t == now + 123);
	assert_int_equal(mw_param_time("2025-11-21T18:40:00-05:00", now, &t, &err), 0);
	assert_true(t == now);
	assert_int_equal(mw_param_time("1970-01-01T00:00:00Z", now, &t, &err), 0);
	assert_true(t == 0);
	assert_int_equal(mw_param_time("2024-02-29T00:00:00Z", now, &t, &err), 0);
	assert_true(t == 1709164800000LL);
	/* the shown format (mw_time_human) reads back */
	assert_int_equal(mw_param_time("2025-11-21 23:40:00 UTC", now, &t, &err), 0);
	assert_true(t == now);

	static const char *const bad[] = {
		"", "abc", "-1x", "1h", "now-", "now-h", "+1h", "nowx", "-", "2025-02-29T00:00:00Z",
		"2025-13-01T00:00:00Z", "2025-11-21T24:00:00Z", "2025-11-21T23:40:00",
		"2025-11-21T23:40:00+2:00", "2025-11-21", "2025-11-21T23:40:00.Z",
		"99999999999999999999", "-99999999999999999w", "12.5", " 1", "1 ",
		"2025-11-21 23:40:00 UTC ", "2025-11-21 23:40:00 utc", "2025-11-21 23:40:00UTC",
		"2025-11-21 23:40 UTC",
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		if (mw_param_time(bad[i], now, &t, &err) != -1)
			fail_msg("'%s' parsed as %lld", bad[i], (long long)t);
		assert_non_null(strstr(err.msg, "is not a time"));
	}
}

static void test_duration_int(void **state)
{
	struct mw_err err = { "" };
	int64_t v;

	(void)state;
	/* the one rule (base/units.h): a bare number needs its unit */
	assert_int_equal(mw_param_duration("250", &v, &err), -1);
	assert_int_equal(mw_param_duration("250ms", &v, &err), 0);
	assert_true(v == 250);
	assert_int_equal(mw_param_duration("10s", &v, &err), 0);
	assert_true(v == 10000);
	assert_int_equal(mw_param_duration("5m", &v, &err), 0);
	assert_true(v == 300000);
	assert_int_equal(mw_param_duration("1w", &v, &err), 0);
	assert_true(v == 604800000);
	assert_int_equal(mw_param_duration("0", &v, &err), -1);
	assert_int_equal(mw_param_duration("-5s", &v, &err), -1);
	assert_int_equal(mw_param_duration("5x", &v, &err), -1);
	assert_int_equal(mw_param_duration("999999999999999999w", &v, &err), -1);
	assert_int_equal(mw_param_int("42", 1, 100, &v, &err), 0);
	assert_true(v == 42);
	assert_int_equal(mw_param_int("0", 1, 100, &v, &err), -1);
	assert_non_null(strstr(err.msg, "between 1 and 100"));
	assert_int_equal(mw_param_int("4x", 1, 100, &v, &err), -1);
	assert_int_equal(mw_param_int("", 1, 100, &v, &err), -1);
}

static void test_prometheus(void **state)
{
	struct mw_jbuf b;

	(void)state;
	mw_jbuf_init(&b);
	mw_prom_family(&b, "m_total", mw_prom_type("m_total"), "a \\ b\nc");
	mw_prom_sample(&b, "m_total", "l", "x\"y\\z\nw\xff", 1.5);
	mw_prom_sample(&b, "m_total", NULL, NULL, NAN);
	assert_string_equal(b.p, "# HELP m_total a \\\\ b\\nc\n# TYPE m_total counter\n"
				 "m_total{l=\"x\\\"y\\\\z\\nw\xEF\xBF\xBD\"} 1.5\nm_total NaN\n");
	assert_string_equal(mw_prom_type("memwatch_process_handles"), "gauge");
	assert_string_equal(mw_prom_type("_total"), "gauge");
	/* memwatch's own families: type and help from the metric catalogue */
	assert_string_equal(mw_prom_type("memwatch_process_page_faults_total"), "counter");
	assert_string_equal(mw_prom_help("memwatch_process_handles"),
			    mw_metric_catalog[MW_M_PROCESS_HANDLES].help);
	assert_string_equal(mw_prom_help("imported_thing"), "memwatch metric.");
	mw_jbuf_release(&b);
}

/* The background leak judgement's pause: refresh, or long enough that
 * judging stays within cpu_budget of a core. */
static void test_leak_pause(void **state)
{
	(void)state;
	/* cheap runs: the refresh */
	assert_int_equal(mw_leak_judge_pause_ms(60000, 20, 0.0025), 60000);
	/* no budget: the refresh, whatever a run costs */
	assert_int_equal(mw_leak_judge_pause_ms(60000, 4000, 0), 60000);
	/* 4 s at 0.25 %: a start every 1600 s, so 1596 s of pause */
	assert_int_equal(mw_leak_judge_pause_ms(60000, 4000, 0.0025), 1596000);
	/* 1 s at 1 %: 99 s */
	assert_int_equal(mw_leak_judge_pause_ms(1000, 1000, 0.01), 99000);
	/* a whole core: back to back, but never under the refresh */
	assert_int_equal(mw_leak_judge_pause_ms(1000, 5000, 1.0), 1000);
	/* a run that took no measurable time */
	assert_int_equal(mw_leak_judge_pause_ms(1000, 0, 0.0025), 1000);
}

/* The leak gauges of a published judgement: a group decided by a count
 * has its rate in the count family with its unit, never as bytes; a
 * failing group's kind is a series of its own; a pass has no rate. */
static void test_leak_gauges(void **state)
{
	struct mw_leak_verdict v[3] = {
		{ .process = "leaky", .verdict = 1, .aspect = "private", .unit = "bytes",
		  .kind = "heap", .slope_per_hour = 1048576, .growth = 2097152,
		  .projected = 25165824, .onset_ms = 1700000000000LL },
		{ .process = "fdleak", .verdict = 1, .aspect = "handles", .unit = "handles",
		  .kind = "handles", .slope_per_hour = 360, .growth = 180, .projected = 8640,
		  .onset_ms = 1700000000000LL },
		{ .process = "flat", .verdict = 0, .aspect = "private", .unit = "bytes",
		  .slope_per_hour = NAN, .growth = NAN, .projected = 0, .onset_ms = INT64_MIN },
	};
	struct mw_leak_status st = { .known = true, .counts = { 1, 2, 0, 0 }, .n = 3, .v = v };
	struct mw_jbuf b;
	struct mw_leak_gauge_sink sink = mw_prom_gauge_sink(&b);

	(void)state;
	mw_jbuf_init(&b);
	mw_leak_gauges_walk(&st, &sink);
	assert_non_null(strstr(b.p, "memwatch_leak_verdict{process=\"fdleak\"} 1\n"));
	assert_non_null(strstr(b.p, "memwatch_leak_slope_bytes_per_hour{process=\"leaky\"} 1048576\n"));
	assert_null(strstr(b.p, "memwatch_leak_slope_bytes_per_hour{process=\"fdleak\"}"));
	assert_null(strstr(b.p, "memwatch_leak_growth_bytes{process=\"fdleak\"}"));
	assert_non_null(strstr(b.p, "memwatch_leak_count_slope_per_hour{process=\"fdleak\",unit=\"handles\"} 360\n"));
	assert_non_null(strstr(b.p, "memwatch_leak_kind{kind=\"handles\",process=\"fdleak\"} 1\n"));
	assert_non_null(strstr(b.p, "memwatch_leak_kind{kind=\"heap\",process=\"leaky\"} 1\n"));
	assert_null(strstr(b.p, "memwatch_leak_slope_bytes_per_hour{process=\"flat\"}"));
	assert_null(strstr(b.p, "memwatch_leak_onset_timestamp_seconds{process=\"flat\"}"));
	assert_non_null(strstr(b.p, "memwatch_leak_groups{verdict=\"fail\"} 2\n"));
	mw_jbuf_release(&b);
}

MW_TEST_MAIN(
	cmocka_unit_test(test_json_strings),
	cmocka_unit_test(test_json_numbers),
	cmocka_unit_test(test_json_growth),
	cmocka_unit_test(test_utf8),
	cmocka_unit_test(test_time),
	cmocka_unit_test(test_duration_int),
	cmocka_unit_test(test_prometheus),
	cmocka_unit_test(test_leak_pause),
	cmocka_unit_test(test_leak_gauges),
)
