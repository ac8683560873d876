/* bench_store.c - see bench_store.h. */
#include "bench_store.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/mwerr.h"
#include "storage/store.h"
#include "tests/support/test_db.h"

void mw_bench_store_options(struct mw_store_options *o, const char *path)
{
	const char *kib = getenv("MW_BENCH_CACHE_KB");

	mw_test_store_options(o, path);
	if (kib && *kib)
		o->cache_bytes = strtoull(kib, NULL, 10) * 1024;
}

struct mw_store *mw_bench_store_open(const char *path)
{
	struct mw_store_options o;
	struct mw_store *s;

	mw_bench_store_options(&o, path);
	s = mw_test_store_open_with(&o);	/* says why on stderr */
	if (!s)
		exit(1);
	return s;
}

void mw_bench_store_flush(struct mw_store *s)
{
	struct mw_err err;

	if (mw_store_flush(s, &err)) {
		fprintf(stderr, "flush: %s\n", err.msg);
		exit(1);
	}
}
