/*
 * test_storage_clean_stop.c - the start-up's full read of the database
 * (PRAGMA quick_check) is skipped only for a file the last run closed
 * cleanly and that no one changed since (storage/clean_stop.c), and runs
 * after a crash, a file that grew behind the store's back, a stale or
 * future-dated last check, and always with full_check = 0.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "storage/clean_stop.h"
#include "storage/store.h"
#include "core/batch.h"
#include "base/clock.h"
#include "tests/support/test_db.h"
#include "tests/support/test_file.h"
#include "tests/support/test_main.h"

#define DB "test_storage_clean_stop.tmp.db"
#define COPY "test_storage_clean_stop.tmp.db2"
#define T0 1699999200000LL
#define HOUR 3600000LL

static int setup(void **state)
{
	(void)state;
	mw_test_db_remove(DB);
	mw_test_db_remove(COPY);
	return 0;
}

static int teardown(void **state)
{
	return setup(state);
}

static struct mw_store *open_at(const char *path, int64_t every_ms)
{
	struct mw_store_options o;
	struct mw_store *s;

	mw_test_store_options(&o, path);
	o.full_check_every_ms = every_ms;
	s = mw_test_store_open_with(&o);
	assert_non_null(s);
	return s;
}

static void write_points(struct mw_store *s, int n)
{
	struct mw_label l[1] = { { "pid", "1" } };
	const char *metric = "memwatch_process_private_bytes";
	struct mw_err err;
	char key[128];
	int i;

	mw_series_key_format(key, sizeof(key), metric, l, 1);
	for (i = 0; i < n; i++)
		mw_store_add(s, key, metric, l, 1, T0 + i * 1000, i);
	if (mw_store_flush(s, &err))
		fail_msg("%s", err.msg);
}

/* Set the date of the last full check; it reads the value back. */
static void set_checked(int64_t ms)
{
	char sql[128];

	snprintf(sql, sizeof(sql), "UPDATE store_state SET checked_ms = %lld RETURNING checked_ms",
		 (long long)ms);
	assert_int_equal(mw_test_db_int(DB, sql), ms);
}

/* Why the store's start-up read the whole file; NULL: it did not. */
static const char *full_check_of(struct mw_store *s)
{
	struct mw_store_stats st;

	mw_store_get_stats(s, &st);
	return st.full_check;
}

/* A store opened on path reads the whole file for a reason containing
 * why, or (why NULL) skips that; then it is closed cleanly. */
static void expect_full_check(const char *path, int64_t every_ms, const char *why)
{
	struct mw_store *s = open_at(path, every_ms);

	if (why)
		assert_non_null(strstr(full_check_of(s), why));
	else
		assert_null(full_check_of(s));
	mw_store_free(s);
}

static void reason_rules(void **state)
{
	struct mw_clean_stop st = { .found = true, .clean = true, .pages = 10,
				    .checked_ms = T0 };
	struct mw_clean_stop none = { 0 }, crashed = st;
	int64_t week = MW_FULL_CHECK_EVERY_MS;

	(void)state;
	crashed.clean = false;
	assert_null(mw_full_check_reason(&st, 40960, 4096, T0 + HOUR, week));
	assert_non_null(strstr(mw_full_check_reason(&st, 40960, 4096, T0 + HOUR, 0),
			       "every start-up"));
	assert_non_null(strstr(mw_full_check_reason(&none, 40960, 4096, T0, week), "no record"));
	assert_non_null(strstr(mw_full_check_reason(&crashed, 40960, 4096, T0, week),
			       "did not stop cleanly"));
	assert_non_null(strstr(mw_full_check_reason(&st, 45056, 4096, T0, week), "size"));
	assert_non_null(strstr(mw_full_check_reason(&st, 36864, 4096, T0, week), "size"));
	assert_non_null(strstr(mw_full_check_reason(&st, -1, 4096, T0, week), "size"));
	assert_non_null(strstr(mw_full_check_reason(&st, 40960, 4096, T0 - 1, week),
			       "future"));
	assert_non_null(strstr(mw_full_check_reason(&st, 40960, 4096, T0 + week, week),
			       "older"));
	st.pages = INT64_MAX / 2;
	assert_non_null(mw_full_check_reason(&st, 40960, 4096, T0 + HOUR, week));
}

