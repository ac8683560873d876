/*
 * series.c - the writer's series catalogue: canonical key -> series, in a
 * hash map so a tick of thousands of samples costs no SQL lookups; rows of
 * the series and series_label tables are inserted at the next flush.
 *
 * At open the catalogue is loaded from the database and the rollup
 * accumulators are rebuilt from the raw chunks newer than each series'
 * newest rollup row: rollup rows are written when a bucket completes, so
 * after a crash the buckets in progress are recomputed, not lost.
 */
#include <stdlib.h>
#include <string.h>

#include "store_impl.h"
#include "schema.h"
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
	size_t i;

	if (!s->map_cap)
		return NULL;
	for (i = hash_key(key) & (s->map_cap - 1); s->map[i]; i = (i + 1) & (s->map_cap - 1))
		if (!strcmp(s->map[i]->key, key))
			return s->map[i];
	return NULL;
}

static void map_put(struct mw_store *s, struct mw_series *se)
{
	size_t i;

	if ((s->nall + 1) * 2 > s->map_cap) {
		size_t cap = s->map_cap ? s->map_cap * 2 : 1024, j;
		struct mw_series **map = mw_xcalloc(cap, sizeof(*map));

		for (j = 0; j < s->nall; j++) {
			for (i = hash_key(s->all[j]->key) & (cap - 1); map[i]; i = (i + 1) & (cap - 1))
				;
			map[i] = s->all[j];
		}
		free(s->map);
		s->map = map;
		s->map_cap = cap;
	}
	for (i = hash_key(se->key) & (s->map_cap - 1); s->map[i]; i = (i + 1) & (s->map_cap - 1))
		;
	s->map[i] = se;
	MW_GROW(s->all, s->all_cap, s->nall + 1);
	s->all[s->nall++] = se;
	s->stats.series = s->nall;
}

struct mw_series *mw_series_create(struct mw_store *s, const char *key, const char *metric,
				   const struct mw_label *labels, size_t nlabels)
{
	struct mw_series *se = mw_xcalloc(1, sizeof(*se));
	size_t i;
	int t;

	se->key = mw_xstrdup(key);
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

/* Rebuild the rollup accumulators of one series from raw chunks. */
static int recover_rollups(struct mw_store *s, struct mw_series *se, sqlite3_stmt *last[MW_TIERS],
			   sqlite3_stmt *chunks, struct mw_err *err)
{
	int64_t since[MW_TIERS], from = INT64_MAX;
	int t, rc;

	for (t = 0; t < MW_TIERS; t++) {
		sqlite3_bind_int64(last[t], 1, se->id);
		since[t] = INT64_MIN;
		if (sqlite3_step(last[t]) == SQLITE_ROW &&
		    sqlite3_column_type(last[t], 0) != SQLITE_NULL)
			since[t] = sqlite3_column_int64(last[t], 0);
		sqlite3_reset(last[t]);
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

int mw_series_load(struct mw_store *s, struct mw_err *err)
{
	sqlite3_stmt *sel = NULL, *last[MW_TIERS] = { NULL, NULL }, *chunks = NULL;
	int rc = -1, step;

	if (mw_db_prepare(s->db, &sel, "SELECT id, key, name FROM series ORDER BY id", err) ||
	    mw_db_prepare(s->db, &last[0], "SELECT max(t) * 60000 FROM rollup_1m_data "
			  "WHERE series_id = ?", err) ||
	    mw_db_prepare(s->db, &last[1], "SELECT max(t) * 3600000 FROM rollup_1h_data "
			  "WHERE series_id = ?", err) ||
	    mw_db_prepare(s->db, &chunks, "SELECT data FROM chunk WHERE series_id = ? "
			  "AND max_ts >= ? ORDER BY id", err))
		goto out;
	while ((step = sqlite3_step(sel)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(sel, 1);
		const char *name = (const char *)sqlite3_column_text(sel, 2);
		struct mw_series *se;

		if (!key || !name || mw_series_find(s, key))
			continue;
		se = mw_series_create(s, key, name, NULL, 0);
		se->id = sqlite3_column_int64(sel, 0);
		if (recover_rollups(s, se, last, chunks, err))
			goto out;
	}
	if (step != SQLITE_DONE) {
		mw_error(err, "cannot read series: %s", sqlite3_errmsg(s->db));
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(last[0]);
	sqlite3_finalize(last[1]);
	sqlite3_finalize(chunks);
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
