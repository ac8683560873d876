/*
 * size_cut.c - holding [storage] max_size, a bounded step after each flush
 * (mw_store_maintain, retention.c).
 *
 * The size is the pages in use (page_count - freelist_count) times the
 * page size: what the file is once its free pages are given back.  A page
 * the cut frees is on the free list when the step commits, and the writer
 * reuses it before it grows the file (in WAL mode a reader on an older
 * snapshot still reads the old page from the WAL or the file), so it
 * counts as freed from then on; a deleted row that empties no page frees
 * nothing and is not counted: the step measures pages, not rows, and goes
 * on cutting until pages are free.  The write-ahead log is not part of the
 * figure (cutting data only adds to it); mw_size_cut_settle keeps it small
 * beside the file instead.
 *
 * Hysteresis: a cut starts when the pages in use pass 98 % of max_size
 * and goes on, over as many steps as it takes, down to 95 %; the free
 * pages between are what the next flushes fill, so the file stays within
 * the limit (98 % plus at most one flush) without shrinking and growing
 * at every flush.
 *
 * What goes, oldest first within each kind, in this order:
 * 1. raw data that is complete: closed raw chunks (by their newest point,
 *    through the index chunk_by_time) and whole region-snapshot groups
 *    (regions_store.c), whichever is older first.  Never the chunk a
 *    series is being written into, nor the group a process is.  Before a
 *    series loses raw chunks its first point is recorded and, if the
 *    writer no longer holds it, its rollups are completed (retention.c).
 * 2. 1-minute rollup rows (loose, and packed hours once the horizon
 *    passes their end), then (none left) 10-minute rows, then (none
 *    left) 1-hour rows: a horizon moved
 *    up a thirty-second of the tier's span at a time and applied series
 *    by series, SWEEP_SERIES per round (there is no index by time on the
 *    rollup tables: it would cost a third of their size).
 * 3. series left with nothing (no chunk, no rollup row, not live) lose
 *    their catalogue rows as their last data goes.
 * Everything removed is counted (stats.size_cut, /metrics).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_impl.h"
#include "size_cut.h"
#include "id_set.h"
#include "schema.h"
#include "base/fsutf8.h"
#include "base/log.h"
#include "base/xalloc.h"

#define TRIGGER_PERMILLE 980
#define TARGET_PERMILLE 950
#define ROUNDS 32		/* cuts per step */
#define CHUNK_BATCH 64		/* raw chunks per round */
#define CHUNK_SCAN 4096		/* index entries a round may pass (chunks being written) */
#define SWEEP_SERIES 256	/* series a rollup round visits */
#define SWEEP_ROUNDS 8		/* rollup rounds per step (4 statements a series) */
#define HORIZON_PARTS 32	/* a sweep moves the horizon this part of the span */
#define VACUUM_MAX 4096		/* pages given back per step */
#define WAL_PART 16		/* the WAL is checkpointed past max_size / WAL_PART */

enum {
	SC_OLDEST, SC_DELETE, SC_SERIES,
	SC_CUT_1M, SC_CUT_10M, SC_CUT_1H, SC_MIN_1M, SC_MIN_10M, SC_MIN_1H,	/* in tier order */
	SC_PAGES, SC_FREE, SC_CUT_PACKS,
	SC_COUNT
};

static const char *const sc_sql[SC_COUNT] = {
	/* chunk_by_time: the oldest first, without sorting the table */
	[SC_OLDEST] = "SELECT id, series_id, npoints, max_ts FROM chunk ORDER BY max_ts, id",
	[SC_DELETE] = "DELETE FROM chunk WHERE id = ?1",
	[SC_SERIES] = "SELECT id FROM series WHERE id > ?1 ORDER BY id LIMIT ?2",
	[SC_CUT_1M] = "DELETE FROM rollup_1m_data WHERE series_id = ?1 AND t < ?2",
	[SC_CUT_10M] = "DELETE FROM rollup_10m_data WHERE series_id = ?1 AND t < ?2",
	[SC_CUT_1H] = "DELETE FROM rollup_1h_data WHERE series_id = ?1 AND t < ?2",
	/* the oldest loose minute, or a packed hour's last minute: a pack
	 * goes whole once the horizon passes its end, so the next horizon
	 * must reach past it (from its first minute it would not move) */
	[SC_MIN_1M] = "SELECT min(coalesce(a, b), coalesce(b, a)) FROM"
		      " (SELECT (SELECT t FROM rollup_1m_data WHERE series_id = ?1"
		      " ORDER BY t LIMIT 1) AS a, (SELECT h * 60 + 59 FROM rollup_1m_pack"
		      " WHERE series_id = ?1 ORDER BY h LIMIT 1) AS b)",
	[SC_MIN_10M] = "SELECT min(t) FROM rollup_10m_data WHERE series_id = ?1",
	[SC_MIN_1H] = "SELECT min(t) FROM rollup_1h_data WHERE series_id = ?1",
	[SC_PAGES] = "PRAGMA page_count",
	[SC_FREE] = "PRAGMA freelist_count",
	/* packed hours wholly below the horizon's hour */
	[SC_CUT_PACKS] = "DELETE FROM rollup_1m_pack WHERE series_id = ?1 AND h < ?2",
};

