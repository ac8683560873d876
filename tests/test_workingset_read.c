/* test_workingset_read.c - one working-set read (mw_ws_read_with) with the
 * OS calls faked: a figure a failed call did not produce is never the
 * previous target's; the rights each step asks for; large pages, which
 * QueryWorkingSet leaves out, found with QueryWorkingSetEx and counted;
 * the large-page interpretation on constructed PSAPI_WORKING_SET_EX
 * arrays; PSS and USS from the pages' share counts.  Runs natively and under Wine (no OS call is made). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/xalloc.h"
#include "collectors/workingset.h"
#include "tests/support/test_main.h"

#define P 0x1000ULL
#define LP 0x200000ULL	/* 2 MB large pages */
#define MB (1ULL << 20)
/* what a protected process refuses: all but QUERY_LIMITED */
#define PROTECTED (MW_PROCESS_VM_READ | MW_PROCESS_QUERY_INFORMATION)

/* One fake process. */
struct fake_proc {
	uint32_t pid;
	uint32_t refuse;	/* access rights (MW_PROCESS_*) it refuses */
	unsigned long mem_err;	/* GetProcessMemoryInfo: 0 or the error */
	uint64_t ws_bytes;
	bool full_fails;	/* QueryWorkingSet refused */
	bool ex_fails;		/* QueryWorkingSetEx refused */
	uint64_t large_lo, large_hi;	/* resident large pages here */
	bool huge;		/* 17 GB more committed: past a QueryWorkingSetEx walk */
};

struct fake_os {
	const struct fake_proc *procs;
	size_t n;
	const struct fake_proc *cur;
	unsigned opened[8];	/* the needs asked, in order */
	size_t nopened;
	unsigned mem_info_need;	/* the need of the handle memory_info got */
	unsigned handle_need;
	int open_handles;
};

static const struct fake_proc *find(struct fake_os *f, uint32_t pid)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->procs[i].pid == pid)
			return &f->procs[i];
	return NULL;
}

static void *f_open(void *ctx, uint32_t pid, bool self, unsigned need, struct mw_err *err)
{
	struct fake_os *f = ctx;
	const struct fake_proc *p = find(f, pid);

	(void)self;
	if (f->nopened < 8)
		f->opened[f->nopened++] = need;
	if (!p || (mw_process_access(need) & p->refuse)) {
		mw_error(err, "OpenProcess(%lu, 0x%lx): Win32 error 5", (unsigned long)pid,
			 (unsigned long)mw_process_access(need));
		return NULL;
	}
	f->cur = p;
	f->handle_need = need;
	f->open_handles++;
	return (void *)p;
}

static void f_close(void *ctx, void *h, bool self)
{
	struct fake_os *f = ctx;

	(void)h, (void)self;
	f->open_handles--;
}

static unsigned long f_memory_info(void *ctx, void *h, uint64_t *bytes)
{
	struct fake_os *f = ctx;
	const struct fake_proc *p = h;

	f->mem_info_need = f->handle_need;
	if (p->mem_err)
		return p->mem_err;
	*bytes = p->ws_bytes;
	return 0;
}

/* image 0x10000 (4 pages); private 0x100000 (8 pages); a large-page
 * allocation 0x40000000 (4 MB, committed private); reserved beyond. */
static int f_walk(void *ctx, uint32_t pid, bool self, struct mw_vm_regions *v, struct mw_err *err)
{
	const struct fake_proc *p = find(ctx, pid);

	(void)self, (void)err;
	v->n = 0;
	mw_vm_regions_add(v, 0x10000, 4 * P, 0x10000, MW_VM_COMMIT, MW_VM_IMAGE, 0);
	mw_vm_regions_add(v, 0x100000, 8 * P, 0x100000, MW_VM_COMMIT, MW_VM_PRIVATE, 0);
	mw_vm_regions_add(v, 0x40000000, 2 * LP, 0x40000000, MW_VM_COMMIT, MW_VM_PRIVATE, 0);
	mw_vm_regions_add(v, 0x40400000, 2 * LP, 0x40400000, MW_VM_RESERVE, MW_VM_PRIVATE, 0);
	if (p && p->huge)
		mw_vm_regions_add(v, 0x100000000ULL, 17ULL << 30, 0x100000000ULL, MW_VM_COMMIT,
				  MW_VM_PRIVATE, 0);
	return 0;
}

