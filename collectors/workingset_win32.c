/*
 * workingset_win32.c - the raw facts behind a working-set sample, each
 * from one thin Win32/NT call; the order, the fallbacks and what a failed
 * call leaves absent are workingset_read.c's (mw_ws_read_with):
 *   totals   GetProcessMemoryInfo, on the handle opened for everything
 *            (QUERY_INFORMATION + VM_READ: what the call documents); a
 *            process that refuses that (protected) is opened with
 *            QUERY_LIMITED + VM_READ, then QUERY_LIMITED alone
 *   pages    QueryWorkingSet (buffer grown until it fits) plus
 *            QueryWorkingSetEx at each large-page-aligned address of
 *            committed private memory (QueryWorkingSet leaves large pages
 *            out); if refused, QueryWorkingSetEx over every committed
 *            page; if refused too, totals only.  (Wine refuses
 *            QueryWorkingSet always and QueryWorkingSetEx except on the
 *            GetCurrentProcess() pseudo-handle: self gets the Ex mode.)
 *   regions  VirtualQueryEx (vmmap_win32.c's walk)
 *   names    GetMappedFileNameW per image/mapped allocation (buffer grown
 *            until the name is whole), turned into a DOS path through the
 *            mount manager's global volume table (mapped_name_win32.c;
 *            why not per-letter QueryDosDeviceW: mapped_name.h)
 *   heaps    every process: the PEB's ProcessHeaps and each NT heap's
 *            segment list, read with ReadProcessMemory (peb_win32.c; no
 *            thread is created in the target); when that fails, own
 *            process: GetProcessHeaps (header allocation only), others:
 *            none, and why says "heaps: ..."
 *   stacks   mw_vm_stacks (vmmap_win32.c): each thread's TEB NT_TIB
 *            StackLimit/StackBase (WOW64: the 32-bit TEB's)
 * Names, heaps and stacks are read whenever the pages were.
 */
#include "workingset.h"

#include <windows.h>
#include <psapi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "mapped_name.h"
#include "peb.h"

_Static_assert(sizeof(struct mw_ws_ex_info) == sizeof(PSAPI_WORKING_SET_EX_INFORMATION),
	       "mw_ws_ex_info is PSAPI_WORKING_SET_EX_INFORMATION");
_Static_assert(offsetof(PSAPI_WORKING_SET_EX_INFORMATION, VirtualAttributes) ==
	       offsetof(struct mw_ws_ex_info, attrs), "attrs offset");

int mw_ws_supported(struct mw_err *why)
{
	(void)why;
	return 0;
}

static void add_page(struct mw_ws_snapshot *s, struct mw_ws_page p)
{
	MW_GROW(s->pages, s->cap, s->npages + 1);
	s->pages[s->npages++] = p;
}

/* QueryWorkingSet: 0, or the Win32 error. */
static DWORD pages_full(HANDLE h, struct mw_ws_snapshot *s)
{
	size_t n = 4096;
	ULONG_PTR *buf = NULL;
	int tries;

	for (tries = 0; tries < 8; tries++) {
		size_t bytes = (n + 1) * sizeof(ULONG_PTR), i;

		buf = mw_xrealloc(buf, bytes);
		if (QueryWorkingSet(h, buf, (DWORD)bytes)) {
			size_t cnt = buf[0] < n ? buf[0] : n;

			for (i = 0; i < cnt; i++)
				add_page(s, mw_ws_from_block(buf[1 + i]));
			free(buf);
			return 0;
		}
		if (GetLastError() != ERROR_BAD_LENGTH) {
			DWORD e = GetLastError();

			free(buf);
			return e;
		}
		/* buf[0] holds the count; pages arrive while we grow */
		n = (buf[0] > n ? buf[0] : n) + buf[0] / 8 + 1024;
	}
	free(buf);
	return ERROR_BAD_LENGTH;
}

/* The file behind each image/mapped allocation (mapped_name.h: the
 * mount manager's table, read once per process read when first needed). */
static void names(HANDLE h, struct mw_ws_snapshot *s)
{
	uint64_t last = UINT64_MAX;
	size_t i;
	struct mw_mount_table mounts = { 0 };
	bool have_mounts = false;

	for (i = 0; i < s->regions.n; i++) {
		const struct mw_vm_region *r = &s->regions.r[i];
		char *name;

		if ((r->type != MW_VM_IMAGE && r->type != MW_VM_MAPPED) || r->alloc_base == last)
			continue;
		last = r->alloc_base;
		if (!have_mounts) {
			mw_mount_table_read(&mounts);
			have_mounts = true;
		}
		name = mw_mapped_file_name(h, r->alloc_base, &mounts);
		if (!name)
			continue;
		MW_GROW(s->names, s->names_cap, s->nnames + 1);
		s->names[s->nnames].alloc_base = r->alloc_base;
		s->names[s->nnames++].name = name;
	}
	mw_mount_table_release(&mounts);
}

