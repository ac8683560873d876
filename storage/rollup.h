/*
 * rollup.h - the row format of the rollup tables (rollup_1m_data,
 * rollup_10m_data, rollup_1h_data; storage/SCHEMA.md), shared by the
 * writer, the readers and the 7 -> 8 migration (rollup_fill.c).
 *
 * A bucket (min, max, last, sum, count) is stored as five numbers
 * base, min, max, last, sum such that
 *     min = base + min, max = base + max, last = base + last,
 *     sum = base * count + sum.
 * When every value is integral and small enough for exact arithmetic in
 * doubles (|x| < 2^52), base is the bucket's minimum, so min is 0 and the
 * others are small non-negative offsets: SQLite stores 0 in no bytes and
 * small integers in 1-3, where absolute byte counts take 4-6 and a REAL 8.
 * Otherwise (fractions, infinities, -0.0, huge values) base is 0 and the
 * columns hold the values themselves.  Both forms read back exactly.
 */
#ifndef MW_ROLLUP_H
#define MW_ROLLUP_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <sqlite3.h>

#define MW_ROLLUP_EXACT 4503599627370496.0	/* 2^52 */

static inline bool mw_rollup_int_ok(double v)
{
	return isfinite(v) && fabs(v) < MW_ROLLUP_EXACT && v == floor(v) &&
	       !(v == 0 && signbit(v));
}

/* The bucket takes the integral form (base = min, offsets). */
static inline bool mw_rollup_integral(double min, double max, double last, double sum,
				      int64_t count)
{
	return mw_rollup_int_ok(min) && mw_rollup_int_ok(max) && mw_rollup_int_ok(last) &&
	       mw_rollup_int_ok(sum) && mw_rollup_int_ok(min * (double)count);
}

/* The five stored numbers base, min, max, last, sum of a bucket as the
 * REAL columns read them back after mw_rollup_bind (minute_pack.h keeps
 * packed minutes in this form). */
static inline void mw_rollup_form(double min, double max, double last, double sum,
				  int64_t count, double out[5])
{
	if (mw_rollup_integral(min, max, last, sum, count)) {
		out[0] = min;
		out[1] = 0;
		out[2] = (double)((int64_t)max - (int64_t)min);
		out[3] = (double)((int64_t)last - (int64_t)min);
		out[4] = (double)((int64_t)sum - (int64_t)min * count);
		return;
	}
	out[0] = 0;
	out[1] = min;
	out[2] = max;
	out[3] = last;
	out[4] = sum;
}

/* Bind base, min, max, last, sum as parameters first .. first + 4. */
static inline void mw_rollup_bind(sqlite3_stmt *st, int first, double min, double max,
				  double last, double sum, int64_t count)
{
	if (mw_rollup_integral(min, max, last, sum, count)) {
		sqlite3_bind_int64(st, first, (int64_t)min);
		sqlite3_bind_int64(st, first + 1, 0);
		sqlite3_bind_int64(st, first + 2, (int64_t)max - (int64_t)min);
		sqlite3_bind_int64(st, first + 3, (int64_t)last - (int64_t)min);
		sqlite3_bind_int64(st, first + 4, (int64_t)sum - (int64_t)min * count);
		return;
	}
	sqlite3_bind_int64(st, first, 0);
	sqlite3_bind_double(st, first + 1, min);
	sqlite3_bind_double(st, first + 2, max);
	sqlite3_bind_double(st, first + 3, last);
	sqlite3_bind_double(st, first + 4, sum);
}

/* Read base, min, max, last, sum from result columns first .. first + 4. */
static inline void mw_rollup_column(sqlite3_stmt *st, int first, int64_t count, double *min,
				    double *max, double *last, double *sum)
{
	double base = sqlite3_column_double(st, first);

	*min = base + sqlite3_column_double(st, first + 1);
	*max = base + sqlite3_column_double(st, first + 2);
	*last = base + sqlite3_column_double(st, first + 3);
	*sum = base * (double)count + sqlite3_column_double(st, first + 4);
}

#endif
