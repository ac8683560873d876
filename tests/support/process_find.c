/* process_find.c - see process_find.h. */
#include "process_find.h"

const struct mw_process_info *mw_test_process_find(const struct mw_process_table *t,
						   uint32_t pid)
{
	size_t i;

	for (i = 0; i < t->nprocs; i++)
		if (t->procs[i].pid == pid)
			return &t->procs[i];
	return NULL;
}
