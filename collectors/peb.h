/*
 * peb.h - pure readers of another process's PEB(s), NT heap headers (and,
 * through segheap.h, segment heaps) and WOW64 TEB, on bytes read out of it (peb_win32.c does the reading with
 * ReadProcessMemory).  Nothing here trusts a pointer or a count: every
 * field is read within the bytes given, every list walk is bounded and
 * stops at the first entry that does not look like what it should be.
 *
 * Offsets (x64 and x86 user mode, stable since Windows 7; checked against
 * phnt ntpebteb.h / the public PDB-derived _PEB, _HEAP, _HEAP_SEGMENT,
 * _TEB headers):
 *   PEB         ProcessHeap 0x30 / 0x18, NumberOfHeaps 0xE8 / 0x88,
 *               MaximumNumberOfHeaps 0xEC / 0x8C, ProcessHeaps 0xF0 / 0x90
 *   HEAP        (an NT heap starts with its first HEAP_SEGMENT)
 *               VirtualAllocdBlocks 0x110 / 0x9C, SegmentList 0x120 / 0xA4
 *   HEAP_SEGMENT SegmentSignature 0x10 / 0x08 (0xFFEEFFEE),
 *               SegmentListEntry 0x18 / 0x10, BaseAddress 0x30 / 0x1C,
 *               NumberOfPages 0x38 / 0x20
 *               Signature 0x98 / 0x60 (0xEEFFEEFF)
 *   SEGMENT_HEAP Signature 0x10 / 0x08 (0xDDEEDDEE), LargeAllocMetadata
 *               0x48 / 0x44 (large-block tree), SegContexts[2] 0x100 or
 *               0x140 (build-dependent: found by a validated scan);
 *   SEG_CONTEXT  SegmentMask 0x00, Heap 0x38 / 0x24, SegmentListHead
 *               0x48 / 0x44, SegmentCount 0x58 / 0x4C; the large block's
 *               VirtualAddress 0x18 / 0x0C: segheap.h has them all and the
 *               checks (public PDB-derived layouts, Windows 10 1809 to
 *               Windows 11 24H2; never seen on a real machine here)
 *   WOW64       both PEBs are walked (mw_process_heaps): the 32-bit one's
 *               heaps numbered 0.., the 64-bit one's from 0x10000
 *   Wine 8      PEB NumberOfHeaps 0 and ProcessHeaps NULL; ProcessHeap is
 *   (x64 only)  set.  Its heaps start like an NT heap (0xFFEEFFEE at 0x10)
 *               but have no HEAP.Signature at 0x98; every heap is on a list
 *               through heap + 0x78 headed by the process heap's; subheaps
 *               (list at 0x88) and large blocks (list at 0x98) each hold
 *               their list entry inside their own allocation.
 *   TEB64       WowTebOffset 0x180C (Windows 10 1809+; 0: assume 0x2000,
 *               where every WOW64 release puts the 32-bit TEB)
 *   NT_TIB32    StackBase 0x04, StackLimit 0x08
 */
#ifndef MW_COLLECTORS_PEB_H
#define MW_COLLECTORS_PEB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/mwerr.h"
#include "vmmap.h"

#define MW_PEB64_PROCESS_HEAP 0x30
#define MW_PEB64_NUMBER_OF_HEAPS 0xE8
#define MW_PEB64_PROCESS_HEAPS 0xF0
#define MW_PEB64_READ 0xF8		/* bytes of the PEB the parser needs */
#define MW_PEB32_PROCESS_HEAP 0x18
#define MW_PEB32_NUMBER_OF_HEAPS 0x88
#define MW_PEB32_PROCESS_HEAPS 0x90
#define MW_PEB32_READ 0x94

#define MW_HEAP64_VIRTUAL_ALLOCD 0x110
#define MW_HEAP64_SEGMENT_LIST 0x120
#define MW_HEAP32_VIRTUAL_ALLOCD 0x9C
#define MW_HEAP32_SEGMENT_LIST 0xA4
#define MW_SEG64_SIGNATURE 0x10
#define MW_SEG64_LIST_ENTRY 0x18
#define MW_SEG64_BASE 0x30
#define MW_SEG64_PAGES 0x38
#define MW_SEG32_SIGNATURE 0x08
#define MW_SEG32_LIST_ENTRY 0x10
#define MW_SEG32_BASE 0x1C
#define MW_SEG32_PAGES 0x20
#define MW_HEAP64_SIGNATURE 0x98
#define MW_HEAP32_SIGNATURE 0x60
#define MW_HEAP_SIGNATURE 0xEEFFEEFFu
#define MW_WINE_HEAP_ENTRY 0x78
#define MW_WINE_HEAP_SUBHEAPS 0x88
#define MW_WINE_HEAP_LARGE 0x98
#define MW_NT_HEAP_SIGNATURE 0xFFEEFFEEu
#define MW_SEGMENT_HEAP_SIGNATURE 0xDDEEDDEEu

