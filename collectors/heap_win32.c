/*
 * heap_win32.c - the heaps of a process.
 *
 * Own process: GetProcessHeaps + HeapWalk, each heap locked while walked.
 *
 * Other processes: RtlQueryProcessDebugInformation(RTL_QUERY_PROCESS_HEAP_
 * SUMMARY) runs a thread inside the target and waits for it, so:
 *   - never on a process whose threads are all suspended (their states
 *     from NtQuerySystemInformation(SystemProcessInformation)): the call
 *     would wait for ever;
 *   - in a worker thread, waited for time_limit_ms.  A worker that does
 *     not finish is left to finish on its own (it owns half of its job and
 *     frees it when done: nothing it touches belongs to the reader) and
 *     the target is held back for backoff_ms.  At most MAX_STUCK such
 *     workers at a time; then no new remote query starts.
 * The prototypes and the RTL_DEBUG_INFORMATION layout are declared here
 * (x64, after phnt); ntdll's functions are looked up at run time.  What the
 * buffer holds is read by mw_heap_parse_debug_info (heap_parse.c), pure.
 */
#include "heap.h"

#include <windows.h>
#include <winternl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/xalloc.h"
#include "peb.h"
#include "base/thread_name.h"

_Static_assert(PROCESS_HEAP_ENTRY_BUSY == MW_HEAP_ENTRY_BUSY, "busy");
_Static_assert(PROCESS_HEAP_REGION == MW_HEAP_REGION, "region");
_Static_assert(PROCESS_HEAP_UNCOMMITTED_RANGE == MW_HEAP_UNCOMMITTED_RANGE, "uncommitted");
_Static_assert((PAGE_READWRITE | PAGE_WRITECOPY | PAGE_EXECUTE_READWRITE |
		PAGE_EXECUTE_WRITECOPY) == MW_PAGE_WRITABLE, "writable");
_Static_assert(offsetof(SYSTEM_THREAD_INFORMATION, ClientId) + sizeof(HANDLE) == MW_STI_TID, "tid");
_Static_assert(offsetof(SYSTEM_THREAD_INFORMATION, ThreadState) == MW_STI_STATE, "state");
_Static_assert(offsetof(SYSTEM_THREAD_INFORMATION, WaitReason) == MW_STI_WAIT_REASON, "wait");
_Static_assert(sizeof(SYSTEM_THREAD_INFORMATION) == MW_STI_SIZE, "sti size");

/* ntrtl.h (phnt), x64 */
struct rtl_debug_information {
	HANDLE SectionHandleClient;
	PVOID ViewBaseClient, ViewBaseTarget;
	ULONG_PTR ViewBaseDelta;
	HANDLE EventPairClient, EventPairTarget, TargetProcessId, TargetThreadHandle;
	ULONG Flags;
	SIZE_T OffsetFree, CommitSize, ViewSize;
	PVOID Modules, BackTraces, Heaps, Locks, SpecificHeap;
	HANDLE TargetProcessHandle;
	PVOID VerifierOptions, ProcessHeap;
	HANDLE CriticalSectionHandle, CriticalSectionOwnerThread;
	PVOID Reserved[4];
};
struct rtl_heap_information_v1 {
	PVOID BaseAddress;
	ULONG Flags;
	USHORT EntryOverhead, CreatorBackTraceIndex;
	SIZE_T BytesAllocated, BytesCommitted;
	ULONG NumberOfTags, NumberOfEntries, NumberOfPseudoTags, PseudoTagGranularity;
	ULONG Reserved[5];
	PVOID Tags, Entries;
};
struct rtl_process_heaps_v1 {
	ULONG NumberOfHeaps;
	struct rtl_heap_information_v1 Heaps[1];
};
_Static_assert(offsetof(struct rtl_debug_information, CommitSize) == MW_RDI_COMMIT_SIZE, "commit");
_Static_assert(offsetof(struct rtl_debug_information, ViewSize) == MW_RDI_VIEW_SIZE, "view");
_Static_assert(offsetof(struct rtl_debug_information, Heaps) == MW_RDI_HEAPS, "heaps");
_Static_assert(sizeof(struct rtl_debug_information) == MW_RDI_SIZE, "rdi size");
_Static_assert(offsetof(struct rtl_process_heaps_v1, Heaps) == MW_RPH_HEAPS, "rph");
_Static_assert(offsetof(struct rtl_heap_information_v1, EntryOverhead) == MW_RHI_ENTRY_OVERHEAD, "eo");
_Static_assert(offsetof(struct rtl_heap_information_v1, BytesAllocated) == MW_RHI_BYTES_ALLOCATED, "ba");
_Static_assert(offsetof(struct rtl_heap_information_v1, BytesCommitted) == MW_RHI_BYTES_COMMITTED, "bc");
_Static_assert(offsetof(struct rtl_heap_information_v1, NumberOfEntries) == MW_RHI_NUMBER_OF_ENTRIES, "ne");
_Static_assert(sizeof(struct rtl_heap_information_v1) == MW_RHI_SIZE_V1, "rhi size");

