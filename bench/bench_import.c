/*
 * bench_import.c - `memwatchd import` throughput, against baselines
 * measured in the same run:
 *
 *   parse only:   the same file through mw_import_file with no store (read,
 *                 decode, split, numbers; the points are counted and dropped)
 *   sqlite plain: the same number of (series_id, ts, value) rows inserted
 *                 with one prepared statement into an unindexed table, one
 *                 transaction per million rows, WAL, synchronous = FULL (as
 *                 bench_storage's baseline)
 *   import:       mw_import_file into a fresh store (compressed chunks,
 *                 rollups, commits every million points and at the end),
 *                 skipping stored points as the command does (skip_stored)
 *   again:        the same file once more into that store: every point is
 *                 stored already and is looked up (storage/dedupe.c)
 *
 * Inputs, generated first: a typeperf-shaped CSV (100 counter columns:
 * 24 processes x 4 counters, 3 Memory gauges, one perf value; values as
 * typeperf writes them, "10485760.000000"; a gap here and there) and a
 * memwatch JSON export of 100 series.  2,000,000 points each.  Files go to
 * the working directory as bench_import*.tmp.* and are removed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "import/import.h"
#include "storage/schema.h"
#include "storage/store.h"
#include "base/calendar.h"
#include "base/clock.h"
#include "tests/support/test_db.h"
#include "tests/support/xorshift.h"

#define T0 1795255200000LL
#define COLS 100
#define ROWS 20000
#define CSV_PATH "bench_import.tmp.csv"
#define JSON_PATH "bench_import.tmp.json"
#define DB_PATH "bench_import.tmp.db"
#define BASE_PATH "bench_import_base.tmp.db"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static double now_s(void)
{
	return (double)mw_clock_mono_ns() / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_import: %s\n", what);
	exit(1);
}

static uint64_t make_csv(void)
{
	static const char *const ctr[] = { "Private Bytes", "Working Set", "Virtual Bytes",
					   "Handle Count" };
	FILE *f = fopen(CSV_PATH, "wb");
	double v[COLS];
	uint64_t points = 0;
	char t[40];
	int r, c;

	if (!f)
		die("cannot write " CSV_PATH);
	fputs("\"(PDH-CSV 4.0) (GMT Standard Time)(0)\"", f);
	for (c = 0; c < 96; c++)
		fprintf(f, ",\"\\\\SOAK\\Process(app%d%s)\\%s\"", c / 8, c / 4 % 2 ? "#1" : "",
			ctr[c % 4]);
	fputs(",\"\\\\SOAK\\Memory\\Available Bytes\",\"\\\\SOAK\\Memory\\Committed Bytes\","
	      "\"\\\\SOAK\\Memory\\Commit Limit\",\"\\\\SOAK\\Memory\\Pages/sec\"\r\n", f);
	for (c = 0; c < COLS; c++)
		v[c] = c % 4 == 3 ? 200 : 1e8 + 1e6 * c;
	for (r = 0; r < ROWS; r++) {
		mw_time_typeperf(t, sizeof(t), T0 + r * 1000 + (int64_t)(mw_xorshift(&rng) % 20));
		fprintf(f, "\"%s\"", t);
		for (c = 0; c < COLS; c++) {
			if (mw_xorshift(&rng) % 1000 == 0) {
				fputs(",\" \"", f);
				continue;
			}
			if (c == 99)
				fprintf(f, ",\"%.6f\"", (double)(mw_xorshift(&rng) % 100000) / 1000);
			else {
				v[c] += (c % 4 == 3 ? 1.0 : 4096.0) * (double)(mw_xorshift(&rng) % 3);
				fprintf(f, ",\"%.6f\"", v[c]);
			}
			points++;
		}
		fputs("\r\n", f);
	}
	fclose(f);
	return points;
}

static uint64_t make_json(void)
{
	FILE *f = fopen(JSON_PATH, "wb");
	uint64_t points = 0;
	double v;
	int s, r;

	if (!f)
		die("cannot write " JSON_PATH);
	fputs("{\"series\":[", f);
	for (s = 0; s < COLS; s++) {
		fprintf(f, "%s{\"id\":%d,\"name\":\"memwatch_process_private_bytes\",\"labels\":"
			"{\"pid\":\"%d\",\"process\":\"app%d.exe\",\"started\":\"1795255000\"},"
			"\"points\":[", s ? "," : "", s + 1, 1000 + s, s);
		v = 1e8 + 1e6 * s;
		for (r = 0; r < ROWS; r++) {
			v += 4096.0 * (double)(mw_xorshift(&rng) % 3);
			if (s % 10 == 9)	/* some fractional values */
				fprintf(f, "%s[%lld,%.17g]", r ? "," : "",
					(long long)(T0 + r * 1000 + (int64_t)(mw_xorshift(&rng) % 20)), v / 3);
			else
				fprintf(f, "%s[%lld,%.0f]", r ? "," : "",
					(long long)(T0 + r * 1000 + (int64_t)(mw_xorshift(&rng) % 20)), v);
			points++;
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
	fclose(f);
	return points;
}

