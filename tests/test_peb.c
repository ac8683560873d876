/* test_peb.c - the PEB, NT heap and WOW64 TEB readers (collectors/peb.c)
 * on constructed process memory: the Windows x64 and x86 layouts, the
 * segment heap (contexts, segment lists, the large-block tree, encoded
 * or not), Wine's heap, and lying lists.  Wine 8 has no segment heap, so
 * these constructed buffers are the segment heap's only evidence here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/heap.h"
#include "collectors/peb.h"
#include "collectors/segheap.h"
#include "tests/support/test_main.h"

/* A fake address space: a few chunks of bytes. */
struct chunk {
	uint64_t addr;
	unsigned char b[0x400];
};
struct mem {
	struct chunk c[8];
	size_t n;
	unsigned reads;
};

static unsigned char *at(struct mem *m, uint64_t addr)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (addr >= m->c[i].addr && addr < m->c[i].addr + sizeof(m->c[i].b))
			return m->c[i].b + (addr - m->c[i].addr);
	fail_msg("no chunk at 0x%llx", (unsigned long long)addr);
	return NULL;
}

static bool rd(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct mem *m = ctx;
	size_t i;

	m->reads++;
	for (i = 0; i < m->n; i++)
		if (addr >= m->c[i].addr && addr - m->c[i].addr <= sizeof(m->c[i].b) &&
		    len <= sizeof(m->c[i].b) - (addr - m->c[i].addr)) {
			memcpy(buf, m->c[i].b + (addr - m->c[i].addr), len);
			return true;
		}
	return false;
}

