/*
 * test_storage_wal.c - the WAL does not grow without end while readers
 * come and go (storage/store.c wal_checkpoint): a reader holding one
 * snapshot lets it grow past 32 MB; once the reader lets go, the next
 * truncation empties it, where SQLite's passive checkpoints only ever
 * reused the file at its largest size.  And the writer does not wait for
 * a reader that holds on at every commit, only every eighth (counted in
 * the store's checkpoints, not timed).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "storage/store.h"
#include "tests/support/test_db.h"
#include "tests/support/test_main.h"

#define DB "test_storage_wal.tmp.db"
#define NSERIES 2000
#define WAL_BIG (32LL << 20)
#define T0 1699999200000LL

MW_TEST_DB_FIXTURES(DB)

static int64_t wal_bytes(void)
{
	struct stat st;

	return stat(DB "-wal", &st) ? 0 : (int64_t)st.st_size;
}

/* One point per series (random-ish doubles: chunks grow fast) and a flush. */
static void tick(struct mw_store *s, int64_t k)
{
	struct mw_err err;
	char key[32];
	int j;

	for (j = 0; j < NSERIES; j++) {
		snprintf(key, sizeof(key), "w{n=\"%d\"}", j);
		mw_store_add(s, key, "w", NULL, 0, T0 + k * 1000,
			     (double)((k * 2654435761u + (uint64_t)j * 40503u) % 1000003) / 7.0);
	}
	assert_int_equal(mw_store_flush(s, &err), 0);
}

static void wal_emptied_once_readers_let_go(void **state)
{
	struct mw_store_options o;
	struct mw_store *s;
	sqlite3 *reader;
	struct mw_store_stats st;
	uint64_t before;
	int64_t k = 0;
	int i;

	(void)state;
	mw_test_store_options(&o, DB);
	o.chunk_points = 100000;	/* every point rewrites a growing chunk */
	assert_non_null(s = mw_test_store_open_with(&o));
	tick(s, k++);
	assert_int_equal(sqlite3_open_v2(DB, &reader, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(reader, "BEGIN; SELECT count(*) FROM chunk", NULL, NULL,
				      NULL), SQLITE_OK);
	/* the reader holds its snapshot: the WAL grows past the limit */
	while (wal_bytes() <= WAL_BIG) {
		assert_true(k < 100000);
		tick(s, k++);
	}
	/* a reader that holds on costs the writer a wait (up to 1 s) every
	 * eighth commit, not at every one */
	mw_store_get_stats(s, &st);
	before = st.checkpoints;
	for (i = 0; i < 16; i++)
		tick(s, k++);
	mw_store_get_stats(s, &st);
	printf("16 commits with a reader holding on: %llu checkpoints; WAL %lld bytes\n",
	       (unsigned long long)(st.checkpoints - before), (long long)wal_bytes());
	assert_true(st.checkpoints - before <= 2);
	assert_true(wal_bytes() > WAL_BIG);

	assert_int_equal(sqlite3_exec(reader, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	for (i = 0; i < 8; i++)
		tick(s, k++);
	printf("after the reader let go: WAL %lld bytes\n", (long long)wal_bytes());
	assert_true(wal_bytes() < WAL_BIG / 8);
	sqlite3_close(reader);
	mw_store_free(s);
}

MW_TEST_MAIN(MW_FIXTURE_TEST(wal_emptied_once_readers_let_go))
