/*
 * query_series.c - series selection (query.h "series"): selectors, ids
 * and keys resolved to series, with their first and last timestamps.
 *
 * Uses reader.c (statements, transactions), label_cache.c (label sets)
 * and catalog.c (a key's ids).  Used by query_range.c and query_latest.c
 * (mw_reader_collect, mw_reader_load_series, mw_reader_fill_range, the
 * tier statements) and by callers of query.h.
 *
 * Series rows (schema 7, catalog.h): one per series, with its label set's
 * text ("3,17,18"); mw_reader_collect() resolves the label ids through a
 * cache that lives for one call (label_cache.h) and rebuilds the key.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "query_impl.h"
#include "label_cache.h"
#include "base/xalloc.h"

#define SERIES_COLS "SELECT s.id, s.set_id, m.name, ls.labels"
#define WITH_METRIC " JOIN metric m ON m.id = s.metric_id"
#define WITH_LABELS " LEFT JOIN label_set ls ON ls.id = s.set_id"

static const char *const series_sql[MW_READER_SLOTS] = {
	[MW_SLOT_FIRST_RAW] = "SELECT min_ts FROM chunk WHERE series_id = ? ORDER BY max_ts LIMIT 1",
	/* the minutes loose and packed (minute_vtab.h): ordered, one row read */
	[MW_SLOT_FIRST_1M] = "SELECT (SELECT t FROM rollup_1m_all WHERE series_id = ?1"
			     " ORDER BY t LIMIT 1) * 60000",
	[MW_SLOT_FIRST_10M] = "SELECT min(t) * 600000 FROM rollup_10m_data WHERE series_id = ?",
	[MW_SLOT_FIRST_1H] = "SELECT min(t) * 3600000 FROM rollup_1h_data WHERE series_id = ?",
	/* the newest chunk's newest point (an open chunk's max_ts is a bound,
	 * see store.c; last_ts is NULL when it is max_ts) */
	[MW_SLOT_LAST_RAW] = "SELECT coalesce(last_ts, max_ts), id, npoints FROM chunk WHERE series_id = ? "
			     "ORDER BY max_ts DESC LIMIT 1",
	[MW_SLOT_LAST_1M] = "SELECT (SELECT t FROM rollup_1m_all WHERE series_id = ?1"
			    " ORDER BY t DESC LIMIT 1) * 60000",
	[MW_SLOT_LAST_10M] = "SELECT max(t) * 600000 FROM rollup_10m_data WHERE series_id = ?",
	[MW_SLOT_LAST_1H] = "SELECT max(t) * 3600000 FROM rollup_1h_data WHERE series_id = ?",
	[MW_SLOT_FIRST_RECORDED] = "SELECT first_ts FROM series WHERE id = ?",
	[MW_SLOT_FIND_NAME] = SERIES_COLS " FROM metric m JOIN series s ON s.metric_id = m.id"
			      WITH_LABELS " WHERE m.name = ?1",
	[MW_SLOT_FIND_LABEL] = SERIES_COLS " FROM label f"
			       " JOIN label_set_member fm ON fm.label_id = f.id"
			       " JOIN series s ON s.set_id = fm.set_id" WITH_METRIC WITH_LABELS
			       " WHERE f.name = ?1 AND f.value = ?2",
	[MW_SLOT_FIND_ALL] = SERIES_COLS " FROM series s" WITH_METRIC WITH_LABELS,
	[MW_SLOT_NAMES] = "SELECT name FROM metric m WHERE EXISTS"
			  " (SELECT 1 FROM series s WHERE s.metric_id = m.id) ORDER BY name",
	[MW_SLOT_BY_ID] = SERIES_COLS " FROM series s" WITH_METRIC WITH_LABELS
			  " WHERE s.id = ?1",
	/* ?1, ?2: the ids mw_catalog_ids found for the parsed key */
	[MW_SLOT_BY_KEY] = SERIES_COLS " FROM series s" WITH_METRIC WITH_LABELS
			   " WHERE s.metric_id = ?1 AND s.set_id = ?2",
	/* the newest point of a series is its newest chunk's */
	[MW_SLOT_LATEST_LIVE] = SERIES_COLS ", coalesce(c.last_ts, c.max_ts), c.last_value,"
				" c.id, c.npoints"
				" FROM series_live v"
				" JOIN series s ON s.id = v.series_id" WITH_METRIC
				" JOIN chunk c ON c.id = s.last_chunk" WITH_LABELS
				" ORDER BY v.series_id",
	/* the same for one metric: the live table still walked (never the
	 * metric's dead series, tens of thousands on a host with churn),
	 * but the other metrics' rows left before their chunk and labels */
	[MW_SLOT_LATEST_LIVE_NAMED] = SERIES_COLS ", coalesce(c.last_ts, c.max_ts), c.last_value,"
				      " c.id, c.npoints"
				      " FROM series_live v"	/* CROSS: walked first */
				      " CROSS JOIN series s ON s.id = v.series_id" WITH_METRIC
				      " JOIN chunk c ON c.id = s.last_chunk" WITH_LABELS
				      " WHERE s.metric_id = (SELECT id FROM metric WHERE name = ?1)"
				      " ORDER BY v.series_id",
};

