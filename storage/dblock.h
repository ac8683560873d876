/*
 * dblock.h - one writer per database file, and the file it has open still
 * the one at its path.  Two daemons writing one file corrupted nothing but
 * failed every flush of the second for ever ("UNIQUE constraint failed"),
 * while it reported healthy.  The store (the only writer) holds an
 * exclusive OS lock for its whole life; a second writer refuses to open
 * with a message naming the holder.  The locks go with the process (crash,
 * SIGKILL), so no stale lock can keep a restarted daemon out.  Readers
 * take no lock.
 *
 * A database deleted or replaced under the daemon went unnoticed: every
 * later point was written to a file nobody could open again, /healthz said
 * ok, and with the lock file deleted too a second daemon started on the
 * same path.  So the lock is not a file someone can delete, and the store
 * compares the file it has open with the one at the path before each
 * flush (mw_dblock_check).
 *
 * dblock_linux.c: flock(2) on the database file, and an abstract Unix
 * socket named after its path; dblock_win32.c: the file DB.lock opened
 * without sharing, deleted on close (an open file cannot be deleted on
 * Windows: neither it nor the database, which SQLite opens without
 * FILE_SHARE_DELETE), and the database's file ID.
 */
#ifndef MW_DBLOCK_H
#define MW_DBLOCK_H

#include "base/mwerr.h"

struct mw_dblock;

/* Take the lock of db_path; -1 with "database 'X' is in use by another
 * memwatchd (pid N)" when held, or the OS error. */
int mw_dblock_acquire(struct mw_dblock **out, const char *db_path, struct mw_err *err);
/* After the database was opened (and perhaps a corrupt file moved aside
 * and a new one created): the file now at db_path is the one watched and,
 * where the lock is on the file, locked. */
int mw_dblock_follow(struct mw_dblock *l, const char *db_path, struct mw_err *err);
/* 0 while db_path names the file followed; -1 with "the database file 'X'
 * was deleted ..." or "... was replaced by another file ...". */
int mw_dblock_check(struct mw_dblock *l, const char *db_path, struct mw_err *err);
/* Release it (after the store's connection closed); NULL is fine. */
void mw_dblock_release(struct mw_dblock *l);

/* Why the lock file could not be taken (Windows tells these apart; each
 * has its own message, mw_dblock_lock_error). */
enum mw_dblock_failure {
	MW_DBLOCK_HELD,			/* another process has it open */
	MW_DBLOCK_DELETE_PENDING,	/* being deleted: a memwatchd stopping */
	MW_DBLOCK_READ_ONLY,		/* the lock file is marked read-only */
	MW_DBLOCK_FOLDER,		/* a folder has the lock file's name */
	MW_DBLOCK_DENIED,		/* this account may not create or write it there */
	MW_DBLOCK_OTHER,		/* anything else: os_text says what */
};

/* The message for a lock that could not be taken, naming the database,
 * the lock file, what is wrong and what to do; os_text: the system's
 * words for the error (may be NULL).  Returns -1. */
int mw_dblock_lock_error(struct mw_err *err, enum mw_dblock_failure why, const char *db_path,
			 const char *lock_path, const char *os_text);

/* What mw_dblock_check says, the same words on every OS (dblock.c). */
int mw_dblock_deleted_error(struct mw_err *err, const char *db_path);
int mw_dblock_replaced_error(struct mw_err *err, const char *db_path);

#endif
