/*
 * test_crash_loop_linux.c - a store killed (SIGKILL) hundreds of times in
 * a row while a reader in another process reads all the time: the daemon
 * must not get slower at every restart, nor grow the file per restart.
 *
 * Each round forks a writer (the SIGKILL harness of kill_rounds_linux.h):
 * it opens the store (and tells the parent how long that took), then
 * writes one point per series and flushes, like a daemon sampling each
 * second and flushing each second, until it is killed after 1-6 commits.
 * A reader process runs read transactions back to back for the whole test.
 * Some series (a process) stop getting points early in the loop.  At the
 * end:
 *   - the WAL is no larger than in the first rounds (it used to grow at
 *     every round: readers always present kept it from starting over, and
 *     every start-up read all of it);
 *   - start-up takes about what it took in the first rounds (a generous
 *     ratio of medians of its CPU time, not an absolute time);
 *   - each live series has about as many chunk rows as its points fill
 *     (a restart takes its open chunk up again instead of starting a new
 *     one-point chunk);
 *   - the process that ended has its last minute rolled up (the bucket in
 *     progress is written when its series goes quiet);
 *   - the file passes integrity_check and the reader never stopped.
 * Synchronisation is only through pipes; no sleeps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "base/clock.h"
#include "storage/store.h"
#include "tests/support/kill_rounds_linux.h"
#include "tests/support/test_db.h"

#define DB "test_crash_loop.tmp.db"
#define ROUNDS 250
#define NLIVE 200	/* series written for the whole test */
#define NENDED 5	/* series of a process that ends at step END_STEP */
#define END_STEP 130	/* 2 min 10 s: mid-minute */
#define FIRST 20	/* rounds compared with the last ones */
#define T0 1699999200000LL	/* a whole hour */
/* Points a chunk: small, so chunks fill and close many times in the loop
 * (a start-up decodes each live series' open chunk: what it costs goes up
 * and down with the chunk, bounded by its size, whatever the crashes). */
#define CHUNK_POINTS 100

/* The step to write next: after the newest point the file holds. */
static int64_t resume_step(struct mw_store *s)
{
	sqlite3_stmt *st;
	int64_t next = 0;

	if (sqlite3_prepare_v2(mw_store_db(s), "SELECT max(coalesce(last_ts, max_ts)) FROM chunk",
			       -1, &st, NULL) != SQLITE_OK)
		_exit(5);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		next = (sqlite3_column_int64(st, 0) - T0) / 1000 + 1;
	sqlite3_finalize(st);
	return next;
}

static int64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The writer: report its open time (wall, CPU), then one step per flush
 * for ever. */
static void writer(int fd)
{
	struct mw_store_options o;
	struct mw_store *s;
	int64_t wall = mw_clock_mono_ns(), cpu = cpu_ns(), open[2], k;
	int j;

	mw_test_store_options(&o, DB);
	o.chunk_points = CHUNK_POINTS;
	s = mw_kill_child_store(&o);
	open[0] = mw_clock_mono_ns() - wall;
	open[1] = cpu_ns() - cpu;
	if (write(fd, open, sizeof(open)) != sizeof(open))
		_exit(4);
	for (k = resume_step(s);; k++) {
		char key[64];

		for (j = 0; j < NLIVE; j++) {
			snprintf(key, sizeof(key), "live{n=\"%d\"}", j);
			mw_store_add(s, key, "live", NULL, 0, T0 + k * 1000,
				     (double)(4096 * (k + j)));
		}
		for (j = 0; k < END_STEP && j < NENDED; j++) {
			snprintf(key, sizeof(key), "ended{n=\"%d\"}", j);
			mw_store_add(s, key, "ended", NULL, 0, T0 + k * 1000, (double)k);
		}
		mw_kill_child_commit(s, fd, k + 1);
	}
}

