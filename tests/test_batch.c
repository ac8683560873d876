/* test_batch.c - samples, canonical series keys, the arena. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/batch.h"
#include "tests/support/test_main.h"

static void keys_are_canonical(void **state)
{
	struct mw_batch b;
	struct mw_label l1[] = { { "pid", "42" }, { "process", "a.exe" } };
	struct mw_label l2[] = { { "process", "a.exe" }, { "pid", "42" } };

	(void)state;
	mw_batch_init(&b);
	mw_batch_add(&b, "m", l1, 2, 1.0, 10);
	mw_batch_add(&b, "m", l2, 2, 2.0, 20);
	mw_batch_add(&b, "plain", NULL, 0, 3.0, 30);
	assert_int_equal(b.nsamples, 3);
	assert_string_equal(b.samples[0].series_key, "m{pid=\"42\",process=\"a.exe\"}");
	assert_string_equal(b.samples[0].series_key, b.samples[1].series_key);
	assert_string_equal(b.samples[1].labels[0].name, "pid");
	assert_string_equal(b.samples[2].series_key, "plain");
	assert_true(b.samples[1].value == 2.0);
	assert_int_equal(b.samples[2].ts_ms, 30);
	mw_batch_release(&b);
}

static void values_are_escaped_and_nulls_skipped(void **state)
{
	struct mw_batch b;
	struct mw_label l[] = { { "path", "C:\\x \"y\"\nz" }, { "gone", NULL } };

	(void)state;
	mw_batch_init(&b);
	mw_batch_add(&b, "m", l, 2, 0, 0);
	assert_int_equal(b.samples[0].nlabels, 1);
	assert_string_equal(b.samples[0].series_key, "m{path=\"C:\\\\x \\\"y\\\"\\nz\"}");
	/* The label value itself is stored unescaped. */
	assert_string_equal(b.samples[0].labels[0].value, "C:\\x \"y\"\nz");
	mw_batch_release(&b);
}

static void inputs_are_copied(void **state)
{
	struct mw_batch b;
	char name[16] = "proc", value[16] = "v1";
	struct mw_label l = { name, value };
	unsigned char blob[3] = { 1, 2, 3 };

	(void)state;
	mw_batch_init(&b);
	mw_batch_add(&b, "m", &l, 1, 0, 0);
	mw_batch_add_detail(&b, "kind", "m", &l, 1, 5, blob, sizeof(blob));
	strcpy(value, "XX");
	blob[0] = 9;
	assert_string_equal(b.samples[0].labels[0].value, "v1");
	assert_string_equal(b.details[0].series_key, "m{proc=\"v1\"}");
	assert_int_equal(((const unsigned char *)b.details[0].data)[0], 1);
	assert_int_equal(b.details[0].len, 3);
	mw_batch_release(&b);
}

static void many_samples_and_reset(void **state)
{
	struct mw_batch b;
	char v[32];
	int i, round;

	(void)state;
	mw_batch_init(&b);
	for (round = 0; round < 3; round++) {
		for (i = 0; i < 20000; i++) {
			struct mw_label l = { "i", v };
			snprintf(v, sizeof(v), "%d", i);
			mw_batch_add(&b, "memwatch_process_working_set_bytes", &l, 1, i, round);
		}
		assert_int_equal(b.nsamples, 20000);
		assert_string_equal(b.samples[19999].series_key,
				    "memwatch_process_working_set_bytes{i=\"19999\"}");
		assert_string_equal(b.samples[0].labels[0].value, "0");
		mw_batch_reset(&b);
		assert_int_equal(b.nsamples, 0);
	}
	mw_batch_release(&b);
}

static void key_format_truncates_safely(void **state)
{
	struct mw_label l = { "a", "bbbb" };
	char buf[8];
	size_t need;

	(void)state;
	need = mw_series_key_format(buf, sizeof(buf), "metric", &l, 1);
	assert_int_equal(need, strlen("metric{a=\"bbbb\"}"));
	assert_int_equal(strlen(buf), 7);
}

/* A freed batch goes to the pool and comes back from mw_batch_new() empty
 * but with its memory; one holding a huge detail is not kept. */
