/* parallel.c - see parallel.h. */
#include "base/parallel.h"

#include <pthread.h>
#include <stdlib.h>

#include "base/xalloc.h"
#include "base/thread_name.h"

struct worker {
	void (*fn)(void *arg, size_t worker);
	void *arg;
	size_t k;
	pthread_t thread;
	int started;
};

static void *worker_main(void *p)
{
	struct worker *w = p;

	mw_thread_set_name("mw-parallel");
	w->fn(w->arg, w->k);
	return NULL;
}

size_t mw_parallel_run(size_t n, void (*fn)(void *arg, size_t worker), void *arg)
{
	struct worker *w;
	size_t k, ran = 1;

	if (n <= 1) {
		fn(arg, 0);
		return 1;
	}
	w = mw_xcalloc(n, sizeof(*w));
	for (k = 1; k < n; k++) {
		w[k].fn = fn;
		w[k].arg = arg;
		w[k].k = k;
		w[k].started = pthread_create(&w[k].thread, NULL, worker_main, &w[k]) == 0;
		ran += (size_t)w[k].started;
	}
	fn(arg, 0);
	for (k = 1; k < n; k++)
		if (w[k].started)
			pthread_join(w[k].thread, NULL);
	free(w);
	return ran;
}

void mw_share_init(struct mw_share *sh, size_t n)
{
	sh->n = n;
	atomic_init(&sh->next, 0);
	atomic_init(&sh->failed, false);
	pthread_mutex_init(&sh->lock, NULL);
	sh->failed_item = (size_t)-1;
	sh->err.msg[0] = '\0';
	sh->kind = 0;
}

bool mw_share_next(struct mw_share *sh, size_t *item)
{
	if (atomic_load(&sh->failed))
		return false;
	*item = atomic_fetch_add(&sh->next, 1);
	return *item < sh->n;
}

void mw_share_fail(struct mw_share *sh, size_t item, const struct mw_err *err, int kind)
{
	pthread_mutex_lock(&sh->lock);
	if (item < sh->failed_item) {
		sh->failed_item = item;
		sh->err = *err;
		sh->kind = kind;
	}
	pthread_mutex_unlock(&sh->lock);
	atomic_store(&sh->failed, true);
}

bool mw_share_end(struct mw_share *sh, struct mw_err *err, int *kind)
{
	bool failed = atomic_load(&sh->failed);

	pthread_mutex_destroy(&sh->lock);
	if (failed && err)
		*err = sh->err;
	if (failed && kind)
		*kind = sh->kind;
	return failed;
}
