/*
 * store.c - points into open chunks and rollup accumulators; flushes.
 *
 * Uses series.c (the catalogue in memory), rollup_acc.c (the tiers),
 * chunk_tail.c (the new bits appended per flush),
 * retention.c (its statements freed with the store), dedupe.c,
 * regions_store.c, schema.c, catalog.c, db.c, dblock and store_check.c
 * (a full check read in the background, bg_check.h).  Used by
 * writer.c, import and the tests (store.h).  None of the files it uses
 * calls back into it.
 *
 * Why the open chunk's new bits are appended (chunk_tail.h) and the chunk
 * rewritten whole only every MW_TAIL_FOLD_EVERY flushes: a chunk
 * compresses only as a whole bit stream, so its row holds it whole; but
 * rewriting every open row at every flush put all their pages into the
 * WAL each time (two thirds of a flush at 12,000 series).  One row per
 * flush with every chunk's new bytes costs a tenth of that, and a crash
 * still loses only the points since the last flush: readers lay the
 * records over the blobs, start-up folds them in (fold_tails).  A chunk
 * takes this path only once its row carries the max_ts bound (below), and
 * never when its bits changed behind the new ones (re-encoded as floats)
 * or its min_ts moved.
 *
 * Why an open chunk's row carries an upper bound as max_ts (its first
 * point + chunk_duration, which no point of it can reach) and its newest
 * point in last_ts: max_ts is indexed (series_id, max_ts), and changing
 * it on every flush rewrote an index entry per series per flush - 58 % of
 * the flush's SQLite time with a day of chunks per series.  The row's
 * first two writes have the true max_ts (no last_ts: a series that lives
 * seconds costs no more), the bound comes with its third and the true
 * max_ts again when the chunk closes, so each chunk moves in the index
 * four times in its life (write_open).  Readers select
 * chunks by max_ts >= from (a superset with the bound) and filter points
 * by time; the newest point is coalesce(last_ts, max_ts) as before.  A
 * chunk left open by a stop or a crash gets its true max_ts at the next
 * start (fix_open_bounds), unless that start takes it up again with its
 * bound (series_state.c keep_bound).
 *
 * Why the 1-minute bucket in progress is written at the first flush that
 * brings its series no point (write_quiet_minute): it lived only in
 * memory, so a process that ended and then a crash left raw points and no
 * 1-minute row.  Writing it with every flush instead cost a statement per
 * series and flush (a 2,000-series flush took 67 % longer); a series that
 * goes quiet costs one row, the one retention would write anyway.  The
 * 10-minute and 1-hour buckets in progress are written when they complete;
 * after a crash all are rebuilt (series.c), the 10 minutes and the hour
 * from the stored minutes.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_impl.h"
#include "rollup.h"
#include "bg_check.h"
#include "schema.h"
#include "clean_stop.h"
#include "dblock.h"
#include "exit_reports.h"
#include "id_set.h"
#include "query.h"
#include "base/clock.h"
#include "base/clock_step.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "core/metric_catalog.h"

#define ROLLUP_PUT(tier) "INSERT OR REPLACE INTO rollup_" tier "_data " \
	"(series_id, t, base, min, max, last, sum, count) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
/* Reads of the minute tier go through rollup_1m_all (minute_vtab.h): the
 * loose rows and the packed hours; writes go to the loose rows, which
 * stand for a packed minute of the same bucket until the next pack step
 * folds them in. */
#define ROLLUP_GET(table) "SELECT base, min, max, last, sum, count FROM " table " " \
	"WHERE series_id = ? AND t = ?"
#define ROLLUP_NEWEST(table) "SELECT t, count, base, min, max, last, sum FROM " table " " \
	"WHERE series_id = ? ORDER BY t DESC LIMIT 1"

static const char *const statements[ST_COUNT] = {
	[ST_SERIES_INSERT] = "INSERT INTO series (metric_id, set_id, first_ts) VALUES (?, ?, ?)",
	[ST_SERIES_LAST_CHUNK] = "UPDATE series SET last_chunk = ?2 WHERE id = ?1",
	[ST_CHUNK_INSERT] = "INSERT INTO chunk (series_id, min_ts, max_ts, npoints, data, "
			    "last_ts, last_value) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[ST_CHUNK_UPDATE] = "UPDATE chunk SET min_ts = ?2, max_ts = ?3, npoints = ?4, "
			    "data = ?5, last_ts = ?6, last_value = ?7 WHERE id = ?8",
	[ST_OPEN_UPDATE] = "UPDATE chunk SET min_ts = ?2, npoints = ?4, "
			   "data = ?5, last_ts = ?6, last_value = ?7 WHERE id = ?8",
	[ST_ROLLUP_1M] = ROLLUP_PUT("1m"),
	[ST_ROLLUP_10M] = ROLLUP_PUT("10m"),
	[ST_ROLLUP_1H] = ROLLUP_PUT("1h"),
	[ST_MERGE_1M] = ROLLUP_GET("rollup_1m_all"),
	[ST_MERGE_10M] = ROLLUP_GET("rollup_10m_data"),
	[ST_MERGE_1H] = ROLLUP_GET("rollup_1h_data"),
	[ST_SERIES_FIND] = "SELECT id, first_ts FROM series WHERE metric_id = ? AND set_id = ? "
			   "ORDER BY id LIMIT 1",
	[ST_LIVE_INSERT] = "INSERT OR IGNORE INTO series_live (series_id) VALUES (?)",
	[ST_LIVE_DELETE] = "DELETE FROM series_live WHERE series_id = ?",
	[ST_NEWEST_1M] = ROLLUP_NEWEST("rollup_1m_all"),
	[ST_RECOVER_MINUTES] = "SELECT t, count, base, min, max, last, sum FROM rollup_1m_all "
			       "WHERE series_id = ?1 AND t >= ?2 AND t < ?3 ORDER BY t",
	[ST_RECOVER_TENS] = "SELECT t, count, base, min, max, last, sum FROM rollup_10m_data "
			    "WHERE series_id = ?1 AND t >= ?2 AND t < ?3 ORDER BY t",
	[ST_RECOVER_CHUNKS] = "SELECT data, id, max_ts FROM chunk WHERE series_id = ? AND max_ts >= ? "
			      "ORDER BY id",
	/* a live series' newest chunk whose max_ts lies past its newest
	 * point: an open chunk's bound (only live series can have one: a
	 * series leaving memory gets its true max_ts in the same commit that
	 * deletes its live row), or (rarely) a point from before a clock step */
	[ST_BOUNDED_CHUNKS] = "SELECT c.id, c.data FROM series_live l JOIN series s ON s.id = l.series_id"
			      " JOIN chunk c ON c.id = s.last_chunk"
			      " WHERE c.last_ts IS NOT NULL AND c.max_ts > c.last_ts",
	[ST_SET_MAX_TS] = "UPDATE chunk SET max_ts = ?2 WHERE id = ?1",
	[ST_MARK] = "INSERT OR REPLACE INTO writer_mark (id, complete_to_ms) VALUES (1, ?)",
	[ST_TAIL_INSERT] = "INSERT INTO chunk_tail (data) VALUES (?)",
	[ST_TAIL_CLEAR] = "DELETE FROM chunk_tail",
	[ST_CHUNK_GET] = "SELECT data, npoints FROM chunk WHERE id = ?",
	[ST_TAIL_FOLD] = "UPDATE chunk SET data = ?2, npoints = ?3, last_ts = ?4, last_value = ?5"
			 " WHERE id = ?1",
	/* ST_CHUNK_UPDATE and ST_OPEN_UPDATE for a trimmed chunk: its new
	 * header ?5, the stored bytes ?10 from ?9, the bytes held ?11; no row
	 * changed when the stored bytes are not there (codec.h) */
	[ST_CHUNK_PIECE] = "UPDATE chunk SET min_ts = ?2, max_ts = ?3, npoints = ?4, "
			   "data = CAST(?5 || substr(data, ?9, ?10) || ?11 AS BLOB), "
			   "last_ts = ?6, last_value = ?7 WHERE id = ?8 AND length(data) >= ?9 + ?10 - 1",
	[ST_OPEN_PIECE] = "UPDATE chunk SET min_ts = ?2, npoints = ?4, "
			  "data = CAST(?5 || substr(data, ?9, ?10) || ?11 AS BLOB), "
			  "last_ts = ?6, last_value = ?7 WHERE id = ?8 AND length(data) >= ?9 + ?10 - 1",
};