static void put(unsigned char *p, uint64_t v, size_t w)
{
	size_t i;

	for (i = 0; i < w; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void wr(struct mem *m, uint64_t addr, uint64_t v, size_t w)
{
	put(at(m, addr), v, w);
}

static struct chunk *add_chunk(struct mem *m, uint64_t addr)
{
	struct chunk *c = &m->c[m->n++];

	memset(c, 0, sizeof(*c));
	c->addr = addr;
	return c;
}

static void peb_fields(void **state)
{
	unsigned char b[MW_PEB64_READ], s[MW_PEB32_READ];
	struct mw_peb_heaps h;
	struct mw_err err = { "" };

	(void)state;
	memset(b, 0, sizeof(b));
	put(b + 0x30, 0x1f0000, 8);
	put(b + 0xe8, 3, 4);
	put(b + 0xec, 16, 4);
	put(b + 0xf0, 0x7ff712345678ULL, 8);
	assert_int_equal(mw_peb_parse(b, sizeof(b), false, &h, &err), 0);
	assert_int_equal(h.process_heap, 0x1f0000);
	assert_int_equal(h.nheaps, 3);
	assert_int_equal(h.heaps_array, 0x7ff712345678ULL);
	assert_int_equal(mw_peb_parse(b, sizeof(b) - 1, false, &h, &err), -1);
	assert_non_null(strstr(err.msg, "need"));
	put(b + 0xe8, MW_PEB_MAX_HEAPS + 1, 4);
	assert_int_equal(mw_peb_parse(b, sizeof(b), false, &h, &err), -1);
	assert_non_null(strstr(err.msg, "NumberOfHeaps"));
	put(b + 0xe8, 2, 4);
	put(b + 0xf0, 0, 8);
	assert_int_equal(mw_peb_parse(b, sizeof(b), false, &h, &err), -1);
	put(b + 0xe8, 0, 4);
	assert_int_equal(mw_peb_parse(b, sizeof(b), false, &h, &err), 0);
	assert_int_equal(h.nheaps, 0);

	memset(s, 0, sizeof(s));
	put(s + 0x18, 0x5d0000, 4);
	put(s + 0x88, 4, 4);
	put(s + 0x90, 0x77f0a000, 4);
	assert_int_equal(mw_peb_parse(s, sizeof(s), true, &h, &err), 0);
	assert_int_equal(h.process_heap, 0x5d0000);
	assert_int_equal(h.nheaps, 4);
	assert_int_equal(h.heaps_array, 0x77f0a000);
	assert_int_equal(mw_peb_ptr(s, sizeof(s), 0x90, true), 0x77f0a000);
	assert_int_equal(mw_peb_ptr(s, sizeof(s), sizeof(s) - 3, true), 0);
	assert_int_equal(mw_peb_ptr(s, sizeof(s), sizeof(s) + 8, true), 0);
}

/* An NT heap, x64 or x86: the heap (its own first segment), a second
 * segment and one large block. */
struct nt {
	uint64_t heap, seg2, big;
	size_t w, sig, lst, bse, pgs, seglist, valist, hsig;
};

static void add_nt(struct mem *m, const struct nt *t);

static void build_nt(struct mem *m, const struct nt *t)
{
	m->n = 0;
	add_nt(m, t);
}

static void add_nt(struct mem *m, const struct nt *t)
{
	uint64_t head = t->heap + t->seglist, vahead = t->heap + t->valist;

	add_chunk(m, t->heap);
	add_chunk(m, t->seg2);
	add_chunk(m, t->big);
	/* heap = segment 0 */
	wr(m, t->heap + t->sig, MW_NT_HEAP_SIGNATURE, 4);
	wr(m, t->heap + t->hsig, MW_HEAP_SIGNATURE, 4);
	wr(m, t->heap + t->bse, t->heap, t->w);
	wr(m, t->heap + t->pgs, 16, 4);
	wr(m, head, t->heap + t->lst, t->w);		/* head -> seg0 */
	wr(m, t->heap + t->lst, t->seg2 + t->lst, t->w);	/* seg0 -> seg2 */
	wr(m, t->seg2 + t->sig, MW_NT_HEAP_SIGNATURE, 4);
	wr(m, t->seg2 + t->bse, t->seg2, t->w);
	wr(m, t->seg2 + t->pgs, 256, 4);
	wr(m, t->seg2 + t->lst, head, t->w);		/* seg2 -> head */
	wr(m, vahead, t->big, t->w);			/* head -> big */
	wr(m, t->big, vahead, t->w);			/* big -> head */
}

static void check_nt(const struct nt *t, bool is32)
{
	struct mem m;
	struct mw_vm_ranges r = { 0 };
	struct mw_heap_walk hw;

	build_nt(&m, t);
	mw_heap_walk(rd, &m, t->heap, is32, 4096, 7, &r, &hw);
	assert_int_equal(hw.layout, MW_HEAP_LAYOUT_NT);
	assert_int_equal(hw.segments, 2);
	assert_int_equal(hw.large, 1);
	assert_false(hw.truncated);
	assert_int_equal(r.n, 4);
	assert_int_equal(r.r[0].base, t->heap);
	assert_int_equal(r.r[0].size, 1);
	assert_int_equal(r.r[1].base, t->heap);
	assert_int_equal(r.r[1].size, 16 * 4096);
	assert_int_equal(r.r[2].base, t->seg2);
	assert_int_equal(r.r[2].size, 256 * 4096);
	assert_int_equal(r.r[3].base, t->big);
	assert_int_equal(r.r[3].size, 1);
	for (size_t i = 0; i < r.n; i++)
		assert_int_equal(r.r[i].id, 7);
	mw_vm_ranges_release(&r);
}

static const struct nt nt64 = { 0x1f0000, 0x7ff0000000ULL, 0x2a00000, 8, 0x10, 0x18, 0x30,
				0x38, 0x120, 0x110, 0x98 };
static const struct nt nt32 = { 0x5d0000, 0x6e00000, 0x700000, 4, 0x08, 0x10, 0x1c, 0x20,
				0xa4, 0x9c, 0x60 };

static void nt_heap_x64(void **state)
{
	(void)state;
	check_nt(&nt64, false);
}

static void nt_heap_x86(void **state)
{
	(void)state;
	check_nt(&nt32, true);
}

static void other_layouts(void **state)
{
	struct mem m;
	struct mw_vm_ranges r = { 0 };
	struct mw_heap_walk hw;

	(void)state;
	/* segment heap: the header's allocation only */
	m.n = 0;
	add_chunk(&m, 0x20000000);
	wr(&m, 0x20000010, MW_SEGMENT_HEAP_SIGNATURE, 4);
	mw_heap_walk(rd, &m, 0x20000000, false, 4096, 1, &r, &hw);
	assert_int_equal(hw.layout, MW_HEAP_LAYOUT_SEGMENT);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.r[0].base, 0x20000000);
	/* x86 segment heap: signature at 8 */
	r.n = 0;
	wr(&m, 0x20000008, MW_SEGMENT_HEAP_SIGNATURE, 4);
	mw_heap_walk(rd, &m, 0x20000000, true, 4096, 1, &r, &hw);
	assert_int_equal(hw.layout, MW_HEAP_LAYOUT_SEGMENT);
	/* no signature */
	r.n = 0;
	memset(m.c[0].b, 0, sizeof(m.c[0].b));
	mw_heap_walk(rd, &m, 0x20000000, false, 4096, 1, &r, &hw);
	assert_int_equal(hw.layout, MW_HEAP_LAYOUT_UNKNOWN);
	assert_int_equal(r.n, 1);
	/* NT heap signature and HEAP.Signature, but a segment list that does
	 * not check out: the header's allocation only */
	r.n = 0;
	wr(&m, 0x20000010, MW_NT_HEAP_SIGNATURE, 4);
	wr(&m, 0x20000098, MW_HEAP_SIGNATURE, 4);
	wr(&m, 0x20000120, 0x20000000 + 0x300, 8);	/* points at zeros */
	wr(&m, 0x20000110, 0, 8);
	mw_heap_walk(rd, &m, 0x20000000, false, 4096, 1, &r, &hw);
	assert_int_equal(hw.layout, MW_HEAP_LAYOUT_NT);
	assert_int_equal(hw.segments, 0);
	assert_true(hw.truncated);
	assert_int_equal(r.n, 1);
	/* unreadable heap: still its address */
	r.n = 0;
	mw_heap_walk(rd, &m, 0x90000000, false, 4096, 2, &r, &hw);
	assert_int_equal(hw.layout, MW_HEAP_LAYOUT_UNKNOWN);
	assert_int_equal(r.n, 1);
	/* NULL heap: nothing */
	r.n = 0;
	mw_heap_walk(rd, &m, 0, false, 4096, 2, &r, &hw);
	assert_int_equal(r.n, 0);
	mw_vm_ranges_release(&r);
}

/* Wine 8 (x64), as measured: PEB lists no heaps; heaps linked at 0x78
 * from the process heap; subheaps at 0x88, large blocks at 0x98. */
static void wine_heaps(void **state)
{
	struct mem m;
	struct mw_vm_ranges r = { 0 };
	struct mw_heap_walk hw;
	uint64_t hs[8];
	const uint64_t ph = 0x340000, h2 = 0x10a0000, sub = 0x2a00000;

	(void)state;
	m.n = 0;
	add_chunk(&m, ph);
	add_chunk(&m, h2);
	add_chunk(&m, sub);
	wr(&m, ph + 0x10, MW_NT_HEAP_SIGNATURE, 4);
	wr(&m, h2 + 0x10, MW_NT_HEAP_SIGNATURE, 4);
	wr(&m, ph + 0x78, h2 + 0x78, 8);
	wr(&m, h2 + 0x78, ph + 0x78, 8);
	/* ph: one subheap elsewhere, no large blocks */
	wr(&m, ph + 0x88, sub + 0x18, 8);
	wr(&m, sub + 0x18, ph + 0x88, 8);
	wr(&m, ph + 0x98, ph + 0x98, 8);
	/* h2: empty lists */
	wr(&m, h2 + 0x88, h2 + 0x88, 8);
	wr(&m, h2 + 0x98, h2 + 0x98, 8);
	assert_int_equal(mw_wine_heaps(rd, &m, ph, hs, 8), 2);
	assert_int_equal(hs[0], ph);
	assert_int_equal(hs[1], h2);
	assert_int_equal(mw_wine_heaps(rd, &m, ph, hs, 1), 1);
	assert_int_equal(mw_wine_heaps(rd, &m, 0, hs, 8), 0);
	mw_heap_walk(rd, &m, ph, false, 4096, 0, &r, &hw);
	assert_int_equal(hw.layout, MW_HEAP_LAYOUT_WINE);
	assert_int_equal(hw.segments, 1);
	assert_int_equal(hw.large, 0);
	assert_false(hw.truncated);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.r[1].base, sub + 0x18);
	/* a linked heap without the signature ends the list */
	wr(&m, h2 + 0x10, 0, 4);
	assert_int_equal(mw_wine_heaps(rd, &m, ph, hs, 8), 1);
	/* a cycle that misses the head: bounded by max */
	wr(&m, h2 + 0x10, MW_NT_HEAP_SIGNATURE, 4);
	wr(&m, h2 + 0x78, h2 + 0x78, 8);
	assert_int_equal(mw_wine_heaps(rd, &m, ph, hs, 8), 8);
	/* 32-bit: Wine's layout is not known, header allocation only */
	r.n = 0;
	wr(&m, ph + 0x08, MW_NT_HEAP_SIGNATURE, 4);
	mw_heap_walk(rd, &m, ph, true, 4096, 0, &r, &hw);
	assert_int_equal(hw.layout, MW_HEAP_LAYOUT_UNKNOWN);
	assert_int_equal(r.n, 1);
	mw_vm_ranges_release(&r);
}

