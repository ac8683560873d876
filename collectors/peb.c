/*
 * peb.c - pure readers of PEB, NT heap and WOW64 TEB bytes (see peb.h).
 */
#include "peb.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "segheap.h"

static uint64_t le(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

uint64_t mw_peb_ptr(const unsigned char *buf, size_t len, size_t off, bool is32)
{
	size_t w = is32 ? 4 : 8;

	if (off > len || len - off < w)
		return 0;
	return le(buf + off, w);
}

int mw_peb_parse(const unsigned char *buf, size_t len, bool is32, struct mw_peb_heaps *out,
		 struct mw_err *err)
{
	size_t need = is32 ? MW_PEB32_READ : MW_PEB64_READ;
	size_t nh = is32 ? MW_PEB32_NUMBER_OF_HEAPS : MW_PEB64_NUMBER_OF_HEAPS;

	memset(out, 0, sizeof(*out));
	if (len < need)
		return mw_error(err, "PEB: %zu bytes, need %zu", len, need);
	out->process_heap = mw_peb_ptr(buf, len, is32 ? MW_PEB32_PROCESS_HEAP
							: MW_PEB64_PROCESS_HEAP, is32);
	out->heaps_array = mw_peb_ptr(buf, len, is32 ? MW_PEB32_PROCESS_HEAPS
						       : MW_PEB64_PROCESS_HEAPS, is32);
	out->nheaps = (uint32_t)le(buf + nh, 4);
	if (out->nheaps > MW_PEB_MAX_HEAPS)
		return mw_error(err, "PEB: NumberOfHeaps %lu is not believable",
				(unsigned long)out->nheaps);
	if (out->nheaps && !out->heaps_array)
		return mw_error(err, "PEB: %lu heaps but ProcessHeaps is NULL",
				(unsigned long)out->nheaps);
	return 0;
}

static bool read_ptr(mw_peb_read_fn rd, void *ctx, uint64_t addr, bool is32, uint64_t *v)
{
	unsigned char b[8];
	size_t w = is32 ? 4 : 8;

	if (!rd(ctx, addr, b, w))
		return false;
	*v = le(b, w);
	return true;
}

/* A link worth following: not NULL, aligned, in the pointer's range. */
static bool link_ok(uint64_t p, bool is32)
{
	return p && !(p & (is32 ? 3u : 7u)) && (!is32 || p <= UINT32_MAX);
}

static void walk_segments(mw_peb_read_fn rd, void *ctx, uint64_t heap, bool is32,
			  uint32_t page_size, uint32_t id, struct mw_vm_ranges *out,
			  struct mw_heap_walk *info)
{
	size_t sig = is32 ? MW_SEG32_SIGNATURE : MW_SEG64_SIGNATURE;
	size_t lst = is32 ? MW_SEG32_LIST_ENTRY : MW_SEG64_LIST_ENTRY;
	size_t bse = is32 ? MW_SEG32_BASE : MW_SEG64_BASE;
	size_t pgs = is32 ? MW_SEG32_PAGES : MW_SEG64_PAGES;
	uint64_t head = heap + (is32 ? MW_HEAP32_SEGMENT_LIST : MW_HEAP64_SEGMENT_LIST);
	uint64_t link;
	unsigned char hdr[MW_SEG64_PAGES + 4];
	size_t hlen = pgs + 4;

	if (!read_ptr(rd, ctx, head, is32, &link)) {
		info->truncated = true;
		return;
	}
	while (link != head) {
		uint64_t seg, base;
		uint32_t pages;

		if (info->segments >= MW_HEAP_MAX_SEGMENTS || !link_ok(link, is32) || link < lst) {
			info->truncated = true;
			return;
		}
		seg = link - lst;
		if (!rd(ctx, seg, hdr, hlen) || le(hdr + sig, 4) != MW_NT_HEAP_SIGNATURE) {
			info->truncated = true;
			return;
		}
		base = mw_peb_ptr(hdr, hlen, bse, is32);
		pages = (uint32_t)le(hdr + pgs, 4);
		if (!base || !pages || pages > MW_HEAP_MAX_SEGMENT_PAGES) {
			info->truncated = true;
			return;
		}
		mw_vm_ranges_add(out, base, (uint64_t)pages * page_size, id);
		info->segments++;
		link = mw_peb_ptr(hdr, hlen, lst, is32);	/* SegmentListEntry.Flink */
	}
}

/* A list whose every entry lies inside its own allocation: [entry, +1). */
static uint32_t walk_owned(mw_peb_read_fn rd, void *ctx, uint64_t head, bool is32, uint32_t id,
			   struct mw_vm_ranges *out, bool *truncated)
{
	uint64_t link;
	uint32_t n = 0;

	if (!read_ptr(rd, ctx, head, is32, &link)) {
		*truncated = true;
		return 0;
	}
	while (link != head) {
		if (n >= 4 * MW_HEAP_MAX_SEGMENTS || !link_ok(link, is32)) {
			*truncated = true;
			break;
		}
		mw_vm_ranges_add(out, link, 1, id);
		n++;
		if (!read_ptr(rd, ctx, link, is32, &link)) {
			*truncated = true;
			break;
		}
	}
	return n;
}

static void walk_large(mw_peb_read_fn rd, void *ctx, uint64_t heap, bool is32, uint32_t id,
		       struct mw_vm_ranges *out, struct mw_heap_walk *info)
{
	/* HEAP_VIRTUAL_ALLOC_ENTRY starts with its LIST_ENTRY, at the start of
	 * the block's own allocation. */
	info->large = walk_owned(rd, ctx, heap + (is32 ? MW_HEAP32_VIRTUAL_ALLOCD
							: MW_HEAP64_VIRTUAL_ALLOCD),
				 is32, id, out, &info->truncated);
}

void mw_heap_walk(mw_peb_read_fn rd, void *ctx, uint64_t heap, bool is32, uint32_t page_size,
		  uint32_t id, struct mw_vm_ranges *out, struct mw_heap_walk *info)
{
	unsigned char hdr[MW_HEAP64_SIGNATURE + 4];
	size_t sig = is32 ? MW_SEG32_SIGNATURE : MW_SEG64_SIGNATURE;
	size_t hsig = is32 ? MW_HEAP32_SIGNATURE : MW_HEAP64_SIGNATURE;
	uint32_t s;

	memset(info, 0, sizeof(*info));
	if (!heap)
		return;
	mw_vm_ranges_add(out, heap, 1, id);
	if (!rd(ctx, heap, hdr, sig + 4))
		return;
	s = (uint32_t)le(hdr + sig, 4);
	if (s == MW_SEGMENT_HEAP_SIGNATURE) {
		struct mw_segheap_walk sw;

		info->layout = MW_HEAP_LAYOUT_SEGMENT;
		mw_segheap_walk(rd, ctx, heap, is32, id, out, &sw);
		info->segments = sw.segments;
		info->large = sw.large;
		/* what was not read makes the figure a lower bound: say so */
		info->truncated = sw.truncated || !sw.segments_read || !sw.large_read;
		info->header_only = !sw.segments_read && !sw.large_read;
		return;
	}
	if (s != MW_NT_HEAP_SIGNATURE)
		return;
	if (!rd(ctx, heap, hdr, hsig + 4) || le(hdr + hsig, 4) != MW_HEAP_SIGNATURE) {
		/* no HEAP.Signature: Wine's heap (x64 layout known) */
		if (is32)
			return;
		info->layout = MW_HEAP_LAYOUT_WINE;
		info->segments = walk_owned(rd, ctx, heap + MW_WINE_HEAP_SUBHEAPS, false, id, out,
					    &info->truncated);
		info->large = walk_owned(rd, ctx, heap + MW_WINE_HEAP_LARGE, false, id, out,
					 &info->truncated);
		return;
	}
	info->layout = MW_HEAP_LAYOUT_NT;
	walk_segments(rd, ctx, heap, is32, page_size ? page_size : 4096, id, out, info);
	walk_large(rd, ctx, heap, is32, id, out, info);
}

size_t mw_wine_heaps(mw_peb_read_fn rd, void *ctx, uint64_t process_heap, uint64_t *out,
		     size_t max)
{
	uint64_t head = process_heap + MW_WINE_HEAP_ENTRY, link;
	unsigned char sig[4];
	size_t n = 0;

	if (!process_heap || !max)
		return 0;
	out[n++] = process_heap;
	if (!read_ptr(rd, ctx, head, false, &link))
		return n;
	while (link != head && n < max && link_ok(link, false) && link > MW_WINE_HEAP_ENTRY) {
		uint64_t h = link - MW_WINE_HEAP_ENTRY;

		if (!rd(ctx, h + MW_SEG64_SIGNATURE, sig, 4) || le(sig, 4) != MW_NT_HEAP_SIGNATURE)
			break;
		out[n++] = h;
		if (!read_ptr(rd, ctx, link, false, &link))
			break;
	}
	return n;
}

int mw_peb_walk(mw_peb_read_fn rd, void *ctx, uint64_t peb, bool is32, uint32_t page_size,
		uint32_t id0, struct mw_vm_ranges *out, struct mw_peb_info *info, struct mw_err *err)
{
	unsigned char buf[MW_PEB64_READ];
	size_t need = is32 ? MW_PEB32_READ : MW_PEB64_READ, w = is32 ? 4 : 8;
	struct mw_peb_heaps ph;
	uint64_t *heaps;
	uint32_t i, n;

	if (!peb || !rd(ctx, peb, buf, need))
		return mw_error(err, "%s PEB at 0x%llx: unreadable", is32 ? "32-bit" : "64-bit",
				(unsigned long long)peb);
	if (mw_peb_parse(buf, need, is32, &ph, err))
		return -1;
	if (ph.nheaps) {
		unsigned char *arr = mw_xmalloc((size_t)ph.nheaps * w);

		if (!rd(ctx, ph.heaps_array, arr, (size_t)ph.nheaps * w)) {
			free(arr);
			return mw_error(err, "PEB ProcessHeaps at 0x%llx (%lu heaps): unreadable",
					(unsigned long long)ph.heaps_array,
					(unsigned long)ph.nheaps);
		}
		heaps = mw_xmalloc((size_t)ph.nheaps * sizeof(*heaps));
		for (i = 0; i < ph.nheaps; i++)
			heaps[i] = mw_peb_ptr(arr, (size_t)ph.nheaps * w, i * w, is32);
		free(arr);
		n = ph.nheaps;
	} else {
		/* Wine: no list in the PEB, but ProcessHeap and its own list */
		heaps = mw_xmalloc(64 * sizeof(*heaps));
		n = is32 ? 0 : (uint32_t)mw_wine_heaps(rd, ctx, ph.process_heap, heaps, 64);
		if (n)
			info->wine_list = true;
	}
	for (i = 0; i < n; i++) {
		struct mw_heap_walk hw;

		mw_heap_walk(rd, ctx, heaps[i], is32, page_size, id0 + i, out, &hw);
		info->heaps++;
		info->nt += hw.layout == MW_HEAP_LAYOUT_NT;
		info->segment += hw.layout == MW_HEAP_LAYOUT_SEGMENT;
		info->unknown += hw.layout == MW_HEAP_LAYOUT_UNKNOWN;
		info->wine += hw.layout == MW_HEAP_LAYOUT_WINE;
		info->segments += hw.segments;
		info->large += hw.large;
		info->truncated += hw.truncated;
		if (hw.layout == MW_HEAP_LAYOUT_SEGMENT) {
			info->segment_header_only += hw.header_only;
			info->segment_partial += hw.truncated && !hw.header_only;
		}
	}
	free(heaps);
	return 0;
}

int mw_process_heaps(mw_peb_read_fn rd, void *ctx, uint64_t peb64, uint64_t peb32,
		     uint32_t page_size, struct mw_vm_ranges *out, struct mw_peb_info *info,
		     struct mw_err *err)
{
	struct mw_err e32 = { "" };
	int rc32 = 0, rc64;

	memset(info, 0, sizeof(*info));
	if (peb32) {
		/* a WOW64 process: its 32-bit heaps (0..) are the ones its code
		 * uses; the 64-bit side (0x10000..) holds WOW64's own */
		info->wow64 = true;
		rc32 = mw_peb_walk(rd, ctx, peb32, true, page_size, 0, out, info, &e32);
	}
	rc64 = mw_peb_walk(rd, ctx, peb64, false, page_size, peb32 ? MW_PEB64_ID0_WOW64 : 0, out,
			   info, err);
	if (rc32 && rc64) {
		struct mw_err e64 = *err;

		return mw_error(err, "%s; %s", e32.msg, e64.msg);
	}
	if (rc32 || rc64) {
		info->side_unread = true;
		if (rc32)
			mw_error(err, "%s", e32.msg);
		return 0;
	}
	return 0;
}

uint64_t mw_teb32_address(const unsigned char *field, size_t len, uint64_t teb64_addr)
{
	int64_t off = MW_TEB32_DEFAULT_OFFSET;

	if (field && len >= 4) {
		int32_t o = (int32_t)(uint32_t)le(field, 4);

		if (o < 0 || o > 0x100000)
			return 0;
		if (o)
			off = o;
	}
	if (!teb64_addr || teb64_addr + (uint64_t)off > UINT32_MAX)
		return 0;	/* the 32-bit TEB is below 4 GB */
	return teb64_addr + (uint64_t)off;
}

bool mw_tib32_stack(const unsigned char *tib, size_t len, uint64_t *limit, uint64_t *base)
{
	if (len < MW_TIB32_STACK_LIMIT + 4)
		return false;
	*base = le(tib + MW_TIB32_STACK_BASE, 4);
	*limit = le(tib + MW_TIB32_STACK_LIMIT, 4);
	return *base > *limit;
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static bool prefix_ci(const char *s, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!s[i] || lower((unsigned char)s[i]) != lower((unsigned char)p[i]))
			return false;
	return true;
}

static bool put(char *out, size_t size, char drive, const char *rest)
{
	size_t n = strlen(rest);

	if (size < n + 3)
		return false;
	out[0] = drive;
	out[1] = ':';
	memcpy(out + 2, rest, n + 1);
	return true;
}

size_t mw_nt_device_prefix_len(const char *nt, const char *device)
{
	size_t n;

	if (!nt || !device || !*device)
		return 0;
	n = strlen(device);
	while (n && device[n - 1] == '\\')
		n--;
	return n && prefix_ci(nt, device, n) && (nt[n] == '\\' || nt[n] == '\0') ? n : 0;
}

bool mw_nt_to_dos_path(const char *nt, const char *const devices[26], char *out, size_t size)
{
	int i;
	size_t best = 0;
	int drive = -1;

	/* "\??\C:\x", "\\?\C:\x", "\DosDevices\C:\x" */
	static const char *const dos_prefix[] = { "\\??\\", "\\\\?\\", "\\DosDevices\\" };
	for (i = 0; i < 3; i++) {
		size_t n = strlen(dos_prefix[i]);

		if (prefix_ci(nt, dos_prefix[i], n) && nt[n] && nt[n + 1] == ':' &&
		    lower((unsigned char)nt[n]) >= 'a' && lower((unsigned char)nt[n]) <= 'z')
			return put(out, size, (char)(lower((unsigned char)nt[n]) - 32), nt + n + 2);
	}
	/* The longest device that is a whole-component prefix. */
	for (i = 0; i < 26; i++) {
		size_t n = mw_nt_device_prefix_len(nt, devices ? devices[i] : NULL);

		if (n > best) {
			best = n;
			drive = i;
		}
	}
	if (drive < 0)
		return false;
	return put(out, size, (char)('A' + drive), nt + best);
}

int mw_pe_large_address_aware(const unsigned char *buf, size_t len)
{
	uint32_t lfanew;
	uint16_t ch;

	if (!buf || len < 0x40 || buf[0] != 'M' || buf[1] != 'Z')
		return -1;
	lfanew = (uint32_t)buf[0x3c] | (uint32_t)buf[0x3d] << 8 | (uint32_t)buf[0x3e] << 16 |
		 (uint32_t)buf[0x3f] << 24;
	if (lfanew > len || len - lfanew < 0x18 || memcmp(buf + lfanew, "PE\0\0", 4))
		return -1;
	ch = (uint16_t)(buf[lfanew + 0x16] | buf[lfanew + 0x17] << 8);
	return (ch & MW_IMAGE_FILE_LARGE_ADDRESS_AWARE) != 0;
}

uint64_t mw_wow64_top(int laa)
{
	return laa == 0 ? 0x80000000ULL : 0x100000000ULL;
}