struct mw_size_cut {
	sqlite3_stmt *st[SC_COUNT];
	int64_t page_size;
	bool cutting;		/* passed the trigger, not yet down to the target */
	bool stuck_logged;	/* "nothing more can go" said for this cut */
	/* per step, sorted: chunk rows being written, series the writer holds */
	struct mw_id_set open, held;
	/* the rollup sweep: per tier the horizon (a bucket number: rows
	 * below it go; INT64_MIN none yet) and the oldest bucket left among
	 * the series swept so far; a tier's rows only once no row of a finer
	 * tier is left: level is the coarsest tier cut by its own horizon */
	int64_t horizon[MW_TIERS], sweep_min[MW_TIERS];
	int64_t cursor;		/* series id the sweep resumes after */
	int level;
};

struct chunk_ref {
	int64_t id, series, npoints, max_ts;
};

void mw_size_cut_free(struct mw_size_cut *c)
{
	int i;

	if (!c)
		return;
	for (i = 0; i < SC_COUNT; i++)
		sqlite3_finalize(c->st[i]);
	mw_id_set_release(&c->open);
	mw_id_set_release(&c->held);
	free(c);
}

static int open_state(struct mw_store *s, struct mw_size_cut **out, struct mw_err *err)
{
	struct mw_size_cut *c = mw_xcalloc(1, sizeof(*c));
	int64_t limit;
	int i;

	*out = c;
	c->page_size = mw_db_int(s->db, "PRAGMA page_size");
	for (i = 0; i < MW_TIERS; i++) {
		c->horizon[i] = INT64_MIN;
		c->sweep_min[i] = INT64_MAX;
	}
	if (c->page_size <= 0 || mw_schema_size_index(s->db, err))
		return mw_error_prefix(err, "max_size");
	for (i = 0; i < SC_COUNT; i++)
		if (mw_db_prepare(s->db, &c->st[i], sc_sql[i], err))
			return mw_error_prefix(err, "max_size");
	/* a WAL that was large once is cut back to this when it starts over
	 * (never raised: the store may keep it smaller) */
	limit = mw_db_int(s->db, "PRAGMA journal_size_limit");
	if (limit < 0 || (uint64_t)limit > s->opt.max_db_bytes / WAL_PART) {
		char sql[64];

		snprintf(sql, sizeof(sql), "PRAGMA journal_size_limit = %llu",
			 (unsigned long long)(s->opt.max_db_bytes / WAL_PART));
		sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	}
	return 0;
}

static int64_t one_int(sqlite3_stmt *st, int64_t bind, bool *null)
{
	int64_t v = 0;

	if (sqlite3_bind_parameter_count(st) >= 1)
		sqlite3_bind_int64(st, 1, bind);
	*null = true;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		v = sqlite3_column_int64(st, 0);
		*null = false;
	}
	sqlite3_reset(st);
	return v;
}

/* Pages in use, in bytes (-1: cannot tell). */
static int64_t used_bytes(struct mw_size_cut *c)
{
	bool n1, n2;
	int64_t pages = one_int(c->st[SC_PAGES], 0, &n1), freep = one_int(c->st[SC_FREE], 0, &n2);

	return n1 || n2 ? -1 : (pages - freep) * c->page_size;
}

/* What must not go now: every chunk row a series is writing into (its
 * open chunk, and a closed one waiting to be rewritten over its row),
 * every chunk chunk_tail still holds bits of (until the next fold
 * empties it: a removed row's id could be taken again by a new chunk,
 * and the old bits laid over that), and the series the writer holds
 * (their rollups are in memory). */
