/*
 * ws_regions.h - the working-set region type and its codec: what one
 * sample of a process's working set is made of, per allocation, and the
 * "workingset.regions" detail record that carries it from the collector
 * to storage.
 *
 * The workingset collector (collectors/workingset.h) fills a
 * mw_ws_result and encodes it with each sample; storage
 * (storage/regions.h) decodes it and keeps region snapshots; analysis
 * (analysis/ws_diff.h) diffs two snapshots.  All of it is pure: no
 * platform, no SQLite.
 */
#ifndef MW_CORE_WS_REGIONS_H
#define MW_CORE_WS_REGIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/mwerr.h"

enum mw_ws_category {
	MW_WS_IMAGE, MW_WS_MAPPED, MW_WS_SHAREABLE, MW_WS_HEAP, MW_WS_STACK,
	MW_WS_PRIVATE, MW_WS_OTHER, MW_WS_NCATEGORIES
};
enum mw_ws_sharing { MW_WS_PRIV, MW_WS_SHAREABLE_PAGE, MW_WS_SHARED, MW_WS_NSHARING };
enum mw_ws_owner_kind {
	MW_WS_OWNER_UNKNOWN, MW_WS_OWNER_MODULE, MW_WS_OWNER_FILE, MW_WS_OWNER_HEAP,
	MW_WS_OWNER_STACK, MW_WS_NOWNER_KINDS
};

/* The names the series labels and the JSON reports use. */
extern const char *const mw_ws_category_names[MW_WS_NCATEGORIES];
extern const char *const mw_ws_sharing_names[MW_WS_NSHARING];
extern const char *const mw_ws_owner_kind_names[MW_WS_NOWNER_KINDS];

/* Per allocation. */
struct mw_ws_region {
	uint64_t alloc_base, size;	/* size: committed + reserved of the allocation */
	uint8_t category;		/* enum mw_ws_category */
	uint8_t owner_kind;		/* enum mw_ws_owner_kind */
	uint32_t owner_id;		/* heap number, thread id */
	char *owner;			/* path, or NULL */
	uint32_t pages[MW_WS_NSHARING];
};

struct mw_ws_result {
	uint64_t pages[MW_WS_NCATEGORIES][MW_WS_NSHARING];
	struct mw_ws_region *regions;	/* allocations with at least one resident page */
	size_t nregions, cap;
	uint32_t page_size;
};

/* Free the regions and their owners; r is left empty (all zero). */
void mw_ws_result_release(struct mw_ws_result *r);

/* Add the regions' pages into t by category and sharing (regions of an
 * unknown category are skipped).  Pages without a region (the collector's
 * "other" pages) are not in the regions, so this can be less than
 * r->pages. */
void mw_ws_region_totals(const struct mw_ws_result *r,
			 uint64_t t[MW_WS_NCATEGORIES][MW_WS_NSHARING]);

/*
 * "workingset.regions" encoding, version 1, little-endian:
 *   header  "MWWS" u16 version=1 u16 0 u32 page_size u32 count
 *   region  u64 alloc_base u64 size u8 category u8 owner_kind u16 owner_len
 *           u32 owner_id u32 private u32 shareable u32 shared
 *           owner_len bytes of UTF-8 owner (no NUL)
 * Returns a malloc'ed buffer and its length.
 */
unsigned char *mw_ws_encode(const struct mw_ws_result *r, size_t *len);
/* Parse an encoding into r (regions only; totals are recomputed by
 * category and sharing).  -1 with a message on a malformed buffer. */
int mw_ws_decode(const unsigned char *buf, size_t len, struct mw_ws_result *r, struct mw_err *err);

/* Two results side by side by allocation base (either in any order):
 * each call of mw_ws_pairs_next gives the next base that either has, with
 * the region of before in *x and that of after in *y (NULL where that
 * side has no region at the base).  Every diff walks this way. */
struct mw_ws_pairs {
	const struct mw_ws_region **a, **b;	/* sorted views, owned */
	size_t na, nb, i, j;
};
void mw_ws_pairs_init(struct mw_ws_pairs *w, const struct mw_ws_result *before,
		      const struct mw_ws_result *after);
/* false at the end (x and y then NULL). */
bool mw_ws_pairs_next(struct mw_ws_pairs *w, const struct mw_ws_region **x,
		      const struct mw_ws_region **y);
void mw_ws_pairs_release(struct mw_ws_pairs *w);

/* What changed between two samples, per allocation base. */
struct mw_ws_delta {
	uint64_t alloc_base;
	uint8_t category;
	const char *owner;		/* from whichever side has it */
	int64_t pages[MW_WS_NSHARING];	/* after - before */
};
/* Allocations whose pages changed, sorted by base; returns the count,
 * *out malloc'ed.  (analysis/ws_diff.h has the report's richer diff.) */
size_t mw_ws_diff(const struct mw_ws_result *before, const struct mw_ws_result *after,
		  struct mw_ws_delta **out);

#endif