/* Lists that lie: every walk ends, bounded. */
static void lying_lists(void **state)
{
	struct mem m;
	struct mw_vm_ranges r = { 0 };
	struct mw_heap_walk hw;
	const struct nt *t = &nt64;

	(void)state;
	/* seg2 points to itself: a cycle that never returns to the head */
	build_nt(&m, t);
	wr(&m, t->seg2 + t->lst, t->seg2 + t->lst, 8);
	m.reads = 0;
	mw_heap_walk(rd, &m, t->heap, false, 4096, 0, &r, &hw);
	assert_true(hw.truncated);
	assert_int_equal(hw.segments, MW_HEAP_MAX_SEGMENTS);
	assert_true(m.reads < 3 * MW_HEAP_MAX_SEGMENTS);
	/* large-block list cycle */
	r.n = 0;
	build_nt(&m, t);
	wr(&m, t->big, t->big, 8);
	mw_heap_walk(rd, &m, t->heap, false, 4096, 0, &r, &hw);
	assert_true(hw.truncated);
	assert_int_equal(hw.large, 4 * MW_HEAP_MAX_SEGMENTS);
	/* misaligned, NULL, unreadable links; bad signature; absurd pages */
	r.n = 0;
	build_nt(&m, t);
	wr(&m, t->heap + t->lst, t->seg2 + t->lst + 1, 8);
	mw_heap_walk(rd, &m, t->heap, false, 4096, 0, &r, &hw);
	assert_true(hw.truncated);
	assert_int_equal(hw.segments, 1);
	r.n = 0;
	wr(&m, t->heap + t->lst, 0, 8);
	mw_heap_walk(rd, &m, t->heap, false, 4096, 0, &r, &hw);
	assert_true(hw.truncated);
	assert_int_equal(hw.segments, 1);
	r.n = 0;
	wr(&m, t->heap + t->lst, 0x5550000 + t->lst, 8);
	mw_heap_walk(rd, &m, t->heap, false, 4096, 0, &r, &hw);
	assert_true(hw.truncated);
	assert_int_equal(hw.segments, 1);
	r.n = 0;
	build_nt(&m, t);
	wr(&m, t->seg2 + t->sig, 0xfeedface, 4);
	mw_heap_walk(rd, &m, t->heap, false, 4096, 0, &r, &hw);
	assert_true(hw.truncated);
	assert_int_equal(hw.segments, 1);
	assert_int_equal(hw.large, 1);	/* the other list still walked */
	r.n = 0;
	build_nt(&m, t);
	wr(&m, t->seg2 + t->pgs, MW_HEAP_MAX_SEGMENT_PAGES + 1, 4);
	mw_heap_walk(rd, &m, t->heap, false, 4096, 0, &r, &hw);
	assert_true(hw.truncated);
	assert_int_equal(hw.segments, 1);
	/* x86: a link above 4 GB cannot be */
	r.n = 0;
	build_nt(&m, &nt32);
	wr(&m, nt32.heap + nt32.lst, 0xfffffffc, 4);
	mw_heap_walk(rd, &m, nt32.heap, true, 4096, 0, &r, &hw);
	assert_true(hw.truncated);
	assert_int_equal(hw.segments, 1);
	mw_vm_ranges_release(&r);
}

