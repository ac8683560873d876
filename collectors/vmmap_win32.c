/*
 * vmmap_win32.c - one VirtualQueryEx walk over a process's user address
 * space.  For a WOW64 (32-bit) target the range is its 4 GB, or 2 GB when
 * its image is not large-address-aware (PE header read through the 32-bit
 * PEB), so the largest free block shows the 32-bit "DLL crunch".  Also the threads'
 * stacks: Toolhelp32 threads, NtQueryInformationThread -> TEB -> NT_TIB
 * StackBase/StackLimit through ReadProcessMemory.  A WOW64 thread's
 * 64-bit TEB describes the WOW64 thunk stack: its 32-bit stack is in the
 * 32-bit TEB at TEB64 + TEB64.WowTebOffset (0x180C; 0x2000 when 0), whose
 * NT_TIB32 is read instead (peb.c parses both); if that read fails the
 * 64-bit stack is reported.
 */
#include "vmmap.h"

#include <windows.h>
#include <tlhelp32.h>
#include <winternl.h>

#include "peb.h"

_Static_assert(MW_PROCESS_VM_READ == PROCESS_VM_READ, "vm read");
_Static_assert(MW_PROCESS_QUERY_INFORMATION == PROCESS_QUERY_INFORMATION, "qi");
_Static_assert(MW_PROCESS_QUERY_LIMITED_INFORMATION == PROCESS_QUERY_LIMITED_INFORMATION, "qli");
_Static_assert(MW_THREAD_QUERY_INFORMATION == THREAD_QUERY_INFORMATION, "tqi");
_Static_assert(MW_THREAD_QUERY_LIMITED_INFORMATION == THREAD_QUERY_LIMITED_INFORMATION, "tqli");

uint32_t mw_process_access_cap = 0xffffffffu;

void *mw_process_open(uint32_t pid, unsigned need, struct mw_err *err)
{
	uint32_t m = mw_process_access(need);
	HANDLE h;

	if ((m & mw_process_access_cap) != m) {
		SetLastError(ERROR_ACCESS_DENIED);
		h = NULL;
	} else {
		h = OpenProcess(m, FALSE, pid);
	}
	if (!h)
		mw_error(err, "OpenProcess(%lu, 0x%lx): Win32 error %lu", (unsigned long)pid,
			 (unsigned long)m, GetLastError());
	return h;
}

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
	HANDLE h = self ? GetCurrentProcess() : mw_process_open(pid, MW_NEED_REGIONS, err);
	SYSTEM_INFO si;
	MEMORY_BASIC_INFORMATION mbi;
	BOOL wow = FALSE;
	uint64_t addr, hi;

	v->n = 0;
	v->laa = -1;
	if (!h)
		return 1;
	GetSystemInfo(&si);
	v->lo = (uint64_t)(uintptr_t)si.lpMinimumApplicationAddress;
	hi = (uint64_t)(uintptr_t)si.lpMaximumApplicationAddress + 1;
	if (IsWow64Process(h, &wow) && wow) {
		/* 2 GB unless the image is large-address-aware */
		HANDLE rd = self ? GetCurrentProcess() : mw_process_open(pid, MW_NEED_READ, NULL);

		v->laa = rd ? mw_wow64_laa(rd) : -1;
		if (rd && !self)
			CloseHandle(rd);
		hi = mw_wow64_top(v->laa);
	}
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

typedef NTSTATUS(NTAPI *qit_fn)(HANDLE, THREADINFOCLASS, PVOID, ULONG, PULONG);
struct tbi {	/* THREAD_BASIC_INFORMATION */
	NTSTATUS ExitStatus;
	PVOID TebBaseAddress;
	CLIENT_ID ClientId;
	ULONG_PTR AffinityMask;
	LONG Priority, BasePriority;
};

/* The 32-bit stack of a WOW64 thread whose 64-bit TEB is at teb64. */
static bool stack32(HANDLE h, uint64_t teb64, uint32_t tid, struct mw_vm_ranges *out)
{
	unsigned char off[4], tib[12];
	SIZE_T got = 0;
	uint64_t teb32, lo, hi;
	size_t len = 0;

	if (ReadProcessMemory(h, (LPCVOID)(uintptr_t)(teb64 + MW_TEB64_WOW_TEB_OFFSET), off,
			      sizeof(off), &got) && got == sizeof(off))
		len = sizeof(off);
	teb32 = mw_teb32_address(off, len, teb64);
	got = 0;
	if (!teb32 || !ReadProcessMemory(h, (LPCVOID)(uintptr_t)teb32, tib, sizeof(tib), &got) ||
	    got != sizeof(tib) || !mw_tib32_stack(tib, sizeof(tib), &lo, &hi))
		return false;
	mw_vm_ranges_add(out, lo, hi - lo, tid);
	return true;
}

int mw_vm_stacks(uint32_t pid, bool self, struct mw_vm_ranges *out, struct mw_err *err)
{
	qit_fn qit = (qit_fn)(void (*)(void))GetProcAddress(GetModuleHandleA("ntdll.dll"),
							    "NtQueryInformationThread");
	HANDLE h, snap;
	THREADENTRY32 te;
	BOOL wow = FALSE;

	out->n = 0;
	if (!qit)
		return mw_error(err, "NtQueryInformationThread not found in ntdll");
	h = self ? GetCurrentProcess() : mw_process_open(pid, MW_NEED_READ, err);
	if (!h)
		return 1;
	snap = CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0);
	if (snap == INVALID_HANDLE_VALUE) {
		if (!self)
			CloseHandle(h);
		return mw_error(err, "CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD): Win32 error %lu",
				GetLastError());
	}
	if (!IsWow64Process(h, &wow))
		wow = FALSE;
	te.dwSize = sizeof(te);
	for (BOOL ok = Thread32First(snap, &te); ok; ok = Thread32Next(snap, &te)) {
		HANDLE th;
		struct tbi bi;
		ULONG_PTR tib[3];	/* ExceptionList, StackBase, StackLimit */
		SIZE_T got = 0;

		if (te.th32OwnerProcessID != pid)
			continue;
		th = OpenThread(mw_thread_access(), FALSE, te.th32ThreadID);
		if (!th)
			continue;
		if (qit(th, (THREADINFOCLASS)0, &bi, sizeof(bi), NULL) != 0) {
			CloseHandle(th);
			continue;
		}
		if (wow && stack32(h, (uint64_t)(uintptr_t)bi.TebBaseAddress, te.th32ThreadID, out)) {
			CloseHandle(th);
			continue;
		}
		if (ReadProcessMemory(h, bi.TebBaseAddress, tib, sizeof(tib), &got) &&
		    got == sizeof(tib) && tib[1] > tib[2])
			mw_vm_ranges_add(out, tib[2], tib[1] - tib[2], te.th32ThreadID);
		CloseHandle(th);
	}
	CloseHandle(snap);
	if (!self)
		CloseHandle(h);
	return 0;
}
