/*
 * series.c - the writer's series catalogue: canonical key -> series, in a
 * hash map so a tick of thousands of samples costs no SQL lookups; rows of
 * the series and series_label tables are inserted at the next flush.
 *
 * Only live series are in memory: a series idle for series_idle_ms is
 * written out and dropped (store.c), and found again here by key when a
 * point for it comes back.  At open only the series of the series_live
 * table (those in memory when the store last ran) are loaded, so start-up
 * costs what the live series cost, whatever the file holds.  Whenever a
 * series enters memory from the database its rollup accumulators are
 * rebuilt from the raw chunks from each tier's newest bucket on: rollup
 * rows are written when a bucket completes (or, partial, when the series
 * leaves memory), so after a crash the buckets in progress are recomputed,
 * not lost.  A live series loaded at open also takes up its newest chunk
 * again as its open chunk (continue_open), so restarts add no chunks.
 * After a clean stop a live series' buckets in progress are read from its
 * newest rows instead, and its chunk taken up from its stored bits at its
 * next point (resume_rollups, mw_series_take_up): start-up reads no raw
 * point.
 *
 * Uses rollup_acc.c (accumulators rebuilt from raw chunks), catalog.c,
 * dedupe.c and db.c.  Used by store.c (store_impl.h); it never calls
 * back into store.c.
 */
#include <stdlib.h>
#include <string.h>

#include "store_impl.h"
#include "catalog.h"
#include "schema.h"
#include "rollup.h"
#include "base/log.h"
#include "base/xalloc.h"

static uint64_t hash_key(const char *key)
{
	uint64_t h = 1469598103934665603ULL;

	while (*key) {
		h ^= (unsigned char)*key++;
		h *= 1099511628211ULL;
	}
	return h;
}

struct mw_series *mw_series_find(struct mw_store *s, const char *key)
{
	uint64_t h;
	size_t i;

	if (!s->map_cap)
		return NULL;
	h = hash_key(key);
	for (i = h & (s->map_cap - 1); s->map[i]; i = (i + 1) & (s->map_cap - 1))
		if (s->map[i]->hash == h && !strcmp(s->map[i]->key, key))
			return s->map[i];
	return NULL;
}

/* Rebuild the map with cap slots (a power of two, at least 2 * nall). */
static void map_rebuild(struct mw_store *s, size_t cap)
{
	struct mw_series **map = mw_xcalloc(cap, sizeof(*map));
	size_t i, j;

	for (j = 0; j < s->nall; j++) {
		for (i = s->all[j]->hash & (cap - 1); map[i]; i = (i + 1) & (cap - 1))
			;
		map[i] = s->all[j];
	}
	free(s->map);
	s->map = map;
	s->map_cap = cap;
}

static void map_put(struct mw_store *s, struct mw_series *se)
{
	size_t i;

	if ((s->nall + 1) * 2 > s->map_cap)
		map_rebuild(s, s->map_cap ? s->map_cap * 2 : 1024);
	for (i = se->hash & (s->map_cap - 1); s->map[i]; i = (i + 1) & (s->map_cap - 1))
		;
	s->map[i] = se;
	MW_GROW(s->all, s->all_cap, s->nall + 1);
	se->slot = s->nall;
	s->all[s->nall++] = se;
	s->stats.series = s->nall;
}