static void wow64_teb(void **state)
{
	unsigned char f[4], tib[12];
	uint64_t lo, hi;

	(void)state;
	put(f, 0x2000, 4);
	assert_int_equal(mw_teb32_address(f, 4, 0x3e1000), 0x3e3000);
	put(f, 0, 4);		/* before Windows 10 1809 the field is 0 */
	assert_int_equal(mw_teb32_address(f, 4, 0x3e1000), 0x3e3000);
	assert_int_equal(mw_teb32_address(NULL, 0, 0x3e1000), 0x3e3000);
	put(f, 0x3000, 4);
	assert_int_equal(mw_teb32_address(f, 4, 0x3e1000), 0x3e4000);
	put(f, (uint32_t)-0x2000, 4);	/* a 32-bit TEB's own field */
	assert_int_equal(mw_teb32_address(f, 4, 0x3e1000), 0);
	put(f, 0x2000, 4);
	assert_int_equal(mw_teb32_address(f, 4, 0x7ff5f000000ULL), 0);	/* above 4 GB */
	assert_int_equal(mw_teb32_address(f, 4, 0), 0);

	memset(tib, 0, sizeof(tib));
	put(tib + 0, 0xffffffff, 4);	/* ExceptionList */
	put(tib + 4, 0x00700000, 4);	/* StackBase */
	put(tib + 8, 0x006fc000, 4);	/* StackLimit */
	assert_true(mw_tib32_stack(tib, sizeof(tib), &lo, &hi));
	assert_int_equal(lo, 0x006fc000);
	assert_int_equal(hi, 0x00700000);
	assert_false(mw_tib32_stack(tib, 11, &lo, &hi));
	put(tib + 8, 0x00700000, 4);
	assert_false(mw_tib32_stack(tib, sizeof(tib), &lo, &hi));
}

static void dos_paths(void **state)
{
	const char *dev[26] = { 0 };
	char out[64];

	(void)state;
	dev['C' - 'A'] = "\\Device\\HarddiskVolume3";
	dev['D' - 'A'] = "\\Device\\HarddiskVolume30\\";
	dev['Z' - 'A'] = "\\??\\unix";
	assert_true(mw_nt_to_dos_path("\\Device\\HarddiskVolume3\\Windows\\System32\\x.dll", dev,
				      out, sizeof(out)));
	assert_string_equal(out, "C:\\Windows\\System32\\x.dll");
	assert_true(mw_nt_to_dos_path("\\device\\harddiskvolume30\\data.bin", dev, out,
				      sizeof(out)));
	assert_string_equal(out, "D:\\data.bin");
	assert_true(mw_nt_to_dos_path("\\??\\unix\\tmp\\f", dev, out, sizeof(out)));
	/* "\??\" + a drive letter wins over the device table */
	assert_true(mw_nt_to_dos_path("\\??\\c:\\users\\f.txt", dev, out, sizeof(out)));
	assert_string_equal(out, "C:\\users\\f.txt");
	assert_true(mw_nt_to_dos_path("\\\\?\\E:\\x", NULL, out, sizeof(out)));
	assert_string_equal(out, "E:\\x");
	strcpy(out, "unchanged");
	assert_false(mw_nt_to_dos_path("\\Device\\HarddiskVolume4\\x", dev, out, sizeof(out)));
	assert_false(mw_nt_to_dos_path("\\Device\\HarddiskVolume", dev, out, sizeof(out)));
	assert_false(mw_nt_to_dos_path("\\Device\\HarddiskVolume3\\a-long-name", dev, out, 8));
	assert_string_equal(out, "unchanged");
	assert_true(mw_nt_to_dos_path("\\Device\\HarddiskVolume3", dev, out, sizeof(out)));
	assert_string_equal(out, "C:");
}