static void note_writing(struct mw_store *s, struct mw_size_cut *c)
{
	size_t i;

	c->open.n = c->held.n = 0;
	for (i = 0; i < s->nall; i++) {
		mw_id_set_add(&c->open, s->all[i]->open_rowid);
		mw_id_set_add(&c->open, s->all[i]->tx_open_rowid);
		mw_id_set_add(&c->held, s->all[i]->id);
		mw_id_set_add(&c->held, s->all[i]->tx_id);
	}
	for (i = 0; i < s->nchunks; i++)
		mw_id_set_add(&c->open, s->chunks[i].rowid);
	for (i = 0; i < s->ntail_left; i++)
		mw_id_set_add(&c->open, s->tail_left[i]);
	mw_id_set_sort(&c->open);
	mw_id_set_sort(&c->held);
}

/* Up to limit (<= CHUNK_BATCH) of the oldest closed chunks into out; how
 * many. */
static int oldest_chunks(struct mw_store *s, struct mw_size_cut *c, struct chunk_ref *out,
			 int limit, struct mw_err *err)
{
	sqlite3_stmt *st = c->st[SC_OLDEST];
	int n = 0, passed = 0, rc = SQLITE_DONE;

	while (n < limit && passed < CHUNK_SCAN && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);

		if (mw_id_set_has(&c->open, id)) {
			passed++;
			continue;
		}
		out[n].id = id;
		out[n].series = sqlite3_column_int64(st, 1);
		out[n].npoints = sqlite3_column_int64(st, 2);
		out[n].max_ts = sqlite3_column_int64(st, 3);
		n++;
	}
	if (n < limit && passed < CHUNK_SCAN && rc != SQLITE_DONE) {
		sqlite3_reset(st);
		return mw_error(err, "cannot read chunks: %s", sqlite3_errmsg(s->db));
	}
	sqlite3_reset(st);
	return n;
}

/* After series id lost data: its catalogue rows if nothing is left. */
static int drop_if_empty(struct mw_store *s, struct mw_size_cut *c, int64_t id, struct mw_err *err)
{
	bool removed = false;

	if (mw_id_set_has(&c->held, id))
		return 0;
	if (mw_retention_drop_empty(s, id, &removed, err))
		return -1;
	s->stats.size_cut.series += removed;
	return 0;
}

static int cut_chunks(struct mw_store *s, struct mw_size_cut *c, const struct chunk_ref *r, int n,
		      struct mw_err *err)
{
	sqlite3_stmt *del = c->st[SC_DELETE];
	int i, j;

	/* per series once (the batch is in time order, not by series) */
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && r[j].series != r[i].series; j++)
			;
		if (j == i && mw_retention_before_cut(s, r[i].series,
						      mw_id_set_has(&c->held, r[i].series), err))
			return -1;
	}
	for (i = 0; i < n; i++) {
		sqlite3_bind_int64(del, 1, r[i].id);
		if (mw_store_step_done(s, del, "chunk", "the size cut", err))
			return -1;
		s->stats.size_cut.chunks++;
		s->stats.size_cut.points += (uint64_t)r[i].npoints;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && r[j].series != r[i].series; j++)
			;
		if (j == i && drop_if_empty(s, c, r[i].series, err))
			return -1;
	}
	return 0;
}

/* One round of raw data: up to limit of the oldest closed chunks, or the
 * oldest region group, whichever is older.  What was cut (chunks or
 * snapshots; *chunks tells which), 0 when no closed raw data is left, -1
 * on error. */
static int64_t cut_raw(struct mw_store *s, struct mw_size_cut *c, int limit, bool *chunks,
		       struct mw_err *err)
{
	struct chunk_ref r[CHUNK_BATCH];
	int64_t region_ts = 0, k;
	int n = oldest_chunks(s, c, r, limit, err), have_region;

	*chunks = false;
	if (n < 0 || (have_region = mw_rg_store_oldest(s, &region_ts, err)) < 0)
		return -1;
	if (have_region && (!n || region_ts < r[0].max_ts)) {
		if ((k = mw_rg_store_cut_oldest(s, err)) != 0) {
			if (k > 0)
				s->stats.size_cut.region_snapshots += (uint64_t)k;
			return k;
		}
	}
	if (!n)
		return 0;
	*chunks = true;
	return cut_chunks(s, c, r, n, err) ? -1 : n;
}

