/*
 * test_import.c - `memwatchd import`: the pure parsers on constructed
 * input, round trips of memwatch's own CSV and JSON export through a
 * fresh database, typeperf/relog samples (tests/data/import/), bad lines
 * and damaged files.  Runs natively and under Wine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/commands.h"
#include "base/clock.h"
#include "import/import.h"
#include "storage/export.h"
#include "storage/query.h"
#include "storage/store.h"
#include "base/json_out.h"
#include "core/params.h"
#include "tests/support/test_db.h"
#include "tests/support/test_reader.h"
#include "tests/support/test_file.h"
#include "tests/support/test_main.h"

#define DB "test_import.tmp.db"
#define DB2 "test_import2.tmp.db"
#define TMP_CSV "test_import.tmp.csv"
#define TMP_JSON "test_import.tmp.json"
#define DATA "tests/data/import/"
#define T0 1763719200000LL	/* 2025-11-21T10:00:00Z */

static int setup(void **state)
{
	(void)state;
	mw_test_db_remove(DB);
	mw_test_db_remove(DB2);
	remove(TMP_CSV);
	remove(TMP_JSON);
	return 0;
}

static int teardown(void **state)
{
	return setup(state);
}

/* ---- a sink that keeps what it gets ------------------------------------------- */

#define CAP 256
struct got {
	char key[CAP][160];
	int64_t ts[CAP];
	double v[CAP];
	size_t n;
};

static void got_point(void *ctx, const char *key, const char *metric,
		      const struct mw_label *labels, size_t nlabels, int64_t ts, double v)
{
	struct got *g = ctx;
	char check[160];

	/* the key is canonical for the metric and labels given */
	mw_series_key_format(check, sizeof(check), metric, labels, nlabels);
	assert_string_equal(check, key);
	assert_true(g->n < CAP);
	snprintf(g->key[g->n], sizeof(g->key[0]), "%s", key);
	g->ts[g->n] = ts;
	g->v[g->n] = v;
	g->n++;
}

#define FEED(c, text, err) mw_csv_import_line(c, text, strlen(text), err)

static int csv_lines(struct mw_csv_import *c, const char *text, struct mw_err *err)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (mw_csv_import_line(c, p, n, err))
			return -1;
		p += n + (nl ? 1 : 0);
	}
	return 0;
}

/* ---- pure parsers ------------------------------------------------------------- */

static void detect(void **state)
{
	size_t bom;

	(void)state;
	assert_int_equal(mw_import_detect_encoding((const unsigned char *)"\xEF\xBB\xBF\"(", 5, &bom),
			 MW_ENC_UTF8);
	assert_int_equal(bom, 3);
	assert_int_equal(mw_import_detect_encoding((const unsigned char *)"\xFF\xFE\"\0", 4, &bom),
			 MW_ENC_UTF16LE);
	assert_int_equal(bom, 2);
	assert_int_equal(mw_import_detect_encoding((const unsigned char *)"\"\0(\0", 4, &bom),
			 MW_ENC_UTF16LE);
	assert_int_equal(bom, 0);
	assert_int_equal(mw_import_detect_encoding((const unsigned char *)"\xFE\xFF\0\"", 4, &bom),
			 MW_ENC_UTF16BE);
	assert_int_equal(mw_import_detect_encoding((const unsigned char *)"{\"s", 3, &bom),
			 MW_ENC_UTF8);
	assert_int_equal(bom, 0);

	assert_int_equal(mw_import_detect_format(" \r\n {\"series\"", 13), MW_IMPORT_JSON);
	assert_int_equal(mw_import_detect_format("\"(PDH-CSV 4.0) (UTC)(0)\"", 24), MW_IMPORT_CSV);
	assert_int_equal(mw_import_detect_format("(PDH-CSV 4.0) (UTC)(0),x", 24), MW_IMPORT_CSV);
	assert_int_equal(mw_import_detect_format("time,value", 10), MW_IMPORT_UNKNOWN);
	assert_int_equal(mw_import_detect_format("  \n", 3), MW_IMPORT_UNKNOWN);
	assert_int_equal(mw_import_detect_format("", 0), MW_IMPORT_UNKNOWN);
}

static void pdh_header_and_time(void **state)
{
	struct mw_err err;
	char zone[64];
	int bias = 99;
	int64_t ms;

	(void)state;
	assert_int_equal(mw_import_pdh_header("(PDH-CSV 4.0) (GMT Standard Time)(0)", &bias, zone,
					      sizeof(zone), &err), 0);
	assert_int_equal(bias, 0);
	assert_string_equal(zone, "GMT Standard Time");
	assert_int_equal(mw_import_pdh_header("(PDH-CSV 4.0) (Pacific Standard Time)(480)", &bias,
					      zone, sizeof(zone), &err), 0);
	assert_int_equal(bias, 480);
	assert_string_equal(zone, "Pacific Standard Time");
	assert_int_equal(mw_import_pdh_header("(PDH-CSV 4.0) (AUS Eastern Standard Time)(-600)",
					      &bias, zone, sizeof(zone), &err), 0);
	assert_int_equal(bias, -600);
	assert_int_equal(mw_import_pdh_header("(PDH-CSV 4.0) (UTC)(x)", &bias, zone, sizeof(zone),
					      &err), -1);
	assert_non_null(strstr(err.msg, "bias"));
	assert_int_equal(mw_import_pdh_header("Time", &bias, zone, sizeof(zone), &err), -1);
	assert_non_null(strstr(err.msg, "PDH-CSV"));

	assert_int_equal(mw_import_pdh_time("11/21/2025 10:00:00.000", 23, &ms), 0);
	assert_int_equal(ms, T0);
	assert_int_equal(mw_import_pdh_time("11/21/2025 10:00:01.5", 21, &ms), 0);
	assert_int_equal(ms, T0 + 1500);
	assert_int_equal(mw_import_pdh_time("11/21/2025 10:00:01", 19, &ms), 0);
	assert_int_equal(ms, T0 + 1000);
	assert_int_equal(mw_import_pdh_time("2/29/2024 00:00:00.000", 22, &ms), 0);
	assert_int_equal(ms, 1709164800000LL);
	assert_int_equal(mw_import_pdh_time("01/01/1970 00:00:00.001", 23, &ms), 0);
	assert_int_equal(ms, 1);
	assert_int_equal(mw_import_pdh_time("2/29/2025 00:00:00.000", 22, &ms), -1);
	assert_int_equal(mw_import_pdh_time("13/01/2025 00:00:00.000", 23, &ms), -1);
	assert_int_equal(mw_import_pdh_time("11/21/2025 24:00:00.000", 23, &ms), -1);
	assert_int_equal(mw_import_pdh_time("2025-11-21T10:00:00Z", 20, &ms), -1);
	assert_int_equal(mw_import_pdh_time("11/21/2025 10:00:00.000x", 24, &ms), -1);
	assert_int_equal(mw_import_pdh_time("", 0, &ms), -1);
}

static void values(void **state)
{
	static const char *const exact[] = {
		"0.1", "123456789.123456789", "1.7976931348623157e+308", "4.9406564584124654e-324",
		"0.30000000000000004", "9007199254740993", "-2.5", "1e-300", "12345678901234567890",
	};
	double v;
	size_t i;

	(void)state;
	assert_int_equal(mw_import_value("", 0, &v), 0);
	assert_int_equal(mw_import_value(" ", 1, &v), 0);
	assert_int_equal(mw_import_value("123", 3, &v), 1);
	assert_true(v == 123);
	assert_int_equal(mw_import_value("10485760.000000", 15, &v), 1);
	assert_true(v == 10485760);
	assert_int_equal(mw_import_value("-7", 2, &v), 1);
	assert_true(v == -7);
	assert_int_equal(mw_import_value("12,5", 4, &v), 1);	/* decimal comma */
	assert_true(v == 12.5);
	assert_int_equal(mw_import_value("NaN", 3, &v), 1);
	assert_true(isnan(v));
	assert_int_equal(mw_import_value("+Inf", 4, &v), 1);
	assert_true(isinf(v) && v > 0);
	assert_int_equal(mw_import_value("-Inf", 4, &v), 1);
	assert_true(isinf(v) && v < 0);
	for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
		double want = strtod(exact[i], NULL);

		assert_int_equal(mw_import_value(exact[i], strlen(exact[i]), &v), 1);
		assert_memory_equal(&v, &want, sizeof(v));
	}
	assert_int_equal(mw_import_value("12a", 3, &v), -1);
	assert_int_equal(mw_import_value("1,2.3", 5, &v), -1);
	assert_int_equal(mw_import_value("--1", 3, &v), -1);
	assert_int_equal(mw_import_value("0x10", 4, &v), -1);
}

