/*
 * size_cut.h - the size limit's pieces ([storage] max_size): size_cut.c
 * decides what goes and in which order; retention.c (what must be kept
 * before raw points go) and regions_store.c (whole snapshot groups) lend
 * it what they own.  Writer side only, inside mw_store_maintain's
 * transaction.  Not for use outside storage/.
 */
#ifndef MW_SIZE_CUT_H
#define MW_SIZE_CUT_H

#include <stdbool.h>
#include <stdint.h>
#include "base/mwerr.h"

struct mw_store;
struct mw_size_cut;

/* size_cut.c: one bounded step, called by mw_store_maintain after the age
 * limits.  Nothing when the store has no max_size. */
int mw_size_cut_step(struct mw_store *s, struct mw_size_cut **state, int64_t now_ms,
		     struct mw_err *err);
/* After the step's commit: free pages given back (incremental vacuum)
 * and the WAL checkpointed when they stand between the file and the cap. */
int mw_size_cut_settle(struct mw_store *s, struct mw_size_cut *state, struct mw_err *err);
void mw_size_cut_free(struct mw_size_cut *state);

/* retention.c: before raw chunks of series id go, its first point is
 * recorded and (for a series the writer does not hold) its rollup buckets
 * not yet written are rolled up from them. */
int mw_retention_before_cut(struct mw_store *s, int64_t id, bool in_memory, struct mw_err *err);
/* Remove series id's catalogue rows if it has no chunk, no rollup row and
 * is not live (the caller knows it is not in memory); *removed set. */
int mw_retention_drop_empty(struct mw_store *s, int64_t id, bool *removed, struct mw_err *err);

/* regions_store.c: the time of the oldest region snapshot (1; 0: none). */
int mw_rg_store_oldest(struct mw_store *s, int64_t *ts, struct mw_err *err);
/* Remove the oldest keyframe group whole: rows removed, 0 when it is
 * still being written (nothing closed is older) or its end is too far to
 * find in one step, -1 on error. */
int64_t mw_rg_store_cut_oldest(struct mw_store *s, struct mw_err *err);

#endif
