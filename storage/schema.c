/*
 * schema.c - create, check, rename aside and migrate the database.
 *
 * Uses db.c (SQLite helpers), catalog.c (the 6 -> 7 migration interns
 * the catalogue), rollup_fill.c (7 -> 8 fills the 10-minute tier) and
 * codec.c.  Used by store.c (the writer's open), the
 * readers (the version check) and the tests.
 *
 * Why quick_check rather than integrity_check at start-up: both read every
 * page, but quick_check skips the index-versus-table cross check that makes
 * integrity_check several times slower on a multi-gigabyte file; a torn or
 * overwritten page is still found.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/calendar.h"
#include "base/clock.h"
#include "base/fsutf8.h"
#include "schema.h"
#include "db.h"
#include "codec.h"
#include "catalog.h"
#include "clean_stop.h"
#include "rollup_fill.h"
#include "base/log.h"
#include "base/xalloc.h"

int mw_schema_version(sqlite3 *db)
{
	return (int)mw_db_int(db, "PRAGMA user_version");
}

/* ---- migrations --------------------------------------------------------- */

/* Version 2 records each chunk's newest point so the latest value of every
 * series is one indexed read; fill it in for chunks written by version 1
 * (only the newest chunk of each series is ever read for it). */
static int fill_last_points(sqlite3 *db, struct mw_err *err)
{
	sqlite3_stmt *sel = NULL, *upd = NULL;
	int rc = -1, step;

	if (mw_db_prepare(db, &sel, "SELECT c.id, c.data FROM series s "
			  "JOIN chunk c ON c.id = s.last_chunk", err) ||
	    mw_db_prepare(db, &upd, "UPDATE chunk SET last_ts = ?, last_value = ? "
			  "WHERE id = ?", err))
		goto out;
	while ((step = sqlite3_step(sel)) == SQLITE_ROW) {
		struct mw_chunk_dec d;
		int64_t ts, last_ts = INT64_MIN;
		double v, last_v = 0;

		if (mw_chunk_dec_init(&d, sqlite3_column_blob(sel, 1),
				      (size_t)sqlite3_column_bytes(sel, 1)))
			continue;
		while (mw_chunk_dec_next(&d, &ts, &v) == 1) {
			last_ts = ts;
			last_v = v;
		}
		if (last_ts == INT64_MIN)
			continue;
		sqlite3_bind_int64(upd, 1, last_ts);
		sqlite3_bind_double(upd, 2, last_v);
		sqlite3_bind_int64(upd, 3, sqlite3_column_int64(sel, 0));
		if (sqlite3_step(upd) != SQLITE_DONE) {
			mw_error(err, "cannot update chunk: %s", sqlite3_errmsg(db));
			goto out;
		}
		sqlite3_reset(upd);
	}
	if (step != SQLITE_DONE) {
		mw_error(err, "cannot read chunks: %s", sqlite3_errmsg(db));
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(upd);
	return rc;
}

/* Buckets of integral values (sum = round(avg * count), exact to the
 * precision the old avg had) become base = min and offsets; others base 0
 * and the values themselves. */
#define ROLLUP_TABLE(tier) \
	"CREATE TABLE rollup_" tier "_data (" \
	" series_id INTEGER NOT NULL," \
	" t INTEGER NOT NULL," \
	" base REAL NOT NULL, min REAL, max REAL, last REAL, sum REAL," \
	" count INTEGER NOT NULL," \
	" PRIMARY KEY (series_id, t)) WITHOUT ROWID;"
/* The view with the columns of schema 3, for the sqlite3 shell. */
#define ROLLUP_VIEW(tier, res) \
	"CREATE VIEW rollup_" tier " AS SELECT series_id, t * " res " AS ts," \
	" base + min AS min, base + max AS max," \
	" (base * count + sum) / count AS avg, base + last AS last, count," \
	" base * count + sum AS sum FROM rollup_" tier "_data;"
#define ROLLUP_V4(tier, res) \
	ROLLUP_TABLE(tier) \
	"INSERT INTO rollup_" tier "_data" \
	" SELECT series_id, ts / " res "," \
	"  CASE WHEN i THEN min ELSE 0 END, CASE WHEN i THEN 0 ELSE min END," \
	"  CASE WHEN i THEN max - min ELSE max END," \
	"  CASE WHEN i THEN last - min ELSE last END," \
	"  CASE WHEN i THEN round(avg * count) - min * count ELSE avg * count END," \
	"  count" \
	" FROM (SELECT *, (min = round(min) AND max = round(max) AND last = round(last)" \
	"  AND abs(min) < 4503599627370496 AND abs(max) < 4503599627370496" \
	"  AND abs(last) < 4503599627370496" \
	"  AND abs(min) * count < 4503599627370496" \
	"  AND abs(avg) * count < 4503599627370496" \
	"  AND abs(avg * count - round(avg * count)) <= 1e-9 * abs(avg * count) + 1e-9)" \
	" AS i FROM rollup_" tier ");" \
	"DROP TABLE rollup_" tier ";" \
	ROLLUP_VIEW(tier, res)

/* 7 -> 8: the 10-minute tier from the stored minutes (rollup_fill.c). */
static int ten_minutes_v8(sqlite3 *db, struct mw_err *err)
{
	return mw_rollup_fill_from_minutes(db, "rollup_10m_data", 10, err);
}

/* The tail of 6 -> 7, after catalogue_v7 filled series7. */
static const char v7_tail[] =
	"DROP TABLE series_label;"
	"DROP TABLE series;"
	"DROP TABLE latest;"
	"ALTER TABLE series7 RENAME TO series;"
	"CREATE INDEX series_by_metric ON series(metric_id, set_id);"
	"CREATE INDEX series_by_set ON series(set_id);"
	/* the old names, for the sqlite3 shell */
	"CREATE VIEW series_label AS SELECT s.id AS series_id, l.name AS name,"
	" l.value AS value FROM series s"
	" JOIN label_set ls ON ls.id = s.set_id"
	" JOIN json_each('[' || ls.labels || ']') m JOIN label l ON l.id = m.value;"
	"CREATE VIEW latest AS SELECT s.id AS series_id, coalesce(c.last_ts, c.max_ts) AS ts,"
	" c.last_value AS value FROM series s JOIN chunk c ON c.id = s.last_chunk;";

/* 6 -> 7: every series into series7 with its metric id and the label set
 * of its labels (ids in label-name order, as the writer builds them). */
static int catalogue_v7(sqlite3 *db, struct mw_err *err)
{
	struct mw_catalog cat;
	sqlite3_stmt *sel = NULL, *ins = NULL;
	int64_t *ids = NULL, cur = 0, metric = 0, first = 0, last_chunk = 0;
	bool first_null = true, chunk_null = true, have = false;
	size_t n = 0, cap = 0;
	int rc = -1, step;

	mw_catalog_open(&cat, db);
	if (mw_db_prepare(db, &sel, "SELECT s.id, m.id, s.first_ts, s.last_chunk, l.id"
			  " FROM series s JOIN metric m ON m.name = s.name"
			  " LEFT JOIN series_label sl ON sl.series_id = s.id"
			  " LEFT JOIN label l ON l.name = sl.name AND l.value = sl.value"
			  " ORDER BY s.id, sl.name", err) ||
	    mw_db_prepare(db, &ins, "INSERT INTO series7 (id, metric_id, set_id, first_ts,"
			  " last_chunk) VALUES (?1, ?2, ?3, ?4, ?5)", err))
		goto out;
	for (;;) {
		int64_t id = 0, set_id;

		step = sqlite3_step(sel);
		if (step == SQLITE_ROW)
			id = sqlite3_column_int64(sel, 0);
		if (have && (step != SQLITE_ROW || id != cur)) {
			if (mw_catalog_set(&cat, ids, n, true, &set_id, err))
				goto out;
			sqlite3_bind_int64(ins, 1, cur);
			sqlite3_bind_int64(ins, 2, metric);
			sqlite3_bind_int64(ins, 3, set_id);
			if (first_null)
				sqlite3_bind_null(ins, 4);
			else
				sqlite3_bind_int64(ins, 4, first);
			if (chunk_null)
				sqlite3_bind_null(ins, 5);
			else
				sqlite3_bind_int64(ins, 5, last_chunk);
			if (sqlite3_step(ins) != SQLITE_DONE) {
				mw_error(err, "cannot copy series: %s", sqlite3_errmsg(db));
				goto out;
			}
			sqlite3_reset(ins);
			have = false;
			n = 0;
		}
		if (step != SQLITE_ROW)
			break;
		if (!have) {
			have = true;
			cur = id;
			metric = sqlite3_column_int64(sel, 1);
			first_null = sqlite3_column_type(sel, 2) == SQLITE_NULL;
			first = sqlite3_column_int64(sel, 2);
			chunk_null = sqlite3_column_type(sel, 3) == SQLITE_NULL;
			last_chunk = sqlite3_column_int64(sel, 3);
		}
		if (sqlite3_column_type(sel, 4) != SQLITE_NULL) {
			MW_GROW(ids, cap, n + 1);
			ids[n++] = sqlite3_column_int64(sel, 4);
		}
	}
	if (step != SQLITE_DONE) {
		mw_error(err, "cannot read series: %s", sqlite3_errmsg(db));
		goto out;
	}
	rc = mw_db_exec(db, v7_tail, err);
out:
	free(ids);
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	mw_catalog_close(&cat);
	return rc;
}

struct migration {
	const char *sql;
	int (*fixup)(sqlite3 *db, struct mw_err *err);
};

static const struct migration migrations[] = {
	/* 0 -> 1: series, labels, compressed chunks, rollups. */
	{ "CREATE TABLE series ("
	  " id INTEGER PRIMARY KEY,"
	  " key TEXT NOT NULL UNIQUE,"
	  " name TEXT NOT NULL,"
	  " created_ms INTEGER NOT NULL);"
	  "CREATE INDEX series_by_name ON series(name);"
	  "CREATE TABLE series_label ("
	  " series_id INTEGER NOT NULL,"
	  " name TEXT NOT NULL,"
	  " value TEXT NOT NULL,"
	  " PRIMARY KEY (series_id, name)) WITHOUT ROWID;"
	  "CREATE TABLE chunk ("
	  " id INTEGER PRIMARY KEY,"
	  " series_id INTEGER NOT NULL,"
	  " min_ts INTEGER NOT NULL,"
	  " max_ts INTEGER NOT NULL,"
	  " npoints INTEGER NOT NULL,"
	  " data BLOB NOT NULL);"
	  "CREATE INDEX chunk_by_series ON chunk(series_id, max_ts);"
	  "CREATE TABLE rollup_1m ("
	  " series_id INTEGER NOT NULL,"
	  " ts INTEGER NOT NULL,"
	  " min REAL, max REAL, avg REAL, last REAL,"
	  " count INTEGER NOT NULL,"
	  " PRIMARY KEY (series_id, ts)) WITHOUT ROWID;"
	  "CREATE TABLE rollup_1h ("
	  " series_id INTEGER NOT NULL,"
	  " ts INTEGER NOT NULL,"
	  " min REAL, max REAL, avg REAL, last REAL,"
	  " count INTEGER NOT NULL,"
	  " PRIMARY KEY (series_id, ts)) WITHOUT ROWID;",
	  NULL },
	/* 1 -> 2: newest point per chunk, newest chunk per series. */
	{ "ALTER TABLE chunk ADD COLUMN last_ts INTEGER;"
	  "ALTER TABLE chunk ADD COLUMN last_value REAL;"
	  "ALTER TABLE series ADD COLUMN last_chunk INTEGER;"
	  "UPDATE series SET last_chunk ="
	  " (SELECT c.id FROM chunk c WHERE c.series_id = series.id"
	  "  ORDER BY c.max_ts DESC, c.id DESC LIMIT 1);",
	  fill_last_points },
	/* 2 -> 3: the newest point of every series in one small table, so
	 * /metrics reads it in one pass (upserted at each flush). */
	{ "CREATE TABLE latest ("
	  " series_id INTEGER PRIMARY KEY,"
	  " ts INTEGER NOT NULL,"
	  " value REAL) WITHOUT ROWID;"
	  "INSERT INTO latest (series_id, ts, value)"
	  " SELECT s.id, c.last_ts, c.last_value FROM series s"
	  " JOIN chunk c ON c.id = s.last_chunk WHERE c.last_ts IS NOT NULL;",
	  NULL },
	/* 3 -> 4: compact rollup rows (storage/rollup.h): bucket number
	 * instead of ms, sum instead of avg, values as a base and offsets;
	 * views with the old names and columns for the sqlite3 shell. */
	{ ROLLUP_V4("1m", "60000") ROLLUP_V4("1h", "3600000"), NULL },
	/* 4 -> 5: the series the writer holds in memory (live: written
	 * recently), so start-up and /metrics cost what the live series
	 * cost, not what the whole file holds; every series' first point
	 * (exact "since when" after the raw chunks expired); labels by value
	 * (selectors such as {pid="42"} over every series ever seen).  Series
	 * that may have had a bucket in progress when version 4 stopped are
	 * taken as live: their rollups are rebuilt from raw at start-up. */
	{ "CREATE TABLE series_live ("
	  " series_id INTEGER PRIMARY KEY) WITHOUT ROWID;"
	  "ALTER TABLE series ADD COLUMN first_ts INTEGER;"
	  "CREATE INDEX series_label_by_value ON series_label(name, value);"
	  "INSERT INTO series_live (series_id)"
	  " SELECT series_id FROM latest"
	  " WHERE ts >= (SELECT max(ts) FROM latest) - 2 * 3600000;",
	  NULL },
	/* 5 -> 6: working-set region snapshots (storage/regions.h): the
	 * processes, interned owner paths, and per snapshot a keyframe or a
	 * delta against the previous one. */
	{ "CREATE TABLE ws_process ("
	  " id INTEGER PRIMARY KEY,"
	  " pid TEXT NOT NULL,"
	  " process TEXT NOT NULL,"
	  " created_ms INTEGER NOT NULL,"
	  " UNIQUE (pid, process));"
	  "CREATE TABLE ws_owner ("
	  " id INTEGER PRIMARY KEY,"
	  " text TEXT NOT NULL UNIQUE);"
	  "CREATE TABLE ws_snapshot ("
	  " id INTEGER PRIMARY KEY,"
	  " process_id INTEGER NOT NULL,"
	  " ts INTEGER NOT NULL,"
	  " key_id INTEGER NOT NULL,"
	  " data BLOB NOT NULL);"
	  "CREATE INDEX ws_snapshot_by_process ON ws_snapshot(process_id, ts);",
	  NULL },
	/* 6 -> 7: the catalogue interned (catalog.h): metric names, label
	 * pairs and label sets shared by the series of a process; a series
	 * row is its metric id, label-set id, first point and newest chunk
	 * (no key text, no unique index on it).  The latest table goes: a
	 * series' newest point is its newest chunk's last_ts / last_value.
	 * Views keep the old names series_label and latest for the shell. */
	{ "CREATE TABLE metric ("
	  " id INTEGER PRIMARY KEY,"
	  " name TEXT NOT NULL UNIQUE);"
	  "CREATE TABLE label ("
	  " id INTEGER PRIMARY KEY,"
	  " name TEXT NOT NULL,"
	  " value TEXT NOT NULL,"
	  " UNIQUE (name, value));"
	  "CREATE TABLE label_set ("
	  " id INTEGER PRIMARY KEY,"
	  " labels TEXT NOT NULL UNIQUE);"
	  "CREATE TABLE label_set_member ("
	  " label_id INTEGER NOT NULL,"
	  " set_id INTEGER NOT NULL,"
	  " PRIMARY KEY (label_id, set_id)) WITHOUT ROWID;"
	  /* AUTOINCREMENT: retention removes series, and an id must never
	   * name another series later (remote-write cursors, links) */
	  "CREATE TABLE series7 ("
	  " id INTEGER PRIMARY KEY AUTOINCREMENT,"
	  " metric_id INTEGER NOT NULL,"
	  " set_id INTEGER NOT NULL,"
	  " first_ts INTEGER,"
	  " last_chunk INTEGER);"
	  "INSERT INTO metric (name) SELECT DISTINCT name FROM series ORDER BY name;"
	  "INSERT INTO label (name, value) SELECT DISTINCT name, value FROM series_label"
	  " ORDER BY name, value;",
	  catalogue_v7 },
	/* 7 -> 8: 10-minute rollups (issue 26: a week to 1,000 buckets read
	 * 10,080 minute rows a series), filled from the stored minutes. */
	{ ROLLUP_TABLE("10m") ROLLUP_VIEW("10m", "600000"), ten_minutes_v8 },
	/* 8 -> 9: packed hours of minute rows (minute_pack.h, minute_packer.c:
	 * a row a series and hour instead of 60, a sixth of the bytes); the
	 * maintenance steps pack the stored minutes over time. */
	{ "CREATE TABLE rollup_1m_pack ("
	  " series_id INTEGER NOT NULL,"
	  " h INTEGER NOT NULL,"
	  " data BLOB NOT NULL,"
	  " PRIMARY KEY (series_id, h)) WITHOUT ROWID;", NULL },
};

int mw_schema_migrate(sqlite3 *db, int target, struct mw_err *err)
{
	int v = mw_schema_version(db), v0 = v;

	if (v < 0)
		return mw_error(err, "cannot read schema version: %s", sqlite3_errmsg(db));
	if (v > MW_SCHEMA_VERSION)
		return mw_error(err, "database schema version %d is newer than this "
				"memwatch supports (%d)", v, MW_SCHEMA_VERSION);
	for (; v < target; v++) {
		const struct migration *m = &migrations[v];
		char sql[64];

		if (mw_db_exec(db, "BEGIN IMMEDIATE", err))
			return -1;
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", v + 1);
		if (mw_db_exec(db, m->sql, err) || (m->fixup && m->fixup(db, err)) ||
		    mw_db_exec(db, sql, err) || mw_db_exec(db, "COMMIT", err)) {
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			return mw_error_prefix(err, "migration to schema version %d", v + 1);
		}
		if (v0 > 0)
			mw_log_info("storage: migrated database to schema version %d", v + 1);
	}
	/* the tables migrations replaced leave free pages: give them back (a
	 * new file too, which ran every step) */
	if (v0 < target && mw_schema_version(db) == target)
		sqlite3_exec(db, "PRAGMA incremental_vacuum", NULL, NULL, NULL);
	return 0;
}

/* ---- opening ------------------------------------------------------------ */

static int file_exists(const char *path)
{
	FILE *f = mw_fopen(path, "rb");

	if (!f)
		return 0;
	fclose(f);
	return 1;
}

/* Rename path (and its -wal, -shm) to path.corrupt-STAMP[-N]. */
static int rename_aside(const char *path, char *aside, size_t size, struct mw_err *err)
{
	static const char *const suffix[] = { "-wal", "-shm" };
	char stamp[MW_TIME_TEXT_MAX], from[4096], to[4096];
	size_t i;
	int n;

	mw_time_compact(stamp, sizeof(stamp), (int64_t)time(NULL) * 1000);
	snprintf(aside, size, "%s.corrupt-%s", path, stamp);
	for (n = 2; file_exists(aside) && n < 100; n++)
		snprintf(aside, size, "%s.corrupt-%s-%d", path, stamp, n);
	if (mw_rename(path, aside))
		return mw_error(err, "cannot rename '%s' to '%s': %s", path, aside,
				strerror(errno));
	for (i = 0; i < MW_ARRAY_SIZE(suffix); i++) {
		snprintf(from, sizeof(from), "%s%s", path, suffix[i]);
		snprintf(to, sizeof(to), "%s%s", aside, suffix[i]);
		if (file_exists(from) && mw_rename(from, to))
			mw_log_error("storage: cannot rename '%s' to '%s': %s", from, to,
				     strerror(errno));
	}
	return 0;
}

int mw_schema_check(sqlite3 *db, struct mw_err *err)
{
	sqlite3_stmt *st;
	int rc, bad = 0;

	rc = sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			const char *line = (const char *)sqlite3_column_text(st, 0);

			if (!line || strcmp(line, "ok")) {
				if (!bad)
					mw_error(err, "quick_check: %s", line ? line : "?");
				bad = 1;
			}
		}
		sqlite3_finalize(st);
	}
	if (bad)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	rc = sqlite3_errcode(db) & 0xff;
	mw_error(err, "%s", sqlite3_errmsg(db));
	return rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT ? 1 : -1;
}