static sqlite3_stmt *stmt(struct mw_reader *r, int slot, struct mw_err *err)
{
	return mw_reader_stmt(r, slot, series_sql[slot], err);
}

sqlite3_stmt *mw_reader_tier_first(struct mw_reader *r, int tier, struct mw_err *err)
{
	return stmt(r, MW_SLOT_FIRST_RAW + tier, err);
}

sqlite3_stmt *mw_reader_tier_last(struct mw_reader *r, int tier, struct mw_err *err)
{
	return stmt(r, MW_SLOT_LAST_RAW + tier, err);
}

/* The newest value of every live series, or of one metric's (columns as
 * mw_reader_collect reads them with a value), in series id order. */
sqlite3_stmt *mw_reader_live_stmt(struct mw_reader *r, const char *name, struct mw_err *err)
{
	sqlite3_stmt *st;

	if (!name)
		return stmt(r, MW_SLOT_LATEST_LIVE, err);
	if ((st = stmt(r, MW_SLOT_LATEST_LIVE_NAMED, err)))
		sqlite3_bind_text(st, 1, name, -1, SQLITE_TRANSIENT);
	return st;
}

/* ---- series --------------------------------------------------------------- */

void mw_series_info_release(struct mw_series_info *info)
{
	mw_labels_release(info->labels, info->nlabels);
	free(info->labels);
	free(info->key);
	free(info->name);
	memset(info, 0, sizeof(*info));
	info->first_ts = info->last_ts = INT64_MIN;
}

void mw_series_list_release(struct mw_series_list *list)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		mw_series_info_release(&list->items[i]);
	free(list->items);
	list->items = NULL;
	list->n = 0;
}


/*
 * The first stored point of a series: the one recorded with its row
 * (schema 5) while a stored bucket or chunk still holds it, i.e. it lies
 * between the earliest start and the earliest end of every tier's oldest
 * data; else (retention took it, or a file of schema 4) the first raw
 * point when the rollups hold nothing clearly older; else the start of
 * the oldest rollup bucket.  Rollup buckets start before their first
 * point, so they alone never give it.
 */
static int64_t first_point(int64_t recorded, const int64_t lo[MW_READ_TIERS])
{
	int64_t start = INT64_MAX, end = INT64_MAX, e;
	int t;

	for (t = 0; t < MW_READ_TIERS; t++) {
		if (lo[t] == INT64_MAX)
			continue;
		if (lo[t] < start)
			start = lo[t];
		e = t ? lo[t] + mw_tier_res[t] - 1 : lo[t];
		if (e < end)
			end = e;
	}
	if (start == INT64_MAX)
		return INT64_MIN;
	if (recorded != INT64_MIN && recorded >= start && recorded <= end)
		return recorded;
	if (lo[0] != INT64_MAX && lo[0] <= end)
		return lo[0];
	return start;
}

/* The newest raw point of series id into *last: its newest chunk row's,
 * or what chunk_tail holds past it (chunk_tail.h); INT64_MIN: none.  -1
 * when the tails cannot be read. */
static int raw_last(struct mw_reader *r, sqlite3_stmt *st, int64_t id, int64_t *last,
		    struct mw_err *err)
{
	int64_t ts, n;
	double v;
	int rc = 0;

	*last = INT64_MIN;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*last = sqlite3_column_int64(st, 0);
		rc = mw_reader_chunk_newest(r, sqlite3_column_int64(st, 1),
					    sqlite3_column_int64(st, 2), &ts, &v, &n, err);
		if (rc == 1)
			*last = ts;
	}
	sqlite3_reset(st);
	return rc < 0 ? -1 : 0;
}

