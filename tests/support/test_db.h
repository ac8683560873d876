/*
 * test_db.h - a test's scratch database file: removed before and after
 * each test, with the files SQLite and the store keep beside it (-wal,
 * -shm, .lock), so no run sees what an earlier one left.
 */
#ifndef MW_TESTS_SUPPORT_TEST_DB_H
#define MW_TESTS_SUPPORT_TEST_DB_H

/* Remove path and its -wal, -shm and .lock files (missing ones are fine). */
void mw_test_db_remove(const char *path);

/* A store on a fresh scratch database at path (removed first), without
 * self metrics and retention, so it holds exactly what the test writes;
 * NULL with the reason on stderr. */
struct mw_store;
struct mw_store *mw_test_store_open(const char *path);

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
