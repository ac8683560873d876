/*
 * readers.h - a small pool of read-only storage connections for the web
 * threads (each SQLite connection is used by one thread at a time).
 *
 * mw_reader_get() pops an idle connection or opens a new one; NULL with a
 * message when the database cannot be opened (the caller answers 503).
 * mw_reader_put() returns it; beyond `keep` idle ones it is closed.
 * Thread-safe (one mutex).
 */
#ifndef MW_WEB_READERS_H
#define MW_WEB_READERS_H

#include <stddef.h>
#include "daemon/mwerr.h"

struct mw_reader_pool;
struct mw_query;

struct mw_reader_pool *mw_reader_pool_new(const char *db_path, size_t keep);
void mw_reader_pool_free(struct mw_reader_pool *p);
struct mw_query *mw_reader_get(struct mw_reader_pool *p, struct mw_err *err);
void mw_reader_put(struct mw_reader_pool *p, struct mw_query *q);

#endif
