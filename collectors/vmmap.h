/*
 * vmmap.h - the address-space map of watched processes (VirtualMemory.exe's
 * view): committed, reserved and free bytes by type, region count,
 * largest free block.
 *
 * The platform walks the regions (vmmap_win32.c: VirtualQueryEx from 0 to
 * the highest application address; vmmap_linux.c: /proc/PID/maps);
 * mw_vm_summarize, pure, turns any region list into the totals.
 */
#ifndef MW_COLLECTORS_VMMAP_H
#define MW_COLLECTORS_VMMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/mwerr.h"

enum mw_vm_state { MW_VM_COMMIT, MW_VM_RESERVE, MW_VM_FREE, MW_VM_NSTATES };
enum mw_vm_type { MW_VM_IMAGE, MW_VM_MAPPED, MW_VM_PRIVATE, MW_VM_NONE, MW_VM_NTYPES };

struct mw_vm_region {
	uint64_t base, size;
	uint64_t alloc_base;	/* AllocationBase (Linux: base) */
	uint8_t state;		/* enum mw_vm_state */
	uint8_t type;		/* enum mw_vm_type; free regions: MW_VM_NONE */
	uint32_t protect;	/* PAGE_* (Windows), 0 elsewhere */
};

struct mw_vm_regions {
	struct mw_vm_region *r;
	size_t n, cap;
	uint64_t lo, hi;	/* the user address range walked */
	bool wow64;		/* a 32-bit process on 64-bit Windows */
	int laa;		/* wow64: 1 large-address-aware (hi 4 GB), 0 not
				 * (hi 2 GB), -1 unknown (image header unread: 4 GB) */
};

struct mw_vm_summary {
	uint64_t bytes[MW_VM_NSTATES][MW_VM_NTYPES];
	uint64_t regions;		/* non-free regions */
	uint64_t allocations;		/* distinct allocation bases */
	uint64_t free_blocks;
	uint64_t largest_free;		/* in [lo, hi): the gaps count as free */
};

extern const char *const mw_vm_state_names[MW_VM_NSTATES];
extern const char *const mw_vm_type_names[MW_VM_NTYPES];

void mw_vm_regions_release(struct mw_vm_regions *v);
void mw_vm_regions_add(struct mw_vm_regions *v, uint64_t base, uint64_t size, uint64_t alloc_base,
		       int state, int type, uint32_t protect);
/* Totals over the regions (sorted by base, not overlapping).  Address
 * space in [lo, hi) that no region covers counts as free, so a walk that
 * lists free regions and one (Linux) that does not agree. */
void mw_vm_summarize(const struct mw_vm_regions *v, struct mw_vm_summary *out);
/* /proc/PID/maps text to regions (file-backed executable: image; other
 * file-backed: mapped; anonymous: private; "---p" anonymous: reserved). */
int mw_vm_parse_maps(const char *text, struct mw_vm_regions *v, struct mw_err *err);

/* Platform walk.  Returns 0, 1 when the process cannot be opened or has
 * gone (err says why: inaccessible, not an error), -1 on failure. */
int mw_vm_walk(uint32_t pid, bool self, struct mw_vm_regions *v, struct mw_err *err);

/* An address range with an id: a thread's stack (id: thread id). */
struct mw_vm_range {
	uint64_t base, size;
	uint32_t id;
};
struct mw_vm_ranges {
	struct mw_vm_range *r;
	size_t n, cap;
};
void mw_vm_ranges_add(struct mw_vm_ranges *s, uint64_t base, uint64_t size, uint32_t id);
void mw_vm_ranges_release(struct mw_vm_ranges *s);

/* Platform: the user-mode stacks of pid's threads, replacing out.  Each
 * range is StackLimit..StackBase from the thread's TEB (NT_TIB, read with
 * ReadProcessMemory): the part in use; the allocation around it holds the
 * guard page and the reserve.  Threads that cannot be opened are left out.
 * Returns 0, 1 when the process cannot be opened (err says why), -1.
 * Linux: no stacks yet (returns 0 with none). */
int mw_vm_stacks(uint32_t pid, bool self, struct mw_vm_ranges *out, struct mw_err *err);

/* --- access rights --------------------------------------------------------
 * A process is opened with PROCESS_QUERY_LIMITED_INFORMATION, which even a
 * protected process grants, and more only for the calls that need it, so
 * that one denied right costs only the figures behind it.  winnt.h values,
 * checked against the SDK in vmmap_win32.c. */
#define MW_PROCESS_VM_READ 0x0010u
#define MW_PROCESS_QUERY_INFORMATION 0x0400u
#define MW_PROCESS_QUERY_LIMITED_INFORMATION 0x1000u
#define MW_THREAD_QUERY_INFORMATION 0x0040u
#define MW_THREAD_QUERY_LIMITED_INFORMATION 0x0800u

enum {
	MW_NEED_TOTALS = 1,	/* IsWow64Process, NtQueryInformationProcess
				 * (basic, WOW64) */
	MW_NEED_REGIONS = 2,	/* VirtualQueryEx, GetMappedFileName */
	MW_NEED_READ = 4,	/* ReadProcessMemory */
	MW_NEED_WORKING_SET = 8,	/* QueryWorkingSet(Ex) */
	MW_NEED_MEMORY_INFO = 16,	/* GetProcessMemoryInfo: documented to need
					 * QUERY_(LIMITED_)INFORMATION and VM_READ */
};
/* The process access mask for a set of MW_NEED_*: LIMITED for totals,
 * QUERY_INFORMATION only for regions and the working set, VM_READ only
 * to read memory and for GetProcessMemoryInfo (its documentation). */
uint32_t mw_process_access(unsigned need);
/* The thread access mask to read a thread's TEB address
 * (NtQueryInformationThread(ThreadBasicInformation)): LIMITED. */
uint32_t mw_thread_access(void);

/* Windows: OpenProcess(pid, mw_process_access(need)); NULL with err
 * ("OpenProcess(PID, MASK): Win32 error N") when refused.  A mask
 * outside mw_process_access_cap is refused as access denied without
 * asking (tests: a process that grants only some rights). */
void *mw_process_open(uint32_t pid, unsigned need, struct mw_err *err);
extern uint32_t mw_process_access_cap;

#endif