/* Not part of the versioned schema (SCHEMA.md, "Completeness mark"): a
 * file without it is complete. */
static const char mark_table_sql[] =
	"CREATE TABLE IF NOT EXISTS writer_mark ("
	" id INTEGER PRIMARY KEY CHECK (id = 1),"
	" complete_to_ms INTEGER NOT NULL)";

void mw_store_options_init(struct mw_store_options *o)
{
	memset(o, 0, sizeof(*o));
	o->db_path = "memwatch.db";
	o->chunk_points = 720;
	o->chunk_duration_ms = 2 * 3600000;
	o->retention_raw_ms = 7 * 86400000LL;
	o->retention_1m_ms = 90 * 86400000LL;
	o->retention_1h_ms = 730 * 86400000LL;
	o->max_pending_points = 1000000;
	o->self_metrics = true;
	o->series_idle_ms = MW_STORE_SERIES_IDLE_MS;
	o->cache_bytes = 256u << 10;	/* [storage] cache_size */
	o->regions_keyframe_every = 64;
	o->max_pending_region_bytes = 64u << 20;
	o->full_check_every_ms = MW_FULL_CHECK_EVERY_MS;
	o->full_check_background_from = MW_FULL_CHECK_BACKGROUND_FROM;
}

void mw_store_options_from_config(struct mw_store_options *o, const struct mw_config *cfg)
{
	mw_store_options_init(o);
	if (cfg->db_path && *cfg->db_path)
		o->db_path = cfg->db_path;
	if (cfg->chunk_points > 1)
		o->chunk_points = cfg->chunk_points;
	if (cfg->chunk_duration_ms > 0)
		o->chunk_duration_ms = cfg->chunk_duration_ms;
	o->retention_raw_ms = cfg->retention_raw_ms;
	o->retention_1m_ms = cfg->retention_1m_ms;
	o->retention_1h_ms = cfg->retention_1h_ms;
	o->max_db_bytes = cfg->max_db_bytes;
	if (cfg->series_idle_ms > 0)
		o->series_idle_ms = cfg->series_idle_ms;
	if (cfg->cache_bytes > 0)
		o->cache_bytes = cfg->cache_bytes;
	o->full_check_every_ms = cfg->full_check_every_ms;
	o->full_check_background_from = cfg->full_check_background_from > INT64_MAX ?
		INT64_MAX : (int64_t)cfg->full_check_background_from;
}

/* ---- points -------------------------------------------------------------- */

/* A chunk chunk_tail holds bits of is no longer written through it. */
static void note_tail_left(struct mw_store *s, int64_t rowid)
{
	MW_GROW(s->tail_left, s->tail_left_cap, s->ntail_left + 1);
	s->tail_left[s->ntail_left++] = rowid;
}

static void close_chunk(struct mw_store *s, struct mw_series *se)
{
	struct mw_pending_chunk *c;
	size_t len;

	MW_GROW(s->chunks, s->chunks_cap, s->nchunks + 1);
	c = &s->chunks[s->nchunks++];
	c->series = se;
	c->rowid = se->open_rowid;
	c->n = se->open.n;
	c->flushed = se->open_flushed;
	c->min_ts = se->open.t_min;
	c->max_ts = se->open.t_max;
	c->last_ts = mw_chunk_enc_last_ts(&se->open);
	c->last_value = mw_chunk_enc_last_value(&se->open);
	/* The encoder's buffer goes with the chunk (freed after the flush):
	 * no copy of every series' chunk at once as their chunks close
	 * together (300 processes: ~5,200 chunks of ~300 bytes each 12
	 * minutes), and the next chunk's buffer grows from empty, so at rest
	 * each holds what its points need, not the largest chunk it had.  A
	 * trimmed chunk's piece (a fold's bytes) is copied instead, and its
	 * block kept for the next chunk (codec.h). */
	c->base = se->open.base;
	c->base_head = se->open.base_head;
	c->head = (uint8_t)mw_chunk_head_len(se->open.n);
	c->data = mw_chunk_enc_take(&se->open, &len);
	c->len = len;
	if (se->tail_pending)
		note_tail_left(s, se->open_rowid);
	se->open_rowid = 0;
	se->open_writes = 0;
	se->open_flushed = 0;
	se->tail_pending = false;
}

int64_t mw_store_now(const struct mw_store *s)
{
	return s->now_ts;
}

/* Add one point to se, or to the series of key (found or created) when
 * se is NULL.  Returns the series. */
static struct mw_series *add_point(struct mw_store *s, struct mw_series *se, const char *key,
				   const char *metric, const struct mw_label *labels,
				   size_t nlabels, int64_t ts_ms, double value)
{
	struct mw_chunk_enc *e;

	mw_store_saw(s, ts_ms);
	s->pending++;
	if (!se)
		se = mw_series_get(s, key);
	if (!se)
		se = mw_series_create(s, key, metric, labels, nlabels);
	se->seen = s->now_ts;
	if (!se->id && ts_ms < se->first_ts)
		se->first_ts = ts_ms;
	if (se->take_up)
		mw_series_take_up(s, se);
	e = &se->open;
	/* a trimmed chunk cannot be encoded again as floats: it closes */
	if (e->n && ((int64_t)e->n >= s->opt.chunk_points ||
		     ts_ms - e->t_first >= s->opt.chunk_duration_ms ||
		     e->t_first - ts_ms >= s->opt.chunk_duration_ms ||
		     (mw_chunk_enc_trimmed(e) && mw_chunk_enc_switches(e, value))))
		close_chunk(s, se);
	mw_chunk_enc_append(e, ts_ms, value);
	mw_rollup_point(s, se, ts_ms, value);
	return se;
}

