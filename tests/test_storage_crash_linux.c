/*
 * test_storage_crash_linux.c - SIGKILL a writing child at random moments.
 *
 * The child writes points through a store and, after each successful
 * flush, reports over a pipe how many points are committed.  The parent
 * reads a random number of reports (seeded; the seed is printed) and
 * kills the child with SIGKILL, so the kill lands somewhere in the middle
 * of the next flush, or between flushes.  Then the database must open,
 * pass PRAGMA integrity_check, and hold every point reported flushed.
 * Synchronisation is only through the pipe; no sleeps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <cmocka.h>

#include "storage/query.h"
#include "storage/schema.h"
#include "storage/store.h"
#include "tests/support/kill_rounds_linux.h"
#include "tests/support/test_db.h"
#include "tests/support/test_reader.h"

#define DB "test_storage_crash.tmp.db"
#define NSERIES 20
#define T0 1699999200000LL

/* Point k of series j: deterministic so the parent can check values. */
static double value_of(int j, int64_t k)
{
	return (double)((k * 4096 * (j + 1)) % 1000003) + (j % 3 == 0 ? 0.5 : 0);
}

/* The child: resume after the last committed point of series 0. */
static void child(int fd, int64_t start)
{
	struct mw_store_options o;
	struct mw_store *s;
	int64_t k;
	int j;

	mw_test_store_options(&o, DB);
	o.chunk_points = 37;	/* chunks close and open often */
	s = mw_kill_child_store(&o);
	for (k = start;; k++) {
		for (j = 0; j < NSERIES; j++) {
			char key[32], metric[16];

			snprintf(metric, sizeof(metric), "m%d", j);
			snprintf(key, sizeof(key), "m%d", j);
			mw_store_add(s, key, metric, NULL, 0, T0 + k * 1000, value_of(j, k));
		}
		if (k % 7 == 6) {
			mw_kill_child_commit(s, fd, k + 1);
		}
	}
}

/* Check the file: integrity, and points [0, upto) of every series (all
 * series hold the same count: a flush is one transaction). */
static int64_t verify(int64_t from, int64_t upto)
{
	struct mw_reader *r;
	struct mw_err err;
	int64_t have = INT64_MAX;
	int j;

	(void)from;	/* every round checks from the first point */
	mw_kill_assert_intact(DB);
	r = mw_test_reader_open(DB);
	for (j = 0; j < NSERIES; j++) {
		struct mw_series_info info;
		struct mw_raw_iter *it;
		char key[32];
		int64_t ts, n = 0;
		double v;

		snprintf(key, sizeof(key), "m%d", j);
		if (mw_reader_series_by_key(r, key, &info, &err) != 0) {
			assert_int_equal(upto, 0);
			have = 0;
			continue;
		}
		assert_int_equal(mw_raw_iter_open(&it, r, info.id, INT64_MIN, INT64_MAX, &err), 0);
		while (mw_raw_iter_next(it, &ts, &v, &err) == 1) {
			/* points are in order, each once: restarts resume exactly */
			assert_int_equal(ts, T0 + n * 1000);
			assert_true(v == value_of(j, n));
			n++;
		}
		mw_raw_iter_free(it);
		mw_series_info_release(&info);
		assert_true(n >= upto);
		if (n < have)
			have = n;
	}
	mw_reader_free(r);
	return have;
}

MW_KILL_ROUNDS_MAIN(DB, 30, child, verify)
