/*
 * workingset_win32.c - the raw facts behind a working-set sample, each
 * from one thin Win32/NT call:
 *   pages    QueryWorkingSet (buffer grown until it fits); if refused,
 *            QueryWorkingSetEx over every committed page; if refused
 *            too, GetProcessMemoryInfo totals only.  (Wine refuses
 *            QueryWorkingSet always and QueryWorkingSetEx except on the
 *            GetCurrentProcess() pseudo-handle: self gets the Ex mode.)
 *   regions  VirtualQueryEx (vmmap_win32.c's walk)
 *   names    GetMappedFileNameW per image/mapped allocation
 *   names    GetMappedFileNameW per image/mapped allocation, turned into
 *            a DOS path (QueryDosDeviceW of each drive letter)
 *   heaps    every process: the PEB's ProcessHeaps and each NT heap's
 *            segment list, read with ReadProcessMemory (peb_win32.c; no
 *            thread is created in the target); when that fails, own
 *            process: GetProcessHeaps (header allocation only), others:
 *            none, and why says "heaps: ..."
 *   stacks   mw_vm_stacks (vmmap_win32.c): each thread's TEB NT_TIB
 *            StackLimit/StackBase (WOW64: the 32-bit TEB's)
 * QueryWorkingSetEx asks about at most EX_MAX_PAGES pages; past that why
 * says "stopped after X GB of Y GB committed" and the stop is counted
 * (mw_ws_ex_truncations).
 * Names, heaps and stacks are read in every mode, totals included (the
 * snapshot always tells what each allocation is).
 */
#include "workingset.h"

#include <windows.h>
#include <psapi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "peb.h"

#define EX_CHUNK 4096
#define EX_MAX_PAGES (4u << 20)	/* 16 GB of committed memory at 4 KB */

static volatile LONG64 ex_truncations;

uint64_t mw_ws_ex_truncations(void)
{
	return (uint64_t)InterlockedCompareExchange64(&ex_truncations, 0, 0);
}

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

/* QueryWorkingSetEx over every committed page (at most EX_MAX_PAGES):
 * 0 or the Win32 error.  *asked / *committed: pages asked about / committed. */
static DWORD pages_ex(HANDLE h, struct mw_ws_snapshot *s, uint64_t *asked, uint64_t *committed)
{
	PSAPI_WORKING_SET_EX_INFORMATION *q = mw_xmalloc(EX_CHUNK * sizeof(*q));
	size_t k = 0, i, total = 0;
	DWORD err = 0;

	for (i = 0; i < s->regions.n && !err; i++) {
		const struct mw_vm_region *r = &s->regions.r[i];
		uint64_t a;

		if (r->state != MW_VM_COMMIT)
			continue;
		*committed += r->size / s->page_size;
		for (a = r->base; a < r->base + r->size && total < EX_MAX_PAGES; a += s->page_size) {
			q[k++].VirtualAddress = (PVOID)(uintptr_t)a;
			total++;
			if (k == EX_CHUNK) {
				if (!QueryWorkingSetEx(h, q, (DWORD)(k * sizeof(*q)))) {
					err = GetLastError();
					break;
				}
				for (size_t j = 0; j < k; j++) {
					struct mw_ws_page p;

					if (mw_ws_from_ex_block((uint64_t)(uintptr_t)q[j].VirtualAddress,
								q[j].VirtualAttributes.Flags, &p))
						add_page(s, p);
				}
				k = 0;
			}
		}
	}
	if (!err && k) {
		if (!QueryWorkingSetEx(h, q, (DWORD)(k * sizeof(*q))))
			err = GetLastError();
		for (size_t j = 0; !err && j < k; j++) {
			struct mw_ws_page p;

			if (mw_ws_from_ex_block((uint64_t)(uintptr_t)q[j].VirtualAddress,
						q[j].VirtualAttributes.Flags, &p))
				add_page(s, p);
		}
	}
	for (; i < s->regions.n; i++)	/* the rest, after an error */
		if (s->regions.r[i].state == MW_VM_COMMIT)
			*committed += s->regions.r[i].size / s->page_size;
	*asked = total;
	free(q);
	return err;
}

/* The NT device of each drive letter, as UTF-8 ("" when none). */
static void dos_devices(char dev[26][MAX_PATH * 3], const char *ptrs[26])
{
	for (int i = 0; i < 26; i++) {
		WCHAR drive[3] = { (WCHAR)('A' + i), L':', 0 }, w[MAX_PATH];

		dev[i][0] = '\0';
		ptrs[i] = dev[i];
		if (QueryDosDeviceW(drive, w, MAX_PATH) &&
		    !WideCharToMultiByte(CP_UTF8, 0, w, -1, dev[i], MAX_PATH * 3, NULL, NULL))
			dev[i][0] = '\0';
	}
}

