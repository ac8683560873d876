/* cursor.c - see cursor.h. */
#include "cursor.h"

#include <sqlite3.h>
#include <stdlib.h>

#include "base/xalloc.h"
#include "storage/db.h"

#define CURSOR_BUSY_MS 10000

static const char create_sql[] =
	"CREATE TABLE IF NOT EXISTS remote_write_cursor ("
	" destination TEXT NOT NULL,"
	" series_id INTEGER NOT NULL,"
	" ts INTEGER NOT NULL,"
	" PRIMARY KEY (destination, series_id)) WITHOUT ROWID";

struct mw_rw_cursor {
	sqlite3 *db;
	char *dest;
	sqlite3_stmt *get, *put, *prune, *count;
};

static int fail(struct mw_rw_cursor *c, struct mw_err *err, const char *what)
{
	return mw_error(err, "remote-write cursor: %s: %s", what, sqlite3_errmsg(c->db));
}

static int prepare(struct mw_rw_cursor *c, const char *sql, sqlite3_stmt **st, struct mw_err *err)
{
	if (sqlite3_prepare_v2(c->db, sql, -1, st, NULL) != SQLITE_OK)
		return fail(c, err, "prepare");
	return 0;
}

int mw_rw_cursor_open(struct mw_rw_cursor **out, const char *db_path, const char *destination,
		      struct mw_err *err)
{
	struct mw_rw_cursor *c = mw_xcalloc(1, sizeof(*c));

	*out = NULL;
	if (mw_db_open(&c->db, db_path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
		       CURSOR_BUSY_MS, " for the remote-write cursor", err))
		goto fail;
	/* The database is in WAL mode (the writer set it, it is persistent);
	 * the cursor is as durable as the points. */
	sqlite3_exec(c->db, "PRAGMA synchronous = FULL", NULL, NULL, NULL);
	if (sqlite3_exec(c->db, create_sql, NULL, NULL, NULL) != SQLITE_OK) {
		fail(c, err, "create table");
		goto fail;
	}
	if (prepare(c, "SELECT ts FROM remote_write_cursor WHERE destination = ?1 AND series_id = ?2",
		    &c->get, err) ||
	    prepare(c, "INSERT INTO remote_write_cursor (destination, series_id, ts) VALUES (?1, ?2, ?3)"
		       " ON CONFLICT (destination, series_id) DO UPDATE SET ts = max(ts, excluded.ts)",
		    &c->put, err) ||
	    prepare(c, "DELETE FROM remote_write_cursor WHERE destination = ?1 AND ts < ?2",
		    &c->prune, err) ||
	    prepare(c, "SELECT count(*) FROM remote_write_cursor WHERE destination = ?1",
		    &c->count, err))
		goto fail;
	c->dest = mw_xstrdup(destination);
	*out = c;
	return 0;
fail:
	mw_rw_cursor_free(c);
	return -1;
}

void mw_rw_cursor_free(struct mw_rw_cursor *c)
{
	if (!c)
		return;
	sqlite3_finalize(c->get);
	sqlite3_finalize(c->put);
	sqlite3_finalize(c->prune);
	sqlite3_finalize(c->count);
	sqlite3_close(c->db);
	free(c->dest);
	free(c);
}

int mw_rw_cursor_get(struct mw_rw_cursor *c, int64_t series_id, int64_t *ts, struct mw_err *err)
{
	int rc;

	sqlite3_reset(c->get);
	sqlite3_bind_text(c->get, 1, c->dest, -1, SQLITE_STATIC);
	sqlite3_bind_int64(c->get, 2, series_id);
	rc = sqlite3_step(c->get);
	if (rc == SQLITE_ROW) {
		*ts = sqlite3_column_int64(c->get, 0);
		sqlite3_reset(c->get);
		return 1;
	}
	sqlite3_reset(c->get);
	if (rc == SQLITE_DONE)
		return 0;
	return fail(c, err, "read");
}

int mw_rw_cursor_commit(struct mw_rw_cursor *c, const struct mw_rw_cursor_pos *pos, size_t n,
			struct mw_err *err)
{
	size_t i;

	if (!n)
		return 0;
	if (sqlite3_exec(c->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return fail(c, err, "begin");
	for (i = 0; i < n; i++) {
		sqlite3_reset(c->put);
		sqlite3_bind_text(c->put, 1, c->dest, -1, SQLITE_STATIC);
		sqlite3_bind_int64(c->put, 2, pos[i].series_id);
		sqlite3_bind_int64(c->put, 3, pos[i].ts);
		if (sqlite3_step(c->put) != SQLITE_DONE) {
			fail(c, err, "write");
			sqlite3_reset(c->put);
			sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
			return -1;
		}
	}
	sqlite3_reset(c->put);
	if (sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		fail(c, err, "commit");
		sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

int mw_rw_cursor_prune(struct mw_rw_cursor *c, int64_t before, struct mw_err *err)
{
	int rc;

	sqlite3_reset(c->prune);
	sqlite3_bind_text(c->prune, 1, c->dest, -1, SQLITE_STATIC);
	sqlite3_bind_int64(c->prune, 2, before);
	rc = sqlite3_step(c->prune);
	sqlite3_reset(c->prune);
	return rc == SQLITE_DONE ? 0 : fail(c, err, "prune");
}

int64_t mw_rw_cursor_count(struct mw_rw_cursor *c)
{
	int64_t n = -1;

	sqlite3_reset(c->count);
	sqlite3_bind_text(c->count, 1, c->dest, -1, SQLITE_STATIC);
	if (sqlite3_step(c->count) == SQLITE_ROW)
		n = sqlite3_column_int64(c->count, 0);
	sqlite3_reset(c->count);
	return n;
}
