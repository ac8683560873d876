/*
 * test_storage_startup.c - a restart in the middle of a run changes
 * nothing the file ends up holding: the same chunks (the open chunks
 * taken up and continued bit for bit, none added), the same rollup rows
 * of every tier, whether the start-up read the buckets in progress from
 * the rows a clean stop wrote (storage/series.c resume_rollups) or
 * rebuilt them from raw points as after a crash.
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

#include "storage/store.h"
#include "core/batch.h"
#include "tests/support/test_db.h"
#include "tests/support/test_file.h"
#include "tests/support/test_main.h"

#define STRAIGHT "test_storage_startup.tmp.db"
#define RESTARTED "test_storage_startup.tmp.db2"
#define CRASHED "test_storage_startup.tmp.db3"
#define T0 1699999200000LL
/* The stop: 2 h 17 min 33 s in, inside a chunk (333 of 720 points), a
 * minute, a 10-minute bucket and an hour; the run goes on 25 minutes. */
#define STOP 8253
#define END (STOP + 1500)
#define CRASH 8940	/* just after a flush: a crash there loses no point */
#define FLUSH_EVERY 60
#define SERIES 5
#define ENDS_AT_STOP 5	/* the id of series 4: its rollup rows differ (below) */

static int setup(void **state)
{
	(void)state;
	mw_test_db_remove(STRAIGHT);
	mw_test_db_remove(RESTARTED);
	mw_test_db_remove(CRASHED);
	return 0;
}

static int teardown(void **state)
{
	return setup(state);
}

/* Series j's point at tick k, or false when it has none: 0 counts pages,
 * 1 has fractions, 2 is NaN for the 40 s before the stop (its newest
 * minute row is not its newest point's: rebuilt), 3 is quiet for a
 * minute around the stop, 4 ends at the stop (its open chunk, never taken
 * up after the restart, must stay as it was). */
static bool point(int j, int k, double *v)
{
	switch (j) {
	case 0:
		*v = 4096.0 * (1000 + k / 97 + (k % 13 == 0 ? 5 : 0));
		return true;
	case 1:
		*v = 0.25 * k + sin(k / 50.0);
		return true;
	case 2:
		*v = k >= STOP - 40 && k < STOP ? NAN : (double)(k % 600);
		return true;
	case 3:
		*v = 7.0 * (k / 300);
		return k < STOP - 30 || k >= STOP + 30;
	default:
		*v = 42;
		return k < STOP;
	}
}

static void feed(struct mw_store *s, int from, int to)
{
	struct mw_err err;
	int k, j;

	for (k = from; k < to; k++) {
		for (j = 0; j < SERIES; j++) {
			struct mw_label l = { "pid", NULL };
			char pid[16], key[128];
			double v;

			if (!point(j, k, &v))
				continue;
			snprintf(pid, sizeof(pid), "%d", 100 + j);
			l.value = pid;
			mw_series_key_format(key, sizeof(key), "memwatch_process_private_bytes", &l, 1);
			mw_store_add(s, key, "memwatch_process_private_bytes", &l, 1,
				     T0 + k * 1000LL + 3, v);
		}
		if (k % FLUSH_EVERY == FLUSH_EVERY - 1 && mw_store_flush(s, &err))
			fail_msg("flush: %s", err.msg);
	}
}

static struct mw_store *open_store(const char *path)
{
	struct mw_store *s = mw_test_store_reopen(path);

	assert_non_null(s);
	return s;
}

/* text appended to *out (of *len bytes, NUL-terminated). */
static void append(char **out, size_t *len, const char *text)
{
	size_t n = strlen(text);

	*out = realloc(*out, *len + n + 1);
	assert_non_null(*out);
	memcpy(*out + *len, text, n + 1);
	*len += n;
}

/* Every row sql returns on the file at path, as text. */
static char *dump(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char *out = NULL;
	size_t len = 0;
	int i;

	append(&out, &len, "");
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (i = 0; i < sqlite3_column_count(st); i++) {
			const unsigned char *text = sqlite3_column_text(st, i);

			append(&out, &len, text ? (const char *)text : "NULL");
			append(&out, &len, "|");
		}
		append(&out, &len, "\n");
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	return out;
}

static void same_rows(const char *path, const char *sql)
{
	char *a = dump(STRAIGHT, sql), *b = dump(path, sql);

	assert_true(strlen(a) > 100);	/* there is something to compare */
	assert_string_equal(b, a);
	free(a);
	free(b);
}