/* Delete series id's rows of tier t below bucket h; rows deleted or -1. */
static int64_t cut_tier(struct mw_store *s, struct mw_size_cut *c, int t, int64_t id, int64_t h,
			struct mw_err *err)
{
	sqlite3_stmt *st = c->st[SC_CUT_1M + t];
	int64_t n;

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, h);
	if (mw_store_step_done(s, st, "rollup", "the size cut", err))
		return -1;
	n = sqlite3_changes(s->db);
	if (t > 0)
		return n;
	/* packed minutes go by whole hours (a pack the horizon falls inside
	 * stays until the horizon passes its end); a pack counts as a row */
	st = c->st[SC_CUT_PACKS];
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, mw_minute_pack_hour(h));
	if (mw_store_step_done(s, st, "rollup", "the size cut", err))
		return -1;
	return n + sqlite3_changes(s->db);
}

/* The oldest bucket of series id in tier t left after the cut: noted for
 * the next horizon (the first sweep starts one at once). */
static bool note_oldest(struct mw_size_cut *c, int t, int64_t id, int64_t now_ms)
{
	bool none;
	int64_t oldest = one_int(c->st[SC_MIN_1M + t], id, &none);

	if (none)
		return false;
	if (oldest < c->sweep_min[t])
		c->sweep_min[t] = oldest;
	if (c->horizon[t] == INT64_MIN)
		c->horizon[t] = oldest + 1 + (now_ms / mw_rollup_res[t] - oldest) / HORIZON_PARTS;
	return true;
}

/*
 * One round of the rollup sweep.  Minute rows below the horizon go;
 * 10-minute rows only once no minute row is left anywhere, hour rows once
 * no 10-minute row is (the hour tier is the long history), except those
 * of a series the writer no longer holds and with no finer row left: its
 * coarser rows before the finer tiers' horizon go too, so
 * a process that ended before the horizon is forgotten whole, catalogue
 * included, and a churn of short-lived processes cannot fill the file
 * with series rows.  Rows cut; *spent set when a whole sweep found no row
 * left to cut in any tier it may cut.
 */
static int64_t cut_rollups(struct mw_store *s, struct mw_size_cut *c, int64_t now_ms,
			   bool *spent, struct mw_err *err)
{
	sqlite3_stmt *ids = c->st[SC_SERIES];
	int64_t rows = 0, todo[SWEEP_SERIES];
	int n = 0, i, t;

	*spent = false;
	sqlite3_bind_int64(ids, 1, c->cursor);
	sqlite3_bind_int(ids, 2, SWEEP_SERIES);
	while (n < SWEEP_SERIES && sqlite3_step(ids) == SQLITE_ROW)
		todo[n++] = sqlite3_column_int64(ids, 0);
	sqlite3_reset(ids);
	for (i = 0; i < n; i++) {
		bool held = mw_id_set_has(&c->held, todo[i]), finer_left = false;
		int64_t cut = 0, k, finer_ms = INT64_MIN;

		for (t = 0; t < MW_TIERS; t++) {
			int64_t h = t <= c->level ? c->horizon[t] : INT64_MIN;

			/* ended, nothing finer left: up to the finer tiers' horizon */
			if (t > 0 && !held && !finer_left && finer_ms != INT64_MIN &&
			    finer_ms / mw_rollup_res[t] > h)
				h = finer_ms / mw_rollup_res[t];
			if (h != INT64_MIN) {
				if ((k = cut_tier(s, c, t, todo[i], h, err)) < 0)
					return -1;
				cut += k;
				if (h * mw_rollup_res[t] > finer_ms)
					finer_ms = h * mw_rollup_res[t];
			}
			finer_left = note_oldest(c, t, todo[i], now_ms) || finer_left;
		}
		rows += cut;
		s->stats.size_cut.rollup_rows += (uint64_t)cut;
		if (cut && !held && drop_if_empty(s, c, todo[i], err))
			return -1;
	}
	c->cursor = n ? todo[n - 1] : 0;
	if (n == SWEEP_SERIES)
		return rows;
	/* a sweep ended: the next one's horizons */
	c->cursor = 0;
	for (c->level = 0; c->level < MW_TIERS - 1 && c->sweep_min[c->level] == INT64_MAX;
	     c->level++)
		;
	*spent = !rows && c->level == MW_TIERS - 1 && c->sweep_min[c->level] == INT64_MAX;
	for (t = 0; t < MW_TIERS; t++) {
		int64_t m = c->sweep_min[t], next;

		c->sweep_min[t] = INT64_MAX;
		if (m == INT64_MAX)
			continue;
		next = m + 1 + (now_ms / mw_rollup_res[t] - m) / HORIZON_PARTS;
		if (c->horizon[t] == INT64_MIN || next > c->horizon[t])
			c->horizon[t] = next;
	}
	return rows;
}

