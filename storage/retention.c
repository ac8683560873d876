/*
 * retention.c - age and size limits, a small step at a time.
 *
 * Each call visits up to STEP_SERIES series (resuming where the last call
 * stopped) and deletes, per series and tier, at most a bounded number of
 * rows older than the tier's retention; with the writer calling it after
 * every flush the steady state deletes a handful of rows each time and a
 * large backlog (retention shortened) drains over many calls without ever
 * holding the write lock long.
 *
 * A series retention has emptied (no chunk, no rollup row left) and that
 * is not live is removed with it: its series row, and its label set,
 * labels and metric when no other series uses them (catalog.c).  So a
 * build agent's file does not keep a catalogue row for every process it
 * ever saw.
 *
 * Size: max_size is held by size_cut.c, which borrows
 * mw_retention_before_cut and mw_retention_drop_empty (size_cut.h) from
 * here; maintain.c runs both, and gives free pages back.
 *
 * Uses rollup_acc.c (buckets written before their raw points go),
 * catalog.c (a series removed), codec.c and db.c.  Used by maintain.c
 * (mw_retention_by_age), size_cut.c (mw_retention_before_cut,
 * mw_retention_drop_empty) and store.c (mw_retention_free); it never
 * calls back into either.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "store_impl.h"
#include "catalog.h"
#include "schema.h"
#include "size_cut.h"
#include "base/log.h"
#include "base/xalloc.h"

#define STEP_SERIES 64
#define ROWS_PER_SERIES 256	/* chunks per series and call */
#define BUCKETS_PER_SERIES 1440	/* rollup rows per series, tier and call */

/*
 * Statements are prepared once, at the first maintenance step, and kept
 * with the store (freed by mw_store_free): preparing them on every call
 * was 5 % of the writer's time under series churn.
 */
enum {
	RT_IDS, RT_CHUNKS, RT_ROLLUP_1M, RT_ROLLUP_10M, RT_ROLLUP_1H, RT_EMPTY,
	RT_EXPIRING, RT_FIRST_TS, RT_TAIL_CHUNKS, RT_LAST_1M, RT_LAST_10M, RT_LAST_1H, RT_NEWEST,
	RT_PACKS_1M,
	RT_COUNT
};

