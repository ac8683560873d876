/*
 * db.h - small SQLite helpers shared by the files of storage/ (db.c), and
 * opening a connection for the one other holder of its own, the
 * forwarder's cursor (forward/cursor.c).
 *
 * Threads: whichever thread owns the connection.
 */
#ifndef MW_DB_H
#define MW_DB_H

#include <stdint.h>
#include <sqlite3.h>
#include "base/mwerr.h"

/* Open path with flags (SQLITE_OPEN_*) and busy_ms of patience for a
 * lock.  -1 with "cannot open 'PATH'<for_what>: why" and *db NULL. */
int mw_db_open(sqlite3 **db, const char *path, int flags, int busy_ms, const char *for_what,
	       struct mw_err *err);
/* Run SQL without results; -1 with "sql-prefix: sqlite message". */
int mw_db_exec(sqlite3 *db, const char *sql, struct mw_err *err);
/* Prepare a statement (kept: SQLITE_PREPARE_PERSISTENT); -1 with a message
 * naming the statement. */
int mw_db_prepare(sqlite3 *db, sqlite3_stmt **st, const char *sql, struct mw_err *err);
/* Integer result of a one-row query (PRAGMA page_count ...), or -1. */
int64_t mw_db_int(sqlite3 *db, const char *sql);

#endif
