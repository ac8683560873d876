/*
 * heap.h - the heap collector: the heaps of watched processes and, for
 * each, HeapPeep's breakdown of its memory.
 *
 * Series (labels pid, process):
 *   memwatch_heap_bytes{heap,kind}   per heap ("0", "1", ...) and heap="all";
 *       kind: committed, allocated, free, and with HeapWalk also
 *       uncommitted, overhead.  HeapWalk (own process): free is the bytes
 *       of free blocks.  Remote summary: free is committed - allocated.
 *   memwatch_heap_blocks{heap}       allocated blocks (remote: entries)
 *   memwatch_heap_count              number of heaps
 *   memwatch_heap_breakdown_bytes{kind}   what the address space holds:
 *       heap_used        bytes of allocated heap blocks
 *       heap_free        committed heap bytes not allocated (HeapWalk:
 *                        free blocks + block overhead; remote: committed -
 *                        allocated)
 *       stack_committed  committed pages of thread-stack allocations
 *                        (guard pages included)
 *       stack_reserved   reserved, uncommitted pages of thread-stack
 *                        allocations
 *       image            committed image pages that are not writable
 *       static_data      committed image pages that are writable (.data,
 *                        .bss, copy-on-write: Protect is RW/WC/XRW/XWC)
 *       private_other    other committed private bytes (heap metadata,
 *                        VirtualAlloc, CRT, ...)
 *       mapped           committed mapped-file and section views (but
 *                        for heaps living in section views, counted as
 *                        heap)
 *       heap             instead of heap_used + heap_free when only the
 *                        committed heap is known, free blocks included:
 *                        Linux ([heap] and malloc arenas, see
 *                        mw_heap_breakdown_smaps) and other processes on
 *                        Windows without remote_summary (PEB heap list)
 *     Every kind but stack_reserved is committed memory; those seven add up
 *     to memwatch_vm_bytes{state="committed"} summed over type.  When the
 *     heaps cannot be read (see below) heap_used and heap_free are not
 *     emitted and their bytes are in private_other.
 *
 * Own process: HeapWalk (heap_win32.c) of the process heap and the CRT
 * heap only (heaps other code may destroy concurrently are not walked),
 * each bounded to MW_HEAP_WALK_MAX_ENTRIES entries and MW_HEAP_WALK_MAX_MS
 * under HeapLock; entries summed by mw_heap_account.
 *
 * Other processes, by default: nothing runs in the target.  The heap list
 * and segments come from its PEB and heap headers (peb.h, ReadProcessMemory)
 * and each heap's committed and uncommitted bytes from the region map
 * (mw_heap_from_ranges); allocated and free bytes are unknown, so the
 * breakdown gives the committed heap as one figure (kind "heap").  NT
 * heaps, segment heaps (segheap.h) and, for a WOW64 target, the heaps of
 * both its PEBs; what could not be read is in the mode (mw_heap_notes).
 *
 * [collector.heap] remote_summary = true (invasive, off by default):
 * RtlQueryProcessDebugInformation with RTL_QUERY_PROCESS_HEAP_SUMMARY,
 * which creates a thread in the target: never on a process whose threads
 * are all suspended, in a worker thread with a time limit; a target that
 * times out is held back for a back-off period.  Never on a WOW64 target
 * (mw_heap_how): the PEB path instead, the mode says so.  Under Wine the call
 * succeeds and returns no heaps: the process is counted inaccessible and
 * the mode says so, logged once.
 *
 * Everything that interprets bytes is pure and tested on constructed
 * buffers: mw_heap_breakdown, mw_heap_parse_debug_info, mw_heap_spi_find,
 * mw_heap_backoff_*.
 */
#ifndef MW_COLLECTORS_HEAP_H
#define MW_COLLECTORS_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/collector.h"
#include "base/mwerr.h"
#include "smaps.h"
#include "vmmap.h"

extern const struct mw_collector mw_collector_heap;

