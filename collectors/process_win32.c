/*
 * process_win32.c - the process table from one
 * NtQuerySystemInformation(SystemProcessInformation) call per tick.
 *
 * All processes come in one buffer, without opening any of them, so a
 * protected or vanished process costs nothing and needs no error path.
 * The buffer is kept and grown between ticks.  PSS/USS, on process_pss.c's
 * budget, are the one read that opens a process (QueryWorkingSet).
 */
#include "process.h"

#include <windows.h>
#include <psapi.h>
#include <winternl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "workingset.h"

/* Our offsets (process.h) must match the SDK's structure. */
_Static_assert(offsetof(SYSTEM_PROCESS_INFORMATION, ImageName) == MW_SPI_NAME_LEN, "ImageName");
_Static_assert(offsetof(SYSTEM_PROCESS_INFORMATION, UniqueProcessId) == MW_SPI_PID, "pid");
_Static_assert(offsetof(SYSTEM_PROCESS_INFORMATION, HandleCount) == MW_SPI_HANDLES, "handles");
#define VMC(f) (offsetof(SYSTEM_PROCESS_INFORMATION, VirtualMemoryCounters) + offsetof(VM_COUNTERS, f))
_Static_assert(VMC(VirtualSize) == MW_SPI_VIRTUAL, "vsize");
_Static_assert(VMC(PageFaultCount) == MW_SPI_PAGE_FAULTS, "faults");
_Static_assert(VMC(PeakWorkingSetSize) == MW_SPI_PEAK_WS, "peak");
_Static_assert(VMC(WorkingSetSize) == MW_SPI_WS, "ws");
_Static_assert(VMC(PagefileUsage) == MW_SPI_PAGEFILE, "pagefile");
_Static_assert(offsetof(SYSTEM_PROCESS_INFORMATION, CreateTime) == MW_SPI_CREATE_TIME, "ctime");
_Static_assert(offsetof(SYSTEM_PROCESS_INFORMATION, InheritedFromUniqueProcessId) == MW_SPI_PPID, "ppid");
_Static_assert(sizeof(SYSTEM_PROCESS_INFORMATION) == MW_SPI_SIZE, "size");
/* WorkingSetPrivateSize is the first LARGE_INTEGER of the SDK's Reserved[3]
 * (phnt: WorkingSetPrivateSize, HardFaultCount, NumberOfThreadsHighWatermark,
 * CycleTime, then CreateTime at 0x20). */
_Static_assert(offsetof(SYSTEM_PROCESS_INFORMATION, Reserved) == MW_SPI_PRIVATE_WS, "private ws");

#ifndef STATUS_INFO_LENGTH_MISMATCH
#define STATUS_INFO_LENGTH_MISMATCH ((NTSTATUS)0xC0000004L)
#endif

struct mw_process_reader {
	unsigned char *buf;
	ULONG size;
	/* PSS: QueryWorkingSet's entries (the count first), kept between
	 * reads up to WS_KEEP_ENTRIES, and the page size */
	ULONG_PTR *ws;
	size_t ws_entries;
	uint32_t page_size;
};

/* QueryWorkingSet's entries are read as mw_ws_blocks_pss's 64-bit ones. */
_Static_assert(sizeof(ULONG_PTR) == sizeof(uint64_t), "64-bit working-set entries");

/* A working-set buffer kept between PSS reads: 64 K entries (512 KB,
 * a 256 MB working set); a larger process's is freed after its read. */
#define WS_KEEP_ENTRIES 65536

struct mw_process_reader *mw_process_reader_new_at(const char *proc_root)
{
	(void)proc_root;
	return mw_process_reader_new();
}

/* The thin OS call: QueryWorkingSet into r->ws, grown while the process
 * has more entries than fit (the count comes back in the first entry).
 * 0 and the entries in *n (0: a working set trimmed empty), or the Win32
 * error. */
static DWORD query_working_set(struct mw_process_reader *r, HANDLE h, size_t *n)
{
	int tries;

	if (!r->ws) {
		r->ws_entries = 4096;
		r->ws = mw_xmalloc((r->ws_entries + 1) * sizeof(ULONG_PTR));
	}
	for (tries = 0; tries < 8; tries++) {
		size_t bytes = (r->ws_entries + 1) * sizeof(ULONG_PTR);
		DWORD e;

		if (bytes > MAXDWORD)
			return ERROR_BAD_LENGTH;
		if (QueryWorkingSet(h, r->ws, (DWORD)bytes)) {
			*n = r->ws[0] < r->ws_entries ? (size_t)r->ws[0] : r->ws_entries;
			return 0;
		}
		if ((e = GetLastError()) != ERROR_BAD_LENGTH)
			return e;
		/* pages come in between calls: ask for more than was needed */
		r->ws_entries = ((size_t)r->ws[0] > r->ws_entries ? (size_t)r->ws[0]
								  : r->ws_entries) * 5 / 4 + 256;
		free(r->ws);
		r->ws = mw_xmalloc((r->ws_entries + 1) * sizeof(ULONG_PTR));
	}
	return ERROR_BAD_LENGTH;
}

