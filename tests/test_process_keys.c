/* test_process_keys.c - the process collector's pre-keyed samples
 * (series keys formatted once per process, mw_batch_add_keyed) are the
 * samples mw_batch_add would have made: the same canonical key for the
 * same metric and labels, labels sorted, tick after tick and for a
 * table whose process changed its name or start under the same pid; and
 * the cadence options are checked. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/process.h"
#include "collectors/process_keys.h"
#include "core/batch.h"
#include "core/collector.h"
#include "core/config.h"
#include "tests/support/test_main.h"

extern const struct mw_collector mw_collector_process;

/* Every sample's key is mw_series_key_format's for its metric and labels,
 * labels sorted by name; returns the number of samples. */
static size_t check_batch(const struct mw_batch *b)
{
	char key[1024], buf[16], *heap;
	size_t i, j;

	for (i = 0; i < b->nsamples; i++) {
		const struct mw_sample *s = &b->samples[i];
		const char *got;

		mw_series_key_format(key, sizeof(key), s->metric, s->labels, s->nlabels);
		/* a buffer too small for any key: the allocated path too */
		got = mw_sample_key(s, buf, sizeof(buf), &heap);
		assert_string_equal(got, key);
		free(heap);
		for (j = 1; j < s->nlabels; j++)
			assert_true(strcmp(s->labels[j - 1].name, s->labels[j].name) < 0);
	}
	return b->nsamples;
}

static void *collector_new(struct mw_config *cfg)
{
	struct mw_collector_env env;
	struct mw_err err = { "" };
	void *st = NULL;

	mw_config_init(cfg);
	if (mw_config_set(cfg, "collector.process", "min_age", "0", "test", &err) ||
	    mw_config_set(cfg, "collector.process", "pss_budget", "0", "test", &err))
		fail_msg("%s", err.msg);
	env.config = cfg;
	env.self = mw_config_collector(cfg, "process");
	assert_int_equal(mw_collector_process.init(&st, &env, &err), MW_COLLECTOR_OK);
	return st;
}

static void real_ticks_have_canonical_keys(void **state)
{
	struct mw_config cfg;
	struct mw_sample_ctx ctx;
	struct mw_batch b;
	void *st = collector_new(&cfg);
	int round;

	(void)state;
	mw_batch_init(&b);
	for (round = 0; round < 3; round++) {	/* formatted, then from the cache */
		memset(&ctx, 0, sizeof(ctx));
		ctx.batch = &b;
		ctx.ts_ms = 1700000000000LL + round * 1000;
		assert_int_equal(mw_collector_process.sample(st, &ctx), MW_COLLECTOR_OK);
		assert_true(check_batch(&b) > 4);
		mw_batch_reset(&b);
	}
	mw_batch_release(&b);
	mw_collector_process.fini(st);
	mw_config_release(&cfg);
}

/* The key of the first sample of metric for pid in b, or NULL (in a
 * buffer of its own: valid until the next call). */
static const char *key_of(const struct mw_batch *b, const char *metric, const char *pid)
{
	static char key[1024];
	char *heap;
	size_t i, j;

	for (i = 0; i < b->nsamples; i++) {
		if (strcmp(b->samples[i].metric, metric))
			continue;
		for (j = 0; j < b->samples[i].nlabels; j++)
			if (!strcmp(b->samples[i].labels[j].name, "pid") &&
			    !strcmp(b->samples[i].labels[j].value, pid))
				return mw_sample_key(&b->samples[i], key, sizeof(key), &heap);
	}
	return NULL;
}

/* A row of t. */
static struct mw_process_info *add_process(struct mw_process_table *t, uint32_t pid,
					   int64_t start_ms, const char *name)
{
	struct mw_process_info *p = mw_process_table_add(t);

	p->pid = pid;
	p->start_ms = start_ms;
	snprintf(p->name, sizeof(p->name), "%s", name);
	return p;
}

/* An empty table, and a tick's context writing into b. */
static void tick_setup(struct mw_process_table *t, struct mw_sample_ctx *ctx, struct mw_batch *b)
{
	memset(t, 0, sizeof(*t));
	mw_batch_init(b);
	memset(ctx, 0, sizeof(*ctx));
	ctx->batch = b;
	ctx->ts_ms = 1700000100000LL;
}