static void counter_paths(void **state)
{
	static const struct {
		const char *path, *key;
	} cases[] = {
		{ "\\\\HOST\\Process(app#1)\\Private Bytes",
		  "memwatch_process_private_bytes{pid=\"#1\",process=\"app.exe\"}" },
		{ "\\\\HOST\\Process(app)\\Working Set",
		  "memwatch_process_working_set_bytes{pid=\"#0\",process=\"app.exe\"}" },
		{ "\\Process(leaky.exe)\\Working Set Peak",
		  "memwatch_process_working_set_peak_bytes{pid=\"#0\",process=\"leaky.exe\"}" },
		{ "\\\\H\\process(svchost#12)\\virtual bytes",
		  "memwatch_process_virtual_bytes{pid=\"#12\",process=\"svchost.exe\"}" },
		{ "\\\\H\\Process(x)\\Handle Count", "memwatch_process_handles{pid=\"#0\",process=\"x.exe\"}" },
		{ "\\\\H\\Process(x)\\Thread Count", "memwatch_process_threads{pid=\"#0\",process=\"x.exe\"}" },
		{ "\\\\H\\Process(x)\\Page Faults/sec",
		  "memwatch_perf_value{counter=\"Page Faults/sec\",instance=\"x\",object=\"Process\"}" },
		{ "\\\\H\\Process(_Total)\\Private Bytes",
		  "memwatch_perf_value{counter=\"Private Bytes\",instance=\"_Total\",object=\"Process\"}" },
		{ "\\\\H\\Memory\\Available Bytes", "memwatch_system_available_bytes" },
		{ "\\Memory\\Committed Bytes", "memwatch_system_commit_bytes" },
		{ "\\\\H\\Memory\\Commit Limit", "memwatch_system_commit_limit_bytes" },
		{ "\\\\H\\Memory\\Pages/sec",
		  "memwatch_perf_value{counter=\"Pages/sec\",instance=\"\",object=\"Memory\"}" },
		{ "\\\\H\\Thread(app/3)\\Context Switches/sec",
		  "memwatch_perf_value{counter=\"Context Switches/sec\",instance=\"app/3\",object=\"Thread\"}" },
		{ "\\\\H\\Processor(_Total)\\% Processor Time",
		  "memwatch_perf_value{counter=\"% Processor Time\",instance=\"_Total\",object=\"Processor\"}" },
	};
	struct mw_import_series s;
	struct mw_err err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(mw_import_map_counter(cases[i].path, &s, &err), 0);
		assert_string_equal(s.key, cases[i].key);
		mw_import_series_release(&s);
	}
	assert_int_equal(mw_import_map_counter("\\\\H\\Process(x)\\ID Process", &s, &err), 0);
	assert_true(s.is_id_process);
	assert_string_equal(s.instance, "x");
	mw_import_series_release(&s);
	assert_int_equal(mw_import_map_counter("Private Bytes", &s, &err), -1);
	assert_non_null(strstr(err.msg, "Private Bytes"));
	assert_int_equal(mw_import_map_counter("\\\\HOST", &s, &err), -1);
	assert_int_equal(mw_import_map_counter("\\Process(x\\Private Bytes", &s, &err), 0);
	mw_import_series_release(&s);
	assert_int_equal(mw_import_map_counter("\\Processx)\\Private Bytes", &s, &err), -1);
}

static void series_keys(void **state)
{
	struct mw_import_series s;
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_import_parse_key("m{b=\"2\",a=\"x \\\"q\\\" \\\\ \\n\"}", &s, &err), 0);
	assert_string_equal(s.metric, "m");
	assert_int_equal(s.nlabels, 2);
	assert_string_equal(s.labels[0].name, "a");
	assert_string_equal(s.labels[0].value, "x \"q\" \\ \n");
	assert_string_equal(s.key, "m{a=\"x \\\"q\\\" \\\\ \\n\",b=\"2\"}");
	mw_import_series_release(&s);
	assert_int_equal(mw_import_parse_key("memwatch_system_available_bytes", &s, &err), 0);
	assert_int_equal(s.nlabels, 0);
	assert_string_equal(s.key, "memwatch_system_available_bytes");
	mw_import_series_release(&s);
	assert_int_equal(mw_import_parse_key("m{}", &s, &err), 0);
	assert_string_equal(s.key, "m");
	mw_import_series_release(&s);
	assert_int_equal(mw_import_parse_key("1m", &s, &err), -1);
	assert_int_equal(mw_import_parse_key("m{a=\"x\"", &s, &err), -1);
	assert_int_equal(mw_import_parse_key("m{a=x}", &s, &err), -1);
	assert_int_equal(mw_import_parse_key("m{a=\"1\",a=\"2\"}", &s, &err), -1);
	assert_non_null(strstr(err.msg, "twice"));
	assert_int_equal(mw_import_parse_key("m{a=\"1\"} 5", &s, &err), -1);
	assert_int_equal(mw_import_parse_key("m{a=\"\\q\"}", &s, &err), -1);
}

