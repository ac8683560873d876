/*
 * rollup_fill.c - a coarser rollup tier built from the stored 1-minute
 * rows, in one pass in key order (series, then minute), so memory stays
 * one bucket whatever the file holds.  Rows are written with
 * mw_rollup_bind, so they are exactly what the writer would have stored
 * for the same minutes (min, max, sum and count combine exactly; last is
 * the newest minute's).
 *
 * Uses rollup.h and db.c.  Used by schema.c (the 7 -> 8 migration).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "rollup_fill.h"
#include "rollup.h"
#include "db.h"

struct fill_bucket {
	int64_t series, t, count;	/* count 0: empty */
	double min, max, last, sum;
};

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static int put(sqlite3 *db, sqlite3_stmt *ins, const struct fill_bucket *b, struct mw_err *err)
{
	int rc;

	sqlite3_bind_int64(ins, 1, b->series);
	sqlite3_bind_int64(ins, 2, b->t);
	mw_rollup_bind(ins, 3, b->min, b->max, b->last, b->sum, b->count);
	sqlite3_bind_int64(ins, 8, b->count);
	rc = sqlite3_step(ins);
	sqlite3_reset(ins);
	if (rc != SQLITE_DONE)
		return mw_error(err, "cannot write a rollup row: %s", sqlite3_errmsg(db));
	return 0;
}

int mw_rollup_fill_from_minutes(sqlite3 *db, const char *table, int64_t minutes,
				struct mw_err *err)
{
	sqlite3_stmt *sel = NULL, *ins = NULL;
	struct fill_bucket b = { 0 };
	char sql[160];
	int rc = -1, step;

	snprintf(sql, sizeof(sql), "INSERT INTO %s (series_id, t, base, min, max, last, sum, "
		 "count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", table);
	if (mw_db_prepare(db, &sel, "SELECT series_id, t, count, base, min, max, last, sum"
			  " FROM rollup_1m_data ORDER BY series_id, t", err) ||
	    mw_db_prepare(db, &ins, sql, err))
		goto out;
	while ((step = sqlite3_step(sel)) == SQLITE_ROW) {
		int64_t series = sqlite3_column_int64(sel, 0);
		int64_t t = floor_div(sqlite3_column_int64(sel, 1), minutes);
		int64_t count = sqlite3_column_int64(sel, 2);
		double min, max, last, sum;

		if (count <= 0)
			continue;	/* the writer never stores one */
		mw_rollup_column(sel, 3, count, &min, &max, &last, &sum);
		if (b.count && (series != b.series || t != b.t)) {
			if (put(db, ins, &b, err))
				goto out;
			b.count = 0;
		}
		if (!b.count) {
			b.series = series;
			b.t = t;
			b.min = min;
			b.max = max;
			b.sum = 0;
		}
		b.min = fmin(b.min, min);
		b.max = fmax(b.max, max);
		b.sum += sum;
		b.count += count;
		b.last = last;	/* minutes come oldest first */
	}
	if (step != SQLITE_DONE) {
		mw_error(err, "cannot read rollup_1m_data: %s", sqlite3_errmsg(db));
		goto out;
	}
	rc = b.count ? put(db, ins, &b, err) : 0;
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	return rc;
}