void mw_store_add(struct mw_store *s, const char *key, const char *metric,
		  const struct mw_label *labels, size_t nlabels,
		  int64_t ts_ms, double value)
{
	struct mw_series *se;
	int rc;

	if (!s->opt.skip_stored) {
		add_point(s, NULL, key, metric, labels, nlabels, ts_ms, value);
		return;
	}
	se = mw_series_get(s, key);
	rc = se ? mw_dedupe_check(s, se, ts_ms) : 0;
	if (rc == 1) {
		/* a flush may drop idle series from memory: find it again */
		if (mw_store_flush(s, NULL) == 0)
			se = mw_series_get(s, key);
		rc = se && !s->failing ? mw_dedupe_check(s, se, ts_ms) : 0;
	}
	if (rc == 2) {
		s->stats.skipped_points_total++;
		return;
	}
	if (!se) {
		se = add_point(s, NULL, key, metric, labels, nlabels, ts_ms, value);
		mw_dedupe_added(s, se, ts_ms);
		return;
	}
	add_point(s, se, key, metric, labels, nlabels, ts_ms, value);
}

/*
 * Ahead of the series at pos, the ones to come: a tick touches every
 * series once, each in its own heap block, so nearly every series is a
 * cache miss (its struct, then the end of its chunk's bit buffer).
 * Fetching the struct PREFETCH_AHEAD samples ahead and the buffer half as
 * far ahead lets those misses overlap.
 */
#define PREFETCH_AHEAD 8

/* Every cache line of se, the last included (a heap block is 16-byte
 * aligned, so it may spill into one more): a point touches nearly all of
 * it (key check, chunk encoder, the rollup tiers), a flush most. */
static void prefetch_whole(const struct mw_series *se)
{
	const char *at = (const char *)se;
	size_t off;

	for (off = 0; off < sizeof(*se); off += 64)
		__builtin_prefetch(at + off);
	__builtin_prefetch(at + sizeof(*se) - 1);
}

static void prefetch_series(const struct mw_store *s, size_t pos)
{
	const struct mw_series *far, *near;

	if (pos + PREFETCH_AHEAD < s->norder && (far = s->order[pos + PREFETCH_AHEAD]))
		prefetch_whole(far);
	if (pos + PREFETCH_AHEAD / 2 < s->norder && (near = s->order[pos + PREFETCH_AHEAD / 2]) &&
	    near->open.buf)
		__builtin_prefetch(near->open.buf + mw_chunk_enc_tail(&near->open), 1);
}

void mw_store_add_batch(struct mw_store *s, const struct mw_batch *b)
{
	struct mw_series **swap;
	size_t i, pos = 0, cap;

	MW_GROW(s->order_next, s->order_next_cap, b->nsamples);
	s->norder_next = 0;
	s->in_batch = true;
	for (i = 0; i < b->nsamples; i++) {
		const struct mw_sample *p = &b->samples[i];
		struct mw_series *hint = pos < s->norder ? s->order[pos] : NULL, *se;

		prefetch_series(s, pos);
		if (hint && p->tail_id && hint->tail_id == p->tail_id &&
		    hint->tail_metric == p->metric) {
			se = add_point(s, hint, NULL, NULL, NULL, 0, p->ts_ms, p->value);
			pos++;
		} else {
			/* the key text, put together only here (a keyed
			 * sample carries its metric and tail apart) */
			char buf[512], *heap;
			const char *key = mw_sample_key(p, buf, sizeof(buf), &heap);

			if (hint && !strcmp(hint->key, key)) {
				se = add_point(s, hint, NULL, NULL, NULL, 0, p->ts_ms, p->value);
				pos++;
			} else {
				se = add_point(s, NULL, key, p->metric, p->labels, p->nlabels,
					       p->ts_ms, p->value);
				/* re-align after a process came or went */
				if (se->order_pos < s->norder && s->order[se->order_pos] == se)
					pos = se->order_pos + 1;
			}
			free(heap);
		}
		if (se->tail_id != p->tail_id)
			se->ended = false;	/* its keys were made again: a new run */
		se->tail_id = p->tail_id;
		se->tail_metric = p->tail_id ? p->metric : NULL;
		se->order_pos = s->norder_next;
		s->order_next[s->norder_next++] = se;
	}
	s->in_batch = false;
	mw_series_batch_done(s);
	if (b->nsamples) {	/* batches without samples keep the order */
		swap = s->order;
		cap = s->order_cap;
		s->order = s->order_next;
		s->order_cap = s->order_next_cap;
		s->norder = s->norder_next;
		s->order_next = swap;
		s->order_next_cap = cap;
	}
	s->norder_next = 0;
	for (i = 0; i < b->ndetails; i++)
		if (!strcmp(b->details[i].kind, "workingset.regions"))
			mw_store_add_regions(s, &b->details[i]);
		else if (!strcmp(b->details[i].kind, MW_EXIT_REPORT_DETAIL))
			mw_store_add_exit_report(s, &b->details[i]);
		else if (!strcmp(b->details[i].kind, MW_SERIES_ENDED_DETAIL))
			mw_store_note_ended(s, &b->details[i]);
}

void mw_store_count_dropped(struct mw_store *s, uint64_t npoints)
{
	s->stats.dropped_points_total += npoints;
}

static void self_point(struct mw_store *s, const char *metric, double v, int64_t now_ms)
{
	char key[128];

	mw_series_key_format(key, sizeof(key), metric, NULL, 0);
	mw_store_add(s, key, metric, NULL, 0, now_ms, v);
}

/* A step of the wall clock noticed since the last flush, as one point at
 * the time it was noticed: the leak judge reads them to tell a hole a step
 * forward left from missing data (analysis/leak_steps.c). */
static void store_clock_step(struct mw_store *s)
{
	struct mw_clock_step step;
	uint64_t n = mw_clock_step_poll();

	if (n == s->clock_steps || !mw_clock_step_last(&step))
		return;
	s->clock_steps = n;
	self_point(s, mw_metric_name(MW_M_CLOCK_STEP_SECONDS), (double)step.step_ms / 1000.0,
		   step.wall_ms);
}

