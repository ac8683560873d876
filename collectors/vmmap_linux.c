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

struct walk_out {
	struct mw_vm_regions *v;
	struct mw_vm_ranges *st;
};

static void walk_out(const struct mw_smaps *maps, const struct mw_smaps_use *u, void *arg)
{
	const struct walk_out *o = arg;

	if (o->v)
		mw_smaps_vm_regions(maps, u, o->v);
	if (o->st)
		mw_smaps_stack_ranges(maps, u, o->st);
}

/* Read, parse and classify pid; then regions or stacks. */
static int walk(uint32_t pid, unsigned user, struct mw_vm_regions *v, struct mw_vm_ranges *st,
		struct mw_err *err)
{
	struct walk_out o = { v, st };

	return mw_procmaps_classified(pid, user, walk_out, &o, err);
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