/* Index seeks only.  with_last false: first_ts only, last_ts left
 * INT64_MIN (the caller knows the newest point: mw_reader_fill_spans). */
static int fill_range(struct mw_reader *r, struct mw_series_info *info, size_t n,
		      bool with_last, struct mw_err *err)
{
	sqlite3_stmt *first[MW_READ_TIERS], *last[MW_READ_TIERS], *rec = NULL;
	size_t i;
	int t;

	for (t = 0; t < MW_READ_TIERS; t++)
		if (!(first[t] = mw_reader_tier_first(r, t, err)) ||
		    (with_last && !(last[t] = mw_reader_tier_last(r, t, err))))
			return -1;
	if (!(rec = stmt(r, MW_SLOT_FIRST_RECORDED, err)))
		return -1;
	for (i = 0; i < n; i++) {
		int64_t lo[MW_READ_TIERS], hi = INT64_MIN;

		if (mw_reader_check_deadline(r, err))
			return -1;
		for (t = 0; t < MW_READ_TIERS; t++) {
			int64_t b = INT64_MIN;

			/* A rollup bucket starts at or before its points, so a
			 * series with raw points has its newest one there: the
			 * rollups' ends are sought only when retention or the
			 * size cap took every chunk. */
			if (with_last && t && hi == INT64_MIN)
				b = mw_stmt_int(last[t], info[i].id, INT64_MIN);
			else if (with_last && !t && raw_last(r, last[t], info[i].id, &b, err))
				return -1;
			lo[t] = mw_stmt_int(first[t], info[i].id, INT64_MAX);
			if (b > hi)
				hi = b;
		}
		info[i].first_ts = first_point(rec ? mw_stmt_int(rec, info[i].id, INT64_MIN)
					       : INT64_MIN, lo);
		info[i].last_ts = hi;
	}
	return 0;
}

int mw_reader_fill_range(struct mw_reader *r, struct mw_series_info *info, size_t n,
			 struct mw_err *err)
{
	return fill_range(r, info, n, true, err);
}

void mw_found_release(struct mw_found *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		mw_series_info_release(&f->items[i].info);
	free(f->items);
	memset(f, 0, sizeof(*f));
}

int mw_reader_collect(struct mw_reader *r, sqlite3_stmt *st, const struct mw_selector *sel,
		      bool with_value, struct mw_found *f, struct mw_err *err)
{
	struct mw_label_cache lc;
	int rc;

	memset(&lc, 0, sizeof(lc));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct mw_latest cur;
		int64_t tail_n;

		if (mw_reader_expired(r)) {
			rc = SQLITE_INTERRUPT;
			break;
		}
		memset(&cur, 0, sizeof(cur));
		cur.info.id = sqlite3_column_int64(st, 0);
		cur.info.name = mw_column_dup(st, 2);
		cur.info.first_ts = cur.info.last_ts = INT64_MIN;
		cur.past_ts_ms = INT64_MIN;
		cur.past_value = NAN;
		cur.ts_ms = INT64_MIN;
		if (with_value) {
			cur.ts_ms = sqlite3_column_int64(st, 4);
			cur.value = sqlite3_column_type(st, 5) == SQLITE_NULL
				    ? NAN : sqlite3_column_double(st, 5);
			/* points chunk_tail holds past the chunk row */
			if (mw_reader_chunk_newest(r, sqlite3_column_int64(st, 6),
						   sqlite3_column_int64(st, 7), &cur.ts_ms,
						   &cur.value, &tail_n, err) < 0) {
				mw_series_info_release(&cur.info);
				sqlite3_reset(st);
				mw_label_cache_release(&lc);
				return -1;
			}
			cur.info.last_ts = cur.ts_ms;
		}
		if (mw_label_cache_set(r, &lc, sqlite3_column_int64(st, 1),
			       (const char *)sqlite3_column_text(st, 3), &cur.info, err)) {
			mw_series_info_release(&cur.info);
			sqlite3_reset(st);
			mw_label_cache_release(&lc);
			return -1;
		}
		if (sel && !mw_selector_match(sel, cur.info.name, cur.info.labels,
					      cur.info.nlabels)) {
			mw_series_info_release(&cur.info);
			continue;
		}
		cur.info.key = mw_key_text(cur.info.name, cur.info.labels, cur.info.nlabels);
		MW_GROW(f->items, f->cap, f->n + 1);
		f->items[f->n++] = cur;
	}
	sqlite3_reset(st);
	mw_label_cache_release(&lc);
	return rc == SQLITE_DONE ? 0 : mw_reader_fail(r, err);	/* step_err: deadline too */
}

