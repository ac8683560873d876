/*
 * query.c - the read API (query.h) over a read-only connection.
 *
 * Tier choice: rollup rows are exact min/max/sum/last per aligned bucket,
 * so a query whose step is a multiple of a tier's resolution can be
 * answered from that tier without loss; the coarsest such tier reads the
 * fewest rows.  The newest stretch not yet rolled up (the bucket in
 * progress) comes from the raw chunks.
 */
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query.h"
#include "query_impl.h"
#include "codec.h"
#include "rollup.h"
#include "schema.h"
#include "core/selector.h"
#include "catalog.h"
#include "base/clock.h"
#include "base/xalloc.h"

#define READER_BUSY_MS 2000

static const int64_t tier_res[3] = { 1, 60000, 3600000 };

static _Atomic uint64_t stat_queries, stat_total_ns, stat_last_ns;

void mw_query_stats_get(struct mw_query_stats *out)
{
	out->queries = atomic_load(&stat_queries);
	out->total_ns = atomic_load(&stat_total_ns);
	out->last_ns = atomic_load(&stat_last_ns);
}

static void stat_done(int64_t t0)
{
	uint64_t ns = (uint64_t)(mw_clock_mono_ns() - t0);

	atomic_fetch_add(&stat_queries, 1);
	atomic_fetch_add(&stat_total_ns, ns);
	atomic_store(&stat_last_ns, ns);
}

/*
 * Statements are prepared once per reader (lazily) and reset after use;
 * every public call runs in one read transaction.
 */
enum {
	RS_BEGIN, RS_COMMIT, RS_ROLLBACK,
	RS_FIRST_RAW, RS_FIRST_1M, RS_FIRST_1H,
	RS_LAST_RAW, RS_LAST_1M, RS_LAST_1H,
	RS_CHUNK_RANGE, RS_ROLLUP_1M, RS_ROLLUP_1H, RS_RAW_COUNT,
	RS_PAST, RS_FIRST_CHUNK,
	RS_FIND_NAME, RS_FIND_LABEL, RS_FIND_ALL, RS_NAMES, RS_BY_ID, RS_BY_KEY,
	RS_LATEST_LIVE, RS_FIRST_RECORDED, RS_LABEL,
	RS_COUNT
};

static const char chunk_range_sql[] =
	"SELECT data FROM chunk WHERE series_id = ?1 AND max_ts >= ?2 AND min_ts <= ?3 "
	"ORDER BY min_ts";

/* Series rows with their labels, one row per label (ordered by name). */
/* Series rows (schema 7, catalog.h): one per series, with its label set's
 * text ("3,17,18"); collect() resolves the label ids through a cache that
 * lives for one call (the series of a process share their sets, and a
 * process name or kind label is shared by many), and rebuilds the key. */
#define SERIES_COLS "SELECT s.id, s.set_id, m.name, ls.labels"
#define WITH_METRIC " JOIN metric m ON m.id = s.metric_id"
#define WITH_LABELS " LEFT JOIN label_set ls ON ls.id = s.set_id"

static const char *const rs_sql[RS_COUNT] = {
	[RS_BEGIN] = "BEGIN",
	[RS_COMMIT] = "COMMIT",
	[RS_ROLLBACK] = "ROLLBACK",
	[RS_FIRST_RAW] = "SELECT min_ts FROM chunk WHERE series_id = ? ORDER BY max_ts LIMIT 1",
	[RS_FIRST_1M] = "SELECT min(t) * 60000 FROM rollup_1m_data WHERE series_id = ?",
	[RS_FIRST_1H] = "SELECT min(t) * 3600000 FROM rollup_1h_data WHERE series_id = ?",
	/* the newest chunk's newest point (an open chunk's max_ts is a bound,
	 * see store.c; last_ts is NULL when it is max_ts) */
	[RS_LAST_RAW] = "SELECT coalesce(last_ts, max_ts) FROM chunk WHERE series_id = ? "
			"ORDER BY max_ts DESC LIMIT 1",
	[RS_LAST_1M] = "SELECT max(t) * 60000 FROM rollup_1m_data WHERE series_id = ?",
	[RS_LAST_1H] = "SELECT max(t) * 3600000 FROM rollup_1h_data WHERE series_id = ?",
	[RS_CHUNK_RANGE] = chunk_range_sql,
	[RS_ROLLUP_1M] = "SELECT t, count, base, min, max, last, sum FROM rollup_1m_data "
			 "WHERE series_id = ? AND t >= ? AND t <= ? ORDER BY t",
	[RS_ROLLUP_1H] = "SELECT t, count, base, min, max, last, sum FROM rollup_1h_data "
			 "WHERE series_id = ? AND t >= ? AND t <= ? ORDER BY t",
	[RS_RAW_COUNT] = "SELECT sum(npoints) FROM chunk WHERE series_id = ?1 "
			 "AND max_ts >= ?2 AND min_ts <= ?3",
	[RS_PAST] = "SELECT t * 60000, base + last FROM rollup_1m_data WHERE series_id = ? "
		    "AND t <= ? ORDER BY t DESC LIMIT 1",
	[RS_FIRST_CHUNK] = "SELECT data FROM chunk WHERE series_id = ? ORDER BY max_ts LIMIT 1",
	[RS_FIND_NAME] = SERIES_COLS " FROM metric m JOIN series s ON s.metric_id = m.id"
			 WITH_LABELS " WHERE m.name = ?1",
	[RS_FIND_LABEL] = SERIES_COLS " FROM label f"
			  " JOIN label_set_member fm ON fm.label_id = f.id"
			  " JOIN series s ON s.set_id = fm.set_id" WITH_METRIC WITH_LABELS
			  " WHERE f.name = ?1 AND f.value = ?2",
	[RS_FIND_ALL] = SERIES_COLS " FROM series s" WITH_METRIC WITH_LABELS,
	[RS_NAMES] = "SELECT name FROM metric m WHERE EXISTS"
		     " (SELECT 1 FROM series s WHERE s.metric_id = m.id) ORDER BY name",
	[RS_BY_ID] = SERIES_COLS " FROM series s" WITH_METRIC WITH_LABELS
		     " WHERE s.id = ?1",
	/* ?1, ?2: the ids mw_catalog_ids found for the parsed key */
	[RS_BY_KEY] = SERIES_COLS " FROM series s" WITH_METRIC WITH_LABELS
		      " WHERE s.metric_id = ?1 AND s.set_id = ?2",
	/* the newest point of a series is its newest chunk's */
	[RS_LATEST_LIVE] = SERIES_COLS ", coalesce(c.last_ts, c.max_ts), c.last_value"
			   " FROM series_live v"
			   " JOIN series s ON s.id = v.series_id" WITH_METRIC
			   " JOIN chunk c ON c.id = s.last_chunk" WITH_LABELS
			   " ORDER BY v.series_id",
	[RS_FIRST_RECORDED] = "SELECT first_ts FROM series WHERE id = ?",
	[RS_LABEL] = "SELECT name, value FROM label WHERE id = ?",
};

/*
 * No catalogue is kept: a reader's memory does not grow with the series
 * the file holds.  Selectors are answered from the database through its
 * indexes (series by name, labels by name and value, series by key), and
 * the newest values from the live series only (table series_live, the
 * series the writer holds: written in the last series_idle_ms).
 */
