/* xalloc.c - see xalloc.h. */
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void out_of_memory(size_t n)
{
	fprintf(stderr, "memwatchd: fatal: out of memory allocating %zu bytes\n", n);
	abort();
}

void *mw_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		out_of_memory(n);
	return p;
}

void *mw_xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		out_of_memory(count * size);
	return p;
}

void *mw_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		out_of_memory(n);
	return q;
}

char *mw_xstrndup(const char *s, size_t n)
{
	char *p = mw_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *mw_xstrdup(const char *s)
{
	return mw_xstrndup(s, strlen(s));
}

void mw_grow(void **array, size_t *cap, size_t need, size_t elem_size)
{
	size_t n;

	if (need <= *cap)
		return;
	n = *cap ? *cap : 8;
	while (n < need)
		n *= 2;
	*array = mw_xrealloc(*array, n * elem_size);
	*cap = n;
}

void mw_release_if_over(void **array, size_t *cap, size_t elem_size, size_t keep_bytes)
{
	if (*cap <= keep_bytes / elem_size)
		return;
	free(*array);
	*array = NULL;
	*cap = 0;
}
