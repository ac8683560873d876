/*
 * heap.h - the heap collector: per heap committed, allocated (busy), free
 * bytes and block count, for watched processes.
 *
 * Own process: GetProcessHeaps + HeapWalk (heap_win32.c); the walk's
 * entries are summed by mw_heap_account, pure.  Other processes need
 * RtlQueryProcessDebugInformation (creates a thread in the target: never
 * on a suspended process, with a time limit) - not done yet: they are
 * reported as inaccessible, with the reason in the status.
 */
#ifndef MW_COLLECTORS_HEAP_H
#define MW_COLLECTORS_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "daemon/mwerr.h"

/* PROCESS_HEAP_ENTRY wFlags */
#define MW_HEAP_ENTRY_BUSY 0x0004
#define MW_HEAP_REGION 0x0001
#define MW_HEAP_UNCOMMITTED_RANGE 0x0002

struct mw_heap_totals {
	uint64_t committed, busy, free, uncommitted, overhead;
	uint64_t blocks, free_blocks, regions;
};

/* Add one HeapWalk entry (wFlags, cbData, cbOverhead; for a region entry
 * committed and uncommitted sizes). */
void mw_heap_account(struct mw_heap_totals *t, uint32_t flags, uint64_t cb, uint32_t overhead,
		     uint64_t region_committed, uint64_t region_uncommitted);

struct mw_heap_list {
	struct mw_heap_totals *h;
	size_t n, cap;
};

/* Platform: heaps of a process.  0, 1 (cannot: err says why), -1. */
int mw_heap_read(uint32_t pid, bool self, struct mw_heap_list *out, struct mw_err *err);
/* 0 when the platform has heaps to read, else -1 and why. */
int mw_heap_supported(struct mw_err *why);

#endif