static int cmp_found_key(const void *a, const void *b)
{
	return strcmp(((const struct mw_latest *)a)->info.key,
		      ((const struct mw_latest *)b)->info.key);
}

void mw_found_sort(struct mw_found *f)
{
	if (f->n > 1)
		qsort(f->items, f->n, sizeof(*f->items), cmp_found_key);
}

/*
 * The series matching sel, sorted by key, from the narrowest index: a
 * label="v" matcher (labels by name and value), else the metric name
 * (series by name), else each distinct name a __name__ matcher accepts,
 * else every series; the whole selector is then checked on each.
 */
static int select_series(struct mw_reader *r, const struct mw_selector *sel, struct mw_found *f,
			 struct mw_err *err)
{
	const struct mw_matcher *eq = NULL;
	const char *exact = sel->name;
	bool name_matchers = false;
	sqlite3_stmt *st;
	size_t i;
	int rc = 0;

	for (i = 0; i < sel->n; i++) {
		const struct mw_matcher *m = &sel->m[i];

		if (!strcmp(m->label, "__name__")) {
			name_matchers = true;
			if (!exact && m->op == MW_MATCH_EQ)
				exact = m->value;
		} else if (!eq && m->op == MW_MATCH_EQ && *m->value) {
			eq = m;
		}
	}
	if (eq) {
		if (!(st = stmt(r, MW_SLOT_FIND_LABEL, err)))
			return -1;
		sqlite3_bind_text(st, 1, eq->label, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, eq->value, -1, SQLITE_STATIC);
		rc = mw_reader_collect(r, st, sel, false, f, err);
	} else if (exact) {
		if (!(st = stmt(r, MW_SLOT_FIND_NAME, err)))
			return -1;
		sqlite3_bind_text(st, 1, exact, -1, SQLITE_STATIC);
		rc = mw_reader_collect(r, st, sel, false, f, err);
	} else if (name_matchers) {
		struct mw_selector by_name = { NULL, NULL, 0 };
		sqlite3_stmt *names = stmt(r, MW_SLOT_NAMES, err);
		char **keep = NULL;
		size_t nkeep = 0, cap = 0;
		int step;

		if (!names || !(st = stmt(r, MW_SLOT_FIND_NAME, err)))
			return -1;
		by_name.m = mw_xmalloc(sel->n * sizeof(*by_name.m));
		for (i = 0; i < sel->n; i++)
			if (!strcmp(sel->m[i].label, "__name__"))
				by_name.m[by_name.n++] = sel->m[i];
		while ((step = sqlite3_step(names)) == SQLITE_ROW && !mw_reader_expired(r)) {
			const char *name = (const char *)sqlite3_column_text(names, 0);

			if (name && mw_selector_match(&by_name, name, NULL, 0)) {
				MW_GROW(keep, cap, nkeep + 1);
				keep[nkeep++] = mw_xstrdup(name);
			}
		}
		sqlite3_reset(names);
		free(by_name.m);
		if (step != SQLITE_DONE)
			rc = mw_reader_fail(r, err);
		for (i = 0; i < nkeep; i++) {
			if (!rc) {
				sqlite3_bind_text(st, 1, keep[i], -1, SQLITE_STATIC);
				rc = mw_reader_collect(r, st, sel, false, f, err);
			}
			free(keep[i]);
		}
		free(keep);
	} else {
		if (!(st = stmt(r, MW_SLOT_FIND_ALL, err)))
			return -1;
		rc = mw_reader_collect(r, st, sel, false, f, err);
	}
	if (rc)
		return -1;
	mw_found_sort(f);
	return 0;
}

