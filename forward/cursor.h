/*
 * cursor.h - the durable per-destination, per-series cursor of the
 * remote-write forwarder: table remote_write_cursor in the daemon's
 * database (storage/SCHEMA.md, "Remote-write cursors").
 *
 * A row (destination, series_id, ts) says: every stored point of that
 * series with a timestamp <= ts has been accepted by that destination (or
 * refused for good and counted).  It is written only after the receiver
 * answered, in one transaction per batch, so a restart of memwatch, of the
 * receiver or of the network resumes exactly there (at least once: a batch
 * accepted just before a SIGKILL, whose cursor did not commit, is sent
 * again).
 *
 * The positions this process set are kept in memory too and read from
 * there first: when the disk refuses the commit (full, locked beyond the
 * busy timeout) the forwarder still moves on, each point is sent once,
 * and the unsaved positions are written with the next commit that the
 * disk takes (a restart before that sends them again: at least once).
 *
 * The forwarder owns one struct mw_rw_cursor: its own read-write SQLite
 * connection, holding the write lock only for those small transactions
 * (the storage writer waits on them through its busy timeout, never the
 * other way round for long).  The table is created here, IF NOT EXISTS,
 * without touching the schema version.
 *
 * Owned by the forwarder (forward/).  One thread at a time.
 */
#ifndef MW_FORWARD_CURSOR_H
#define MW_FORWARD_CURSOR_H

#include <stddef.h>
#include <stdint.h>
#include "base/mwerr.h"

struct mw_rw_cursor;

struct mw_rw_cursor_pos {
	int64_t series_id;
	int64_t ts;		/* points <= ts are done */
};

/* Open db_path (it must exist: the writer creates it) and create the
 * table if needed.  -1 with a message naming the path. */
int mw_rw_cursor_open(struct mw_rw_cursor **out, const char *db_path, const char *destination,
		      struct mw_err *err);
void mw_rw_cursor_free(struct mw_rw_cursor *c);

/* 1 and *ts when the series has a cursor; 0 when not; -1 on error. */
int mw_rw_cursor_get(struct mw_rw_cursor *c, int64_t series_id, int64_t *ts, struct mw_err *err);

/* Move n cursors forward (a held ts greater than the one given is kept)
 * and write every unsaved position in one transaction.  -1 when the
 * database refused: the positions hold in memory all the same. */
int mw_rw_cursor_commit(struct mw_rw_cursor *c, const struct mw_rw_cursor_pos *pos, size_t n,
			struct mw_err *err);

/* Set a series' cursor back to ts (the wall clock stepped back: the cursor
 * lies in the future); written with the next commit (after a step many
 * series go back at once: one transaction for all). */
void mw_rw_cursor_rewind(struct mw_rw_cursor *c, int64_t series_id, int64_t ts);

/* Positions held in memory that the database does not have yet. */
int64_t mw_rw_cursor_unsaved(const struct mw_rw_cursor *c);

/* Forget the rows of this destination with ts < before (series whose
 * every point is older than max_age: their cursor no longer matters). */
int mw_rw_cursor_prune(struct mw_rw_cursor *c, int64_t before, struct mw_err *err);

/* Rows of this destination (tests, status). */
int64_t mw_rw_cursor_count(struct mw_rw_cursor *c);

#endif
