/*
 * bench_store.h - a benchmark's store (bench_storage, bench_process,
 * bench_regions): the test options (defaults, no self metrics) on a
 * scratch file, and a flush.  A benchmark has no test to fail, so both
 * exit(1) with the reason on stderr.
 */
#ifndef MW_TESTS_SUPPORT_BENCH_STORE_H
#define MW_TESTS_SUPPORT_BENCH_STORE_H

struct mw_store;
struct mw_store_options;

/* The test options on path, and MW_BENCH_CACHE_KB (when set) as the
 * writer's page cache, to weigh its RSS against its CPU. */
void mw_bench_store_options(struct mw_store_options *o, const char *path);

/* A store with mw_bench_store_options on path as it is. */
struct mw_store *mw_bench_store_open(const char *path);

/* Commit what s holds. */
void mw_bench_store_flush(struct mw_store *s);

#endif