/* PROCESS_HEAP_ENTRY wFlags */
#define MW_HEAP_ENTRY_BUSY 0x0004
#define MW_HEAP_REGION 0x0001
#define MW_HEAP_UNCOMMITTED_RANGE 0x0002

struct mw_heap_totals {
	uint64_t committed, busy, free, uncommitted, overhead;
	uint64_t blocks, free_blocks, regions;
	uint64_t base;		/* heap address (remote summary; 0 from HeapWalk) */
	bool summary;		/* from the remote summary: only committed, busy,
				 * blocks are known; free = committed - busy */
	bool segments;		/* from the PEB heap list and the region map: only
				 * committed and uncommitted are known */
	bool truncated;		/* HeapWalk stopped at its entry or time bound */
	uint32_t id;		/* segments: the heap number mw_peb_heap_ranges gave */
};

/* Add one HeapWalk entry (wFlags, cbData, cbOverhead; for a region entry
 * committed and uncommitted sizes). */
void mw_heap_account(struct mw_heap_totals *t, uint32_t flags, uint64_t cb, uint32_t overhead,
		     uint64_t region_committed, uint64_t region_uncommitted);

struct mw_heap_list {
	struct mw_heap_totals *h;
	size_t n, cap;
};

/* --- the breakdown (pure) ------------------------------------------------ */

enum mw_heap_kind {
	MW_HK_HEAP_USED, MW_HK_HEAP_FREE, MW_HK_STACK_RESERVED, MW_HK_STACK_COMMITTED,
	MW_HK_IMAGE, MW_HK_STATIC_DATA, MW_HK_PRIVATE_OTHER, MW_HK_MAPPED,
	MW_HK_HEAP,	/* Linux: the committed heap, used and free (heap_whole) */
	MW_HK_N
};
/* The kind label values, as above. */
extern const char *const mw_heap_kind_names[MW_HK_N];

/* PAGE_READWRITE | PAGE_WRITECOPY | PAGE_EXECUTE_READWRITE |
 * PAGE_EXECUTE_WRITECOPY (checked against the SDK in heap_win32.c). */
#define MW_PAGE_WRITABLE 0xccu

struct mw_heap_breakdown {
	uint64_t bytes[MW_HK_N];
	bool have_heaps;	/* false: heap_used/heap_free unknown (0), in private_other */
	bool heap_whole;	/* Linux: heap is one figure (kind "heap"); heap_used
				 * and heap_free are not emitted */
};

/* The breakdown of a region list (sorted by base, as mw_vm_walk gives it)
 * given the threads' stack ranges and the heaps (NULL: unknown).  An
 * allocation (consecutive regions sharing an AllocationBase) that a stack
 * range overlaps is a stack.  Heap bytes come out of the private committed
 * bytes outside stacks and are clipped to them, so the committed kinds
 * always add up to the committed total of the regions; a heap whose base
 * lies in a mapped region (a heap in a section view: shared, CSR's) comes
 * out of the mapped bytes instead, clipped to them, for it is not private. */
void mw_heap_breakdown(const struct mw_vm_regions *v, const struct mw_vm_range *stacks,
		       size_t nstacks, const struct mw_heap_list *heaps,
		       struct mw_heap_breakdown *out);

/* The breakdown on Linux, from /proc/PID/smaps classified by
 * mw_smaps_uses (smaps.h): the counted mappings' whole Size, by kind:
 *   heap             [heap] and the read-write part of malloc arenas;
 *                    allocated and free blocks together (heap_whole)
 *   stack_committed  [stack] and the read-write part of thread stacks
 *   stack_reserved   thread stacks' PROT_NONE guards
 *   image, static_data, mapped   as mw_smaps_kind
 *   private_other    other private mappings
 * Every kind but stack_reserved is committed; those add up to the Size of
 * the mappings that are not PROT_NONE, which is memwatch_vm_bytes
 * {state="committed"} summed over type (mw_smaps_vm_regions). */