/* QueryWorkingSet: the image's 4 pages and 3 private ones; never the
 * large pages (what Windows does). */
static unsigned long f_pages_full(void *ctx, void *h, struct mw_ws_snapshot *s)
{
	const struct fake_proc *p = h;

	(void)ctx;
	if (p->full_fails)
		return 87;
	for (uint64_t a = 0x10000; a < 0x14000; a += P) {
		MW_GROW(s->pages, s->cap, s->npages + 1);
		s->pages[s->npages++] = (struct mw_ws_page){ a, 2, true };
	}
	for (uint64_t a = 0x100000; a < 0x103000; a += P) {
		MW_GROW(s->pages, s->cap, s->npages + 1);
		s->pages[s->npages++] = (struct mw_ws_page){ a, 1, false };
	}
	return 0;
}

/* QueryWorkingSetEx: resident as above, plus the large pages. */
static unsigned long f_query_ex(void *ctx, void *h, struct mw_ws_ex_info *q, size_t n)
{
	const struct fake_proc *p = h;

	(void)ctx;
	if (p->ex_fails)
		return 87;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = q[i].va;

		q[i].attrs = 0;
		if (a >= 0x10000 && a < 0x14000)
			q[i].attrs = MW_WS_EX_VALID | (2 << 1) | (1ULL << 15);
		else if (a >= 0x100000 && a < 0x103000)
			q[i].attrs = MW_WS_EX_VALID | (1 << 1);
		else if (a >= p->large_lo && a < p->large_hi)
			q[i].attrs = MW_WS_EX_VALID | (1 << 1) | MW_WS_EX_LOCKED | MW_WS_EX_LARGE_PAGE;
	}
	return 0;
}

static struct mw_ws_os fake(struct fake_os *f, const struct fake_proc *procs, size_t n)
{
	memset(f, 0, sizeof(*f));
	f->procs = procs;
	f->n = n;
	return (struct mw_ws_os){
		.ctx = f, .page_size = (uint32_t)P, .large_page_size = LP,
		.open = f_open, .close = f_close, .memory_info = f_memory_info, .walk = f_walk,
		.pages_full = f_pages_full, .query_ex = f_query_ex,
	};
}

/* The fakes, a snapshot reused across reads (as the collector does). */
struct rig {
	struct fake_os f;
	struct mw_ws_os os;
	struct mw_ws_snapshot s;
	struct mw_err err;
};

static void rig_init(struct rig *r, const struct fake_proc *procs, size_t n)
{
	memset(r, 0, sizeof(*r));
	r->os = fake(&r->f, procs, n);
}

static int rig_read(struct rig *r, uint32_t pid)
{
	return mw_ws_read_with(&r->os, pid, false, &r->s, &r->err);
}

/* Two protected processes read into one snapshot, as the collector does;
 * the second's GetProcessMemoryInfo fails.  Before: the first's 123 MB
 * was reported for the second. */
static void failed_total_is_not_the_previous_targets(void **state)
{
	const struct fake_proc procs[] = {
		{ .pid = 100, .refuse = PROTECTED, .ws_bytes = 123 * MB },
		{ .pid = 200, .refuse = PROTECTED, .mem_err = 5 },
	};
	struct rig r;

	(void)state;
	rig_init(&r, procs, 2);
	assert_int_equal(rig_read(&r, 100), 0);
	assert_int_equal(r.s.mode, MW_WS_MODE_TOTALS);
	assert_true(r.s.have_total);
	assert_int_equal(r.s.total_bytes, 123 * MB);

	assert_int_equal(rig_read(&r, 200), 1);	/* inaccessible */
	assert_false(r.s.have_total);
	assert_int_not_equal(r.s.total_bytes, 123 * MB);
	assert_non_null(strstr(r.err.msg, "GetProcessMemoryInfo(200): error 5"));
	assert_int_equal(r.f.open_handles, 0);
	mw_ws_snapshot_release(&r.s);
}

