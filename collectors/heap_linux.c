/* heap_linux.c - the heap bar on Linux, from /proc/PID/smaps (read through
 * procmaps.h's per-tick cache, classified by smaps.c).  There is no heap
 * walk: malloc's used and free blocks cannot be told apart from outside
 * the process, so memwatch_heap_bytes per heap is Windows only and the bar
 * has one "heap" kind (see heap.h). */
#include "heap.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/xalloc.h"
#include "procmaps.h"

struct mw_heap_reader {
	int unused;
};

int mw_heap_supported(struct mw_err *why)
{
	if (access("/proc/self/smaps", R_OK))
		return mw_error(why, "/proc/self/smaps: %s", strerror(errno));
	return 0;
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
	return mw_error(err, "per-heap figures: Windows only"), 1;
}


static void bar_of(const struct mw_smaps *maps, const struct mw_smaps_use *u, void *out)
{
	mw_heap_breakdown_smaps(maps, u, out);
}

int mw_heap_bar_read(uint32_t pid, struct mw_heap_breakdown *out, struct mw_err *err)
{
	return mw_procmaps_classified(pid, MW_PROCMAPS_HEAP, bar_of, out, err);
}

/* No per-heap figures here (malloc's used and free blocks cannot be told
 * apart from outside): the bar only. */
int mw_heap_read_target(struct mw_heap_reader *r, uint32_t pid, bool self,
			struct mw_heap_list *heaps, struct mw_heap_breakdown *bar,
			struct mw_heap_target_read *out, struct mw_err *why)
{
	int rc = mw_heap_bar_read(pid, bar, why);

	(void)r;
	(void)self;
	(void)heaps;
	memset(out, 0, sizeof(*out));
	if (rc < 0)
		mw_log_warn("heap: pid %" PRIu32 ": %s", pid, why->msg);
	out->bar = rc == 0;
	return rc;
}

void mw_heap_mode_line(const struct mw_heap_reader *r, char *buf, size_t size, size_t ok,
		       size_t n, double ms, size_t cut, const struct mw_heap_notes *notes,
		       const char *why)
{
	(void)r;
	(void)cut;
	(void)notes;	/* segment heaps and WOW64 are Windows' */
	snprintf(buf, size, "%zu of %zu read, %.2f ms; %s%s%.40s", ok, n, ms, MW_HEAP_LINUX_MODE,
		 why[0] ? "; " : "", why);
}