void mw_store_add_self_metrics(struct mw_store *s, int64_t now_ms)
{
	struct mw_query_stats q;

	mw_query_stats_get(&q);
	self_point(s, mw_metric_name(MW_M_STORAGE_POINTS_TOTAL), (double)s->stats.points_total, now_ms);
	self_point(s, mw_metric_name(MW_M_STORAGE_DROPPED_POINTS_TOTAL),
		   (double)s->stats.dropped_points_total, now_ms);
	self_point(s, mw_metric_name(MW_M_STORAGE_DB_BYTES), (double)s->stats.db_bytes, now_ms);
	self_point(s, mw_metric_name(MW_M_STORAGE_SERIES), (double)s->stats.series, now_ms);
	self_point(s, mw_metric_name(MW_M_STORAGE_SERIES_EVICTED_TOTAL),
		   (double)s->stats.series_evicted_total, now_ms);
	self_point(s, mw_metric_name(MW_M_STORAGE_FLUSH_SECONDS), (double)s->stats.last_flush_ns / 1e9,
		   now_ms);
	self_point(s, mw_metric_name(MW_M_STORAGE_QUERIES_TOTAL), (double)q.queries, now_ms);
	self_point(s, mw_metric_name(MW_M_STORAGE_QUERY_SECONDS_TOTAL), (double)q.total_ns / 1e9, now_ms);
	store_clock_step(s);
}

/* ---- flushing ------------------------------------------------------------ */

static int64_t series_id(const struct mw_series *se)
{
	return se->id ? se->id : se->tx_id;
}

/* A chunk's bytes for write_chunk: its blob, or a piece of a trimmed
 * chunk (codec.h) with where it goes in the stored row. */
struct chunk_bytes {
	const uint8_t *data;
	size_t len, head;	/* head: a piece's header length */
	uint32_t base;		/* 0: data is the whole blob */
	uint8_t base_head;
};

/* A piece whose stored bytes are not in its row (never, unless the file
 * was changed behind the writer): the points only the piece held are
 * lost, the chunk's row keeps what it had. */
static void piece_lost(struct mw_series *se, int64_t rowid)
{
	mw_log_error("storage: chunk %lld of '%s' lacks the bytes written to it before; the "
		     "points it got since its last whole write are lost", (long long)rowid,
		     se->key);
}

/* Write one chunk: rewrite its row, or insert it; *rowid is updated.
 * keep: the row has max_ts already (an open chunk's bound): not written
 * again, so its index entry stays put.  1: a piece's row lacked its
 * stored bytes (piece_lost; nothing written). */
static int write_chunk(struct mw_store *s, struct mw_series *se, int64_t *rowid, bool keep,
		       const struct chunk_bytes *b, uint32_t n, int64_t min_ts,
		       int64_t max_ts, int64_t last_ts, double last_value, struct mw_err *err)
{
	bool piece = b->base > 0 && *rowid;
	sqlite3_stmt *st = s->st[!*rowid ? ST_CHUNK_INSERT
				 : keep ? (piece ? ST_OPEN_PIECE : ST_OPEN_UPDATE)
				 : (piece ? ST_CHUNK_PIECE : ST_CHUNK_UPDATE)];

	if (b->base > 0 && !*rowid) {
		piece_lost(se, 0);
		return 1;	/* a piece needs its row (never: trimmed once written) */
	}
	sqlite3_bind_int64(st, 1, series_id(se));
	sqlite3_bind_int64(st, 2, min_ts);
	sqlite3_bind_int64(st, 3, max_ts);
	sqlite3_bind_int64(st, 4, n);
	if (piece) {
		sqlite3_bind_blob(st, 5, b->data, (int)b->head, SQLITE_STATIC);
		sqlite3_bind_int64(st, 9, (int64_t)b->base_head + 1);
		sqlite3_bind_int64(st, 10, b->base);
		sqlite3_bind_blob(st, 11, b->data + b->head, (int)(b->len - b->head),
				  SQLITE_STATIC);
	} else {
		sqlite3_bind_blob(st, 5, b->data, (int)b->len, SQLITE_STATIC);
	}
	if (last_ts == max_ts)
		sqlite3_bind_null(st, 6);	/* the usual case: 1 byte less 6 */
	else
		sqlite3_bind_int64(st, 6, last_ts);
	sqlite3_bind_double(st, 7, last_value);
	if (*rowid) {
		sqlite3_bind_int64(st, 8, *rowid);
		if (mw_store_step_done(s, st, "chunk", se->key, err))
			return -1;
		if (sqlite3_changes(s->db) > 0)
			return 0;
		if (piece) {
			piece_lost(se, *rowid);
			return 1;
		}
		/* the row was removed (size limit): insert it again */
		*rowid = 0;
		return write_chunk(s, se, rowid, keep, b, n, min_ts, max_ts, last_ts,
				   last_value, err);
	}
	if (mw_store_step_done(s, st, "chunk", se->key, err))
		return -1;
	*rowid = sqlite3_last_insert_rowid(s->db);
	st = s->st[ST_SERIES_LAST_CHUNK];
	sqlite3_bind_int64(st, 1, series_id(se));
	sqlite3_bind_int64(st, 2, *rowid);
	return mw_store_step_done(s, st, "series", se->key, err);
}

static int write_rollup(struct mw_store *s, const struct mw_pending_rollup *r,
			struct mw_err *err)
{
	struct mw_rollup_acc a;

	if (r->derive)
		return mw_rollup_derive(s, series_id(r->series), r->series->key, r->tier, r->ts,
					err);
	a.bucket = r->ts;
	a.min = r->min;
	a.max = r->max;
	a.sum = r->sum;
	a.last = r->last;
	a.count = r->count;
	return mw_rollup_write(s, series_id(r->series), r->series->key, r->tier,
				     r->merge, &a, err);
}

/*
 * Series idle for series_idle_ms leave memory with this flush: their open
 * chunk is written as for every series, and their series_live row is
 * deleted.  Their buckets in progress are not written: the raw points
 * hold them (readers roll up from raw what the tiers lack), and they are
 * rolled up when retention removes those raw points (retention.c) or
 * rebuilt when the series comes back; so a process that lived seconds
 * costs no rollup rows for a week.  Nothing is freed before the
 * transaction commits.  (write_all marks them, in its pass over every
 * series: each pass over all series is a cache miss per series.)
 */
static bool is_idle(const struct mw_store *s, const struct mw_series *se)
{
	return s->opt.series_idle_ms > 0 && s->now_ts != INT64_MIN && se->id &&
	       !(se->seen != INT64_MIN && s->now_ts - se->seen <= s->opt.series_idle_ms);
}

/*
 * The 1-minute bucket in progress of a series that received no point
 * since the last commit, if it has points not written: so a process that
 * ended keeps its last minute whatever happens next (a crash, a restart
 * that rebuilds the bucket from raw points does the same at its first
 * flush).  The row is replaced if the series resumes in that minute (the
 * completed bucket, mw_rollup_point), and a crash rebuilds the bucket whole
 * from the raw points (series.c starts from the newest stored bucket), so
 * a partial row is never added to twice.  Once stored in progress, the row
 * is kept whole by every flush that adds to the bucket.  Every minute
 * before a series' newest stored one is thus stored whole: the 10 minutes
 * and the hours are derived from them (rollup_acc.c).
 */