static void add_heap(struct mw_ws_snapshot *s, uint64_t base, uint64_t size, uint32_t id)
{
	MW_GROW(s->heaps, s->heaps_cap, s->nheaps + 1);
	s->heaps[s->nheaps].base = base;
	s->heaps[s->nheaps].size = size;
	s->heaps[s->nheaps++].id = id;
}

/* Append note to why ("; " between), as much as fits. */
static void why_add(struct mw_ws_snapshot *s, const char *note)
{
	size_t n = strlen(s->why);

	snprintf(s->why + n, sizeof(s->why) - n, "%s%s", n ? "; " : "", note);
}

static void heaps_self(struct mw_ws_snapshot *s)
{
	HANDLE hs[256];
	DWORD n = GetProcessHeaps(256, hs), i;

	for (i = 0; i < n && i < 256; i++) {
		MW_GROW(s->heaps, s->heaps_cap, s->nheaps + 1);
		s->heaps[s->nheaps].base = (uint64_t)(uintptr_t)hs[i];
		s->heaps[s->nheaps].size = 1;
		s->heaps[s->nheaps++].id = i;
	}
}

/* The heaps from the PEB; when unreadable, own process: GetProcessHeaps. */
static void heaps_peb(HANDLE h, bool self, struct mw_ws_snapshot *s)
{
	struct mw_vm_ranges r = { 0 };
	struct mw_peb_info info;
	struct mw_err err = { "" };
	size_t i;

	if (mw_peb_heap_ranges(h, s->page_size, &r, &info, &err) == 0 && r.n) {
		for (i = 0; i < r.n; i++)
			add_heap(s, r.r[i].base, r.r[i].size, r.r[i].id);
	} else if (self) {
		heaps_self(s);
	} else {
		char note[80];

		snprintf(note, sizeof(note), "heaps: %.70s", err.msg[0] ? err.msg : "none in PEB");
		why_add(s, note);
	}
	mw_vm_ranges_release(&r);
}

/* The stacks come from vmmap's reader (one thread walk for both). */
static void stacks(uint32_t pid, bool self, struct mw_ws_snapshot *s)
{
	struct mw_vm_ranges r = { 0 };
	size_t i;

	if (mw_vm_stacks(pid, self, &r, NULL) == 0) {
		for (i = 0; i < r.n; i++) {
			MW_GROW(s->stacks, s->stacks_cap, s->nstacks + 1);
			s->stacks[s->nstacks].base = r.r[i].base;
			s->stacks[s->nstacks].size = r.r[i].size;
			s->stacks[s->nstacks++].id = r.r[i].id;
		}
	}
	mw_vm_ranges_release(&r);
}

/* --- the thin calls behind mw_ws_read_with ------------------------------ */

static void *os_open(void *ctx, uint32_t pid, bool self, unsigned need, struct mw_err *err)
{
	(void)ctx;
	return self ? GetCurrentProcess() : mw_process_open(pid, need, err);
}

static void os_close(void *ctx, void *h, bool self)
{
	(void)ctx;
	if (!self)
		CloseHandle(h);
}

static unsigned long os_memory_info(void *ctx, void *h, uint64_t *bytes)
{
	PROCESS_MEMORY_COUNTERS pmc;

	(void)ctx;
	memset(&pmc, 0, sizeof(pmc));
	pmc.cb = sizeof(pmc);
	if (!GetProcessMemoryInfo(h, &pmc, sizeof(pmc)))
		return GetLastError() ? GetLastError() : ERROR_GEN_FAILURE;
	*bytes = pmc.WorkingSetSize;
	return 0;
}

static int os_walk(void *ctx, uint32_t pid, bool self, struct mw_vm_regions *v, struct mw_err *err)
{
	(void)ctx;
	return mw_vm_walk(pid, self, v, err);
}

static unsigned long os_pages_full(void *ctx, void *h, struct mw_ws_snapshot *s)
{
	(void)ctx;
	return pages_full(h, s);
}

static unsigned long os_query_ex(void *ctx, void *h, struct mw_ws_ex_info *q, size_t n)
{
	(void)ctx;
	/* same layout (asserted above): the OS fills the array in place */
	if (!QueryWorkingSetEx(h, q, (DWORD)(n * sizeof(*q))))
		return GetLastError() ? GetLastError() : ERROR_GEN_FAILURE;
	return 0;
}

static void os_details(void *ctx, void *h, uint32_t pid, bool self, struct mw_ws_snapshot *s)
{
	(void)ctx;
	names(h, s);
	heaps_peb(h, self, s);
	stacks(pid, self, s);
}

int mw_ws_read(uint32_t pid, bool self, struct mw_ws_snapshot *s, struct mw_err *err)
{
	SYSTEM_INFO si;
	struct mw_ws_os os = {
		.open = os_open, .close = os_close, .memory_info = os_memory_info,
		.walk = os_walk, .pages_full = os_pages_full, .query_ex = os_query_ex,
		.details = os_details,
	};

	GetSystemInfo(&si);
	os.page_size = si.dwPageSize;
	os.large_page_size = GetLargePageMinimum();
	return mw_ws_read_with(&os, pid, self, s, err);
}
