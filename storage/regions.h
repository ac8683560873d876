/*
 * regions.h - working-set region snapshots in the database
 * ("workingset.regions" detail records, core/ws_regions.h).
 *
 * Per process (pid + process name) the writer keeps the last region list
 * it stored and writes, per snapshot, one ws_snapshot row: a keyframe (the
 * whole list) every keyframe_every snapshots, else a delta against the
 * previous snapshot (regions removed, regions added or changed); an
 * unchanged snapshot is a row with an empty blob.  Owner paths are
 * interned in ws_owner.  Format: storage/SCHEMA.md, "Working-set regions".
 *
 * The codec below is pure (no SQLite) so tests and the bench drive it
 * directly; regions_store.c is the writer side (called by store.c),
 * regions_query.c the read side (query.h).
 */
#ifndef MW_STORAGE_REGIONS_H
#define MW_STORAGE_REGIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/mwerr.h"
#include "core/ws_regions.h"

#define MW_RG_KEYFRAME 0x01	/* blob format bytes, version 1 */
#define MW_RG_DELTA 0x02
#define MW_RG_KEYFRAME_EVERY 64	/* default */

struct mw_rg_buf {
	uint8_t *p;
	size_t n, cap;
};
void mw_rg_buf_release(struct mw_rg_buf *b);

/* Owner interning: text -> id (> 0); 0 for NULL. */
typedef uint32_t (*mw_rg_intern_fn)(void *ctx, const char *owner);
/* id -> text (NULL: unknown id, an error); never called with 0. */
typedef const char *(*mw_rg_owner_fn)(void *ctx, uint32_t id);

/* Sort r's regions by alloc_base (and recompute r->pages).  Returns true
 * when two regions share a base (such a list is always a keyframe). */
bool mw_rg_normalize(struct mw_ws_result *r);

/* Encode cur (normalized) as a keyframe, or as a delta against prev
 * (normalized; same page size, no duplicate bases).  An unchanged list
 * gives an empty delta (out->n == 0).  out is reset first. */
void mw_rg_encode_keyframe(const struct mw_ws_result *cur, mw_rg_intern_fn intern, void *ctx,
			   struct mw_rg_buf *out);
void mw_rg_encode_delta(const struct mw_ws_result *prev, const struct mw_ws_result *cur,
			mw_rg_intern_fn intern, void *ctx, struct mw_rg_buf *out);

/* Apply one blob to snap: a keyframe replaces it, a delta (empty too)
 * changes it.  snap stays normalized.  -1 with a message on a malformed
 * blob or an unknown owner id. */
int mw_rg_apply(struct mw_ws_result *snap, const uint8_t *blob, size_t len,
		mw_rg_owner_fn owner, void *ctx, struct mw_err *err);

/* Deep copy (owners duplicated). */
void mw_rg_copy(struct mw_ws_result *dst, const struct mw_ws_result *src);

#endif