/* The reader: read transactions back to back until killed, counting. */
static void reader(volatile uint64_t *reads)
{
	sqlite3 *db;

	if (sqlite3_open_v2(DB, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		_exit(2);
	sqlite3_busy_timeout(db, 2000);
	for (;;) {
		sqlite3_exec(db, "BEGIN; SELECT count(*) FROM chunk; "
			     "SELECT sum(npoints) FROM chunk WHERE series_id < 50; COMMIT",
			     NULL, NULL, NULL);
		(*reads)++;
	}
}

static int64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : (int64_t)st.st_size;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int64_t median(int64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	return v[n / 2];
}

static void crash_loop_stays_fast(void **state)
{
	static int64_t open_ns[ROUNDS], open_cpu[ROUNDS], wal[ROUNDS];
	volatile uint64_t *reads;
	struct mw_store *s;
	pid_t rpid;
	int64_t wal_first = 0, chunks, points, bucket, minute_points;
	int round, status;
	unsigned seed = (unsigned)time(NULL);
	const char *env = getenv("MW_CRASH_SEED");

	(void)state;
	if (env)
		seed = (unsigned)strtoul(env, NULL, 10);
	printf("crash loop seed %u (MW_CRASH_SEED to repeat)\n", seed);
	srand(seed);
	mw_test_db_remove(DB);
	assert_non_null(s = mw_test_store_open(DB));	/* the file exists for the reader */
	mw_store_free(s);
	reads = mmap(NULL, sizeof(*reads), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	assert_true(reads != MAP_FAILED);
	*reads = 0;
	if ((rpid = fork()) == 0)
		reader(reads);	/* never returns */
	assert_true(rpid > 0);

	for (round = 0; round < ROUNDS; round++) {
		int fds[2], reports = 1 + rand() % 6;
		int64_t upto;
		pid_t pid;

		assert_int_equal(pipe(fds), 0);
		if ((pid = fork()) == 0) {
			close(fds[0]);
			writer(fds[1]);	/* never returns */
		}
		assert_true(pid > 0);
		close(fds[1]);
		int64_t open[2];

		assert_int_equal(read(fds[0], open, sizeof(open)), sizeof(open));
		open_ns[round] = open[0];
		open_cpu[round] = open[1];
		mw_kill_after_reports(pid, fds[0], reports, &upto);
		wal[round] = file_size(DB "-wal");
		if (round < FIRST && wal[round] > wal_first)
			wal_first = wal[round];
	}

	/* the reader read all along, and was never stopped */
	assert_int_equal(waitpid(rpid, &status, WNOHANG), 0);
	kill(rpid, SIGKILL);
	assert_int_equal(waitpid(rpid, &status, 0), rpid);
	printf("reader: %llu read transactions\n", (unsigned long long)*reads);
	assert_true(*reads > ROUNDS);
	munmap((void *)reads, sizeof(*reads));

	mw_kill_assert_intact(DB);
	chunks = mw_test_db_int(DB, "SELECT count(*) FROM chunk c JOIN series s ON s.id = c.series_id "
				"JOIN metric m ON m.id = s.metric_id WHERE m.name = 'live'");
	points = mw_test_db_int(DB, "SELECT sum(npoints) FROM chunk c JOIN series s ON "
				"s.id = c.series_id JOIN metric m ON m.id = s.metric_id "
				"WHERE m.name = 'live'");
	/* the ended process's last minute: its points, and its rollup row */
	bucket = (T0 + (END_STEP - 1) * 1000) / 60000;
	minute_points = END_STEP - (bucket * 60000 - T0) / 1000;
	{
		char sql[256];
		int64_t rows, count;

		snprintf(sql, sizeof(sql), "SELECT count(*) FROM rollup_1m_data r JOIN series s ON "
			 "s.id = r.series_id JOIN metric m ON m.id = s.metric_id "
			 "WHERE m.name = 'ended' AND r.t = %lld", (long long)bucket);
		rows = mw_test_db_int(DB, sql);
		snprintf(sql, sizeof(sql), "SELECT min(r.count) FROM rollup_1m_data r JOIN series s ON "
			 "s.id = r.series_id JOIN metric m ON m.id = s.metric_id "
			 "WHERE m.name = 'ended' AND r.t = %lld", (long long)bucket);
		count = rows ? mw_test_db_int(DB, sql) : 0;
		printf("ended process: %lld of %d series with their last minute rolled up "
		       "(%lld of %lld points)\n", (long long)rows, NENDED, (long long)count,
		       (long long)minute_points);

		printf("start-up: median %.1f ms (CPU %.1f ms) in the first %d rounds, %.1f ms "
		       "(CPU %.1f ms) in the last %d\n", median(open_ns, FIRST) / 1e6,
		       median(open_cpu, FIRST) / 1e6, FIRST,
		       median(open_ns + ROUNDS - FIRST, FIRST) / 1e6,
		       median(open_cpu + ROUNDS - FIRST, FIRST) / 1e6, FIRST);
		printf("WAL: at most %lld bytes in the first %d rounds, %lld after round %d\n",
		       (long long)wal_first, FIRST, (long long)wal[ROUNDS - 1], ROUNDS);
		printf("live series: %lld chunk rows for %d series, %lld points (%.1f rows, "
		       "%.1f points per series)\n", (long long)chunks, NLIVE, (long long)points,
		       (double)chunks / NLIVE, (double)points / NLIVE);

		/* a generous factor: what it guards against grew without bound
		 * (9 times in 250 rounds); quick_check still reads the whole
		 * file, which grows a little.
		 * CPU time: the wall time of 20 starts on a shared machine
		 * varies more than that (printed above). */
		assert_true(median(open_cpu + ROUNDS - FIRST, FIRST) <= 4 * median(open_cpu, FIRST));
		assert_true(wal[ROUNDS - 1] <= 2 * wal_first + (1 << 20));
		/* full chunks, plus the one being written */
		assert_true(chunks <= NLIVE * (points / NLIVE / CHUNK_POINTS + 2));
		assert_int_equal(rows, NENDED);
		assert_int_equal(count, minute_points);
	}
	mw_test_db_remove(DB);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(crash_loop_stays_fast),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
