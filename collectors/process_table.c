/*
 * process_table.c - the process table (process.h): the list both
 * platforms' readers fill and the process collector samples; and the
 * arrays by pid the collector keeps between ticks (its PSS scheduler and
 * key cache).
 */
#include "process.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void mw_process_table_release(struct mw_process_table *t)
{
	free(t->procs);
	memset(t, 0, sizeof(*t));
}

struct mw_process_info *mw_process_table_add(struct mw_process_table *t)
{
	struct mw_process_info *p;

	MW_GROW(t->procs, t->cap, t->nprocs + 1);
	p = &t->procs[t->nprocs++];
	memset(p, 0, sizeof(*p));
	return p;
}

/* The pid at the head of entry i. */
static uint32_t pid_at(const void *v, size_t stride, size_t i)
{
	uint32_t pid;

	memcpy(&pid, (const unsigned char *)v + i * stride, sizeof(pid));
	return pid;
}

size_t mw_pid_index(const void *v, size_t n, size_t stride, uint32_t pid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t at = pid_at(v, stride, mid);

		if (at < pid)
			lo = mid + 1;
		else if (at > pid)
			hi = mid;
		else
			return mid;
	}
	return n;
}

static int pid_cmp(const void *x, const void *y)
{
	uint32_t a = pid_at(x, 0, 0), b = pid_at(y, 0, 0);

	return a < b ? -1 : a > b;
}

void mw_pid_sort(void *v, size_t n, size_t stride)
{
	size_t i;

	/* a process table comes in pid order almost always: check first */
	for (i = 1; i < n && pid_at(v, stride, i - 1) < pid_at(v, stride, i); i++)
		;
	if (i < n)
		qsort(v, n, stride, pid_cmp);
}
