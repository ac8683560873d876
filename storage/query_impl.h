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
/* Count a finished query (started at t0, mw_clock_mono_ns). */
void mw_reader_count(int64_t t0);

#endif
