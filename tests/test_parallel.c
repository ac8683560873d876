/*
 * test_parallel.c - base/parallel.h: every worker runs, every item is
 * taken exactly once, and a failure stops the taking and keeps the
 * lowest-numbered failing item's error, as one worker going in order
 * would meet it.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "base/parallel.h"

#define NITEMS 5000

struct job {
	struct mw_share items;
	atomic_int taken[NITEMS];
	atomic_int workers_seen;
	size_t fail_from;	/* items from here fail; NITEMS: none */
};

static void work(void *arg, size_t worker)
{
	struct job *j = arg;
	size_t i;

	(void)worker;
	atomic_fetch_add(&j->workers_seen, 1);
	while (mw_share_next(&j->items, &i)) {
		atomic_fetch_add(&j->taken[i], 1);
		if (i >= j->fail_from) {
			struct mw_err err;

			snprintf(err.msg, sizeof(err.msg), "item %zu", i);
			mw_share_fail(&j->items, i, &err, (int)i);
		}
	}
}

static struct job job;

static void every_item_once(void **state)
{
	size_t threads, i;
	struct mw_err err;

	(void)state;
	for (threads = 1; threads <= 4; threads++) {
		memset(&job, 0, sizeof(job));
		job.fail_from = NITEMS;
		mw_share_init(&job.items, NITEMS);
		assert_int_equal(mw_parallel_run(threads, work, &job), threads);
		assert_int_equal(atomic_load(&job.workers_seen), (int)threads);
		assert_false(mw_share_end(&job.items, &err, NULL));
		for (i = 0; i < NITEMS; i++)
			assert_int_equal(atomic_load(&job.taken[i]), 1);
	}
}

static void first_failure_kept(void **state)
{
	size_t threads, i;
	struct mw_err err;
	int kind = -1;

	(void)state;
	for (threads = 1; threads <= 4; threads++) {
		memset(&job, 0, sizeof(job));
		job.fail_from = NITEMS / 2;
		mw_share_init(&job.items, NITEMS);
		mw_parallel_run(threads, work, &job);
		assert_true(mw_share_end(&job.items, &err, &kind));
		assert_string_equal(err.msg, "item 2500");
		assert_int_equal(kind, NITEMS / 2);
		/* everything before it was judged, once; the taking stopped */
		for (i = 0; i < NITEMS / 2; i++)
			assert_int_equal(atomic_load(&job.taken[i]), 1);
		assert_true(atomic_load(&job.taken[NITEMS - 1]) == 0 || threads > 1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_item_once),
		cmocka_unit_test(first_failure_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