/* New file: checked (there is nothing to trust yet).  Closed cleanly and
 * opened again: not checked, and the record says clean only between runs. */
static void clean_stop_skips(void **state)
{
	struct mw_store *s;

	(void)state;
	s = open_at(DB, MW_FULL_CHECK_EVERY_MS);
	assert_non_null(full_check_of(s));
	write_points(s, 100);
	assert_int_equal(mw_test_db_int(DB, "SELECT clean_stop FROM store_state"), 0);
	mw_store_free(s);
	assert_int_equal(mw_test_db_int(DB, "SELECT clean_stop FROM store_state"), 1);
	assert_int_equal(mw_test_db_int(DB, "SELECT pages FROM store_state"),
			 mw_test_db_int(DB, "PRAGMA page_count"));

	s = open_at(DB, MW_FULL_CHECK_EVERY_MS);
	assert_null(full_check_of(s));
	assert_int_equal(mw_test_db_int(DB, "SELECT clean_stop FROM store_state"), 0);
	mw_store_free(s);
	/* and again: a run that skipped keeps the date of the last check */
	expect_full_check(DB, MW_FULL_CHECK_EVERY_MS, NULL);
}

/* The files as a crash leaves them (copied while the store has them open). */
static void crash_checks(void **state)
{
	struct mw_store *s;

	(void)state;
	s = open_at(DB, MW_FULL_CHECK_EVERY_MS);
	mw_store_free(s);
	s = open_at(DB, MW_FULL_CHECK_EVERY_MS);
	write_points(s, 100);
	mw_test_copy_file(DB, COPY);
	mw_test_copy_file(DB "-wal", COPY "-wal");
	mw_store_free(s);

	expect_full_check(COPY, MW_FULL_CHECK_EVERY_MS, "did not stop cleanly");
	expect_full_check(COPY, MW_FULL_CHECK_EVERY_MS, NULL);	/* that run stopped cleanly */
}

/* Bytes added to the file by someone else. */
static void grown_file_checks(void **state)
{
	struct mw_store *s;
	FILE *f;
	char page[4096];

	(void)state;
	s = open_at(DB, MW_FULL_CHECK_EVERY_MS);
	write_points(s, 10);
	mw_store_free(s);
	memset(page, 0, sizeof(page));
	f = fopen(DB, "ab");
	assert_non_null(f);
	assert_int_equal(fwrite(page, 1, sizeof(page), f), sizeof(page));
	fclose(f);
	expect_full_check(DB, MW_FULL_CHECK_EVERY_MS, "changed size");
}

/* A last check older than full_check, or dated after now, or full_check 0. */
static void stale_future_and_always(void **state)
{
	(void)state;
	expect_full_check(DB, MW_FULL_CHECK_EVERY_MS, "no record");
	expect_full_check(DB, 0, "every start-up");

	set_checked(mw_clock_wall_ms() - 2 * HOUR);
	expect_full_check(DB, HOUR, "older");
	expect_full_check(DB, HOUR, NULL);	/* that check is recorded */

	set_checked(mw_clock_wall_ms() + 24 * HOUR);
	expect_full_check(DB, MW_FULL_CHECK_EVERY_MS, "future");
}

/* ---- the full check read in the background (storage/bg_check.c) ---- */

static struct mw_store *open_background(const char *path, int64_t every_ms)
{
	struct mw_store_options o;
	struct mw_store *s;

	mw_test_store_options(&o, path);
	o.full_check_every_ms = every_ms;
	o.full_check_background_from = 0;	/* whatever the file's size */
	s = mw_test_store_open_with(&o);
	assert_non_null(s);
	return s;
}

static const char *background_check_of(struct mw_store *s)
{
	struct mw_store_stats st;

	mw_store_get_stats(s, &st);
	return st.full_check_background;
}

