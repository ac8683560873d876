/*
 * segheap.h - pure readers of a Windows segment heap (signature 0xDDEEDDEE,
 * the heap of packaged apps, Chrome/Edge and several system processes) in
 * another process, on bytes read out of it through a read function
 * (peb.h's mw_peb_read_fn).  peb.c's mw_heap_walk calls it for a heap
 * whose signature says "segment heap"; nothing here trusts a pointer or a
 * count.
 *
 * What is read (public PDB-derived _SEGMENT_HEAP, _HEAP_SEG_CONTEXT,
 * _HEAP_LARGE_ALLOC_DATA layouts, Windows 10 1809 to Windows 11 24H2):
 *   SEGMENT_HEAP      Signature 0x10 / 0x08, LargeAllocMetadata (an
 *                     RTL_RB_TREE: Root, Min with bit 0 "Encoded") 0x48 /
 *                     0x44.  SegContexts[2] moved (0x100 on Windows 10
 *                     before 21H1, 0x140 later), so they are FOUND: the
 *                     header's first MW_SEGHEAP_SCAN bytes are scanned at
 *                     64-byte steps for a context that checks out.
 *   HEAP_SEG_CONTEXT  (0xC0 / 0x80 bytes) SegmentMask 0x00 (~(segment
 *                     size - 1)), Heap 0x38 / 0x24 (must be the heap),
 *                     SegmentListHead 0x48 / 0x44, SegmentCount 0x58 /
 *                     0x4C.
 *   HEAP_PAGE_SEGMENT starts with its LIST_ENTRY and is aligned to its
 *                     context's segment size (1 MB: context 0).
 *   HEAP_LARGE_ALLOC_DATA  RTL_BALANCED_NODE (Left 0, Right 8 / 4) then
 *                     VirtualAddress 0x18 / 0x0C (low 16 bits UnusedBytes)
 *                     and AllocatedPages (bits 12..) 0x20 / 0x10.  In an
 *                     encoded tree Root is stored XORed with the tree's
 *                     address and each child with its parent node's.
 * A segment becomes the range [segment, + 1), a large block the range
 * [VirtualAddress, + 1): each claims the allocation holding it (the region
 * map gives its committed and reserved bytes; a longer range could claim a
 * neighbouring allocation that is not the heap's).  What cannot be
 * read is said in mw_segheap_walk's result, never guessed.
 */
#ifndef MW_COLLECTORS_SEGHEAP_H
#define MW_COLLECTORS_SEGHEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "vmmap.h"

#define MW_SEGHEAP64_LARGE_TREE 0x48
#define MW_SEGHEAP32_LARGE_TREE 0x44
#define MW_SEGHEAP_SCAN 0x400		/* header bytes searched for contexts */
#define MW_SEGHEAP_SCAN_FROM 0x80	/* contexts follow the large-block fields */
#define MW_SEGHEAP_SCAN_STEP 0x40
#define MW_SEGCTX64_SIZE 0xC0
#define MW_SEGCTX32_SIZE 0x80
#define MW_SEGCTX64_HEAP 0x38
#define MW_SEGCTX32_HEAP 0x24
#define MW_SEGCTX64_LIST 0x48
#define MW_SEGCTX32_LIST 0x44
#define MW_SEGCTX64_COUNT 0x58
#define MW_SEGCTX32_COUNT 0x4C
#define MW_LARGE64_VA 0x18
#define MW_LARGE32_VA 0x0C
#define MW_LARGE64_PAGES 0x20
#define MW_LARGE32_PAGES 0x10
#define MW_SEGHEAP_MAX_CONTEXTS 2
#define MW_SEGHEAP_MIN_SEGMENT (1u << 16)	/* 64 KB */
#define MW_SEGHEAP_MAX_SEGMENT (1u << 28)	/* 256 MB */
#define MW_SEGHEAP_MAX_SEGMENTS 4096	/* per heap: 4 GB of 1 MB segments */
#define MW_SEGHEAP_MAX_LARGE 4096	/* large blocks per heap */
#define MW_SEGHEAP_MAX_DEPTH 64		/* a red-black tree of 4096: depth <= 26 */

/* A segment context found in a segment heap's header. */
struct mw_segctx {
	uint64_t addr;		/* of the context */
	uint64_t segment_size;	/* ~SegmentMask + 1 */
	uint64_t list_head;	/* address of SegmentListHead */
	uint64_t first;		/* SegmentListHead.Flink */
	uint64_t count;		/* SegmentCount */
};

/* The context at offset off of the header bytes hdr (len of them, read
 * from heap): true when its Heap field is heap, its SegmentMask is
 * ~(size - 1) for a power of two size in [MW_SEGHEAP_MIN_SEGMENT,
 * MW_SEGHEAP_MAX_SEGMENT] and its list head's Flink is a plausible
 * pointer.  Fills out when true. */
bool mw_segctx_parse(const unsigned char *hdr, size_t len, size_t off, bool is32, uint64_t heap,
		     struct mw_segctx *out);

/* Every context in the header that mw_segctx_parse accepts, scanning
 * MW_SEGHEAP_SCAN_FROM.. at MW_SEGHEAP_SCAN_STEP, at most max; returns how
 * many (a context's bytes are not searched again). */
size_t mw_segctx_find(const unsigned char *hdr, size_t len, bool is32, uint64_t heap,
		      struct mw_segctx *out, size_t max);

struct mw_segheap_walk {
	uint32_t contexts;	/* segment contexts found */
	uint32_t segments;	/* segments listed (ranges added) */
	uint32_t large;		/* large blocks found (ranges added) */
	bool segments_read;	/* a context was found and its lists walked */
	bool large_read;	/* the large-block tree was read */
	bool truncated;		/* a walk stopped at a bad entry or a limit, or a
				 * list's length differs from its SegmentCount */
};

typedef bool (*mw_segheap_read_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* The segments and large blocks of the segment heap at heap, appended to
 * out with id.  The caller adds the header's own allocation. */
void mw_segheap_walk(mw_segheap_read_fn rd, void *ctx, uint64_t heap, bool is32, uint32_t id,
		     struct mw_vm_ranges *out, struct mw_segheap_walk *info);

#endif