static int write_quiet_minute(struct mw_store *s, struct mw_series *se, struct mw_err *err)
{
	if (!se->minute_unsaved || se->minute.bucket == INT64_MIN)
		return 0;
	/* a series with points in this flush: only to keep a row stored in
	 * progress whole (readers take a stored bucket as it is, and read raw
	 * points only after it) */
	if (se->open.n != se->open_flushed && se->minute_row != se->minute.bucket)
		return 0;
	se->tx_minute_saved = true;
	return mw_rollup_write(s, series_id(se), se->key, 0, false, &se->minute, err);
}

/*
 * The open chunk of se, if it has points not written or its row still
 * carries the bound and the chunk is done with (its series leaving memory,
 * the store closing).  Its first OPEN_BOUND_FROM - 1 writes put the true
 * max_ts (a series that lives seconds never has a last_ts, nor a row that
 * shrinks when it leaves); the next puts the bound (its index entry moves
 * once more); the writes after it leave max_ts alone; the last puts the
 * true max_ts.
 */
#define OPEN_BOUND_FROM MW_OPEN_BOUND_FROM

static int write_open(struct mw_store *s, struct mw_series *se, uint64_t *points,
		      struct mw_err *err)
{
	bool last = se->evicting || s->closing;
	bool bounded = se->open_writes >= OPEN_BOUND_FROM;
	int64_t max = se->open.t_max;
	struct chunk_bytes b;
	int rc;

	se->tx_open_rowid = se->open_rowid;
	se->tx_open_writes = se->open_writes;
	if (se->open.n == se->open_flushed && !(last && bounded) &&
	    !(s->tail_fold && se->tail_pending))
		return 0;
	if (!last && !s->tail_fold && bounded && se->open_rowid &&
	    se->open.n > se->open_flushed && se->open.is_float == se->tail_float &&
	    se->open.t_min == se->tail_min) {
		/* the new bits only, from the byte holding the first of them
		 * (chunk_tail.h); the row keeps its bound, its data stale */
		size_t from = se->tail_bits / 8, to = (se->open.nbits + 7) / 8;

		mw_tail_row_put(&s->tail_row, se->open_rowid, from,
				se->open.buf + mw_chunk_enc_tail(&se->open) -
					(se->open.nbits >> 3) + from,
				to - from, se->open.n, mw_chunk_enc_last_ts(&se->open),
				mw_chunk_enc_last_value(&se->open));
		se->tx_tail = 1;
		*points += se->open.n - se->open_flushed;
		return 0;
	}
	if (last && se->tail_pending)
		note_tail_left(s, se->open_rowid);
	if (se->tx_open_writes < OPEN_BOUND_FROM)
		se->tx_open_writes++;
	if (last)
		se->tx_open_writes = 0;	/* true max_ts: no bound to put right */
	else if (se->tx_open_writes >= OPEN_BOUND_FROM)
		max = mw_store_open_bound(s, &se->open);
	b.data = mw_chunk_enc_piece(&se->open, &b.len, &b.head);
	b.base = se->open.base;
	b.base_head = se->open.base_head;
	rc = write_chunk(s, se, &se->tx_open_rowid, !last && bounded, &b, se->open.n,
			 se->open.t_min, max, mw_chunk_enc_last_ts(&se->open),
			 mw_chunk_enc_last_value(&se->open), err);
	if (rc < 0)
		return -1;
	if (rc > 0) {
		/* its row lacks what the piece goes around: a new chunk
		 * from the next point */
		mw_chunk_enc_reset(&se->open);
		se->tx_open_rowid = 0;
		se->tx_open_writes = 0;
		se->open_flushed = 0;
		return 0;
	}
	se->tx_tail = 2;
	*points += se->open.n - se->open_flushed;
	return 0;
}

/* The flush's chunk_tail row, or (a fold) chunk_tail emptied. */
static int write_tails(struct mw_store *s, struct mw_err *err)
{
	sqlite3_stmt *st = s->st[ST_TAIL_INSERT];

	if (s->tail_fold)
		return mw_store_step_done(s, s->st[ST_TAIL_CLEAR], "chunk_tail", s->db_path, err);
	if (!s->tail_row.len)
		return 0;
	sqlite3_bind_blob(st, 1, s->tail_row.buf, (int)s->tail_row.len, SQLITE_STATIC);
	return mw_store_step_done(s, st, "chunk_tail", s->db_path, err);
}

static int write_all(struct mw_store *s, uint64_t *points, struct mw_err *err)
{
	size_t i;

	if (mw_series_insert_new(s, err))
		return -1;
	/* closed chunks before the open ones: a series' last_chunk is the
	 * chunk row inserted last */
	for (i = 0; i < s->nchunks; i++) {
		struct mw_pending_chunk *c = &s->chunks[i];
		int64_t rowid = c->rowid;

		struct chunk_bytes b = { c->data, c->len, c->head, c->base, c->base_head };
		int rc = write_chunk(s, c->series, &rowid, false, &b, c->n, c->min_ts,
				     c->max_ts, c->last_ts, c->last_value, err);

		if (rc < 0)
			return -1;
		if (rc == 0)
			*points += c->n - c->flushed;
	}
	for (i = 0; i < s->nall; i++) {
		struct mw_series *se = s->all[i];

		if (i + PREFETCH_AHEAD < s->nall)
			prefetch_whole(s->all[i + PREFETCH_AHEAD]);
		if (s->nended && !se->ended && mw_store_tail_ended(s, se->tail_id))
			se->ended = true;
		if (!se->evicting && (is_idle(s, se) || (se->ended && se->id)))
			se->evicting = true;
		if (se->live_row != !se->evicting) {
			sqlite3_stmt *st = s->st[se->evicting ? ST_LIVE_DELETE : ST_LIVE_INSERT];

			sqlite3_bind_int64(st, 1, series_id(se));
			if (mw_store_step_done(s, st, "series_live", se->key, err))
				return -1;
		}
		if (write_quiet_minute(s, se, err) || write_open(s, se, points, err))
			return -1;
	}
	for (i = 0; i < s->nrollups; i++)
		if (write_rollup(s, &s->rollups[i], err))
			return -1;
	if (write_tails(s, err))
		return -1;
	if (s->mark_ms != INT64_MIN) {
		sqlite3_bind_int64(s->st[ST_MARK], 1, s->mark_ms);
		if (mw_store_step_done(s, s->st[ST_MARK], "writer_mark", s->db_path, err))
			return -1;
	}
	return mw_rg_store_write(s, err);
}

static void update_db_bytes(struct mw_store *s)
{
	int64_t pages = mw_db_int(s->db, "PRAGMA page_count");
	int64_t size = mw_db_int(s->db, "PRAGMA page_size");

	if (pages >= 0 && size > 0)
		s->stats.db_bytes = pages * size;
}