void mw_heap_breakdown_smaps(const struct mw_smaps *s, const struct mw_smaps_use *u,
			     struct mw_heap_breakdown *out);

/* Linux: pid's bar from its /proc/PID/smaps (through procmaps.h's cache).
 * 0; 1 when the process cannot be read (err says why); -1 (always on
 * Windows, which reads each heap instead). */
int mw_heap_bar_read(uint32_t pid, struct mw_heap_breakdown *out, struct mw_err *err);


/* The collector's mode suffix on Linux. */
#define MW_HEAP_LINUX_MODE "heap bar from /proc/PID/smaps; per-heap figures: Windows only"

/* The heaps of another process without running code in it: ranges are the
 * heap ranges mw_peb_heap_ranges (peb.h) read from its PEB and heap headers
 * (id: heap number), v its region map.  Each allocation (AllocationBase)
 * a range touches belongs to the first heap that touches it; its committed
 * bytes are the heap's committed, its reserved bytes the heap's
 * uncommitted.  Replaces out; heaps in the order of their first range,
 * marked segments. */
void mw_heap_from_ranges(const struct mw_vm_regions *v, const struct mw_vm_ranges *ranges,
			 struct mw_heap_list *out);

/* --- the remote heap summary (pure parts) ------------------------------- */

/* RTL_DEBUG_INFORMATION (x64): the fields read. */
#define MW_RDI_COMMIT_SIZE 0x50
#define MW_RDI_VIEW_SIZE 0x58
#define MW_RDI_HEAPS 0x70
#define MW_RDI_SIZE 0xd0
/* RTL_PROCESS_HEAPS: ULONG NumberOfHeaps, then the array at 8.
 * RTL_HEAP_INFORMATION (x64): 0x58 bytes, 0x60 (V2, + HeapTag) on
 * Windows 11 after build 22000. */
#define MW_RPH_HEAPS 0x08
#define MW_RHI_BASE 0x00
#define MW_RHI_FLAGS 0x08
#define MW_RHI_ENTRY_OVERHEAD 0x0c
#define MW_RHI_BYTES_ALLOCATED 0x10
#define MW_RHI_BYTES_COMMITTED 0x18
#define MW_RHI_NUMBER_OF_ENTRIES 0x24
#define MW_RHI_SIZE_V1 0x58
#define MW_RHI_SIZE_V2 0x60
#define MW_HEAP_MAX_HEAPS 4096

/* The RTL_HEAP_INFORMATION size for a Windows build number. */
size_t mw_heap_info_stride(uint32_t build);

/* Parse what RtlQueryProcessDebugInformation(RTL_QUERY_PROCESS_HEAP_SUMMARY)
 * left in the debug buffer: buf is the RTL_DEBUG_INFORMATION, len the bytes
 * readable from it, buf_addr its address when filled (Heaps points into
 * it).  Replaces out.  Returns 0; 1 when Heaps is NULL (Wine: err says
 * "returned no heaps"); -1 when anything points or counts outside the
 * buffer (err says what). */
int mw_heap_parse_debug_info(const unsigned char *buf, size_t len, uint64_t buf_addr,
			     size_t stride, struct mw_heap_list *out, struct mw_err *err);

/* SYSTEM_THREAD_INFORMATION (x64) after each SYSTEM_PROCESS_INFORMATION
 * (process.h's MW_SPI_*), checked against the SDK in heap_win32.c. */
#define MW_STI_TID 0x30
#define MW_STI_STATE 0x44
#define MW_STI_WAIT_REASON 0x48
#define MW_STI_SIZE 0x50
#define MW_THREAD_STATE_WAITING 5
#define MW_WAIT_SUSPENDED 5
#define MW_WAIT_WR_SUSPENDED 12

struct mw_heap_proc_state {
	bool found;
	uint64_t create_time;	/* FILETIME, to tell a reused pid apart */
	uint32_t threads;	/* thread records */
	uint32_t suspended;	/* of them Waiting for Suspended/WrSuspended */
};