static void identity_changes_are_formatted_again(void **state)
{
	struct mw_config cfg;
	struct mw_sample_ctx ctx;
	struct mw_batch b;
	struct mw_process_table t;
	struct mw_process_info *p;
	void *st = collector_new(&cfg);

	(void)state;
	tick_setup(&t, &ctx, &b);
	/* awkward names: quotes, backslash, newline are escaped in the key */
	p = add_process(&t, 30, 1700000000000LL, "a \"quoted\\\" name\nx");
	p->has_kinds = true;
	add_process(&t, 7, 1600000000000LL, "seven");	/* out of order: the cache sorts */
	assert_int_equal(mw_process_sample_table(st, &ctx, &t), MW_COLLECTOR_OK);
	check_batch(&b);
	assert_string_equal(key_of(&b, "memwatch_process_virtual_bytes", "7"),
			    "memwatch_process_virtual_bytes{pid=\"7\",process=\"seven\","
			    "started=\"1600000000\"}");
	assert_string_equal(key_of(&b, "memwatch_process_resident_bytes", "30"),
			    "memwatch_process_resident_bytes{kind=\"anon\",pid=\"30\","
			    "process=\"a \\\"quoted\\\\\\\" name\\nx\",started=\"1700000000\"}");
	mw_batch_reset(&b);
	/* pid 7 exec'd another image; pid 30 is a new process (new start) */
	snprintf(t.procs[1].name, sizeof(t.procs[1].name), "eight");
	t.procs[0].start_ms += 5000;
	assert_int_equal(mw_process_sample_table(st, &ctx, &t), MW_COLLECTOR_OK);
	check_batch(&b);
	assert_string_equal(key_of(&b, "memwatch_process_virtual_bytes", "7"),
			    "memwatch_process_virtual_bytes{pid=\"7\",process=\"eight\","
			    "started=\"1600000000\"}");
	assert_non_null(strstr(key_of(&b, "memwatch_process_threads", "30"),
			       "started=\"1700000005\""));
	mw_batch_reset(&b);
	/* a process gone and back: no stale keys */
	t.nprocs = 1;
	assert_int_equal(mw_process_sample_table(st, &ctx, &t), MW_COLLECTOR_OK);
	assert_null(key_of(&b, "memwatch_process_threads", "7"));
	check_batch(&b);
	mw_batch_release(&b);
	mw_process_table_release(&t);
	mw_collector_process.fini(st);
	mw_config_release(&cfg);
}

/* The tail id of the first sample of metric for pid in b; 0: none. */
static uint64_t tail_of(const struct mw_batch *b, const char *metric, const char *pid)
{
	for (size_t i = 0; i < b->nsamples; i++) {
		const struct mw_sample *s = &b->samples[i];

		if (!strcmp(s->metric, metric) && !strcmp(s->labels[0].value, pid))
			return s->tail_id;
	}
	return 0;
}

/* The ranges b ends (mw_batch_end_tails), in out; returns how many. */
static size_t ended_of(const struct mw_batch *b, struct mw_series_ended *out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; i < b->ndetails; i++)
		if (!strcmp(b->details[i].kind, MW_SERIES_ENDED_DETAIL) && n < max) {
			assert_int_equal(b->details[i].len, sizeof(*out));
			memcpy(&out[n++], b->details[i].data, sizeof(*out));
		}
	return n;
}

/* A process gone from the table ends its tails in that tick's batch (the
 * writer then lets its series go at once), exactly once; one still there
 * ends nothing. */
static void ended_processes_end_their_tails(void **state)
{
	struct mw_config cfg;
	struct mw_sample_ctx ctx;
	struct mw_batch b;
	struct mw_process_table t;
	struct mw_series_ended e[4];
	uint64_t tail7, tail30;
	void *st = collector_new(&cfg);

	(void)state;
	tick_setup(&t, &ctx, &b);
	add_process(&t, 30, 1700000000000LL, "thirty");
	add_process(&t, 7, 1600000000000LL, "seven");
	assert_int_equal(mw_process_sample_table(st, &ctx, &t), MW_COLLECTOR_OK);
	assert_int_equal(ended_of(&b, e, 4), 0);
	tail7 = tail_of(&b, "memwatch_process_virtual_bytes", "7");
	tail30 = tail_of(&b, "memwatch_process_virtual_bytes", "30");
	assert_true(tail7 && tail30 && tail7 != tail30);
	mw_batch_reset(&b);

	t.nprocs = 1;	/* pid 7 ended */
	assert_int_equal(mw_process_sample_table(st, &ctx, &t), MW_COLLECTOR_OK);
	assert_int_equal(ended_of(&b, e, 4), 1);
	assert_true(e[0].first_tail_id == tail7);
	assert_int_equal(e[0].n, MW_PROCESS_TAIL_IDS);
	assert_true(tail_of(&b, "memwatch_process_virtual_bytes", "30") == tail30);
	mw_batch_reset(&b);

	assert_int_equal(mw_process_sample_table(st, &ctx, &t), MW_COLLECTOR_OK);
	assert_int_equal(ended_of(&b, e, 4), 0);	/* once */
	mw_batch_release(&b);
	mw_process_table_release(&t);
	mw_collector_process.fini(st);
	mw_config_release(&cfg);
}

