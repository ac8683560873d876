/*
 * clean_stop.h - whether a start-up reads the whole database file.
 *
 * PRAGMA quick_check reads every page of the file: about 1.3 s per GB on
 * a warm cache, most of a start-up on a weeks-long soak database.  What it
 * finds is damage done while the file was not in this store's hands: a
 * crash at a bad moment, a failing disk, another program writing to it.
 * So the store records, in the one row of table store_state, whether its
 * last run closed the file cleanly and how many pages the file had then;
 * a start-up finding a clean stop, a file of exactly that size and a full check
 * newer than full_check_every skips the full read.  Any other start-up
 * (after a crash, a kill, a file that grew or shrank behind its back, a
 * database without the row, a clock that went back) checks as before.
 *
 * Used by schema.c (mw_schema_open decides) and store.c (marks the clean
 * stop after its last write).  Threads: the writer's connection.
 */
#ifndef MW_CLEAN_STOP_H
#define MW_CLEAN_STOP_H

#include <stdbool.h>
#include <stdint.h>
#include <sqlite3.h>
#include "base/mwerr.h"

/* Default longest time between two full checks of a cleanly stopped file. */
#define MW_FULL_CHECK_EVERY_MS (7LL * 24 * 3600 * 1000)

struct mw_clean_stop {
	bool found;		/* the store_state row exists */
	bool clean;		/* the last run closed the file itself */
	int64_t pages;		/* PRAGMA page_count at that close */
	int64_t checked_ms;	/* wall time of the last full check */
};

/* Read the record; found = false where there is none (a new file, or one
 * written by an older memwatch).  -1: the file could not be read at all
 * (not a database): the caller checks it. */
int mw_clean_stop_read(sqlite3 *db, struct mw_clean_stop *out);

/* The last run closed the file itself and nothing changed its size since
 * (file_bytes, page_size as below): everything that run held is in the
 * file as it left it.  Besides the check, series.c then takes each live
 * series' rollup buckets in progress from their rows (that run wrote them
 * whole as it stopped) instead of rebuilding them.  Pure. */
bool mw_clean_stop_intact(const struct mw_clean_stop *st, int64_t file_bytes,
			  int64_t page_size);

/* Why a full check must run, or NULL when it may be skipped.  file_bytes:
 * the file's size now, before anything is written (a clean close copies
 * the WAL back, so the file is then exactly pages x page_size; anything
 * else means someone else grew, cut or wrote it).  every_ms 0: at every
 * start-up.  Pure. */
const char *mw_full_check_reason(const struct mw_clean_stop *st, int64_t file_bytes,
				 int64_t page_size, int64_t now_ms, int64_t every_ms);

/* At start-up, after the checks and migrations: the run is under way (not
 * clean), and checked_ms becomes now_ms if a full check ran. */
int mw_clean_stop_begin(sqlite3 *db, bool checked, int64_t now_ms, struct mw_err *err);

/* A full check read in the background (bg_check.h) passed: checked_ms
 * becomes now_ms, as if the start-up had run it. */
int mw_clean_stop_checked(sqlite3 *db, int64_t now_ms, struct mw_err *err);

/* After the last write of a run: clean, with the page count as it is. */
int mw_clean_stop_mark(sqlite3 *db, struct mw_err *err);

#endif
