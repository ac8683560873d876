/*
 * jvm_after_gc.h - a JVM's old generation after its old-generation
 * collections, from the samples of its in-use bytes and its collection
 * counts: what survived them (the figure a leak inside the heap raises,
 * where the in-use bytes between collections are a sawtooth of whatever
 * was promoted since).
 *
 * An old-generation collection is counted by a collector other than the
 * young one (G1: a concurrent cycle's remark and cleanup pauses, or a
 * full pause; Parallel and Serial: a full collection).  Between two of
 * them the old generation is collected (G1's mixed pauses follow the
 * cycle's cleanup) and then fills again with promotions: its lowest
 * in-use bytes between one collection and the next is what the first
 * left.  That lowest is published when the next collection is seen, and
 * held until the one after; counts that move again within
 * MW_JVM_CYCLE_MERGE_MS (a cycle's remark and cleanup) are one collection.
 * The first stretch, from the first sample to the first collection seen,
 * began anywhere in a cycle: nothing is published for it.
 *
 * Pure; the jvm collector keeps one per JVM (tests/test_jvm.c).
 */
#ifndef MW_COLLECTORS_JVM_AFTER_GC_H
#define MW_COLLECTORS_JVM_AFTER_GC_H

#include <stdbool.h>
#include <stdint.h>

#define MW_JVM_CYCLE_MERGE_MS 30000

struct mw_jvm_after_gc {
	bool seen, started, have;
	uint64_t old_collections;	/* the count last seen */
	int64_t boundary_ms;		/* when the current stretch began */
	double stretch_min;		/* the lowest in-use bytes in it */
	double value;			/* published (have) */
};

/* One sample: the old generation's in-use bytes and old-collection count
 * at ts_ms.  True when a value is published (in t->value). */
bool mw_jvm_after_gc_add(struct mw_jvm_after_gc *t, int64_t ts_ms, double old_used,
			 uint64_t old_collections);

#endif