/* The large-address-aware flag from constructed PE headers. */
/* The device-prefix rule both translators share (peb.c, mapped_name.c). */
static void device_prefix(void **state)
{
	(void)state;
	assert_int_equal(mw_nt_device_prefix_len("\\Device\\HarddiskVolume3\\x", "\\Device\\HarddiskVolume3"), 23);
	/* trailing backslashes on the device, any case on the path */
	assert_int_equal(mw_nt_device_prefix_len("\\device\\harddiskvolume3\\x", "\\Device\\HarddiskVolume3\\\\"), 23);
	/* the volume itself */
	assert_int_equal(mw_nt_device_prefix_len("\\Device\\HarddiskVolume3", "\\Device\\HarddiskVolume3"), 23);
	/* not a whole component: Volume3 is no prefix of Volume31 */
	assert_int_equal(mw_nt_device_prefix_len("\\Device\\HarddiskVolume31\\x", "\\Device\\HarddiskVolume3"), 0);
	assert_int_equal(mw_nt_device_prefix_len("\\Device\\Harddisk", "\\Device\\HarddiskVolume3"), 0);
	assert_int_equal(mw_nt_device_prefix_len("\\Device\\x", NULL), 0);
	assert_int_equal(mw_nt_device_prefix_len("\\Device\\x", ""), 0);
	assert_int_equal(mw_nt_device_prefix_len("\\Device\\x", "\\\\"), 0);
	assert_int_equal(mw_nt_device_prefix_len(NULL, "\\Device"), 0);
}

static void pe_large_address_aware(void **state)
{
	unsigned char h[MW_PE_HEADER_READ];

	(void)state;
	memset(h, 0, sizeof(h));
	h[0] = 'M', h[1] = 'Z';
	h[0x3c] = 0x80;			/* e_lfanew */
	memcpy(h + 0x80, "PE\0\0", 4);
	h[0x84] = 0x4c, h[0x85] = 0x01;	/* Machine i386 */
	h[0x96] = 0x02, h[0x97] = 0x01;	/* EXECUTABLE_IMAGE | 32BIT_MACHINE */
	assert_int_equal(mw_pe_large_address_aware(h, sizeof(h)), 0);
	assert_int_equal(mw_wow64_top(0), 0x80000000ULL);
	h[0x96] |= 0x20;		/* LARGE_ADDRESS_AWARE */
	assert_int_equal(mw_pe_large_address_aware(h, sizeof(h)), 1);
	assert_int_equal(mw_wow64_top(1), 0x100000000ULL);
	assert_int_equal(mw_wow64_top(-1), 0x100000000ULL);
	/* the header must lie within the bytes given */
	assert_int_equal(mw_pe_large_address_aware(h, 0x97), -1);
	assert_int_equal(mw_pe_large_address_aware(h, 0x98), 1);
	h[0x3c] = 0xff, h[0x3d] = 0xff, h[0x3e] = 0xff, h[0x3f] = 0x7f;
	assert_int_equal(mw_pe_large_address_aware(h, sizeof(h)), -1);
	h[0x3c] = 0x80, h[0x3d] = h[0x3e] = h[0x3f] = 0;
	h[0x81] = 'X';			/* no PE signature */
	assert_int_equal(mw_pe_large_address_aware(h, sizeof(h)), -1);
	h[0x81] = 'E';
	h[0] = 'X';			/* no MZ */
	assert_int_equal(mw_pe_large_address_aware(h, sizeof(h)), -1);
	assert_int_equal(mw_pe_large_address_aware(NULL, 0), -1);
	assert_int_equal(mw_pe_large_address_aware(h, 0x3f), -1);
}

/* A segment heap as the public layouts describe it: two segment contexts
 * (1 MB and 16 MB segments), three segments, two large blocks. */
struct sh {
	uint64_t heap;
	size_t w, sig, ctx, ctx_size, f_heap, f_list, f_count, tree, va, pages;
};
static const struct sh sh64 = { 0x7ff600000000ULL, 8, 0x10, 0x140, 0xC0, 0x38, 0x48, 0x58,
				 0x48, 0x18, 0x20 };
static const struct sh sh32 = { 0x00a00000, 4, 0x08, 0x100, 0x80, 0x24, 0x44, 0x4c, 0x44,
				0x0c, 0x10 };
#define SEG1 0x30000000ULL
#define SEG2 0x30100000ULL
#define SEG3 0x32000000ULL
#define NODES 0x38000000ULL

/* A segment context at c: segments of seg_size, segs[0..n) on its list. */
static void add_context(struct mem *m, const struct sh *t, uint64_t c, uint64_t seg_size,
			const uint64_t *segs, size_t n)
{
	uint64_t head = c + t->f_list, top = t->w == 4 ? 0xffffffffULL : ~0ULL;

	wr(m, c, top & ~(seg_size - 1), t->w);
	wr(m, c + t->f_heap, t->heap, t->w);
	wr(m, c + t->f_count, n, t->w);
	for (size_t i = 0; i <= n; i++) {
		uint64_t at = i < n ? segs[i] : head;	/* Flink, Blink of each */

		wr(m, at, i + 1 < n ? segs[i + 1] : i < n ? head : segs[0], t->w);
		wr(m, at + t->w, i == 0 ? head : segs[i - 1], t->w);
	}
}

