/*
 * schema.h - the database layout, its version and forward migrations,
 * and opening the writer's connection safely.
 *
 * The version lives in PRAGMA user_version.  Migrations are an ordered
 * list of steps (SQL plus an optional C fix-up), each run in its own
 * transaction; a fresh database runs every step, so the migration code is
 * exercised on every new file.  A database newer than this build is
 * refused, never touched.  See storage/SCHEMA.md for the tables.
 *
 * Threads: whichever thread owns the connection (the writer).
 */
#ifndef MW_SCHEMA_H
#define MW_SCHEMA_H

#include <stdbool.h>
#include <stdint.h>
#include <sqlite3.h>
#include "base/mwerr.h"
#include "db.h"	/* mw_db_exec and friends, for the users of a schema */

#define MW_SCHEMA_VERSION 9

/* Milliseconds SQLite waits on a lock before returning SQLITE_BUSY. */
#define MW_BUSY_TIMEOUT_MS 5000

/*
 * Open (creating if needed) the database at path for writing: check it
 * (PRAGMA quick_check; skipped for a file the last run closed cleanly and
 * that is unchanged since, unless the last check is older than
 * o->full_check_every_ms, 0: always: clean_stop.h), and if it is not a
 * valid database or fails the check, close it, rename it and its -wal/-shm files aside to
 * PATH.corrupt-YYYYmmddTHHMMSS (UTC), log that at error level, and start
 * a fresh file.  *checked (may be NULL): why the full check ran (a
 * static string), NULL when it was skipped or deferred; *deferred (NULL:
 * never deferred): why a full check is due that the caller must run in
 * the background (o->background_from_bytes).  *intact (may be NULL): the
 * last run stopped cleanly and the file is as it left it
 * (mw_clean_stop_intact; false for a file renamed aside).  Then set WAL, synchronous=FULL, incremental auto-vacuum
 * (new files) and migrate to MW_SCHEMA_VERSION.  -1 with a message on
 * failure (unwritable directory, newer schema ...).
 */
struct mw_schema_open_options {
	int64_t full_check_every_ms;	/* clean_stop.h */
	/* A file this big or more whose full check is due, that reads as
	 * this memwatch's (its clean-stop record, the current schema) and
	 * whose last background check did not fail, is not checked here:
	 * *deferred says why it is due, and the caller reads it whole in
	 * the background (bg_check.h).  INT64_MAX: never. */
	int64_t background_from_bytes;
};

int mw_schema_open(sqlite3 **out, const char *path, const struct mw_schema_open_options *o,
		   const char **checked, const char **deferred, bool *intact, struct mw_err *err);

/* Where a full check read in the background that failed leaves its
 * message (PATH.check-failed, bg_check.h): the next mw_schema_open checks
 * that file first, whatever its size, and removes the marker. */
void mw_schema_check_marker(char *buf, size_t size, const char *path);

/* PRAGMA quick_check on db: 0 fine, 1 damaged (not a database, or the
 * check found something; err says what), -1 it could not run (err). */
int mw_schema_check(sqlite3 *db, struct mw_err *err);

/* Migrate an open database from its current version up to `target`
 * (<= MW_SCHEMA_VERSION; tests use it to build older files). */
int mw_schema_migrate(sqlite3 *db, int target, struct mw_err *err);

/* PRAGMA user_version, or -1 on error. */
int mw_schema_version(sqlite3 *db);

/* The index the size limit reads raw chunks oldest first by (chunk_by_time
 * on chunk(max_ts)): made, once, the first time a store with a max_size
 * applies it, so files without a limit do not pay for it.  Additive and
 * unversioned (CREATE INDEX IF NOT EXISTS): older builds keep it up to
 * date without knowing it.  Inside or outside a transaction. */
int mw_schema_size_index(sqlite3 *db, struct mw_err *err);

#endif
