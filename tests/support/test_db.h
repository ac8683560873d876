/*
 * test_db.h - a test's scratch database file: removed before and after
 * each test, with the files SQLite and the store keep beside it (-wal,
 * -shm, .lock), so no run sees what an earlier one left.
 */
#ifndef MW_TESTS_SUPPORT_TEST_DB_H
#define MW_TESTS_SUPPORT_TEST_DB_H

#include <stdint.h>

/* Remove path and its -wal, -shm and .lock files (missing ones are fine). */
void mw_test_db_remove(const char *path);

struct mw_store;
struct mw_store_options;

/* The options a test's store starts from: the defaults at path without
 * self metrics, so it holds exactly what the test writes.  Retention
 * keeps its defaults (it applies only when a test calls
 * mw_store_maintain); a test sets what it varies (chunk_points, ...). */
void mw_test_store_options(struct mw_store_options *o, const char *path);

/* A store with o on the database at o->db_path as it is: the fixture
 * removed it, or the test reopens what it wrote before.  NULL with the
 * reason on stderr. */
struct mw_store *mw_test_store_open_with(const struct mw_store_options *o);

/* A store with the test options and no retention on path as it is. */
struct mw_store *mw_test_store_reopen(const char *path);

/* The same on a fresh scratch database at path (removed first). */
struct mw_store *mw_test_store_open(const char *path);

/* One number from the database at path, read on a connection of its own
 * (what a store wrote, not what it holds); INT64_MIN with the reason on
 * stderr if it cannot be read. */
int64_t mw_test_db_int(const char *path, const char *sql);

/* cmocka fixtures named setup and teardown: each test starts and leaves
 * with no database at path. */
#define MW_TEST_DB_FIXTURES(path)                          \
	static int setup(void **state)                     \
	{                                                  \
		(void)state;                               \
		mw_test_db_remove(path);                   \
		return 0;                                  \
	}                                                  \
	static int teardown(void **state)                  \
	{                                                  \
		(void)state;                               \
		mw_test_db_remove(path);                   \
		return 0;                                  \
	}

#endif
