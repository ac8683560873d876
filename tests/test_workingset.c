/* test_workingset.c - working-set classification on constructed page
 * lists and region maps with known answers; the "workingset.regions"
 * encoding round trip; the diff of two samples; the raw entry decoders. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/workingset.h"
#include "tests/support/test_main.h"

#define P 0x1000ULL

/* exe image 0x10000 (4 pages), heap 0x100000 (16 pages committed),
 * stack 0x200000 (8 reserved + 2 committed), mapped file 0x300000,
 * pagefile section 0x400000, private 0x500000. */
static void build(struct mw_vm_regions *v)
{
	memset(v, 0, sizeof(*v));
	v->lo = 0x10000;
	v->hi = 0x1000000;
	mw_vm_regions_add(v, 0x10000, 4 * P, 0x10000, MW_VM_COMMIT, MW_VM_IMAGE, 0);
	mw_vm_regions_add(v, 0x14000, 0xec000, 0, MW_VM_FREE, MW_VM_NONE, 0);
	mw_vm_regions_add(v, 0x100000, 16 * P, 0x100000, MW_VM_COMMIT, MW_VM_PRIVATE, 0);
	mw_vm_regions_add(v, 0x200000, 8 * P, 0x200000, MW_VM_RESERVE, MW_VM_PRIVATE, 0);
	mw_vm_regions_add(v, 0x208000, 2 * P, 0x200000, MW_VM_COMMIT, MW_VM_PRIVATE, 0);
	mw_vm_regions_add(v, 0x300000, 4 * P, 0x300000, MW_VM_COMMIT, MW_VM_MAPPED, 0);
	mw_vm_regions_add(v, 0x400000, 4 * P, 0x400000, MW_VM_COMMIT, MW_VM_MAPPED, 0);
	mw_vm_regions_add(v, 0x500000, 4 * P, 0x500000, MW_VM_COMMIT, MW_VM_PRIVATE, 0);
}

static const struct mw_ws_name names[] = {
	{ 0x10000, "\\Device\\HarddiskVolume1\\app.exe" },
	{ 0x300000, "\\Device\\HarddiskVolume1\\data.bin" },
};
static const struct mw_ws_range heaps[] = { { 0x100000, 1, 0 } };
static const struct mw_ws_range stacks[] = { { 0x208000, 2 * P, 4242 } };

static size_t pages(struct mw_ws_page *pg, int extra_heap)
{
	size_t n = 0;
	int i;

	/* image: 3 pages shared by 2 processes, 1 shareable not shared */
	for (i = 0; i < 3; i++)
		pg[n++] = (struct mw_ws_page){ 0x10000 + i * P, 2, true };
	pg[n++] = (struct mw_ws_page){ 0x13000, 1, true };
	/* heap: 5 (+extra) private pages, added in reverse to test sorting */
	for (i = 4 + extra_heap; i >= 0; i--)
		pg[n++] = (struct mw_ws_page){ 0x100000 + i * P, 0, false };
	pg[n++] = (struct mw_ws_page){ 0x209000, 0, false };	/* stack */
	pg[n++] = (struct mw_ws_page){ 0x300000, 7, true };	/* mapped, shared */
	pg[n++] = (struct mw_ws_page){ 0x401000, 1, true };	/* pagefile section */
	pg[n++] = (struct mw_ws_page){ 0x502000, 0, false };	/* private data */
	pg[n++] = (struct mw_ws_page){ 0xfffff00000000000ULL, 0, false };	/* page table */
	return n;
}

static void classify_known_answer(void **state)
{
	struct mw_vm_regions v;
	struct mw_ws_page pg[64];
	struct mw_ws_result r = { 0 };
	struct mw_ws_input in = { &v, names, 2, heaps, stacks, 1, 1, 4096 };
	size_t n;

	(void)state;
	build(&v);
	n = pages(pg, 0);
	mw_ws_classify(&in, pg, n, &r);
	assert_int_equal(r.pages[MW_WS_IMAGE][MW_WS_SHARED], 3);
	assert_int_equal(r.pages[MW_WS_IMAGE][MW_WS_SHAREABLE_PAGE], 1);
	assert_int_equal(r.pages[MW_WS_HEAP][MW_WS_PRIV], 5);
	assert_int_equal(r.pages[MW_WS_STACK][MW_WS_PRIV], 1);
	assert_int_equal(r.pages[MW_WS_MAPPED][MW_WS_SHARED], 1);
	assert_int_equal(r.pages[MW_WS_SHAREABLE][MW_WS_SHAREABLE_PAGE], 1);
	assert_int_equal(r.pages[MW_WS_PRIVATE][MW_WS_PRIV], 1);
	assert_int_equal(r.pages[MW_WS_OTHER][MW_WS_PRIV], 1);
	assert_int_equal(r.nregions, 6);
	/* region details */
	assert_int_equal(r.regions[0].alloc_base, 0x10000);
	assert_int_equal(r.regions[0].owner_kind, MW_WS_OWNER_MODULE);
	assert_string_equal(r.regions[0].owner, "\\Device\\HarddiskVolume1\\app.exe");
	assert_int_equal(r.regions[2].category, MW_WS_STACK);
	assert_int_equal(r.regions[2].owner_id, 4242);
	assert_int_equal(r.regions[2].size, 10 * P);	/* reserved + committed */
	assert_int_equal(r.regions[3].owner_kind, MW_WS_OWNER_FILE);
	assert_null(r.regions[4].owner);
	mw_ws_result_release(&r);
	mw_vm_regions_release(&v);
}

