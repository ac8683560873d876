/*
 * peb_win32.c - another process's heaps without a thread in it:
 * NtQueryInformationProcess(ProcessBasicInformation) -> PebBaseAddress,
 * ReadProcessMemory of the PEB's heap fields and ProcessHeaps array, then
 * of each heap's header and segment list.  For a WOW64 process also
 * NtQueryInformationProcess(ProcessWow64Information) -> the 32-bit PEB and
 * its heaps beside the 64-bit ones.  Every byte read is interpreted by
 * peb.c (pure): mw_process_heaps walks both sides.
 */
#include "peb.h"

#include <windows.h>
#include <winternl.h>
#include <string.h>

typedef NTSTATUS(NTAPI *qip_fn)(HANDLE, PROCESSINFOCLASS, PVOID, ULONG, PULONG);

static bool rpm(void *ctx, uint64_t addr, void *buf, size_t len)
{
	SIZE_T got = 0;

	return ReadProcessMemory((HANDLE)ctx, (LPCVOID)(uintptr_t)addr, buf, len, &got) &&
	       got == len;
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

	memset(info, 0, sizeof(*info));
	if (!qip)
		return mw_error(err, "NtQueryInformationProcess not in ntdll"), 1;
	memset(&pbi, 0, sizeof(pbi));
	st = qip(h, ProcessBasicInformation, &pbi, sizeof(pbi), NULL);
	if (st != 0 || !pbi.PebBaseAddress)
		return mw_error(err, "ProcessBasicInformation: status 0x%08lx", (unsigned long)st),
		       1;
	/* A WOW64 process: its 32-bit PEB too */
	if (qip(h, ProcessWow64Information, &peb32, sizeof(peb32), NULL) != 0)
		peb32 = 0;
	if (mw_process_heaps(rpm, h, (uint64_t)(uintptr_t)pbi.PebBaseAddress, (uint64_t)peb32,
			     page_size, out, info, err))
		return 1;
	return 0;
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
