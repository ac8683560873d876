/*
 * minute_pack.c - encoding and decoding a packed hour of minute rows
 * (minute_pack.h; the format is in storage/SCHEMA.md "Packed minutes").
 *
 * Why this shape: memory series are integers that move a little from
 * minute to minute, and rollup.h already stores such a minute as base =
 * min plus small offsets.  Here the base becomes a delta against the
 * previous minute's, the minute number a gap (0 for the next minute),
 * a count equal to the previous one a flag, a minute whose offsets are
 * all 0 (a flat minute) a kind of its own, and every integer of the hour
 * is divided by the largest power of two they share (byte counts are
 * mostly multiples of 4096: 12 bits fewer each).  What is left is a few
 * varints a minute.  Anything else (fractions, huge or special values)
 * keeps its 8 bytes, so every value reads back exactly.
 */
#include <string.h>

#include "minute_pack.h"

#define FORMAT 1
#define KIND_OFFSETS 0	/* integral, min offset 0: base delta, max, last, sum */
#define KIND_FLAT 1	/* integral, every offset 0: base delta only */
#define KIND_RAW 2	/* a mask, then each column as an integer or 8 bytes */
#define INT_LIMIT 4503599627370496.0	/* 2^52, as rollup.h */

/* A double that an int64 holds exactly and that is not -0.0. */
static int is_int(double v)
{
	return v > -INT_LIMIT && v < INT_LIMIT && v == (double)(int64_t)v &&
	       !(v == 0 && 1 / v < 0);
}

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (v < 0 ? UINT64_MAX : 0);
}

static int64_t unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static uint8_t *put_var(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static int row_kind(const struct mw_mp_row *r)
{
	int k;

	for (k = 0; k < MW_MP_COLS; k++)
		if (!is_int(r->v[k]))
			return KIND_RAW;
	if (r->v[1] != 0)
		return KIND_RAW;
	return r->v[2] == 0 && r->v[3] == 0 && r->v[4] == 0 ? KIND_FLAT : KIND_OFFSETS;
}

/* The power of two every integer the hour stores shifted divides. */
static int common_shift(const struct mw_mp_row *rows, size_t n)
{
	uint64_t bits = 0;
	int64_t prev = 0;
	int shift = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		const double *v = rows[i].v;

		if (row_kind(&rows[i]) == KIND_RAW)
			continue;
		bits |= (uint64_t)((int64_t)v[0] - prev) | (uint64_t)(int64_t)v[2] |
			(uint64_t)(int64_t)v[3] | (uint64_t)(int64_t)v[4];
		prev = (int64_t)v[0];
	}
	while (bits && !(bits & 1) && shift < 52) {
		bits >>= 1;
		shift++;
	}
	return bits ? shift : 0;
}

size_t mw_mp_encode(const struct mw_mp_row *rows, size_t n, uint8_t *out)
{
	uint8_t *p = out;
	int64_t prev_base = 0, prev_count = 0, unit;
	int shift = common_shift(rows, n), prev_minute = -1, k;
	size_t i;

	if (n > MW_MP_MINUTES)
		return 0;
	unit = (int64_t)1 << shift;
	*p++ = FORMAT;
	*p++ = (uint8_t)shift;
	for (i = 0; i < n; i++) {
		const struct mw_mp_row *r = &rows[i];
		int kind = row_kind(r);
		int same = i > 0 && r->count == prev_count;

		if (r->minute <= prev_minute || r->minute >= MW_MP_MINUTES)
			return 0;
		p = put_var(p, ((uint64_t)(r->minute - prev_minute - 1) << 3) |
			       ((uint64_t)same << 2) | (uint64_t)kind);
		if (!same)
			p = put_var(p, zigzag(r->count));
		if (kind == KIND_RAW) {
			uint8_t mask = 0;

			for (k = 0; k < MW_MP_COLS; k++)
				if (!is_int(r->v[k]))
					mask |= (uint8_t)(1u << k);
			*p++ = mask;
			for (k = 0; k < MW_MP_COLS; k++)
				if (mask & (1u << k)) {
					uint64_t b;

					memcpy(&b, &r->v[k], sizeof(b));
					for (int j = 0; j < 8; j++)
						*p++ = (uint8_t)(b >> (8 * j));
				} else {
					p = put_var(p, zigzag((int64_t)r->v[k]));
				}
		} else {
			p = put_var(p, zigzag(((int64_t)r->v[0] - prev_base) / unit));
			prev_base = (int64_t)r->v[0];
			if (kind == KIND_OFFSETS)
				for (k = 2; k < MW_MP_COLS; k++)
					p = put_var(p, zigzag((int64_t)r->v[k] / unit));
		}
		prev_minute = r->minute;
		prev_count = r->count;
	}
	return (size_t)(p - out);
}

