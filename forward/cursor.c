/* cursor.c - see cursor.h. */
#include "cursor.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "storage/db.h"

#define CURSOR_BUSY_MS 10000

static const char create_sql[] =
	"CREATE TABLE IF NOT EXISTS remote_write_cursor ("
	" destination TEXT NOT NULL,"
	" series_id INTEGER NOT NULL,"
	" ts INTEGER NOT NULL,"
	" PRIMARY KEY (destination, series_id)) WITHOUT ROWID";

/* A position as this process knows it; dirty until the database has it. */
struct held {
	int64_t series_id, ts;
	bool dirty;
};

struct mw_rw_cursor {
	sqlite3 *db;
	char *dest;
	sqlite3_stmt *get, *put, *prune, *count;
	/* Every position this process set, by series_id: the forwarder reads
	 * these first, so a commit the disk refuses (full, busy) does not
	 * make it send the same points again at the next pass. */
	struct held *held;
	size_t nheld, held_cap;
};

/* The index of series_id in held, or where it would go. */
static size_t held_find(const struct mw_rw_cursor *c, int64_t series_id)
{
	size_t lo = 0, hi = c->nheld;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->held[mid].series_id < series_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void held_set(struct mw_rw_cursor *c, int64_t series_id, int64_t ts, bool only_forward)
{
	size_t i = held_find(c, series_id);

	if (i < c->nheld && c->held[i].series_id == series_id) {
		if (only_forward && c->held[i].ts >= ts)
			return;
	} else {
		MW_GROW(c->held, c->held_cap, c->nheld + 1);
		memmove(&c->held[i + 1], &c->held[i], (c->nheld - i) * sizeof(*c->held));
		c->nheld++;
		c->held[i].series_id = series_id;
	}
	c->held[i].ts = ts;
	c->held[i].dirty = true;
}

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
		       " ON CONFLICT (destination, series_id) DO UPDATE SET ts = excluded.ts",
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
	free(c->held);
	free(c->dest);
	free(c);
}

int mw_rw_cursor_get(struct mw_rw_cursor *c, int64_t series_id, int64_t *ts, struct mw_err *err)
{
	size_t i = held_find(c, series_id);
	int rc;

	if (i < c->nheld && c->held[i].series_id == series_id) {
		*ts = c->held[i].ts;
		return 1;
	}
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

/* Write every dirty position in one transaction. */
static int write_held(struct mw_rw_cursor *c, struct mw_err *err)
{
	size_t i;

	if (sqlite3_exec(c->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return fail(c, err, "begin");
	for (i = 0; i < c->nheld; i++) {
		if (!c->held[i].dirty)
			continue;
		sqlite3_reset(c->put);
		sqlite3_bind_text(c->put, 1, c->dest, -1, SQLITE_STATIC);
		sqlite3_bind_int64(c->put, 2, c->held[i].series_id);
		sqlite3_bind_int64(c->put, 3, c->held[i].ts);
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
	for (i = 0; i < c->nheld; i++)
		c->held[i].dirty = false;
	return 0;
}

int mw_rw_cursor_commit(struct mw_rw_cursor *c, const struct mw_rw_cursor_pos *pos, size_t n,
			struct mw_err *err)
{
	size_t i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		held_set(c, pos[i].series_id, pos[i].ts, true);
	return write_held(c, err);
}

void mw_rw_cursor_rewind(struct mw_rw_cursor *c, int64_t series_id, int64_t ts)
{
	held_set(c, series_id, ts, false);
}

int64_t mw_rw_cursor_unsaved(const struct mw_rw_cursor *c)
{
	size_t i;
	int64_t n = 0;

	for (i = 0; i < c->nheld; i++)
		n += c->held[i].dirty;
	return n;
}

int mw_rw_cursor_prune(struct mw_rw_cursor *c, int64_t before, struct mw_err *err)
{
	size_t i, k;
	int rc;

	for (i = k = 0; i < c->nheld; i++)
		if (c->held[i].ts >= before)
			c->held[k++] = c->held[i];
	c->nheld = k;
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