/* Find pid in a SystemProcessInformation buffer and count its suspended
 * threads.  0 (found or not: out->found), -1 when the buffer lies. */
int mw_heap_spi_find(const unsigned char *buf, size_t len, uint32_t pid,
		     struct mw_heap_proc_state *out, struct mw_err *err);

/* Targets held back after a remote query timed out, keyed by pid and
 * creation time (a reused pid is a new process). */
struct mw_heap_backoff {
	struct mw_heap_held {
		uint32_t pid;
		uint64_t create_time;
		int64_t until_ms;	/* monotonic */
		char why[96];
	} *e;
	size_t n, cap;
};
/* Hold (pid, create_time) back until until_ms, for why. */
void mw_heap_backoff_hold(struct mw_heap_backoff *b, uint32_t pid, uint64_t create_time,
			  int64_t until_ms, const char *why);
/* The entry holding it back at now_ms, or NULL; drops expired entries. */
const struct mw_heap_held *mw_heap_backoff_find(struct mw_heap_backoff *b, uint32_t pid,
						uint64_t create_time, int64_t now_ms);
void mw_heap_backoff_release(struct mw_heap_backoff *b);

/* --- platform ------------------------------------------------------------ */

/* The remote query: fill out with pid's heaps.  0; 1 (err says why);
 * MW_HEAP_REMOTE_NONE when the call worked but gave no heaps (Wine).
 * Runs in a worker thread that may outlive the reader: arg must too. */
#define MW_HEAP_REMOTE_NONE 2
typedef int (*mw_heap_remote_fn)(uint32_t pid, struct mw_heap_list *out, struct mw_err *err,
				 void *arg);

/* What a read could not do fully, for the collector's mode. */
struct mw_heap_notes {
	uint32_t segment_partial;	/* segment heaps read in part: their figure
					 * is a lower bound */
	uint32_t segment_header_only;	/* segment heaps of which only the header's
					 * allocation is known */
	uint32_t wow64_no_remote;	/* WOW64 targets read from their PEBs although
					 * remote_summary is on */
	uint32_t wow64_side_unread;	/* WOW64 targets of which one PEB (32- or
					 * 64-bit) could not be read */
};
/* sum += n */
void mw_heap_notes_add(struct mw_heap_notes *sum, const struct mw_heap_notes *n);
/* The notes as a mode fragment, e.g. "; segment heap: 2 header only, 1
 * partial; WOW64: PEB, no remote summary; WOW64: 1 side unread"; "" when
 * there are none. */
void mw_heap_notes_text(const struct mw_heap_notes *n, char *buf, size_t size);

/* How a target's heaps are read. */
enum mw_heap_how { MW_HEAP_HOW_SELF, MW_HEAP_HOW_PEB, MW_HEAP_HOW_REMOTE };
/* self: HeapWalk.  Others: the remote summary only when remote_summary is
 * on and the target is known not to be WOW64 (wow64 0): in a WOW64
 * process the summary's thread and heap list are the 64-bit side's, its
 * 32-bit heaps are not in it, and its heap records are not laid out as
 * the x64 parser reads them; an unknown wow64 (-1) runs nothing in the
 * target either.  Otherwise the PEB heap lists (both PEBs of a WOW64
 * process). */
enum mw_heap_how mw_heap_how(bool self, bool remote_summary, int wow64);

