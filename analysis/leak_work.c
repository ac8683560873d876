/*
 * leak_work.c - the scratch arrays one judgement works in (struct
 * mw_leak_work, leak_internal.h), one allocation for all of them.
 *
 * Owned by analysis/; used by the verdict (leak.c), the onset
 * (leak_onset.c) and the kind (leak_kind.c), below all three so none of
 * them calls another for its memory.
 */
#include <stdlib.h>
#include <string.h>

#include "leak_internal.h"

/* One block for every array: a judgement allocates once, whatever its
 * size (x, y: n; rx, ry: cap; pairs; a, b, c: 2 cap).  The pairs are
 * those of the most points a fit can have, min(n, MW_LEAK_MAX_POINTS)
 * (reducing never adds points): a week of hourly floors needs 14,000,
 * not 45,000, which keeps the block below the size glibc maps and unmaps
 * on every call (base/heap_tune_linux.c), a tenth of a judgement's time. */
int mw_leak_work_alloc(struct mw_leak_work *w, size_t n)
{
	size_t cap = n > MW_LEAK_MAX_POINTS ? n : MW_LEAK_MAX_POINTS;
	size_t most = n < MW_LEAK_MAX_POINTS ? n : MW_LEAK_MAX_POINTS;
	size_t npairs = most > 1 ? most * (most - 1) / 2 : 1;
	double *p;

	memset(w, 0, sizeof(*w));
	p = malloc((2 * n + 8 * cap + npairs) * sizeof(double));
	if (!p)
		return -1;
	w->x = p;
	w->y = w->x + n;
	w->rx = w->y + n;
	w->ry = w->rx + cap;
	w->a = w->ry + cap;
	w->b = w->a + 2 * cap;
	w->c = w->b + 2 * cap;
	w->pairs = w->c + 2 * cap;
	return 0;
}

void mw_leak_work_free(struct mw_leak_work *w)
{
	free(w->x);
	w->x = NULL;
}