static void csv_typeperf_lines(void **state)
{
	static const char text[] =
		"\"(PDH-CSV 4.0) (Pacific Standard Time)(480)\",\"\\\\H\\Process(app)\\ID Process\","
		"\"\\\\H\\Process(app)\\Private Bytes\",\"\\\\H\\Process(app#1)\\Private Bytes\","
		"\"\\\\H\\Memory\\Available Bytes\",\"\\\\H\\Process(app)\\Page Faults/sec\"\r\n"
		"\"11/21/2025 02:00:00.000\",\"10\",\"100\",\"200\",\"5000\",\" \"\r\n"
		"\r\n"
		"\"11/21/2025 02:00:01.250\",\"10\",\"101\",\" \",\"5001\",\"2.5\"\r\n"
		"\"11/21/2025 02:00:02.000\",\"11\",\"50\",\"\",\"\",\"\"\r\n";
	struct got *g = calloc(1, sizeof(*g));
	struct mw_csv_import c;
	struct mw_err err;

	(void)state;
	mw_csv_import_init(&c, got_point, g);
	if (csv_lines(&c, text, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(c.bias_min, 480);
	assert_int_equal(g->n, 10);
	assert_int_equal(c.st.points, 10);
	assert_int_equal(c.st.gaps, 5);
	/* local 02:00 + 480 minutes = 10:00 UTC */
	assert_int_equal(g->ts[0], T0);
	assert_string_equal(g->key[0],
			    "memwatch_perf_value{counter=\"ID Process\",instance=\"app\",object=\"Process\"}");
	assert_string_equal(g->key[1], "memwatch_process_private_bytes{pid=\"10\",process=\"app.exe\"}");
	assert_true(g->v[1] == 100);
	assert_string_equal(g->key[2], "memwatch_process_private_bytes{pid=\"#1\",process=\"app.exe\"}");
	assert_string_equal(g->key[3], "memwatch_system_available_bytes");
	assert_int_equal(g->ts[4], T0 + 1250);
	assert_string_equal(g->key[7], "memwatch_perf_value{counter=\"Page Faults/sec\","
			    "instance=\"app\",object=\"Process\"}");
	assert_true(g->v[7] == 2.5);
	/* a new pid in the ID Process column: a new incarnation, a new series */
	assert_string_equal(g->key[9], "memwatch_process_private_bytes{pid=\"11\",process=\"app.exe\"}");
	assert_int_equal(g->ts[10 - 1], T0 + 2000);
	assert_int_equal(c.st.series, 6);
	assert_int_equal(c.st.first_ts, T0);
	assert_int_equal(c.st.last_ts, T0 + 2000);

	/* a bad row gives nothing at all */
	g->n = 0;
	assert_int_equal(FEED(&c, "\"11/21/2025 02:00:03.000\",\"1\",\"2\",\"x\",\"4\",\"5\"", &err), -1);
	assert_non_null(strstr(err.msg, "column 4"));
	assert_non_null(strstr(err.msg, "'x' is not a number"));
	assert_int_equal(FEED(&c, "\"11/21/2025 02:00:03.000\",\"1\",\"2\"", &err), -1);
	assert_non_null(strstr(err.msg, "3 cells, the header has 6"));
	assert_int_equal(FEED(&c, "\"21.11.2025 02:00:03\",\"1\",\"2\",\"3\",\"4\",\"5\"", &err), -1);
	assert_non_null(strstr(err.msg, "time '21.11.2025 02:00:03'"));
	assert_int_equal(FEED(&c, "\"11/21/2025 02:00:03.000\",\"1,\"2\",\"3\",\"4\",\"5\"", &err), -1);
	assert_int_equal(g->n, 0);
	mw_csv_import_release(&c);

	/* header problems */
	mw_csv_import_init(&c, got_point, g);
	assert_int_equal(csv_lines(&c, "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\A\\Memory\\Available Bytes\","
				   "\"\\\\B\\Memory\\Available Bytes\"", &err), -1);
	assert_non_null(strstr(err.msg, "columns 2 and 3"));
	mw_csv_import_release(&c);
	mw_csv_import_init(&c, got_point, g);
	assert_int_equal(csv_lines(&c, "\"Time\",\"x\"", &err), -1);
	assert_non_null(strstr(err.msg, "header"));
	mw_csv_import_release(&c);
	mw_csv_import_init(&c, got_point, g);
	assert_int_equal(csv_lines(&c, "\"(PDH-CSV 4.0) (UTC)(0)\",\"9bad{\"", &err), -1);
	assert_non_null(strstr(err.msg, "column 2"));
	mw_csv_import_release(&c);
	free(g);
}

static void json_stream(void **state)
{
	static const char doc[] =
		"{\"series\":[{\"id\":3,\"name\":\"m_a\",\"labels\":{\"x\":\"1\",\"q\":\"\\\"\\u00e9\\ud83d\\ude00\"},"
		"\"extra\":[1,{\"y\":[2]}],\"points\":[[1000,1],[2000,0.1],[3000,null],[-5,-2.5e-3]]},\n"
		"{\"name\":\"m_b\",\"labels\":{},\"points\":[]},\n"
		"{\"name\":\"m_c\",\"points\":[[7,1e300]]}],\"next\":null}\n";
	struct got *g = calloc(1, sizeof(*g));
	struct mw_json_import *j;
	struct mw_err err;
	size_t split, i;

	(void)state;
	/* every split in two, and byte by byte, gives the same points */
	for (split = 0; split <= sizeof(doc) - 1; split++) {
		g->n = 0;
		j = mw_json_import_new(got_point, g);
		if (split == sizeof(doc) - 1) {
			for (i = 0; i < sizeof(doc) - 1; i++)
				if (mw_json_import_feed(j, doc + i, 1, &err))
					fail_msg("byte %zu: %s", i, err.msg);
		} else if (mw_json_import_feed(j, doc, split, &err) ||
			   mw_json_import_feed(j, doc + split, sizeof(doc) - 1 - split, &err)) {
			fail_msg("split %zu: %s", split, err.msg);
		}
		if (mw_json_import_finish(j, &err))
			fail_msg("split %zu: %s", split, err.msg);
		assert_int_equal(g->n, 5);
		assert_string_equal(g->key[0], "m_a{q=\"\\\"\xc3\xa9\xf0\x9f\x98\x80\",x=\"1\"}");
		assert_int_equal(g->ts[1], 2000);
		assert_true(g->v[1] == 0.1);
		assert_true(isnan(g->v[2]));
		assert_int_equal(g->ts[3], -5);
		assert_true(g->v[3] == -2.5e-3);
		assert_string_equal(g->key[4], "m_c");
		assert_true(g->v[4] == 1e300);
		assert_int_equal(mw_json_import_stats(j)->series, 2);
		assert_int_equal(mw_json_import_line(j), 4);
		mw_json_import_free(j);
	}
	free(g);
}

static int json_error(const char *doc, struct mw_err *err, size_t *npoints)
{
	struct got *g = calloc(1, sizeof(*g));
	struct mw_json_import *j = mw_json_import_new(got_point, g);
	int rc = mw_json_import_feed(j, doc, strlen(doc), err);

	if (!rc)
		rc = mw_json_import_finish(j, err);
	*npoints = g->n;
	mw_json_import_free(j);
	free(g);
	return rc;
}

static void json_errors(void **state)
{
	static const struct {
		const char *doc, *msg;
		size_t points;
	} cases[] = {
		{ "", "empty", 0 },
		{ "[1]", "does not start with '{'", 0 },
		{ "{\"series\":{}}", "\"series\" is not an array", 0 },
		{ "{\"series\":[{\"points\":[[1,2]]}]}", "\"points\" before \"name\"", 0 },
		{ "{\"series\":[{\"name\":\"a b\",\"points\":[]}]}", "not a metric name", 0 },
		{ "{\"series\":[{\"name\":\"m\",\"points\":[[1,2],[3]]}]}", "point 2: not [ts, value]", 1 },
		{ "{\"series\":[{\"name\":\"m\",\"points\":[[1,2],[1.5,3]]}]}", "timestamp '1.5'", 1 },
		{ "{\"series\":[{\"name\":\"m\",\"points\":[[1,\"x\"]]}]}", "not [ts, value]", 0 },
		{ "{\"series\":[{\"name\":\"m\",\"points\":[[1,2]]}", "ends before the document", 1 },
		{ "{\"series\":[{\"name\":\"m\",\"labels\":{\"a\":1}}]}", "label 'a' is not a string", 0 },
		{ "{\"series\":[{\"name\":\"m\",\"labels\":{\"1a\":\"x\"}}]}", "label name '1a'", 0 },
		{ "{\"series\":[]} x", "more after the end", 0 },
		{ "{\"series\":[]} ?", "unexpected character '?'", 0 },
		{ "{\"series\":[]}{}", "more after the end", 0 },
		{ "{\"series\":[{\"name\":\"m\",\"points\":[[1,2] [3,4]]}]}", "expected ',' or ']'", 1 },
		{ "{\"series\":[{\"name\":\"m\",\"points\":[[1,2]],}]}", "unexpected '}'", 1 },
		{ "{\"series\":[{\"name\":\"m\"\"x\":1}]}", "expected ',' or '}'", 0 },
		{ "{\"series\":[{\"name\":\"m\\x\"}]}", "bad escape", 0 },
		{ "{\"series\":[{\"name\":\"m", "ends inside a string", 0 },
	};
	struct mw_err err;
	size_t i, n;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err.msg[0] = '\0';
		if (json_error(cases[i].doc, &err, &n) != -1)
			fail_msg("case %zu accepted", i);
		if (!strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].msg);
		assert_int_equal(n, cases[i].points);
	}
	/* the point's series is named */
	assert_int_equal(json_error("{\"series\":[{\"name\":\"m\",\"labels\":{\"a\":\"b\"},"
				    "\"points\":[[1,2],[2,true]]}]}", &err, &n), -1);
	assert_non_null(strstr(err.msg, "series 1 (m{a=\"b\"}), point 2"));
}

/* ---- export (storage/export.c, as the web and the command write it), then import */