static const char *const rt_sql[RT_COUNT] = {
	[RT_IDS] = "SELECT id FROM series WHERE id > ? ORDER BY id LIMIT ?",
	[RT_CHUNKS] = "DELETE FROM chunk WHERE id IN (SELECT id FROM chunk"
		      " WHERE series_id = ?1 AND max_ts < ?2 LIMIT ?3)",
	[RT_ROLLUP_1M] = "DELETE FROM rollup_1m_data WHERE series_id = ?1 AND t < min(?2,"
			 " (SELECT min(t) FROM rollup_1m_data WHERE series_id = ?1) + ?3)",
	[RT_ROLLUP_10M] = "DELETE FROM rollup_10m_data WHERE series_id = ?1 AND t < min(?2,"
			  " (SELECT min(t) FROM rollup_10m_data WHERE series_id = ?1) + ?3)",
	[RT_ROLLUP_1H] = "DELETE FROM rollup_1h_data WHERE series_id = ?1 AND t < min(?2,"
			 " (SELECT min(t) FROM rollup_1h_data WHERE series_id = ?1) + ?3)",
	/* a series retention has emptied, not live: its catalogue rows go */
	[RT_EMPTY] = "SELECT NOT EXISTS (SELECT 1 FROM series_live WHERE series_id = ?1)"
		     " AND NOT EXISTS (SELECT 1 FROM chunk WHERE series_id = ?1)"
		     " AND NOT EXISTS (SELECT 1 FROM rollup_1m_data WHERE series_id = ?1)"
		     " AND NOT EXISTS (SELECT 1 FROM rollup_1m_pack WHERE series_id = ?1)"
		     " AND NOT EXISTS (SELECT 1 FROM rollup_10m_data WHERE series_id = ?1)"
		     " AND NOT EXISTS (SELECT 1 FROM rollup_1h_data WHERE series_id = ?1)",
	/* the series has raw chunks to expire: ?3 its newest raw point */
	[RT_EXPIRING] = "SELECT (SELECT max(max_ts) FROM chunk WHERE series_id = ?1)"
			" FROM chunk WHERE series_id = ?1 AND max_ts < ?2 LIMIT 1",
	/* the first point, recorded before its chunk goes (series.c) */
	[RT_FIRST_TS] = "UPDATE series SET first_ts = (SELECT min(min_ts) FROM chunk"
			" WHERE series_id = ?1) WHERE id = ?1 AND first_ts IS NULL",
	[RT_TAIL_CHUNKS] = "SELECT data FROM chunk WHERE series_id = ?1 AND max_ts >= ?2"
			   " ORDER BY id",
	[RT_LAST_1M] = "SELECT (SELECT t FROM rollup_1m_all WHERE series_id = ?1"
		       " ORDER BY t DESC LIMIT 1)",
	[RT_LAST_10M] = "SELECT max(t) FROM rollup_10m_data WHERE series_id = ?1",
	[RT_LAST_1H] = "SELECT max(t) FROM rollup_1h_data WHERE series_id = ?1",
	[RT_NEWEST] = "SELECT max(max_ts) FROM chunk WHERE series_id = ?1",
	/* packed hours wholly before hour ?2, at most ?3 hours a call */
	[RT_PACKS_1M] = "DELETE FROM rollup_1m_pack WHERE series_id = ?1 AND h < min(?2,"
			" (SELECT min(h) FROM rollup_1m_pack WHERE series_id = ?1) + ?3)",
};

struct mw_retention {
	sqlite3_stmt *st[RT_COUNT];
};

static int prepare_all(struct mw_store *s, struct mw_err *err)
{
	int i;

	if (s->ret)
		return 0;
	s->ret = mw_xcalloc(1, sizeof(*s->ret));
	for (i = 0; i < RT_COUNT; i++)
		if (mw_db_prepare(s->db, &s->ret->st[i], rt_sql[i], err)) {
			mw_retention_free(s);
			return mw_error_prefix(err, "retention");
		}
	return 0;
}

void mw_retention_free(struct mw_store *s)
{
	int i;

	if (!s->ret)
		return;
	for (i = 0; i < RT_COUNT; i++)
		sqlite3_finalize(s->ret->st[i]);
	free(s->ret);
	s->ret = NULL;
}

/* Run a DELETE; rows changed, or -1. */
static int run(struct mw_store *s, int which, int64_t a, int64_t b, int64_t c,
	       struct mw_err *err)
{
	sqlite3_stmt *st = s->ret->st[which];
	int rc;

	sqlite3_bind_int64(st, 1, a);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_int64(st, 2, b);
	if (sqlite3_bind_parameter_count(st) >= 3)
		sqlite3_bind_int64(st, 3, c);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return mw_error(err, "cannot apply retention: %s", sqlite3_errmsg(s->db));
	return sqlite3_changes(s->db);
}

/* The first bucket number whose start is >= ms (rows below it are older). */
static int64_t bucket_ceil(int64_t ms, int64_t res)
{
	int64_t q = ms / res;

	return ms % res > 0 ? q + 1 : q;
}

static bool in_memory(const struct mw_store *s, int64_t id)
{
	size_t i;

	for (i = 0; i < s->nall; i++)
		if (s->all[i]->id == id || s->all[i]->tx_id == id)
			return true;
	return false;
}

/*
 * Before a series that is not in memory loses raw chunks: its buckets
 * after each tier's newest stored one, which the writer did not write
 * when the series left memory (store.c, mark_idle), from its remaining
 * raw points.  The series has been idle for the idle bound and its points
 * are older than retention_raw, so these buckets are complete.
 */
