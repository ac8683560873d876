/*
 * peb_win32.c - another process's heaps without a thread in it:
 * NtQueryInformationProcess(ProcessBasicInformation) -> PebBaseAddress,
 * ReadProcessMemory of the PEB's heap fields and ProcessHeaps array, then
 * of each heap's header and segment list.  For a WOW64 process also
 * NtQueryInformationProcess(ProcessWow64Information) -> the 32-bit PEB and
 * its heaps.  Every byte read is interpreted by peb.c (pure).
 */
#include "peb.h"

#include <windows.h>
#include <winternl.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

typedef NTSTATUS(NTAPI *qip_fn)(HANDLE, PROCESSINFOCLASS, PVOID, ULONG, PULONG);

static bool rpm(void *ctx, uint64_t addr, void *buf, size_t len)
{
	SIZE_T got = 0;

	return ReadProcessMemory((HANDLE)ctx, (LPCVOID)(uintptr_t)addr, buf, len, &got) &&
	       got == len;
}

/* The heaps listed in one PEB at addr. */
static int one_peb(HANDLE h, uint64_t addr, bool is32, uint32_t page_size, uint32_t id0,
		   struct mw_vm_ranges *out, struct mw_peb_info *info, struct mw_err *err)
{
	unsigned char peb[MW_PEB64_READ];
	size_t need = is32 ? MW_PEB32_READ : MW_PEB64_READ, w = is32 ? 4 : 8;
	struct mw_peb_heaps ph;
	unsigned char *arr;
	uint32_t i;
	bool listed;

	if (!rpm(h, addr, peb, need))
		return mw_error(err, "PEB at 0x%llx: ReadProcessMemory: Win32 error %lu",
				(unsigned long long)addr, GetLastError()), 1;
	if (mw_peb_parse(peb, need, is32, &ph, err))
		return 1;
	listed = ph.nheaps != 0;
	if (!listed) {
		/* Wine: no list in the PEB, but ProcessHeap and its own list */
		uint64_t hs[64];
		size_t n = is32 ? 0 : mw_wine_heaps(rpm, h, ph.process_heap, hs, 64);

		if (n)
			info->wine_list = true;
		arr = mw_xmalloc(n * 8 + 8);
		for (i = 0; i < n; i++)
			for (size_t b = 0; b < 8; b++)
				arr[i * 8 + b] = (unsigned char)(hs[i] >> (8 * b));
		ph.nheaps = (uint32_t)n;
	} else {
		arr = mw_xmalloc(ph.nheaps * w);
	}
	if (listed && !rpm(h, ph.heaps_array, arr, ph.nheaps * w)) {
		free(arr);
		return mw_error(err, "PEB ProcessHeaps: ReadProcessMemory: Win32 error %lu",
				GetLastError()), 1;
	}
	for (i = 0; i < ph.nheaps; i++) {
		struct mw_heap_walk hw;

		mw_heap_walk(rpm, h, mw_peb_ptr(arr, ph.nheaps * w, i * w, is32), is32, page_size,
			     id0 + i, out, &hw);
		info->heaps++;
		info->nt += hw.layout == MW_HEAP_LAYOUT_NT;
		info->segment += hw.layout == MW_HEAP_LAYOUT_SEGMENT;
		info->unknown += hw.layout == MW_HEAP_LAYOUT_UNKNOWN;
		info->wine += hw.layout == MW_HEAP_LAYOUT_WINE;
		info->segments += hw.segments;
		info->large += hw.large;
		info->truncated += hw.truncated;
		if (hw.layout == MW_HEAP_LAYOUT_SEGMENT) {
			info->segment_header_only += hw.header_only;
			info->segment_partial += hw.truncated && !hw.header_only;
		}
	}
	free(arr);
	return 0;
}

int mw_peb_heap_ranges(void *process, uint32_t page_size, struct mw_vm_ranges *out,
		       struct mw_peb_info *info, struct mw_err *err)
{
	qip_fn qip = (qip_fn)(void (*)(void))GetProcAddress(GetModuleHandleA("ntdll.dll"),
							    "NtQueryInformationProcess");
	HANDLE h = process;
	PROCESS_BASIC_INFORMATION pbi;
	ULONG_PTR peb32 = 0;
	NTSTATUS st;
	int rc;

	memset(info, 0, sizeof(*info));
	if (!qip)
		return mw_error(err, "NtQueryInformationProcess not in ntdll"), 1;
	memset(&pbi, 0, sizeof(pbi));
	st = qip(h, ProcessBasicInformation, &pbi, sizeof(pbi), NULL);
	if (st != 0 || !pbi.PebBaseAddress)
		return mw_error(err, "ProcessBasicInformation: status 0x%08lx", (unsigned long)st),
		       1;
	/* A WOW64 process: its 32-bit PEB holds the heaps its code uses. */
	if (qip(h, ProcessWow64Information, &peb32, sizeof(peb32), NULL) == 0 && peb32) {
		info->wow64 = true;
		if ((rc = one_peb(h, peb32, true, page_size, 0, out, info, err)) != 0)
			return rc;
	}
	return one_peb(h, (uint64_t)(uintptr_t)pbi.PebBaseAddress, false, page_size,
		       info->wow64 ? 0x10000 : 0, out, info, err);
}

int mw_wow64_laa(void *process)
{
	qip_fn qip = (qip_fn)(void (*)(void))GetProcAddress(GetModuleHandleA("ntdll.dll"),
							    "NtQueryInformationProcess");
	ULONG_PTR peb32 = 0;
	unsigned char base[4], hdr[MW_PE_HEADER_READ];
	uint64_t image;

	if (!qip || qip((HANDLE)process, ProcessWow64Information, &peb32, sizeof(peb32), NULL) ||
	    !peb32 || !rpm(process, (uint64_t)peb32 + MW_PEB32_IMAGE_BASE, base, sizeof(base)))
		return -1;
	image = mw_peb_ptr(base, sizeof(base), 0, true);
	if (!image || !rpm(process, image, hdr, sizeof(hdr)))
		return -1;
	return mw_pe_large_address_aware(hdr, sizeof(hdr));
}
