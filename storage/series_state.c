/*
 * series_state.c - what a series brings from the database as it enters the
 * writer's memory (store_impl.h, "series_state.c"): its rollup buckets in
 * progress (the minute; rollup_acc.c derives the coarser tiers),
 * rebuilt from raw chunks after a crash (mw_series_recover) or read back
 * after a clean stop (mw_series_resume),
 * and its newest chunk taken up again as its open chunk, at once after a
 * crash or at its next point after a clean stop (mw_series_take_up).
 *
 * Uses rollup_acc.c and codec.c.  Used by series.c (the series load and
 * look-up) and store.c (add_point takes a chunk up); it calls neither.
 */
#include <string.h>

#include "store_impl.h"
#include "rollup.h"
#include "base/log.h"

/*
 * A restart takes up each live series' newest chunk (row last_chunk) as its
 * open chunk, as if the store had never stopped: it used to start a new
 * chunk for every live series, so a crash loop left one short chunk per
 * series and restart (364,459 chunk rows for 8,605 series after 150
 * crashes).  Its points are committed already, and are decoded anyway to
 * rebuild the rollups (mw_series_recover appends them as it goes).  A row
 * with its true max_ts gets the bound at the next write.  A chunk that is
 * full, damaged, too long or not the series' newest is left closed.
 */
static bool may_continue(const struct mw_store *s, const struct mw_chunk_dec *d)
{
	return d->n > 0 && (int64_t)d->n < s->opt.chunk_points;
}

static bool may_take_up(const struct mw_store *s, const struct mw_chunk_enc *e)
{
	return e->n > 0 && (int64_t)e->n < s->opt.chunk_points;
}

static void continue_open(struct mw_store *s, struct mw_series *se, int64_t rowid, int rc)
{
	if (rc != 0 || se->open.n == 0 ||
	    se->open.t_max - se->open.t_first >= s->opt.chunk_duration_ms) {
		mw_chunk_enc_reset(&se->open);
		return;
	}
	se->open_rowid = rowid;
	se->open_flushed = se->open.n;
	se->open_writes = MW_OPEN_BOUND_FROM - 1;
}

/*
 * A chunk a crash left open keeps the bound its row carries when it is
 * taken up again (store.c fix_open_bounds leaves it), and its next points
 * go into chunk_tail as if the store had never stopped: its row holds
 * exactly the bits the encoder rebuilt from it.  Putting the true max_ts
 * at start-up and the bound back at the first flush moved every live
 * series' chunk in the index twice and wrote every open chunk whole: a
 * first flush of 1.3 s at 12,000 series on a day's file, against 0.1 s.
 * Only a bound at least this run's own (chunk_duration may have changed)
 * is kept.
 */
static void keep_bound(struct mw_store *s, struct mw_series *se, int64_t row_max_ts)
{
	if (!se->open_rowid || row_max_ts < mw_store_open_bound(s, &se->open))
		return;
	se->open_writes = MW_OPEN_BOUND_FROM;
	se->tail_bits = se->open.nbits;
	se->tail_min = se->open.t_min;
	se->tail_float = se->open.is_float;
	se->tail_pending = false;
}

/* The newest stored minute of se, as an accumulator (last_ts its
 * start): 1, 0 when it has none, -1 on error. */
static int newest_row(struct mw_store *s, struct mw_series *se, struct mw_rollup_acc *out,
		      struct mw_err *err)
{
	sqlite3_stmt *st = s->st[ST_NEWEST_1M];
	int rc;

	sqlite3_bind_int64(st, 1, se->id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->bucket = sqlite3_column_int64(st, 0) * mw_rollup_res[0];
		out->count = sqlite3_column_int64(st, 1);
		mw_rollup_column(st, 2, out->count, &out->min, &out->max, &out->last, &out->sum);
		out->last_ts = out->bucket;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return mw_error(err, "cannot read %s of '%s': %s", mw_rollup_table[0], se->key,
				sqlite3_errmsg(s->db));
	return rc == SQLITE_ROW;
}

/* Rebuild the minute in progress of one series: the points from its
 * newest stored minute on (that minute may have been written while still
 * in progress, so it is recomputed whole).  The coarser tiers need
 * nothing: they are derived from the stored minutes as their buckets
 * complete (rollup_acc.c), and a bucket that completes while the points
 * are replayed is derived again, the same.  last_chunk > 0: that chunk,
 * read on the way (its max_ts is at or past the minute's start), becomes
 * the open chunk again (continue_open). */
int mw_series_recover(struct mw_store *s, struct mw_series *se, int64_t last_chunk,
		      struct mw_err *err)
{
	sqlite3_stmt *chunks = s->st[ST_RECOVER_CHUNKS];
	struct mw_rollup_acc row;
	int64_t since;
	int rc;