/* After a failed flush: keep what fits in max_pending_points. */
static void shed_pending(struct mw_store *s)
{
	uint64_t pending = s->pending, dropped = 0;
	size_t i, k = 0;

	for (i = 0; i < s->nchunks; i++) {
		struct mw_pending_chunk *c = &s->chunks[i];

		if (pending > s->opt.max_pending_points) {
			pending -= c->n - c->flushed;
			dropped += c->n - c->flushed;
			free(c->data);
		} else {
			s->chunks[k++] = *c;
		}
	}
	s->nchunks = k;
	if (s->nrollups > s->opt.max_pending_points / 16 + 1024) {
		size_t drop = s->nrollups - (s->opt.max_pending_points / 16 + 1024);

		memmove(s->rollups, s->rollups + drop,
			(s->nrollups - drop) * sizeof(*s->rollups));
		s->nrollups -= drop;
	}
	s->pending -= dropped;
	s->stats.dropped_points_total += dropped;
	s->dropped_while_failing += dropped;
}

/*
 * Before each flush: is the file at db_path still the one open?  Deleted or
 * replaced, everything written to it would be lost when the daemon stops:
 * the flush fails instead (/healthz degraded, with this reason; points
 * kept in memory up to max_pending_points), and an error is logged once.
 */
static int check_file(struct mw_store *s, struct mw_err *err)
{
	if (!s->lock || mw_dblock_check(s->lock, s->db_path, err) == 0)
		return 0;
	if (!s->file_lost)
		mw_log_error("storage: %s", err->msg);
	s->file_lost = true;
	return -1;
}

/* The pending queues' memory kept between flushes: 256 KB, from where a
 * block is its own mapping on Linux (heap_tune_linux.c), given back to the
 * system when freed. */
#define QUEUE_KEEP_BYTES (256 * 1024)

int mw_store_flush(struct mw_store *s, struct mw_err *err)
{
	int64_t t0 = mw_clock_mono_ns();
	uint64_t points = 0;
	struct mw_err why;
	size_t i;

	s->now_cap = mw_clock_wall_ms() + MW_STORE_NOW_SLACK_MS;
	/* every MW_TAIL_FOLD_EVERY-th flush, the last one, and every flush of
	 * an import rewrite the open chunks whole (chunk_tail.h) */
	s->tail_fold = s->closing || s->opt.skip_stored ||
		       (s->stats.flushes + 1) % MW_TAIL_FOLD_EVERY == 0;
	mw_tail_row_clear(&s->tail_row);
	if (check_file(s, &why) ||
	    mw_db_exec(s->db, "BEGIN IMMEDIATE", &why) || write_all(s, &points, &why) ||
	    mw_db_exec(s->db, "COMMIT", &why)) {
		if (!sqlite3_get_autocommit(s->db))
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		for (i = 0; i < s->nall; i++) {
			s->all[i]->tx_id = 0;
			s->all[i]->evicting = false;
			s->all[i]->tx_minute_saved = false;
			s->all[i]->tx_tail = 0;
		}
		shed_pending(s);
		mw_rg_store_failed(s);
		s->stats.failed_flushes++;
		if (!s->failing)
			mw_log_warn("storage: cannot write to '%s' (%s); keeping up to %llu "
				    "points in memory and retrying, beyond that points are "
				    "dropped and counted", s->db_path, why.msg,
				    (unsigned long long)s->opt.max_pending_points);
		s->failing = true;
		if (err)
			*err = why;
		return -1;
	}
	/* backwards: a dropped series' slot takes the last one, seen already */
	s->stats.open_chunk_bytes = 0;
	for (i = s->nall; i-- > 0;) {
		struct mw_series *se = s->all[i];

		if (i >= PREFETCH_AHEAD)
			prefetch_whole(s->all[i - PREFETCH_AHEAD]);
		if (se->evicting) {
			mw_series_drop(s, se);
			s->stats.series_evicted_total++;
			continue;
		}
		if (se->tx_id) {
			se->id = se->tx_id;
			se->tx_id = 0;
		}
		se->open_rowid = se->tx_open_rowid;
		se->open_writes = se->tx_open_writes;
		se->open_flushed = se->open.n;
		if (se->tx_tail) {
			/* its row holds the whole chunk now, and its next whole
			 * write is a fold or more away: the encoder keeps only
			 * the bytes to come (codec.h; an import writes whole
			 * at every flush) */
			if (se->tx_tail == 2 && se->open_writes >= OPEN_BOUND_FROM &&
			    !s->opt.skip_stored)
				mw_chunk_enc_trim(&se->open);
			se->tail_bits = se->open.nbits;
			se->tail_min = se->open.t_min;
			se->tail_float = se->open.is_float;
			se->tail_pending = se->tx_tail == 1;
			se->tx_tail = 0;
		}
		s->stats.open_chunk_bytes += se->open.cap;
		if (se->tx_minute_saved) {
			se->minute_unsaved = se->tx_minute_saved = false;
			se->minute_row = se->minute.bucket;
		}
		se->live_row = true;
		mw_dedupe_committed(se);
	}
	mw_store_ended_committed(s);
	if (s->tail_fold)
		s->ntail_left = 0;
	for (i = 0; i < s->nchunks; i++)
		free(s->chunks[i].data);
	s->nchunks = 0;
	s->nrollups = 0;
	/* Both queues fill at bucket and chunk boundaries, every series at
	 * once (300 processes: ~5,200 rows a minute, 16,384 slots of 64
	 * bytes after an hour's boundary, 1 MB), and are empty between
	 * them; kept, that 1 MB stayed resident at rest. */
	MW_RELEASE_IF_OVER(s->rollups, s->rollups_cap, QUEUE_KEEP_BYTES);
	MW_RELEASE_IF_OVER(s->chunks, s->chunks_cap, QUEUE_KEEP_BYTES);
	s->pending = 0;
	s->unsaved = 0;
	mw_rg_store_committed(s);
	if (s->failing) {
		mw_log_info("storage: writing to '%s' again; %llu points were dropped "
			    "meanwhile", s->db_path,
			    (unsigned long long)s->dropped_while_failing);
		s->failing = false;
		s->dropped_while_failing = 0;
	}
	s->stats.points_total += points;
	s->stats.flushes++;
	update_db_bytes(s);
	s->stats.last_flush_ns = mw_clock_mono_ns() - t0;
	return 0;
}

/* ---- lifecycle ----------------------------------------------------------- */

