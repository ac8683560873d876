/* test_minute_pack.c - the packed-hour codec (storage/minute_pack.h):
 * exact round trips, its size on memory-like minutes, malformed blobs. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "storage/minute_pack.h"
#include "storage/rollup.h"
#include "tests/support/xorshift.h"
#include "tests/support/double_bits.h"
#include "tests/support/test_main.h"

static void set_bucket(struct mw_mp_row *r, int minute, int64_t count, double min, double max,
		       double last, double sum)
{
	r->minute = minute;
	r->count = count;
	mw_rollup_form(min, max, last, sum, count, r->v);
}

/* Encode, decode, compare every field bit for bit; the encoded length. */
static size_t round_trip(const struct mw_mp_row *rows, size_t n)
{
	static uint8_t buf[MW_MP_MAX_BYTES];
	struct mw_mp_row back[MW_MP_MINUTES];
	size_t len = mw_mp_encode(rows, n, buf), i;
	int k;

	assert_true(len > 0 && len <= MW_MP_MAX_BYTES);
	assert_int_equal(mw_mp_decode(buf, len, back), (int)n);
	for (i = 0; i < n; i++) {
		assert_int_equal(back[i].minute, rows[i].minute);
		assert_int_equal(back[i].count, rows[i].count);
		for (k = 0; k < MW_MP_COLS; k++)
			assert_int_equal(mw_test_bits_of(back[i].v[k]),
					 mw_test_bits_of(rows[i].v[k]));
	}
	return len;
}

/* The bucket's own doubles (rollup.h's read rule) from a decoded row. */
static void bucket_of(const struct mw_mp_row *r, double *min, double *max, double *last,
		      double *sum)
{
	*min = r->v[0] + r->v[1];
	*max = r->v[0] + r->v[2];
	*last = r->v[0] + r->v[3];
	*sum = r->v[0] * (double)r->count + r->v[4];
}

static void constructed_rows(void **state)
{
	struct mw_mp_row rows[8], back[MW_MP_MINUTES];
	static uint8_t buf[MW_MP_MAX_BYTES];
	double min, max, last, sum;
	size_t len;

	(void)state;
	/* integral memory minutes, a gap, a flat one, count > 60 */
	set_bucket(&rows[0], 0, 60, 4096.0 * 1000, 4096.0 * 1010, 4096.0 * 1005, 4096.0 * 60500);
	set_bucket(&rows[1], 1, 60, 4096.0 * 1004, 4096.0 * 1004, 4096.0 * 1004, 4096.0 * 60240);
	set_bucket(&rows[2], 7, 120, 4096.0 * 990, 4096.0 * 1000, 4096.0 * 999, 4096.0 * 119000);
	/* the non-integral form: a fraction, a huge value, infinities, -0.0, NaN */
	set_bucket(&rows[3], 8, 3, 0.25, 0.75, 0.5, 1.5);
	set_bucket(&rows[4], 9, 2, 1e300, 1.7976931348623157e308, 1e300, INFINITY);
	set_bucket(&rows[5], 10, 1, -INFINITY, -INFINITY, -INFINITY, -INFINITY);
	set_bucket(&rows[6], 11, 2, -0.0, 0.0, -0.0, 0.0);
	set_bucket(&rows[7], 59, 1, 5, 5, 5, 5);
	rows[7].v[2] = NAN;
	assert_true(rows[3].v[0] == 0 && rows[3].v[1] == 0.25);	/* the forms the test means */
	assert_true(rows[0].v[0] == 4096.0 * 1000 && rows[0].v[2] == 4096.0 * 10);
	len = round_trip(rows, 8);
	assert_int_equal(mw_mp_decode(buf, mw_mp_encode(rows, 8, buf), back), 8);
	/* -0.0 stays -0.0 in its column */
	assert_true(signbit(back[6].v[1]) && !signbit(back[6].v[2]) && signbit(back[6].v[3]));
	bucket_of(&back[4], &min, &max, &last, &sum);
	assert_true(max == 1.7976931348623157e308 && isinf(sum) && sum > 0);
	bucket_of(&back[2], &min, &max, &last, &sum);
	assert_true(min == 4096.0 * 990 && last == 4096.0 * 999 && sum == 4096.0 * 119000);
	assert_int_equal(back[2].count, 120);
	assert_true(isnan(back[7].v[2]));
	/* the integral minutes cost a few bytes; the special ones their 8 per value */
	assert_true(len < 2 + 3 * 8 + 5 * 45);
	/* no rows: an empty hour still round-trips */
	assert_int_equal(mw_mp_encode(rows, 0, buf), 2);
	assert_int_equal(mw_mp_decode(buf, 2, back), 0);
}

static void rejects_bad_rows(void **state)
{
	struct mw_mp_row rows[2];
	static uint8_t buf[MW_MP_MAX_BYTES];

	(void)state;
	set_bucket(&rows[0], 5, 1, 1, 1, 1, 1);
	set_bucket(&rows[1], 5, 1, 1, 1, 1, 1);
	assert_int_equal(mw_mp_encode(rows, 2, buf), 0);	/* minutes not increasing */
	rows[1].minute = 60;
	assert_int_equal(mw_mp_encode(rows, 2, buf), 0);	/* past the hour */
	rows[1].minute = 6;
	assert_true(mw_mp_encode(rows, 2, buf) > 0);
}

