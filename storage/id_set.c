/* id_set.c - see id_set.h. */
#include "id_set.h"

#include <stdlib.h>

#include "base/xalloc.h"

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

void mw_id_set_add(struct mw_id_set *a, int64_t id)
{
	if (!id)
		return;
	MW_GROW(a->v, a->cap, a->n + 1);
	a->v[a->n++] = id;
}

void mw_id_set_sort(struct mw_id_set *a)
{
	if (a->n > 1)
		qsort(a->v, a->n, sizeof(*a->v), cmp_id);
}

bool mw_id_set_has(const struct mw_id_set *a, int64_t id)
{
	return a->n && bsearch(&id, a->v, a->n, sizeof(*a->v), cmp_id);
}

void mw_id_set_release(struct mw_id_set *a)
{
	free(a->v);
	a->v = NULL;
	a->n = a->cap = 0;
}