static void names(HANDLE h, struct mw_ws_snapshot *s)
{
	uint64_t last = UINT64_MAX;
	size_t i;
	static char dev[26][MAX_PATH * 3];	/* only the collector thread reads */
	const char *ptrs[26];
	bool have_devices = false;

	for (i = 0; i < s->regions.n; i++) {
		const struct mw_vm_region *r = &s->regions.r[i];
		WCHAR w[MAX_PATH];
		char u[MAX_PATH * 3];

		if ((r->type != MW_VM_IMAGE && r->type != MW_VM_MAPPED) || r->alloc_base == last)
			continue;
		last = r->alloc_base;
		if (!GetMappedFileNameW(h, (LPVOID)(uintptr_t)r->alloc_base, w, MAX_PATH))
			continue;
		if (!WideCharToMultiByte(CP_UTF8, 0, w, -1, u, sizeof(u), NULL, NULL))
			continue;
		if (!have_devices) {
			dos_devices(dev, ptrs);
			have_devices = true;
		}
		MW_GROW(s->names, s->names_cap, s->nnames + 1);
		s->names[s->nnames].alloc_base = r->alloc_base;
		{
			char d[MAX_PATH * 3];

			s->names[s->nnames++].name =
				mw_xstrdup(mw_nt_to_dos_path(u, ptrs, d, sizeof(d)) ? d : u);
		}
	}
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

int mw_ws_read(uint32_t pid, bool self, struct mw_ws_snapshot *s, struct mw_err *err)
{
	HANDLE h;
	SYSTEM_INFO si;
	PROCESS_MEMORY_COUNTERS pmc;
	DWORD e1, e2;
	uint64_t asked = 0, committed = 0;
	size_t i;

	for (i = 0; i < s->nnames; i++)
		free((char *)s->names[i].name);
	s->npages = s->nnames = s->nheaps = s->nstacks = 0;
	s->why[0] = '\0';
	GetSystemInfo(&si);
	s->page_size = si.dwPageSize;
	/* Totals need only PROCESS_QUERY_LIMITED_INFORMATION, which a
	 * protected process grants: they come first, and a process that
	 * refuses more is read as totals only. */
	h = self ? GetCurrentProcess() : mw_process_open(pid, MW_NEED_TOTALS, err);
	if (!h)
		return 1;
	memset(&pmc, 0, sizeof(pmc));
	pmc.cb = sizeof(pmc);
	if (GetProcessMemoryInfo(h, &pmc, sizeof(pmc)))
		s->total_bytes = pmc.WorkingSetSize;
	if (!self) {
		struct mw_err oerr;
		HANDLE full;

		CloseHandle(h);
		full = mw_process_open(pid, MW_NEED_WORKING_SET | MW_NEED_REGIONS | MW_NEED_READ, &oerr);
		if (!full) {
			s->regions.n = 0;
			s->mode = MW_WS_MODE_TOTALS;
			snprintf(s->why, sizeof(s->why), "totals only: %s", oerr.msg);
			return 0;
		}
		h = full;
	}
	if (mw_vm_walk(pid, self, &s->regions, err)) {
		s->regions.n = 0;
		s->mode = MW_WS_MODE_TOTALS;
		snprintf(s->why, sizeof(s->why), "totals only: %s", err->msg);
		if (!self)
			CloseHandle(h);
		return 0;
	}
	s->mode = MW_WS_MODE_FULL;
	if ((e1 = pages_full(h, s)) != 0) {
		s->npages = 0;
		s->mode = MW_WS_MODE_EX;
		snprintf(s->why, sizeof(s->why), "QueryWorkingSet: error %lu", (unsigned long)e1);
		if ((e2 = pages_ex(h, s, &asked, &committed)) != 0) {
			s->npages = 0;
			s->mode = MW_WS_MODE_TOTALS;
			snprintf(s->why, sizeof(s->why), "QueryWorkingSet: error %lu, "
				 "QueryWorkingSetEx: error %lu", (unsigned long)e1, (unsigned long)e2);
		} else if (asked < committed) {
			/* First, so that a short mode line still shows it. */
			InterlockedIncrement64(&ex_truncations);
			snprintf(s->why, sizeof(s->why),
				 "stopped after %.0f GB of %.0f GB committed, QueryWorkingSet: error %lu",
				 (double)asked * s->page_size / (1u << 30),
				 (double)committed * s->page_size / (1u << 30), (unsigned long)e1);
		}
	}
	names(h, s);
	heaps_peb(h, self, s);
	stacks(pid, self, s);
	if (!self)
		CloseHandle(h);
	return 0;
}
