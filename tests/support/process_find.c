/* process_find.c - see process_find.h. */
#include "process_find.h"

const struct mw_process_info *mw_test_process_find(const struct mw_process_table *t,
						   uint32_t pid)
{
	const struct mw_process_info *p = t->procs, *end = t->procs + t->nprocs;

	while (p < end && p->pid != pid)
		p++;
	return p < end ? p : NULL;
}