static int roll_up_tail(struct mw_store *s, int64_t id, int64_t newest_raw, struct mw_err *err)
{
	struct mw_rollup_acc acc[MW_TIERS];
	int64_t next[MW_TIERS], from = INT64_MAX;
	sqlite3_stmt *st;
	int t, rc = 0, step;

	for (t = 0; t < MW_TIERS; t++) {
		st = s->ret->st[RT_LAST_1M + t];
		sqlite3_bind_int64(st, 1, id);
		next[t] = INT64_MIN;
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
			next[t] = (sqlite3_column_int64(st, 0) + 1) * mw_rollup_res[t];
		sqlite3_reset(st);
		acc[t].bucket = INT64_MIN;
		if (next[t] < from)
			from = next[t];
	}
	if (from > newest_raw)
		return 0;	/* rolled up already */
	st = s->ret->st[RT_TAIL_CHUNKS];
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, from);
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		struct mw_chunk_dec d;
		int64_t ts;
		double v;

		if (mw_chunk_dec_init(&d, sqlite3_column_blob(st, 0),
				      (size_t)sqlite3_column_bytes(st, 0)))
			continue;
		while (!rc && mw_chunk_dec_next(&d, &ts, &v) == 1)
			for (t = 0; t < MW_TIERS && !rc; t++) {
				struct mw_rollup_acc *a = &acc[t];
				int64_t b = mw_floor_to(ts, mw_rollup_res[t]);

				if (ts < next[t] || isnan(v))
					continue;
				if (a->bucket != INT64_MIN && b != a->bucket) {
					/* merge: out-of-order points meet their bucket again */
					rc = mw_rollup_write(s, id, "a series", t, true, a, err);
					a->bucket = INT64_MIN;
				}
				if (a->bucket == INT64_MIN) {
					a->bucket = b;
					a->min = a->max = a->sum = a->last = v;
					a->last_ts = ts;
					a->count = 1;
					continue;
				}
				a->min = fmin(a->min, v);
				a->max = fmax(a->max, v);
				a->sum += v;
				a->count++;
				if (ts >= a->last_ts) {
					a->last = v;
					a->last_ts = ts;
				}
			}
	}
	sqlite3_reset(st);
	if (!rc && step != SQLITE_DONE && step != SQLITE_ROW)
		return mw_error(err, "cannot read chunks: %s", sqlite3_errmsg(s->db));
	for (t = 0; t < MW_TIERS && !rc; t++)
		if (acc[t].bucket != INT64_MIN)
			rc = mw_rollup_write(s, id, "a series", t, true, &acc[t], err);
	return rc;
}

/* Before raw chunks of series id go: its first point and (not in memory)
 * its buckets not yet rolled up. */
static int before_expiry(struct mw_store *s, int64_t id, int64_t cutoff, struct mw_err *err)
{
	sqlite3_stmt *st = s->ret->st[RT_EXPIRING];
	int64_t newest = INT64_MIN;
	int rc;

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, cutoff);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		newest = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return 0;	/* nothing expires */
	if (rc != SQLITE_ROW)
		return mw_error(err, "cannot apply retention: %s", sqlite3_errmsg(s->db));
	if (run(s, RT_FIRST_TS, id, 0, 0, err) < 0)
		return -1;
	return in_memory(s, id) ? 0 : roll_up_tail(s, id, newest, err);
}

int mw_retention_drop_empty(struct mw_store *s, int64_t id, bool *removed, struct mw_err *err)
{
	sqlite3_stmt *st = s->ret->st[RT_EMPTY];
	int rc, empty = 0;

	*removed = false;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		empty = sqlite3_column_int(st, 0);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return mw_error(err, "cannot apply retention: %s", sqlite3_errmsg(s->db));
	if (!empty)
		return 0;
	*removed = true;
	return mw_catalog_remove(&s->cat, id, err);
}