/* Linear probing: delete by shifting the following run back. */
static void map_del(struct mw_store *s, struct mw_series *se)
{
	size_t mask = s->map_cap - 1, i, j, k;

	for (i = se->hash & mask; s->map[i] != se; i = (i + 1) & mask)
		;
	s->map[i] = NULL;
	for (j = (i + 1) & mask; s->map[j]; j = (j + 1) & mask) {
		k = s->map[j]->hash & mask;
		/* leave map[j] where it is if its home k lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		s->map[i] = s->map[j];
		s->map[j] = NULL;
		i = j;
	}
}

/* A series in memory from its canonical key (taken) and parsed identity
 * (released: the metric and labels are parsed from the key again when the
 * series row is inserted, mw_series_insert_new; keeping them beside the
 * key cost ~290 bytes a series, a third of the writer's heap per series). */
static struct mw_series *create_parsed(struct mw_store *s, char *key, struct mw_key *k)
{
	struct mw_series *se = mw_xcalloc(1, sizeof(*se));
	int t;

	se->key = key;
	se->hash = hash_key(key);
	mw_key_release(k);
	mw_chunk_enc_init(&se->open);
	for (t = 0; t < MW_TIERS; t++)
		se->acc[t].bucket = INT64_MIN;
	se->seen = s->now_ts;
	se->first_ts = INT64_MAX;
	se->minute_row = INT64_MIN;
	map_put(s, se);
	return se;
}

/*
 * The series' identity is its key: metric and labels are parsed from it
 * (catalog.h), so the catalogue always agrees with the key; metric and
 * labels given by the caller are the same for keys made by
 * mw_series_key_format (every collector's).
 */
struct mw_series *mw_series_create(struct mw_store *s, const char *key, const char *metric,
				   const struct mw_label *labels, size_t nlabels)
{
	struct mw_key k;

	(void)metric;
	(void)labels;
	(void)nlabels;
	mw_key_parse(&k, key);
	s->unsaved++;
	return create_parsed(s, mw_key_text(k.name, k.labels, k.nlabels), &k);
}

static void series_free(struct mw_series *se)
{
	free(se->key);
	mw_chunk_enc_release(&se->open);
	mw_dedupe_free(se->dd);
	free(se);
}

void mw_series_drop(struct mw_store *s, struct mw_series *se)
{
	if (se->order_pos < s->norder && s->order[se->order_pos] == se)
		s->order[se->order_pos] = NULL;
	map_del(s, se);
	s->all[se->slot] = s->all[s->nall - 1];
	s->all[se->slot]->slot = se->slot;
	s->nall--;
	s->stats.series = s->nall;
	series_free(se);
	/* give memory back once most series have gone */
	if (s->map_cap > 1024 && s->nall * 8 < s->map_cap)
		map_rebuild(s, s->map_cap / 2);
	if (s->all_cap > 1024 && s->nall * 4 < s->all_cap) {
		s->all_cap /= 2;
		s->all = mw_xrealloc(s->all, s->all_cap * sizeof(*s->all));
	}
}

void mw_series_free_all(struct mw_store *s)
{
	size_t i;

	for (i = 0; i < s->nall; i++)
		series_free(s->all[i]);
	free(s->all);
	free(s->map);
	s->all = s->map = NULL;
	free(s->order);
	free(s->order_next);
	s->order = s->order_next = NULL;
	s->norder = s->norder_next = s->order_cap = s->order_next_cap = 0;
	s->nall = s->all_cap = s->map_cap = 0;
}

/*
 * A restart takes up each live series' newest chunk (row last_chunk) as its
 * open chunk, as if the store had never stopped: it used to start a new
 * chunk for every live series, so a crash loop left one short chunk per
 * series and restart (364,459 chunk rows for 8,605 series after 150
 * crashes).  Its points are committed already, and are decoded anyway to
 * rebuild the rollups (recover_rollups appends them as it goes).  A row
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

/*
 * The buckets in progress of the coarser tiers from stored rows of a finer
 * one (src: 0 minutes, 1 ten minutes) in [from, to), each stored whole (a
 * tier's rows before a series' newest one are: store.c writes a bucket
 * when it completes, and write_quiet_minute keeps the newest minute
 * whole), rather than from raw points: start-up decoded up to an hour of
 * every live series' points, and took longer the later in the hour the
 * daemon restarted.  A row goes to each coarser tier t whose since[t]
 * (its newest stored bucket, recomputed whole) it is at or after.
 */
static int rows_into_tiers(struct mw_store *s, struct mw_series *se, int src,
			   const int64_t *since, int64_t from, int64_t to, struct mw_err *err)
{
	sqlite3_stmt *st = s->st[ST_RECOVER_MINUTES + src];
	int rc, t;

	sqlite3_bind_int64(st, 1, se->id);
	sqlite3_bind_int64(st, 2, from / mw_rollup_res[src]);
	sqlite3_bind_int64(st, 3, to / mw_rollup_res[src]);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct mw_rollup_acc part;

		part.bucket = sqlite3_column_int64(st, 0) * mw_rollup_res[src];
		part.count = sqlite3_column_int64(st, 1);
		mw_rollup_column(st, 2, part.count, &part.min, &part.max, &part.last, &part.sum);
		part.last_ts = part.bucket;	/* before any raw point replayed after */
		for (t = src + 1; t < MW_TIERS; t++)
			if (part.bucket >= since[t])
				mw_rollup_add_part(s, se, t, &part);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return mw_error(err, "cannot read %s of '%s': %s", mw_rollup_table[src], se->key,
				sqlite3_errmsg(s->db));
	return 0;
}

/*
 * The hour in progress from the 10-minute rows before the newest one, then
 * it and the 10 minutes in progress from the minutes after that: at most
 * 11 ten-minute rows and 19 minutes a series, where each tier read its
 * own minutes, up to 19 and 119 (the newest hour row is most often the
 * last hour's, recomputed whole): 0.4 s of a 1.0 s start-up after a crash
 * at 12,000 series.  A tier
 * whose newest row lies after the newest minute (rows the size cut took,
 * a clock step) is rebuilt from raw points.
 */
static int stored_into_tiers(struct mw_store *s, struct mw_series *se, int64_t *since,
			     struct mw_err *err)
{
	int64_t lo = INT64_MAX;
	int t;

	if (since[0] == INT64_MIN)
		return 0;
	if (since[1] != INT64_MIN && since[1] > since[2] && since[1] <= since[0]) {
		if (rows_into_tiers(s, se, 1, since, since[2], since[1], err))
			return -1;
		since[2] = since[1];
	}
	for (t = 1; t < MW_TIERS; t++)
		if (since[0] > since[t] && since[t] < lo)
			lo = since[t];
	if (lo == INT64_MAX)
		return 0;
	if (rows_into_tiers(s, se, 0, since, lo, since[0], err))
		return -1;
	for (t = 1; t < MW_TIERS; t++)
		if (since[0] > since[t])
			since[t] = since[0];
	return 0;
}

/* The newest stored bucket of se in a tier, as an accumulator (last_ts
 * its start): 1, 0 when the tier has none, -1 on error. */
static int newest_row(struct mw_store *s, struct mw_series *se, int tier,
		      struct mw_rollup_acc *out, struct mw_err *err)
{
	sqlite3_stmt *st = s->st[ST_NEWEST_1M + tier];
	int rc;

	sqlite3_bind_int64(st, 1, se->id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->bucket = sqlite3_column_int64(st, 0) * mw_rollup_res[tier];
		out->count = sqlite3_column_int64(st, 1);
		mw_rollup_column(st, 2, out->count, &out->min, &out->max, &out->last, &out->sum);
		out->last_ts = out->bucket;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return mw_error(err, "cannot read %s of '%s': %s", mw_rollup_table[tier], se->key,
				sqlite3_errmsg(s->db));
	return rc == SQLITE_ROW;
}

/* Rebuild the rollup accumulators of one series: the points from the
 * newest stored bucket of each tier on (that bucket may have been written
 * while still in progress, so it is recomputed whole), the coarser tiers'
 * from their stored minutes where they reach (minutes_into_tier), the rest from
 * raw chunks.  last_chunk > 0: that chunk, read on the way (its max_ts is
 * at or past every bucket's start), becomes the open chunk again
 * (continue_open). */
static int recover_rollups(struct mw_store *s, struct mw_series *se, int64_t last_chunk,
			   struct mw_err *err)
{
	sqlite3_stmt *chunks = s->st[ST_RECOVER_CHUNKS];
	int64_t since[MW_TIERS], from = INT64_MAX;
	int t, rc;

	for (t = 0; t < MW_TIERS; t++) {
		struct mw_rollup_acc row;

		if ((rc = newest_row(s, se, t, &row, err)) < 0)
			return -1;
		since[t] = rc ? row.bucket : INT64_MIN;
		if (since[t] < from)
			from = since[t];
	}
	/* rows stored after a coarser tier's newest stored bucket (any, when
	 * none is: a series younger than its first whole bucket, bar a
	 * crash): that tier's bucket in progress up to the newest minute, raw
	 * points only from there */
	if (stored_into_tiers(s, se, since, err))
		return -1;
	if (since[0] != INT64_MIN)
		from = since[0];
	sqlite3_bind_int64(chunks, 1, se->id);
	sqlite3_bind_int64(chunks, 2, from);
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
			for (t = 0; t < MW_TIERS; t++)
				if (ts >= since[t])
					mw_rollup_add(s, se, t, ts, v);
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
	if (since[0] != INT64_MIN && se->acc[0].bucket == since[0])
		se->minute_row = since[0];
	return 0;
}

/*
 * After a clean stop (store_impl.h clean_start) a live series' buckets in
 * progress are its newest rows: the last run wrote every tier's bucket in
 * progress whole as it stopped (mw_store_free), and nothing wrote the file
 * since.  Reading them back is three seeks, where rebuilding them read up
 * to 68 minute rows and decoded every chunk since the newest minute: at
 * 12,000 live series 1.1-1.5 s of a 1.5-1.8 s start-up (README, "A
 * simulated week").  Taken only when every tier's newest row is the
 * bucket of the series' newest point (newest: its newest chunk's max_ts,
 * true after a clean stop or fix_open_bounds): anything else (a last
 * minute of NaN only, rows the size cut took, a clock step) is rebuilt as
 * after a crash.  1: taken, 0: not (se unchanged), -1: error.
 */
static int resume_rollups(struct mw_store *s, struct mw_series *se, int64_t newest,
			  struct mw_err *err)
{
	struct mw_rollup_acc acc[MW_TIERS];
	int t, rc;

	if (newest == INT64_MIN)
		return 0;
	for (t = 0; t < MW_TIERS; t++) {
		if ((rc = newest_row(s, se, t, &acc[t], err)) <= 0)
			return rc;
		if (acc[t].bucket != mw_floor_to(newest, mw_rollup_res[t]) || acc[t].count <= 0)
			return 0;
		acc[t].last_ts = newest;
	}
	memcpy(se->acc, acc, sizeof(acc));
	se->minute_row = acc[0].bucket;	/* stored: kept whole as points come */
	se->minute_unsaved = false;
	s->stats.series_resumed++;
	return 1;
}

/*
 * With resume_rollups, which reads no chunk: the newest chunk is taken up
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
static void defer_take_up(struct mw_store *s, struct mw_series *se, int64_t rowid,
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

/* A series from its row, in memory (rollup state not rebuilt yet). */
static struct mw_series *enter(struct mw_store *s, int64_t id, char *key, struct mw_key *k,
			       int64_t first_ts)
{
	struct mw_series *se = create_parsed(s, key, k);

	se->id = id;
	se->first_ts = first_ts;
	return se;
}

/* During a batch, the first look-up opens a read transaction the rest
 * share (store_impl.h, in_batch); outside one, or when a transaction is
 * already open, each statement runs as it always did. */
static void batch_read_begin(struct mw_store *s)
{
	if (!s->in_batch || s->batch_reading || !sqlite3_get_autocommit(s->db))
		return;
	if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK)
		s->batch_reading = true;
}

void mw_series_batch_done(struct mw_store *s)
{
	if (!s->batch_reading)
		return;
	s->batch_reading = false;
	if (sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);	/* reads only */
}

struct mw_series *mw_series_get(struct mw_store *s, const char *key)
{
	sqlite3_stmt *st = s->st[ST_SERIES_FIND];
	struct mw_series *se = mw_series_find(s, key);
	int64_t metric_id, set_id;
	struct mw_err err;
	struct mw_key k;
	char *canon;
	int rc;

	if (se)
		return se;
	mw_key_parse(&k, key);
	canon = mw_key_text(k.name, k.labels, k.nlabels);
	if (strcmp(canon, key) && (se = mw_series_find(s, canon))) {
		free(canon);
		mw_key_release(&k);
		return se;
	}
	batch_read_begin(s);
	rc = mw_catalog_ids(&s->cat, k.name, k.labels, k.nlabels, false, &metric_id, &set_id,
			    &err);
	if (rc == 0) {
		sqlite3_bind_int64(st, 1, metric_id);
		sqlite3_bind_int64(st, 2, set_id);
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(st, 0);
			int64_t first = sqlite3_column_type(st, 1) == SQLITE_NULL
					? INT64_MIN : sqlite3_column_int64(st, 1);

			sqlite3_reset(st);
			se = enter(s, id, canon, &k, first);
			if (recover_rollups(s, se, 0, &err))
				mw_log_warn("storage: %s; its rollup buckets in progress start "
					    "empty", err.msg);
			canon = NULL;
			s->stats.series_reloaded_total++;
		} else if (rc != SQLITE_DONE && !s->failing) {
			mw_log_warn("storage: cannot look up series '%s': %s", key,
				    sqlite3_errmsg(s->db));
		}
		sqlite3_reset(st);
	} else if (rc < 0 && !s->failing) {
		/* treated as new: inserting it will fail the flush, and be logged */
		mw_log_warn("storage: cannot look up series '%s': %s", key, err.msg);
	}
	free(canon);
	mw_key_release(&k);
	return se;
}

static int cmp_label(const void *a, const void *b)
{
	return strcmp(((const struct mw_label *)a)->name, ((const struct mw_label *)b)->name);
}

/* The newest chunk of a live series, from the catalogue's row. */
struct newest_chunk {
	int64_t id;		/* 0: none */
	int64_t max_ts;		/* INT64_MIN: none */
	int64_t npoints;
};

/* One live series from its rows (one per label, any order): key rebuilt;
 * its rollup state from the rows after a clean stop, else rebuilt. */
static int load_live(struct mw_store *s, int64_t id, struct mw_key *k, int64_t first_ts,
		     int64_t seen, const struct newest_chunk *c, struct mw_err *err)
{
	struct mw_series *se;
	char *key;
	int rc = 0;

	if (k->nlabels > 1)
		qsort(k->labels, k->nlabels, sizeof(*k->labels), cmp_label);
	key = mw_key_text(k->name, k->labels, k->nlabels);

	if (mw_series_find(s, key)) {
		free(key);
		mw_key_release(k);
		return 0;
	}
	se = enter(s, id, key, k, first_ts);
	if (s->clean_start && (rc = resume_rollups(s, se, c->max_ts, err)) == 1) {
		defer_take_up(s, se, c->id, c->npoints);
		rc = 0;
	} else if (rc == 0) {
		rc = recover_rollups(s, se, c->id, err);
	}
	if (rc)
		return -1;
	se->live_row = true;
	se->seen = seen;
	mw_store_saw(s, seen);
	return 0;
}

int mw_series_load(struct mw_store *s, struct mw_err *err)
{
	sqlite3_stmt *sel = NULL;
	struct mw_key k;
	int64_t cur = 0, first = INT64_MIN, seen = INT64_MIN;
	struct newest_chunk c = { 0, INT64_MIN, 0 };
	size_t cap = 0;
	bool have = false;
	int rc = -1, step;

	memset(&k, 0, sizeof(k));
	if (mw_db_prepare(s->db, &sel, "SELECT s.id, m.name, s.first_ts, coalesce(c.last_ts, c.max_ts), l.name, l.value, c.id,"
			  " c.max_ts, c.npoints"
			  " FROM series_live v JOIN series s ON s.id = v.series_id"
			  " JOIN metric m ON m.id = s.metric_id"
			  " LEFT JOIN chunk c ON c.id = s.last_chunk"
			  " LEFT JOIN label_set ls ON ls.id = s.set_id"
			  " LEFT JOIN json_each('[' || ls.labels || ']') sm"
			  " LEFT JOIN label l ON l.id = sm.value"
			  " ORDER BY v.series_id", err))
		goto out;
	for (;;) {
		int64_t id = 0;

		step = sqlite3_step(sel);
		if (step == SQLITE_ROW)
			id = sqlite3_column_int64(sel, 0);
		if (have && (step != SQLITE_ROW || id != cur)) {
			if (load_live(s, cur, &k, first, seen, &c, err))
				goto out;
			have = false;
		}
		if (step != SQLITE_ROW)
			break;
		if (!have) {
			const char *name = (const char *)sqlite3_column_text(sel, 1);

			have = true;
			cur = id;
			cap = 0;
			memset(&k, 0, sizeof(k));
			k.name = mw_xstrdup(name ? name : "");
			first = sqlite3_column_type(sel, 2) == SQLITE_NULL
				? INT64_MIN : sqlite3_column_int64(sel, 2);
			seen = sqlite3_column_type(sel, 3) == SQLITE_NULL
			       ? INT64_MIN : sqlite3_column_int64(sel, 3);
			c.id = sqlite3_column_int64(sel, 6);	/* 0: none */
			c.max_ts = sqlite3_column_type(sel, 7) == SQLITE_NULL
				   ? INT64_MIN : sqlite3_column_int64(sel, 7);
			c.npoints = sqlite3_column_int64(sel, 8);
		}
		if (sqlite3_column_type(sel, 4) != SQLITE_NULL) {
			struct mw_label *l;

			MW_GROW(k.labels, cap, k.nlabels + 1);
			l = &k.labels[k.nlabels++];
			l->name = mw_xstrdup((const char *)sqlite3_column_text(sel, 4));
			l->value = mw_xstrdup((const char *)sqlite3_column_text(sel, 5));
		}
	}
	if (step != SQLITE_DONE) {
		mw_error(err, "cannot read series: %s", sqlite3_errmsg(s->db));
		goto out;
	}
	rc = 0;
out:
	mw_key_release(&k);
	sqlite3_finalize(sel);
	return rc;
}

int mw_series_insert_new(struct mw_store *s, struct mw_err *err)
{
	sqlite3_stmt *ins = s->st[ST_SERIES_INSERT];
	size_t i;

	if (!s->unsaved)
		return 0;	/* no pass over every series for nothing */
	for (i = 0; i < s->nall; i++) {
		struct mw_series *se = s->all[i];
		int64_t metric_id, set_id;
		struct mw_key k;
		int rc;

		if (se->id)
			continue;
		/* the key is canonical: parsing it again gives the identity it
		 * was made from */
		mw_key_parse(&k, se->key);
		rc = mw_catalog_ids(&s->cat, k.name, k.labels, k.nlabels, true, &metric_id, &set_id,
				    err);
		mw_key_release(&k);
		if (rc)
			return mw_error_prefix(err, "series '%s'", se->key);
		sqlite3_bind_int64(ins, 1, metric_id);
		sqlite3_bind_int64(ins, 2, set_id);
		/* NULL: its first chunk's min_ts, recorded by retention before
		 * that chunk goes (6 bytes less per series) */
		sqlite3_bind_null(ins, 3);
		if (sqlite3_step(ins) != SQLITE_DONE) {
			sqlite3_reset(ins);
			return mw_error(err, "cannot insert series '%s': %s", se->key,
					sqlite3_errmsg(s->db));
		}
		sqlite3_reset(ins);
		se->tx_id = sqlite3_last_insert_rowid(s->db);
	}
	return 0;
}