/* Write the export of every series of db to path, in small pieces. */
static void export_file(const char *db, const char *path, enum mw_export_format fmt)
{
	struct mw_reader *r = mw_test_reader_open(db);
	struct mw_export *x;
	struct mw_err err;
	const char *p;
	size_t n;
	FILE *f = fopen(path, "wb");
	int rc;

	assert_non_null(f);
	assert_int_equal(mw_export_open(&x, r, "", 0, INT64_MIN, INT64_MAX, fmt, &err), 0);
	while ((rc = mw_export_next(x, 700, &p, &n, &err)) == 1)
		assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(rc, 0);
	assert_int_equal(fclose(f), 0);
	mw_export_free(x);
	mw_reader_free(r);
}

static const double odd_values[] = {
	0.1, 1.0 / 3, 1e-300, 1.7976931348623157e308, -2.5, 123456789.12345679,
	9007199254740994.0, 4.9406564584124654e-324, 2.2250738585072014e-308, 1e22, 1e23,
	NAN, INFINITY, -INFINITY, 0.30000000000000004,
};
#define NODD (sizeof(odd_values) / sizeof(odd_values[0]))

static void fill_source(void)
{
	struct mw_store *s = mw_test_store_reopen(DB);
	struct mw_label proc[3] = { { "pid", "4242" }, { "process", "leaky.exe" },
				    { "started", "1763700000" } };
	struct mw_label odd[2] = { { "kind", "a \"quoted\" \\ value, with comma" }, { "x", "y" } };
	char k1[200], k2[200];
	int i;

	mw_series_key_format(k1, sizeof(k1), "memwatch_process_private_bytes", proc, 3);
	mw_series_key_format(k2, sizeof(k2), "mw_test_ratio", odd, 2);
	for (i = 0; i < 400; i++) {
		/* 1 s ticks with jitter; a clock step back at i == 200 */
		int64_t t = T0 + i * 1000 + (i * 7) % 13 - (i >= 200 ? 150000 : 0);

		mw_store_add(s, k1, "memwatch_process_private_bytes", proc, 3, t,
			     1e8 + 4096.0 * i);
		if (i % 3 == 0)
			mw_store_add(s, "memwatch_system_available_bytes",
				     "memwatch_system_available_bytes", NULL, 0, t, 8e9 - i);
	}
	for (i = 0; i < (int)NODD * 3; i++)
		mw_store_add(s, k2, "mw_test_ratio", odd, 2, T0 + 500 + i * 250,
			     odd_values[i % NODD] * (i / NODD + 1));
	mw_store_free(s);
}

static void assert_same_points(const char *db_a, const char *db_b, int json)
{
	struct mw_reader *a = mw_test_reader_open(db_a), *b = mw_test_reader_open(db_b);
	struct mw_series_list la, lb;
	struct mw_err err;
	size_t i, n;

	assert_int_equal(mw_reader_find(a, "", &la, &err), 0);
	assert_int_equal(mw_reader_find(b, "", &lb, &err), 0);
	assert_int_equal(la.n, 3);
	assert_int_equal(lb.n, la.n);
	for (i = 0; i < la.n; i++) {
		struct mw_raw_iter *ia, *ib;
		int64_t ta, tb;
		double va, vb;
		int ra, rb;

		assert_string_equal(la.items[i].key, lb.items[i].key);
		assert_string_equal(la.items[i].name, lb.items[i].name);
		assert_int_equal(la.items[i].nlabels, lb.items[i].nlabels);
		assert_int_equal(mw_raw_iter_open(&ia, a, la.items[i].id, INT64_MIN, INT64_MAX, &err), 0);
		assert_int_equal(mw_raw_iter_open(&ib, b, lb.items[i].id, INT64_MIN, INT64_MAX, &err), 0);
		for (n = 0;; n++) {
			ra = mw_raw_iter_next(ia, &ta, &va, &err);
			rb = mw_raw_iter_next(ib, &tb, &vb, &err);
			assert_int_equal(ra, rb);
			if (ra != 1)
				break;
			assert_int_equal(ta, tb);
			if (json && isinf(va))
				va = NAN;	/* JSON writes null for infinities */
			if (isnan(va))
				assert_true(isnan(vb));
			else
				assert_memory_equal(&va, &vb, sizeof(va));
		}
		assert_true(n >= 45);
		mw_raw_iter_free(ia);
		mw_raw_iter_free(ib);
	}
	mw_series_list_release(&la);
	mw_series_list_release(&lb);
	mw_reader_free(a);
	mw_reader_free(b);
}

static void import_one(const char *db, const char *path, struct mw_import_result *res)
{
	struct mw_store *s = mw_test_store_reopen(db);
	struct mw_err err;

	if (mw_import_file(s, path, NULL, res, &err))
		fail_msg("%s", err.msg);
	mw_store_free(s);
}

/* The source store exported in one format and imported into DB2: every
 * point comes back, in the format it was written in. */
static void round_trip(enum mw_export_format export_format, const char *path,
		       enum mw_import_format import_format)
{
	struct mw_import_result res;

	fill_source();
	export_file(DB, path, export_format);
	import_one(DB2, path, &res);
	assert_int_equal(res.format, import_format);
	assert_int_equal(res.st.points, 400 + 134 + NODD * 3);
	assert_int_equal(res.st.series, 3);
	assert_false(res.stopped);
	assert_same_points(DB, DB2, import_format == MW_IMPORT_JSON);
}

static void roundtrip_csv(void **state)
{
	(void)state;
	round_trip(MW_EXPORT_CSV, TMP_CSV, MW_IMPORT_CSV);
}

static void roundtrip_json(void **state)
{
	(void)state;
	round_trip(MW_EXPORT_JSON, TMP_JSON, MW_IMPORT_JSON);
}

/* ---- the same points twice: stored once (store option skip_stored) ------------- */

/* Points of every series of db; *sum gets the sum of their values. */
static uint64_t count_points(const char *db, double *sum)
{
	struct mw_reader *r = mw_test_reader_open(db);
	struct mw_series_list list;
	struct mw_raw_iter *it;
	struct mw_err err;
	uint64_t n = 0;
	int64_t ts;
	double v;
	size_t i;

	if (sum)
		*sum = 0;
	assert_int_equal(mw_reader_find(r, "", &list, &err), 0);
	for (i = 0; i < list.n; i++) {
		assert_int_equal(mw_raw_iter_open(&it, r, list.items[i].id, INT64_MIN, INT64_MAX,
						  &err), 0);
		while (mw_raw_iter_next(it, &ts, &v, &err) == 1) {
			n++;
			if (sum && !isnan(v))
				*sum += v;
		}
		mw_raw_iter_free(it);
	}
	mw_series_list_release(&list);
	mw_reader_free(r);
	return n;
}

static int import_cmd(const char *db, const char *a, const char *b)
{
	char *argv[] = { (char *)"import", (char *)"--db", (char *)db, (char *)a, (char *)b, NULL };

	return mw_cmd_import(b ? 5 : 4, argv);
}

/* An exported file imported twice, and its other format on top: the
 * point count stays.  The source has a clock step back (timestamps out of
 * order in storage) and NaN / infinities. */
static void import_twice(void **state)
{
	uint64_t n;

	(void)state;
	fill_source();
	export_file(DB, TMP_JSON, MW_EXPORT_JSON);
	export_file(DB, TMP_CSV, MW_EXPORT_CSV);
	n = count_points(DB, NULL);
	assert_int_equal(n, 400 + 134 + NODD * 3);
	assert_int_equal(import_cmd(DB2, TMP_JSON, NULL), 0);
	assert_int_equal(count_points(DB2, NULL), n);
	assert_int_equal(import_cmd(DB2, TMP_JSON, NULL), 0);
	assert_int_equal(count_points(DB2, NULL), n);
	assert_int_equal(import_cmd(DB2, TMP_CSV, TMP_JSON), 0);
	assert_int_equal(count_points(DB2, NULL), n);
	assert_same_points(DB, DB2, 1);
	/* and into the database they came from */
	assert_int_equal(import_cmd(DB, TMP_CSV, NULL), 0);
	assert_int_equal(count_points(DB, NULL), n);
}