static void build_sh(struct mem *m, const struct sh *t, bool encoded)
{
	static const uint64_t segs0[] = { SEG1, SEG2 }, segs1[] = { SEG3 };
	uint64_t n1 = NODES, n2 = NODES + 0x100, tree = t->heap + t->tree;

	m->n = 0;
	add_chunk(m, t->heap);
	add_chunk(m, SEG1);
	add_chunk(m, SEG2);
	add_chunk(m, SEG3);
	add_chunk(m, NODES);
	wr(m, t->heap + t->sig, MW_SEGMENT_HEAP_SIGNATURE, 4);
	add_context(m, t, t->heap + t->ctx, 0x100000, segs0, 2);
	add_context(m, t, t->heap + t->ctx + t->ctx_size, 0x1000000, segs1, 1);
	/* large blocks: root n1, its left child n2; UnusedBytes in the low
	 * 16 bits of VirtualAddress, AllocatedPages from bit 12 */
	wr(m, tree, encoded ? n1 ^ tree : n1, t->w);
	wr(m, tree + t->w, encoded ? n2 | 1 : n2, t->w);
	wr(m, n1, encoded ? n2 ^ n1 : n2, t->w);
	wr(m, n1 + t->va, 0x40000000 | 0x123, t->w);
	wr(m, n1 + t->pages, 32ULL << 12, t->w);
	wr(m, n2 + t->va, 0x41000000, t->w);
	wr(m, n2 + t->pages, 300ULL << 12 | 1, t->w);
}

/* A segment heap's walk as expected. */
static void expect_sh(const struct mw_heap_walk *hw, uint32_t segments, uint32_t large,
		      bool truncated, bool header_only)
{
	assert_int_equal(hw->layout, MW_HEAP_LAYOUT_SEGMENT);
	assert_int_equal(hw->segments, segments);
	assert_int_equal(hw->large, large);
	assert_int_equal(hw->truncated, truncated);
	assert_int_equal(hw->header_only, header_only);
}

static void check_sh(const struct sh *t, bool is32, bool encoded)
{
	struct mem m;
	struct mw_vm_ranges r = { 0 };
	struct mw_heap_walk hw;

	build_sh(&m, t, encoded);
	mw_heap_walk(rd, &m, t->heap, is32, 4096, 5, &r, &hw);
	expect_sh(&hw, 3, 2, false, false);
	assert_int_equal(r.n, 6);
	assert_int_equal(r.r[0].base, t->heap);
	assert_int_equal(r.r[1].base, SEG1);
	assert_int_equal(r.r[1].size, 1);
	assert_int_equal(r.r[2].base, SEG2);
	assert_int_equal(r.r[3].base, SEG3);
	assert_int_equal(r.r[3].size, 1);
	assert_int_equal(r.r[4].base, 0x40000000);
	assert_int_equal(r.r[4].size, 1);
	assert_int_equal(r.r[5].base, 0x41000000);
	for (size_t i = 0; i < r.n; i++)
		assert_int_equal(r.r[i].id, 5);
	mw_vm_ranges_release(&r);
}

static void segment_heap_x64(void **state)
{
	(void)state;
	check_sh(&sh64, false, false);
	check_sh(&sh64, false, true);
}

static void segment_heap_x86(void **state)
{
	(void)state;
	check_sh(&sh32, true, false);
	check_sh(&sh32, true, true);
}

/* Contexts are found where the build put them (0x100 on older Windows 10)
 * and only when they check out. */
static void segment_contexts(void **state)
{
	unsigned char b[MW_SEGHEAP_SCAN];
	struct mw_segctx c[2];
	uint64_t heap = 0x7ff600000000ULL;

	(void)state;
	memset(b, 0, sizeof(b));
	put(b + 0x100, ~0xfffffULL, 8);
	put(b + 0x100 + 0x38, heap, 8);
	put(b + 0x100 + 0x48, 0x30000000, 8);
	put(b + 0x100 + 0x58, 7, 8);
	assert_int_equal(mw_segctx_find(b, sizeof(b), false, heap, c, 2), 1);
	assert_int_equal(c[0].addr, heap + 0x100);
	assert_int_equal(c[0].segment_size, 0x100000);
	assert_int_equal(c[0].list_head, heap + 0x148);
	assert_int_equal(c[0].first, 0x30000000);
	assert_int_equal(c[0].count, 7);
	/* another heap's context */
	assert_int_equal(mw_segctx_find(b, sizeof(b), false, heap + 0x1000, c, 2), 0);
	/* a mask that is no segment size: not a power of two, too small, too big */
	put(b + 0x100, ~0xffffeULL, 8);
	assert_false(mw_segctx_parse(b, sizeof(b), 0x100, false, heap, c));
	put(b + 0x100, ~0xfffULL, 8);
	assert_false(mw_segctx_parse(b, sizeof(b), 0x100, false, heap, c));
	put(b + 0x100, ~0x3fffffffULL, 8);
	assert_false(mw_segctx_parse(b, sizeof(b), 0x100, false, heap, c));
	/* a NULL or misaligned list head */
	put(b + 0x100, ~0xfffffULL, 8);
	put(b + 0x100 + 0x48, 0x30000004, 8);
	assert_false(mw_segctx_parse(b, sizeof(b), 0x100, false, heap, c));
	put(b + 0x100 + 0x48, 0, 8);
	assert_false(mw_segctx_parse(b, sizeof(b), 0x100, false, heap, c));
	/* the context's bytes must lie within the buffer */
	put(b + 0x100 + 0x48, 0x30000000, 8);
	assert_true(mw_segctx_parse(b, 0x160, 0x100, false, heap, c));
	assert_false(mw_segctx_parse(b, 0x15f, 0x100, false, heap, c));
	assert_false(mw_segctx_parse(b, sizeof(b), sizeof(b) + 8, false, heap, c));
	/* x86: a 32-bit mask */
	memset(b, 0, sizeof(b));
	put(b + 0x140, 0xfff00000, 4);
	put(b + 0x140 + 0x24, 0xa00000, 4);
	put(b + 0x140 + 0x44, 0x30000000, 4);
	assert_int_equal(mw_segctx_find(b, sizeof(b), true, 0xa00000, c, 2), 1);
	assert_int_equal(c[0].segment_size, 0x100000);
}

