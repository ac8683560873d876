/* readers.c - see readers.h. */
#include "readers.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "base/clock.h"
#include "base/heap_tune.h"
#include "base/xalloc.h"
#include "storage/query.h"

/* A reader that gave back this much cache: trim the heap too. */
#define MW_READER_RELEASE_TRIM (256 * 1024)

struct mw_reader_pool {
	pthread_mutex_t lock;
	char *path;
	struct mw_reader **idle;
	size_t nidle, keep;
	_Atomic int64_t timeout_ms;
};

struct mw_reader_pool *mw_pool_new(const char *db_path, size_t keep)
{
	struct mw_reader_pool *p = mw_xcalloc(1, sizeof(*p));

	pthread_mutex_init(&p->lock, NULL);
	p->path = mw_xstrdup(db_path ? db_path : "");
	p->keep = keep ? keep : 1;
	p->idle = mw_xcalloc(p->keep, sizeof(*p->idle));
	atomic_store(&p->timeout_ms, MW_POOL_TIMEOUT_DEFAULT_MS);
	return p;
}

void mw_pool_set_timeout(struct mw_reader_pool *p, int64_t timeout_ms)
{
	atomic_store(&p->timeout_ms, timeout_ms > 0 ? timeout_ms : 0);
}

int64_t mw_pool_timeout(const struct mw_reader_pool *p)
{
	return atomic_load(&((struct mw_reader_pool *)p)->timeout_ms);
}

static struct mw_reader *armed(struct mw_reader_pool *p, struct mw_reader *r)
{
	int64_t t = mw_pool_timeout(p);

	mw_reader_set_deadline(r, t ? mw_clock_mono_ns() + t * 1000000 : 0);
	return r;
}

void mw_pool_free(struct mw_reader_pool *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nidle; i++)
		mw_reader_free(p->idle[i]);
	free(p->idle);
	free(p->path);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

struct mw_reader *mw_pool_get(struct mw_reader_pool *p, struct mw_err *err)
{
	struct mw_reader *r = NULL;

	pthread_mutex_lock(&p->lock);
	if (p->nidle)
		r = p->idle[--p->nidle];
	pthread_mutex_unlock(&p->lock);
	if (r)
		return armed(p, r);
	/* Opened outside the lock: opening can take a while. */
	if (mw_reader_open(&r, p->path, err))
		return NULL;
	return armed(p, r);
}

void mw_pool_put(struct mw_reader_pool *p, struct mw_reader *r)
{
	if (!r)
		return;
	mw_reader_set_deadline(r, 0);
	/* Its page cache is stale by its next use: given back, and to the
	 * system when it was large (freed pages amid the heap stay resident). */
	if (mw_reader_idle(r) >= MW_READER_RELEASE_TRIM)
		mw_heap_release();
	pthread_mutex_lock(&p->lock);
	if (p->nidle < p->keep) {
		p->idle[p->nidle++] = r;
		r = NULL;
	}
	pthread_mutex_unlock(&p->lock);
	mw_reader_free(r);
}

const char *mw_pool_path(const struct mw_reader_pool *p)
{
	return p->path;
}