#define MW_TEB64_WOW_TEB_OFFSET 0x180C
#define MW_TEB32_DEFAULT_OFFSET 0x2000
#define MW_TIB32_STACK_BASE 0x04
#define MW_TIB32_STACK_LIMIT 0x08

#define MW_PEB_MAX_HEAPS 1024		/* more: the count is not believed */
#define MW_HEAP_MAX_SEGMENTS 1024	/* per list walk */
#define MW_HEAP_MAX_SEGMENT_PAGES (1u << 24)	/* 64 GB at 4 KB */

/* PEB heap fields.  is32: a 32-bit (WOW64) PEB. */
struct mw_peb_heaps {
	uint64_t process_heap;
	uint64_t heaps_array;	/* ProcessHeaps */
	uint32_t nheaps;	/* NumberOfHeaps */
};
/* 0, or -1 (err says why) when buf is short, the count is beyond
 * MW_PEB_MAX_HEAPS or the array pointer is NULL while heaps are counted. */
int mw_peb_parse(const unsigned char *buf, size_t len, bool is32, struct mw_peb_heaps *out,
		 struct mw_err *err);

/* Pointer-sized little-endian value at off, 0 when outside len. */
uint64_t mw_peb_ptr(const unsigned char *buf, size_t len, size_t off, bool is32);

