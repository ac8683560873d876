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
 * not lost.
 */
#include <stdlib.h>
#include <string.h>

#include "store_impl.h"
#include "schema.h"
#include "daemon/log.h"
#include "daemon/xalloc.h"

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

struct mw_series *mw_series_create(struct mw_store *s, const char *key, const char *metric,
				   const struct mw_label *labels, size_t nlabels)
{
	struct mw_series *se = mw_xcalloc(1, sizeof(*se));
	size_t i;
	int t;

	se->key = mw_xstrdup(key);
	se->hash = hash_key(key);
	se->metric = mw_xstrdup(metric);
	if (nlabels) {
		se->labels = mw_xcalloc(nlabels, sizeof(*se->labels));
		for (i = 0; i < nlabels; i++) {
			se->labels[i].name = mw_xstrdup(labels[i].name);
			se->labels[i].value = mw_xstrdup(labels[i].value);
		}
		se->nlabels = nlabels;
	}
	mw_chunk_enc_init(&se->open);
	for (t = 0; t < MW_TIERS; t++)
		se->acc[t].bucket = INT64_MIN;
	se->seen = s->now_ts;
	se->first_ts = INT64_MAX;
	map_put(s, se);
	return se;
}

static void series_free(struct mw_series *se)
{
	size_t i;

	for (i = 0; i < se->nlabels; i++) {
		free((char *)se->labels[i].name);
		free((char *)se->labels[i].value);
	}
	free(se->labels);
	free(se->key);
	free(se->metric);
	mw_chunk_enc_release(&se->open);
	free(se);
}

void mw_series_drop(struct mw_store *s, struct mw_series *se)
{
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
	s->nall = s->all_cap = s->map_cap = 0;
}

/* Rebuild the rollup accumulators of one series from raw chunks: the
 * points from the newest stored bucket of each tier on (that bucket may
 * have been written while still in progress, when the series left memory
 * or the store closed, so it is recomputed whole). */
static int recover_rollups(struct mw_store *s, struct mw_series *se, struct mw_err *err)
{
	sqlite3_stmt *chunks = s->st[ST_RECOVER_CHUNKS];
	int64_t since[MW_TIERS], from = INT64_MAX;
	int t, rc;

	for (t = 0; t < MW_TIERS; t++) {
		sqlite3_stmt *last = s->st[t ? ST_LAST_1H : ST_LAST_1M];

		sqlite3_bind_int64(last, 1, se->id);
		since[t] = INT64_MIN;
		if (sqlite3_step(last) == SQLITE_ROW &&
		    sqlite3_column_type(last, 0) != SQLITE_NULL)
			since[t] = sqlite3_column_int64(last, 0);
		sqlite3_reset(last);
		if (since[t] < from)
			from = since[t];
	}
	sqlite3_bind_int64(chunks, 1, se->id);
	sqlite3_bind_int64(chunks, 2, from);
	while ((rc = sqlite3_step(chunks)) == SQLITE_ROW) {
		struct mw_chunk_dec d;
		int64_t ts;
		double v;

		if (mw_chunk_dec_init(&d, sqlite3_column_blob(chunks, 0),
				      (size_t)sqlite3_column_bytes(chunks, 0)))
			continue;
		while (mw_chunk_dec_next(&d, &ts, &v) == 1)
			for (t = 0; t < MW_TIERS; t++)
				if (ts >= since[t])
					mw_store_rollup_tier(s, se, t, ts, v);
	}
	sqlite3_reset(chunks);
	if (rc != SQLITE_DONE)
		return mw_error(err, "cannot read chunks of '%s': %s", se->key,
				sqlite3_errmsg(s->db));
	return 0;
}

/* A series from its row: in memory, rollup state rebuilt. */
static struct mw_series *load_one(struct mw_store *s, int64_t id, const char *key,
				  const char *name, int64_t first_ts, struct mw_err *err)
{
	struct mw_series *se = mw_series_create(s, key, name, NULL, 0);

	se->id = id;
	se->first_ts = first_ts;
	if (recover_rollups(s, se, err))
		return NULL;
	return se;
}