#define RTL_QUERY_PROCESS_HEAP_SUMMARY 0x00000004
#define MW_STATUS_NO_MEMORY ((NTSTATUS)0xC0000017L)
#define MW_STATUS_INFO_LENGTH_MISMATCH ((NTSTATUS)0xC0000004L)
#define MAX_STUCK 4
#define MAX_DEBUG_BUFFER (64u << 20)

typedef struct rtl_debug_information *(NTAPI *create_buffer_fn)(ULONG, BOOLEAN);
typedef NTSTATUS(NTAPI *query_debug_fn)(HANDLE, ULONG, struct rtl_debug_information *);
typedef NTSTATUS(NTAPI *destroy_buffer_fn)(struct rtl_debug_information *);
typedef NTSTATUS(NTAPI *get_version_fn)(RTL_OSVERSIONINFOW *);

int mw_heap_supported(struct mw_err *why)
{
	(void)why;
	return 0;
}


int mw_heap_bar_read(uint32_t pid, struct mw_heap_breakdown *out, struct mw_err *err)
{
	(void)pid;
	memset(out, 0, sizeof(*out));
	return mw_error(err, "the heap bar from smaps is Linux's");
}

/* --- own process ---------------------------------------------------------- */

static volatile LONG64 remote_queries, walk_truncations;

uint64_t mw_heap_remote_queries(void)
{
	return (uint64_t)InterlockedCompareExchange64(&remote_queries, 0, 0);
}

uint64_t mw_heap_walk_truncations(void)
{
	return (uint64_t)InterlockedCompareExchange64(&walk_truncations, 0, 0);
}

/* The CRT's heap (msvcrt: its own heap on old releases; UCRT: the process
 * heap), NULL when the CRT does not say. */
static HANDLE crt_heap(void)
{
	typedef intptr_t(__cdecl *ghh_fn)(void);
	static const char *const crts[] = { "ucrtbase.dll", "msvcrt.dll" };

	for (size_t i = 0; i < MW_ARRAY_SIZE(crts); i++) {
		HMODULE m = GetModuleHandleA(crts[i]);
		ghh_fn f = m ? (ghh_fn)(void (*)(void))GetProcAddress(m, "_get_heap_handle") : NULL;

		if (f)
			return (HANDLE)f();
	}
	return NULL;
}

/* Walk one heap under HeapLock, at most max_entries entries and about
 * max_ms (checked every 256 entries). */
static void walk_one(HANDLE heap, uint32_t max_entries, int64_t max_ms, struct mw_heap_totals *t)
{
	PROCESS_HEAP_ENTRY e;
	int64_t stop = mw_clock_mono_ns() + max_ms * 1000000;
	uint32_t n = 0;

	memset(&e, 0, sizeof(e));
	if (!HeapLock(heap))
		return;
	while (HeapWalk(heap, &e)) {
		mw_heap_account(t, e.wFlags, e.cbData, e.cbOverhead,
				(e.wFlags & PROCESS_HEAP_REGION) ? e.Region.dwCommittedSize : 0,
				(e.wFlags & PROCESS_HEAP_REGION) ? e.Region.dwUnCommittedSize : 0);
		if (++n >= max_entries || ((n & 255) == 0 && mw_clock_mono_ns() >= stop)) {
			t->truncated = true;
			break;
		}
	}
	HeapUnlock(heap);
	if (t->truncated)
		InterlockedIncrement64(&walk_truncations);
}

