/*
 * store_impl.h - private structures shared by the writer's files: store.c
 * on top; series.c (and series_state.c below it), retention.c, dedupe.c
 * and regions_store.c below it;
 * rollup_acc.c below them all.  Calls go that way only.  Not for use
 * outside storage/.
 */
#ifndef MW_STORE_IMPL_H
#define MW_STORE_IMPL_H

#include "store.h"
#include "codec.h"
#include "catalog.h"
#include "chunk_tail.h"

#define MW_TIERS 3	/* rollup tiers: 1 minute, 10 minutes, 1 hour */

/* rollup_acc.c: each rollup tier's bucket width and table name. */
extern const int64_t mw_rollup_res[MW_TIERS];
extern const char *const mw_rollup_table[MW_TIERS];

struct mw_rollup_acc {
	int64_t bucket;		/* INT64_MIN: empty */
	double min, max, sum, last;
	int64_t last_ts;
	int64_t count;
};

/* One live series in the writer's memory: ~5,000 of them at 300
 * processes, so every field counts (issue 26).  Fields are ordered so
 * that the small ones fill what the large ones leave. */
struct mw_series {
	uint64_t hash;		/* of key */
	uint32_t slot;		/* index in store->all */
	uint32_t order_pos;	/* its place in store->order (a hint: check it) */
	int64_t seen;		/* store->now_ts at its newest point */
	int64_t first_ts;	/* its first point (written with the series row) */
	int64_t id;		/* 0: not in the database yet */
	int64_t tx_id;		/* assigned by the running flush */
	/* Its key as the last sample gave it, when that sample had a tail id
	 * (batch.h): the same id and metric pointer are the same key. */
	uint64_t tail_id;
	const char *tail_metric;
	struct mw_chunk_enc open;	/* the open chunk */
	int64_t open_rowid;	/* 0: the open chunk has no row yet */
	int64_t tx_open_rowid;
	uint32_t open_flushed;	/* points of the open chunk committed */
	/* The open chunk at its last committed write (whole or tail), for
	 * appending only its new bits (store.c write_open, chunk_tail.h) */
	uint32_t tail_bits;
	int64_t tail_min;
	bool tail_float;
	bool tail_pending;	/* chunk_tail holds bits its row lacks */
	uint8_t tx_tail;	/* the running flush wrote it: 1 a tail, 2 whole */
	uint8_t open_writes;	/* of its row, up to MW_OPEN_BOUND_FROM */
	uint8_t tx_open_writes;
	bool ended;		/* its process ended: leaves memory once written */
	/* open_rowid is its newest chunk, to be taken up (open empty until
	 * then) at its next point: mw_series_take_up */
	bool take_up;
	bool live_row;		/* its series_live row is committed */
	bool evicting;		/* leaves memory when the running flush commits */
	bool minute_unsaved;	/* minute has points no stored row holds */
	bool tx_minute_saved;	/* written by the running flush (store.c) */
	/* The 1-minute bucket in progress; the coarser tiers are derived
	 * from the stored minutes (rollup_acc.c) */
	struct mw_rollup_acc minute;
	int64_t minute_row;	/* minute's bucket if stored in progress, else INT64_MIN */
	struct mw_dedupe *dd;	/* skip_stored only (dedupe.c), else NULL */
	/* canonical (mw_key_text of metric, labels), in the series' own
	 * block: one allocation a series, not two */
	char key[];
};

/* From its MW_OPEN_BOUND_FROM-th write on, an open chunk's row carries an
 * upper bound as max_ts (store.c write_open). */
#define MW_OPEN_BOUND_FROM 3

/* A closed chunk waiting for the next flush. */
struct mw_pending_chunk {
	struct mw_series *series;
	int64_t rowid;		/* row holding its earlier points, or 0 */
	uint8_t *data;		/* the blob, or (base > 0) a piece (codec.h) */
	size_t len;
	uint32_t n, flushed;
	uint32_t base;		/* a piece: the stored bytes it goes around */
	uint8_t base_head, head;
	int64_t min_ts, max_ts, last_ts;
	double last_value;
};

/* A rollup row waiting for the next flush. */
struct mw_pending_rollup {
	struct mw_series *series;
	int tier;
	bool merge;		/* a late point: merge into the stored row */
	bool derive;		/* tier 1 or 2: derive the bucket at ts from the
				 * finer tier's rows (only series, tier and ts set) */
	int64_t ts;
	double min, max, sum, last;
	int64_t count;
};

