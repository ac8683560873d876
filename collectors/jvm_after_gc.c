/* jvm_after_gc.c - see jvm_after_gc.h. */
#include "jvm_after_gc.h"

bool mw_jvm_after_gc_add(struct mw_jvm_after_gc *t, int64_t ts_ms, double old_used,
			 uint64_t old_collections)
{
	if (!t->seen || old_collections < t->old_collections) {
		/* the first sample, or counts that went back (another JVM
		 * under the same pid): a stretch of unknown start */
		*t = (struct mw_jvm_after_gc){ .seen = true, .old_collections = old_collections,
					       .boundary_ms = ts_ms, .stretch_min = old_used };
		return false;
	}
	if (old_collections != t->old_collections) {
		t->old_collections = old_collections;
		if (ts_ms - t->boundary_ms >= MW_JVM_CYCLE_MERGE_MS || !t->started) {
			/* a new collection: the stretch before it ends */
			if (t->started) {
				t->value = t->stretch_min;
				t->have = true;
			}
			t->started = true;
			t->boundary_ms = ts_ms;
			t->stretch_min = old_used;
			return t->have;
		}
	}
	if (old_used < t->stretch_min)
		t->stretch_min = old_used;
	return t->have;
}
