/*
 * test_storage_kill_between_flushes_linux.c - the promise "a crash loses
 * at most one flush interval", as every reader sees it.
 *
 * A child writes ticks of points through a store and flushes every
 * FLUSH_TICKS ticks; two ticks after each flush (points added, not yet
 * flushed) it reports how many ticks are committed and waits for the
 * parent's word to go on.  The parent lets it go a random number of times
 * (seeded; the seed is printed), then SIGKILLs it while it waits: the
 * kill lands between two flushes, with points in memory that were never
 * committed.  Every point of the last completed flush must then be there
 * for each way memwatch reads points back - the raw iterator (export, the
 * remote-write forwarder), a raw range query, a bucketed range query (the
 * page, the leak judge's raw tail) and the latest values (/metrics, the
 * process table) - and nothing after it.  The next round's child restarts
 * on the same file (taking up the open chunks) and the check reads every
 * round's points from the first.
 *
 * test_storage_crash_linux.c kills at any moment (mid-flush too) and
 * checks through the raw iterator; this one kills only between flushes
 * and checks every read path, so a writer that keeps recent points outside
 * the chunk rows (a journal of the newest points) must show them to all of
 * them.  Synchronisation is only through pipes; no sleeps.
 */
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "storage/query.h"
#include "storage/store.h"
#include "tests/support/kill_rounds_linux.h"
#include "tests/support/test_db.h"
#include "tests/support/test_main.h"
#include "tests/support/test_reader.h"

#define DB "test_storage_kill_between_flushes.tmp.db"
#define NSERIES 6
#define FLUSH_TICKS 5
#define ROUNDS 6
#define T0 1699999200000LL	/* a minute boundary */

/* Tick k of series j: integers for most (byte counts), floats for every
 * third, so both chunk encodings are read back. */
static double value_of(int j, int64_t k)
{
	double v = (double)(((k + 3) * 4096 * (j + 1)) % 1000003);

	return j % 3 == 0 ? v + 0.25 : v;
}

static void key_of(int j, char *key, size_t size)
{
	snprintf(key, size, "m%d", j);
}

/*
 * The child: ticks from `committed` on (a multiple of FLUSH_TICKS); after
 * the flush that commits tick k - 2 it adds ticks k - 1 and k, reports
 * k - 1 (ticks committed) on rep and blocks until a byte comes on go.
 * chunk_points 23: chunks close between flushes and restarts too, and an
 * open chunk's row gets several writes (its bound as max_ts) before.
 */
static void child(int rep, int go, int64_t committed)
{
	struct mw_store_options o;
	struct mw_store *s;
	int64_t k;
	int j;

	mw_test_store_options(&o, DB);
	o.chunk_points = 23;
	s = mw_kill_child_store(&o);
	for (k = committed;; k++) {
		for (j = 0; j < NSERIES; j++) {
			char key[16];

			key_of(j, key, sizeof(key));
			mw_store_add(s, key, key, NULL, 0, T0 + k * 1000, value_of(j, k));
		}
		if (k % FLUSH_TICKS == FLUSH_TICKS - 1) {
			struct mw_err err;

			if (mw_store_flush(s, &err)) {
				fprintf(stderr, "child: %s\n", err.msg);
				_exit(3);
			}
		} else if (k % FLUSH_TICKS == 1 && k > committed + 1) {
			int64_t upto = k - 1;
			char c;

			if (write(rep, &upto, sizeof(upto)) != sizeof(upto) ||
			    read(go, &c, 1) != 1)
				_exit(4);	/* the parent is gone */
		}
	}
}

/* Every tick [0, upto) of series j through the raw iterator, and no more. */
static void check_raw(struct mw_reader *r, int64_t id, int j, int64_t upto)
{
	struct mw_raw_iter *it;
	struct mw_err err;
	int64_t ts, n = 0;
	double v;

	assert_int_equal(mw_raw_iter_open(&it, r, id, INT64_MIN, INT64_MAX, &err), 0);
	while (mw_raw_iter_next(it, &ts, &v, &err) == 1) {
		assert_int_equal(ts, T0 + n * 1000);
		assert_true(v == value_of(j, n));
		n++;
	}
	mw_raw_iter_free(it);
	assert_int_equal(n, upto);
}