/*
 * Checkpoints: SQLite's default copies the WAL back into the database
 * once it holds 1,000 pages.  A flush rewrites every live series' open
 * chunk, so at 14,000 series each commit put ~800 pages in the WAL and
 * nearly every flush was followed by a checkpoint writing those same
 * pages again (a tenth of the writer's CPU).  Checkpointing after every
 * CHECKPOINT_COMMITS commits writes each of those hot pages once per
 * CHECKPOINT_COMMITS flushes instead.  Those checkpoints are PASSIVE:
 * they never wait for a reader.  Durability is the WAL's either way
 * (synchronous = FULL syncs it at every commit).
 *
 * Why the WAL is also truncated: a passive checkpoint copies pages back
 * but the WAL file only starts over when a commit finds no reader using
 * it, and with readers always present (a dashboard, a querier) that never
 * happened: the WAL grew without end (1.2 GB after 909 crashes), and
 * every start-up read all of it (WAL recovery, then quick_check through
 * it), slower at every restart.  So the store truncates the WAL (a
 * TRUNCATE checkpoint, which waits for the readers of older snapshots to
 * finish; new readers read the database file and do not hold it up) at
 * start-up, and whenever a commit leaves it above WAL_MAX_FRAMES (4 KB
 * pages: 32 MB).  Readers run bounded queries, so the wait is short; it is
 * bounded by WAL_TRUNCATE_WAIT_MS, and a truncation that could not finish
 * (a reader holding one snapshot that long) is tried again
 * CHECKPOINT_COMMITS commits later.  journal_size_limit caps what a WAL
 * that started over keeps on disk.
 */
#define CHECKPOINT_COMMITS 8
#define WAL_MAX_FRAMES 8192
#define WAL_TRUNCATE_WAIT_MS 1000
#define WAL_SIZE_LIMIT "33554432"

/* A TRUNCATE checkpoint waiting at most wait_ms for readers; 0 when the
 * WAL was emptied. */
static int truncate_wal(sqlite3 *db, const char *name, int wait_ms)
{
	int rc;

	sqlite3_busy_timeout(db, wait_ms);
	rc = sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	sqlite3_busy_timeout(db, MW_BUSY_TIMEOUT_MS);
	return rc == SQLITE_OK ? 0 : -1;
}

static int wal_committed(void *arg, sqlite3 *db, const char *name, int frames)
{
	struct mw_store *s = arg;

	bool big = frames >= WAL_MAX_FRAMES;

	/* a big WAL at once, unless the last truncation failed (a reader held
	 * on): then not before CHECKPOINT_COMMITS commits, as the rest */
	if (++s->commits_since_checkpoint < CHECKPOINT_COMMITS && !(big && !s->truncate_failed))
		return SQLITE_OK;
	s->commits_since_checkpoint = 0;
	s->stats.checkpoints++;
	s->truncate_failed = big && truncate_wal(db, name, WAL_TRUNCATE_WAIT_MS) != 0;
	if (big && !s->truncate_failed)
		return SQLITE_OK;
	sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	return SQLITE_OK;	/* a checkpoint that could not finish is retried later */
}

/*
 * What a crash left in chunk_tail goes into the chunks it belongs to,
 * before anything reads them (the series load, fix_open_bounds, dedupe):
 * the writer's own reads never merge tails.
 */
