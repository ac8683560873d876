/*
 * dedupe.c - a point already stored is not stored again
 * (mw_store_options.skip_stored: imports).
 *
 * Per series, only while points arrive:
 *   stored_max  the newest stored timestamp (max(max_ts) of its chunks, an
 *               upper bound: an open chunk's row carries its bound), read
 *               once, moved up by each commit
 *   added_max   the newest timestamp added since the last commit
 *   a window    the stored timestamps in [lo, hi], sorted, read from the
 *               chunks that can hold points there
 * A point newer than both maxima is new: a recording imported for the
 * first time, or the part of an overlapping one past what is stored,
 * costs two compares.  A point at or below added_max may be one of the
 * points not committed yet: the store is flushed first (once; imports
 * come in time order per series, so this is rare).  Any other point is
 * looked up in the window, which is read again only when the point falls
 * outside it: in time order that is once per stored chunk.
 *
 * Which chunks can hold a point of [lo, hi]: min_ts <= hi and max_ts >=
 * lo, and, as a chunk never spans chunk_duration or more on either side of
 * its first point (store.c add_point, mw_store_open_bound), max_ts < hi + 2 x
 * chunk_duration, which bounds the index range read.  Chunks written with a
 * longer [storage] chunk_duration than the store's are not all seen: a
 * duplicate of one of their points can then be stored.
 */
#include <stdlib.h>
#include <string.h>

#include "schema.h"
#include "store_impl.h"
#include "base/xalloc.h"

struct mw_dedupe {
	int64_t stored_max;
	int64_t added_max;
	bool window;		/* lo, hi, ts valid */
	int64_t lo, hi;
	int64_t *ts;
	size_t n, cap;
};

static const char max_sql[] = "SELECT max(max_ts) FROM chunk WHERE series_id = ?";
static const char hi_sql[] =
	"SELECT max_ts FROM chunk WHERE series_id = ?1 AND max_ts >= ?2 ORDER BY max_ts LIMIT 1";
static const char window_sql[] =
	"SELECT data FROM chunk WHERE series_id = ?1 AND max_ts >= ?2 AND max_ts <= ?3 "
	"AND min_ts <= ?4";

struct mw_dedupe_stmts {
	sqlite3_stmt *max, *hi, *window;
};

static int64_t sat_add(int64_t a, int64_t b)
{
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static int cmp_ts(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

void mw_dedupe_free(struct mw_dedupe *d)
{
	if (!d)
		return;
	free(d->ts);
	free(d);
}

void mw_dedupe_close(struct mw_store *s)
{
	if (!s->dd)
		return;
	sqlite3_finalize(s->dd->max);
	sqlite3_finalize(s->dd->hi);
	sqlite3_finalize(s->dd->window);
	free(s->dd);
	s->dd = NULL;
}

static int prepare(struct mw_store *s)
{
	struct mw_err err;

	if (s->dd)
		return 0;
	s->dd = mw_xcalloc(1, sizeof(*s->dd));
	if (mw_db_prepare(s->db, &s->dd->max, max_sql, &err) ||
	    mw_db_prepare(s->db, &s->dd->hi, hi_sql, &err) ||
	    mw_db_prepare(s->db, &s->dd->window, window_sql, &err)) {
		mw_dedupe_close(s);
		return -1;
	}
	return 0;
}

/* The series' state, its stored maximum read on first use. */
static struct mw_dedupe *state(struct mw_store *s, struct mw_series *se)
{
	struct mw_dedupe *d = se->dd;
	sqlite3_stmt *st;

	if (d)
		return d;
	d = se->dd = mw_xcalloc(1, sizeof(*d));
	d->stored_max = INT64_MIN;
	d->added_max = INT64_MIN;
	if (se->id && !prepare(s)) {
		st = s->dd->max;
		sqlite3_bind_int64(st, 1, se->id);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
			d->stored_max = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
	}
	return d;
}

/* Read the window of stored timestamps from ts on; -1 when the database
 * cannot be read (the point is then taken as new). */
static int load_window(struct mw_store *s, struct mw_series *se, struct mw_dedupe *d, int64_t ts)
{
	sqlite3_stmt *st;
	int64_t hi = INT64_MAX, t;
	int rc;

	d->window = false;
	d->n = 0;
	if (prepare(s))
		return -1;
	st = s->dd->hi;
	sqlite3_bind_int64(st, 1, se->id);
	sqlite3_bind_int64(st, 2, ts);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		hi = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return -1;
	if (rc == SQLITE_ROW) {
		st = s->dd->window;
		sqlite3_bind_int64(st, 1, se->id);
		sqlite3_bind_int64(st, 2, ts);
		sqlite3_bind_int64(st, 3, sat_add(hi, 2 * s->opt.chunk_duration_ms));
		sqlite3_bind_int64(st, 4, hi);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			struct mw_chunk_dec dec;
			double v;

			if (mw_chunk_dec_init(&dec, sqlite3_column_blob(st, 0),
					      (size_t)sqlite3_column_bytes(st, 0)))
				continue;	/* corrupt: nothing to find in it */
			while (mw_chunk_dec_next(&dec, &t, &v) == 1) {
				if (t < ts || t > hi)
					continue;
				MW_GROW(d->ts, d->cap, d->n + 1);
				d->ts[d->n++] = t;
			}
		}
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			return -1;
		qsort(d->ts, d->n, sizeof(*d->ts), cmp_ts);
	}
	d->lo = ts;
	d->hi = hi;
	d->window = true;
	return 0;
}

static bool in_window(const struct mw_dedupe *d, int64_t ts)
{
	size_t a = 0, b = d->n;

	while (a < b) {
		size_t m = a + (b - a) / 2;

		if (d->ts[m] < ts)
			a = m + 1;
		else
			b = m;
	}
	return a < d->n && d->ts[a] == ts;
}

int mw_dedupe_check(struct mw_store *s, struct mw_series *se, int64_t ts)
{
	struct mw_dedupe *d = state(s, se);

	if (ts <= d->added_max)
		return 1;	/* commit first, then ask again */
	/* new, or stored already (an unreadable database: taken as new) */
	if (ts <= d->stored_max &&
	    (d->window && ts >= d->lo && ts <= d->hi ? true : !load_window(s, se, d, ts)) &&
	    in_window(d, ts))
		return 2;
	d->added_max = ts;	/* the caller adds it */
	return 0;
}

void mw_dedupe_added(struct mw_store *s, struct mw_series *se, int64_t ts)
{
	struct mw_dedupe *d = state(s, se);

	if (ts > d->added_max)
		d->added_max = ts;
}

void mw_dedupe_committed(struct mw_series *se)
{
	struct mw_dedupe *d = se->dd;

	if (!d)
		return;
	if (d->added_max > d->stored_max)
		d->stored_max = d->added_max;
	d->added_max = INT64_MIN;
	d->window = false;	/* it may lack what was just committed */
}