/* Own process: only the process heap and the CRT heap, which live as long
 * as the process; other heaps (GetProcessHeaps) may be destroyed by their
 * owner while walked and are not touched. */
static int read_self(const struct mw_heap_reader_opts *o, struct mw_heap_list *out,
		     struct mw_err *err)
{
	HANDLE hs[2];
	size_t n = 0, i;

	hs[n] = GetProcessHeap();
	if (!hs[n])
		return mw_error(err, "GetProcessHeap: Win32 error %lu", GetLastError());
	n++;
	hs[n] = crt_heap();
	if (hs[n] && hs[n] != hs[0])
		n++;
	for (i = 0; i < n; i++) {
		struct mw_heap_totals *t;

		MW_GROW(out->h, out->cap, out->n + 1);
		t = &out->h[out->n++];
		memset(t, 0, sizeof(*t));
		t->base = (uint64_t)(uintptr_t)hs[i];
		walk_one(hs[i], o->walk_max_entries, o->walk_max_ms, t);
	}
	return 0;
}

/* --- other processes: the thin calls -------------------------------------- */

/* Bytes readable from p: the committed regions that follow on from it,
 * at most max. */
static size_t readable_from(const unsigned char *p, size_t max)
{
	const unsigned char *at = p;
	MEMORY_BASIC_INFORMATION mbi;

	while ((size_t)(at - p) < max && VirtualQuery(at, &mbi, sizeof(mbi)) == sizeof(mbi) &&
	       mbi.State == MEM_COMMIT && !(mbi.Protect & (PAGE_NOACCESS | PAGE_GUARD)))
		at = (const unsigned char *)mbi.BaseAddress + mbi.RegionSize;
	return (size_t)(at - p) < max ? (size_t)(at - p) : max;
}

static uint32_t windows_build(void)
{
	get_version_fn gv = (get_version_fn)(void (*)(void))GetProcAddress(
		GetModuleHandleA("ntdll.dll"), "RtlGetVersion");
	RTL_OSVERSIONINFOW vi;

	memset(&vi, 0, sizeof(vi));
	vi.dwOSVersionInfoSize = sizeof(vi);
	if (!gv || gv(&vi) != 0)
		return 0;
	return vi.dwBuildNumber;
}

/* The default remote query (runs in the worker; touches nothing shared). */
static int rtl_remote(uint32_t pid, struct mw_heap_list *out, struct mw_err *err, void *arg)
{
	HMODULE nt = GetModuleHandleA("ntdll.dll");
	create_buffer_fn create = (create_buffer_fn)(void (*)(void))GetProcAddress(
		nt, "RtlCreateQueryDebugBuffer");
	query_debug_fn query = (query_debug_fn)(void (*)(void))GetProcAddress(
		nt, "RtlQueryProcessDebugInformation");
	destroy_buffer_fn destroy = (destroy_buffer_fn)(void (*)(void))GetProcAddress(
		nt, "RtlDestroyQueryDebugBuffer");
	ULONG size;

	(void)arg;
	if (!create || !query || !destroy)
		return mw_error(err, "RtlQueryProcessDebugInformation is not in ntdll"), 1;
	for (size = 0x10000; size <= MAX_DEBUG_BUFFER; size *= 2) {
		struct rtl_debug_information *buf = create(size, FALSE);
		NTSTATUS st;
		int rc;

		if (!buf)
			return mw_error(err, "RtlCreateQueryDebugBuffer(%lu) failed",
					(unsigned long)size), 1;
		st = query((HANDLE)(uintptr_t)pid, RTL_QUERY_PROCESS_HEAP_SUMMARY, buf);
		if (st == MW_STATUS_NO_MEMORY) {
			destroy(buf);
			continue;
		}
		if (st != 0) {
			destroy(buf);
			return mw_error(err, "RtlQueryProcessDebugInformation(%lu): status 0x%08lx",
					(unsigned long)pid, (unsigned long)st), 1;
		}
		rc = mw_heap_parse_debug_info((const unsigned char *)buf,
					      readable_from((const unsigned char *)buf, size),
					      (uint64_t)(uintptr_t)buf,
					      mw_heap_info_stride(windows_build()), out, err);
		destroy(buf);
		return rc == 1 ? MW_HEAP_REMOTE_NONE : rc ? 1 : 0;
	}
	return mw_error(err, "RtlQueryProcessDebugInformation(%lu): needs more than %u bytes",
			(unsigned long)pid, MAX_DEBUG_BUFFER), 1;
}

