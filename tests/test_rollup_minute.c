/*
 * test_rollup_minute.c - the 1-minute bucket in progress in the file
 * (storage/store.c write_quiet_minute): written at the first flush that
 * brings its series no point (a process that ended keeps its last minute
 * across a crash), kept whole when the series resumes in that minute
 * (readers take a stored bucket as it is), and not written at every flush
 * of a series that gets points all the time.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "storage/store.h"
#include "tests/support/test_db.h"
#include "tests/support/test_main.h"

#define DB "test_rollup_minute.tmp.db"
#define T0 1699999200000LL	/* a whole hour */

MW_TEST_DB_FIXTURES(DB)

static void add(struct mw_store *s, const char *key, int64_t ts, double v)
{
	mw_store_add(s, key, "m", NULL, 0, ts, v);
}

static void flush(struct mw_store *s)
{
	struct mw_err err;

	assert_int_equal(mw_store_flush(s, &err), 0);
}

/* count and sum of the stored minute of T0 of the series with label n=N */
static int64_t minute(const char *n, const char *what)
{
	char sql[256];

	snprintf(sql, sizeof(sql), "SELECT coalesce(%s, -1) FROM rollup_1m r JOIN series_label l "
		 "ON l.series_id = r.series_id AND l.name = 'n' AND l.value = '%s' "
		 "WHERE r.ts = %lld", what, n, (long long)T0);
	return mw_test_db_int(DB, sql);
}

static void quiet_minute_stored_and_kept_whole(void **state)
{
	struct mw_store *s = mw_test_store_open(DB);

	(void)state;
	assert_non_null(s);
	add(s, "m{n=\"quiet\"}", T0, 1);
	add(s, "m{n=\"quiet\"}", T0 + 1000, 2);
	add(s, "m{n=\"busy\"}", T0, 10);
	flush(s);
	/* points in this flush: nothing in progress written */
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM rollup_1m_data"), 0);

	add(s, "m{n=\"busy\"}", T0 + 1000, 20);
	flush(s);
	/* quiet went quiet: its minute is stored; busy's is not */
	assert_int_equal(minute("quiet", "count"), 2);
	assert_int_equal(minute("quiet", "sum"), 3);
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM rollup_1m_data"), 1);

	add(s, "m{n=\"quiet\"}", T0 + 30000, 4);
	add(s, "m{n=\"busy\"}", T0 + 2000, 30);
	flush(s);
	/* it came back within the minute: the stored row kept whole */
	assert_int_equal(minute("quiet", "count"), 3);
	assert_int_equal(minute("quiet", "sum"), 7);
	assert_int_equal(minute("quiet", "max"), 4);
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM rollup_1m_data"), 1);
	mw_store_free(s);
	/* a clean stop writes every bucket in progress */
	assert_int_equal(minute("busy", "count"), 3);
}

MW_TEST_MAIN(MW_FIXTURE_TEST(quiet_minute_stored_and_kept_whole))
