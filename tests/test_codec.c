/* test_codec.c - chunk codec round trips, bit for bit. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "storage/codec.h"
#include "base/mwerr.h"
#include "tests/support/xorshift.h"
#include "tests/support/double_bits.h"
#include "tests/support/test_main.h"

/* Encode n points, decode them, compare timestamps and value bits. */
static size_t round_trip(const int64_t *ts, const double *vs, size_t n)
{
	struct mw_chunk_enc e;
	struct mw_chunk_dec d;
	const uint8_t *blob;
	size_t len, i;
	int64_t t;
	double v;

	mw_chunk_enc_init(&e);
	for (i = 0; i < n; i++)
		mw_chunk_enc_append(&e, ts[i], vs[i]);
	blob = mw_chunk_enc_blob(&e, &len);
	assert_int_equal(mw_chunk_npoints(blob, len), n);
	assert_int_equal(mw_chunk_dec_init(&d, blob, len), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(mw_chunk_dec_next(&d, &t, &v), 1);
		assert_int_equal(t, ts[i]);
		assert_int_equal(mw_test_bits_of(v), mw_test_bits_of(vs[i]));
	}
	assert_int_equal(mw_chunk_dec_next(&d, &t, &v), 0);
	mw_chunk_enc_release(&e);
	return len;
}

static void empty_and_one_point(void **state)
{
	int64_t ts[1] = { 1700000000123 };
	double vs[1] = { 42 };

	(void)state;
	assert_int_equal(round_trip(ts, vs, 0), 2);	/* format, count 0 */
	round_trip(ts, vs, 1);
	vs[0] = -0.0;
	round_trip(ts, vs, 1);
}

static void special_values(void **state)
{
	int64_t ts[12];
	double vs[12] = { 0, -0.0, NAN, INFINITY, -INFINITY, 1e308, -1e308,
			  9223372036854775807.0, -9223372036854775808.0, 0.1,
			  5e-324, 0 };
	size_t i;

	(void)state;
	vs[11] = mw_test_from_bits(UINT64_C(0x7ff8dead0000beef));	/* NaN payload */
	for (i = 0; i < 12; i++)
		ts[i] = 1000 * (int64_t)i;
	round_trip(ts, vs, 12);
}

static void integers_and_switch(void **state)
{
	int64_t ts[8];
	double vs[8] = { 0, -1, -4096, 1LL << 52, -(double)(1LL << 62),
			 9007199254740993.0, 3, 2.5 };	/* the last forces floats */
	size_t i;

	(void)state;
	for (i = 0; i < 8; i++)
		ts[i] = 1000 * (int64_t)i;
	round_trip(ts, vs, 7);	/* integer mode */
	round_trip(ts, vs, 8);	/* switched to floats after 7 points */
}