/* SystemProcessInformation into *buf (grown as needed): 0 and the bytes
 * written, or -1. */
static int query_processes(unsigned char **buf, ULONG *size, ULONG *used, struct mw_err *err)
{
	for (int tries = 0; tries < 8; tries++) {
		ULONG need = 0;
		NTSTATUS st = NtQuerySystemInformation(SystemProcessInformation, *buf, *size, &need);

		if (st == 0) {
			*used = need && need <= *size ? need : *size;
			return 0;
		}
		if (st != MW_STATUS_INFO_LENGTH_MISMATCH)
			return mw_error(err, "NtQuerySystemInformation(SystemProcessInformation): "
					"status 0x%08lx", (unsigned long)st);
		*size = (need > *size ? need : *size) * 2;
		*buf = mw_xrealloc(*buf, *size);
	}
	return mw_error(err, "NtQuerySystemInformation: process list kept outgrowing %lu bytes",
			(unsigned long)*size);
}

/* --- the reader ----------------------------------------------------------- */

/* One remote query.  Two references: the reader's and the worker's; the
 * last one to let go frees it. */
struct job {
	volatile LONG refs;
	uint32_t pid;
	mw_heap_remote_fn fn;
	void *arg;
	int rc;
	struct mw_err err;
	struct mw_heap_list heaps;
	HANDLE thread;		/* kept while stuck */
};

static void job_put(struct job *j)
{
	if (InterlockedDecrement(&j->refs) == 0) {
		free(j->heaps.h);
		free(j);
	}
}

static DWORD WINAPI job_run(LPVOID p)
{
	struct job *j = p;

	mw_thread_set_name("mw-heapwalk");
	j->rc = j->fn(j->pid, &j->heaps, &j->err, j->arg);
	job_put(j);
	return 0;
}

struct mw_heap_reader {
	struct mw_heap_reader_opts opts;
	struct job **stuck;
	size_t nstuck, stuck_cap;
	struct mw_heap_backoff backoff;
	unsigned char *spi;
	ULONG spi_size;
	struct mw_vm_regions regions;	/* the PEB path's region map */
	struct mw_vm_ranges ranges;	/* and heap ranges */
	struct mw_heap_notes notes;	/* of the last mw_heap_read */
	struct mw_vm_regions bar_regions;	/* the bar's region map */
	struct mw_vm_ranges bar_stacks;		/* and thread stacks */
};

/* 1 when pid is a WOW64 process, 0 when not, -1 when it cannot be told. */
static int is_wow64(uint32_t pid, void *arg)
{
	HANDLE h = mw_process_open(pid, MW_NEED_TOTALS, NULL);
	BOOL wow = FALSE;
	int rc;

	(void)arg;
	if (!h)
		return -1;
	rc = IsWow64Process(h, &wow) ? wow != FALSE : -1;
	CloseHandle(h);
	return rc;
}

struct mw_heap_reader *mw_heap_reader_new(const struct mw_heap_reader_opts *opts)
{
	struct mw_heap_reader *r = mw_xcalloc(1, sizeof(*r));

	if (opts)
		r->opts = *opts;
	if (r->opts.time_limit_ms <= 0)
		r->opts.time_limit_ms = 2000;
	if (r->opts.backoff_ms <= 0)
		r->opts.backoff_ms = 300000;
	if (r->opts.walk_max_entries == 0)
		r->opts.walk_max_entries = MW_HEAP_WALK_MAX_ENTRIES;
	if (r->opts.walk_max_ms <= 0)
		r->opts.walk_max_ms = MW_HEAP_WALK_MAX_MS;
	if (!r->opts.wow64_of)
		r->opts.wow64_of = is_wow64;
	if (r->opts.remote)
		r->opts.remote_summary = true;	/* a query given is a query meant */
	else
		r->opts.remote = rtl_remote;
	r->spi_size = 256 * 1024;
	r->spi = mw_xmalloc(r->spi_size);
	return r;
}

