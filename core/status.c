/* status.c - see status.h. */
#include "status.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/xalloc.h"

struct mw_status_table {
	pthread_mutex_t lock;
	size_t n;
	int64_t started_ms;
	struct mw_collector_status *entries;
	struct mw_storage_health storage;
	struct mw_watch_status *watch;	/* allocated on the first set */
	struct mw_rw_status *rw;	/* remote-write destinations */
	size_t nrw;
	struct mw_leak_status leaks;
	mw_flush_fn flush;	/* the writer's flush on request, or NULL */
	void *flush_arg;
};

static void leak_status_copy(struct mw_leak_status *dst, const struct mw_leak_status *src)
{
	*dst = *src;
	dst->v = src->n ? mw_xmalloc(src->n * sizeof(*dst->v)) : NULL;
	if (src->n)
		memcpy(dst->v, src->v, src->n * sizeof(*dst->v));
}

void mw_leak_status_release(struct mw_leak_status *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

void mw_status_set_leaks(struct mw_status_table *t, const struct mw_leak_status *in)
{
	struct mw_leak_status copy, old;

	if (!t)
		return;
	leak_status_copy(&copy, in);
	pthread_mutex_lock(&t->lock);
	old = t->leaks;
	t->leaks = copy;
	t->leaks.known = true;
	pthread_mutex_unlock(&t->lock);
	mw_leak_status_release(&old);
}

void mw_status_get_leaks(struct mw_status_table *t, struct mw_leak_status *out)
{
	memset(out, 0, sizeof(*out));
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	leak_status_copy(out, &t->leaks);
	pthread_mutex_unlock(&t->lock);
}


void mw_status_set_flush(struct mw_status_table *t, mw_flush_fn fn, void *arg)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	t->flush = fn;
	t->flush_arg = arg;
	pthread_mutex_unlock(&t->lock);
}

int mw_status_flush(struct mw_status_table *t, int64_t timeout_ms)
{
	mw_flush_fn fn;
	void *arg;

	if (!t)
		return 0;
	pthread_mutex_lock(&t->lock);
	fn = t->flush;
	arg = t->flush_arg;
	pthread_mutex_unlock(&t->lock);
	/* outside the lock: the flush may take a while */
	return fn ? fn(arg, timeout_ms) : 0;
}

void mw_status_rw_init(struct mw_status_table *t, size_t n)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	free(t->rw);
	t->rw = n ? mw_xcalloc(n, sizeof(*t->rw)) : NULL;
	t->nrw = n;
	pthread_mutex_unlock(&t->lock);
}

size_t mw_status_rw_count(struct mw_status_table *t)
{
	size_t n;

	if (!t)
		return 0;
	pthread_mutex_lock(&t->lock);
	n = t->nrw;
	pthread_mutex_unlock(&t->lock);
	return n;
}

void mw_status_rw_set(struct mw_status_table *t, size_t i, const struct mw_rw_status *in)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	if (i < t->nrw)
		t->rw[i] = *in;
	pthread_mutex_unlock(&t->lock);
}

int64_t mw_rw_status_lag_ms(const struct mw_rw_status *s, int64_t now_ms)
{
	if (s->caught_up || !s->oldest_unsent_ms)
		return s->lag_ms;
	return now_ms > s->oldest_unsent_ms ? now_ms - s->oldest_unsent_ms : 0;
}

void mw_status_rw_get(struct mw_status_table *t, size_t i, struct mw_rw_status *out)
{
	memset(out, 0, sizeof(*out));
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	if (i < t->nrw)
		*out = t->rw[i];
	pthread_mutex_unlock(&t->lock);
}

void mw_status_set_watch(struct mw_status_table *t, const struct mw_watch_status *in)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	if (!t->watch)
		t->watch = mw_xcalloc(1, sizeof(*t->watch));
	*t->watch = *in;
	if (t->watch->nentries > MW_WATCH_STATUS_ENTRIES)
		t->watch->nentries = MW_WATCH_STATUS_ENTRIES;
	pthread_mutex_unlock(&t->lock);
}

void mw_status_get_watch(struct mw_status_table *t, struct mw_watch_status *out)
{
	memset(out, 0, sizeof(*out));
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	if (t->watch)
		*out = *t->watch;
	pthread_mutex_unlock(&t->lock);
}

void mw_status_set_storage(struct mw_status_table *t, const struct mw_storage_health *in)
{
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	t->storage = *in;
	t->storage.known = true;
	pthread_mutex_unlock(&t->lock);
}

void mw_status_get_storage(struct mw_status_table *t, struct mw_storage_health *out)
{
	memset(out, 0, sizeof(*out));
	if (!t)
		return;
	pthread_mutex_lock(&t->lock);
	*out = t->storage;
	pthread_mutex_unlock(&t->lock);
}

struct mw_status_table *mw_status_new(size_t ncollectors)
{
	struct mw_status_table *t = mw_xcalloc(1, sizeof(*t));

	pthread_mutex_init(&t->lock, NULL);
	t->n = ncollectors;
	t->started_ms = mw_clock_wall_ms();
	t->entries = mw_xcalloc(ncollectors ? ncollectors : 1, sizeof(*t->entries));
	return t;
}

void mw_status_free(struct mw_status_table *t)
{
	if (!t)
		return;
	pthread_mutex_destroy(&t->lock);
	free(t->watch);
	free(t->rw);
	mw_leak_status_release(&t->leaks);
	free(t->entries);
	free(t);
}

size_t mw_status_count(const struct mw_status_table *t)
{
	return t->n;
}

void mw_status_get(struct mw_status_table *t, size_t i, struct mw_collector_status *out)
{
	pthread_mutex_lock(&t->lock);
	if (i < t->n)
		*out = t->entries[i];
	else
		memset(out, 0, sizeof(*out));
	pthread_mutex_unlock(&t->lock);
}

void mw_status_set(struct mw_status_table *t, size_t i, const struct mw_collector_status *in)
{
	pthread_mutex_lock(&t->lock);
	if (i < t->n)
		t->entries[i] = *in;
	pthread_mutex_unlock(&t->lock);
}

int64_t mw_status_started_ms(const struct mw_status_table *t)
{
	return t->started_ms;
}