static void encode_decode_diff(void **state)
{
	struct mw_vm_regions v;
	struct mw_ws_page pg[64];
	struct mw_ws_result a = { 0 }, b = { 0 }, back = { 0 };
	struct mw_ws_input in = { &v, names, 2, heaps, stacks, 1, 1, 4096 };
	struct mw_ws_delta *d;
	struct mw_err err;
	unsigned char *enc;
	size_t len, n;

	(void)state;
	build(&v);
	n = pages(pg, 0);
	mw_ws_classify(&in, pg, n, &a);
	enc = mw_ws_encode(&a, &len);
	assert_int_equal(mw_ws_decode(enc, len, &back, &err), 0);
	assert_int_equal(back.nregions, a.nregions);
	assert_int_equal(back.page_size, 4096);
	for (size_t i = 0; i < a.nregions; i++) {
		assert_int_equal(back.regions[i].alloc_base, a.regions[i].alloc_base);
		assert_int_equal(back.regions[i].size, a.regions[i].size);
		assert_int_equal(back.regions[i].category, a.regions[i].category);
		assert_int_equal(back.regions[i].owner_id, a.regions[i].owner_id);
		assert_memory_equal(back.regions[i].pages, a.regions[i].pages, sizeof(a.regions[i].pages));
		if (a.regions[i].owner)
			assert_string_equal(back.regions[i].owner, a.regions[i].owner);
		else
			assert_null(back.regions[i].owner);
	}
	/* totals of the regions (the "other" pages have no region) */
	assert_int_equal(back.pages[MW_WS_HEAP][MW_WS_PRIV], 5);
	/* malformed encodings are refused */
	assert_int_equal(mw_ws_decode(enc, len - 1, &back, &err), -1);
	assert_int_equal(mw_ws_decode(enc, 10, &back, &err), -1);
	enc[4] = 9;
	assert_int_equal(mw_ws_decode(enc, len, &back, &err), -1);
	assert_non_null(strstr(err.msg, "version"));
	free(enc);

	/* the heap grows by 3 pages: the diff names that allocation only */
	n = pages(pg, 3);
	mw_ws_classify(&in, pg, n, &b);
	assert_int_equal(mw_ws_diff(&a, &b, &d), 1);
	assert_int_equal(d[0].alloc_base, 0x100000);
	assert_int_equal(d[0].category, MW_WS_HEAP);
	assert_int_equal(d[0].pages[MW_WS_PRIV], 3);
	free(d);
	/* and backwards, a region that disappears entirely */
	b.regions[5].pages[0] = 0;
	assert_int_equal(mw_ws_diff(&b, &a, &d), 2);
	free(d);
	mw_ws_result_release(&a);
	mw_ws_result_release(&b);
	mw_ws_result_release(&back);
	mw_vm_regions_release(&v);
}

/* The walk every diff shares: by base, either side in any order, each
 * base once, NULL on the side that lacks it. */
static void pairs_walk(void **state)
{
	struct mw_ws_region ra[2] = { { .alloc_base = 0x3000, .category = MW_WS_HEAP, .pages = { 1, 0, 0 } },
				      { .alloc_base = 0x1000, .category = MW_WS_IMAGE, .pages = { 0, 2, 5 } } };
	struct mw_ws_region rb[2] = { { .alloc_base = 0x2000, .category = 99 },
				      { .alloc_base = 0x3000, .category = MW_WS_HEAP } };
	struct mw_ws_result a = { .regions = ra, .nregions = 2 }, b = { .regions = rb, .nregions = 2 };
	const struct mw_ws_region *x, *y;
	uint64_t t[MW_WS_NCATEGORIES][MW_WS_NSHARING] = { { 0 } };
	struct mw_ws_pairs w;

	(void)state;
	mw_ws_pairs_init(&w, &a, &b);
	assert_true(mw_ws_pairs_next(&w, &x, &y));
	assert_ptr_equal(x, &ra[1]);
	assert_null(y);
	assert_true(mw_ws_pairs_next(&w, &x, &y));
	assert_null(x);
	assert_ptr_equal(y, &rb[0]);
	assert_true(mw_ws_pairs_next(&w, &x, &y));
	assert_ptr_equal(x, &ra[0]);
	assert_ptr_equal(y, &rb[1]);
	assert_false(mw_ws_pairs_next(&w, &x, &y));
	assert_null(x);
	assert_null(y);
	mw_ws_pairs_release(&w);
	/* totals by category and sharing; an unknown category is skipped */
	mw_ws_region_totals(&a, t);
	mw_ws_region_totals(&b, t);
	assert_int_equal(t[MW_WS_HEAP][MW_WS_PRIV], 1);
	assert_int_equal(t[MW_WS_IMAGE][MW_WS_SHAREABLE_PAGE], 2);
	assert_int_equal(t[MW_WS_IMAGE][MW_WS_SHARED], 5);
}

static void raw_entries(void **state)
{
	struct mw_ws_page p;

	(void)state;
	/* VirtualPage 0x7ff612340, Shared, ShareCount 3, protection 1 */
	p = mw_ws_from_block((0x7ff612340ULL << 12) | (1u << 8) | (3u << 5) | 1u);
	assert_int_equal(p.va, 0x7ff612340000ULL);
	assert_int_equal(p.share_count, 3);
	assert_true(p.shareable);
	assert_true(mw_ws_from_ex_block(0x5000, 1 | (2u << 1) | (1u << 15), &p));
	assert_int_equal(p.share_count, 2);
	assert_true(p.shareable);
	assert_false(mw_ws_from_ex_block(0x5000, 0, &p));
}

MW_TEST_MAIN(
	cmocka_unit_test(classify_known_answer),
	cmocka_unit_test(encode_decode_diff),
	cmocka_unit_test(pairs_walk),
	cmocka_unit_test(raw_entries),
)
