/*
 * smaps.h - /proc/PID/smaps text to working-set categories, sharing
 * classes and per-allocation regions (pure: everything here works on
 * buffers; workingset_linux.c does the reading).
 *
 * Categories (struct mw_ws_region.category):
 *   image         file-backed mappings of the main executable (the path
 *                 /proc/PID/exe names), of *.so / *.so.N files, and of any
 *                 file one of whose consecutive mappings is executable
 *   mapped_file   other file-backed mappings
 *   shareable     shared memory: /dev/shm/, /run/shm/, /memfd:, /SYSV…
 *                 (System V), /dev/zero and anonymous MAP_SHARED ("s" perms
 *                 with no file), [anon_shmem:…]
 *   heap          [heap] (the brk heap, owner id 0) and glibc malloc arena
 *                 heaps: an anonymous private mapping whose start is
 *                 64 MiB-aligned (HEAP_MAX_SIZE on 64-bit) and which alone,
 *                 or with the PROT_NONE ("---p") mapping right after it,
 *                 spans exactly 64 MiB (owner ids 1, 2, … in address order)
 *   stack         [stack] (owner id: the pid, the main thread), mappings that
 *                 hold a thread's stack pointer (from
 *                 /proc/PID/task/TID/syscall; owner id: that TID), and
 *                 anonymous "rw-p" mappings right above a small (at most
 *                 1 MiB) anonymous "---p" guard that is not an arena tail
 *                 (glibc's thread stacks; owner id 0 when no thread's stack
 *                 pointer was seen in it)
 *   private_data  other anonymous mappings (also [anon:NAME])
 *   other         [vdso], [vvar], [vsyscall] and other [pseudo] mappings
 *
 * Sharing classes, from smaps' page counts per mapping:
 *   shared     Shared_Clean + Shared_Dirty: pages that more than one
 *              process maps (Windows: ShareCount > 1)
 *   shareable  Private_* pages (mapped by this process only) of a mapping
 *              another process could map too: every page of a MAP_SHARED
 *              ("s") mapping, and the page-cache pages of a private file
 *              mapping, Private_* less Anonymous (Windows: the Shared bit,
 *              count <= 1)
 *   private    the rest: Private_* of anonymous private mappings and the
 *              Anonymous (copy-on-write) pages of private file mappings
 * The three add up to Rss.
 *
 * Regions: one per allocation: consecutive mappings of one file with
 * rising offsets (an ELF's segments), an arena heap with its PROT_NONE
 * tail, a thread stack with its guard; otherwise one per mapping.  Only
 * regions with resident pages are listed (as on Windows).
 */
#ifndef MW_COLLECTORS_SMAPS_H
#define MW_COLLECTORS_SMAPS_H

#include <stddef.h>
#include <stdint.h>
#include "base/mwerr.h"
#include "vmmap.h"
#include "workingset.h"

enum mw_smaps_field {
	MW_SM_RSS, MW_SM_PSS, MW_SM_SHARED_CLEAN, MW_SM_SHARED_DIRTY, MW_SM_PRIVATE_CLEAN,
	MW_SM_PRIVATE_DIRTY, MW_SM_ANONYMOUS, MW_SM_SWAP, MW_SM_NFIELDS
};

struct mw_smaps_map {
	uint64_t start, end, offset, inode;
	char perms[4];			/* "rw-p" */
	uint32_t path_off, path_len;	/* into the parsed text; len 0: anonymous */
	uint64_t kb[MW_SM_NFIELDS];	/* kB */
};

struct mw_smaps {
	const char *text;		/* what was parsed (not owned) */
	struct mw_smaps_map *m;		/* in address order */
	size_t n, cap;
};

/* Parse smaps text (need not be NUL-terminated).  Replaces out's maps;
 * out->text points at text, which must outlive out's use.  Fields other
 * than those above are skipped.  -1 with "line N: what" on malformed
 * input (a bad mapping header, a field before any header, a bad number in
 * a known field, mappings out of order or overlapping). */
int mw_smaps_parse(const char *text, size_t len, struct mw_smaps *out, struct mw_err *err);
void mw_smaps_release(struct mw_smaps *s);

