/*
 * db.c - small SQLite helpers (db.h): run a statement, prepare one with a
 * message naming it, read one integer.
 *
 * Uses SQLite and minute_vtab.c (registered on every connection it
 * opens, so every reader sees the packed minutes).  Used by schema.c, catalog.c and the writer's files
 * (store.c, series.c, retention.c, dedupe.c, regions_store.c): it is the
 * bottom of storage/, so catalog.c and schema.c no longer call each other.
 */
#include <stdint.h>

#include "db.h"
#include "minute_vtab.h"

int mw_db_exec(sqlite3 *db, const char *sql, struct mw_err *err)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		mw_error(err, "cannot run '%.40s': %s", sql,
			 msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int mw_db_prepare(sqlite3 *db, sqlite3_stmt **st, const char *sql, struct mw_err *err)
{
	if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, st, NULL) != SQLITE_OK) {
		*st = NULL;
		return mw_error(err, "cannot prepare '%.40s': %s", sql, sqlite3_errmsg(db));
	}
	return 0;
}

int64_t mw_db_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

int mw_db_open(sqlite3 **db, const char *path, int flags, int busy_ms, const char *for_what,
	       struct mw_err *err)
{
	if (sqlite3_open_v2(path, db, flags, NULL) != SQLITE_OK) {
		mw_error(err, "cannot open '%s'%s: %s", path, for_what,
			 *db ? sqlite3_errmsg(*db) : "out of memory");
		sqlite3_close(*db);
		*db = NULL;
		return -1;
	}
	sqlite3_busy_timeout(*db, busy_ms);
	if (mw_minute_vtab_register(*db) != SQLITE_OK) {
		mw_error(err, "cannot open '%s'%s: %s", path, for_what, sqlite3_errmsg(*db));
		sqlite3_close(*db);
		*db = NULL;
		return -1;
	}
	return 0;
}