/* The same with the full read: a readable process after one whose total
 * failed, and the other way round; the total never leaks across. */
static void failed_total_in_full_mode(void **state)
{
	const struct fake_proc procs[] = {
		{ .pid = 1, .ws_bytes = 50 * MB },
		{ .pid = 2, .mem_err = 31 },
		{ .pid = 3, .mem_err = 31, .full_fails = true, .ex_fails = true },
	};
	struct rig r;

	(void)state;
	rig_init(&r, procs, 3);
	assert_int_equal(rig_read(&r, 1), 0);
	assert_true(r.s.have_total);
	assert_int_equal(rig_read(&r, 2), 0);
	assert_int_equal(r.s.mode, MW_WS_MODE_FULL);	/* the pages are still read */
	assert_false(r.s.have_total);
	assert_int_equal(r.s.total_bytes, 0);
	/* neither page call answers (other processes under Wine): totals
	 * mode, the regions still read, and no total to report */
	assert_int_equal(rig_read(&r, 1), 0);
	assert_int_equal(rig_read(&r, 3), 0);
	assert_int_equal(r.s.mode, MW_WS_MODE_TOTALS);
	assert_false(r.s.have_total);
	assert_int_equal(r.s.npages, 0);
	assert_true(r.s.regions.n > 0);
	assert_non_null(strstr(r.s.why, "GetProcessMemoryInfo failed"));
	mw_ws_snapshot_release(&r.s);
}

/* GetProcessMemoryInfo is called on a handle with the rights it
 * documents (QUERY_(LIMITED_)INFORMATION + VM_READ); a protected process
 * that refuses VM_READ is then asked with QUERY_LIMITED alone. */
static void memory_info_rights(void **state)
{
	const struct fake_proc procs[] = {
		{ .pid = 1, .ws_bytes = 1 * MB },
		{ .pid = 2, .refuse = MW_PROCESS_QUERY_INFORMATION, .ws_bytes = 2 * MB },
		{ .pid = 3, .refuse = PROTECTED, .ws_bytes = 3 * MB },
	};
	struct rig r;

	(void)state;
	rig_init(&r, procs, 3);
	assert_int_equal(rig_read(&r, 1), 0);
	assert_true(mw_process_access(r.f.mem_info_need) & MW_PROCESS_VM_READ);
	assert_int_equal(r.f.nopened, 1);

	r.f.nopened = 0;
	assert_int_equal(rig_read(&r, 2), 0);
	assert_int_equal(r.f.mem_info_need, MW_NEED_MEMORY_INFO);
	assert_int_equal(mw_process_access(r.f.mem_info_need),
			 MW_PROCESS_QUERY_LIMITED_INFORMATION | MW_PROCESS_VM_READ);
	assert_int_equal(r.s.total_bytes, 2 * MB);

	r.f.nopened = 0;
	assert_int_equal(rig_read(&r, 3), 0);
	assert_int_equal(r.f.nopened, 3);
	assert_int_equal(r.f.opened[1], MW_NEED_MEMORY_INFO);
	assert_int_equal(r.f.opened[2], MW_NEED_TOTALS);
	assert_int_equal(r.s.mode, MW_WS_MODE_TOTALS);
	assert_non_null(strstr(r.s.why, "totals only: OpenProcess(3"));
	assert_int_equal(r.f.open_handles, 0);
	mw_ws_snapshot_release(&r.s);
}

static uint64_t private_pages(const struct mw_ws_snapshot *s)
{
	struct mw_ws_input in = { .regions = &s->regions, .page_size = s->page_size };
	struct mw_ws_result r = { 0 };
	struct mw_ws_snapshot copy = *s;
	uint64_t n;

	mw_ws_classify(&in, copy.pages, copy.npages, &r);
	n = r.pages[MW_WS_PRIVATE][MW_WS_PRIV];
	mw_ws_result_release(&r);
	return n;
}

