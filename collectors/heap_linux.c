/* heap_linux.c - no heap walk on Linux yet. */
#include "heap.h"

int mw_heap_supported(struct mw_err *why)
{
	return mw_error(why, "heap: Linux support comes with the procfs collectors");
}

int mw_heap_read(uint32_t pid, bool self, struct mw_heap_list *out, struct mw_err *err)
{
	(void)pid;
	(void)self;
	out->n = 0;
	return mw_heap_supported(err);
}
