/*
 * query_impl.h - what query.c lends the other readers of storage/
 * (regions_query.c).  Not for use outside storage/.
 */
#ifndef MW_QUERY_IMPL_H
#define MW_QUERY_IMPL_H

#include <sqlite3.h>
#include "query.h"

sqlite3 *mw_reader_sqlite(struct mw_reader *r);
/* Open / close the call's read transaction (and reset the error kind). */
int mw_reader_begin(struct mw_reader *r, struct mw_err *err);
void mw_reader_end(struct mw_reader *r);
/* -1 with the message of a failed statement (deadline or storage). */
int mw_reader_fail(struct mw_reader *r, struct mw_err *err);
void mw_reader_set_kind(struct mw_reader *r, enum mw_query_error kind);
/* A statement kept by the reader in slot (< MW_READER_EXTRA; each caller
 * its own slots, always with the same sql), reset and unbound; NULL with
 * a message.  Freed with the reader: never finalize it.  Slots 0-4:
 * regions_query.c; 5-6: export.c. */
#define MW_READER_EXTRA 8
sqlite3_stmt *mw_reader_stmt(struct mw_reader *r, int slot, const char *sql, struct mw_err *err);
/* Count a finished query (started at t0, mw_clock_mono_ns). */
void mw_reader_count(int64_t t0);

#endif
