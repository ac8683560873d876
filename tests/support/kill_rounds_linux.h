/*
 * kill_rounds_linux.h - the SIGKILL harness of the crash tests
 * (test_storage_crash_linux.c, test_regions_crash_linux.c): rounds of a
 * writing child killed at a random moment, each followed by the test's
 * check of what the file holds.
 *
 * The child (fork()ed, never returning) writes through a store and, after
 * each successful flush, reports over a pipe how far it has committed.
 * The parent reads a random number of reports (seeded from the clock or
 * MW_CRASH_SEED; the seed is printed) and kills the child with SIGKILL,
 * so the kill lands somewhere in the middle of the next flush, or between
 * flushes.  Synchronisation is only through the pipe; no sleeps.
 *
 * Header-only, included after <cmocka.h>: it asserts with cmocka, which
 * the .c files of tests/support may not (the benches link them without
 * cmocka).
 */
#ifndef MW_TESTS_SUPPORT_KILL_ROUNDS_LINUX_H
#define MW_TESTS_SUPPORT_KILL_ROUNDS_LINUX_H

#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "storage/store.h"
#include "tests/support/test_db.h"

/* The child: write from `committed` on, report each commit on fd; never
 * returns (it is killed, or _exit()s on an error). */
typedef void (*mw_kill_child_fn)(int fd, int64_t committed);
/* After a round: check the file holds everything reported (from: where
 * the round began, upto: its last report); returns how far it holds. */
typedef int64_t (*mw_kill_verify_fn)(int64_t from, int64_t upto);

/* After fork: read `reports` reports of the child pid from fd (the last
 * in *upto), then SIGKILL it and reap it; fd is closed. */
static inline void mw_kill_after_reports(pid_t pid, int fd, int reports, int64_t *upto)
{
	int status, i;

	for (i = 0; i < reports; i++)
		assert_int_equal(read(fd, upto, sizeof(*upto)), sizeof(*upto));
	kill(pid, SIGKILL);
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

/* Seed rand() from the clock or MW_CRASH_SEED, and print the seed. */
static inline void mw_kill_seed(void)
{
	unsigned seed = (unsigned)time(NULL);
	const char *env = getenv("MW_CRASH_SEED");

	if (env)
		seed = (unsigned)strtoul(env, NULL, 10);
	printf("crash test seed %u (MW_CRASH_SEED to repeat)\n", seed);
	srand(seed);
}

/* `rounds` rounds on a fresh database at db (removed before and after). */
static inline void mw_kill_rounds(const char *db, int rounds, mw_kill_child_fn child,
				  mw_kill_verify_fn verify)
{
	int64_t committed = 0;
	int round;

	mw_kill_seed();
	mw_test_db_remove(db);
	for (round = 0; round < rounds; round++) {
		int fds[2], reports = 1 + rand() % 6;
		int64_t upto = committed, from = committed;
		pid_t pid;

		assert_int_equal(pipe(fds), 0);
		if ((pid = fork()) == 0) {
			close(fds[0]);
			child(fds[1], committed);	/* never returns */
		}
		assert_true(pid > 0);
		close(fds[1]);
		mw_kill_after_reports(pid, fds[0], reports, &upto);
		/* every reported point is there; the next child resumes after
		 * what the file holds (the kill may have landed after a commit
		 * it could not report) */
		committed = verify(from, upto);
		assert_true(committed >= upto);
	}
	mw_test_db_remove(db);
}

/* The child's store with o, or _exit(2) with the reason on stderr. */
static inline struct mw_store *mw_kill_child_store(const struct mw_store_options *o)
{
	struct mw_store *s;
	struct mw_err err;

	if (mw_store_open(&s, o, &err)) {
		fprintf(stderr, "child: %s\n", err.msg);
		_exit(2);
	}
	return s;
}

/* The child commits what it wrote and reports upto on fd; _exit(3) when
 * the flush fails, _exit(4) when the parent is gone. */
static inline void mw_kill_child_commit(struct mw_store *s, int fd, int64_t upto)
{
	struct mw_err err;

	if (mw_store_flush(s, &err)) {
		fprintf(stderr, "child: %s\n", err.msg);
		_exit(3);
	}
	if (write(fd, &upto, sizeof(upto)) != sizeof(upto))
		_exit(4);
}

/* The file at db opens and passes PRAGMA integrity_check. */
static inline void mw_kill_assert_intact(const char *db)
{
	sqlite3 *conn;
	sqlite3_stmt *st;

	assert_int_equal(sqlite3_open(db, &conn), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(conn, "PRAGMA integrity_check", -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "ok");
	sqlite3_finalize(st);
	sqlite3_close(conn);
}

/* The whole test program: one test, killed_at_random, running `rounds`
 * rounds of child and verify on db. */
#define MW_KILL_ROUNDS_MAIN(db, rounds, child, verify)                              \
	static void killed_at_random(void **state)                                  \
	{                                                                           \
		(void)state;                                                        \
		mw_kill_rounds(db, rounds, child, verify);                          \
	}                                                                           \
	int main(void)                                                              \
	{                                                                           \
		const struct CMUnitTest tests[] = {                                 \
			cmocka_unit_test(killed_at_random),                         \
		};                                                                  \
		return cmocka_run_group_tests(tests, NULL, NULL);                   \
	}

#endif