struct mw_series *mw_series_get(struct mw_store *s, const char *key)
{
	sqlite3_stmt *st = s->st[ST_SERIES_FIND];
	struct mw_series *se = mw_series_find(s, key);
	struct mw_err err;
	int rc;

	if (se)
		return se;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 1);

		se = load_one(s, sqlite3_column_int64(st, 0), key, name ? name : "",
			      sqlite3_column_type(st, 2) == SQLITE_NULL
			      ? INT64_MIN : sqlite3_column_int64(st, 2), &err);
		if (!se)
			mw_log_warn("storage: %s; its rollup buckets in progress start empty",
				    err.msg);
		se = mw_series_find(s, key);
		s->stats.series_reloaded_total++;
	} else if (rc != SQLITE_DONE && !s->failing) {
		/* treated as new: inserting it will fail the flush, and be logged */
		mw_log_warn("storage: cannot look up series '%s': %s", key,
			    sqlite3_errmsg(s->db));
	}
	sqlite3_reset(st);
	return se;
}

int mw_series_load(struct mw_store *s, struct mw_err *err)
{
	sqlite3_stmt *sel = NULL;
	int rc = -1, step;

	if (mw_db_prepare(s->db, &sel, "SELECT s.id, s.key, s.name, s.first_ts, l.ts "
			  "FROM series_live v JOIN series s ON s.id = v.series_id "
			  "LEFT JOIN latest l ON l.series_id = v.series_id", err))
		goto out;
	while ((step = sqlite3_step(sel)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(sel, 1);
		const char *name = (const char *)sqlite3_column_text(sel, 2);
		int64_t seen = sqlite3_column_type(sel, 4) == SQLITE_NULL
			       ? INT64_MIN : sqlite3_column_int64(sel, 4);
		struct mw_series *se;

		if (!key || !name || mw_series_find(s, key))
			continue;
		se = load_one(s, sqlite3_column_int64(sel, 0), key, name,
			      sqlite3_column_type(sel, 3) == SQLITE_NULL
			      ? INT64_MIN : sqlite3_column_int64(sel, 3), err);
		if (!se)
			goto out;
		se->live_row = true;
		se->seen = seen;
		if (seen > s->now_ts)
			s->now_ts = seen;
	}
	if (step != SQLITE_DONE) {
		mw_error(err, "cannot read series: %s", sqlite3_errmsg(s->db));
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(sel);
	return rc;
}

int mw_series_insert_new(struct mw_store *s, int64_t now_ms, struct mw_err *err)
{
	sqlite3_stmt *ins = s->st[ST_SERIES_INSERT], *lab = s->st[ST_LABEL_INSERT];
	size_t i, j;

	for (i = 0; i < s->nall; i++) {
		struct mw_series *se = s->all[i];

		if (se->id)
			continue;
		sqlite3_bind_text(ins, 1, se->key, -1, SQLITE_STATIC);
		sqlite3_bind_text(ins, 2, se->metric, -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 3, now_ms);
		if (se->first_ts != INT64_MAX)
			sqlite3_bind_int64(ins, 4, se->first_ts);
		else
			sqlite3_bind_null(ins, 4);
		if (sqlite3_step(ins) != SQLITE_DONE) {
			sqlite3_reset(ins);
			return mw_error(err, "cannot insert series '%s': %s", se->key,
					sqlite3_errmsg(s->db));
		}
		sqlite3_reset(ins);
		se->tx_id = sqlite3_last_insert_rowid(s->db);
		for (j = 0; j < se->nlabels; j++) {
			sqlite3_bind_int64(lab, 1, se->tx_id);
			sqlite3_bind_text(lab, 2, se->labels[j].name, -1, SQLITE_STATIC);
			sqlite3_bind_text(lab, 3, se->labels[j].value, -1, SQLITE_STATIC);
			if (sqlite3_step(lab) != SQLITE_DONE) {
				sqlite3_reset(lab);
				return mw_error(err, "cannot insert labels of '%s': %s",
						se->key, sqlite3_errmsg(s->db));
			}
			sqlite3_reset(lab);
		}
	}
	return 0;
}