/* What does not check out is not counted, and the walk says so: one lie
 * (8 bytes written at off from the heap, or at an absolute address) in the
 * x64 segment heap at a time, and what is still found. */
struct lie {
	const char *what;
	uint64_t addr;		/* absolute; 0: heap + off */
	size_t off;
	uint64_t value;
	bool encoded;
	uint32_t segments, large;
};

static void segment_heap_lies(void **state)
{
	const struct sh *t = &sh64;
	const uint64_t h0 = t->heap + t->ctx + t->f_list;
	const struct lie lies[] = {
		{ "Blink not back", SEG2 + 8, 0, h0, false, 2, 2 },	/* SEG1, SEG3 */
		{ "segment misaligned", h0, 0, SEG1 + 0x1000, false, 1, 2 },
		{ "list shorter than SegmentCount", 0, 0x140 + 0x58, 3, false, 3, 2 },
		{ "large block at NULL", NODES + 0x100 + 0x18, 0, 0xffff, false, 3, 1 },
		{ "node misaligned", NODES, 0, NODES + 0x101, false, 3, 1 },
		{ "tree loops", NODES + 0x100, 0, NODES, false, 3, MW_SEGHEAP_MAX_LARGE },
		/* the Encoded bit lost: nonsense pointers are not followed */
		{ "encoded read as plain", 0, 0x48 + 8, NODES + 0x100, true, 3, 0 },
	};
	struct mem m;
	struct mw_vm_ranges r = { 0 };
	struct mw_heap_walk hw;

	(void)state;
	for (size_t i = 0; i < MW_ARRAY_SIZE(lies); i++) {
		const struct lie *l = &lies[i];

		print_message("lie: %s\n", l->what);
		r.n = 0;
		build_sh(&m, t, l->encoded);
		wr(&m, l->addr ? l->addr : t->heap + l->off, l->value, 8);
		mw_heap_walk(rd, &m, t->heap, false, 4096, 0, &r, &hw);
		expect_sh(&hw, l->segments, l->large, true, false);
	}
	/* no context checks out and the tree is unreadable: the header only,
	 * and the walk says so */
	r.n = 0;
	build_sh(&m, t, false);
	wr(&m, t->heap + t->ctx + t->f_heap, 0, 8);
	wr(&m, t->heap + t->ctx + t->ctx_size + t->f_heap, 0, 8);
	wr(&m, t->heap + t->tree, 0x50000000, 8);
	mw_heap_walk(rd, &m, t->heap, false, 4096, 0, &r, &hw);
	expect_sh(&hw, 0, 0, true, true);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.r[0].base, t->heap);
	mw_vm_ranges_release(&r);
}

/* The walk's ranges over a region map: the segment heap's committed and
 * reserved bytes are the heap's (before: only its header's allocation). */
static void segment_heap_bytes(void **state)
{
	struct mem m;
	struct mw_vm_ranges r = { 0 };
	struct mw_vm_regions v = { 0 };
	struct mw_heap_list h = { 0 };
	struct mw_heap_walk hw;
	const uint64_t K = 1024, M = K * K;

	(void)state;
	build_sh(&m, &sh64, true);
	mw_heap_walk(rd, &m, sh64.heap, false, 4096, 0, &r, &hw);
	/* header 64 KB; SEG1 256 KB of 1 MB committed, SEG2 all, SEG3 1 MB of
	 * 16 MB; large blocks 128 KB and 1.2 MB; an unrelated neighbour */
	mw_vm_regions_add(&v, SEG1, 256 * K, SEG1, MW_VM_COMMIT, MW_VM_PRIVATE, 4);
	mw_vm_regions_add(&v, SEG1 + 256 * K, 768 * K, SEG1, MW_VM_RESERVE, MW_VM_PRIVATE, 0);
	mw_vm_regions_add(&v, SEG2, M, SEG2, MW_VM_COMMIT, MW_VM_PRIVATE, 4);
	mw_vm_regions_add(&v, SEG2 + M, M, SEG2 + M, MW_VM_COMMIT, MW_VM_PRIVATE, 4);
	mw_vm_regions_add(&v, SEG3, M, SEG3, MW_VM_COMMIT, MW_VM_PRIVATE, 4);
	mw_vm_regions_add(&v, SEG3 + M, 15 * M, SEG3, MW_VM_RESERVE, MW_VM_PRIVATE, 0);
	mw_vm_regions_add(&v, 0x40000000, 128 * K, 0x40000000, MW_VM_COMMIT, MW_VM_PRIVATE, 4);
	mw_vm_regions_add(&v, 0x41000000, 1200 * K, 0x41000000, MW_VM_COMMIT, MW_VM_PRIVATE, 4);
	mw_vm_regions_add(&v, sh64.heap, 64 * K, sh64.heap, MW_VM_COMMIT, MW_VM_PRIVATE, 4);
	mw_heap_from_ranges(&v, &r, &h);
	assert_int_equal(h.n, 1);
	print_message("segment heap: committed %llu (header only: %llu), uncommitted %llu\n",
		      (unsigned long long)h.h[0].committed, (unsigned long long)(64 * K),
		      (unsigned long long)h.h[0].uncommitted);
	assert_int_equal(h.h[0].committed, 64 * K + 256 * K + M + M + 128 * K + 1200 * K);
	assert_int_equal(h.h[0].uncommitted, 768 * K + 15 * M);
	free(h.h);
	mw_vm_regions_release(&v);
	mw_vm_ranges_release(&r);
}

