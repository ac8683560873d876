/*
 * readers.h - a small pool of read-only storage connections
 * (storage/query.h readers) for the web threads.
 *
 * mw_pool_get() pops an idle reader or opens a new one; NULL with a
 * message when the database cannot be opened (the caller answers 503).
 * mw_pool_put() gives it back; beyond `keep` idle readers it is closed.
 * A reader is used by one request (one thread) at a time.  Thread-safe.
 *
 * Deadlines: mw_pool_get() arms the reader's deadline
 * (mw_reader_set_deadline(), storage/query.h) to now + the pool's query
 * timeout ([web] query_timeout, MW_POOL_TIMEOUT_DEFAULT_MS until
 * mw_pool_set_timeout() is called); mw_pool_put() clears it.  A request
 * that needs longer (a streamed export) re-arms it itself.
 */
#ifndef MW_WEB_READERS_H
#define MW_WEB_READERS_H

#include <stddef.h>
#include "base/mwerr.h"

struct mw_reader_pool;
struct mw_reader;

#include <stdint.h>

#define MW_POOL_TIMEOUT_DEFAULT_MS 5000

struct mw_reader_pool *mw_pool_new(const char *db_path, size_t keep);
/* The per-request query timeout in ms (0: none). */
void mw_pool_set_timeout(struct mw_reader_pool *p, int64_t timeout_ms);
int64_t mw_pool_timeout(const struct mw_reader_pool *p);
void mw_pool_free(struct mw_reader_pool *p);
struct mw_reader *mw_pool_get(struct mw_reader_pool *p, struct mw_err *err);
void mw_pool_put(struct mw_reader_pool *p, struct mw_reader *r);
/* The database path (for its size in /metrics). */
const char *mw_pool_path(const struct mw_reader_pool *p);

#endif