/* Remove the series' catalogue rows when retention left it nothing. */
static int drop_if_empty(struct mw_store *s, int64_t id, struct mw_err *err)
{
	bool removed;

	return in_memory(s, id) ? 0 : mw_retention_drop_empty(s, id, &removed, err);
}

int mw_retention_before_cut(struct mw_store *s, int64_t id, bool held, struct mw_err *err)
{
	sqlite3_stmt *st = s->ret->st[RT_NEWEST];
	int64_t newest = INT64_MIN;
	int rc;

	if (run(s, RT_FIRST_TS, id, 0, 0, err) < 0)
		return -1;
	if (held)
		return 0;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		newest = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return mw_error(err, "cannot apply max_size: %s", sqlite3_errmsg(s->db));
	return newest == INT64_MIN ? 0 : roll_up_tail(s, id, newest, err);
}

static int by_age(struct mw_store *s, int64_t now_ms, struct mw_err *err)
{
	/* 10-minute rows are kept as long as minute rows (SCHEMA.md): the
	 * automatic step reads them only over ranges the minutes cover too */
	const int64_t keep[MW_TIERS] = { s->opt.retention_1m_ms, s->opt.retention_1m_ms,
					 s->opt.retention_1h_ms };
	sqlite3_stmt *ids = s->ret->st[RT_IDS];
	int64_t id = 0, *todo = NULL;
	size_t ntodo = 0, cap = 0, i;
	int n = 0, t, rc;

	/* the ids first: the loop deletes from series */
	sqlite3_bind_int64(ids, 1, s->maintain_cursor);
	sqlite3_bind_int(ids, 2, STEP_SERIES);
	while ((rc = sqlite3_step(ids)) == SQLITE_ROW) {
		MW_GROW(todo, cap, ntodo + 1);
		todo[ntodo++] = sqlite3_column_int64(ids, 0);
	}
	sqlite3_reset(ids);
	if (rc != SQLITE_DONE) {
		free(todo);
		return mw_error(err, "cannot list series: %s", sqlite3_errmsg(s->db));
	}
	rc = 0;
	for (i = 0; i < ntodo && !rc; i++) {
		bool removed = false;

		id = todo[i];
		n++;
		if (s->opt.retention_raw_ms > 0) {
			int k = before_expiry(s, id, now_ms - s->opt.retention_raw_ms, err) ? -1 :
				run(s, RT_CHUNKS, id, now_ms - s->opt.retention_raw_ms,
				    ROWS_PER_SERIES, err);

			if (k < 0)
				rc = -1;
			removed = k > 0;
		}
		for (t = 0; t < MW_TIERS && !rc; t++) {
			int k = 0;

			if (keep[t] > 0 &&
			    (k = run(s, RT_ROLLUP_1M + t, id,
				     bucket_ceil(now_ms - keep[t], mw_rollup_res[t]),
				     BUCKETS_PER_SERIES, err)) < 0)
				rc = -1;
			removed = removed || k > 0;
			/* packed minutes: whole hours before the cutoff (a pack
			 * the cutoff falls inside stays until its hour has passed) */
			if (t == 0 && keep[t] > 0 && !rc &&
			    (k = run(s, RT_PACKS_1M, id,
				     mw_minute_pack_hour(bucket_ceil(now_ms - keep[t],
								     mw_rollup_res[t])),
				     BUCKETS_PER_SERIES / 60, err)) < 0)
				rc = -1;
		}
		/* every visited series, not only those losing rows now: the
		 * size limit and older versions emptied series too */
		(void)removed;
		if (!rc)
			rc = drop_if_empty(s, id, err);
	}
	free(todo);
	if (rc)
		return -1;
	s->maintain_cursor = n < STEP_SERIES ? 0 : id;
	return 0;
}

int mw_retention_by_age(struct mw_store *s, int64_t now_ms, struct mw_err *err)
{
	return prepare_all(s, err) || by_age(s, now_ms, err) ? -1 : 0;
}