/* Read len bytes at addr of the target; false when it cannot. */
typedef bool (*mw_peb_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

enum mw_heap_layout {
	MW_HEAP_LAYOUT_UNKNOWN,	/* no known signature (Wine's own heap) */
	MW_HEAP_LAYOUT_NT,	/* NT heap: segments walked */
	MW_HEAP_LAYOUT_SEGMENT,	/* segment heap: segments and large blocks (segheap.h) */
	MW_HEAP_LAYOUT_WINE	/* Wine's heap (x64): subheaps and large blocks */
};

struct mw_heap_walk {
	enum mw_heap_layout layout;
	uint32_t segments;	/* segment list entries accepted (Wine: subheaps) */
	uint32_t large;		/* VirtualAllocdBlocks entries accepted */
	bool truncated;		/* a walk hit its limit or a bad entry (segment
				 * heap: or a part could not be read) */
	bool header_only;	/* segment heap: neither its segments nor its
				 * large blocks could be read */
};

/*
 * The address ranges of one heap at address heap, appended to out with
 * id: always [heap, heap + 1) (the allocation holding the header), then
 * for an NT heap each segment [BaseAddress, BaseAddress + NumberOfPages *
 * page_size) from the SegmentList and each large block's first byte from
 * VirtualAllocdBlocks; for a segment heap its segments and large blocks
 * (mw_segheap_walk).  A walk stops at a NULL, misaligned or unreadable
 * link, a segment without the signature, or after MW_HEAP_MAX_SEGMENTS.
 */
void mw_heap_walk(mw_peb_read_fn rd, void *ctx, uint64_t heap, bool is32, uint32_t page_size,
		  uint32_t id, struct mw_vm_ranges *out, struct mw_heap_walk *info);

/* Wine: the heaps on the list through heap + 0x78 that the process heap
 * heads, process heap first, each checked for 0xFFEEFFEE; at most max.
 * Returns how many were stored in out. */
size_t mw_wine_heaps(mw_peb_read_fn rd, void *ctx, uint64_t process_heap, uint64_t *out,
		     size_t max);

/* The 32-bit TEB of a WOW64 thread: field is the 4 bytes of TEB64.
 * WowTebOffset (len < 4: not read, older Windows); teb64 + WowTebOffset,
 * or + 0x2000 when unread or 0.  0 when the offset is negative or absurd
 * or the result is above 4 GB. */
uint64_t mw_teb32_address(const unsigned char *field, size_t len, uint64_t teb64_addr);
/* NT_TIB32 StackBase/StackLimit: false unless base > limit. */
bool mw_tib32_stack(const unsigned char *tib, size_t len, uint64_t *limit, uint64_t *base);

/* An NT path as GetMappedFileName gives it ("\Device\HarddiskVolume3\x",
 * "\??\C:\x") turned into a DOS path using devices[i], the NT device of
 * drive 'A' + i (QueryDosDevice; NULL or "" when none).  Writes at most
 * size bytes; false (out unchanged) when no drive matches. */
bool mw_nt_to_dos_path(const char *nt, const char *const devices[26], char *out, size_t size);
/* How much of nt the NT device name covers ("\Device\HarddiskVolume3",
 * trailing backslashes dropped) when it is a whole-component prefix of nt,
 * compared without case ("...Volume3" does not cover "...Volume31\x"); 0
 * when it is not, or device is NULL or empty.  Both path translators pick
 * the device with the longest such prefix. */
size_t mw_nt_device_prefix_len(const char *nt, const char *device);

/* --- the large-address-aware flag of a 32-bit image ---------------------
 * A 32-bit process on 64-bit Windows has 4 GB of user address space when
 * its image has IMAGE_FILE_LARGE_ADDRESS_AWARE in the PE file header's
 * Characteristics, else 2 GB.  The image base is PEB32.ImageBaseAddress. */
#define MW_PEB32_IMAGE_BASE 0x08
#define MW_IMAGE_FILE_LARGE_ADDRESS_AWARE 0x0020u
#define MW_PE_HEADER_READ 0x400		/* bytes of the image read */
/* From the first len bytes of a PE image ("MZ", e_lfanew at 0x3C, "PE\0\0",
 * IMAGE_FILE_HEADER.Characteristics at +0x16): 1 large-address-aware, 0
 * not, -1 when the bytes are not a PE header. */
int mw_pe_large_address_aware(const unsigned char *buf, size_t len);
/* The end of a WOW64 process's user address space: 2 GB when laa is 0,
 * else (1, or -1: unknown) 4 GB. */
uint64_t mw_wow64_top(int laa);

/* --- platform (peb_win32.c) ---------------------------------------------- */

/* The large-address-aware flag of a WOW64 process's image, read through
 * its 32-bit PEB (process: a HANDLE with PROCESS_QUERY_LIMITED_INFORMATION
 * | PROCESS_VM_READ): 1, 0, or -1 when it cannot be read. */
int mw_wow64_laa(void *process);

#define MW_PEB64_ID0_WOW64 0x10000	/* a WOW64 process's 64-bit heap ids */

struct mw_peb_info {
	uint32_t heaps;		/* heaps listed in the PEB(s) */
	uint32_t nt, segment, unknown, wine;	/* by layout */
	bool wine_list;		/* the PEB listed none: ProcessHeap + Wine's list */
	uint32_t segments, large;	/* NT heap ranges found */
	uint32_t truncated;	/* heaps whose walk stopped early */
	uint32_t segment_partial;	/* segment heaps read in part (truncated) */
	uint32_t segment_header_only;	/* segment heaps: only the header's allocation */
	bool wow64;		/* a WOW64 process: both PEBs walked */
	bool side_unread;	/* WOW64: one of the two PEBs could not be read
				 * (err says which); the other's heaps are in */
};

/* The heaps listed in the PEB at peb (is32: a WOW64 process's 32-bit
 * PEB; a PEB listing none: Wine's list from ProcessHeap, x64), each walked
 * with mw_heap_walk and numbered id0.., counted into info (added to).  0,
 * or -1 with err when the PEB or its heap array cannot be read. */
int mw_peb_walk(mw_peb_read_fn rd, void *ctx, uint64_t peb, bool is32, uint32_t page_size,
		uint32_t id0, struct mw_vm_ranges *out, struct mw_peb_info *info, struct mw_err *err);
/* Both sides of a process: peb32 (0: not WOW64) with ids 0.., then peb64
 * with ids from 0 (MW_PEB64_ID0_WOW64 for a WOW64 process).  One side
 * that cannot be read does not stop the other: 0 when at least one was
 * read (info->side_unread and err say what was not), -1 when neither.
 * Replaces info. */
int mw_process_heaps(mw_peb_read_fn rd, void *ctx, uint64_t peb64, uint64_t peb32,
		     uint32_t page_size, struct mw_vm_ranges *out, struct mw_peb_info *info,
		     struct mw_err *err);
/* The heap ranges of the process behind handle process (a HANDLE with
 * PROCESS_QUERY_INFORMATION | PROCESS_VM_READ), appended to out with the
 * heap number as id: mw_process_heaps over ReadProcessMemory (a WOW64
 * process: both PEBs).  0, or 1 with err saying why they cannot be read. */
int mw_peb_heap_ranges(void *process, uint32_t page_size, struct mw_vm_ranges *out,
		       struct mw_peb_info *info, struct mw_err *err);

#endif
