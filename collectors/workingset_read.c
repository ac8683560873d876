/*
 * workingset_read.c - one working-set read of one process, portable: the
 * order of the Windows calls, what is kept when one fails, and the
 * QueryWorkingSetEx walks (every committed page; large pages), with the
 * calls themselves injected (struct mw_ws_os, workingset.h).
 * workingset_win32.c supplies thin wrappers around the Win32 calls and
 * calls mw_ws_read_with; tests/test_workingset_read.c supplies fakes.
 *
 * Why here and not in workingset_win32.c: the collector reuses one
 * snapshot for every target, so a figure a failed call did not overwrite
 * was the previous target's (a protected process reported with another
 * process's working set).  The reset, and which figures a failure leaves
 * absent, are the logic worth testing without Windows.
 */
#include "workingset.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#define EX_CHUNK 4096	/* entries per QueryWorkingSetEx call */

static atomic_uint_least64_t ex_truncations;

uint64_t mw_ws_ex_truncations(void)
{
	return atomic_load(&ex_truncations);
}

static void add_page(struct mw_ws_snapshot *s, struct mw_ws_page p)
{
	MW_GROW(s->pages, s->cap, s->npages + 1);
	s->pages[s->npages++] = p;
}

void mw_ws_add_ex_pages(struct mw_ws_snapshot *s, const struct mw_ws_ex_info *q, size_t n,
			uint64_t large_page_size)
{
	size_t j;

	for (j = 0; j < n; j++) {
		struct mw_ws_page p;

		if (!mw_ws_from_ex_block(q[j].va, q[j].attrs, &p))
			continue;
		add_page(s, p);
		if (q[j].attrs & MW_WS_EX_LARGE_PAGE)
			s->large_bytes += s->page_size;
	}
	s->large_pages = large_page_size ? s->large_bytes / large_page_size : 0;
}

static bool listed(const struct mw_ws_page *pages, size_t n, uint64_t va)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pages[mid].va == va)
			return true;
		if (pages[mid].va < va)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* pages[0..nsorted) is QueryWorkingSet's list, sorted: a large page it
 * did list (no Windows version is known to, but the documentation does
 * not promise either way) is not counted twice. */
static size_t add_large(struct mw_ws_snapshot *s, size_t nsorted, const struct mw_ws_ex_info *q,
			size_t n, uint64_t large_page_size)
{
	size_t j, added = 0;
	uint64_t a;

	if (!s->page_size || large_page_size < s->page_size)
		return 0;
	for (j = 0; j < n; j++) {
		if ((q[j].attrs & (MW_WS_EX_VALID | MW_WS_EX_LARGE_PAGE)) !=
		    (MW_WS_EX_VALID | MW_WS_EX_LARGE_PAGE) || listed(s->pages, nsorted, q[j].va))
			continue;
		for (a = q[j].va; a < q[j].va + large_page_size; a += s->page_size) {
			add_page(s, (struct mw_ws_page){ a, 1, false });
			added++;
		}
		s->large_pages++;
		s->large_bytes += large_page_size;
	}
	return added;
}

size_t mw_ws_add_large_pages(struct mw_ws_snapshot *s, const struct mw_ws_ex_info *q, size_t n,
			     uint64_t large_page_size)
{
	return add_large(s, s->npages, q, n, large_page_size);
}

/* QueryWorkingSetEx over every committed page (at most MW_WS_EX_MAX_PAGES):
 * 0 or the OS error.  *asked / *committed: pages asked about / committed. */
static unsigned long pages_ex(const struct mw_ws_os *os, void *h, struct mw_ws_snapshot *s,
			      uint64_t *asked, uint64_t *committed)
{
	struct mw_ws_ex_info *q = mw_xmalloc(EX_CHUNK * sizeof(*q));
	size_t k = 0, i;
	uint64_t total = 0;
	unsigned long err = 0;

	for (i = 0; i < s->regions.n; i++) {
		const struct mw_vm_region *r = &s->regions.r[i];
		uint64_t a;

		if (r->state != MW_VM_COMMIT)
			continue;
		*committed += r->size / s->page_size;
		for (a = r->base; !err && a < r->base + r->size && total < MW_WS_EX_MAX_PAGES;
		     a += s->page_size) {
			q[k++] = (struct mw_ws_ex_info){ a, 0 };
			total++;
			if (k == EX_CHUNK) {
				if ((err = os->query_ex(os->ctx, h, q, k)) == 0)
					mw_ws_add_ex_pages(s, q, k, os->large_page_size);
				k = 0;
			}
		}
	}
	if (!err && k && (err = os->query_ex(os->ctx, h, q, k)) == 0)
		mw_ws_add_ex_pages(s, q, k, os->large_page_size);
	*asked = total;
	free(q);
	return err;
}

