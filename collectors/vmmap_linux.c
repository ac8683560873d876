/* vmmap_linux.c - the address-space map on Linux: /proc/PID/smaps (which
 * has everything /proc/PID/maps has), read through procmaps.h's per-tick
 * cache and classified by smaps.c's mw_smaps_uses, the classification the
 * workingset categories and the heap bar use too.  So committed bytes here
 * (every mapping that is not PROT_NONE) are the heap bar's committed total
 * for the same read. */
#include "vmmap.h"

#include <stdlib.h>

#include "base/xalloc.h"
#include "procmaps.h"
#include "smaps.h"

/* Read, parse and classify pid; then regions or stacks. */
static int walk(uint32_t pid, unsigned user, struct mw_vm_regions *v, struct mw_vm_ranges *st,
		struct mw_err *err)
{
	struct mw_procmaps pm = { 0 };
	struct mw_smaps maps = { 0 };
	struct mw_smaps_facts f;
	struct mw_smaps_use *u;
	int rc = mw_procmaps_parse(pid, user, &pm, &maps, &f, err);

	if (rc == 0) {
		u = mw_xcalloc(maps.n ? maps.n : 1, sizeof(*u));
		mw_smaps_uses(&maps, &f, u);
		if (v)
			mw_smaps_vm_regions(&maps, u, v);
		if (st)
			mw_smaps_stack_ranges(&maps, u, st);
		free(u);
	}
	mw_smaps_release(&maps);
	mw_procmaps_release(&pm);
	return rc;
}

int mw_vm_walk(uint32_t pid, bool self, struct mw_vm_regions *v, struct mw_err *err)
{
	(void)self;
	v->n = 0;
	return walk(pid, MW_PROCMAPS_VMMAP, v, NULL, err);
}

int mw_vm_stacks(uint32_t pid, bool self, struct mw_vm_ranges *out, struct mw_err *err)
{
	/* The committed part of [stack] and of each thread stack found (a
	 * thread's stack pointer in it, or glibc's guard below it). */
	(void)self;
	out->n = 0;
	return walk(pid, MW_PROCMAPS_STACKS, NULL, out, err);
}