/* A thread and where its stack pointer was. */
struct mw_smaps_thread {
	uint32_t tid;
	uint64_t sp;
};

/* Facts besides the mappings. */
struct mw_smaps_facts {
	uint32_t pid;
	uint32_t page_size;
	const char *exe;			/* /proc/PID/exe's target, or NULL */
	const struct mw_smaps_thread *threads;	/* any order */
	size_t nthreads;
};

struct mw_smaps_totals {
	uint64_t rss, pss, uss, swap;	/* bytes; uss = Private_Clean + Private_Dirty */
};

/* Classify the mappings; replaces out (regions and totals), fills tot. */
void mw_smaps_classify(const struct mw_smaps *s, const struct mw_smaps_facts *f,
		       struct mw_ws_result *out, struct mw_smaps_totals *tot);

/* The stack pointer in /proc/PID/task/TID/syscall text ("NR a1 … a6 SP PC"
 * or "-1 SP PC"); -1 when the thread is running or the text is not that. */
int mw_smaps_syscall_sp(const char *text, uint64_t *sp);

/* --- per mapping: the address-space map (vmmap) and the heap bar ---------
 *
 * One classification of every mapping, shared by the workingset
 * categories above, memwatch_vm_bytes (vmmap_linux.c) and
 * memwatch_heap_breakdown_bytes (heap_linux.c), so the three agree:
 *   state     reserved: PROT_NONE ("---") mappings (thread-stack guards,
 *             the unused tail of a malloc arena, the gaps ld.so leaves
 *             inside a library); committed: every other mapping, by its
 *             whole Size (Linux charges private writable mappings to the
 *             commit limit whole; read-only file mappings are backed by
 *             the file, as Windows' committed image and mapped views)
 *   type      image (category image, and the bss below), mapped (mapped
 *             files and shared memory), private (the rest)
 *   kind      image: mappings of image files that are not writable
 *             static_data: writable mappings of image files (.data, .bss
 *               in the file, RELRO) and the anonymous "rw-p" mapping
 *               directly after one (the rest of the .bss; the workingset
 *               still counts its pages as private_data)
 *             mapped: mapped_file and shareable
 *             heap: [heap] and malloc arena heaps
 *             stack: [stack], thread stacks and their guards
 *             private: everything else ([anon:…], [vdso], [vvar], …)
 * Mappings in the kernel's half of the address space ([vsyscall]) are not
 * counted: vmmap's range ends at user space's top. */
#define MW_SMAPS_KERNEL_HALF 0xffff800000000000ULL
#define MW_SMAPS_USER_TOP_47 0x800000000000ULL
#define MW_SMAPS_USER_TOP_56 0x100000000000000ULL

enum mw_smaps_kind {
	MW_SK_IMAGE, MW_SK_STATIC_DATA, MW_SK_MAPPED, MW_SK_HEAP, MW_SK_STACK, MW_SK_PRIVATE,
	MW_SK_N
};

struct mw_smaps_use {
	uint64_t alloc_base;	/* the first mapping of its region */
	uint32_t owner_id;	/* stack: thread id (0: unknown); heap: arena number */
	uint8_t category;	/* enum mw_ws_category, as mw_smaps_classify */
	uint8_t kind;		/* enum mw_smaps_kind */
	uint8_t vm_type;	/* enum mw_vm_type */
	bool reserved;		/* PROT_NONE: address space only */
	bool counted;		/* false: in the kernel's half ([vsyscall]) */
};

/* u: s->n entries, one per mapping. */
void mw_smaps_uses(const struct mw_smaps *s, const struct mw_smaps_facts *f,
		   struct mw_smaps_use *u);
/* The counted mappings as address-space regions (replaces v; sets lo, hi). */
void mw_smaps_vm_regions(const struct mw_smaps *s, const struct mw_smaps_use *u,
			 struct mw_vm_regions *v);
/* The committed stack mappings, id the thread (0: unknown); replaces out. */
void mw_smaps_stack_ranges(const struct mw_smaps *s, const struct mw_smaps_use *u,
			   struct mw_vm_ranges *out);

#endif