size_t mw_heap_reader_reap(struct mw_heap_reader *r, uint32_t wait_ms)
{
	size_t i = 0;

	if (wait_ms && r->nstuck) {
		HANDLE hs[MAX_STUCK];

		for (i = 0; i < r->nstuck; i++)
			hs[i] = r->stuck[i]->thread;
		WaitForMultipleObjects((DWORD)r->nstuck, hs, TRUE, wait_ms);
	}
	i = 0;
	while (i < r->nstuck) {
		struct job *j = r->stuck[i];

		if (WaitForSingleObject(j->thread, 0) != WAIT_OBJECT_0) {
			i++;
			continue;
		}
		CloseHandle(j->thread);
		job_put(j);
		r->stuck[i] = r->stuck[--r->nstuck];
	}
	return r->nstuck;
}

void mw_heap_reader_free(struct mw_heap_reader *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nstuck; i++) {
		CloseHandle(r->stuck[i]->thread);
		job_put(r->stuck[i]);	/* a worker still running frees it */
	}
	free(r->stuck);
	mw_heap_backoff_release(&r->backoff);
	free(r->spi);
	mw_vm_regions_release(&r->regions);
	mw_vm_ranges_release(&r->ranges);
	mw_vm_regions_release(&r->bar_regions);
	mw_vm_ranges_release(&r->bar_stacks);
	free(r);
}

static int64_t now_ms(void)
{
	return mw_clock_mono_ns() / 1000000;
}

static int read_remote(struct mw_heap_reader *r, uint32_t pid, struct mw_heap_list *out,
		       bool *unavailable, struct mw_err *err)
{
	struct mw_heap_proc_state ps;
	const struct mw_heap_held *held;
	struct job *j;
	ULONG used = 0;
	DWORD w;
	int rc;

	if (query_processes(&r->spi, &r->spi_size, &used, err) ||
	    mw_heap_spi_find(r->spi, used, pid, &ps, err))
		return -1;
	if (!ps.found)
		return mw_error(err, "heap: pid %lu is gone", (unsigned long)pid), 1;
	if (ps.threads == 0)
		return mw_error(err, "heap: pid %lu has no threads (exiting)", (unsigned long)pid), 1;
	if (ps.suspended == ps.threads)
		return mw_error(err, "heap: pid %lu is suspended (%lu threads): not queried",
				(unsigned long)pid, (unsigned long)ps.threads), 1;
	held = mw_heap_backoff_find(&r->backoff, pid, ps.create_time, now_ms());
	if (held)
		return mw_error(err, "%s", held->why), 1;
	if (mw_heap_reader_reap(r, 0) >= MAX_STUCK)
		return mw_error(err, "heap: %d remote heap queries still running; none started",
				MAX_STUCK), 1;

	InterlockedIncrement64(&remote_queries);
	j = mw_xcalloc(1, sizeof(*j));
	j->refs = 2;
	j->pid = pid;
	j->fn = r->opts.remote;
	j->arg = r->opts.remote_arg;
	j->thread = CreateThread(NULL, 0, job_run, j, 0, NULL);
	if (!j->thread) {
		DWORD e = GetLastError();

		free(j);
		return mw_error(err, "heap: CreateThread: Win32 error %lu", e);
	}
	w = WaitForSingleObject(j->thread, (DWORD)r->opts.time_limit_ms);
	if (w != WAIT_OBJECT_0) {
		char why[96];

		snprintf(why, sizeof(why), "heap: pid %lu timed out after %lld ms, held back %lld s",
			 (unsigned long)pid, (long long)r->opts.time_limit_ms,
			 (long long)(r->opts.backoff_ms / 1000));
		mw_heap_backoff_hold(&r->backoff, pid, ps.create_time, now_ms() + r->opts.backoff_ms,
				     why);
		MW_GROW(r->stuck, r->stuck_cap, r->nstuck + 1);
		r->stuck[r->nstuck++] = j;
		return mw_error(err, "%s", why), 1;
	}
	CloseHandle(j->thread);
	rc = j->rc;
	if (rc == 0) {
		struct mw_heap_list t = *out;

		*out = j->heaps;	/* swap: the job frees the old buffer */
		j->heaps = t;
		j->heaps.n = 0;
	} else if (rc == MW_HEAP_REMOTE_NONE) {
		*unavailable = true;
		mw_error(err, MW_HEAP_NO_REMOTE_MSG);
		rc = 1;
	} else {
		mw_error(err, "heap: %s", j->err.msg);
		rc = 1;
	}
	job_put(j);
	return rc;
}