/* Large pages in each mode, one process read through the fakes:
 * - QueryWorkingSet mode: the two resident large pages (4 MB) are found
 *   with QueryWorkingSetEx and counted as private pages (before: 7 pages,
 *   3 of them private);
 * - QueryWorkingSetEx mode (QueryWorkingSet refused): every committed
 *   page is asked; those with the LargePage bit are counted;
 * - the large-page question refused: the QueryWorkingSet figures stay and
 *   the why says so. */
static void large_pages_each_mode(void **state)
{
	static const struct {
		struct fake_proc p;
		int mode;
		size_t npages;
		uint64_t large, private_pages;
		const char *why;
	} cases[] = {
		{ { .pid = 9, .ws_bytes = 5 * MB, .large_lo = 0x40000000, .large_hi = 0x40400000 },
		  MW_WS_MODE_FULL, 7 + 2 * LP / P, 2, 3 + 2 * LP / P, "2 large pages, 4 MB" },
		{ { .pid = 9, .full_fails = true, .large_lo = 0x40000000, .large_hi = 0x40200000 },
		  MW_WS_MODE_EX, 7 + LP / P, 1, 3 + LP / P, "1 large pages, 2 MB" },
		{ { .pid = 9, .ex_fails = true, .large_lo = 0x40000000, .large_hi = 0x40400000 },
		  MW_WS_MODE_FULL, 7, 0, 3, "large pages unknown: QueryWorkingSetEx: error 87" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rig r;

		print_message("case %zu\n", i);
		rig_init(&r, &cases[i].p, 1);
		assert_int_equal(rig_read(&r, 9), 0);
		assert_int_equal(r.s.mode, cases[i].mode);
		assert_int_equal(r.s.npages, cases[i].npages);
		assert_int_equal(r.s.large_pages, cases[i].large);
		assert_int_equal(r.s.large_bytes, cases[i].large * LP);
		assert_int_equal(private_pages(&r.s), cases[i].private_pages);
		assert_non_null(strstr(r.s.why, cases[i].why));
		/* PSS: the image's 4 pages in 2 working sets count half */
		assert_true(r.s.have_pss);
		assert_int_equal(r.s.uss_bytes, cases[i].private_pages * P);
		assert_int_equal(r.s.pss_bytes, (cases[i].private_pages + 2) * P);
		mw_ws_snapshot_release(&r.s);
	}
}

/* PSS and USS only where every resident page was listed; a read that got
 * totals only (both working-set calls refused) has none, nor has a
 * QueryWorkingSetEx walk stopped at its page limit (the pages past it
 * would read as a drop), and never the previous process's figures. */
static void pss_only_from_pages(void **state)
{
	const struct fake_proc procs[] = {
		{ .pid = 1, .ws_bytes = 5 * MB },
		{ .pid = 2, .ws_bytes = 5 * MB, .full_fails = true, .ex_fails = true },
		{ .pid = 3, .refuse = PROTECTED, .ws_bytes = 5 * MB },
		{ .pid = 4, .ws_bytes = 5 * MB, .full_fails = true, .huge = true },
	};
	struct rig r;

	(void)state;
	rig_init(&r, procs, 4);
	assert_int_equal(rig_read(&r, 1), 0);
	assert_true(r.s.have_pss);
	assert_int_equal(r.s.pss_bytes, 5 * P);
	assert_int_equal(rig_read(&r, 2), 0);
	assert_int_equal(r.s.mode, MW_WS_MODE_TOTALS);
	assert_false(r.s.have_pss);
	assert_int_equal(r.s.pss_bytes, 0);
	assert_int_equal(rig_read(&r, 1), 0);
	assert_true(r.s.have_pss);
	assert_int_equal(rig_read(&r, 3), 0);
	assert_int_equal(r.s.mode, MW_WS_MODE_TOTALS);
	assert_false(r.s.have_pss);
	assert_int_equal(rig_read(&r, 1), 0);
	assert_true(r.s.have_pss);
	assert_int_equal(rig_read(&r, 4), 0);
	assert_int_equal(r.s.mode, MW_WS_MODE_EX);
	assert_non_null(strstr(r.s.why, "stopped after"));
	assert_int_equal(r.s.npages, 7);	/* the pages it did reach */
	assert_false(r.s.have_pss);
	mw_ws_snapshot_release(&r.s);
}

/* QueryWorkingSet's entries as the OS lays them out (bits 5-7
 * ShareCount, 8 Shared, 12-63 the page), constructed: a page only this
 * process has (count 0 or 1, shareable or not) counts whole in PSS and
 * USS; one in c working sets a c-th of a page in PSS, none in USS; the
 * count saturates at 7. */
static void pss_from_share_counts(void **state)
{
#define BLOCK(page, count, shared) (((uint64_t)(page) << 12) | ((uint64_t)(count) << 5) | \
				    ((uint64_t)(shared) << 8) | 0x4 /* read/write */)
	const uint64_t blocks[] = {
		BLOCK(0x100, 0, 0), BLOCK(0x101, 1, 0), BLOCK(0x102, 1, 1),	/* own: 3 pages */
		BLOCK(0x200, 2, 1), BLOCK(0x201, 2, 1),				/* 2 x 1/2 */
		BLOCK(0x300, 3, 1), BLOCK(0x301, 3, 1), BLOCK(0x302, 3, 1),	/* 3 x 1/3 */
		BLOCK(0x400, 7, 1),						/* 1/7 */
	};
	struct mw_ws_page pages[9];
	uint64_t pss, uss, pss2, uss2;
	size_t i;

	(void)state;
	mw_ws_blocks_pss(blocks, 9, 4096, &pss, &uss);
	assert_int_equal(uss, 3 * 4096);
	/* 3 + 1 + 1 + 1/7 pages: 5.142857 x 4096 = 21065.14 */
	assert_int_equal(pss, 21065);
	for (i = 0; i < 9; i++)
		pages[i] = mw_ws_from_block(blocks[i]);
	mw_ws_pages_pss(pages, 9, 4096, &pss2, &uss2);
	assert_int_equal(pss2, pss);
	assert_int_equal(uss2, uss);
	mw_ws_blocks_pss(blocks, 0, 4096, &pss, &uss);
	assert_int_equal(pss, 0);
	assert_int_equal(uss, 0);
#undef BLOCK
}

