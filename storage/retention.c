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
 * Size: when the pages in use exceed max_db_bytes, the oldest raw chunks
 * (lowest rowid: chunks are inserted in time order) go first, a batch per
 * call; only with no raw chunk left do 1-minute, then 1-hour rollups go.
 * Freed pages are reused by later writes (auto_vacuum=INCREMENTAL also
 * lets us give them back: when more than a quarter of the file is free,
 * a few hundred pages are returned per call).
 */
#include <stdio.h>

#include "store_impl.h"
#include "schema.h"
#include "daemon/log.h"

#define STEP_SERIES 64
#define ROWS_PER_SERIES 256	/* chunks per series and call */
#define BUCKETS_PER_SERIES 1440	/* rollup rows per series, tier and call */
#define SIZE_BATCH 16	/* oldest chunks per round */
#define SIZE_ROUNDS 16
#define VACUUM_PAGES 256

static int run(sqlite3 *db, const char *sql, int64_t a, int64_t b, int64_t c,
	       struct mw_err *err)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return mw_error(err, "cannot prepare retention: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, a);
	sqlite3_bind_int64(st, 2, b);
	sqlite3_bind_int64(st, 3, c);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return mw_error(err, "cannot apply retention: %s", sqlite3_errmsg(db));
	return sqlite3_changes(db);
}

/* The first bucket number whose start is >= ms (rows below it are older). */
static int64_t bucket_ceil(int64_t ms, int64_t res)
{
	int64_t q = ms / res;

	return ms % res > 0 ? q + 1 : q;
}

static int by_age(struct mw_store *s, int64_t now_ms, struct mw_err *err)
{
	static const char *const rollup_sql[MW_TIERS] = {
		"DELETE FROM rollup_1m_data WHERE series_id = ?1 AND t < min(?2,"
		" (SELECT min(t) FROM rollup_1m_data WHERE series_id = ?1) + ?3)",
		"DELETE FROM rollup_1h_data WHERE series_id = ?1 AND t < min(?2,"
		" (SELECT min(t) FROM rollup_1h_data WHERE series_id = ?1) + ?3)",
	};
	const int64_t keep[MW_TIERS] = { s->opt.retention_1m_ms, s->opt.retention_1h_ms };
	sqlite3_stmt *ids;
	int64_t id = 0;
	int n = 0, t, rc;

	if (sqlite3_prepare_v2(s->db, "SELECT id FROM series WHERE id > ? ORDER BY id LIMIT ?",
			       -1, &ids, NULL) != SQLITE_OK)
		return mw_error(err, "cannot prepare retention: %s", sqlite3_errmsg(s->db));
	sqlite3_bind_int64(ids, 1, s->maintain_cursor);
	sqlite3_bind_int(ids, 2, STEP_SERIES);
	while ((rc = sqlite3_step(ids)) == SQLITE_ROW) {
		id = sqlite3_column_int64(ids, 0);
		n++;
		if (s->opt.retention_raw_ms > 0 &&
		    (run(s->db, "DELETE FROM chunk WHERE id IN (SELECT id FROM chunk"
			 " WHERE series_id = ?1 AND max_ts < ?2 LIMIT ?3)",
			 id, now_ms - s->opt.retention_raw_ms, ROWS_PER_SERIES, err) < 0 ||
		     run(s->db, "DELETE FROM latest WHERE series_id = ?1 AND ts < ?2",
			 id, now_ms - s->opt.retention_raw_ms, 0, err) < 0))
			break;
		for (t = 0; t < MW_TIERS; t++)
			if (keep[t] > 0 &&
			    run(s->db, rollup_sql[t], id,
				bucket_ceil(now_ms - keep[t], mw_rollup_res[t]),
				BUCKETS_PER_SERIES, err) < 0)
				break;
		if (t < MW_TIERS)
			break;
	}
	sqlite3_finalize(ids);
	if (rc != SQLITE_DONE)
		return rc == SQLITE_ROW ? -1 : mw_error(err, "cannot list series: %s",
							 sqlite3_errmsg(s->db));
	s->maintain_cursor = n < STEP_SERIES ? 0 : id;
	return 0;
}

static int over_size(struct mw_store *s)
{
	int64_t pages = mw_db_int(s->db, "PRAGMA page_count");
	int64_t freep = mw_db_int(s->db, "PRAGMA freelist_count");
	int64_t psize = mw_db_int(s->db, "PRAGMA page_size");

	return s->opt.max_db_bytes && pages >= 0 && freep >= 0 && psize > 0 &&
	       (uint64_t)((pages - freep) * psize) > s->opt.max_db_bytes;
}

static int by_size(struct mw_store *s, struct mw_err *err)
{
	static const char *const sql[] = {
		"DELETE FROM chunk WHERE id IN (SELECT id FROM chunk ORDER BY id LIMIT ?1)",
		"DELETE FROM rollup_1m_data WHERE (series_id, t) IN"
		" (SELECT series_id, t FROM rollup_1m_data ORDER BY t LIMIT ?1 * 16)",
		"DELETE FROM rollup_1h_data WHERE (series_id, t) IN"
		" (SELECT series_id, t FROM rollup_1h_data ORDER BY t LIMIT ?1 * 16)",
	};
	int round, rc = 0;
	size_t i;

	if (!over_size(s)) {
		s->size_warned = false;
		return 0;
	}
	if (!s->size_warned)
		mw_log_warn("storage: '%s' reached max_size (%llu bytes); removing the "
			    "oldest data", s->db_path,
			    (unsigned long long)s->opt.max_db_bytes);
	s->size_warned = true;
	for (round = 0; round < SIZE_ROUNDS && over_size(s); round++) {
		for (i = 0; i < MW_ARRAY_SIZE(sql); i++) {
			rc = run(s->db, sql[i], SIZE_BATCH, 0, 0, err);
			if (rc != 0)
				break;
		}
		if (rc <= 0)
			return rc;
	}
	return 0;
}

int mw_store_maintain(struct mw_store *s, int64_t now_ms, struct mw_err *err)
{
	int64_t pages, freep;

	if (mw_db_exec(s->db, "BEGIN IMMEDIATE", err))
		return -1;
	if (by_age(s, now_ms, err) || mw_rg_store_retain(s, now_ms, err) || by_size(s, err) || mw_db_exec(s->db, "COMMIT", err)) {
		if (!sqlite3_get_autocommit(s->db))
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	pages = mw_db_int(s->db, "PRAGMA page_count");
	freep = mw_db_int(s->db, "PRAGMA freelist_count");
	if (pages > 0 && freep * 4 > pages) {
		char sql[64];

		snprintf(sql, sizeof(sql), "PRAGMA incremental_vacuum(%d)", VACUUM_PAGES);
		if (mw_db_exec(s->db, sql, err))
			return -1;
	}
	return 0;
}
