/* heap_linux.c - no heap walk on Linux yet. */
#include "heap.h"

#include <stdlib.h>

#include "daemon/xalloc.h"

struct mw_heap_reader {
	int unused;
};

int mw_heap_supported(struct mw_err *why)
{
	return mw_error(why, "Linux support comes with the procfs collectors");
}

struct mw_heap_reader *mw_heap_reader_new(const struct mw_heap_reader_opts *opts)
{
	(void)opts;
	return mw_xcalloc(1, sizeof(struct mw_heap_reader));
}

void mw_heap_reader_free(struct mw_heap_reader *r)
{
	free(r);
}

size_t mw_heap_reader_reap(struct mw_heap_reader *r, uint32_t wait_ms)
{
	(void)r;
	(void)wait_ms;
	return 0;
}

int mw_heap_read(struct mw_heap_reader *r, uint32_t pid, bool self, struct mw_heap_list *out,
		 bool *remote_unavailable, struct mw_err *err)
{
	(void)r;
	(void)pid;
	(void)self;
	out->n = 0;
	if (remote_unavailable)
		*remote_unavailable = false;
	return mw_heap_supported(err), 1;
}