/* The interpretation alone, on a constructed PSAPI_WORKING_SET_EX array:
 * not valid, valid small, valid large, valid large already listed. */
static void large_pages_interpretation(void **state)
{
	const struct mw_ws_ex_info q[] = {
		{ 0x40000000, MW_WS_EX_LARGE_PAGE },				/* not Valid */
		{ 0x40200000, MW_WS_EX_VALID | (1 << 1) },			/* small page */
		{ 0x40400000, MW_WS_EX_VALID | MW_WS_EX_LOCKED | MW_WS_EX_LARGE_PAGE },
		{ 0x40600000, MW_WS_EX_VALID | MW_WS_EX_LARGE_PAGE },	/* listed */
	};
	struct mw_ws_snapshot s = { 0 };

	(void)state;
	s.page_size = (uint32_t)P;
	MW_GROW(s.pages, s.cap, 1);
	s.pages[s.npages++] = (struct mw_ws_page){ 0x40600000, 1, false };
	assert_int_equal(mw_ws_add_large_pages(&s, q, 4, LP), LP / P);
	assert_int_equal(s.npages, 1 + LP / P);
	assert_int_equal(s.large_pages, 1);
	assert_int_equal(s.large_bytes, LP);
	assert_int_equal(s.pages[1].va, 0x40400000);
	assert_int_equal(s.pages[s.npages - 1].va, 0x40400000 + LP - P);
	assert_false(s.pages[1].shareable);
	/* no large pages on this system: nothing */
	assert_int_equal(mw_ws_add_large_pages(&s, q, 4, 0), 0);
	mw_ws_snapshot_release(&s);
}

MW_TEST_MAIN(
	cmocka_unit_test(failed_total_is_not_the_previous_targets),
	cmocka_unit_test(failed_total_in_full_mode),
	cmocka_unit_test(memory_info_rights),
	cmocka_unit_test(large_pages_each_mode),
	cmocka_unit_test(large_pages_interpretation),
	cmocka_unit_test(pss_only_from_pages),
	cmocka_unit_test(pss_from_share_counts),
)
