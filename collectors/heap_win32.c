/* heap_win32.c - own-process heaps by GetProcessHeaps + HeapWalk (each
 * heap locked while walked).  Other processes: not yet (see heap.h). */
#include "heap.h"

#include <windows.h>
#include <string.h>

#include "daemon/xalloc.h"

_Static_assert(PROCESS_HEAP_ENTRY_BUSY == MW_HEAP_ENTRY_BUSY, "busy");
_Static_assert(PROCESS_HEAP_REGION == MW_HEAP_REGION, "region");
_Static_assert(PROCESS_HEAP_UNCOMMITTED_RANGE == MW_HEAP_UNCOMMITTED_RANGE, "uncommitted");

int mw_heap_supported(struct mw_err *why)
{
	(void)why;
	return 0;
}

int mw_heap_read(uint32_t pid, bool self, struct mw_heap_list *out, struct mw_err *err)
{
	HANDLE hs[256];
	DWORD n, i;

	(void)pid;
	out->n = 0;
	if (!self)
		return mw_error(err, "remote heap summary (RtlQueryProcessDebugInformation) "
				"not implemented yet"), 1;
	n = GetProcessHeaps(256, hs);
	if (n == 0)
		return mw_error(err, "GetProcessHeaps: Win32 error %lu", GetLastError());
	for (i = 0; i < n && i < 256; i++) {
		PROCESS_HEAP_ENTRY e;
		struct mw_heap_totals *t;

		MW_GROW(out->h, out->cap, out->n + 1);
		t = &out->h[out->n++];
		memset(t, 0, sizeof(*t));
		memset(&e, 0, sizeof(e));
		if (!HeapLock(hs[i]))
			continue;
		while (HeapWalk(hs[i], &e))
			mw_heap_account(t, e.wFlags, e.cbData, e.cbOverhead,
					(e.wFlags & PROCESS_HEAP_REGION) ? e.Region.dwCommittedSize : 0,
					(e.wFlags & PROCESS_HEAP_REGION) ? e.Region.dwUnCommittedSize : 0);
		HeapUnlock(hs[i]);
	}
	return 0;
}