struct mw_reader {
	sqlite3 *db;
	char *path;
	sqlite3_stmt *st[RS_COUNT];
	struct mw_catalog cat;	/* series by key (catalog.h) */
	bool in_tx;
	int64_t deadline_ns;	/* 0: none */
	bool expired;		/* the deadline passed (until the next set) */
	bool ending;		/* COMMIT/ROLLBACK: never interrupted */
	enum mw_query_error kind;
	sqlite3_stmt *extra[MW_READER_EXTRA];	/* query_impl.h: other readers' */
};

/* SQLite calls this every PROGRESS_OPS virtual-machine instructions. */
#define PROGRESS_OPS 1000

static bool past_deadline(struct mw_reader *r)
{
	if (!r->expired && r->deadline_ns && mw_clock_mono_ns() > r->deadline_ns)
		r->expired = true;
	return r->expired && !r->ending;
}

static int progress(void *arg)
{
	return past_deadline(arg) ? 1 : 0;
}

void mw_reader_set_deadline(struct mw_reader *r, int64_t deadline_ns)
{
	r->deadline_ns = deadline_ns > 0 ? deadline_ns : 0;
	r->expired = false;
}

int64_t mw_reader_deadline(const struct mw_reader *r)
{
	return r->deadline_ns;
}

enum mw_query_error mw_reader_error_kind(const struct mw_reader *r)
{
	return r->kind;
}

static int deadline_err(struct mw_reader *r, struct mw_err *err)
{
	r->kind = MW_QERR_DEADLINE;
	return mw_error(err, "query stopped at its deadline");
}

/* -1 with the deadline message once the deadline has passed. */
static int check_deadline(struct mw_reader *r, struct mw_err *err)
{
	return past_deadline(r) ? deadline_err(r, err) : 0;
}

/* Page cache of readers, KiB; 0: SQLite's default (2 MB).  Set once at
 * start, before any reader thread runs. */
static int64_t reader_cache_kib;

void mw_reader_set_default_cache(uint64_t bytes)
{
	reader_cache_kib = (int64_t)(bytes / 1024);
}