enum {
	ST_SERIES_INSERT,
	ST_SERIES_LAST_CHUNK,
	ST_CHUNK_INSERT,
	ST_CHUNK_UPDATE,
	ST_OPEN_UPDATE,	/* an open chunk: max_ts (indexed) left as it is */
	ST_ROLLUP_1M,	/* one statement per tier, in tier order */
	ST_ROLLUP_10M,
	ST_ROLLUP_1H,
	ST_MERGE_1M,	/* read the stored row of a late bucket */
	ST_MERGE_10M,
	ST_MERGE_1H,
	ST_SERIES_FIND,	/* a series not in memory, by metric and label set */
	ST_LIVE_INSERT,
	ST_LIVE_DELETE,
	ST_NEWEST_1M,	/* newest minute row (series_state.c, at load) */
	ST_RECOVER_CHUNKS,
	ST_RECOVER_MINUTES,	/* 1-minute rows deriving a 10-minute bucket (rollup_acc.c) */
	ST_RECOVER_TENS,	/* ... and 10-minute rows, an hour (in tier order after it) */
	ST_BOUNDED_CHUNKS,	/* chunks left with an open chunk's bound */
	ST_SET_MAX_TS,
	ST_MARK,	/* writer_mark: how far the file is complete */
	ST_TAIL_INSERT, ST_TAIL_CLEAR, ST_CHUNK_GET, ST_TAIL_FOLD,	/* chunk_tail.h */
	ST_CHUNK_PIECE, ST_OPEN_PIECE,	/* a trimmed chunk's whole write (codec.h) */
	ST_COUNT
};

struct mw_store {
	struct mw_store_options opt;
	char *db_path;
	sqlite3 *db;
	struct mw_dblock *lock;	/* one writer per file (dblock.h) */
	sqlite3_stmt *st[ST_COUNT];
	struct mw_catalog cat;	/* metrics, labels, label sets (catalog.h) */
	struct mw_retention *ret;	/* retention.c's statements */
	struct mw_minute_packer *packer;	/* minute_packer.c's state */
	/* Rollup rows written that may give the packer work: an hour's row
	 * (its minutes become packable) or a merged row (a late point, a
	 * rebuild); the packer rests between them (rollup_acc.c counts,
	 * minute_packer.c reads). */
	uint64_t pack_epoch;
	struct mw_size_cut *cut;	/* size_cut.c's state, once max_size applied */
	/* The last run stopped cleanly and the file is as it left it
	 * (schema.h): at open, series.c takes the live series' buckets in
	 * progress from their rows. */
	bool clean_start;
	/* The full check read in the background (bg_check.h), NULL when none
	 * runs; what it found wrong, kept for /healthz. */
	struct mw_bg_check *bg_check;
	char check_failed[512];

	/* series: open-addressing hash map key -> series, and a list */
	struct mw_series **map;
	size_t map_cap;
	/* The series of the last batch, in its sample order.  A tick's batch
	 * holds mostly the same series in the same order as the one before,
	 * so mw_store_add_batch first compares a sample's key with the series
	 * at the same place here (one string compare, no hashing or probing,
	 * whose cache misses were 12 % of the daemon's CPU at 4,400 series a
	 * tick).  A dropped series' entry is set to NULL (mw_series_drop). */
	struct mw_series **order, **order_next;
	size_t norder, norder_next, order_cap, order_next_cap;
	struct mw_series **all;
	size_t nall, all_cap;

	struct mw_pending_chunk *chunks;
	size_t nchunks, chunks_cap;
	struct mw_pending_rollup *rollups;
	size_t nrollups, rollups_cap;