/* The file at path holds what the straight one does.  Rebuilt (not
 * exact), a coarser tier's bucket in progress sums the stored minutes, not
 * the points, so a sum of fractions may differ in its last digit.  The
 * series that ends at the stop has rows only where stopped: the clean stop
 * wrote its buckets in progress, the straight run dropped it from memory
 * idle, which leaves them to the raw points (store.c is_idle). */
static void same_files(const char *path, bool exact)
{
	static const char *const tier[] = { "1m", "10m", "1h" };
	char sql[256];
	int t;

	same_rows(path, "SELECT series_id, min_ts, max_ts, npoints, hex(data), last_ts, last_value"
		  " FROM chunk ORDER BY series_id, min_ts");
	for (t = 0; t < 3; t++) {
		snprintf(sql, sizeof(sql), "SELECT series_id, t, base, min, max, last, %s, count"
			 " FROM rollup_%s_data WHERE series_id != %d ORDER BY series_id, t",
			 exact || t == 0 ? "sum" : "round(sum, 6)", tier[t], ENDS_AT_STOP);
		same_rows(path, sql);
	}
}

/* The whole stretch on one store into STRAIGHT. */
static void run_straight(void)
{
	struct mw_store *s = open_store(STRAIGHT);

	feed(s, 0, END);
	mw_store_free(s);
}

/* A store on path, holding live series at start-up, fed ticks from ..
 * to; the series its start-up resumed from their rows.  crash_copy: a copy
 * of the files as they are at the end (a crash there) is left at that
 * path, then the store is stopped. */
static uint64_t run_part(const char *path, size_t live, int from, int to,
			 const char *crash_copy)
{
	struct mw_store_stats st;
	struct mw_store *s = open_store(path);
	char wal[256], copy_wal[256];

	mw_store_get_stats(s, &st);
	assert_int_equal(st.series, live);
	feed(s, from, to);
	if (crash_copy) {
		snprintf(wal, sizeof(wal), "%s-wal", path);
		snprintf(copy_wal, sizeof(copy_wal), "%s-wal", crash_copy);
		mw_test_copy_file(path, crash_copy);
		mw_test_copy_file(wal, copy_wal);
	}
	mw_store_free(s);
	return st.series_resumed;
}

/* After a clean stop the start-up takes every series up from its rows
 * but the one whose newest point (NaN) no row holds. */
static void clean_stop_resumes_exactly(void **state)
{
	(void)state;
	run_straight();
	run_part(RESTARTED, 0, 0, STOP, NULL);
	assert_int_equal(run_part(RESTARTED, SERIES, STOP, END, NULL), SERIES - 1);
	same_files(RESTARTED, true);
}

/* After a crash (the stop marked as not clean, as a kill leaves it) every
 * series is rebuilt from raw points, to the same. */
static void crash_rebuilds_exactly(void **state)
{
	sqlite3 *db;

	(void)state;
	run_straight();
	run_part(RESTARTED, 0, 0, STOP, NULL);
	assert_int_equal(sqlite3_open(RESTARTED, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "UPDATE store_state SET clean_stop = 0", NULL, NULL,
				      NULL), SQLITE_OK);
	assert_int_equal(sqlite3_changes(db), 1);
	sqlite3_close(db);
	assert_int_equal(run_part(RESTARTED, SERIES, STOP, END, NULL), 0);
	same_files(RESTARTED, false);
}

/* A crash in a run that resumed from the rows: the next start-up rebuilds
 * from what that run wrote, to the same. */
static void crash_after_resume_rebuilds(void **state)
{
	(void)state;
	run_straight();
	run_part(RESTARTED, 0, 0, STOP, NULL);
	assert_int_equal(run_part(RESTARTED, SERIES, STOP, CRASH, CRASHED), SERIES - 1);
	/* the one that ended at the stop left memory idle before the crash */
	assert_int_equal(run_part(CRASHED, SERIES - 1, CRASH, END, NULL), 0);
	same_files(CRASHED, false);
}

MW_TEST_MAIN(
	cmocka_unit_test_setup_teardown(clean_stop_resumes_exactly, setup, teardown),
	cmocka_unit_test_setup_teardown(crash_rebuilds_exactly, setup, teardown),
	cmocka_unit_test_setup_teardown(crash_after_resume_rebuilds, setup, teardown),
)