static void freed_batches_are_recycled(void **state)
{
	struct mw_batch *a, *b, *c;
	struct mw_label l = { "pid", "1" };
	char *big;
	int i;

	(void)state;
	mw_batch_pool_drain();
	a = mw_batch_new();
	for (i = 0; i < 5000; i++)
		mw_batch_add(a, "m", &l, 1, i, i);
	mw_batch_add_detail(a, "k", "m", &l, 1, 0, "xyz", 3);
	a->collector = "process";
	mw_batch_free(a);
	b = mw_batch_new();
	assert_ptr_equal(b, a);	/* the pooled one */
	assert_int_equal(b->nsamples, 0);
	assert_int_equal(b->ndetails, 0);
	assert_null(b->collector);
	assert_true(b->samples_cap >= 5000);
	mw_batch_add(b, "n", &l, 1, 7, 8);
	assert_int_equal(b->nsamples, 1);
	assert_string_equal(b->samples[0].series_key, "n{pid=\"1\"}");
	c = mw_batch_new();	/* the pool is empty: a new one */
	assert_ptr_not_equal(c, b);
	mw_batch_free(b);
	/* over the pool's bound: freed, not pooled */
	big = calloc(1, (size_t)40 << 20);
	assert_non_null(big);
	mw_batch_add_detail(c, "k", "m", &l, 1, 0, big, (size_t)40 << 20);
	free(big);
	mw_batch_free(c);
	a = mw_batch_new();
	assert_ptr_equal(a, b);	/* b is the one pooled, c was freed */
	/* one kept: a second batch in use at once (the writer held up) is
	 * freed when it comes back, not kept resident */
	c = mw_batch_new();
	assert_ptr_not_equal(c, a);
	mw_batch_free(a);
	mw_batch_free(c);
	b = mw_batch_new();
	assert_ptr_equal(b, a);
	c = mw_batch_new();
	assert_ptr_not_equal(c, a);
	mw_batch_free(b);
	mw_batch_free(c);
	mw_batch_pool_drain();
}

/* Keyed samples: a tail id's text is copied once per batch and shared by
 * its samples; the key reads back whole; a reset forgets the copies (the
 * arena is reused), and a tail id 0 is copied every time. */
static void keyed_tails_are_copied_once_per_batch(void **state)
{
	struct mw_batch b;
	char tail[64], buf[128], *heap;
	uint64_t id = mw_batch_tail_ids(2);

	(void)state;
	mw_batch_init(&b);
	snprintf(tail, sizeof(tail), "{pid=\"7\"}");
	mw_batch_add_keyed(&b, "m_a", NULL, 0, tail, strlen(tail), id, 1, 1);
	mw_batch_add_keyed(&b, "m_b", NULL, 0, tail, strlen(tail), id, 2, 1);
	snprintf(tail, sizeof(tail), "{pid=\"8\"}");	/* the caller's buffer, reused */
	mw_batch_add_keyed(&b, "m_a", NULL, 0, tail, strlen(tail), id + 1, 3, 1);
	mw_batch_add_keyed(&b, "m_z", NULL, 0, "{x=\"1\"}", 7, 0, 4, 1);
	mw_batch_add_keyed(&b, "m_z", NULL, 0, "{x=\"1\"}", 7, 0, 5, 1);
	assert_true(b.samples[0].key_tail == b.samples[1].key_tail);
	assert_true(b.samples[2].key_tail != b.samples[0].key_tail);
	assert_true(b.samples[3].key_tail != b.samples[4].key_tail);
	assert_string_equal(mw_sample_key(&b.samples[0], buf, sizeof(buf), &heap), "m_a{pid=\"7\"}");
	assert_string_equal(mw_sample_key(&b.samples[1], buf, sizeof(buf), &heap), "m_b{pid=\"7\"}");
	assert_string_equal(mw_sample_key(&b.samples[2], buf, sizeof(buf), &heap), "m_a{pid=\"8\"}");
	assert_string_equal(mw_sample_key(&b.samples[4], buf, sizeof(buf), &heap), "m_z{x=\"1\"}");
	assert_null(heap);
	/* too small a buffer: the key comes allocated */
	assert_string_equal(mw_sample_key(&b.samples[0], buf, 4, &heap), "m_a{pid=\"7\"}");
	assert_non_null(heap);
	free(heap);

	/* after a reset the arena is written over: the id's text is copied anew */
	mw_batch_reset(&b);
	mw_batch_add(&b, "plain_metric_written_where_the_tail_was", NULL, 0, 9, 1);
	snprintf(tail, sizeof(tail), "{pid=\"7\"}");
	mw_batch_add_keyed(&b, "m_a", NULL, 0, tail, strlen(tail), id, 1, 2);
	assert_string_equal(mw_sample_key(&b.samples[1], buf, sizeof(buf), &heap), "m_a{pid=\"7\"}");
	assert_string_equal(mw_sample_key(&b.samples[0], buf, sizeof(buf), &heap),
			    "plain_metric_written_where_the_tail_was");
	mw_batch_release(&b);
}

MW_TEST_MAIN(
	cmocka_unit_test(keys_are_canonical),
	cmocka_unit_test(values_are_escaped_and_nulls_skipped),
	cmocka_unit_test(inputs_are_copied),
	cmocka_unit_test(many_samples_and_reset),
	cmocka_unit_test(key_format_truncates_safely),
	cmocka_unit_test(freed_batches_are_recycled),
	cmocka_unit_test(keyed_tails_are_copied_once_per_batch),
)
