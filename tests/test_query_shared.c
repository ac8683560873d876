/*
 * test_query_shared.c - a bucketed read of many series shared out among
 * threads (storage/query_range.c, mw_range_query.threads; what
 * /api/v1/query asks) gives the values one thread gives, bit for bit, on
 * every aggregation and tier: the series are spread over readers of
 * their own, each value lands in its series' place.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "storage/query.h"
#include "storage/store.h"
#include "core/batch.h"
#include "tests/support/test_db.h"
#include "tests/support/test_main.h"
#include "tests/support/xorshift.h"

#define T0 1699999200000LL	/* a whole hour */
#define DB "test_query_shared.tmp.db"
#define METRIC "memwatch_process_private_bytes"
#define NSERIES 80		/* over MW_RANGE_SHARE_FROM */
#define HOURS 3

MW_TEST_DB_FIXTURES(DB)

/* NSERIES series over HOURS hours, a point every 20 s with random values,
 * flushed every 10 minutes so rollups exist and the newest stretch is
 * raw; some series start late. */
static void fill(void)
{
	struct mw_store *s = mw_test_store_open(DB);
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	int64_t t, end = T0 + HOURS * 3600000LL;
	struct mw_err err;
	int i;

	for (t = T0; t < end; t += 20000) {
		for (i = 0; i < NSERIES; i++) {
			struct mw_label l = { "pid", NULL };
			char pid[16], key[96];

			if (i % 7 == 3 && t < T0 + 3600000LL)
				continue;
			snprintf(pid, sizeof(pid), "%d", 100 + i);
			l.value = pid;
			mw_series_key_format(key, sizeof(key), METRIC, &l, 1);
			mw_store_add(s, key, METRIC, &l, 1, t,
				     1e6 * (1 + i) + 4096.0 * (double)(mw_xorshift(&rng) % 1000));
		}
		if ((t - T0) % 600000 == 580000 && mw_store_flush(s, &err))
			fail_msg("%s", err.msg);
	}
	mw_store_free(s);
}

static void read_with(struct mw_reader *r, const struct mw_range_query *q, size_t threads,
		      struct mw_range_result *out)
{
	struct mw_range_query qq = *q;
	struct mw_err err;

	qq.threads = threads;
	if (mw_reader_range(r, METRIC, &qq, out, &err))
		fail_msg("range on %zu threads: %s", threads, err.msg);
}

static void shared_reads_give_the_same_values(void **state)
{
	static const int64_t steps[] = { 60000, 120000, 600000, 1800000 };
	struct mw_reader *r;
	struct mw_err err;
	size_t k, a, t, i;

	(void)state;
	fill();
	assert_int_equal(mw_reader_open(&r, DB, &err), 0);
	for (k = 0; k < sizeof(steps) / sizeof(steps[0]); k++)
		for (a = 0; a < 4; a++) {
			struct mw_range_query q;
			struct mw_range_result one;

			mw_range_query_init(&q, T0, T0 + HOURS * 3600000LL - 1);
			q.step_ms = steps[k];
			q.max_points = 200;
			q.agg = (enum mw_agg)a;
			read_with(r, &q, 1, &one);
			assert_int_equal(one.nseries, NSERIES);
			assert_true(one.step_ms >= 60000);	/* bucketed, from the rollups */
			for (t = 2; t <= MW_RANGE_MAX_THREADS + 1; t++) {
				struct mw_range_result many;

				read_with(r, &q, t, &many);
				assert_int_equal(many.nseries, one.nseries);
				assert_int_equal(many.nt, one.nt);
				assert_int_equal(many.tier, one.tier);
				for (i = 0; i < one.nseries; i++) {
					assert_int_equal(many.series[i].id, one.series[i].id);
					assert_memory_equal(many.values[i], one.values[i],
							    one.nt * sizeof(double));
				}
				mw_range_result_release(&many);
			}
			mw_range_result_release(&one);
		}
	mw_reader_free(r);
}

MW_TEST_MAIN(
	MW_FIXTURE_TEST(shared_reads_give_the_same_values)
)