static void keyed_add_matches_plain_add(void **state)
{
	struct mw_batch a, k;
	struct mw_label in[3] = { { "z", "last" }, { "a", "x\"y" }, { "m", "back\\slash" } };
	struct mw_label *sorted;
	char tail[256], buf[256], *heap;
	size_t n;

	(void)state;
	mw_batch_init(&a);
	mw_batch_init(&k);
	mw_batch_add(&a, "some_metric", in, 3, 42.5, 1234);
	sorted = mw_batch_alloc(&k, 3 * sizeof(*sorted));
	sorted[0] = in[1];
	sorted[1] = in[2];
	sorted[2] = in[0];
	n = mw_series_key_format(tail, sizeof(tail), "", sorted, 3);
	mw_batch_add_keyed(&k, "some_metric", sorted, 3, tail, n, mw_batch_tail_ids(1), 42.5, 1234);
	mw_batch_add_keyed(&k, "bare_metric", NULL, 0, "", 0, 0, 1, 1);
	assert_int_equal(k.nsamples, 2);
	assert_null(k.samples[0].series_key);	/* put together where needed */
	assert_string_equal(mw_sample_key(&k.samples[0], buf, sizeof(buf), &heap),
			    a.samples[0].series_key);
	assert_null(heap);
	assert_string_equal(k.samples[0].metric, a.samples[0].metric);
	assert_int_equal(k.samples[0].nlabels, a.samples[0].nlabels);
	for (n = 0; n < 3; n++) {
		assert_string_equal(k.samples[0].labels[n].name, a.samples[0].labels[n].name);
		assert_string_equal(k.samples[0].labels[n].value, a.samples[0].labels[n].value);
	}
	assert_true(k.samples[0].value == 42.5 && k.samples[0].ts_ms == 1234);
	assert_string_equal(mw_sample_key(&k.samples[1], buf, sizeof(buf), &heap), "bare_metric");
	mw_batch_release(&a);
	mw_batch_release(&k);
}

static void cadence_options_checked(void **state)
{
	static const char *const keys[] = { "status_interval", "handles_interval" };
	struct mw_collector_env env;
	struct mw_config cfg;
	struct mw_err err = { "" };
	void *st = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < 2; i++) {
		/* a bad value is refused when set, naming the key */
		mw_config_init(&cfg);
		assert_int_equal(mw_config_set(&cfg, "collector.process", keys[i], "soon", "test",
					       &err), -1);
		assert_non_null(strstr(err.msg, keys[i]));
		mw_config_release(&cfg);
		/* 0 (every tick) and a duration are taken */
		mw_config_init(&cfg);
		if (mw_config_set(&cfg, "collector.process", keys[i], i ? "0" : "2m", "test", &err))
			fail_msg("%s", err.msg);
		env.config = &cfg;
		env.self = mw_config_collector(&cfg, "process");
		assert_int_equal(mw_collector_process.init(&st, &env, &err), MW_COLLECTOR_OK);
		mw_collector_process.fini(st);
		mw_config_release(&cfg);
	}
}

/* The arrays the PSS scheduler and the key cache keep by pid: found by
 * pid, absent ones give n, and sorting leaves an ordered array alone. */
static void arrays_by_pid(void **state)
{
	struct entry {
		uint32_t pid;
		int tag;
	} v[4] = { { 30, 0 }, { 10, 1 }, { 40, 2 }, { 20, 3 } };

	(void)state;
	mw_pid_sort(v, 4, sizeof(v[0]));
	assert_int_equal(v[0].pid, 10);
	assert_int_equal(v[1].tag, 3);
	assert_int_equal(v[3].pid, 40);
	assert_int_equal(mw_pid_index(v, 4, sizeof(v[0]), 30), 2);
	assert_int_equal(mw_pid_index(v, 4, sizeof(v[0]), 10), 0);
	assert_int_equal(mw_pid_index(v, 4, sizeof(v[0]), 25), 4);
	assert_int_equal(mw_pid_index(NULL, 0, sizeof(v[0]), 10), 0);
	mw_pid_sort(v, 4, sizeof(v[0]));
	assert_int_equal(v[2].tag, 0);
}

MW_TEST_MAIN(
	cmocka_unit_test(real_ticks_have_canonical_keys),
	cmocka_unit_test(identity_changes_are_formatted_again),
	cmocka_unit_test(ended_processes_end_their_tails),
	cmocka_unit_test(keyed_add_matches_plain_add),
	cmocka_unit_test(cadence_options_checked),
	cmocka_unit_test(arrays_by_pid),
)