static void odd_timestamps(void **state)
{
	int64_t ts[10] = { 5000, 5000, 5000, 4000, 9000, INT64_MAX, INT64_MIN, 0, -1,
			   INT64_MAX };
	double vs[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

	(void)state;
	round_trip(ts, vs, 10);
}

static void extreme_integer_deltas(void **state)
{
	int64_t ts[6] = { 0, 1, 2, 3, 4, 5 };
	double vs[6] = { -9223372036854775808.0, 9223372036854774784.0,
			 -9223372036854775808.0, 0, 1, -9223372036854775808.0 };

	(void)state;
	round_trip(ts, vs, 6);
}

static uint64_t rng = 88172645463325252ULL;

/* A random stream of kind 0-3 in ts, vs (room for STREAM_MAX points); its length. */
enum { STREAM_MAX = 3000 };

static size_t random_stream(int64_t *ts, double *vs, int kind)
{
	int64_t t = (int64_t)(mw_xorshift(&rng) % 2000000000000ULL);
	double v = (double)(mw_xorshift(&rng) % 100000000);
	size_t n = (size_t)(mw_xorshift(&rng) % STREAM_MAX), i;

	for (i = 0; i < n; i++) {
		uint64_t r = mw_xorshift(&rng);

		switch (kind % 4) {
		case 0:	/* memory-like: flat with page steps, jittered ticks */
			t += 1000 + (int64_t)(r % 5) - 2;
			if (r % 17 == 0)
				v += 4096.0 * (double)((int64_t)(r >> 20) % 50 - 25);
			break;
		case 1:	/* random doubles, random bits */
			t += (int64_t)(r % 100000) - 1000;
			v = mw_test_from_bits(mw_xorshift(&rng));
			break;
		case 2:	/* random integers, full range */
			t = (int64_t)mw_xorshift(&rng);
			v = (double)(int64_t)(mw_xorshift(&rng) >> (r % 64));
			break;
		default:	/* steady growth with noise */
			t += 1000;
			v += (r % 7 == 0) ? 1.5 : 1024;
			break;
		}
		ts[i] = t;
		vs[i] = v;
	}
	return n;
}

static void random_streams(void **state)
{
	int64_t *ts = malloc(sizeof(*ts) * STREAM_MAX);
	double *vs = malloc(sizeof(*vs) * STREAM_MAX);
	int round;

	(void)state;
	for (round = 0; round < 40; round++)
		round_trip(ts, vs, random_stream(ts, vs, round));
	free(ts);
	free(vs);
}

/* An encoder resumed from the blob of the first k points, then given the
 * rest, writes the same bytes and summary as one given them all. */
static void resume_split(const int64_t *ts, const double *vs, size_t n, size_t k)
{
	struct mw_chunk_enc whole, first, resumed;
	const uint8_t *a, *b;
	size_t alen, blen, i;

	mw_chunk_enc_init(&whole);
	mw_chunk_enc_init(&first);
	mw_chunk_enc_init(&resumed);
	for (i = 0; i < n; i++)
		mw_chunk_enc_append(&whole, ts[i], vs[i]);
	for (i = 0; i < k; i++)
		mw_chunk_enc_append(&first, ts[i], vs[i]);
	a = mw_chunk_enc_blob(&first, &alen);
	assert_int_equal(mw_chunk_enc_resume(&resumed, a, alen), 0);
	assert_int_equal(resumed.n, k);
	for (i = k; i < n; i++)
		mw_chunk_enc_append(&resumed, ts[i], vs[i]);
	a = mw_chunk_enc_blob(&whole, &alen);
	b = mw_chunk_enc_blob(&resumed, &blen);
	assert_int_equal(blen, alen);
	assert_memory_equal(b, a, alen);
	assert_int_equal(resumed.t_first, whole.t_first);
	assert_int_equal(resumed.t_min, whole.t_min);
	assert_int_equal(resumed.t_max, whole.t_max);
	assert_int_equal(mw_chunk_enc_last_ts(&resumed), mw_chunk_enc_last_ts(&whole));
	assert_int_equal(mw_test_bits_of(mw_chunk_enc_last_value(&resumed)),
			 mw_test_bits_of(mw_chunk_enc_last_value(&whole)));
	mw_chunk_enc_release(&whole);
	mw_chunk_enc_release(&first);
	mw_chunk_enc_release(&resumed);
}

static void resume_continues_bit_for_bit(void **state)
{
	int64_t *ts = malloc(sizeof(*ts) * STREAM_MAX);
	double *vs = malloc(sizeof(*vs) * STREAM_MAX);
	int64_t small[3] = { 1700000000000, 1700000001000, 1700000002000 };
	double ints[3] = { 4096, 8192, 8192.5 };	/* the third switches to floats */
	static const uint8_t old[] = { 0x11, 0x01, 0x00, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 1,
				       0, 0, 0, 0, 0, 0, 0, 2 };
	struct mw_chunk_enc e;
	struct mw_chunk_dec d;
	const uint8_t *blob;
	uint8_t padded[64];
	int round, k;
	size_t n, len;
	int64_t t;
	double v;

	(void)state;
	for (round = 0; round < 40; round++) {
		n = random_stream(ts, vs, round);
		if (n < 2)
			continue;
		resume_split(ts, vs, n, 1);
		resume_split(ts, vs, n, n - 1);
		resume_split(ts, vs, n, 1 + (size_t)(mw_xorshift(&rng) % (n - 1)));
	}
	resume_split(small, ints, 3, 1);
	resume_split(small, ints, 3, 2);
	/* set bits past the last point (a blob is whole bytes) are not taken */
	mw_chunk_enc_init(&e);
	mw_chunk_enc_append(&e, small[0], 1);
	mw_chunk_enc_append(&e, small[1], 2);
	blob = mw_chunk_enc_blob(&e, &len);
	assert_true(len < sizeof(padded) && e.nbits % 8 != 0);
	memcpy(padded, blob, len);
	padded[len - 1] |= (uint8_t)(0xff >> (e.nbits % 8));
	assert_int_equal(mw_chunk_enc_resume(&e, padded, len), 0);
	mw_chunk_enc_append(&e, small[2], 3);
	blob = mw_chunk_enc_blob(&e, &len);
	assert_int_equal(mw_chunk_dec_init(&d, blob, len), 0);
	for (k = 0; k < 3; k++) {
		assert_int_equal(mw_chunk_dec_next(&d, &t, &v), 1);
		assert_int_equal(t, small[k]);
		assert_true(v == (double)(k + 1));
	}
	mw_chunk_enc_release(&e);
	/* what cannot be resumed leaves the encoder empty */
	mw_chunk_enc_init(&e);
	mw_chunk_enc_append(&e, 1, 2);
	assert_int_equal(mw_chunk_enc_resume(&e, old, sizeof(old)), -1);	/* 0x11 */
	assert_int_equal(e.n, 0);
	assert_int_equal(mw_chunk_enc_resume(&e, "\x13\x00", 2), -1);	/* no point */
	assert_int_equal(mw_chunk_enc_resume(&e, "\x13\x05\xff", 3), -1);	/* cut short */
	assert_int_equal(e.n, 0);
	mw_chunk_enc_release(&e);
	free(ts);
	free(vs);
}

static void flat_is_small(void **state)
{
	enum { N = 720 };
	int64_t ts[N];
	double vs[N];
	size_t i, len;

	(void)state;
	for (i = 0; i < N; i++) {
		ts[i] = 1700000000000 + 1000 * (int64_t)i;
		vs[i] = 123456789.0;
	}
	len = round_trip(ts, vs, N);
	/* 1 bit for the timestamp and 1 for the value per point */
	assert_true(len < MW_CHUNK_HEADER + 16 + 3 + N * 2 / 8 + 2);
}

static void corrupt_input(void **state)
{
	struct mw_chunk_enc e;
	struct mw_chunk_dec d;
	uint8_t copy[1024];
	const uint8_t *blob;
	size_t len, cut, i;
	int64_t t;
	double v;
	int rc;

	(void)state;
	assert_int_equal(mw_chunk_dec_init(&d, "x", 1), -1);
	assert_int_equal(mw_chunk_dec_init(&d, "\x99\0\0\0\0", 5), -1);
	mw_chunk_enc_init(&e);
	for (i = 0; i < 50; i++)
		mw_chunk_enc_append(&e, (int64_t)(i * 997), (double)(i * i) * 0.37);
	blob = mw_chunk_enc_blob(&e, &len);
	assert_true(len < sizeof(copy));
	for (cut = 2; cut < len; cut++) {
		memcpy(copy, blob, cut);
		assert_int_equal(mw_chunk_dec_init(&d, copy, cut), 0);
		while ((rc = mw_chunk_dec_next(&d, &t, &v)) == 1)
			;
		assert_int_equal(rc, -1);	/* truncated: an error, never a crash */
	}
	mw_chunk_enc_release(&e);
}

/* Blobs of format 0x11 (written before schema 7) still read; the
 * compact format's 2-point chunk is much smaller than 0x11's. */
static void old_format_and_compact_size(void **state)
{
	/* 0x11: 5 points, T0 + i s, 4096 * (100 + i * i) */
	static const uint8_t old[] = {
		0x11, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x8B, 0xCF, 0xD9, 0x33, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x06, 0x40, 0x00, 0xE1, 0xF4, 0x33, 0x02, 0x66,
		0x0C, 0xCC, 0x29, 0x98, 0x70,
	};
	int64_t ts[2] = { 1699999200000, 1699999201000 }, t;
	double vs[2] = { 409600, 413696 }, v;
	struct mw_chunk_dec d;
	size_t i;

	(void)state;
	assert_int_equal(mw_chunk_npoints(old, sizeof(old)), 5);
	assert_int_equal(mw_chunk_dec_init(&d, old, sizeof(old)), 0);
	for (i = 0; i < 5; i++) {
		assert_int_equal(mw_chunk_dec_next(&d, &t, &v), 1);
		assert_int_equal(t, 1699999200000 + (int64_t)i * 1000);
		assert_true(v == 4096.0 * (double)(100 + i * i));
	}
	assert_int_equal(mw_chunk_dec_next(&d, &t, &v), 0);
	/* header 2 bytes, first point 49 + 27 bits, second 18 + 14: 16 bytes
	 * (0x11: 5 + 16 + 4 = 25) */
	assert_int_equal(round_trip(ts, vs, 2), 16);
	/* negative and huge first points round-trip too */
	ts[0] = INT64_MIN;
	vs[0] = -9223372036854775808.0;
	round_trip(ts, vs, 2);
	ts[0] = INT64_MAX;
	vs[0] = 9007199254740992.0;
	round_trip(ts, vs, 2);
}

/* A chunk handed over (mw_chunk_enc_take) is the blob _blob gives, byte
 * for byte, at the start of its block (the taker frees it, ASan checks);
 * the encoder is left empty and its next chunk starts from scratch. */
static void take_hands_the_blob_over(void **state)
{
	struct mw_chunk_enc e, ref;
	struct mw_chunk_dec d;
	const uint8_t *blob;
	uint8_t *taken;
	size_t len, tlen, i;
	int64_t t;
	double v;

	(void)state;
	mw_chunk_enc_init(&e);
	mw_chunk_enc_init(&ref);
	for (i = 0; i < 720; i++) {
		mw_chunk_enc_append(&e, 1700000000000 + (int64_t)i * 1000, (double)(i * i % 977));
		mw_chunk_enc_append(&ref, 1700000000000 + (int64_t)i * 1000, (double)(i * i % 977));
	}
	blob = mw_chunk_enc_blob(&ref, &len);
	taken = mw_chunk_enc_take(&e, &tlen);
	assert_int_equal(tlen, len);
	assert_memory_equal(taken, blob, len);
	assert_null(e.buf);
	assert_int_equal(e.cap, 0);
	assert_int_equal(e.n, 0);
	free(taken);
	/* the next chunk, encoded into a fresh buffer, decodes on its own */
	mw_chunk_enc_append(&e, 1700000720000, 1.5);
	mw_chunk_enc_append(&e, 1700000721000, 2.5);
	blob = mw_chunk_enc_blob(&e, &len);
	assert_int_equal(mw_chunk_dec_init(&d, blob, len), 0);
	assert_int_equal(mw_chunk_dec_next(&d, &t, &v), 1);
	assert_int_equal(t, 1700000720000);
	assert_true(v == 1.5);
	assert_int_equal(mw_chunk_dec_next(&d, &t, &v), 1);
	assert_true(v == 2.5);
	assert_int_equal(mw_chunk_dec_next(&d, &t, &v), 0);
	mw_chunk_enc_release(&e);
	mw_chunk_enc_release(&ref);
}

/* The stored row after a whole write of a trimmed encoder, as the writer
 * builds it in SQL: head || substr(stored, base_head + 1, base) || held. */
static uint8_t *put_piece(struct mw_chunk_enc *e, const uint8_t *stored, size_t stored_len,
			  size_t *len)
{
	size_t plen, head;
	const uint8_t *piece = mw_chunk_enc_piece(e, &plen, &head);
	uint8_t *out;

	if (!mw_chunk_enc_trimmed(e)) {
		out = malloc(plen);
		memcpy(out, piece, plen);
		*len = plen;
		return out;
	}
	assert_true(stored_len >= (size_t)e->base_head + e->base);
	*len = head + e->base + (plen - head);
	out = malloc(*len);
	memcpy(out, piece, head);
	memcpy(out + head, stored + e->base_head, e->base);
	memcpy(out + head + e->base, piece + head, plen - head);
	return out;
}

/* An encoder trimmed after each "whole write" (every `every` points) and
 * pieced back in the stored row gives the blob of one never trimmed, bit
 * for bit: integer and float chunks, counts crossing 127 and 16383 (the
 * header grows), streams ending on and inside a byte; trimming holds a
 * few bytes, not the chunk. */
static void trimmed_pieces_rebuild_the_blob(void **state)
{
	static const size_t everies[] = { 1, 7, 60, 200 };
	uint64_t draws = 0x9e3779b97f4a7c15ULL;
	size_t k;

	(void)state;
	for (k = 0; k < 2 * MW_ARRAY_SIZE(everies); k++) {
		struct mw_chunk_enc whole, cut;
		uint8_t *stored = NULL;
		size_t stored_len = 0, i, n = 17000, len, wlen;
		const uint8_t *blob;
		bool floats = k >= MW_ARRAY_SIZE(everies);
		int64_t ts = 1700000000000;
		double v = 4096;

		mw_chunk_enc_init(&whole);
		mw_chunk_enc_init(&cut);
		for (i = 0; i < n; i++) {
			uint64_t r = mw_xorshift(&draws);

			ts += 1000 + (int64_t)(r % 5 == 0 ? r % 37 : 0);
			v += r % 3 == 0 ? 0 : r % 3 == 1 ? 4096 : -(double)(r % 1000) * 4096;
			if (floats)
				v = (double)(r % 100000) / 7.0;
			mw_chunk_enc_append(&whole, ts, v);
			assert_false(mw_chunk_enc_trimmed(&cut) && mw_chunk_enc_switches(&cut, v));
			mw_chunk_enc_append(&cut, ts, v);
			if ((i + 1) % everies[k % MW_ARRAY_SIZE(everies)] == 0) {
				uint8_t *next = put_piece(&cut, stored, stored_len, &len);

				free(stored);
				stored = next;
				stored_len = len;
				mw_chunk_enc_trim(&cut);
				/* the block holds what `every` points need */
				assert_true(cut.cap <= 64 + 24 * everies[k % MW_ARRAY_SIZE(everies)]);
			}
		}
		{
			uint8_t *last = put_piece(&cut, stored, stored_len, &len);

			free(stored);
			stored = last;
		}
		blob = mw_chunk_enc_blob(&whole, &wlen);
		assert_int_equal(len, wlen);
		assert_memory_equal(stored, blob, wlen);
		assert_true(mw_chunk_enc_trimmed(&cut));
		assert_true(cut.cap < wlen / 8);
		free(stored);
		mw_chunk_enc_release(&whole);
		mw_chunk_enc_release(&cut);
	}
}

static void switches_only_an_integer_chunk_with_points(void **state)
{
	struct mw_chunk_enc e;

	(void)state;
	mw_chunk_enc_init(&e);
	assert_false(mw_chunk_enc_switches(&e, 0.5));	/* empty: starts as floats */
	mw_chunk_enc_append(&e, 1000, 3);
	assert_false(mw_chunk_enc_switches(&e, 7));
	assert_true(mw_chunk_enc_switches(&e, 0.5));
	assert_true(mw_chunk_enc_switches(&e, -0.0));
	assert_true(mw_chunk_enc_switches(&e, NAN));
	mw_chunk_enc_append(&e, 2000, 0.5);
	assert_false(mw_chunk_enc_switches(&e, 0.25));
	assert_int_equal(mw_chunk_head_len(0), 2);
	assert_int_equal(mw_chunk_head_len(127), 2);
	assert_int_equal(mw_chunk_head_len(128), 3);
	assert_int_equal(mw_chunk_head_len(16384), 4);
	mw_chunk_enc_release(&e);
}

MW_TEST_MAIN(
	cmocka_unit_test(empty_and_one_point),
	cmocka_unit_test(special_values),
	cmocka_unit_test(integers_and_switch),
	cmocka_unit_test(odd_timestamps),
	cmocka_unit_test(extreme_integer_deltas),
	cmocka_unit_test(random_streams),
	cmocka_unit_test(resume_continues_bit_for_bit),
	cmocka_unit_test(flat_is_small),
	cmocka_unit_test(corrupt_input),
	cmocka_unit_test(old_format_and_compact_size),
	cmocka_unit_test(take_hands_the_blob_over),
	cmocka_unit_test(trimmed_pieces_rebuild_the_blob),
	cmocka_unit_test(switches_only_an_integer_chunk_with_points),
)