/* JSON of two series with a point a second for i in [lo, hi), value v. */
static void write_range(const char *path, int lo, int hi, double v)
{
	FILE *f = fopen(path, "wb");
	int k, i;

	assert_non_null(f);
	fputs("{\"series\":[", f);
	for (k = 0; k < 2; k++) {
		fprintf(f, "%s{\"name\":\"mw_test_%c\",\"labels\":{\"k\":\"1\"},\"points\":[",
			k ? "," : "", 'a' + k);
		for (i = lo; i < hi; i++)
			fprintf(f, "%s[%lld,%.17g]", i > lo ? "," : "", (long long)(T0 + i * 1000LL),
				v + k);
		fputs("]}", f);
	}
	fputs("]}\n", f);
	fclose(f);
}

/* The 1-minute average of mw_test_a at minute m (from T0). */
static double minute_avg(const char *db, int m)
{
	struct mw_reader *r = mw_test_reader_open(db);
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_err err;
	double v;

	mw_range_query_init(&q, T0 + m * 60000LL, T0 + m * 60000LL + 59999);
	q.step_ms = 60000;
	q.tier = MW_TIER_1M;
	if (mw_reader_range(r, "mw_test_a", &q, &res, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(res.nseries, 1);
	assert_int_equal(res.nt, 1);
	v = res.values[0][0];
	mw_range_result_release(&res);
	mw_reader_free(r);
	return v;
}

/* Overlapping recordings (several chunks each): the overlap is stored once,
 * with the first value, in the raw points and in the rollups. */
static void import_overlap(void **state)
{
	double sum;

	(void)state;
	write_range(TMP_JSON, 0, 2000, 100);
	write_range(TMP_CSV, 1000, 3000, 200);	/* JSON, whatever the name */
	assert_int_equal(import_cmd(DB2, TMP_JSON, TMP_CSV), 0);
	assert_int_equal(count_points(DB2, &sum), 2 * 3000);
	assert_true(sum == 2000 * 100 + 2000 * 101 + 1000 * 200 + 1000 * 201);
	assert_true(minute_avg(DB2, 20) == 100);	/* [1200 s, 1260 s): in both */
	assert_true(minute_avg(DB2, 40) == 200);	/* only in the second */
	/* the other way round, into a fresh file: the later part first */
	mw_test_db_remove(DB2);
	assert_int_equal(import_cmd(DB2, TMP_CSV, TMP_JSON), 0);
	assert_int_equal(count_points(DB2, &sum), 2 * 3000);
	assert_true(sum == 1000 * 100 + 1000 * 101 + 2000 * 200 + 2000 * 201);
	assert_true(minute_avg(DB2, 20) == 200);
	/* a file holding a series twice: its points once */
	mw_test_db_remove(DB2);
	{
		static const char twice[] =
			"{\"series\":[{\"name\":\"mw_test_a\",\"labels\":{},\"points\":"
			"[[1763719200000,1],[1763719201000,2]]},"
			"{\"name\":\"mw_test_a\",\"labels\":{},\"points\":"
			"[[1763719200000,1],[1763719201000,2],[1763719202000,3]]}]}";

		mw_test_write_file(TMP_JSON, twice, sizeof(twice) - 1);
		assert_int_equal(import_cmd(DB2, TMP_JSON, NULL), 0);
		assert_int_equal(count_points(DB2, &sum), 3);
		assert_true(sum == 6);
	}
}

/* The source store exported as JSON; the file's first size - 1 bytes. */
static void export_head(char *head, size_t size)
{
	FILE *f;
	size_t n;

	export_file(DB, TMP_JSON, MW_EXPORT_JSON);
	f = fopen(TMP_JSON, "rb");
	assert_non_null(f);
	n = fread(head, 1, size - 1, f);
	fclose(f);
	head[n] = '\0';
}

/* The writer's completeness mark: none in an imported file; else the
 * newest mark committed, in the reader and at the head of the JSON. */
static void complete_mark(void **state)
{
	struct mw_store *s;
	struct mw_reader *r;
	struct mw_err err;
	int64_t mark;
	char head[64], want[64];

	(void)state;
	fill_source();
	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_complete_to(r, &mark, &err), 0);
	assert_true(mark == INT64_MIN);
	mw_reader_free(r);
	export_head(head, sizeof(head));
	assert_true(!strncmp(head, "{\"series\":[", 11));

	s = mw_test_store_reopen(DB);
	mw_store_mark_complete(s, T0 + 5000);
	mw_store_mark_complete(s, T0 + 4000);	/* never back */
	mw_store_add(s, "mw_test_x", "mw_test_x", NULL, 0, T0 + 4500, 1);
	assert_int_equal(mw_store_flush(s, &err), 0);
	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_complete_to(r, &mark, &err), 0);
	assert_true(mark == T0 + 5000);
	mw_store_mark_complete(s, T0 + 9000);	/* in memory until a flush */
	assert_int_equal(mw_reader_complete_to(r, &mark, &err), 0);
	assert_true(mark == T0 + 5000);
	mw_store_free(s);
	assert_int_equal(mw_reader_complete_to(r, &mark, &err), 0);
	assert_true(mark == T0 + 9000);
	mw_reader_free(r);
	export_head(head, sizeof(head));
	snprintf(want, sizeof(want), "{\"complete_to_ms\":%lld,\"series\":[",
		 (long long)(T0 + 9000));
	assert_true(!strncmp(head, want, strlen(want)));
}

/* ---- typeperf / relog samples ----------------------------------------------------- */

/* The points of one series as "ts=v ts=v ..." */
static void series_text(struct mw_reader *r, const char *key, char *out, size_t size)
{
	struct mw_series_info info;
	struct mw_raw_iter *it;
	struct mw_err err;
	int64_t ts;
	double v;
	size_t len = 0;

	out[0] = '\0';
	if (mw_reader_series_by_key(r, key, &info, &err) != 0)
		fail_msg("no series %s", key);
	assert_int_equal(mw_raw_iter_open(&it, r, info.id, INT64_MIN, INT64_MAX, &err), 0);
	while (mw_raw_iter_next(it, &ts, &v, &err) == 1)
		len += (size_t)snprintf(out + len, size - len, "%s%lld=%.17g", len ? " " : "",
					(long long)ts, v);
	mw_raw_iter_free(it);
	mw_series_info_release(&info);
}

#define T26 1795255200000LL	/* 2026-11-21T10:00:00Z */

static void typeperf_utf8_bom(void **state)
{
	struct mw_import_result res;
	struct mw_reader *r;
	struct mw_series_list list;
	struct mw_err err;
	char buf[512];

	(void)state;
	import_one(DB, DATA "typeperf_gmt_bom.csv", &res);
	assert_int_equal(res.encoding, MW_ENC_UTF8);
	assert_int_equal(res.bias_min, 0);
	assert_string_equal(res.zone, "GMT Standard Time");
	assert_int_equal(res.st.points, 24);
	assert_int_equal(res.st.gaps, 3);
	assert_int_equal(res.st.series, 9);
	assert_int_equal(res.st.first_ts, T26 + 1123);
	assert_int_equal(res.st.last_ts, T26 + 3127);
	r = mw_test_reader_open(DB);
	series_text(r, "memwatch_process_private_bytes{pid=\"#0\",process=\"leaky.exe\"}", buf,
		    sizeof(buf));
	assert_string_equal(buf, "1795255201123=10485760 1795255202125=10489856 "
			    "1795255203127=10493952");
	series_text(r, "memwatch_process_private_bytes{pid=\"#1\",process=\"leaky.exe\"}", buf,
		    sizeof(buf));
	assert_string_equal(buf, "1795255201123=20971520 1795255203127=20979712");
	series_text(r, "memwatch_process_handles{pid=\"#0\",process=\"leaky.exe\"}", buf, sizeof(buf));
	assert_string_equal(buf, "1795255201123=120 1795255202125=121 1795255203127=122");
	series_text(r, "memwatch_perf_value{counter=\"Page Faults/sec\",instance=\"leaky\","
		    "object=\"Process\"}", buf, sizeof(buf));
	assert_string_equal(buf, "1795255202125=33 1795255203127=0.5");
	series_text(r, "memwatch_system_commit_limit_bytes", buf, sizeof(buf));
	assert_string_equal(buf, "1795255201123=16000000000 1795255202125=16000000000 "
			    "1795255203127=16000000000");
	series_text(r, "memwatch_perf_value{counter=\"Pages/sec\",instance=\"\",object=\"Memory\"}",
		    buf, sizeof(buf));
	assert_string_equal(buf, "1795255201123=12.5 1795255203127=3.25");
	/* the selectors a user would type find them */
	assert_int_equal(mw_reader_find(r, "{process=\"leaky.exe\"}", &list, &err), 0);
	assert_int_equal(list.n, 4);
	mw_series_list_release(&list);
	assert_int_equal(mw_reader_find(r, "{__name__=~\"memwatch_system_.*\"}", &list, &err), 0);
	assert_int_equal(list.n, 3);
	mw_series_list_release(&list);
	mw_reader_free(r);
}