/* A full hour of memory-like minutes: a byte count in pages moving a few
 * pages a second, 60 points a minute. */
static void memory_hour_is_small(void **state)
{
	struct mw_mp_row rows[MW_MP_MINUTES];
	uint64_t rng = 7;
	double v = 4096.0 * 250000;
	size_t len;
	int m, k;

	(void)state;
	for (m = 0; m < MW_MP_MINUTES; m++) {
		double min = v, max = v, sum = 0;

		for (k = 0; k < 60; k++) {
			v += 4096.0 * ((int)mw_xorshift_below(&rng, 9) - 4);
			min = fmin(min, v);
			max = fmax(max, v);
			sum += v;
		}
		set_bucket(&rows[m], m, 60, min, max, v, sum);
	}
	len = round_trip(rows, MW_MP_MINUTES);
	assert_true(len <= 10 * MW_MP_MINUTES);	/* rows cost ~29 bytes a minute */
	/* a flat hour: two bytes a minute */
	for (m = 0; m < MW_MP_MINUTES; m++)
		set_bucket(&rows[m], m, 60, 4096.0 * 7, 4096.0 * 7, 4096.0 * 7, 4096.0 * 420);
	assert_true(round_trip(rows, MW_MP_MINUTES) <= 2 + 2 * MW_MP_MINUTES + 1);
}

/* A random value: integral small or large, a fraction, or any bit pattern. */
static double random_value(uint64_t *rng)
{
	switch (mw_xorshift_below(rng, 5)) {
	case 0: return (double)((int64_t)mw_xorshift_below(rng, 1000000) - 500000) * 4096;
	case 1: return (double)(int64_t)(mw_xorshift(rng) >> 12) - 2e15;
	case 2: return mw_xorshift_unit(rng) * 1e6;
	case 3: return mw_test_from_bits(mw_xorshift(rng));
	default: return (double)mw_xorshift_below(rng, 100);
	}
}

static void random_round_trips(void **state)
{
	struct mw_mp_row rows[MW_MP_MINUTES];
	uint64_t rng = 12345;
	int iter;

	(void)state;
	for (iter = 0; iter < 2000; iter++) {
		size_t n = 0;
		int m, k;

		for (m = 0; m < MW_MP_MINUTES; m++) {
			struct mw_mp_row *r = &rows[n];
			double lo = random_value(&rng), hi = lo + (double)mw_xorshift_below(&rng, 3) * 4096;

			if (mw_xorshift_below(&rng, 3) == 0)
				continue;	/* a missing minute */
			if (mw_xorshift_below(&rng, 4) == 0) {	/* any stored numbers */
				r->minute = m;
				r->count = (int64_t)mw_xorshift(&rng);
				for (k = 0; k < MW_MP_COLS; k++)
					r->v[k] = random_value(&rng);
			} else {
				int64_t count = 1 + (int64_t)mw_xorshift_below(&rng, 200);

				set_bucket(r, m, count, lo, hi, hi, lo * (double)count);
			}
			n++;
		}
		round_trip(rows, n);
	}
}

/* Truncated, trailing or flipped bytes are refused or decode to rows of
 * the hour, never read past the blob (ASan checks that). */
static void malformed_blobs(void **state)
{
	struct mw_mp_row rows[MW_MP_MINUTES], back[MW_MP_MINUTES];
	static uint8_t buf[MW_MP_MAX_BYTES], bad[MW_MP_MAX_BYTES];
	uint64_t rng = 99;
	size_t len, cut;
	int m, i, n;

	(void)state;
	for (m = 0; m < MW_MP_MINUTES; m++)
		set_bucket(&rows[m], m, 60, 4096.0 * m, 4096.0 * (m + 3), 4096.0 * (m + 1),
			   4096.0 * (60 * m + 100));
	set_bucket(&rows[30], 30, 2, 0.5, 1.5, 1, 2);
	len = mw_mp_encode(rows, MW_MP_MINUTES, buf);
	assert_int_equal(mw_mp_decode(buf, 1, back), -1);
	buf[0] = 2;	/* an unknown format */
	assert_int_equal(mw_mp_decode(buf, len, back), -1);
	buf[0] = 1;
	for (cut = 2; cut < len; cut++) {
		n = mw_mp_decode(buf, cut, back);
		assert_true(n < MW_MP_MINUTES);
	}
	memcpy(bad, buf, len);
	bad[len] = 0;	/* a 61st minute */
	assert_int_equal(mw_mp_decode(bad, len + 1, back), -1);
	for (i = 0; i < 5000; i++) {
		memcpy(bad, buf, len);
		bad[2 + mw_xorshift_below(&rng, (uint32_t)len - 2)] ^=
			(uint8_t)(1u << mw_xorshift_below(&rng, 8));
		n = mw_mp_decode(bad, len, back);
		assert_true(n >= -1 && n <= MW_MP_MINUTES);
		for (m = 1; m < n; m++)
			assert_true(back[m].minute > back[m - 1].minute && back[m].minute < 60);
	}
}

MW_TEST_MAIN(
	cmocka_unit_test(constructed_rows),
	cmocka_unit_test(rejects_bad_rows),
	cmocka_unit_test(memory_hour_is_small),
	cmocka_unit_test(random_round_trips),
	cmocka_unit_test(malformed_blobs),
)