/* A raw range query over everything: the same points. */
static void check_range_raw(struct mw_reader *r, int j, const char *key, int64_t upto)
{
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_err err;
	int64_t n;

	mw_range_query_init(&q, T0 - 60000, T0 + (upto + 10) * 1000);
	q.step_ms = MW_STEP_RAW;
	assert_int_equal(mw_reader_range(r, key, &q, &res, &err), 0);
	assert_int_equal(res.nseries, 1);
	assert_int_equal(res.nt, upto);
	for (n = 0; n < upto; n++) {
		assert_int_equal(res.t[n], T0 + n * 1000);
		assert_true(res.values[0][n] == value_of(j, n));
	}
	mw_range_result_release(&res);
}

/* Minute buckets, last and max: the newest minute (not rolled up yet,
 * or rebuilt by a restart) ends at the last committed point. */
static void check_range_minutes(struct mw_reader *r, int j, const char *key, int64_t upto)
{
	enum mw_agg aggs[2] = { MW_AGG_LAST, MW_AGG_MAX };
	int64_t last = upto - 1, first_of_minute = last / 60 * 60, n;
	int a;

	for (a = 0; a < 2; a++) {
		struct mw_range_query q;
		struct mw_range_result res;
		struct mw_err err;
		double want = value_of(j, last);

		mw_range_query_init(&q, T0, T0 + last * 1000);
		q.step_ms = 60000;
		q.agg = aggs[a];
		assert_int_equal(mw_reader_range(r, key, &q, &res, &err), 0);
		assert_int_equal(res.nseries, 1);
		assert_int_equal(res.nt, last / 60 + 1);
		assert_int_equal(res.t[res.nt - 1], T0 + first_of_minute * 1000);
		if (aggs[a] == MW_AGG_MAX)
			for (n = first_of_minute; n < upto; n++)
				want = fmax(want, value_of(j, n));
		assert_true(res.values[0][res.nt - 1] == want);
		mw_range_result_release(&res);
	}
}

/* Integrity, then every read path holds ticks [0, upto) exactly. */
static void verify(int64_t upto)
{
	struct mw_latest_list latest;
	struct mw_reader *r;
	struct mw_err err;
	int j;

	mw_kill_assert_intact(DB);
	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_latest(r, NULL, &latest, &err), 0);
	assert_int_equal(latest.n, NSERIES);
	for (j = 0; j < NSERIES; j++) {
		struct mw_series_info info;
		char key[16];

		key_of(j, key, sizeof(key));
		assert_int_equal(mw_reader_series_by_key(r, key, &info, &err), 0);
		assert_int_equal(info.last_ts, T0 + (upto - 1) * 1000);
		check_raw(r, info.id, j, upto);
		check_range_raw(r, j, key, upto);
		check_range_minutes(r, j, key, upto);
		/* the list is sorted by key: m0 .. m5 */
		assert_string_equal(latest.items[j].info.key, key);
		assert_int_equal(latest.items[j].ts_ms, T0 + (upto - 1) * 1000);
		assert_true(latest.items[j].value == value_of(j, upto - 1));
		mw_series_info_release(&info);
	}
	mw_latest_list_release(&latest);
	mw_reader_free(r);
}

static void killed_between_flushes(void **state)
{
	int64_t committed = 0;
	int round;

	(void)state;
	mw_kill_seed();
	mw_test_db_remove(DB);
	for (round = 0; round < ROUNDS; round++) {
		int rep[2], go[2], reports = 1 + rand() % 4, i, status;
		int64_t upto = -1;
		pid_t pid;

		assert_int_equal(pipe(rep), 0);
		assert_int_equal(pipe(go), 0);
		if ((pid = fork()) == 0) {
			close(rep[0]);
			close(go[1]);
			child(rep[1], go[0], committed);	/* never returns */
		}
		assert_true(pid > 0);
		close(rep[1]);
		close(go[0]);
		for (i = 0; i < reports; i++) {
			assert_int_equal(read(rep[0], &upto, sizeof(upto)), sizeof(upto));
			if (i + 1 < reports)
				assert_int_equal(write(go[1], "g", 1), 1);
		}
		/* the child waits on go: between flushes, two ticks unflushed */
		kill(pid, SIGKILL);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		close(rep[0]);
		close(go[1]);
		assert_true(upto > committed);
		verify(upto);
		committed = upto;
	}
	mw_test_db_remove(DB);
}

MW_TEST_MAIN(
	cmocka_unit_test(killed_between_flushes),
)