	if ((rc = newest_row(s, se, &row, err)) < 0)
		return -1;
	since = rc ? row.bucket : INT64_MIN;
	sqlite3_bind_int64(chunks, 1, se->id);
	sqlite3_bind_int64(chunks, 2, since);
	while ((rc = sqlite3_step(chunks)) == SQLITE_ROW) {
		struct mw_chunk_dec d;
		const void *blob = sqlite3_column_blob(chunks, 0);
		size_t len = (size_t)sqlite3_column_bytes(chunks, 0);
		int64_t ts;
		double v;
		bool take_up;
		int next;

		if (mw_chunk_dec_init(&d, blob, len))
			continue;
		take_up = last_chunk > 0 && sqlite3_column_int64(chunks, 1) == last_chunk &&
			  may_continue(s, &d);
		while ((next = mw_chunk_dec_next(&d, &ts, &v)) == 1) {
			if (take_up)
				mw_chunk_enc_append(&se->open, ts, v);
			if (ts >= since)
				mw_rollup_point(s, se, ts, v);
		}
		if (take_up) {
			continue_open(s, se, last_chunk, next);
			keep_bound(s, se, sqlite3_column_int64(chunks, 2));
		}
	}
	sqlite3_reset(chunks);
	if (rc != SQLITE_DONE)
		return mw_error(err, "cannot read chunks of '%s': %s", se->key,
				sqlite3_errmsg(s->db));
	/* the newest stored minute, rebuilt: kept whole as points come
	 * (store.c write_quiet_minute) */
	if (since != INT64_MIN && se->minute.bucket == since)
		se->minute_row = since;
	return 0;
}

/*
 * After a clean stop (store_impl.h clean_start) a live series' minute in
 * progress is its newest minute row: the last run wrote it whole as it
 * stopped (mw_store_free), and nothing wrote the file since.  Reading it
 * back is one seek, where rebuilding it decoded every chunk since the
 * newest minute: at 12,000 live series 1.1-1.5 s of a 1.5-1.8 s start-up
 * (README, "A simulated week").  Taken only when that row is the minute
 * of the series' newest point (newest: its newest chunk's max_ts, true
 * after a clean stop or fix_open_bounds): anything else (a last minute of
 * NaN only, rows the size cut took, a clock step) is rebuilt as after a
 * crash.  1: taken, 0: not (se unchanged), -1: error.
 */
int mw_series_resume(struct mw_store *s, struct mw_series *se, int64_t newest,
		     struct mw_err *err)
{
	struct mw_rollup_acc row;
	int rc;

	if (newest == INT64_MIN)
		return 0;
	if ((rc = newest_row(s, se, &row, err)) <= 0)
		return rc;
	if (row.bucket != mw_floor_to(newest, mw_rollup_res[0]) || row.count <= 0)
		return 0;
	row.last_ts = newest;
	se->minute = row;
	se->minute_row = row.bucket;	/* stored: kept whole as points come */
	se->minute_unsaved = false;
	s->stats.series_resumed++;
	return 1;
}

/*
 * With mw_series_resume, which reads no chunk: the newest chunk is taken up
 * at the series' next point, not at start-up, from its stored bits
 * (codec.h mw_chunk_enc_resume: decoded once, not encoded again point by
 * point).  Decoding every live series' open chunk was most of what was
 * left of a start-up after a clean stop (0.2-0.3 CPU s at 12,000 series
 * with chunks nearly full), and the series of processes that ended while
 * the daemon was down never need theirs.  Until then the series' open
 * chunk is empty and open_rowid names the row (so size_cut.c keeps it;
 * a flush has nothing of it to write).  A chunk that is full stays
 * closed at once.
 */
void mw_series_defer_take_up(struct mw_store *s, struct mw_series *se, int64_t rowid,
			     int64_t npoints)
{
	if (rowid <= 0 || npoints <= 0 || npoints >= s->opt.chunk_points)
		return;
	se->open_rowid = rowid;
	se->take_up = true;
}

void mw_series_take_up(struct mw_store *s, struct mw_series *se)
{
	sqlite3_stmt *get = s->st[ST_CHUNK_GET];
	int64_t rowid = se->open_rowid;
	int rc, resumed = -1;

	se->take_up = false;
	se->open_rowid = 0;
	sqlite3_bind_int64(get, 1, rowid);
	rc = sqlite3_step(get);
	if (rc == SQLITE_ROW)
		resumed = mw_chunk_enc_resume(&se->open, sqlite3_column_blob(get, 0),
					      (size_t)sqlite3_column_bytes(get, 0));
	else if (rc != SQLITE_DONE && !s->failing)	/* DONE: the row is gone */
		mw_log_warn("storage: cannot read the newest chunk of '%s' (%s); its next "
			    "points start a chunk", se->key, sqlite3_errmsg(s->db));
	sqlite3_reset(get);
	/* a chunk that is full, too long, damaged or of the format before
	 * schema 7 stays closed (the point starts a chunk) */
	if (resumed == 0 && !may_take_up(s, &se->open))
		resumed = -1;
	continue_open(s, se, rowid, resumed);
}