int mw_reader_open(struct mw_reader **out, const char *db_path, struct mw_err *err)
{
	struct mw_reader *r = mw_xcalloc(1, sizeof(*r));
	sqlite3_stmt *st;

	*out = NULL;
	if (sqlite3_open_v2(db_path, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		mw_error(err, "cannot open '%s': %s", db_path,
			 r->db ? sqlite3_errmsg(r->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(r->db, READER_BUSY_MS);
	if (reader_cache_kib > 0) {
		char sql[64];

		snprintf(sql, sizeof(sql), "PRAGMA cache_size = -%lld", (long long)reader_cache_kib);
		sqlite3_exec(r->db, sql, NULL, NULL, NULL);
	}
	sqlite3_progress_handler(r->db, PROGRESS_OPS, progress, r);
	if (sqlite3_prepare_v2(r->db, "SELECT series_id FROM latest LIMIT 0", -1, &st,
			       NULL) != SQLITE_OK) {
		mw_error(err, "cannot read '%s' as a memwatch database: %s", db_path,
			 sqlite3_errmsg(r->db));
		goto fail;
	}
	sqlite3_finalize(st);
	if (mw_schema_version(r->db) < MW_SCHEMA_VERSION) {
		mw_error(err, "'%s' has schema version %d, older than this memwatch reads "
			 "(%d); start memwatchd on it once to migrate it", db_path,
			 mw_schema_version(r->db), MW_SCHEMA_VERSION);
		goto fail;
	}
	mw_catalog_open(&r->cat, r->db);
	r->path = mw_xstrdup(db_path);
	*out = r;
	return 0;
fail:
	sqlite3_close(r->db);
	free(r);
	return -1;
}

void mw_reader_free(struct mw_reader *r)
{
	int i;

	if (!r)
		return;
	for (i = 0; i < RS_COUNT; i++)
		sqlite3_finalize(r->st[i]);
	for (i = 0; i < MW_READER_EXTRA; i++)
		sqlite3_finalize(r->extra[i]);
	mw_catalog_close(&r->cat);
	sqlite3_close(r->db);
	free(r->path);
	free(r);
}

static int step_err(struct mw_reader *r, struct mw_err *err)
{
	if (past_deadline(r))
		return deadline_err(r, err);
	r->kind = MW_QERR_STORAGE;
	return mw_error(err, "cannot query '%s': %s", r->path, sqlite3_errmsg(r->db));
}

/* The reader's statement `which`, reset and unbound; NULL with a message. */
static sqlite3_stmt *stmt(struct mw_reader *r, int which, struct mw_err *err)
{
	if (!r->st[which] &&
	    sqlite3_prepare_v3(r->db, rs_sql[which], -1, SQLITE_PREPARE_PERSISTENT,
			       &r->st[which], NULL) != SQLITE_OK) {
		r->st[which] = NULL;
		step_err(r, err);
	}
	return r->st[which];
}

static int run_simple(struct mw_reader *r, int which, struct mw_err *err)
{
	sqlite3_stmt *st = stmt(r, which, err);
	int rc;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : step_err(r, err);
}

/* One read transaction per call: a consistent snapshot, and one WAL
 * read lock instead of one per statement.  Nested calls (an export's
 * iterators are open) run inside whatever is already there. */
static int begin_read(struct mw_reader *r, struct mw_err *err)
{
	r->in_tx = false;
	r->kind = MW_QERR_NONE;
	if (check_deadline(r, err))
		return -1;
	if (!sqlite3_get_autocommit(r->db))
		return 0;
	if (run_simple(r, RS_BEGIN, err))
		return -1;
	r->in_tx = true;
	return 0;
}

static void end_read(struct mw_reader *r)
{
	if (!r->in_tx)
		return;
	r->in_tx = false;
	r->ending = true;	/* a read transaction left open would pin the WAL */
	if (run_simple(r, RS_COMMIT, NULL))
		run_simple(r, RS_ROLLBACK, NULL);
	r->ending = false;
}

/* Parse a selector and open the read transaction it will be used in; on
 * failure nothing is left to release. */
static int begin_selected(struct mw_reader *r, const char *selector,
			  struct mw_selector *sel, struct mw_err *err)
{
	r->kind = MW_QERR_NONE;
	if (mw_selector_parse(sel, selector, err)) {
		r->kind = MW_QERR_BAD;
		return -1;
	}
	if (begin_read(r, err)) {
		mw_selector_release(sel);
		return -1;
	}
	return 0;
}

/* ---- series --------------------------------------------------------------- */

void mw_series_info_release(struct mw_series_info *info)
{
	size_t i;

	for (i = 0; i < info->nlabels; i++) {
		free((char *)info->labels[i].name);
		free((char *)info->labels[i].value);
	}
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

static int64_t one_int(sqlite3_stmt *st, int64_t id, int64_t dflt)
{
	int64_t v = dflt;

	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return v;
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
static int64_t first_point(int64_t recorded, const int64_t lo[3])
{
	int64_t start = INT64_MAX, end = INT64_MAX, e;
	int t;

	for (t = 0; t < 3; t++) {
		if (lo[t] == INT64_MAX)
			continue;
		if (lo[t] < start)
			start = lo[t];
		e = t ? lo[t] + tier_res[t] - 1 : lo[t];
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

/* Fill first_ts / last_ts from every tier (index seeks only). */
static int fill_range(struct mw_reader *r, struct mw_series_info *info, size_t n,
		      struct mw_err *err)
{
	sqlite3_stmt *first[3], *last[3], *rec = NULL;
	size_t i;
	int t;

	for (t = 0; t < 3; t++)
		if (!(first[t] = stmt(r, RS_FIRST_RAW + t, err)) ||
		    !(last[t] = stmt(r, RS_LAST_RAW + t, err)))
			return -1;
	if (!(rec = stmt(r, RS_FIRST_RECORDED, err)))
		return -1;
	for (i = 0; i < n; i++) {
		int64_t lo[3], hi = INT64_MIN;

		if (check_deadline(r, err))
			return -1;
		for (t = 0; t < 3; t++) {
			int64_t b = one_int(last[t], info[i].id, INT64_MIN);

			lo[t] = one_int(first[t], info[i].id, INT64_MAX);
			if (b > hi)
				hi = b;
		}
		info[i].first_ts = first_point(rec ? one_int(rec, info[i].id, INT64_MIN)
					       : INT64_MIN, lo);
		info[i].last_ts = hi;
	}
	return 0;
}

/* Selected series, growing; with the newest value when read from latest. */
struct found {
	struct mw_latest *items;
	size_t n, cap;
};

static void found_release(struct found *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		mw_series_info_release(&f->items[i].info);
	free(f->items);
	memset(f, 0, sizeof(*f));
}

static int cmp_label_name(const void *a, const void *b)
{
	return strcmp(((const struct mw_label *)a)->name, ((const struct mw_label *)b)->name);
}

static char *col_dup(sqlite3_stmt *st, int col)
{
	const char *t = (const char *)sqlite3_column_text(st, col);

	return mw_xstrdup(t ? t : "");
}

/* Label sets and labels resolved during one call (ids are not stable
 * across transactions: retention may delete a set and SQLite reuse its id). */
struct id_cache {
	int64_t *key;		/* 0: empty slot */
	size_t *val;
	size_t cap, n;
};

static size_t *id_slot(struct id_cache *c, int64_t key, bool *found)
{
	size_t i, mask;

	if ((c->n + 1) * 2 > c->cap) {
		struct id_cache big = { NULL, NULL, c->cap ? c->cap * 2 : 256, 0 };

		big.key = mw_xcalloc(big.cap, sizeof(*big.key));
		big.val = mw_xcalloc(big.cap, sizeof(*big.val));
		for (i = 0; i < c->cap; i++)
			if (c->key[i]) {
				bool f;

				*id_slot(&big, c->key[i], &f) = c->val[i];
			}
		free(c->key);
		free(c->val);
		*c = big;
	}
	mask = c->cap - 1;
	for (i = (size_t)((uint64_t)key * 0x9e3779b97f4a7c15ULL >> 32) & mask; c->key[i];
	     i = (i + 1) & mask)
		if (c->key[i] == key) {
			*found = true;
			return &c->val[i];
		}
	c->key[i] = key;
	c->n++;
	*found = false;
	return &c->val[i];
}

struct label_cache {
	struct id_cache labels;	/* label id -> index in pairs */
	struct mw_label *pairs;	/* owned strings */
	size_t npairs, pairs_cap;
	struct id_cache sets;	/* set id -> index in set_at */
	size_t *set_at, nsets, sets_cap;	/* start in members, count follows */
	size_t *members;	/* indexes into pairs; per set: n, then n indexes */
	size_t nmembers, members_cap;
};

static void label_cache_release(struct label_cache *lc)
{
	size_t i;

	for (i = 0; i < lc->npairs; i++) {
		free((char *)lc->pairs[i].name);
		free((char *)lc->pairs[i].value);
	}
	free(lc->pairs);
	free(lc->labels.key);
	free(lc->labels.val);
	free(lc->sets.key);
	free(lc->sets.val);
	free(lc->set_at);
	free(lc->members);
	memset(lc, 0, sizeof(*lc));
}

/* Index of label id in lc->pairs; -1 on error (a missing label reads as
 * an empty one: the catalogue is written in one transaction, so only a
 * damaged file has none). */
static int label_of(struct mw_reader *r, struct label_cache *lc, int64_t id, size_t *out,
		    struct mw_err *err)
{
	sqlite3_stmt *st;
	struct mw_label *l;
	bool found;
	size_t *slot = id_slot(&lc->labels, id, &found);
	int rc;

	if (found) {
		*out = *slot;
		return 0;
	}
	if (!(st = stmt(r, RS_LABEL, err)))
		return -1;
	MW_GROW(lc->pairs, lc->pairs_cap, lc->npairs + 1);
	l = &lc->pairs[lc->npairs];
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	l->name = col_dup(st, 0);
	l->value = col_dup(st, 1);
	if (rc != SQLITE_ROW) {
		free((char *)l->name);
		free((char *)l->value);
		l->name = mw_xstrdup("");
		l->value = mw_xstrdup("");
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return step_err(r, err);
	*slot = *out = lc->npairs++;
	return 0;
}

/* The labels of set id (text "3,17,18") into info, sorted by name. */
static int set_labels(struct mw_reader *r, struct label_cache *lc, int64_t id, const char *text,
		      struct mw_series_info *info, struct mw_err *err)
{
	size_t start, n, i;
	bool found;
	size_t *slot;

	if (!id || !text)
		return 0;
	slot = id_slot(&lc->sets, id, &found);
	if (!found) {
		const char *p = text;
		size_t head;

		MW_GROW(lc->members, lc->members_cap, lc->nmembers + 1);
		head = lc->nmembers++;
		lc->members[head] = 0;
		while (*p) {
			char *end;
			long long lid = strtoll(p, &end, 10);
			size_t at = 0;

			if (end == p)
				break;
			if (label_of(r, lc, (int64_t)lid, &at, err))
				return -1;
			MW_GROW(lc->members, lc->members_cap, lc->nmembers + 1);
			lc->members[lc->nmembers++] = at;
			lc->members[head]++;
			p = *end == ',' ? end + 1 : end;
		}
		*slot = head;
	}
	start = *slot;
	n = lc->members[start];
	info->labels = mw_xcalloc(n ? n : 1, sizeof(*info->labels));
	for (i = 0; i < n; i++) {
		const struct mw_label *l = &lc->pairs[lc->members[start + 1 + i]];

		info->labels[i].name = mw_xstrdup(l->name);
		info->labels[i].value = mw_xstrdup(l->value);
	}
	info->nlabels = n;
	if (n > 1)
		qsort(info->labels, n, sizeof(*info->labels), cmp_label_name);
	return 0;
}

/*
 * Step st (columns id, set id, name, set text [, ts, value], one row per
 * series) and append each series sel matches (NULL: every one) to f.
 */
static int collect(struct mw_reader *r, sqlite3_stmt *st, const struct mw_selector *sel,
		   bool with_value, struct found *f, struct mw_err *err)
{
	struct label_cache lc;
	int rc;

	memset(&lc, 0, sizeof(lc));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct mw_latest cur;

		if (past_deadline(r)) {
			rc = SQLITE_INTERRUPT;
			break;
		}
		memset(&cur, 0, sizeof(cur));
		cur.info.id = sqlite3_column_int64(st, 0);
		cur.info.name = col_dup(st, 2);
		cur.info.first_ts = cur.info.last_ts = INT64_MIN;
		cur.past_ts_ms = INT64_MIN;
		cur.past_value = NAN;
		cur.ts_ms = INT64_MIN;
		if (with_value) {
			cur.ts_ms = sqlite3_column_int64(st, 4);
			cur.value = sqlite3_column_type(st, 5) == SQLITE_NULL
				    ? NAN : sqlite3_column_double(st, 5);
			cur.info.last_ts = cur.ts_ms;
		}
		if (set_labels(r, &lc, sqlite3_column_int64(st, 1),
			       (const char *)sqlite3_column_text(st, 3), &cur.info, err)) {
			mw_series_info_release(&cur.info);
			sqlite3_reset(st);
			label_cache_release(&lc);
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
	label_cache_release(&lc);
	return rc == SQLITE_DONE ? 0 : step_err(r, err);	/* step_err: deadline too */
}

static int cmp_found_key(const void *a, const void *b)
{
	return strcmp(((const struct mw_latest *)a)->info.key,
		      ((const struct mw_latest *)b)->info.key);
}

/*
 * The series matching sel, sorted by key, from the narrowest index: a
 * label="v" matcher (labels by name and value), else the metric name
 * (series by name), else each distinct name a __name__ matcher accepts,
 * else every series; the whole selector is then checked on each.
 */
static int select_series(struct mw_reader *r, const struct mw_selector *sel, struct found *f,
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
		if (!(st = stmt(r, RS_FIND_LABEL, err)))
			return -1;
		sqlite3_bind_text(st, 1, eq->label, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, eq->value, -1, SQLITE_STATIC);
		rc = collect(r, st, sel, false, f, err);
	} else if (exact) {
		if (!(st = stmt(r, RS_FIND_NAME, err)))
			return -1;
		sqlite3_bind_text(st, 1, exact, -1, SQLITE_STATIC);
		rc = collect(r, st, sel, false, f, err);
	} else if (name_matchers) {
		struct mw_selector by_name = { NULL, NULL, 0 };
		sqlite3_stmt *names = stmt(r, RS_NAMES, err);
		char **keep = NULL;
		size_t nkeep = 0, cap = 0;
		int step;

		if (!names || !(st = stmt(r, RS_FIND_NAME, err)))
			return -1;
		by_name.m = mw_xmalloc(sel->n * sizeof(*by_name.m));
		for (i = 0; i < sel->n; i++)
			if (!strcmp(sel->m[i].label, "__name__"))
				by_name.m[by_name.n++] = sel->m[i];
		while ((step = sqlite3_step(names)) == SQLITE_ROW && !past_deadline(r)) {
			const char *name = (const char *)sqlite3_column_text(names, 0);

			if (name && mw_selector_match(&by_name, name, NULL, 0)) {
				MW_GROW(keep, cap, nkeep + 1);
				keep[nkeep++] = mw_xstrdup(name);
			}
		}
		sqlite3_reset(names);
		free(by_name.m);
		if (step != SQLITE_DONE)
			rc = step_err(r, err);
		for (i = 0; i < nkeep; i++) {
			if (!rc) {
				sqlite3_bind_text(st, 1, keep[i], -1, SQLITE_STATIC);
				rc = collect(r, st, sel, false, f, err);
			}
			free(keep[i]);
		}
		free(keep);
	} else {
		if (!(st = stmt(r, RS_FIND_ALL, err)))
			return -1;
		rc = collect(r, st, sel, false, f, err);
	}
	if (rc)
		return -1;
	if (f->n > 1)
		qsort(f->items, f->n, sizeof(*f->items), cmp_found_key);
	return 0;
}

/* Series matching sel (or the one with id/key when given), no ranges. */
static int load_series(struct mw_reader *r, const struct mw_selector *sel, const int64_t *id,
		       const char *key, struct mw_series_list *out, struct mw_err *err)
{
	struct found f = { NULL, 0, 0 };
	sqlite3_stmt *st;
	size_t i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (id) {
		if (!(st = stmt(r, RS_BY_ID, err)))
			return -1;
		sqlite3_bind_int64(st, 1, *id);
		rc = collect(r, st, NULL, false, &f, err);
	} else if (key) {
		int64_t metric_id, set_id;
		struct mw_key k;

		if (!(st = stmt(r, RS_BY_KEY, err)))
			return -1;
		mw_key_parse(&k, key);
		rc = mw_catalog_ids(&r->cat, k.name, k.labels, k.nlabels, false, &metric_id,
				    &set_id, err);
		mw_key_release(&k);
		if (rc == 0) {
			sqlite3_bind_int64(st, 1, metric_id);
			sqlite3_bind_int64(st, 2, set_id);
			rc = collect(r, st, NULL, false, &f, err);
			/* an old file's duplicates (one key, two rows): the first */
			while (f.n > 1)
				mw_series_info_release(&f.items[--f.n].info);
		} else if (rc > 0) {
			rc = 0;		/* not in the catalogue: no such series */
		} else {
			r->kind = MW_QERR_STORAGE;
		}
	} else if (sel) {
		rc = select_series(r, sel, &f, err);
	}
	if (rc) {
		found_release(&f);
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
	if (begin_selected(r, selector, &sel, err))
		return -1;
	rc = load_series(r, &sel, NULL, NULL, out, err);
	mw_selector_release(&sel);
	if (!rc && max_series && out->n > max_series) {
		r->kind = MW_QERR_LIMIT;
		mw_error(err, "%zu series is over the limit of %zu; narrow the selector",
			 out->n, max_series);
		mw_series_list_release(out);
		rc = -1;
	}
	if (!rc && fill_range(r, out->items, out->n, err)) {
		mw_series_list_release(out);
		rc = -1;
	}
	end_read(r);
	return rc;
}

static int one_series(struct mw_reader *r, const int64_t *id, const char *key,
		      struct mw_series_info *out, struct mw_err *err)
{
	struct mw_series_list list;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->first_ts = out->last_ts = INT64_MIN;
	if (begin_read(r, err))
		return -1;
	if (load_series(r, NULL, id, key, &list, err))
		goto out;
	if (!list.n) {
		mw_series_list_release(&list);
		rc = 1;
		goto out;
	}
	if (fill_range(r, list.items, 1, err)) {
		mw_series_list_release(&list);
		goto out;
	}
	*out = list.items[0];
	free(list.items);
	rc = 0;
out:
	end_read(r);
	return rc;
}

int mw_reader_series_by_id(struct mw_reader *r, int64_t id,
			   struct mw_series_info *out, struct mw_err *err)
{
	return one_series(r, &id, NULL, out, err);
}

int mw_reader_series_by_key(struct mw_reader *r, const char *key,
			    struct mw_series_info *out, struct mw_err *err)
{
	return one_series(r, NULL, key, out, err);
}

/* ---- range queries ---------------------------------------------------------- */

int mw_agg_parse(const char *text, enum mw_agg *out, struct mw_err *err)
{
	static const char *const names[] = { "avg", "min", "max", "last" };
	size_t i;

	for (i = 0; i < MW_ARRAY_SIZE(names); i++)
		if (text && !strcmp(text, names[i])) {
			*out = (enum mw_agg)i;
			return 0;
		}
	return mw_error(err, "unknown aggregate '%s' (avg, min, max or last)",
			text ? text : "");
}

const char *mw_tier_name(enum mw_tier tier)
{
	switch (tier) {
	case MW_TIER_RAW:
		return "raw";
	case MW_TIER_1M:
		return "1m";
	case MW_TIER_1H:
		return "1h";
	default:
		return "auto";
	}
}

void mw_range_query_init(struct mw_range_query *q, int64_t from_ms, int64_t to_ms)
{
	memset(q, 0, sizeof(*q));
	q->from_ms = from_ms;
	q->to_ms = to_ms;
	q->step_ms = MW_STEP_AUTO;
	q->agg = MW_AGG_AVG;
	q->max_points = 0;
	q->tier = MW_TIER_AUTO;
}

void mw_range_result_release(struct mw_range_result *res)
{
	size_t i;

	for (i = 0; i < res->nseries; i++) {
		mw_series_info_release(&res->series[i]);
		free(res->values[i]);
	}
	free(res->series);
	free(res->values);
	free(res->growth);
	free(res->t);
	memset(res, 0, sizeof(*res));
}

static int64_t floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b < 0) ? q - 1 : q;
}

static int64_t round_up(int64_t v, int64_t m)
{
	return (v + m - 1) / m * m;
}

struct bucket {
	double min, max, sum, last;
	int64_t last_ts, count;
};

struct bucketing {
	int64_t from, to, step, first;	/* first = floor(from / step) */
	size_t nb;
	struct bucket *b;
};

static void bucket_add(struct bucketing *bk, int64_t ts, double min, double max,
		       double sum, double last, int64_t count)
{
	struct bucket *b;

	if (ts < bk->from || ts > bk->to || isnan(sum))
		return;
	b = &bk->b[floor_div(ts, bk->step) - bk->first];
	if (!b->count) {
		b->min = min;
		b->max = max;
		b->sum = sum;
		b->last = last;
		b->last_ts = ts;
		b->count = count;
		return;
	}
	if (min < b->min)
		b->min = min;
	if (max > b->max)
		b->max = max;
	b->sum += sum;
	b->count += count;
	if (ts >= b->last_ts) {
		b->last = last;
		b->last_ts = ts;
	}
}

/* Raw points of one series in [lo, to] into buckets. */
static int raw_into(struct mw_reader *r, sqlite3_stmt *st, int64_t id, int64_t lo,
		    struct bucketing *bk, struct mw_err *err)
{
	int rc;

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, bk->to);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct mw_chunk_dec d;
		int64_t ts;
		double v;

		if (mw_chunk_dec_init(&d, sqlite3_column_blob(st, 0),
				      (size_t)sqlite3_column_bytes(st, 0)))
			continue;	/* a corrupt chunk reads as a gap */
		while (mw_chunk_dec_next(&d, &ts, &v) == 1)
			if (ts >= lo)
				bucket_add(bk, ts, v, v, v, v, 1);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : step_err(r, err);
}

/* Fill one series' buckets from a tier (plus raw for what it lacks). */
static int fill_buckets(struct mw_reader *r, int tier, int64_t id, struct bucketing *bk,
			struct mw_err *err)
{
	sqlite3_stmt *raw = stmt(r, RS_CHUNK_RANGE, err), *st, *cov;
	int64_t lo = bk->from;
	int step;

	if (!raw)
		return -1;
	if (tier > 0) {
		if (!(cov = stmt(r, RS_LAST_RAW + tier, err)) ||
		    !(st = stmt(r, RS_ROLLUP_1M + tier - 1, err)))
			return -1;
		lo = one_int(cov, id, INT64_MIN);
		lo = lo == INT64_MIN ? bk->from : lo + tier_res[tier];
		/* bucket numbers whose start lies in [from, to] */
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, floor_div(bk->from - 1, tier_res[tier]) + 1);
		sqlite3_bind_int64(st, 3, floor_div(bk->to, tier_res[tier]));
		while ((step = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t count = sqlite3_column_int64(st, 1);
			double min, max, last, sum;

			mw_rollup_column(st, 2, count, &min, &max, &last, &sum);
			bucket_add(bk, sqlite3_column_int64(st, 0) * tier_res[tier], min, max, sum,
				   last, count);
		}
		sqlite3_reset(st);
		if (step != SQLITE_DONE)
			return step_err(r, err);
		if (lo < bk->from)
			lo = bk->from;
	}
	if (lo <= bk->to && raw_into(r, raw, id, lo, bk, err))
		return -1;
	return 0;
}

static double agg_value(const struct bucket *b, enum mw_agg agg)
{
	if (!b->count)
		return NAN;
	switch (agg) {
	case MW_AGG_MIN:
		return b->min;
	case MW_AGG_MAX:
		return b->max;
	case MW_AGG_LAST:
		return b->last;
	default:
		return b->sum / (double)b->count;
	}
}

/* Oldest timestamp any of the series has in a tier (INT64_MAX: none). */
static int64_t tier_oldest(struct mw_reader *r, int tier, const struct mw_range_result *res)
{
	sqlite3_stmt *st = stmt(r, RS_FIRST_RAW + tier, NULL);
	int64_t oldest = INT64_MAX;
	size_t i;

	if (!st)
		return INT64_MAX;
	for (i = 0; i < res->nseries && !past_deadline(r); i++) {
		int64_t v = one_int(st, res->series[i].id, INT64_MAX);

		if (v < oldest)
			oldest = v;
	}
	return oldest;
}

static int64_t nice_step(int64_t step)
{
	if (step <= 1000)
		return 1000;
	if (step < 60000)
		return round_up(step, 1000);
	if (step < 3600000)
		return round_up(step, 60000);
	return round_up(step, 3600000);
}

static int64_t nbuckets(int64_t from, int64_t to, int64_t step)
{
	return floor_div(to, step) - floor_div(from, step) + 1;
}

/* The expiry test of the auto tier choice: a finer tier has lost data at
 * from_ms only if the coarser one reaches further back than the finer
 * one's oldest point floored to the coarser bucket (a young series has a
 * rollup bucket starting before its first raw point; that is not expiry). */
static bool tier_expired(struct mw_reader *r, int tier, int64_t from,
			 const struct mw_range_result *res)
{
	int64_t fine = tier_oldest(r, tier, res), coarse;

	if (fine <= from)
		return false;
	coarse = tier_oldest(r, tier + 1, res);
	return fine == INT64_MAX ? coarse != INT64_MAX
				 : coarse < floor_div(fine, tier_res[tier + 1]) * tier_res[tier + 1];
}

static size_t points_limit(const struct mw_range_query *q)
{
	size_t maxp = q->max_points;

	if (!maxp)
		maxp = q->step_ms > 0 ? MW_QUERY_MAX_POINTS : MW_QUERY_DEFAULT_POINTS;
	return maxp > MW_QUERY_MAX_POINTS ? MW_QUERY_MAX_POINTS : maxp;
}

int mw_range_query_check(const struct mw_range_query *q, struct mw_err *err)
{
	int64_t n;

	if (q->from_ms < MW_TIME_MIN || q->from_ms > MW_TIME_MAX ||
	    q->to_ms < MW_TIME_MIN || q->to_ms > MW_TIME_MAX)
		return mw_error(err, "bad range: 'from' (%lld) and 'to' (%lld) must lie in "
				"years 0001 to 9999", (long long)q->from_ms, (long long)q->to_ms);
	if (q->to_ms < q->from_ms)
		return mw_error(err, "bad range: 'to' (%lld) is before 'from' (%lld)",
				(long long)q->to_ms, (long long)q->from_ms);
	if (q->tier < MW_TIER_AUTO || q->tier > MW_TIER_1H || q->step_ms < MW_STEP_RAW)
		return mw_error(err, "bad query: tier %d, step %lld", (int)q->tier,
				(long long)q->step_ms);
	if (q->step_ms > MW_TIME_MAX)
		return mw_error(err, "step: %lld ms is longer than %lld ms (9999 years)",
				(long long)q->step_ms, (long long)MW_TIME_MAX);
	if (q->step_ms <= 0)
		return 0;
	if (q->tier > MW_TIER_RAW && q->step_ms % tier_res[q->tier] != 0)
		return mw_error(err, "step: %lld ms is not a multiple of the %s tier's "
				"resolution", (long long)q->step_ms, mw_tier_name(q->tier));
	n = nbuckets(q->from_ms, q->to_ms, q->step_ms);
	if (n > (int64_t)points_limit(q))
		return mw_error(err, "step: %lld ms gives %lld buckets over this range, more "
				"than max_points (%zu); give a wider step or a shorter range",
				(long long)q->step_ms, (long long)n, points_limit(q));
	return 0;
}

/*
 * The automatic step: range / maxp rounded up to a nice value; when the
 * buckets' alignment gives one too many, range / (maxp - 1), which always
 * fits (floor(to/s) - floor(from/s) <= floor((to - from)/s) + 1 <= maxp - 1).
 * maxp 1 over a range across a bucket boundary doubles the step (a bounded
 * number of times: times are within MW_TIME_MIN..MW_TIME_MAX, checked).
 */
static int64_t auto_step(int64_t from, int64_t to, size_t maxp)
{
	int64_t range = to - from + 1, m = (int64_t)maxp, step;
	int i;

	step = nice_step((range + m - 1) / m);
	if (m > 1 && nbuckets(from, to, step) > m)
		step = nice_step((range + m - 2) / (m - 1));
	for (i = 0; i < 64 && nbuckets(from, to, step) > m && step <= MW_TIME_MAX; i++)
		step = nice_step(step * 2);
	return step;
}

/* Growth of a value column: last non-NaN minus the first; NaN if none. */
static double column_growth(const double *v, size_t nt)
{
	size_t a, z;

	for (a = 0; a < nt && isnan(v[a]); a++)
		;
	for (z = nt; z > a && isnan(v[z - 1]); z--)
		;
	return a < z ? v[z - 1] - v[a] : NAN;
}

struct ranked {
	size_t i;
	double g;
};

/* Largest growth first, NaN last, then selector order. */
static int cmp_ranked(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;

	if (isnan(x->g) != isnan(y->g))
		return isnan(x->g) ? 1 : -1;
	if (!isnan(x->g) && x->g != y->g)
		return x->g > y->g ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Keep only the series keep[0..n) (sorted here by rank); release the rest. */
static void compact_top(struct mw_range_result *res, struct ranked *keep, size_t n)
{
	struct mw_series_info *series = mw_xcalloc(n ? n : 1, sizeof(*series));
	double **values = mw_xcalloc(n ? n : 1, sizeof(*values));
	double *growth = mw_xcalloc(n ? n : 1, sizeof(*growth));
	bool *used = mw_xcalloc(res->nseries ? res->nseries : 1, sizeof(*used));
	size_t k, i;

	if (n > 1)
		qsort(keep, n, sizeof(*keep), cmp_ranked);
	for (k = 0; k < n; k++) {
		series[k] = res->series[keep[k].i];
		values[k] = res->values[keep[k].i];
		growth[k] = keep[k].g;
		used[keep[k].i] = true;
	}
	for (i = 0; i < res->nseries; i++)
		if (!used[i]) {
			mw_series_info_release(&res->series[i]);
			free(res->values[i]);
		}
	free(used);
	free(res->series);
	free(res->values);
	free(res->growth);
	res->series = series;
	res->values = values;
	res->growth = growth;
	res->nseries = n;
}

/* top over a complete result (raw reads). */
static void apply_top(struct mw_range_result *res, size_t top)
{
	struct ranked *all = mw_xmalloc((res->nseries ? res->nseries : 1) * sizeof(*all));
	size_t i;

	for (i = 0; i < res->nseries; i++) {
		all[i].i = i;
		all[i].g = column_growth(res->values[i], res->nt);
	}
	if (res->nseries > 1)
		qsort(all, res->nseries, sizeof(*all), cmp_ranked);
	compact_top(res, all, top < res->nseries ? top : res->nseries);
	free(all);
}

static int query_bucketed(struct mw_reader *r, const struct mw_range_query *q, size_t maxp,
			  struct mw_range_result *res, struct mw_err *err)
{
	int64_t step = q->step_ms;
	struct bucketing bk;
	struct ranked *kept = NULL;
	size_t i, j, nkept = 0, top = q->top;
	int tier;

	if (step > 0) {
		/* Explicit: honoured exactly (checked by mw_range_query_check).
		 * The tier is the coarsest whose buckets fit in a step, also when
		 * the step is not a multiple of them (90 s reads 1-minute rows,
		 * not raw points): a stored bucket goes whole into the step that
		 * holds its start (query.h). */
		tier = q->tier != MW_TIER_AUTO ? (int)q->tier
		       : step >= tier_res[2] ? 2 : step >= tier_res[1] ? 1 : 0;
	} else {
		step = auto_step(q->from_ms, q->to_ms, maxp);
		if (q->tier != MW_TIER_AUTO) {
			tier = q->tier;
			step = round_up(step, tier_res[tier]);
		} else {
			tier = step % tier_res[2] == 0 ? 2 : step % tier_res[1] == 0 ? 1 : 0;
			/* A finer tier already expired at from_ms: use a coarser one. */
			while (tier < 2 && tier_expired(r, tier, q->from_ms, res)) {
				tier++;
				step = round_up(step, tier_res[tier]);
			}
			if (check_deadline(r, err))
				return -1;
		}
	}
	memset(&bk, 0, sizeof(bk));
	bk.step = step;
	bk.first = floor_div(q->from_ms, step);
	bk.nb = (size_t)nbuckets(q->from_ms, q->to_ms, step);
	bk.from = bk.first * step;	/* whole buckets, see query.h */
	bk.to = (bk.first + (int64_t)bk.nb) * step - 1;
	bk.b = mw_xcalloc(bk.nb, sizeof(*bk.b));
	res->step_ms = step;
	res->tier = (enum mw_tier)tier;
	res->nt = bk.nb;
	res->t = mw_xmalloc(bk.nb * sizeof(*res->t));
	for (j = 0; j < bk.nb; j++)
		res->t[j] = (bk.first + (int64_t)j) * step;
	if (top)
		kept = mw_xmalloc((top < res->nseries ? top : res->nseries) * sizeof(*kept) + 1);
	for (i = 0; i < res->nseries; i++) {
		struct ranked cur;
		size_t w;

		memset(bk.b, 0, bk.nb * sizeof(*bk.b));
		if (check_deadline(r, err) || fill_buckets(r, tier, res->series[i].id, &bk, err)) {
			free(bk.b);
			free(kept);
			return -1;
		}
		res->values[i] = mw_xmalloc(bk.nb * sizeof(double));
		for (j = 0; j < bk.nb; j++)
			res->values[i][j] = agg_value(&bk.b[j], q->agg);
		if (!top)
			continue;
		/* Hold at most `top` value arrays: evict the lowest ranked. */
		cur.i = i;
		cur.g = column_growth(res->values[i], bk.nb);
		if (nkept < top) {
			kept[nkept++] = cur;
			continue;
		}
		for (w = 0, j = 1; j < nkept; j++)
			if (cmp_ranked(&kept[j], &kept[w]) > 0)
				w = j;
		if (cmp_ranked(&cur, &kept[w]) < 0) {
			free(res->values[kept[w].i]);
			res->values[kept[w].i] = NULL;
			kept[w] = cur;
		} else {
			free(res->values[i]);
			res->values[i] = NULL;
		}
	}
	free(bk.b);
	if (top)
		compact_top(res, kept, nkept);
	free(kept);
	return 0;
}

struct raw_point {
	int64_t ts;
	size_t series;
	double v;
};

static int cmp_point(const void *a, const void *b)
{
	const struct raw_point *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->series < y->series ? -1 : x->series > y->series;
}

static int query_raw(struct mw_reader *r, const struct mw_range_query *q, size_t maxp,
		     struct mw_range_result *res, struct mw_err *err)
{
	struct raw_point *pts = NULL;
	size_t n = 0, cap = 0, i, j;
	sqlite3_stmt *st;
	int rc = 0;

	res->step_ms = MW_STEP_RAW;
	res->tier = MW_TIER_RAW;
	if (!(st = stmt(r, RS_CHUNK_RANGE, err)))
		return -1;
	for (i = 0; i < res->nseries && !rc; i++) {
		size_t mine = 0;	/* this series' points: at most maxp are needed */

		sqlite3_bind_int64(st, 1, res->series[i].id);
		sqlite3_bind_int64(st, 2, q->from_ms);
		sqlite3_bind_int64(st, 3, q->to_ms);
		while (mine < maxp && !past_deadline(r) && (rc = sqlite3_step(st)) == SQLITE_ROW) {
			struct mw_chunk_dec d;
			struct raw_point p;

			if (mw_chunk_dec_init(&d, sqlite3_column_blob(st, 0),
					      (size_t)sqlite3_column_bytes(st, 0)))
				continue;
			p.series = i;
			while (mine < maxp && mw_chunk_dec_next(&d, &p.ts, &p.v) == 1) {
				if (p.ts < q->from_ms || p.ts > q->to_ms)
					continue;
				MW_GROW(pts, cap, n + 1);
				pts[n++] = p;
				mine++;
			}
		}
		sqlite3_reset(st);
		if (past_deadline(r))
			rc = deadline_err(r, err);
		else
			rc = rc == SQLITE_DONE || rc == SQLITE_ROW || mine >= maxp ? 0
			     : step_err(r, err);
	}
	if (rc) {
		free(pts);
		return -1;
	}
	if (n)
		qsort(pts, n, sizeof(*pts), cmp_point);
	res->t = mw_xmalloc((n ? n : 1) * sizeof(*res->t));
	for (i = 0; i < n; i++)
		if (!res->nt || res->t[res->nt - 1] != pts[i].ts) {
			if (res->nt == maxp) {
				res->truncated = true;
				break;
			}
			res->t[res->nt++] = pts[i].ts;
		}
	for (i = 0; i < res->nseries; i++) {
		res->values[i] = mw_xmalloc((res->nt ? res->nt : 1) * sizeof(double));
		for (j = 0; j < res->nt; j++)
			res->values[i][j] = NAN;
	}
	for (i = 0, j = 0; i < n; i++) {
		while (j < res->nt && res->t[j] < pts[i].ts)
			j++;
		if (j == res->nt)
			break;
		res->values[pts[i].series][j] = pts[i].v;	/* last one wins */
	}
	free(pts);
	if (q->top)
		apply_top(res, q->top);
	return 0;
}

/* Most raw points any one series has in [from, to] (chunk counts). */
static int64_t raw_count(struct mw_reader *r, const struct mw_range_query *q,
			 const struct mw_range_result *res)
{
	sqlite3_stmt *st = stmt(r, RS_RAW_COUNT, NULL);
	int64_t most = 0;
	size_t i;

	if (!st)
		return INT64_MAX;
	for (i = 0; i < res->nseries && !past_deadline(r); i++) {
		sqlite3_bind_int64(st, 1, res->series[i].id);
		sqlite3_bind_int64(st, 2, q->from_ms);
		sqlite3_bind_int64(st, 3, q->to_ms);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > most)
			most = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
	}
	return most;
}

/*
 * The size check, before any point is read: series kept x the longest
 * axis the query can give.  *raw_ok: AUTO may read raw points (every
 * series' first max_points held at once fit the limit).
 */
static int check_size(struct mw_reader *r, const struct mw_range_query *q, size_t nseries,
		      size_t maxp, bool *raw_ok, struct mw_err *err)
{
	uint64_t limit = q->max_values ? q->max_values : MW_QUERY_MAX_VALUES;
	uint64_t kept = q->top && q->top < nseries ? q->top : nseries;
	int64_t axis;

	*raw_ok = (uint64_t)nseries * maxp <= limit;
	if (q->step_ms == MW_STEP_RAW) {
		axis = (int64_t)maxp;
		kept = nseries;	/* the union axis needs every series */
	} else if (q->step_ms > 0) {
		axis = nbuckets(q->from_ms, q->to_ms, q->step_ms);
	} else {
		/* an automatic step is at least a second */
		axis = nbuckets(q->from_ms, q->to_ms, 1000);
		if (axis > (int64_t)maxp)
			axis = (int64_t)maxp;
	}
	if (kept * (uint64_t)axis <= limit)
		return 0;
	r->kind = MW_QERR_LIMIT;
	return mw_error(err, "%zu series x %lld points is over the limit of %llu values; "
			"narrow the selector, shorten the range or lower max_points",
			(size_t)kept, (long long)axis, (unsigned long long)limit);
}

static int range(struct mw_reader *r, struct mw_series_list *list,
		 const struct mw_range_query *q_in, struct mw_range_result *out,
		 struct mw_err *err)
{
	struct mw_range_query q = *q_in;
	size_t maxp = points_limit(&q), i;
	int64_t lo = INT64_MAX;
	bool raw, raw_ok;
	int rc;

	out->series = list->items;
	out->nseries = out->series_total = list->n;
	out->agg = q.agg;
	list->items = NULL;
	list->n = 0;
	out->values = mw_xcalloc(out->nseries ? out->nseries : 1, sizeof(*out->values));
	if (mw_range_query_check(&q, err)) {
		r->kind = MW_QERR_BAD;
		return -1;
	}
	if (check_size(r, &q, out->nseries, maxp, &raw_ok, err))
		return -1;
	if (fill_range(r, out->series, out->nseries, err))
		return -1;
	/* Before 1970: from the first stored point (nothing is older). */
	if (q.from_ms < 0) {
		for (i = 0; i < out->nseries; i++)
			if (out->series[i].first_ts != INT64_MIN && out->series[i].first_ts < lo)
				lo = out->series[i].first_ts;
		if (lo == INT64_MAX)
			lo = 0;
		if (lo > q.from_ms)
			q.from_ms = lo < q.to_ms ? lo : q.to_ms;
	}
	raw = q.step_ms == MW_STEP_RAW;
	if (q.step_ms == MW_STEP_AUTO && (q.tier == MW_TIER_AUTO || q.tier == MW_TIER_RAW) &&
	    raw_ok) {
		raw = raw_count(r, &q, out) <= (int64_t)maxp;
		if (check_deadline(r, err))
			return -1;
	}
	rc = raw ? query_raw(r, &q, maxp, out, err) : query_bucketed(r, &q, maxp, out, err);
	return rc;
}

int mw_reader_range(struct mw_reader *r, const char *selector,
		    const struct mw_range_query *q, struct mw_range_result *out,
		    struct mw_err *err)
{
	int64_t t0 = mw_clock_mono_ns();
	struct mw_series_list list;
	struct mw_selector sel;
	int rc;

	memset(out, 0, sizeof(*out));
	if (begin_selected(r, selector, &sel, err))
		return -1;
	rc = load_series(r, &sel, NULL, NULL, &list, err);
	mw_selector_release(&sel);
	if (!rc)
		rc = range(r, &list, q, out, err);
	end_read(r);
	mw_series_list_release(&list);
	if (rc)
		mw_range_result_release(out);
	stat_done(t0);
	return rc;
}

int mw_reader_range_ids(struct mw_reader *r, const int64_t *ids, size_t nids,
			const struct mw_range_query *q, struct mw_range_result *out,
			struct mw_err *err)
{
	int64_t t0 = mw_clock_mono_ns();
	struct mw_series_list list = { NULL, 0 };
	size_t i, cap = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (begin_read(r, err))
		return -1;
	for (i = 0; i < nids && !rc; i++) {
		struct mw_series_list one;

		rc = load_series(r, NULL, &ids[i], NULL, &one, err);
		if (!rc && !one.n)
			rc = mw_error(err, "no series with id %lld", (long long)ids[i]);
		if (!rc) {
			MW_GROW(list.items, cap, list.n + 1);
			list.items[list.n++] = one.items[0];
			free(one.items);
		} else {
			mw_series_list_release(&one);
		}
	}
	if (!rc)
		rc = range(r, &list, q, out, err);
	end_read(r);
	mw_series_list_release(&list);
	if (rc)
		mw_range_result_release(out);
	stat_done(t0);
	return rc;
}

/* ---- raw export ------------------------------------------------------------- */

struct mw_raw_iter {
	struct mw_reader *r;
	sqlite3_stmt *st;
	struct mw_chunk_dec d;
	bool have_chunk, done;
	int64_t from, to;
};

int mw_raw_iter_open(struct mw_raw_iter **out, struct mw_reader *r, int64_t series_id,
		     int64_t from_ms, int64_t to_ms, struct mw_err *err)
{
	struct mw_raw_iter *it = mw_xcalloc(1, sizeof(*it));

	*out = NULL;
	if (sqlite3_prepare_v2(r->db, chunk_range_sql, -1, &it->st, NULL) != SQLITE_OK) {
		step_err(r, err);
		free(it);
		return -1;
	}
	sqlite3_bind_int64(it->st, 1, series_id);
	sqlite3_bind_int64(it->st, 2, from_ms);
	sqlite3_bind_int64(it->st, 3, to_ms);
	it->r = r;
	it->from = from_ms;
	it->to = to_ms;
	*out = it;
	return 0;
}

int mw_raw_iter_next(struct mw_raw_iter *it, int64_t *ts, double *value,
		     struct mw_err *err)
{
	while (!it->done) {
		int rc;

		if (it->have_chunk) {
			rc = mw_chunk_dec_next(&it->d, ts, value);
			if (rc < 0)
				return mw_error(err, "corrupt chunk in '%s'", it->r->path);
			if (rc == 0) {
				it->have_chunk = false;
				continue;
			}
			if (*ts >= it->from && *ts <= it->to)
				return 1;
			continue;
		}
		if (past_deadline(it->r))	/* checked once a chunk */
			return deadline_err(it->r, err);
		rc = sqlite3_step(it->st);
		if (rc == SQLITE_DONE) {
			it->done = true;
			break;
		}
		if (rc != SQLITE_ROW)
			return step_err(it->r, err);
		if (mw_chunk_dec_init(&it->d, sqlite3_column_blob(it->st, 0),
				      (size_t)sqlite3_column_bytes(it->st, 0)))
			return mw_error(err, "corrupt chunk in '%s'", it->r->path);
		it->have_chunk = true;
	}
	return 0;
}

void mw_raw_iter_free(struct mw_raw_iter *it)
{
	if (!it)
		return;
	sqlite3_finalize(it->st);
	free(it);
}

/* ---- latest ----------------------------------------------------------------- */

void mw_latest_list_release(struct mw_latest_list *list)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		mw_series_info_release(&list->items[i].info);
	free(list->items);
	list->items = NULL;
	list->n = 0;
}

/*
 * The newest value of every live series selected: one pass over the
 * series_live table (the series the writer holds, written in the last
 * series_idle_ms) joined to latest, series and their labels; the cost is
 * that of the live series, never of the dead ones the file holds.
 */
static int latest(struct mw_reader *r, const char *selector, struct mw_latest_list *out,
		  struct mw_err *err)
{
	struct found f = { NULL, 0, 0 };
	struct mw_selector sel;
	sqlite3_stmt *st;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (begin_selected(r, selector, &sel, err))
		return -1;
	if (!(st = stmt(r, RS_LATEST_LIVE, err)) ||
	    collect(r, st, &sel, true, &f, err)) {
		found_release(&f);
		goto out;
	}
	if (f.n > 1)
		qsort(f.items, f.n, sizeof(*f.items), cmp_found_key);
	out->items = f.n ? f.items : mw_xcalloc(1, sizeof(*out->items));
	if (!f.n)
		free(f.items);
	out->n = f.n;
	rc = 0;
out:
	end_read(r);
	mw_selector_release(&sel);
	return rc;
}

int mw_reader_latest(struct mw_reader *r, const char *selector,
		     struct mw_latest_list *out, struct mw_err *err)
{
	int64_t t0 = mw_clock_mono_ns();
	int rc = latest(r, selector, out, err);

	stat_done(t0);
	return rc;
}

int mw_reader_processes(struct mw_reader *r, int64_t window_ms,
			struct mw_latest_list *out, struct mw_err *err)
{
	int64_t t0 = mw_clock_mono_ns();
	sqlite3_stmt *past, *first;
	size_t i;

	if (window_ms <= 0)
		window_ms = 3600000;
	if (latest(r, "{__name__=~\"memwatch_process_.*\"}", out, err))
		return -1;
	if (begin_read(r, err))
		goto fail;
	if (!(past = stmt(r, RS_PAST, err)) || !(first = stmt(r, RS_FIRST_CHUNK, err))) {
		end_read(r);
		goto fail;
	}
	for (i = 0; i < out->n; i++) {
		struct mw_latest *l = &out->items[i];

		sqlite3_bind_int64(past, 1, l->info.id);
		sqlite3_bind_int64(past, 2, floor_div(l->ts_ms - window_ms - 60000, 60000));
		if (sqlite3_step(past) == SQLITE_ROW) {
			l->past_ts_ms = sqlite3_column_int64(past, 0) + 59999;
			l->past_value = sqlite3_column_double(past, 1);
		} else {
			struct mw_chunk_dec d;

			sqlite3_bind_int64(first, 1, l->info.id);
			if (sqlite3_step(first) == SQLITE_ROW &&
			    !mw_chunk_dec_init(&d, sqlite3_column_blob(first, 0),
					       (size_t)sqlite3_column_bytes(first, 0)) &&
			    mw_chunk_dec_next(&d, &l->past_ts_ms, &l->past_value) != 1) {
				l->past_ts_ms = INT64_MIN;
				l->past_value = NAN;
			}
			sqlite3_reset(first);
		}
		sqlite3_reset(past);
	}
	end_read(r);
	stat_done(t0);
	return 0;
fail:
	mw_latest_list_release(out);
	return -1;
}

/* ---- for regions_query.c (query_impl.h) ----------------------------------- */

sqlite3 *mw_reader_sqlite(struct mw_reader *r)
{
	return r->db;
}

int mw_reader_begin(struct mw_reader *r, struct mw_err *err)
{
	return begin_read(r, err);
}

void mw_reader_end(struct mw_reader *r)
{
	end_read(r);
}

int mw_reader_fail(struct mw_reader *r, struct mw_err *err)
{
	return step_err(r, err);
}

void mw_reader_set_kind(struct mw_reader *r, enum mw_query_error kind)
{
	r->kind = kind;
}

void mw_reader_count(int64_t t0)
{
	stat_done(t0);
}

sqlite3_stmt *mw_reader_stmt(struct mw_reader *r, int slot, const char *sql, struct mw_err *err)
{
	sqlite3_stmt **st = &r->extra[slot];

	if (!*st && sqlite3_prepare_v3(r->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st,
				       NULL) != SQLITE_OK) {
		*st = NULL;
		step_err(r, err);
		return NULL;
	}
	sqlite3_reset(*st);
	sqlite3_clear_bindings(*st);
	return *st;
}