	struct mw_store_stats stats;
	uint64_t clock_steps;	/* steps of the wall clock stored (base/clock_step.h) */
	/* Points accepted and not committed: in closed chunks waiting and in
	 * the open chunks past open_flushed (counted as they come: summing
	 * them over every series for each batch's status was a scan of all
	 * series several times a second). */
	uint64_t pending;
	bool failing;		/* last flush failed (logged once) */
	/* A batch is being added (mw_store_add_batch): the look-ups of the
	 * series it brings that memory lacks share one read transaction,
	 * opened by the first (batch_reading) and ended with the batch.  In
	 * autocommit each statement took and dropped the WAL's read lock
	 * (two fcntl calls): on a busy build agent, where every new process
	 * brings a dozen series, that was 7 % of the daemon's CPU. */
	bool in_batch;
	bool batch_reading;
	bool closing;		/* the last flush: open chunks get their true max_ts */
	bool file_lost;		/* the file at db_path is not ours any more (logged) */
	size_t unsaved;		/* series created since the last commit (at most) */
	uint64_t dropped_while_failing;
	bool size_warned;
	int64_t maintain_cursor;	/* series id retention resumes after */
	int64_t now_ts;		/* newest point timestamp seen (INT64_MIN: none),
				 * never past now_cap */
	/* The wall clock (plus a minute) at open and at each flush: a point
	 * stamped in the future (an import with --allow-future, a clock
	 * stepped back) must not stand for "now", or no series would ever go
	 * idle and memory would grow with the process churn. */
	int64_t now_cap;
	int64_t mark_ms;	/* mw_store_mark_complete (INT64_MIN: none) */
	int commits_since_checkpoint;	/* see wal_committed (store.c) */
	bool truncate_failed;	/* the last WAL truncation found a reader */
	struct mw_rg_store *rg;	/* region snapshots (regions_store.c) */
	struct mw_dedupe_stmts *dd;	/* skip_stored: dedupe.c's statements */
	/* Tail-id ranges of ended processes (batch.h mw_batch_end_tails)
	 * since the last commit; series_ended.c. */
	struct mw_series_ended *ended;
	size_t nended, ended_cap;
	bool ended_sorted;
	/* chunk_tail.h: the running flush's row; whether it rewrites every
	 * chunk whole (and empties chunk_tail); chunks that closed or left
	 * memory while chunk_tail held bits of theirs (size_cut.c keeps them
	 * until the next fold) */
	struct mw_tail_row tail_row;
	bool tail_fold;
	int64_t *tail_left;
	size_t ntail_left, tail_left_cap;
};

/* The bound an open chunk's row carries from its MW_OPEN_BOUND_FROM-th
 * write on (store.c write_open; series_state.c keeps it across a crash): past
 * every point the chunk can take before chunk_duration closes it. */
static inline int64_t mw_store_open_bound(const struct mw_store *s, const struct mw_chunk_enc *e)
{
	int64_t b = e->t_first + s->opt.chunk_duration_ms - 1;

	return b > e->t_max ? b : e->t_max;
}

/* A point (or snapshot) stamped ts_ms was seen: now_ts follows, never
 * past now_cap (store.c, series.c, regions_store.c; inline so that none
 * calls another for it). */
#define MW_STORE_NOW_SLACK_MS 60000	/* clocks of collectors and the writer differ a little */
static inline void mw_store_saw(struct mw_store *s, int64_t ts_ms)
{
	if (ts_ms > s->now_cap)
		ts_ms = s->now_cap;
	if (ts_ms > s->now_ts)
		s->now_ts = ts_ms;
}

/* series_ended.c: series whose process ended leave memory at the next
 * flush rather than after series_idle. */
void mw_store_note_ended(struct mw_store *s, const struct mw_detail *d);
/* During a flush's pass over every series: tail_id is in a range noted
 * since the last commit. */
bool mw_store_tail_ended(struct mw_store *s, uint64_t tail_id);
/* After a commit: the ranges are on their series now. */
void mw_store_ended_committed(struct mw_store *s);

/* series.c */
struct mw_series *mw_series_find(struct mw_store *s, const char *key);
/* The series of key in memory, else found in the database (its rollup
 * state rebuilt from raw chunks), else NULL. */
struct mw_series *mw_series_get(struct mw_store *s, const char *key);
/* Ends the read transaction mw_series_get opened during a batch, if any. */
void mw_series_batch_done(struct mw_store *s);
/* Remove from memory and free (its points must be committed). */
void mw_series_drop(struct mw_store *s, struct mw_series *se);
struct mw_series *mw_series_create(struct mw_store *s, const char *key, const char *metric,
				   const struct mw_label *labels, size_t nlabels);
int mw_series_load(struct mw_store *s, struct mw_err *err);
void mw_series_free_all(struct mw_store *s);
/* Insert series that have no id yet (inside the flush transaction). */
int mw_series_insert_new(struct mw_store *s, struct mw_err *err);

/* series_state.c: what a series brings from the database as it enters
 * memory. */
/* Its rollup buckets in progress rebuilt from stored rows and raw chunks
 * (after a crash, or a series found again by key); last_chunk > 0: that
 * chunk, its newest, becomes its open chunk again.  0, or -1 with err. */
int mw_series_recover(struct mw_store *s, struct mw_series *se, int64_t last_chunk,
		      struct mw_err *err);
/* After a clean stop: its buckets in progress read back from its newest
 * rows when they are the buckets of its newest point (newest).  1 taken,
 * 0 not (se unchanged: recover it), -1 error. */