static int fold_tails(struct mw_store *s, struct mw_err *err)
{
	sqlite3_stmt *get = s->st[ST_CHUNK_GET], *set = s->st[ST_TAIL_FOLD];
	struct mw_tail_scratch sc = { NULL, 0 };
	struct mw_tail_map *m;
	const int64_t *ids;
	size_t n, i;
	int rc = 0;

	if (mw_tail_map_load(s->db, &m, err))
		return -1;
	ids = mw_tail_map_ids(m, &n);
	if (mw_db_exec(s->db, "BEGIN IMMEDIATE", err)) {
		mw_tail_map_free(m);
		return -1;
	}
	for (i = 0; i < n && !rc; i++) {
		const uint8_t *blob;
		size_t len;
		int64_t ts, npoints;
		double v;

		sqlite3_bind_int64(get, 1, ids[i]);
		if ((rc = sqlite3_step(get)) != SQLITE_ROW) {
			rc = rc == SQLITE_DONE ? 0 : -1;	/* a chunk gone: nothing to add to */
			sqlite3_reset(get);
			continue;
		}
		rc = 0;
		len = (size_t)sqlite3_column_bytes(get, 0);
		blob = mw_tail_merge(m, ids[i], sqlite3_column_blob(get, 0), &len, &sc);
		if (mw_tail_newest(m, ids[i], sqlite3_column_int64(get, 1), &ts, &v, &npoints)) {
			sqlite3_bind_int64(set, 1, ids[i]);
			sqlite3_bind_blob(set, 2, blob, (int)len, SQLITE_TRANSIENT);
			sqlite3_bind_int64(set, 3, npoints);
			sqlite3_bind_int64(set, 4, ts);
			sqlite3_bind_double(set, 5, v);
			rc = sqlite3_step(set) == SQLITE_DONE ? 0 : -1;
			sqlite3_reset(set);
		}
		sqlite3_reset(get);
	}
	free(sc.buf);
	mw_tail_map_free(m);
	if (rc || mw_store_step_done(s, s->st[ST_TAIL_CLEAR], "chunk_tail", s->db_path, err)) {
		if (rc)
			mw_error(err, "cannot fold the chunk tails into their chunks: %s",
				 sqlite3_errmsg(s->db));
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return mw_db_exec(s->db, "COMMIT", err);
}

/* The rows of the open chunks the series load took up with their bound
 * (series_state.c keep_bound). */
static void kept_bounds(const struct mw_store *s, struct mw_id_set *kept)
{
	size_t i;

	for (i = 0; i < s->nall; i++)
		if (s->all[i]->open_writes >= OPEN_BOUND_FROM)
			mw_id_set_add(kept, s->all[i]->open_rowid);
	mw_id_set_sort(kept);
}

/* Chunks a stop or a crash left open get their true max_ts, but those
 * taken up again with their bound (after the series load). */
static int fix_open_bounds(struct mw_store *s, struct mw_err *err)
{
	sqlite3_stmt *sel = s->st[ST_BOUNDED_CHUNKS], *set = s->st[ST_SET_MAX_TS];
	struct mw_id_set kept = { NULL, 0, 0 };
	int rc;

	if (mw_db_exec(s->db, "BEGIN IMMEDIATE", err))
		return -1;
	kept_bounds(s, &kept);
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		struct mw_chunk_dec d;
		int64_t ts, max = INT64_MIN, id = sqlite3_column_int64(sel, 0);
		double v;

		if (mw_id_set_has(&kept, id))
			continue;
		if (mw_chunk_dec_init(&d, sqlite3_column_blob(sel, 1),
				      (size_t)sqlite3_column_bytes(sel, 1)))
			continue;	/* a damaged chunk: left to the readers */
		while (mw_chunk_dec_next(&d, &ts, &v) == 1)
			if (ts > max)
				max = ts;
		if (max == INT64_MIN)
			continue;
		sqlite3_bind_int64(set, 1, id);
		sqlite3_bind_int64(set, 2, max);
		if (sqlite3_step(set) != SQLITE_DONE)
			rc = SQLITE_ERROR;
		sqlite3_reset(set);
		if (rc == SQLITE_ERROR)
			break;
	}
	sqlite3_reset(sel);
	mw_id_set_release(&kept);
	if (rc != SQLITE_DONE) {
		mw_error(err, "cannot close the chunks left open: %s", sqlite3_errmsg(s->db));
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return mw_db_exec(s->db, "COMMIT", err);
}

static int open_once(struct mw_store **out, const struct mw_store_options *o, bool *deferred,
		     struct mw_err *err);

int mw_store_open(struct mw_store **out, const struct mw_store_options *o,
		  struct mw_err *err)
{
	struct mw_store_options now = *o;
	bool deferred = false;

	if (open_once(out, o, &deferred, err) == 0)
		return 0;
	if (!deferred)
		return -1;
	/* A file damaged where the start-up reads it fails before its check
	 * in the background could find it: checked first, as without that
	 * (and moved aside if damaged). */
	mw_log_warn("storage: %s; reading the whole file first", err->msg);
	now.full_check_background_from = INT64_MAX;
	return open_once(out, &now, &deferred, err);
}

static int open_once(struct mw_store **out, const struct mw_store_options *o, bool *deferred,
		     struct mw_err *err)
{
	struct mw_store *s = mw_xcalloc(1, sizeof(*s));
	struct mw_schema_open_options so;
	int i;

	*out = NULL;
	s->opt = *o;
	s->db_path = mw_xstrdup(o->db_path);
	s->opt.db_path = s->db_path;
	if (s->opt.chunk_points < 2)
		s->opt.chunk_points = 2;
	if (s->opt.chunk_points > 1000000)
		s->opt.chunk_points = 1000000;
	if (s->opt.chunk_duration_ms <= 0)
		s->opt.chunk_duration_ms = 2 * 3600000;
	s->now_ts = INT64_MIN;
	s->now_cap = mw_clock_wall_ms() + MW_STORE_NOW_SLACK_MS;
	if (mw_dblock_acquire(&s->lock, s->db_path, err)) {
		mw_store_free(s);
		return -1;
	}
	so.full_check_every_ms = s->opt.full_check_every_ms;
	so.background_from_bytes = s->opt.full_check_background_from;
	if (mw_schema_open(&s->db, s->db_path, &so, &s->stats.full_check,
			   &s->stats.full_check_background, &s->clean_start, err) ||
	    mw_dblock_follow(s->lock, s->db_path, err))
		goto fail;
	*deferred = s->stats.full_check_background != NULL;
	if (s->opt.cache_bytes) {
		char sql[64];

		/* Bounded: it fills as the file grows, then stays. */
		snprintf(sql, sizeof(sql), "PRAGMA cache_size = -%llu",
			 (unsigned long long)(s->opt.cache_bytes / 1024 ? s->opt.cache_bytes / 1024 : 1));
		sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	}
	sqlite3_wal_hook(s->db, wal_committed, s);	/* instead of the autocheckpoint */
	sqlite3_exec(s->db, "PRAGMA journal_size_limit = " WAL_SIZE_LIMIT, NULL, NULL, NULL);
	/* what crashes left in the WAL, before this run adds to it (waiting
	 * as long as any write would for readers of other processes) */
	if (truncate_wal(s->db, "main", MW_BUSY_TIMEOUT_MS))
		mw_log_warn("storage: cannot empty the WAL of '%s' at start-up (%s); "
			    "it is tried again as it grows", s->db_path, sqlite3_errmsg(s->db));
	s->mark_ms = INT64_MIN;
	if (mw_db_exec(s->db, mark_table_sql, err) || mw_db_exec(s->db, MW_TAIL_TABLE_SQL, err))
		goto fail;
	for (i = 0; i < ST_COUNT; i++)
		if (mw_db_prepare(s->db, &s->st[i], statements[i], err))
			goto fail;
	mw_catalog_open(&s->cat, s->db);
	if (fold_tails(s, err) || mw_series_load(s, err) || fix_open_bounds(s, err) ||
	    mw_rg_store_open(s, err))
		goto fail;
	update_db_bytes(s);
	/* Last: its read transaction would hold up the start-up's emptying
	 * of the WAL (truncate_wal waits for readers) by the busy timeout. */
	if (s->stats.full_check_background && !(s->bg_check = mw_bg_check_start(s->db_path)))
		mw_log_warn("storage: cannot start the full check of '%s' in the background; "
			    "the next start-up checks it", s->db_path);
	*out = s;
	return 0;
fail:
	mw_error_prefix(err, "storage '%s'", o->db_path);
	mw_store_free(s);
	return -1;
}

void mw_store_free(struct mw_store *s)
{
	struct mw_err err;
	size_t i;

	if (!s)
		return;
	/* a check that ended is recorded; one still reading is stopped and
	 * left to the next start-up (its date in store_state is unchanged) */
	if (s->db && s->bg_check)
		mw_store_poll_check(s, mw_clock_wall_ms());
	mw_bg_check_free(s->bg_check);
	s->bg_check = NULL;
	if (s->db && s->st[ST_COUNT - 1]) {
		/* every bucket in progress, whole: after this clean stop the next
		 * start takes them back from these rows (series_state.c mw_series_resume) */
		for (i = 0; i < s->nall; i++)
			mw_rollup_close_all(s, s->all[i]);
		s->closing = true;
		if (mw_store_flush(s, &err))
			mw_log_error("storage: cannot write the last points to '%s': %s",
				     s->db_path, err.msg);
		else if (mw_clean_stop_mark(s->db, &err))	/* the next start may skip the full check */
			mw_log_warn("storage: '%s': %s", s->db_path, err.msg);
	}
	for (i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(s->st[i]);
	mw_catalog_close(&s->cat);
	mw_retention_free(s);
	mw_minute_packer_free(s);
	mw_maintain_free(s);
	mw_rg_store_free(s);
	mw_dedupe_close(s);
	if (s->db && sqlite3_close(s->db) != SQLITE_OK)
		mw_log_error("storage: cannot close '%s': %s", s->db_path,
			     sqlite3_errmsg(s->db));
	mw_dblock_release(s->lock);	/* after the last write */
	for (i = 0; i < s->nchunks; i++)
		free(s->chunks[i].data);
	free(s->chunks);
	free(s->rollups);
	free(s->ended);
	free(s->tail_left);
	mw_tail_row_release(&s->tail_row);
	mw_series_free_all(s);
	free(s->db_path);
	free(s);
}

void mw_store_mark_complete(struct mw_store *s, int64_t ms)
{
	if (s->mark_ms == INT64_MIN || ms > s->mark_ms)
		s->mark_ms = ms;
}

void mw_store_get_stats(struct mw_store *s, struct mw_store_stats *out)
{
	*out = s->stats;
	out->pending_points = s->pending;
	out->queue_bytes = s->rollups_cap * sizeof(*s->rollups) +
			   s->chunks_cap * sizeof(*s->chunks);
	out->pending_region_snapshots = mw_rg_store_pending(s);
}

sqlite3 *mw_store_db(struct mw_store *s)
{
	return s->db;
}
