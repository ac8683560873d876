/*
 * segheap.c - a segment heap's segments and large blocks from another
 * process's memory (segheap.h), pure: every byte comes through the read
 * function, every pointer is checked before it is followed, every walk is
 * bounded.  peb.c's mw_heap_walk is the caller.
 */
#include "segheap.h"

#include <string.h>

#include "base/unaligned.h"

/* Pointer-sized little-endian value at off (the caller checked len). */
static uint64_t word(const unsigned char *p, bool is32)
{
	return is32 ? mw_load32(p) : mw_load64(p);
}

/* A pointer worth following: not NULL, aligned, in the pointer's range. */
static bool plausible(uint64_t p, bool is32)
{
	return p && !(p & (is32 ? 3u : 7u)) && (!is32 || p <= UINT32_MAX);
}

bool mw_segctx_parse(const unsigned char *hdr, size_t len, size_t off, bool is32, uint64_t heap,
		     struct mw_segctx *out)
{
	size_t w = is32 ? 4 : 8;
	size_t h = off + (is32 ? MW_SEGCTX32_HEAP : MW_SEGCTX64_HEAP);
	size_t l = off + (is32 ? MW_SEGCTX32_LIST : MW_SEGCTX64_LIST);
	size_t c = off + (is32 ? MW_SEGCTX32_COUNT : MW_SEGCTX64_COUNT);
	uint64_t mask, size, top = is32 ? UINT32_MAX : UINT64_MAX;

	if (off > len || len - off < (is32 ? MW_SEGCTX32_COUNT : MW_SEGCTX64_COUNT) + w)
		return false;
	if (!heap || word(hdr + h, is32) != heap)
		return false;
	mask = word(hdr + off, is32);
	size = (~mask & top) + 1;	/* ~(size - 1) within the pointer's width */
	if (!mask || (size & (size - 1)) || size < MW_SEGHEAP_MIN_SEGMENT ||
	    size > MW_SEGHEAP_MAX_SEGMENT)
		return false;
	out->addr = heap + off;
	out->segment_size = size;
	out->list_head = heap + l;
	out->first = word(hdr + l, is32);
	out->count = word(hdr + c, is32);
	return plausible(out->first, is32);
}

size_t mw_segctx_find(const unsigned char *hdr, size_t len, bool is32, uint64_t heap,
		      struct mw_segctx *out, size_t max)
{
	size_t off = MW_SEGHEAP_SCAN_FROM, n = 0;

	while (n < max && off < len) {
		if (mw_segctx_parse(hdr, len, off, is32, heap, &out[n])) {
			n++;
			off += is32 ? MW_SEGCTX32_SIZE : MW_SEGCTX64_SIZE;
		} else {
			off += MW_SEGHEAP_SCAN_STEP;
		}
	}
	return n;
}

/* One context's segment list: each entry is a segment, aligned to and as
 * long as the context's segment size, whose Blink points back. */
static void walk_context(mw_segheap_read_fn rd, void *ctx, const struct mw_segctx *sc, bool is32,
			 uint32_t id, struct mw_vm_ranges *out, struct mw_segheap_walk *info)
{
	size_t w = is32 ? 4 : 8;
	uint64_t link = sc->first, prev = sc->list_head, n = 0;
	unsigned char le[16];

	while (link != sc->list_head) {
		if (info->segments >= MW_SEGHEAP_MAX_SEGMENTS || !plausible(link, is32) ||
		    (link & (sc->segment_size - 1)) || !rd(ctx, link, le, 2 * w) ||
		    word(le + w, is32) != prev) {
			info->truncated = true;
			return;
		}
		/* its first byte: the allocation holding it is the heap's; its
		 * length is not assumed (a longer range would claim neighbours) */
		mw_vm_ranges_add(out, link, 1, id);
		info->segments++;
		n++;
		prev = link;
		link = word(le, is32);
	}
	if (n != sc->count)
		info->truncated = true;	/* a list changing under us, or not this list */
}

/* The large blocks: a depth-first walk of the tree, decoding the encoded
 * pointers, each node's block checked before it is counted. */
static void walk_large(mw_segheap_read_fn rd, void *ctx, uint64_t heap, bool is32, uint32_t id,
		       struct mw_vm_ranges *out, struct mw_segheap_walk *info)
{
	size_t w = is32 ? 4 : 8;
	uint64_t tree = heap + (is32 ? MW_SEGHEAP32_LARGE_TREE : MW_SEGHEAP64_LARGE_TREE);
	uint64_t stack[MW_SEGHEAP_MAX_DEPTH], root;
	size_t depth = 0, vao = is32 ? MW_LARGE32_VA : MW_LARGE64_VA;
	size_t pgo = is32 ? MW_LARGE32_PAGES : MW_LARGE64_PAGES;
	unsigned char t[16], node[MW_LARGE64_PAGES + 8];
	bool encoded;

	if (!rd(ctx, tree, t, 2 * w))
		return;
	root = word(t, is32);
	encoded = (word(t + w, is32) & 1) != 0;
	if (encoded && root)
		root ^= tree;
	if (root)
		stack[depth++] = root;
	while (depth) {
		uint64_t n = stack[--depth], va, pages;

		if (info->large >= MW_SEGHEAP_MAX_LARGE || !plausible(n, is32) ||
		    !rd(ctx, n, node, pgo + w)) {
			info->truncated = true;
			return;
		}
		va = word(node + vao, is32) & ~(uint64_t)0xffff;
		pages = word(node + pgo, is32) >> 12;
		if (!va || !pages || pages > (1u << 24) || (is32 && va > UINT32_MAX)) {
			info->truncated = true;
			return;
		}
		mw_vm_ranges_add(out, va, 1, id);
		info->large++;
		for (int side = 0; side < 2; side++) {
			uint64_t c = word(node + side * w, is32);

			if (c && encoded)
				c ^= n;
			if (!c)
				continue;
			if (depth >= MW_SEGHEAP_MAX_DEPTH) {
				info->truncated = true;
				return;
			}
			stack[depth++] = c;
		}
	}
	info->large_read = true;
}

void mw_segheap_walk(mw_segheap_read_fn rd, void *ctx, uint64_t heap, bool is32, uint32_t id,
		     struct mw_vm_ranges *out, struct mw_segheap_walk *info)
{
	unsigned char hdr[MW_SEGHEAP_SCAN];
	struct mw_segctx sc[MW_SEGHEAP_MAX_CONTEXTS];
	size_t n = 0, i;

	memset(info, 0, sizeof(*info));
	if (!heap)
		return;
	if (rd(ctx, heap, hdr, sizeof(hdr)))
		n = mw_segctx_find(hdr, sizeof(hdr), is32, heap, sc, MW_SEGHEAP_MAX_CONTEXTS);
	info->contexts = (uint32_t)n;
	for (i = 0; i < n; i++)
		walk_context(rd, ctx, &sc[i], is32, id, out, info);
	info->segments_read = n > 0;
	walk_large(rd, ctx, heap, is32, id, out, info);
}