/* Other processes without running code in them: the PEB heap list and
 * segments (peb_win32.c, ReadProcessMemory) over the region map. */
static int read_peb(struct mw_heap_reader *r, uint32_t pid, struct mw_heap_list *out,
		    struct mw_err *err)
{
	SYSTEM_INFO si;
	struct mw_peb_info info;
	HANDLE h;
	int rc;

	if (mw_vm_walk(pid, false, &r->regions, err))
		return 1;
	h = mw_process_open(pid, MW_NEED_READ, err);
	if (!h)
		return 1;
	GetSystemInfo(&si);
	r->ranges.n = 0;
	rc = mw_peb_heap_ranges(h, si.dwPageSize, &r->ranges, &info, err);
	CloseHandle(h);
	if (rc)
		return mw_error_prefix(err, "heap: pid %lu: ", (unsigned long)pid), 1;
	r->notes.segment_partial += info.segment_partial;
	r->notes.segment_header_only += info.segment_header_only;
	r->notes.wow64_side_unread += info.side_unread;
	mw_heap_from_ranges(&r->regions, &r->ranges, out);
	if (out->n == 0)
		return mw_error(err, "heap: pid %lu: no heaps in its PEB", (unsigned long)pid), 1;
	return 0;
}

int mw_heap_read(struct mw_heap_reader *r, uint32_t pid, bool self, struct mw_heap_list *out,
		 bool *remote_unavailable, struct mw_err *err)
{
	bool dummy;

	out->n = 0;
	if (!remote_unavailable)
		remote_unavailable = &dummy;
	*remote_unavailable = false;
	memset(&r->notes, 0, sizeof(r->notes));
	if (self)
		return read_self(&r->opts, out, err);
	if (!r->opts.remote_summary)
		return read_peb(r, pid, out, err);
	/* the remote summary asked for: never in a WOW64 process */
	if (mw_heap_how(false, true, r->opts.wow64_of(pid, r->opts.wow64_arg)) == MW_HEAP_HOW_PEB) {
		r->notes.wow64_no_remote = 1;
		return read_peb(r, pid, out, err);
	}
	return read_remote(r, pid, out, remote_unavailable, err);
}

int mw_heap_read_target(struct mw_heap_reader *r, uint32_t pid, bool self,
			struct mw_heap_list *heaps, struct mw_heap_breakdown *bar,
			struct mw_heap_target_read *out, struct mw_err *why)
{
	struct mw_err werr;

	memset(out, 0, sizeof(*out));
	out->heaps = mw_heap_read(r, pid, self, heaps, &out->remote_unavailable, why) == 0;
	out->notes = r->notes;
	/* The bar needs the address space; the heaps only refine it. */
	if (mw_vm_walk(pid, self, &r->bar_regions, &werr) == 0) {
		if (mw_vm_stacks(pid, self, &r->bar_stacks, &werr))
			r->bar_stacks.n = 0;
		mw_heap_breakdown(&r->bar_regions, r->bar_stacks.r, r->bar_stacks.n,
				  out->heaps ? heaps : NULL, bar);
		out->bar = true;
	}
	return out->heaps ? 0 : 1;
}

void mw_heap_mode_line(const struct mw_heap_reader *r, char *buf, size_t size, size_t ok,
		       size_t n, double ms, size_t cut, const struct mw_heap_notes *notes,
		       const char *why)
{
	char said[96];

	mw_heap_notes_text(notes, said, sizeof(said));
	snprintf(buf, size, "%zu of %zu read, %.2f ms, %s%s%s%s%.30s", ok, n, ms,
		 r->opts.remote_summary ? MW_HEAP_MODE_REMOTE : MW_HEAP_MODE_PEB,
		 cut ? "; " MW_HEAP_MODE_CUT : "", said, why[0] ? "; " : "", why);
}