const char *mw_process_pss_source(void)
{
	return "QueryWorkingSet";
}

/* PSS and USS from the pages' share counts (mw_ws_blocks_pss): opening
 * the process and listing its working set is what the working-set
 * collector does for a watched one, here on process_pss.c's budget.  A
 * protected process, one gone, or Wine (QueryWorkingSet always fails
 * there, notes/wine.md) is 1: no figure. */
int mw_process_pss_read(struct mw_process_reader *r, uint32_t pid, uint64_t *pss,
			uint64_t *uss)
{
	HANDLE h = OpenProcess(PROCESS_QUERY_INFORMATION | PROCESS_VM_READ, FALSE, pid);
	size_t n = 0;
	DWORD e;

	if (!h)
		return 1;
	e = query_working_set(r, h, &n);
	CloseHandle(h);
	if (e == 0)
		mw_ws_blocks_pss((const uint64_t *)(r->ws + 1), n, r->page_size, pss, uss);
	if (r->ws_entries > WS_KEEP_ENTRIES) {
		free(r->ws);
		r->ws = NULL;
		r->ws_entries = 0;
	}
	return e == 0 ? 0 : 1;
}

struct mw_process_reader *mw_process_reader_new(void)
{
	struct mw_process_reader *r = mw_xcalloc(1, sizeof(*r));
	SYSTEM_INFO si;

	GetSystemInfo(&si);
	r->page_size = si.dwPageSize;
	r->size = 256 * 1024;
	r->buf = mw_xmalloc(r->size);
	return r;
}

void mw_process_reader_free(struct mw_process_reader *r)
{
	if (!r)
		return;
	free(r->buf);
	free(r->ws);
	free(r);
}

/* The thin OS call: fill r->buf, growing it while the kernel says it is
 * too small.  Returns the bytes written. */
static int query_processes(struct mw_process_reader *r, ULONG *used, struct mw_err *err)
{
	int tries;

	for (tries = 0; tries < 8; tries++) {
		ULONG need = 0;
		NTSTATUS st = NtQuerySystemInformation(SystemProcessInformation, r->buf,
						       r->size, &need);
		if (st == 0) {
			*used = need ? need : r->size;
			return 0;
		}
		if (st != STATUS_INFO_LENGTH_MISMATCH)
			return mw_error(err, "NtQuerySystemInformation(SystemProcessInformation) "
					"failed: status 0x%08lx", (unsigned long)st);
		/* Processes start between calls: ask for more than was needed. */
		r->size = (need > r->size ? need : r->size) * 2;
		r->buf = mw_xrealloc(r->buf, r->size);
	}
	return mw_error(err, "NtQuerySystemInformation: process list kept outgrowing %lu bytes",
			(unsigned long)r->size);
}

void mw_process_reader_set_cadence(struct mw_process_reader *r, int64_t status_ms,
				   int64_t handles_ms, int64_t stat_ms)
{
	(void)r;
	(void)status_ms;
	(void)handles_ms;	/* every figure comes with the one call */
	(void)stat_ms;
}

void mw_process_reader_set_fd_cap(struct mw_process_reader *r, size_t max_procs)
{
	(void)r;
	(void)max_procs;
}

void mw_process_reader_stats(const struct mw_process_reader *r,
			     struct mw_process_read_stats *out)
{
	(void)r;
	memset(out, 0, sizeof(*out));
}

int mw_process_table_read_at(struct mw_process_reader *r, struct mw_process_table *t,
			     int64_t now_ns, struct mw_err *err)
{
	(void)now_ns;
	return mw_process_table_read(r, t, err);
}

int mw_process_table_read(struct mw_process_reader *r, struct mw_process_table *t,
			  struct mw_err *err)
{
	ULONG used = 0;

	t->inaccessible = 0;
	if (query_processes(r, &used, err))
		return -1;
	if (used > r->size)
		used = r->size;
	return mw_spi_parse(r->buf, used, (uint64_t)(uintptr_t)r->buf, t, err);
}
