/*
 * bench_store.h - a benchmark's store (bench_storage, bench_process,
 * bench_regions): the test options (defaults, no self metrics) on a
 * scratch file, and a flush.  A benchmark has no test to fail, so both
 * exit(1) with the reason on stderr.
 */
#ifndef MW_TESTS_SUPPORT_BENCH_STORE_H
#define MW_TESTS_SUPPORT_BENCH_STORE_H

struct mw_store;

/* A store with the test options on path as it is. */
struct mw_store *mw_bench_store_open(const char *path);

/* Commit what s holds. */
void mw_bench_store_flush(struct mw_store *s);

#endif
