/*
 * workingset.h - what a watched process's working set is made of.
 *
 * The platform (workingset_win32.c) collects the raw facts: the resident
 * pages (QueryWorkingSet; when refused, QueryWorkingSetEx over the
 * committed regions; when that is refused too, totals only), the region
 * map (VirtualQueryEx), who owns each allocation (module / mapped file
 * name), the heaps and the threads' stacks.  mw_ws_classify, pure, sorts
 * the pages into categories and sharing classes and per-allocation
 * details (the region type, core/ws_regions.h); mw_ws_encode stores
 * those details with each sample ("workingset.regions" detail records) so
 * any two samples can be diffed later.
 *
 * Linux (workingset_linux.c) reads /proc/PID/smaps instead: page counts
 * per mapping, not pages, so the platform classifies itself with the pure
 * mw_smaps_classify (smaps.h: categories, sharing classes and regions as
 * above) and hands over the result (MW_WS_MODE_SMAPS), with PSS and USS.
 */
#ifndef MW_COLLECTORS_WORKINGSET_H
#define MW_COLLECTORS_WORKINGSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/collector.h"
#include "base/mwerr.h"
#include "core/ws_regions.h"
#include "vmmap.h"

extern const struct mw_collector mw_collector_workingset;

/* One resident page, from either API. */
struct mw_ws_page {
	uint64_t va;		/* page address */
	uint8_t share_count;	/* 0-7 (saturates) */
	bool shareable;		/* the Shared bit */
};

/* Facts about the process besides its pages. */
struct mw_ws_range {
	uint64_t base, size;
	uint32_t id;		/* heap number / thread id */
};
struct mw_ws_name {
	uint64_t alloc_base;
	const char *name;	/* module path or mapped file name */
};
struct mw_ws_input {
	const struct mw_vm_regions *regions;	/* sorted by base */
	const struct mw_ws_name *names;		/* any order */
	size_t nnames;
	const struct mw_ws_range *heaps, *stacks;
	size_t nheaps, nstacks;
	uint32_t page_size;
};

/* Classify.  pages may be in any order (sorted in place).  Replaces out. */
void mw_ws_classify(const struct mw_ws_input *in, struct mw_ws_page *pages, size_t npages,
		    struct mw_ws_result *out);

/* Decode one QueryWorkingSet entry (PSAPI_WORKING_SET_BLOCK, 64-bit):
 * bits 0-4 protection, 5-7 ShareCount, 8 Shared, 12-63 VirtualPage. */
struct mw_ws_page mw_ws_from_block(uint64_t block);
/* Decode one QueryWorkingSetEx attribute word (PSAPI_WORKING_SET_EX_BLOCK):
 * bit 0 Valid, 1-3 ShareCount, 15 Shared.  Returns false if not valid. */
bool mw_ws_from_ex_block(uint64_t va, uint64_t attrs, struct mw_ws_page *out);

/* --- platform ----------------------------------------------------------- */

/* MW_WS_MODE_SMAPS (Linux): the platform classified the process itself
 * from /proc/PID/smaps (collectors/smaps.h); the answer is in
 * snapshot.classified, with PSS and USS, and pages/regions/names are
 * empty. */
enum mw_ws_mode { MW_WS_MODE_FULL, MW_WS_MODE_EX, MW_WS_MODE_TOTALS, MW_WS_MODE_SMAPS };

struct mw_ws_snapshot {
	enum mw_ws_mode mode;
	char why[96];			/* why not a better mode */
	struct mw_ws_page *pages;
	size_t npages, cap;
	struct mw_vm_regions regions;
	struct mw_ws_name *names;
	size_t nnames, names_cap;
	struct mw_ws_range *heaps, *stacks;
	size_t nheaps, nstacks, heaps_cap, stacks_cap;
	uint64_t total_bytes;		/* working set size, every mode */
	uint32_t page_size;
	/* MW_WS_MODE_SMAPS only */
	struct mw_ws_result classified;
	uint64_t pss_bytes, uss_bytes;	/* proportional / unique set size */
	char *text;			/* the platform's read buffer */
	size_t text_cap;
};

void mw_ws_snapshot_release(struct mw_ws_snapshot *s);
/* 0 when this platform can read working sets, else -1 and why. */
int mw_ws_supported(struct mw_err *why);
/* Read a process.  0, 1 (inaccessible: err says why), -1. */
int mw_ws_read(uint32_t pid, bool self, struct mw_ws_snapshot *s, struct mw_err *err);

/* --- winws: QueryWorkingSetEx stops (workingset_win32.c) ----------------
 * How many reads stopped QueryWorkingSetEx at its page limit (16 GB of
 * committed memory) since start; the snapshot's why says so too. */
uint64_t mw_ws_ex_truncations(void);

#endif