static int page_cmp(const void *a, const void *b)
{
	const struct mw_ws_page *x = a, *y = b;

	return x->va < y->va ? -1 : x->va > y->va;
}

/* QueryWorkingSet leaves large pages out (SQL Server with "Lock pages in
 * memory", JVMs with -XX:+UseLargePages): ask QueryWorkingSetEx about
 * each large-page-aligned address of committed private memory (large
 * pages are private, aligned and never paged out).  One question per
 * large page: 16 GB of committed memory is 8192 entries at 2 MB.
 * 0 or the OS error. */
static unsigned long pages_large(const struct mw_ws_os *os, void *h, struct mw_ws_snapshot *s)
{
	uint64_t lp = os->large_page_size;
	struct mw_ws_ex_info *q;
	size_t i, k = 0, nsorted = s->npages;
	unsigned long err = 0;

	if (!lp || lp <= s->page_size)
		return 0;
	qsort(s->pages, s->npages, sizeof(*s->pages), page_cmp);
	q = mw_xmalloc(EX_CHUNK * sizeof(*q));
	for (i = 0; i < s->regions.n && !err; i++) {
		const struct mw_vm_region *r = &s->regions.r[i];
		uint64_t a = (r->base + lp - 1) / lp * lp;

		if (r->state != MW_VM_COMMIT || r->type != MW_VM_PRIVATE)
			continue;
		for (; !err && a + lp <= r->base + r->size; a += lp) {
			q[k++] = (struct mw_ws_ex_info){ a, 0 };
			if (k == EX_CHUNK) {
				if ((err = os->query_ex(os->ctx, h, q, k)) == 0)
					add_large(s, nsorted, q, k, lp);
				k = 0;
			}
		}
	}
	if (!err && k && (err = os->query_ex(os->ctx, h, q, k)) == 0)
		add_large(s, nsorted, q, k, lp);
	free(q);
	return err;
}

/* Append note to why ("; " between), as much as fits. */
static void why_add(struct mw_ws_snapshot *s, const char *note)
{
	size_t n = strlen(s->why);

	snprintf(s->why + n, sizeof(s->why) - n, "%s%s", n ? "; " : "", note);
}

/* Everything an earlier read (of another process) left. */
static void reset(struct mw_ws_snapshot *s, uint32_t page_size)
{
	size_t i;

	for (i = 0; i < s->nnames; i++)
		free((char *)s->names[i].name);
	s->npages = s->nnames = s->nheaps = s->nstacks = 0;
	s->regions.n = 0;
	s->why[0] = '\0';
	s->mode = MW_WS_MODE_TOTALS;
	s->total_bytes = 0;
	s->have_total = false;
	s->have_pss = false;
	s->pss_bytes = s->uss_bytes = 0;
	s->large_pages = s->large_bytes = 0;
	s->page_size = page_size;
}

/* GetProcessMemoryInfo: the figure only when the call succeeded. */
static unsigned long take_total(const struct mw_ws_os *os, void *h, struct mw_ws_snapshot *s)
{
	uint64_t bytes = 0;
	unsigned long e = os->memory_info(os->ctx, h, &bytes);

	if (e == 0) {
		s->total_bytes = bytes;
		s->have_total = true;
	}
	return e;
}

/* Totals only, because of what why says.  Without a total there is
 * nothing to report: inaccessible (1), err naming the failed call. */
static int totals_only(struct mw_ws_snapshot *s, uint32_t pid, unsigned long total_err,
		       const char *because, struct mw_err *err)
{
	s->npages = 0;
	s->regions.n = 0;
	s->mode = MW_WS_MODE_TOTALS;
	if (!s->have_total)
		return mw_error(err, "GetProcessMemoryInfo(%lu): error %lu (%s)",
				(unsigned long)pid, total_err, because), 1;
	snprintf(s->why, sizeof(s->why), "totals only: %s", because);
	return 0;
}

