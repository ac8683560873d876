/*
 * vmmap_win32.c - one VirtualQueryEx walk over a process's user address
 * space.  For a WOW64 (32-bit) target the range is its 4 GB, so the
 * largest free block shows the 32-bit "DLL crunch".
 */
#include "vmmap.h"

#include <windows.h>

static int map_type(DWORD t)
{
	switch (t) {
	case MEM_IMAGE:
		return MW_VM_IMAGE;
	case MEM_MAPPED:
		return MW_VM_MAPPED;
	case MEM_PRIVATE:
		return MW_VM_PRIVATE;
	default:
		return MW_VM_NONE;
	}
}

int mw_vm_walk(uint32_t pid, bool self, struct mw_vm_regions *v, struct mw_err *err)
{
	HANDLE h = self ? GetCurrentProcess()
			: OpenProcess(PROCESS_QUERY_INFORMATION | PROCESS_VM_READ, FALSE, pid);
	SYSTEM_INFO si;
	MEMORY_BASIC_INFORMATION mbi;
	BOOL wow = FALSE;
	uint64_t addr, hi;

	v->n = 0;
	if (!h)
		return mw_error(err, "OpenProcess(%lu): Win32 error %lu", (unsigned long)pid,
				GetLastError()), 1;
	GetSystemInfo(&si);
	v->lo = (uint64_t)(uintptr_t)si.lpMinimumApplicationAddress;
	hi = (uint64_t)(uintptr_t)si.lpMaximumApplicationAddress + 1;
	if (IsWow64Process(h, &wow) && wow)
		hi = 0x100000000ULL;
	v->hi = hi;
	v->wow64 = wow != FALSE;
	for (addr = v->lo; addr < hi;) {
		if (VirtualQueryEx(h, (LPCVOID)(uintptr_t)addr, &mbi, sizeof(mbi)) != sizeof(mbi))
			break;	/* past the last region */
		if (mbi.RegionSize == 0)
			break;
		mw_vm_regions_add(v, (uint64_t)(uintptr_t)mbi.BaseAddress, mbi.RegionSize,
				  (uint64_t)(uintptr_t)mbi.AllocationBase,
				  mbi.State == MEM_COMMIT ? MW_VM_COMMIT
				  : mbi.State == MEM_RESERVE ? MW_VM_RESERVE : MW_VM_FREE,
				  mbi.State == MEM_FREE ? MW_VM_NONE : map_type(mbi.Type), mbi.Protect);
		addr = (uint64_t)(uintptr_t)mbi.BaseAddress + mbi.RegionSize;
	}
	if (!self)
		CloseHandle(h);
	if (v->n == 0)
		return mw_error(err, "VirtualQueryEx(%lu): Win32 error %lu", (unsigned long)pid,
				GetLastError()), 1;
	return 0;
}