static void relog_utf16_bias_pid(void **state)
{
	struct mw_import_result res;
	struct mw_reader *r;
	char buf[512];

	(void)state;
	import_one(DB, DATA "relog_pst_utf16le.csv", &res);
	assert_int_equal(res.encoding, MW_ENC_UTF16LE);
	assert_int_equal(res.bias_min, 480);
	assert_int_equal(res.st.points, 14);
	assert_int_equal(res.st.gaps, 1);
	assert_int_equal(res.st.first_ts, T26);
	r = mw_test_reader_open(DB);
	/* 02:00 Pacific is 10:00 UTC; pid from the ID Process column */
	series_text(r, "memwatch_process_private_bytes{pid=\"4242\",process=\"svc.exe\"}", buf,
		    sizeof(buf));
	assert_string_equal(buf, "1795255200000=1000 1795255201000=1001");
	series_text(r, "memwatch_process_private_bytes{pid=\"5151\",process=\"svc.exe\"}", buf,
		    sizeof(buf));
	assert_string_equal(buf, "1795255202000=500");
	series_text(r, "memwatch_process_threads{pid=\"5151\",process=\"svc.exe\"}", buf, sizeof(buf));
	assert_string_equal(buf, "1795255202000=3");
	series_text(r, "memwatch_process_virtual_bytes{pid=\"#1\",process=\"svc.exe\"}", buf,
		    sizeof(buf));
	assert_string_equal(buf, "1795255200000=2000 1795255201000=2001");
	/* non-ASCII instance names survive UTF-16 */
	series_text(r, "memwatch_process_working_set_peak_bytes{pid=\"#0\",process=\"pr\xc3\xbc" "f.exe\"}",
		    buf, sizeof(buf));
	assert_string_equal(buf, "1795255200000=300 1795255201000=301 1795255202000=302");
	mw_reader_free(r);

	/* UTF-16 without a BOM, with a stray odd byte at the end */
	{
		static const char text[] = "\"(PDH-CSV 4.0) (UTC)(0)\",\"m\"\r\n"
					   "\"11/21/2025 10:00:00.000\",\"7\"";
		char u16[2 * sizeof(text) + 1];
		size_t i;

		for (i = 0; i < sizeof(text) - 1; i++) {
			u16[2 * i] = text[i];
			u16[2 * i + 1] = 0;
		}
		u16[2 * i] = 'x';
		mw_test_write_file(TMP_CSV, u16, 2 * i + 1);
		mw_test_db_remove(DB);
		import_one(DB, TMP_CSV, &res);
		assert_int_equal(res.encoding, MW_ENC_UTF16LE);
		assert_int_equal(res.st.points, 1);
		assert_int_equal(res.st.first_ts, T0);
	}
}

static void bad_line_mid_file(void **state)
{
	struct mw_import_options o = { false, 0, NULL, 0 };
	struct mw_import_result res;
	struct mw_store *s = mw_test_store_reopen(DB);
	struct mw_reader *r;
	struct mw_err err;
	char buf[512];

	(void)state;
	assert_int_equal(mw_import_file(s, DATA "typeperf_badline.csv", &o, &res, &err), -1);
	assert_non_null(strstr(err.msg, DATA "typeperf_badline.csv:4: "));
	assert_non_null(strstr(err.msg, "'2x02' is not a number"));
	assert_true(res.stopped);
	assert_int_equal(res.stop_line, 4);
	assert_int_equal(res.st.points, 4);
	/* committed already, before the store is closed */
	r = mw_test_reader_open(DB);
	series_text(r, "memwatch_process_private_bytes{pid=\"#0\",process=\"app.exe\"}", buf,
		    sizeof(buf));
	assert_string_equal(buf, "1795255200000=200 1795255201000=201");
	series_text(r, "memwatch_system_available_bytes", buf, sizeof(buf));
	assert_string_equal(buf, "1795255200000=100 1795255201000=101");
	mw_reader_free(r);
	mw_store_free(s);

	/* --skip-bad: the row is left out, the rest comes in */
	mw_test_db_remove(DB);
	s = mw_test_store_reopen(DB);
	o.skip_bad = true;
	assert_int_equal(mw_import_file(s, DATA "typeperf_badline.csv", &o, &res, &err), 0);
	assert_int_equal(res.st.skipped_lines, 1);
	assert_int_equal(res.st.points, 6);
	mw_store_free(s);
	r = mw_test_reader_open(DB);
	series_text(r, "memwatch_system_available_bytes", buf, sizeof(buf));
	assert_string_equal(buf, "1795255200000=100 1795255201000=101 1795255203000=103");
	mw_reader_free(r);

	/* a JSON export cut off: the points read before are kept */
	mw_test_db_remove(DB);
	s = mw_test_store_reopen(DB);
	assert_int_equal(mw_import_file(s, DATA "export_cut.json", NULL, &res, &err), -1);
	assert_non_null(strstr(err.msg, DATA "export_cut.json:1: "));
	assert_non_null(strstr(err.msg, "cut off"));
	mw_store_free(s);
	r = mw_test_reader_open(DB);
	series_text(r, "mw_test_bytes{a=\"b\"}", buf, sizeof(buf));
	assert_string_equal(buf, "1000=1 2000=2.5");
	mw_reader_free(r);
}