int mw_size_cut_step(struct mw_store *s, struct mw_size_cut **state, int64_t now_ms,
		     struct mw_err *err)
{
	uint64_t cap = s->opt.max_db_bytes;
	struct mw_size_cut *c;
	uint64_t target = cap / 1000 * TARGET_PERMILLE;
	int64_t used, start;
	int round, sweeps = 0, limit = CHUNK_BATCH;

	if (!cap)
		return 0;
	if (!*state && open_state(s, state, err)) {
		mw_size_cut_free(*state);
		*state = NULL;
		return -1;
	}
	c = *state;
	start = used = used_bytes(c);
	if (used < 0)
		return mw_error(err, "max_size: cannot read the page counts: %s",
				sqlite3_errmsg(s->db));
	if (!c->cutting && (uint64_t)used <= cap / 1000 * TRIGGER_PERMILLE)
		return 0;
	if (!c->cutting && !s->size_warned)
		mw_log_warn("storage: '%s' reached max_size (%llu bytes); removing the "
			    "oldest data (counted in memwatch_storage_size_cut_*)", s->db_path,
			    (unsigned long long)cap);
	s->size_warned = true;
	c->cutting = true;
	note_writing(s, c);
	for (round = 0; round < ROUNDS && (uint64_t)used > target; round++) {
		bool spent = false, chunks;
		int64_t before = used, k = cut_raw(s, c, limit, &chunks, err);

		if (k == 0 && ++sweeps > SWEEP_ROUNDS)
			break;	/* the step's share of the sweep is done */
		if (k == 0)
			k = cut_rollups(s, c, now_ms, &spent, err);
		if (k < 0)
			return -1;
		if (spent) {
			if (!c->stuck_logged && (uint64_t)used > cap) {
				mw_log_warn("storage: '%s' has %lld bytes in use, over max_size "
					    "(%llu), and nothing more can go: what is left is the "
					    "data being written", s->db_path, (long long)used,
					    (unsigned long long)cap);
				c->stuck_logged = true;
			}
			break;
		}
		used = used_bytes(c);
		/* near the target, a batch of what the last one freed per chunk
		 * (a tenth of a small limit is a handful of chunks) */
		if (chunks && k > 0 && used < before && (uint64_t)used > target) {
			int64_t per = (before - used) / k + 1;
			int64_t need = (int64_t)((uint64_t)used - target) / per + 1;

			limit = need < CHUNK_BATCH ? (int)need : CHUNK_BATCH;
		}
	}
	if ((uint64_t)used <= target) {
		c->cutting = false;
		c->stuck_logged = false;
	}
	if (used >= 0 && used < start)
		s->stats.size_cut.bytes += (uint64_t)(start - used);
	return 0;
}

int mw_size_cut_settle(struct mw_store *s, struct mw_size_cut *c, struct mw_err *err)
{
	uint64_t cap = s->opt.max_db_bytes;
	int64_t pages, freep, wal;
	char path[4096], sql[64];
	bool n1, n2;

	if (!cap || !c)
		return 0;
	/* free pages that keep the file over the limit go back now (the file
	 * shrinks at the next complete checkpoint) */
	pages = one_int(c->st[SC_PAGES], 0, &n1);
	freep = one_int(c->st[SC_FREE], 0, &n2);
	if (!n1 && !n2 && freep > 0 && (uint64_t)(pages * c->page_size) > cap) {
		snprintf(sql, sizeof(sql), "PRAGMA incremental_vacuum(%lld)",
			 (long long)(freep < VACUUM_MAX ? freep : VACUUM_MAX));
		if (mw_db_exec(s->db, sql, err))
			return -1;
	}
	/* a WAL past its share of the limit is copied back (PASSIVE: a
	 * reader in the way keeps it for the store's own policy) */
	snprintf(path, sizeof(path), "%s-wal", s->db_path);
	wal = mw_file_size(path);
	if (wal > 0 && (uint64_t)wal > cap / WAL_PART)
		sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
	return 0;
}