int mw_series_resume(struct mw_store *s, struct mw_series *se, int64_t newest,
		     struct mw_err *err);
/* With mw_series_resume: its newest chunk (row rowid, npoints points) is
 * taken up at its next point, not now. */
void mw_series_defer_take_up(struct mw_store *s, struct mw_series *se, int64_t rowid,
			     int64_t npoints);
/* se->take_up: its newest chunk (se->open_rowid) becomes its open chunk
 * again, before its next point is added (store.c add_point); left closed
 * when it cannot be (the point starts a chunk). */
void mw_series_take_up(struct mw_store *s, struct mw_series *se);

/* regions_store.c: region snapshots, hooked into open, flush, free and
 * maintain. */
struct mw_rg_store;
int mw_rg_store_open(struct mw_store *s, struct mw_err *err);
void mw_rg_store_free(struct mw_store *s);
/* Inside the flush transaction. */
int mw_rg_store_write(struct mw_store *s, struct mw_err *err);
void mw_rg_store_committed(struct mw_store *s);
void mw_rg_store_failed(struct mw_store *s);
/* Retention: whole keyframe groups older than retention_raw. */
int mw_rg_store_retain(struct mw_store *s, int64_t now_ms, struct mw_err *err);
uint64_t mw_rg_store_pending(const struct mw_store *s);

/* dedupe.c: skip_stored.  mw_dedupe_check: 0 the point at ts is new, 2 it
 * is stored already, 1 it may be among the points not committed yet
 * (flush, then ask again).  After a 0 the caller adds the point; after
 * adding a point without asking (a series new to the store),
 * mw_dedupe_added.  mw_dedupe_committed for every series after a commit. */
struct mw_dedupe;
int mw_dedupe_check(struct mw_store *s, struct mw_series *se, int64_t ts);
void mw_dedupe_added(struct mw_store *s, struct mw_series *se, int64_t ts);
void mw_dedupe_committed(struct mw_series *se);
void mw_dedupe_free(struct mw_dedupe *d);
void mw_dedupe_close(struct mw_store *s);

/* retention.c */
void mw_retention_free(struct mw_store *s);
/* One bounded step of the age limits (inside the caller's transaction). */
int mw_retention_by_age(struct mw_store *s, int64_t now_ms, struct mw_err *err);

/* minute_packer.c: one bounded step packing closed hours of minute rows
 * into rollup_1m_pack (inside the caller's transaction); its state freed
 * with the store. */
int mw_minute_pack_step(struct mw_store *s, struct mw_err *err);
void mw_minute_packer_free(struct mw_store *s);
/* The hour number of minute number t (rounded towards minus infinity). */
int64_t mw_minute_pack_hour(int64_t t);

/* maintain.c: the size cut's state (size_cut.h) */
void mw_maintain_free(struct mw_store *s);

/* rollup_acc.c: the rollup tiers on the write side (below store.c,
 * series.c and retention.c). */
/* ts rounded down to a multiple of res (towards minus infinity). */
int64_t mw_floor_to(int64_t ts, int64_t res);
/* Feed a point to se's minute in progress; a completed minute (or a
 * late point's, merge) is queued for the next flush, and with it each
 * coarser bucket completed, to be derived from the rows before it. */
void mw_rollup_point(struct mw_store *s, struct mw_series *se, int64_t ts, double v);
/* Queue se's buckets in progress, whole as far as they go (the store
 * closing). */
void mw_rollup_close_all(struct mw_store *s, struct mw_series *se);
/* Write tier's (1 or 2) bucket starting at bucket of series id from its
 * stored rows of the finer tier (none: nothing written); inside the
 * caller's transaction. */
int mw_rollup_derive(struct mw_store *s, int64_t id, const char *key, int tier, int64_t bucket,
		     struct mw_err *err);
/* Queue the bucket a for the next flush (merge: combine with the row). */
void mw_rollup_emit(struct mw_store *s, struct mw_series *se, int tier, bool merge,
		    const struct mw_rollup_acc *a);
/* Write one bucket of series id (merge: combine with the stored row of
 * the same bucket, whose `last` stays); inside the caller's transaction. */
int mw_rollup_write(struct mw_store *s, int64_t id, const char *key, int tier, bool merge,
		    const struct mw_rollup_acc *a, struct mw_err *err);
/* Step a write statement to its end; -1 with "cannot write WHAT of 'KEY'". */
int mw_store_step_done(struct mw_store *s, sqlite3_stmt *st, const char *what, const char *key,
		       struct mw_err *err);

#endif
