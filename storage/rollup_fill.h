/*
 * rollup_fill.h - a coarser rollup tier filled from the stored 1-minute
 * rows (the schema 7 -> 8 migration fills rollup_10m_data; schema.c).
 */
#ifndef MW_ROLLUP_FILL_H
#define MW_ROLLUP_FILL_H

#include <stdint.h>
#include <sqlite3.h>
#include "base/mwerr.h"

/* Write into table (a rollup _data table, empty) one row per series and
 * bucket of `minutes` minutes holding stored minutes: their min, max, sum
 * and count combined, `last` the newest minute's, stored as the writer
 * stores rows (rollup.h).  Inside the caller's transaction.  -1 with a
 * message on failure. */
int mw_rollup_fill_from_minutes(sqlite3 *db, const char *table, int64_t minutes,
				struct mw_err *err);

#endif
