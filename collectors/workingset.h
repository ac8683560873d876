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

/* PSS and USS of resident pages of page_size bytes.  A page in c working
 * sets (its ShareCount, c >= 2) counts page_size / c in the PSS and
 * nothing in the USS; a page only this process has resident (c <= 1,
 * shareable or not) counts whole in both, as Linux's smaps does.
 * Windows saturates ShareCount at 7: a page in more working sets counts
 * a seventh, more than its share.  Pure. */
void mw_ws_pages_pss(const struct mw_ws_page *p, size_t n, uint32_t page_size, uint64_t *pss,
		     uint64_t *uss);
/* The same from QueryWorkingSet's entries as the OS lays them out
 * (PSAPI_WORKING_SET_BLOCK, 64-bit), for a reader that keeps no pages
 * (the process collector's PSS, process_win32.c).  Pure. */
void mw_ws_blocks_pss(const uint64_t *blocks, size_t n, uint32_t page_size, uint64_t *pss,
		      uint64_t *uss);

/* One QueryWorkingSetEx entry, laid out as the 64-bit
 * PSAPI_WORKING_SET_EX_INFORMATION (VirtualAddress, VirtualAttributes;
 * checked in workingset_win32.c) so the OS fills an array of these. */
struct mw_ws_ex_info {
	uint64_t va;
	uint64_t attrs;		/* PSAPI_WORKING_SET_EX_BLOCK */
};
#define MW_WS_EX_VALID 0x1ULL
#define MW_WS_EX_LOCKED (1ULL << 22)
#define MW_WS_EX_LARGE_PAGE (1ULL << 23)

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
	uint64_t total_bytes;		/* working set size (have_total) */
	bool have_total;		/* false: the size could not be read; never
					 * a figure left from an earlier read */
	uint64_t large_pages, large_bytes;	/* resident large pages (in pages too) */
	uint32_t page_size;
	/* proportional / unique set size (have_pss): Linux from smaps;
	 * Windows from the pages' share counts (mw_ws_pages_pss) when every
	 * resident page was listed (modes FULL and EX, not cut short) */
	uint64_t pss_bytes, uss_bytes;
	bool have_pss;
	/* MW_WS_MODE_SMAPS only */
	struct mw_ws_result classified;
	char *text;			/* the platform's read buffer */
	size_t text_cap;
};

void mw_ws_snapshot_release(struct mw_ws_snapshot *s);
/* 0 when this platform can read working sets, else -1 and why. */
int mw_ws_supported(struct mw_err *why);
/* Read a process.  0, 1 (inaccessible: err says why), -1. */
int mw_ws_read(uint32_t pid, bool self, struct mw_ws_snapshot *s, struct mw_err *err);

/* --- one read, the OS calls injected (workingset_read.c) ----------------
 * The order of a Windows read and what is kept when a call fails, apart
 * from the calls themselves (workingset_win32.c fills this with thin
 * wrappers; tests with fakes).  Each call returns 0 or the OS error. */
struct mw_ws_os {
	void *ctx;
	uint32_t page_size;
	uint64_t large_page_size;	/* GetLargePageMinimum; 0: none */
	/* The process with the rights for need (MW_NEED_*, vmmap.h); self:
	 * the process itself.  NULL and err when refused. */
	void *(*open)(void *ctx, uint32_t pid, bool self, unsigned need, struct mw_err *err);
	void (*close)(void *ctx, void *h, bool self);
	/* GetProcessMemoryInfo: the working-set size */
	unsigned long (*memory_info)(void *ctx, void *h, uint64_t *bytes);
	int (*walk)(void *ctx, uint32_t pid, bool self, struct mw_vm_regions *v, struct mw_err *err);
	/* QueryWorkingSet: appends to s->pages */
	unsigned long (*pages_full)(void *ctx, void *h, struct mw_ws_snapshot *s);
	/* QueryWorkingSetEx on q[0..n) (each va set), attrs filled in place */
	unsigned long (*query_ex)(void *ctx, void *h, struct mw_ws_ex_info *q, size_t n);
	/* names, heaps, stacks (optional) */
	void (*details)(void *ctx, void *h, uint32_t pid, bool self, struct mw_ws_snapshot *s);
};

/* Read one process into s through os.  Everything in s from an earlier
 * read (another process's) is reset first: a call that fails leaves its
 * figure absent, never stale (have_total false when GetProcessMemoryInfo
 * failed).  0; 1 when the process could not be opened, or only its total
 * could have been read and was not (err says why: inaccessible).  The
 * mode says how far it got: MW_WS_MODE_TOTALS when neither working-set
 * call answered (the regions and details are read all the same). */
int mw_ws_read_with(const struct mw_ws_os *os, uint32_t pid, bool self, struct mw_ws_snapshot *s,
		    struct mw_err *err);

/* Large pages, pure: q[0..n) were asked at large-page-aligned addresses
 * of committed private memory.  Each valid entry with the LargePage bit
 * is one resident large page: its small pages are appended to s->pages
 * (private, unshared: large pages are never shared or paged out) unless
 * the first of them is already listed (pages must be sorted by va), and
 * counted in s->large_pages / large_bytes.  Returns pages added. */
size_t mw_ws_add_large_pages(struct mw_ws_snapshot *s, const struct mw_ws_ex_info *q, size_t n,
			     uint64_t large_page_size);
/* Every QueryWorkingSetEx entry asked page by page: valid ones appended
 * to s->pages, those with the LargePage bit counted in s->large_bytes
 * (s->large_pages: whole large pages of large_page_size).  Pure. */
void mw_ws_add_ex_pages(struct mw_ws_snapshot *s, const struct mw_ws_ex_info *q, size_t n,
			uint64_t large_page_size);

/* --- winws: QueryWorkingSetEx stops (workingset_read.c) -----------------
 * How many reads stopped QueryWorkingSetEx at its page limit (16 GB of
 * committed memory) since start; the snapshot's why says so too. */
uint64_t mw_ws_ex_truncations(void);
/* The limit (pages asked per read), counted in workingset_read.c. */
#define MW_WS_EX_MAX_PAGES (4u << 20)	/* 16 GB of committed memory at 4 KB */

#endif
