/*
 * dblock.h - one writer per database file.  Two daemons writing one file
 * corrupted nothing but failed every flush of the second for ever
 * ("UNIQUE constraint failed"), while it reported healthy.  The store
 * (the only writer) holds an exclusive OS lock on "DB.lock" for its whole
 * life; a second writer refuses to open with a message naming the holder.
 * The lock goes with the process (crash, SIGKILL), so no stale lock can
 * keep a restarted daemon out.  Readers take no lock.
 *
 * dblock_linux.c: flock(2) (the file stays, holding the pid of the last
 * holder); dblock_win32.c: the file opened without sharing, deleted on
 * close.
 */
#ifndef MW_DBLOCK_H
#define MW_DBLOCK_H

#include "base/mwerr.h"

struct mw_dblock;

/* Take the lock of db_path; -1 with "database 'X' is in use by another
 * memwatchd (pid N)" when held, or the OS error. */
int mw_dblock_acquire(struct mw_dblock **out, const char *db_path, struct mw_err *err);
/* Release it; NULL is fine. */
void mw_dblock_release(struct mw_dblock *l);

#endif
