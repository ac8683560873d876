/*
 * bg_check.h - the start-up's full read of a large database, done beside
 * the running daemon instead of before it.
 *
 * PRAGMA quick_check reads every page: 2-6 s per GB on this project's VM,
 * so a week of 1,000 processes (several GB) held every start-up after a
 * crash, and the weekly one, for many seconds before the first sample.  A
 * file at least [storage] full_check_background big (schema.c decides) is
 * opened at once and read whole on a thread of its own through a
 * read-only connection (WAL: it reads the file as it was when it began,
 * whatever the writer adds meanwhile).  The writer polls it
 * (store_check.c, mw_store_poll_check): a pass dates the check in
 * store_state as a start-up check would; a failure is logged, put in
 * /healthz (degraded) and written next to the database as
 * PATH.check-failed (mw_schema_check_marker), so the next start-up checks
 * the file before anything else and moves it aside as before; a check
 * that could not run (no connection, an I/O error) is logged and left for
 * the next start-up.
 *
 * Threads: started and freed by the writer's thread, which alone polls;
 * the check's own thread only reads.
 */
#ifndef MW_STORAGE_BG_CHECK_H
#define MW_STORAGE_BG_CHECK_H

#include <stdint.h>
#include "base/mwerr.h"

struct mw_bg_check;

/* Start reading path whole.  NULL when the thread cannot start (the
 * caller checks before opening, as without this). */
struct mw_bg_check *mw_bg_check_start(const char *path);

enum mw_bg_check_state {
	MW_BG_CHECK_RUNNING,
	MW_BG_CHECK_PASSED,
	MW_BG_CHECK_DAMAGED,	/* the file failed the check: err says how */
	MW_BG_CHECK_UNCHECKED,	/* it could not be read through: err says why */
};

/* Where it is; when it has ended, *ms is how long it read and err (for
 * DAMAGED and UNCHECKED) the message. */
enum mw_bg_check_state mw_bg_check_poll(struct mw_bg_check *c, int64_t *ms, struct mw_err *err);

/* Wait until it has ended (tests, benchmarks). */
void mw_bg_check_wait(struct mw_bg_check *c);

/* Stop a check still reading (sqlite3_interrupt), wait for its thread and
 * free it.  NULL is allowed. */
void mw_bg_check_free(struct mw_bg_check *c);

#endif