struct mw_heap_reader_opts {
	int64_t time_limit_ms;	/* per remote query; 0: 2000 */
	int64_t backoff_ms;	/* hold a target back after a time-out; 0: 300000 */
	mw_heap_remote_fn remote;	/* NULL: RtlQueryProcessDebugInformation */
	void *remote_arg;
	/* Other processes: false (the default) reads the PEB heap list and the
	 * region map (nothing runs in the target); true runs the remote
	 * summary above, which creates a thread in the target: invasive. */
	bool remote_summary;
	/* Tests: is pid a WOW64 process (1, 0, -1 unknown)?  NULL:
	 * IsWow64Process. */
	int (*wow64_of)(uint32_t pid, void *arg);
	void *wow64_arg;
	/* Own process: HeapWalk bounds per heap (0: MW_HEAP_WALK_MAX_ENTRIES,
	 * MW_HEAP_WALK_MAX_MS); a heap cut short is marked truncated. */
	uint32_t walk_max_entries;
	int64_t walk_max_ms;
};
#define MW_HEAP_WALK_MAX_ENTRIES 100000
#define MW_HEAP_WALK_MAX_MS 50

/* Remote summaries started by this process so far (each one creates a
 * thread in its target).  Windows; 0 elsewhere. */
uint64_t mw_heap_remote_queries(void);
/* Own-process heaps cut short by the HeapWalk bounds so far. */
uint64_t mw_heap_walk_truncations(void);

struct mw_heap_reader;
/* NULL opts: the defaults.  Never fails. */
struct mw_heap_reader *mw_heap_reader_new(const struct mw_heap_reader_opts *opts);
/* Does not wait for workers still running: they free their own job. */
void mw_heap_reader_free(struct mw_heap_reader *r);
/* Wait up to wait_ms for timed-out workers to finish and forget the
 * finished ones; returns how many still run. */
size_t mw_heap_reader_reap(struct mw_heap_reader *r, uint32_t wait_ms);
/* The heaps of a process, replacing out, read as mw_heap_how says.  0; 1
 * when it cannot be read (inaccessible, suspended, timed out, held back,
 * no heaps: err says why); -1 on failure.  *remote_unavailable (may be
 * NULL) is set when the remote summary gave no heaps (Wine). */
int mw_heap_read(struct mw_heap_reader *r, uint32_t pid, bool self, struct mw_heap_list *out,
		 bool *remote_unavailable, struct mw_err *err);
/* 0 when the platform has heaps to read, else -1 and why. */
int mw_heap_supported(struct mw_err *why);

/* One watched process as the heap collector reads it: Windows
 * (heap_win32.c) its heaps (mw_heap_read) and the bar from its address
 * space, refined by the heaps when they were read; Linux (heap_linux.c)
 * the bar from its smaps (mw_heap_bar_read), no heaps.  0 when read; 1
 * (or -1, Linux: logged) when not, the process then counted
 * inaccessible, why saying why.  out says what was filled. */
struct mw_heap_target_read {
	bool heaps;			/* heaps filled */
	bool bar;			/* bar filled */
	bool remote_unavailable;	/* the remote summary gave no heaps (Wine) */
	struct mw_heap_notes notes;	/* what the heap read could not do fully */
};
int mw_heap_read_target(struct mw_heap_reader *r, uint32_t pid, bool self,
			struct mw_heap_list *heaps, struct mw_heap_breakdown *bar,
			struct mw_heap_target_read *out, struct mw_err *why);
/* The collector's mode after a tick: ok of n processes read in ms, how
 * this platform reads them, whether an own heap's walk was cut short
 * (cut), the tick's notes (mw_heap_notes_text) and the last why ("" none). */
void mw_heap_mode_line(const struct mw_heap_reader *r, char *buf, size_t size, size_t ok,
		       size_t n, double ms, size_t cut, const struct mw_heap_notes *notes,
		       const char *why);

/* The mode's word for how other processes' heaps are read. */
#define MW_HEAP_MODE_PEB "others: PEB heap list"
#define MW_HEAP_MODE_REMOTE "others: remote summary (invasive)"
/* ... and when an own heap's walk was cut short by its bounds */
#define MW_HEAP_MODE_CUT "own heap walk cut short"

/* The message for the Wine case, exactly. */
#define MW_HEAP_NO_REMOTE_MSG \
	"heap: remote summary unavailable (RtlQueryProcessDebugInformation returned no heaps)"

#endif