/* mode 0: parse only; 1: into a fresh store; 2: into the store left by 1. */
static double run_import(const char *path, int mode, uint64_t expect)
{
	bool store = mode > 0;
	struct mw_store_options o;
	struct mw_store *s = NULL;
	struct mw_import_result res;
	struct mw_err err;
	double t;

	if (store) {
		if (mode == 1)
			mw_test_db_remove(DB_PATH);
		mw_store_options_init(&o);
		o.db_path = DB_PATH;
		o.self_metrics = false;
		o.retention_raw_ms = 0;
		o.skip_stored = true;
		if (mw_store_open(&s, &o, &err))
			die(err.msg);
	}
	t = now_s();
	if (mw_import_file(s, path, NULL, &res, &err))
		die(err.msg);
	mw_store_free(s);	/* the last commit counts */
	t = now_s() - t;
	if (res.st.points != expect)
		die("point count differs");
	if (res.already_stored != (mode == 2 ? expect : 0))
		die("points already stored: count differs");
	return (double)expect / t;
}

static double run_baseline(uint64_t n)
{
	sqlite3 *db;
	sqlite3_stmt *ins;
	struct mw_err err;
	uint64_t i;
	double t;

	mw_test_db_remove(BASE_PATH);
	if (sqlite3_open(BASE_PATH, &db) != SQLITE_OK ||
	    mw_db_exec(db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;"
		       "CREATE TABLE p (series_id INTEGER, ts INTEGER, value REAL)", &err) ||
	    sqlite3_prepare_v2(db, "INSERT INTO p VALUES (?, ?, ?)", -1, &ins, NULL))
		die("baseline");
	t = now_s();
	for (i = 0; i < n; i++) {
		if (i % 1000000 == 0 && mw_db_exec(db, i ? "COMMIT; BEGIN" : "BEGIN", &err))
			die(err.msg);
		sqlite3_bind_int64(ins, 1, (int64_t)(i % COLS));
		sqlite3_bind_int64(ins, 2, T0 + (int64_t)(i / COLS) * 1000);
		sqlite3_bind_double(ins, 3, 1e8 + (double)i);
		if (sqlite3_step(ins) != SQLITE_DONE)
			die("baseline insert");
		sqlite3_reset(ins);
	}
	if (mw_db_exec(db, "COMMIT", &err))
		die(err.msg);
	t = now_s() - t;
	sqlite3_finalize(ins);
	sqlite3_close(db);
	mw_test_db_remove(BASE_PATH);
	return (double)n / t;
}

static double best(double a, double b)
{
	return a > b ? a : b;
}

int main(void)
{
	uint64_t ncsv = make_csv(), njson = make_json();
	double csv_parse = 0, csv_import = 0, json_parse = 0, json_import = 0, base = 0;
	double csv_again = 0, json_again = 0;
	int k;

	/* best of two runs each: the machine is shared */
	for (k = 0; k < 2; k++) {
		csv_parse = best(csv_parse, run_import(CSV_PATH, 0, ncsv));
		csv_import = best(csv_import, run_import(CSV_PATH, 1, ncsv));
		csv_again = best(csv_again, run_import(CSV_PATH, 2, ncsv));
		json_parse = best(json_parse, run_import(JSON_PATH, 0, njson));
		json_import = best(json_import, run_import(JSON_PATH, 1, njson));
		json_again = best(json_again, run_import(JSON_PATH, 2, njson));
		base = best(base, run_baseline(ncsv));
	}
	printf("bench_import: %llu CSV points (100 typeperf columns), %llu JSON points "
	       "(100 series)\n", (unsigned long long)ncsv, (unsigned long long)njson);
	printf("  baseline sqlite plain inserts  %10.0f points/s\n", base);
	printf("  typeperf CSV  parse only       %10.0f points/s\n", csv_parse);
	printf("  typeperf CSV  import           %10.0f points/s   %.2fx baseline, "
	       "%.2fx parse only\n", csv_import, csv_import / base, csv_import / csv_parse);
	printf("  typeperf CSV  again (all stored) %8.0f points/s   %.2fx import\n", csv_again,
	       csv_again / csv_import);
	printf("  memwatch JSON parse only       %10.0f points/s\n", json_parse);
	printf("  memwatch JSON import           %10.0f points/s   %.2fx baseline, "
	       "%.2fx parse only\n", json_import, json_import / base, json_import / json_parse);
	printf("  memwatch JSON again (all stored) %8.0f points/s   %.2fx import\n", json_again,
	       json_again / json_import);
	printf("  target 1,000,000 points/s: CSV %s, JSON %s\n",
	       csv_import >= 1e6 ? "met" : "NOT met", json_import >= 1e6 ? "met" : "NOT met");
	remove(CSV_PATH);
	remove(JSON_PATH);
	mw_test_db_remove(DB_PATH);
	return 0;
}
