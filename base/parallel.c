/* parallel.c - see parallel.h. */
#include "base/parallel.h"

#include <pthread.h>
#include <stdlib.h>

#include "base/xalloc.h"

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
