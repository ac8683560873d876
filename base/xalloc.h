/*
 * xalloc.h - allocation wrappers that abort on out-of-memory.
 *
 * A monitoring daemon that runs out of memory cannot report anything
 * useful; dying loudly beats a NULL check at every call site.  Every
 * module allocates through these.
 */
#ifndef MW_BASE_XALLOC_H
#define MW_BASE_XALLOC_H

#include <stddef.h>

void *mw_xmalloc(size_t n);
void *mw_xcalloc(size_t count, size_t size);
void *mw_xrealloc(void *p, size_t n);
char *mw_xstrdup(const char *s);
char *mw_xstrndup(const char *s, size_t n);

/* Grow *array (of elements of elem_size) so it holds at least `need`. */
void mw_grow(void **array, size_t *cap, size_t need, size_t elem_size);
#define MW_GROW(arr, cap, need) mw_grow((void **)&(arr), &(cap), (need), sizeof(*(arr)))

/* Free an emptied *array whose capacity is over keep_bytes (*cap becomes
 * 0; MW_GROW allocates it again when needed).  For a queue that is large
 * only now and then: kept, its pages stay resident between its peaks. */
void mw_release_if_over(void **array, size_t *cap, size_t elem_size, size_t keep_bytes);
#define MW_RELEASE_IF_OVER(arr, cap, keep) \
	mw_release_if_over((void **)&(arr), &(cap), sizeof(*(arr)), (keep))

#endif