/* A check that is due runs beside the store: the open does not read the
 * file, the check passes and is dated as a start-up's would be, so the
 * next start-up within full_check skips it. */
static void background_check_passes(void **state)
{
	struct mw_store *s;

	(void)state;
	s = open_at(DB, MW_FULL_CHECK_EVERY_MS);
	write_points(s, 100);
	mw_store_free(s);
	set_checked(mw_clock_wall_ms() - 2 * HOUR);

	s = open_background(DB, HOUR);
	assert_null(full_check_of(s));
	assert_non_null(strstr(background_check_of(s), "older"));
	write_points(s, 10);	/* the store writes while the check reads */
	assert_null(mw_store_wait_check(s));
	mw_store_free(s);
	expect_full_check(DB, HOUR, NULL);	/* the background check was recorded */
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM store_state"), 1);
}

static int exists(const char *path)
{
	FILE *f = fopen(path, "rb");

	if (f)
		fclose(f);
	return f != NULL;
}

/* Pages of a table the store never reads at start-up, garbled on disk:
 * the file opens, the check in the background finds it, says so for
 * /healthz and leaves a marker; the next start-up checks first and moves
 * the file aside, as a start-up check always did. */
static void background_check_finds_damage(void **state)
{
	struct mw_store *s;
	struct dirent *de;
	const char *failed;
	char garbage[4096];
	int64_t pages, page_size;
	DIR *dir;
	FILE *f;
	int found = 0, i;

	(void)state;
	s = open_at(DB, MW_FULL_CHECK_EVERY_MS);
	write_points(s, 100);
	mw_store_free(s);
	mw_test_db_int(DB, "CREATE TABLE filler (i INTEGER, b BLOB)");
	assert_int_equal(mw_test_db_int(DB, "INSERT INTO filler WITH RECURSIVE n(i) AS "
				     "(SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400) "
				     "SELECT i, randomblob(300) FROM n RETURNING 0"), 0);
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM filler"), 400);
	page_size = mw_test_db_int(DB, "PRAGMA page_size");
	pages = mw_test_db_int(DB, "PRAGMA page_count");
	/* the last pages are the filler's, written last */
	for (i = 0; i < (int)sizeof(garbage); i++)
		garbage[i] = (char)(0xA5 ^ i);
	f = fopen(DB, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)((pages - 3) * page_size), SEEK_SET), 0);
	assert_int_equal(fwrite(garbage, 1, sizeof(garbage), f), sizeof(garbage));
	fclose(f);

	s = open_background(DB, MW_FULL_CHECK_EVERY_MS);
	assert_null(full_check_of(s));
	assert_non_null(background_check_of(s));
	failed = mw_store_wait_check(s);
	assert_non_null(failed);
	assert_non_null(strstr(failed, "failed its full check"));
	assert_true(exists(DB ".check-failed"));
	mw_store_free(s);

	s = open_background(DB, MW_FULL_CHECK_EVERY_MS);
	assert_non_null(strstr(full_check_of(s), "in the background, failed"));
	assert_null(background_check_of(s));
	mw_store_free(s);
	assert_false(exists(DB ".check-failed"));
	dir = opendir(".");
	assert_non_null(dir);
	while ((de = readdir(dir)))
		if (!strncmp(de->d_name, DB ".corrupt-", strlen(DB ".corrupt-"))) {
			found += strstr(de->d_name, "-wal") == NULL && strstr(de->d_name, "-shm") == NULL;
			remove(de->d_name);
		}
	closedir(dir);
	assert_int_equal(found, 1);
}

MW_TEST_MAIN(
	cmocka_unit_test(reason_rules),
	MW_FIXTURE_TEST(clean_stop_skips),
	MW_FIXTURE_TEST(crash_checks),
	MW_FIXTURE_TEST(grown_file_checks),
	MW_FIXTURE_TEST(stale_future_and_always),
	MW_FIXTURE_TEST(background_check_passes),
	MW_FIXTURE_TEST(background_check_finds_damage)
)
