/*
 * readers.h - a small pool of read-only storage connections
 * (storage/query.h readers) for the web threads.
 *
 * mw_pool_get() pops an idle reader or opens a new one; NULL with a
 * message when the database cannot be opened (the caller answers 503).
 * mw_pool_put() gives it back; beyond `keep` idle readers it is closed.
 * A reader is used by one request (one thread) at a time.  Thread-safe.
 */
#ifndef MW_WEB_READERS_H
#define MW_WEB_READERS_H

#include <stddef.h>
#include "daemon/mwerr.h"

struct mw_reader_pool;
struct mw_reader;

struct mw_reader_pool *mw_pool_new(const char *db_path, size_t keep);
void mw_pool_free(struct mw_reader_pool *p);
struct mw_reader *mw_pool_get(struct mw_reader_pool *p, struct mw_err *err);
void mw_pool_put(struct mw_reader_pool *p, struct mw_reader *r);
/* The database path (for its size in /metrics). */
const char *mw_pool_path(const struct mw_reader_pool *p);

#endif