static void damaged_files(void **state)
{
	static const struct {
		const char *content;
		size_t len;
		const char *msg;
	} cases[] = {
		{ "", 0, "empty file" },
		{ "\xFF\xFE", 2, "empty file" },
		{ "\xEF\xBB\xBF \r\n", 5, "empty file" },
		{ "time,value\n1,2\n", 0, ":1: not a memwatch export or PDH CSV" },
		{ "\xFE\xFF\0\"", 4, "big-endian" },
		{ "\"(PDH-CSV 4.0) (UTC)(0)\"\r\n", 0, ":1: header: no columns" },
		{ "\"(PDH-CSV 4.0) (UTC)(0)\",\"m\"\r\n\"11/21/2025 10:00:00.000\",\"1\",\"2\"\r\n", 0,
		  ":2: more cells" },
		{ "\"(PDH-CSV 4.0) (UTC)(0)\",\"m\"\r\n\"11/21/2025 10:00:00.000\",\"1", 0,
		  ":2: unterminated quote" },
		{ "\"(PDH-CSV 4.0) (UTC)(0)\",\"m\"\r\n\"11/21/2025 10:00:00.000\"\r\n", 0,
		  ":2: 1 cells, the header has 2" },
		{ "{\"series\":[{\"name\":\"m\",\"points\":[[1,2]]}]}\n{", 0, ":2: more after the end" },
		{ "{\0\0\0\x01", 5, "unexpected character" },
	};
	struct mw_import_result res;
	struct mw_store *s = mw_test_store_reopen(DB);
	struct mw_err err;
	char msg[600];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mw_test_write_file(TMP_CSV, cases[i].content,
			   cases[i].len ? cases[i].len : strlen(cases[i].content));
		err.msg[0] = '\0';
		if (mw_import_file(s, TMP_CSV, NULL, &res, &err) != -1)
			fail_msg("case %zu accepted", i);
		snprintf(msg, sizeof(msg), "%s", err.msg);
		if (strncmp(msg, TMP_CSV, strlen(TMP_CSV)) || !strstr(msg, cases[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, msg, cases[i].msg);
	}
	assert_int_equal(mw_import_file(s, DATA "garbage.bin", NULL, &res, &err), -1);
	assert_non_null(strstr(err.msg, "binary data"));
	assert_int_equal(mw_import_file(s, DATA "no-such-file.csv", NULL, &res, &err), -1);
	assert_non_null(strstr(err.msg, "no-such-file.csv: cannot open"));
	mw_store_free(s);
}

/* The command: exit status and that it writes where --db says. */
static void command(void **state)
{
	char *ok[] = { (char *)"import", (char *)"--db", (char *)DB,
		       (char *)DATA "typeperf_gmt_bom.csv", NULL };
	char *bad[] = { (char *)"import", (char *)"--db=" DB, (char *)DATA "garbage.bin",
			(char *)DATA "relog_pst_utf16le.csv", NULL };
	char *usage1[] = { (char *)"import", (char *)"--db", (char *)DB, NULL };
	char *usage2[] = { (char *)"import", (char *)"--frobnicate", (char *)"x.csv", NULL };
	char *skip[] = { (char *)"import", (char *)"--skip-bad", (char *)"--db", (char *)DB,
			 (char *)DATA "typeperf_badline.csv", NULL };
	struct mw_reader *r;
	struct mw_series_list list;
	struct mw_err err;
	char buf[256];

	(void)state;
	assert_int_equal(mw_cmd_import(4, ok), 0);
	assert_int_equal(mw_cmd_import(4, bad), 2);
	assert_int_equal(mw_cmd_import(3, usage1), 2);
	assert_int_equal(mw_cmd_import(3, usage2), 2);
	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_find(r, "{process=\"svc.exe\"}", &list, &err), 0);
	assert_int_equal(list.n, 5);	/* the good file after the bad one came in */
	mw_series_list_release(&list);
	/* --skip-bad imports the rest but says the input had errors */
	assert_int_equal(mw_cmd_import(5, skip), 2);
	series_text(r, "memwatch_process_private_bytes{pid=\"#0\",process=\"app.exe\"}", buf,
		    sizeof(buf));
	assert_string_equal(buf, "1795255200000=200 1795255201000=201 1795255203000=203");
	mw_reader_free(r);
}

/* ---- hostile files (issue 22) ------------------------------------------------------ */

/* `memwatchd import --db DB [OPT] FILE`; its stderr is not checked here. */
static int import_opt(const char *opt, const char *path)
{
	char *argv[] = { (char *)"import", (char *)"--db", (char *)DB, (char *)opt, (char *)path,
			 NULL };

	if (!opt) {
		argv[3] = (char *)path;
		argv[4] = NULL;
	}
	return mw_cmd_import(opt ? 5 : 4, argv);
}

/* JSON of one process series with points at now - 10 min, now - 5 min and
 * last. */
static void write_json_points(int64_t last)
{
	char doc[600];
	int64_t now = mw_clock_wall_ms();
	int n = snprintf(doc, sizeof(doc),
			 "{\"series\":[{\"name\":\"memwatch_process_private_bytes\",\"labels\":"
			 "{\"pid\":\"1\",\"process\":\"a.exe\"},\"points\":[[%lld,1],[%lld,2],\n"
			 "[%lld,3]]}]}\n", (long long)(now - 600000), (long long)(now - 300000),
			 (long long)last);

	mw_test_write_file(TMP_JSON, doc, (size_t)n);
}

/* A point an hour ahead refuses the file (exit 2, nothing stored), also
 * after many good points; --max-future 2h or --allow-future store it. */
static void future_point(void **state)
{
	struct mw_import_options o = { false, 0, NULL, 0 };
	struct mw_import_result res;
	struct mw_store *s;
	struct mw_err err;
	int64_t now = mw_clock_wall_ms();
	FILE *f;
	int i;

	(void)state;
	write_json_points(now + 3600000);
	assert_int_equal(import_opt(NULL, TMP_JSON), 2);
	assert_int_equal(count_points(DB, NULL), 0);
	assert_int_equal(import_opt("--max-future=2h", TMP_JSON), 0);
	assert_int_equal(count_points(DB, NULL), 3);
	mw_test_db_remove(DB);
	assert_int_equal(import_opt("--allow-future", TMP_JSON), 0);
	assert_int_equal(count_points(DB, NULL), 3);

	/* CSV: 5,000 good rows committed every 1,000 points, then the future:
	 * the error names the line and nothing of the file is stored */
	mw_test_db_remove(DB);
	f = fopen(TMP_CSV, "wb");
	assert_non_null(f);
	fputs("\"(PDH-CSV 4.0) (UTC)(0)\",\"m\"\r\n", f);
	for (i = 0; i < 5000; i++)
		fprintf(f, "\"11/21/2025 %02d:%02d:%02d.000\",\"%d\"\r\n", i / 3600, i / 60 % 60,
			i % 60, i);
	fputs("\"11/21/2035 10:00:00.000\",\"1\"\r\n", f);
	fclose(f);
	s = mw_test_store_reopen(DB);
	o.flush_points = 1000;
	o.not_after_ms = now + 600000;
	assert_int_equal(mw_import_file(s, TMP_CSV, &o, &res, &err), -1);
	assert_non_null(strstr(err.msg, TMP_CSV ":5002: time 2035-11-21 10:00:00 UTC is in the future"));
	assert_true(res.st.future);
	assert_int_equal(res.stop_line, 5002);
	/* --skip-bad does not skip it: the file's clock is wrong, not a row */
	o.skip_bad = true;
	assert_int_equal(mw_import_file(s, TMP_CSV, &o, &res, &err), -1);
	mw_store_free(s);
	assert_int_equal(count_points(DB, NULL), 0);
}

/* After year 9999 nothing can query it: refused even with --allow-future. */
static void year_10000(void **state)
{
	(void)state;
	write_json_points(253402300800000LL);	/* 10000-01-01T00:00:00Z */
	assert_int_equal(import_opt("--allow-future", TMP_JSON), 2);
	assert_int_equal(count_points(DB, NULL), 0);
	write_json_points(-62135596800001LL);	/* before year 1 */
	assert_int_equal(import_opt("--allow-future", TMP_JSON), 2);
	assert_int_equal(count_points(DB, NULL), 0);
}

/* A line that never ends is an error naming it once it passes the limit,
 * in the header or in a row; JSON's tokens are bounded the same way. */
static void endless_line(void **state)
{
	struct mw_import_result res;
	struct mw_err err;
	size_t n = MW_IMPORT_MAX_LINE + (1u << 20), head;
	char *big = malloc(n);

	(void)state;
	assert_non_null(big);
	/* a row of 9 MiB without a line break */
	head = (size_t)sprintf(big, "\"(PDH-CSV 4.0) (UTC)(0)\",\"m\"\r\n\"11/21/2025 10:00:00.000\",\"");
	memset(big + head, '1', n - head);
	mw_test_write_file(TMP_CSV, big, n);
	assert_int_equal(mw_import_file(NULL, TMP_CSV, NULL, &res, &err), -1);
	assert_non_null(strstr(err.msg, TMP_CSV ":2: line longer than 8 MiB"));
	/* the header: one endless quoted cell */
	head = (size_t)sprintf(big, "\"(PDH-CSV 4.0) (UTC)(0)\",\"m");
	memset(big + head, 'x', n - head);
	mw_test_write_file(TMP_CSV, big, n);
	assert_int_equal(mw_import_file(NULL, TMP_CSV, NULL, &res, &err), -1);
	assert_non_null(strstr(err.msg, TMP_CSV ":1: line longer than"));
	/* JSON: a label value that never ends */
	head = (size_t)sprintf(big, "{\"series\":[{\"name\":\"m\",\"labels\":{\"a\":\"");
	memset(big + head, 'x', n - head);
	mw_test_write_file(TMP_JSON, big, n);
	assert_int_equal(mw_import_file(NULL, TMP_JSON, NULL, &res, &err), -1);
	assert_non_null(strstr(err.msg, TMP_JSON ":1: "));
	assert_non_null(strstr(err.msg, "longer than"));
	free(big);
}