static int open_one(sqlite3 **out, const char *path, struct mw_err *err)
{
	int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;

	if (mw_db_open(out, path, flags, MW_BUSY_TIMEOUT_MS, "", err))
		return -1;
	sqlite3_extended_result_codes(*out, 0);
	return 0;
}

void mw_schema_check_marker(char *buf, size_t size, const char *path)
{
	snprintf(buf, size, "%s.check-failed", path);
}

int mw_schema_open(sqlite3 **out, const char *path, const struct mw_schema_open_options *o,
		   const char **checked, const char **deferred, bool *intact, struct mw_err *err)
{
	sqlite3 *db = NULL;
	struct mw_err why;
	int64_t now_ms = mw_clock_wall_ms(), file_bytes, page_size, t0;
	struct mw_clean_stop last;
	const char *reason;
	char marker[4096];
	bool clean = false, marked;
	int rc = 0;

	*out = NULL;
	if (checked)
		*checked = NULL;
	if (deferred)
		*deferred = NULL;
	if (intact)
		*intact = false;
	file_bytes = mw_file_size(path);	/* before SQLite replays a WAL into it */
	mw_schema_check_marker(marker, sizeof(marker), path);
	marked = file_exists(marker);
	if (open_one(&db, path, err))
		return -1;
	page_size = mw_db_int(db, "PRAGMA page_size");
	if (mw_clean_stop_read(db, &last)) {
		reason = "the file could not be read";
	} else if (marked) {
		reason = "the last run's full check, read in the background, failed";
	} else {
		reason = mw_full_check_reason(&last, file_bytes, page_size, now_ms,
					      o->full_check_every_ms);
		clean = mw_clean_stop_intact(&last, file_bytes, page_size);
		/* A large file that reads as this memwatch's is checked
		 * beside the running daemon (bg_check.h); a damaged one is
		 * found there and moved aside at the next start. */
		if (reason && deferred && file_bytes >= o->background_from_bytes &&
		    mw_schema_version(db) == MW_SCHEMA_VERSION) {
			*deferred = reason;
			reason = NULL;
		}
	}
	t0 = mw_clock_mono_ns();
	if (deferred && *deferred) {
		mw_log_info("storage: full check of '%s' (%s): %.0f MB, read in the background "
			    "while the daemon runs", path, *deferred, (double)file_bytes / 1e6);
	} else if (reason) {
		rc = mw_schema_check(db, &why);
		mw_log_info("storage: full check of '%s' (%s): %s in %lld ms", path, reason,
			    rc ? "failed" : "ok", (long long)((mw_clock_mono_ns() - t0) / 1000000));
	} else {
		mw_log_info("storage: '%s' was closed cleanly and is unchanged since; full "
			    "check skipped (the last one %lld h ago)", path,
			    (long long)((now_ms - last.checked_ms) / 3600000));
	}
	if (rc < 0) {
		sqlite3_close(db);
		return mw_error(err, "cannot check '%s': %s", path, why.msg);
	}
	if (marked && mw_remove(marker))
		mw_log_warn("storage: cannot remove '%s': %s", marker, strerror(errno));
	if (rc > 0) {
		char aside[4096];

		sqlite3_close(db);
		if (rename_aside(path, aside, sizeof(aside), err))
			return mw_error_prefix(err, "database '%s' is corrupt (%s)", path,
					       why.msg);
		mw_log_error("storage: DATABASE '%s' FAILED ITS CHECK (%s); moved it to "
			     "'%s' and started a new, empty database", path, why.msg, aside);
		clean = false;
		if (open_one(&db, path, err))
			return -1;
	}
	/* auto_vacuum only takes effect before the first table exists. */
	if (mw_schema_version(db) == 0 &&
	    mw_db_exec(db, "PRAGMA auto_vacuum = INCREMENTAL", err))
		goto fail;
	if (mw_db_exec(db, "PRAGMA journal_mode = WAL", err) ||
	    mw_db_exec(db, "PRAGMA synchronous = FULL", err) ||
	    mw_db_exec(db, "PRAGMA cache_size = -16000", err) ||
	    mw_db_exec(db, "PRAGMA temp_store = MEMORY", err) ||
	    mw_schema_migrate(db, MW_SCHEMA_VERSION, err) ||
	    mw_clean_stop_begin(db, reason != NULL, now_ms, err))
		goto fail;
	if (checked)
		*checked = reason;
	if (intact)
		*intact = clean;
	*out = db;
	return 0;
fail:
	sqlite3_close(db);
	return mw_error_prefix(err, "database '%s'", path);
}

/* ---- the size limit's index (retention.c, size_cut.c) ------------------ */

int mw_schema_size_index(sqlite3 *db, struct mw_err *err)
{
	return mw_db_exec(db, "CREATE INDEX IF NOT EXISTS chunk_by_time ON chunk(max_ts)", err);
}
