/*
 * series.c - the writer's series catalogue: canonical key -> series, in a
 * hash map so a tick of thousands of samples costs no SQL lookups; rows of
 * the series and series_label tables are inserted at the next flush.
 *
 * Only live series are in memory: a series idle for series_idle_ms is
 * written out and dropped (store.c), and found again here by key when a
 * point for it comes back.  At open only the series of the series_live
 * table (those in memory when the store last ran) are loaded, so start-up
 * costs what the live series cost, whatever the file holds.  What a
 * series brings from the database as it enters memory (its rollup buckets
 * in progress, its open chunk taken up again) is series_state.c's.
 *
 * Uses series_state.c, catalog.c, dedupe.c and db.c.  Used by store.c
 * (store_impl.h); it never calls back into store.c.
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

/* A live series' size is the writer's memory per series (issue 26: 424
 * bytes and a key's block before the coarser tiers were derived from the
 * stored rows): a field added must find room, or say why it cannot.  264
 * -> 272: the encoder's trimmed base (codec.h), which gives back ~200
 * bytes a series once its chunk has a minute of points. */
_Static_assert(sizeof(struct mw_series) <= 272, "struct mw_series grew");

/* A series in memory from its canonical key (taken) and parsed identity
 * (released: the metric and labels are parsed from the key again when the
 * series row is inserted, mw_series_insert_new; keeping them beside the
 * key cost ~290 bytes a series, a third of the writer's heap per series). */
static struct mw_series *create_parsed(struct mw_store *s, char *key, struct mw_key *k)
{
	size_t len = strlen(key);
	struct mw_series *se = mw_xcalloc(1, sizeof(*se) + len + 1);

	memcpy(se->key, key, len + 1);
	free(key);
	se->hash = hash_key(se->key);
	mw_key_release(k);
	mw_chunk_enc_init(&se->open);
	se->minute.bucket = INT64_MIN;
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
			if (mw_series_recover(s, se, 0, &err))
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
	if (s->clean_start && (rc = mw_series_resume(s, se, c->max_ts, err)) == 1) {
		mw_series_defer_take_up(s, se, c->id, c->npoints);
		rc = 0;
	} else if (rc == 0) {
		rc = mw_series_recover(s, se, c->id, err);
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
