/* heap_tune_linux.c - heap_tune.h with glibc's mallopt and malloc_trim
 * (other C libraries: nothing to do). */
#include "base/heap_tune.h"

#include <stdlib.h>	/* defines __GLIBC__ (features.h), tested below */
#ifdef __GLIBC__
#include <malloc.h>
#endif

/*
 * One arena: the sampler allocates a batch, the writer frees it, the web
 * threads build an answer and free it; with an arena per thread each one
 * kept the free space of its own peaks (bench/rss_live.sh: 17 MB less
 * after twenty /metrics scrapes with one arena and fixed thresholds).
 * The threads mostly wait, so they hardly contend for its lock.
 */
#define MW_HEAP_ARENAS 1
/* Fixed thresholds (setting them turns glibc's sliding ones off): a block
 * of 256 KB or more (a /metrics answer, a batch of a thousand processes)
 * is its own mapping, unmapped when freed, instead of a hole in the heap
 * that the sliding threshold would otherwise keep on growing into; the
 * heap's free top beyond 1 MB goes back at once. */
#define MW_HEAP_MMAP_FROM (256 * 1024)
#define MW_HEAP_TRIM_ABOVE (1024 * 1024)

void mw_heap_tune_startup(void)
{
#ifdef __GLIBC__
	mallopt(M_ARENA_MAX, MW_HEAP_ARENAS);
	mallopt(M_MMAP_THRESHOLD, MW_HEAP_MMAP_FROM);
	mallopt(M_TRIM_THRESHOLD, MW_HEAP_TRIM_ABOVE);
#endif
}

void mw_heap_release(void)
{
#ifdef __GLIBC__
	malloc_trim(0);
#endif
}