/* ---- decoding ---------------------------------------------------------------- */

struct reader {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t get_var(struct reader *r)
{
	uint64_t v = 0;
	int s;

	for (s = 0; s < 64 && r->p < r->end; s += 7) {
		uint8_t b = *r->p++;

		if (s == 63 && b > 1)
			break;
		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return v;
	}
	r->bad = 1;
	return 0;
}

/* A shifted integer back, refused when it could not have been encoded. */
static int64_t get_int(struct reader *r, int shift)
{
	int64_t q = unzigzag(get_var(r));

	if (q > ((int64_t)1 << (53 - shift)) || q < -((int64_t)1 << (53 - shift))) {
		r->bad = 1;
		return 0;
	}
	return q * ((int64_t)1 << shift);
}

static double get_raw(struct reader *r)
{
	uint64_t b = 0;
	double v;
	int j;

	if (r->end - r->p < 8) {
		r->bad = 1;
		return 0;
	}
	for (j = 0; j < 8; j++)
		b |= (uint64_t)*r->p++ << (8 * j);
	memcpy(&v, &b, sizeof(v));
	return v;
}

/* One row after its head; 0, or -1 when malformed. */
static int get_row(struct reader *r, int kind, int shift, int64_t *prev_base,
		   struct mw_mp_row *row)
{
	int k;

	if (kind == KIND_RAW) {
		uint8_t mask;

		if (r->p >= r->end)
			return -1;
		mask = *r->p++;
		if (mask >> MW_MP_COLS)
			return -1;
		for (k = 0; k < MW_MP_COLS; k++)
			row->v[k] = mask & (1u << k) ? get_raw(r) : (double)get_int(r, 0);
		return r->bad ? -1 : 0;
	}
	if (kind != KIND_OFFSETS && kind != KIND_FLAT)
		return -1;
	*prev_base += get_int(r, shift);
	if (*prev_base >= (int64_t)INT_LIMIT || *prev_base <= -(int64_t)INT_LIMIT)
		return -1;
	row->v[0] = (double)*prev_base;
	row->v[1] = 0;
	for (k = 2; k < MW_MP_COLS; k++)
		row->v[k] = kind == KIND_FLAT ? 0 : (double)get_int(r, shift);
	return r->bad ? -1 : 0;
}

int mw_mp_decode(const uint8_t *in, size_t len, struct mw_mp_row *rows)
{
	struct reader r = { in, in + len, 0 };
	int64_t prev_base = 0, prev_count = 0;
	int n = 0, shift, minute = -1;

	if (len < 2 || in[0] != FORMAT || in[1] > 52)
		return -1;
	shift = in[1];
	r.p += 2;
	while (r.p < r.end) {
		uint64_t head = get_var(&r);
		struct mw_mp_row *row = &rows[n];

		if (r.bad || n == MW_MP_MINUTES || (head >> 3) >= (uint64_t)(MW_MP_MINUTES - 1 - minute))
			return -1;
		minute += (int)(head >> 3) + 1;
		row->minute = minute;
		row->count = head & 4 ? prev_count : unzigzag(get_var(&r));
		if (r.bad || (n == 0 && (head & 4)) ||
		    get_row(&r, (int)(head & 3), shift, &prev_base, row))
			return -1;
		prev_count = row->count;
		n++;
	}
	return n;
}