static void ignore_point(void *ctx, const char *key, const char *metric,
			 const struct mw_label *labels, size_t nlabels, int64_t ts, double v)
{
	(void)key;
	(void)metric;
	(void)labels;
	(void)nlabels;
	(void)ts;
	(void)v;
	(*(size_t *)ctx)++;
}

/* Header probes of a header of n columns "c0", "c1" ... and one row. */
static uint64_t header_work(size_t n)
{
	struct mw_csv_import c;
	struct mw_err err;
	size_t len = 0, i, points = 0;
	char *line = malloc(32 + n * 12);

	assert_non_null(line);
	len += (size_t)sprintf(line, "\"(PDH-CSV 4.0) (UTC)(0)\"");
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(line + len, ",\"c%zu\"", i);
	mw_csv_import_init(&c, ignore_point, &points);
	if (mw_csv_import_line(&c, line, len, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(c.ncols, n);
	len = (size_t)sprintf(line, "\"11/21/2025 10:00:00.000\"");
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(line + len, ",1");
	if (mw_csv_import_line(&c, line, len, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(points, n);
	mw_csv_import_release(&c);
	free(line);
	return c.header_probes;
}

/* 100,000 columns: the header's checks (repeated series, ID Process
 * links) cost per column what 1,000 columns cost (they compared every
 * pair: 78 s). */
static void wide_header(void **state)
{
	double small, large;

	(void)state;
	small = (double)header_work(1000) / 1000;
	large = (double)header_work(100000) / 100000;
	assert_true(small > 0);
	assert_true(large < 2 * small);
}

/* Names are never cut: a NUL in a CSV header cell, \u0000 in a JSON name,
 * label name or key; labels that are not UTF-8. */
static void altered_names(void **state)
{
#define CASE(text, msg) { text, sizeof(text) - 1, msg }
	static const struct {
		const char *content;
		size_t len;
		const char *msg;
	} cases[] = {
		CASE("\"(PDH-CSV 4.0) (UTC)(0)\",\"m\0y\"\r\n",
		     ":1: header, column 2: the name 'm' holds a NUL"),
		CASE("\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\H\\Process(a\0b)\\Private Bytes\"\r\n",
		     ":1: header, column 2: the name '\\\\H\\Process(a' holds a NUL"),
		CASE("{\"series\":[{\"name\":\"m\",\"labels\":{\"a\\u0000b\":\"1\"},\"points\":[[1,1]]}]}",
		     ":1: series 1 (m): key 'a' holds a NUL"),
		CASE("{\"series\":[{\"name\":\"m\\u0000x\",\"labels\":{},\"points\":[[1,1]]}]}",
		     ":1: series 1: name 'm' holds a NUL"),
		CASE("{\"series\":[{\"name\":\"m\",\"labels\":{\"a\":\"1\"},\n\"points\\u0000\":[],"
		     "\"points\":[[1,1]]}]}", ":2: series 1 (m): key 'points' holds a NUL"),
		CASE("{\"series\":[{\"name\":\"m\",\"labels\":{\"a\":\"\xff\xfe\"},\n\"points\":[[1,1]]}]}",
		     ":2: series 1 (m): label 'a' of m is not valid UTF-8"),
		CASE("\"(PDH-CSV 4.0) (UTC)(0)\",\"m{a=\"\"\xc3\"\"}\"\r\n",
		     ":1: header, column 2: label 'a' of m is not valid UTF-8"),
		CASE("\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\H\\Process(\xed\xa0\x80)\\Private Bytes\"\r\n",
		     ":1: header, column 2: label 'process' of memwatch_process_private_bytes is not "
		     "valid UTF-8"),
	};
#undef CASE
	struct mw_import_result res;
	struct mw_store *s = mw_test_store_reopen(DB);
	struct mw_err err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mw_test_write_file(TMP_CSV, cases[i].content, cases[i].len);
		err.msg[0] = '\0';
		if (mw_import_file(s, TMP_CSV, NULL, &res, &err) != -1)
			fail_msg("case %zu accepted", i);
		if (strncmp(err.msg, TMP_CSV ":", strlen(TMP_CSV) + 1) || !strstr(err.msg, cases[i].msg))
			fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, cases[i].msg);
	}
	mw_store_free(s);
	assert_int_equal(count_points(DB, NULL), 0);
}

/* The same series twice in one file, its timestamps stored once: JSON
 * (the labels in another order) and CSV (two perfmon instances of one
 * process, made one series by their ID Process). */
static void series_twice(void **state)
{
	static const char json[] =
		"{\"series\":[{\"name\":\"m\",\"labels\":{\"a\":\"1\",\"b\":\"2\"},\"points\":"
		"[[1763719200000,1],[1763719201000,2],[1763719201000,2]]},"
		"{\"name\":\"m\",\"labels\":{\"b\":\"2\",\"a\":\"1\"},\"points\":"
		"[[1763719201000,2],[1763719200000,1],[1763719202000,3]]}]}";
	static const char csv[] =
		"\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\H\\Process(app)\\Private Bytes\","
		"\"\\\\H\\Process(app)\\ID Process\",\"\\\\H\\Process(app#1)\\Private Bytes\","
		"\"\\\\H\\Process(app#1)\\ID Process\"\r\n"
		"\"11/21/2025 10:00:00.000\",\"5\",\"42\",\"5\",\"42\"\r\n"
		"\"11/21/2025 10:00:01.000\",\"6\",\"42\",\"6\",\"42\"\r\n";
	double sum;

	(void)state;
	mw_test_write_file(TMP_JSON, json, sizeof(json) - 1);
	assert_int_equal(import_opt(NULL, TMP_JSON), 0);
	assert_int_equal(count_points(DB, &sum), 3);
	assert_true(sum == 6);
	mw_test_db_remove(DB);
	mw_test_write_file(TMP_CSV, csv, sizeof(csv) - 1);
	assert_int_equal(import_opt(NULL, TMP_CSV), 0);
	/* pid 42's private bytes twice a row, stored once; and each ID Process */
	assert_int_equal(count_points(DB, &sum), 2 + 2 * 2);
	assert_true(sum == 5 + 6 + 4 * 42);
}

MW_TEST_MAIN(
	cmocka_unit_test(detect),
	cmocka_unit_test(pdh_header_and_time),
	cmocka_unit_test(values),
	cmocka_unit_test(counter_paths),
	cmocka_unit_test(series_keys),
	cmocka_unit_test(csv_typeperf_lines),
	cmocka_unit_test(json_stream),
	cmocka_unit_test(json_errors),
	MW_FIXTURE_TEST(roundtrip_csv),
	MW_FIXTURE_TEST(roundtrip_json),
	MW_FIXTURE_TEST(import_twice),
	MW_FIXTURE_TEST(import_overlap),
	MW_FIXTURE_TEST(complete_mark),
	MW_FIXTURE_TEST(typeperf_utf8_bom),
	MW_FIXTURE_TEST(relog_utf16_bias_pid),
	MW_FIXTURE_TEST(bad_line_mid_file),
	MW_FIXTURE_TEST(damaged_files),
	MW_FIXTURE_TEST(command),
	MW_FIXTURE_TEST(future_point),
	MW_FIXTURE_TEST(year_10000),
	MW_FIXTURE_TEST(endless_line),
	cmocka_unit_test(wide_header),
	MW_FIXTURE_TEST(altered_names),
	MW_FIXTURE_TEST(series_twice),
)