int mw_ws_read_with(const struct mw_ws_os *os, uint32_t pid, bool self, struct mw_ws_snapshot *s,
		    struct mw_err *err)
{
	struct mw_err oerr = { "" };
	unsigned long e_total, e1, e2;
	uint64_t asked = 0, committed = 0;
	void *h;
	char note[96];

	reset(s, os->page_size);
	/* QUERY_INFORMATION + VM_READ serve every call below, and are what
	 * GetProcessMemoryInfo documents. */
	h = os->open(os->ctx, pid, self, MW_NEED_WORKING_SET | MW_NEED_REGIONS | MW_NEED_READ, &oerr);
	if (!h) {
		/* A protected process refuses those: totals with the right
		 * GetProcessMemoryInfo documents (QUERY_LIMITED + VM_READ),
		 * then QUERY_LIMITED alone (all a protected process grants;
		 * the call is not documented to work with it, so a failure
		 * there is reported, never filled in). */
		struct mw_err e = { "" };

		h = os->open(os->ctx, pid, self, MW_NEED_MEMORY_INFO, &e);
		if (!h)
			h = os->open(os->ctx, pid, self, MW_NEED_TOTALS, err);
		if (!h)
			return 1;
		e_total = take_total(os, h, s);
		os->close(os->ctx, h, self);
		return totals_only(s, pid, e_total, oerr.msg, err);
	}
	e_total = take_total(os, h, s);
	if (os->walk(os->ctx, pid, self, &s->regions, &oerr)) {
		os->close(os->ctx, h, self);
		return totals_only(s, pid, e_total, oerr.msg, err);
	}
	s->mode = MW_WS_MODE_FULL;
	if ((e1 = os->pages_full(os->ctx, h, s)) == 0) {
		if ((e2 = pages_large(os, h, s)) != 0) {
			snprintf(note, sizeof(note), "large pages unknown: QueryWorkingSetEx: error %lu",
				 e2);
			why_add(s, note);
		}
	} else {
		s->npages = 0;
		s->mode = MW_WS_MODE_EX;
		snprintf(s->why, sizeof(s->why), "QueryWorkingSet: error %lu", e1);
		if ((e2 = pages_ex(os, h, s, &asked, &committed)) != 0) {
			/* No pages; the regions and the details below are still
			 * read: the snapshot tells what each allocation is.  The
			 * collector reports the total only (or, when that failed
			 * too, nothing). */
			s->npages = 0;
			s->large_pages = s->large_bytes = 0;
			s->mode = MW_WS_MODE_TOTALS;
			snprintf(s->why, sizeof(s->why), "QueryWorkingSet: error %lu, "
				 "QueryWorkingSetEx: error %lu", e1, e2);
			if (!s->have_total)
				why_add(s, "GetProcessMemoryInfo failed");
		} else if (asked < committed) {
			/* First, so that a short mode line still shows it. */
			atomic_fetch_add(&ex_truncations, 1);
			snprintf(s->why, sizeof(s->why),
				 "stopped after %.0f GB of %.0f GB committed, QueryWorkingSet: error %lu",
				 (double)asked * s->page_size / (1u << 30),
				 (double)committed * s->page_size / (1u << 30), e1);
		}
	}
	/* PSS and USS where every resident page was listed: not from a
	 * QueryWorkingSetEx walk cut short, whose missing pages would read
	 * as a drop */
	if (s->mode != MW_WS_MODE_TOTALS && asked >= committed) {
		mw_ws_pages_pss(s->pages, s->npages, s->page_size, &s->pss_bytes, &s->uss_bytes);
		s->have_pss = true;
	}
	if (s->large_pages || s->large_bytes) {
		snprintf(note, sizeof(note), "%llu large pages, %.0f MB",
			 (unsigned long long)s->large_pages, (double)s->large_bytes / (1u << 20));
		why_add(s, note);
	}
	if (os->details)
		os->details(os->ctx, h, pid, self, s);
	os->close(os->ctx, h, self);
	return 0;
}