/* A WOW64 process: the 32-bit PEB's heaps and the 64-bit PEB's heaps
 * (WOW64's own ntdll heap) are both walked; one side that cannot be read
 * does not hide the other. */
#define PEB64 0x3000000ULL
#define PEB32 0x3100000ULL

static void build_wow64(struct mem *m)
{
	m->n = 0;
	add_nt(m, &nt64);
	add_nt(m, &nt32);
	add_chunk(m, PEB64);
	add_chunk(m, PEB32);
	wr(m, PEB64 + MW_PEB64_NUMBER_OF_HEAPS, 1, 4);
	wr(m, PEB64 + MW_PEB64_PROCESS_HEAPS, PEB64 + 0x200, 8);
	wr(m, PEB64 + 0x200, nt64.heap, 8);
	wr(m, PEB32 + MW_PEB32_NUMBER_OF_HEAPS, 2, 4);
	wr(m, PEB32 + MW_PEB32_PROCESS_HEAPS, PEB32 + 0x200, 4);
	wr(m, PEB32 + 0x200, nt32.heap, 4);
	wr(m, PEB32 + 0x204, 0, 4);	/* a NULL entry: skipped, still counted */
}

static void wow64_both_sides(void **state)
{
	struct mem m;
	struct mw_vm_ranges r = { 0 };
	struct mw_peb_info info;
	struct mw_err err = { "" };

	(void)state;
	build_wow64(&m);
	assert_int_equal(mw_process_heaps(rd, &m, PEB64, PEB32, 4096, &r, &info, &err), 0);
	assert_true(info.wow64);
	assert_false(info.side_unread);
	assert_int_equal(info.heaps, 3);
	assert_int_equal(info.nt, 2);
	assert_int_equal(info.segments, 4);
	assert_int_equal(r.n, 8);		/* 4 ranges per NT heap */
	assert_int_equal(r.r[0].base, nt32.heap);
	assert_int_equal(r.r[0].id, 0);
	assert_int_equal(r.r[4].base, nt64.heap);
	assert_int_equal(r.r[4].id, MW_PEB64_ID0_WOW64);
	/* the 32-bit PEB unreadable: the 64-bit side still */
	r.n = 0;
	assert_int_equal(mw_process_heaps(rd, &m, PEB64, 0x3200000, 4096, &r, &info, &err), 0);
	assert_true(info.side_unread);
	assert_non_null(strstr(err.msg, "32-bit PEB"));
	assert_int_equal(info.heaps, 1);
	assert_int_equal(r.n, 4);
	assert_int_equal(r.r[0].id, MW_PEB64_ID0_WOW64);
	/* the 64-bit heap array unreadable: the 32-bit side still */
	r.n = 0;
	wr(&m, PEB64 + MW_PEB64_PROCESS_HEAPS, 0x9000000, 8);
	assert_int_equal(mw_process_heaps(rd, &m, PEB64, PEB32, 4096, &r, &info, &err), 0);
	assert_true(info.side_unread);
	assert_non_null(strstr(err.msg, "ProcessHeaps"));
	assert_int_equal(info.heaps, 2);
	assert_int_equal(r.n, 4);
	/* neither: an error naming both */
	r.n = 0;
	assert_int_equal(mw_process_heaps(rd, &m, PEB64, 0x3200000, 4096, &r, &info, &err), -1);
	assert_non_null(strstr(err.msg, "32-bit PEB"));
	assert_non_null(strstr(err.msg, "ProcessHeaps"));
	/* not WOW64: the 64-bit PEB only, ids from 0 */
	r.n = 0;
	wr(&m, PEB64 + MW_PEB64_PROCESS_HEAPS, PEB64 + 0x200, 8);
	assert_int_equal(mw_process_heaps(rd, &m, PEB64, 0, 4096, &r, &info, &err), 0);
	assert_false(info.wow64);
	assert_int_equal(r.n, 4);
	assert_int_equal(r.r[0].id, 0);
	mw_vm_ranges_release(&r);
}

MW_TEST_MAIN(
	cmocka_unit_test(pe_large_address_aware),
	cmocka_unit_test(device_prefix),
	cmocka_unit_test(peb_fields),
	cmocka_unit_test(nt_heap_x64),
	cmocka_unit_test(nt_heap_x86),
	cmocka_unit_test(other_layouts),
	cmocka_unit_test(segment_heap_x64),
	cmocka_unit_test(segment_heap_x86),
	cmocka_unit_test(segment_contexts),
	cmocka_unit_test(segment_heap_lies),
	cmocka_unit_test(segment_heap_bytes),
	cmocka_unit_test(wine_heaps),
	cmocka_unit_test(lying_lists),
	cmocka_unit_test(wow64_teb),
	cmocka_unit_test(wow64_both_sides),
	cmocka_unit_test(dos_paths),
)