int mw_reader_load_series(struct mw_reader *r, const struct mw_selector *sel,
			  const int64_t *id, const char *key, struct mw_series_list *out,
			  struct mw_err *err)
{
	struct mw_found f = { NULL, 0, 0 };
	sqlite3_stmt *st;
	size_t i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (id) {
		if (!(st = stmt(r, MW_SLOT_BY_ID, err)))
			return -1;
		sqlite3_bind_int64(st, 1, *id);
		rc = mw_reader_collect(r, st, NULL, false, &f, err);
	} else if (key) {
		int64_t metric_id, set_id;
		struct mw_key k;

		if (!(st = stmt(r, MW_SLOT_BY_KEY, err)))
			return -1;
		mw_key_parse(&k, key);
		rc = mw_catalog_ids(mw_reader_catalog(r), k.name, k.labels, k.nlabels, false, &metric_id,
				    &set_id, err);
		mw_key_release(&k);
		if (rc == 0) {
			sqlite3_bind_int64(st, 1, metric_id);
			sqlite3_bind_int64(st, 2, set_id);
			rc = mw_reader_collect(r, st, NULL, false, &f, err);
			/* an old file's duplicates (one key, two rows): the first */
			while (f.n > 1)
				mw_series_info_release(&f.items[--f.n].info);
		} else if (rc > 0) {
			rc = 0;		/* not in the catalogue: no such series */
		} else {
			mw_reader_set_kind(r, MW_QERR_STORAGE);
		}
	} else if (sel) {
		rc = select_series(r, sel, &f, err);
	}
	if (rc) {
		mw_found_release(&f);
		return -1;
	}
	out->items = mw_xcalloc(f.n ? f.n : 1, sizeof(*out->items));
	for (i = 0; i < f.n; i++)
		out->items[i] = f.items[i].info;
	out->n = f.n;
	free(f.items);
	return 0;
}

int mw_reader_find(struct mw_reader *r, const char *selector,
		   struct mw_series_list *out, struct mw_err *err)
{
	return mw_reader_find_max(r, selector, 0, out, err);
}

int mw_reader_find_max(struct mw_reader *r, const char *selector, size_t max_series,
		       struct mw_series_list *out, struct mw_err *err)
{
	struct mw_selector sel;
	int rc;

	memset(out, 0, sizeof(*out));
	if (mw_reader_begin_selected(r, selector, &sel, err))
		return -1;
	rc = mw_reader_load_series(r, &sel, NULL, NULL, out, err);
	mw_selector_release(&sel);
	if (!rc && max_series && out->n > max_series) {
		mw_reader_set_kind(r, MW_QERR_LIMIT);
		mw_error(err, "%zu series is over the limit of %zu; narrow the selector",
			 out->n, max_series);
		mw_series_list_release(out);
		rc = -1;
	}
	if (!rc && mw_reader_fill_range(r, out->items, out->n, err)) {
		mw_series_list_release(out);
		rc = -1;
	}
	mw_reader_end(r);
	return rc;
}

static int one_series(struct mw_reader *r, const int64_t *id, const char *key, bool span,
		      struct mw_series_info *out, struct mw_err *err)
{
	struct mw_series_list list;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->first_ts = out->last_ts = INT64_MIN;
	if (mw_reader_begin(r, err))
		return -1;
	if (mw_reader_load_series(r, NULL, id, key, &list, err))
		goto out;
	if (!list.n) {
		mw_series_list_release(&list);
		rc = 1;
		goto out;
	}
	if (span && mw_reader_fill_range(r, list.items, 1, err)) {
		mw_series_list_release(&list);
		goto out;
	}
	*out = list.items[0];
	free(list.items);
	rc = 0;
out:
	mw_reader_end(r);
	return rc;
}

int mw_reader_fill_spans(struct mw_reader *r, struct mw_series_info *info, size_t n,
			 struct mw_err *err)
{
	int rc;

	if (mw_reader_begin(r, err))
		return -1;
	rc = fill_range(r, info, n, false, err);
	mw_reader_end(r);
	return rc;
}

int mw_reader_series_by_id(struct mw_reader *r, int64_t id,
			   struct mw_series_info *out, struct mw_err *err)
{
	return one_series(r, &id, NULL, true, out, err);
}

int mw_reader_series_identity(struct mw_reader *r, int64_t id, struct mw_series_info *out,
			      struct mw_err *err)
{
	return one_series(r, &id, NULL, false, out, err);
}

int mw_reader_series_by_key(struct mw_reader *r, const char *key,
			    struct mw_series_info *out, struct mw_err *err)
{
	return one_series(r, NULL, key, true, out, err);
}
