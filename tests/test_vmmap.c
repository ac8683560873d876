/* test_vmmap.c - the address-space summary on constructed region maps,
 * the /proc/PID/maps parser, and one real walk of this process. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/vmmap.h"
#include "core/watch.h"
#include "tests/support/test_main.h"

#define K 0x1000ULL

static void summary_with_and_without_free_regions(void **state)
{
	struct mw_vm_regions v = { 0 }, w = { 0 };
	struct mw_vm_summary s, t;

	(void)state;
	v.lo = 0x10000;
	v.hi = 0x100000;
	/* image at 0x20000 (3 committed pages + 1 reserved), private 0x40000,
	 * mapped 0x80000; free elsewhere */
	mw_vm_regions_add(&v, 0x10000, 0x10000, 0, MW_VM_FREE, MW_VM_NONE, 0);
	mw_vm_regions_add(&v, 0x20000, 3 * K, 0x20000, MW_VM_COMMIT, MW_VM_IMAGE, 0);
	mw_vm_regions_add(&v, 0x23000, K, 0x20000, MW_VM_RESERVE, MW_VM_IMAGE, 0);
	mw_vm_regions_add(&v, 0x24000, 0x1c000, 0, MW_VM_FREE, MW_VM_NONE, 0);
	mw_vm_regions_add(&v, 0x40000, 0x8000, 0x40000, MW_VM_COMMIT, MW_VM_PRIVATE, 0);
	mw_vm_regions_add(&v, 0x48000, 0x38000, 0x40000, MW_VM_RESERVE, MW_VM_PRIVATE, 0);
	mw_vm_regions_add(&v, 0x80000, 0x10000, 0x80000, MW_VM_COMMIT, MW_VM_MAPPED, 0);
	mw_vm_regions_add(&v, 0x90000, 0x70000, 0, MW_VM_FREE, MW_VM_NONE, 0);
	mw_vm_summarize(&v, &s);
	assert_int_equal(s.bytes[MW_VM_COMMIT][MW_VM_IMAGE], 3 * K);
	assert_int_equal(s.bytes[MW_VM_RESERVE][MW_VM_IMAGE], K);
	assert_int_equal(s.bytes[MW_VM_COMMIT][MW_VM_PRIVATE], 0x8000);
	assert_int_equal(s.bytes[MW_VM_RESERVE][MW_VM_PRIVATE], 0x38000);
	assert_int_equal(s.bytes[MW_VM_COMMIT][MW_VM_MAPPED], 0x10000);
	assert_int_equal(s.bytes[MW_VM_FREE][MW_VM_NONE], 0x10000 + 0x1c000 + 0x70000);
	assert_int_equal(s.largest_free, 0x70000);
	assert_int_equal(s.free_blocks, 3);
	assert_int_equal(s.regions, 5);
	assert_int_equal(s.allocations, 3);

	/* the same map without its free regions (as Linux gives it) agrees */
	w.lo = v.lo;
	w.hi = v.hi;
	for (size_t i = 0; i < v.n; i++)
		if (v.r[i].state != MW_VM_FREE)
			mw_vm_regions_add(&w, v.r[i].base, v.r[i].size, v.r[i].alloc_base,
					  v.r[i].state, v.r[i].type, 0);
	mw_vm_summarize(&w, &t);
	assert_memory_equal(&s, &t, sizeof(s));
	mw_vm_regions_release(&v);
	mw_vm_regions_release(&w);
}

/* Free blocks next to each other are one block; the 32-bit crunch: many
 * small holes, small largest block. */
static void fragmentation(void **state)
{
	struct mw_vm_regions v = { 0 };
	struct mw_vm_summary s;
	uint64_t a;

	(void)state;
	v.lo = 0x10000;
	v.hi = 0x80000000ULL;
	for (a = 0x10000; a + 0x200000 <= v.hi; a += 0x400000)
		mw_vm_regions_add(&v, a, 0x200000, a, MW_VM_COMMIT, MW_VM_IMAGE, 0);
	mw_vm_summarize(&v, &s);
	assert_int_equal(s.largest_free, 0x200000);
	assert_true(s.free_blocks > 500);
	mw_vm_regions_release(&v);
}

static void proc_maps(void **state)
{
	const char *maps =
		"55d0c0a00000-55d0c0a28000 r--p 00000000 08:01 1234   /usr/bin/prog\n"
		"55d0c0a28000-55d0c0b00000 r-xp 00028000 08:01 1234   /usr/bin/prog\n"
		"55d0c1000000-55d0c1021000 rw-p 00000000 00:00 0      [heap]\n"
		"7f0000000000-7f0000021000 rw-p 00000000 00:00 0 \n"
		"7f0000021000-7f0004000000 ---p 00000000 00:00 0 \n"
		"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0      [stack]\n";
	struct mw_vm_regions v = { 0 };
	struct mw_vm_summary s;
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_vm_parse_maps(maps, &v, &err), 0);
	assert_int_equal(v.n, 6);
	v.lo = 0x10000;
	v.hi = 0x800000000000ULL;
	mw_vm_summarize(&v, &s);
	assert_int_equal(s.bytes[MW_VM_COMMIT][MW_VM_MAPPED], 0x28000);
	assert_int_equal(s.bytes[MW_VM_COMMIT][MW_VM_IMAGE], 0xd8000);
	assert_int_equal(s.bytes[MW_VM_COMMIT][MW_VM_PRIVATE], 0x21000 * 3);
	assert_int_equal(s.bytes[MW_VM_RESERVE][MW_VM_PRIVATE], 0x7f0004000000ULL - 0x7f0000021000ULL);
	assert_int_equal(mw_vm_parse_maps("garbage\n", &v, &err), -1);
	assert_non_null(strstr(err.msg, "line 1"));
	mw_vm_regions_release(&v);
}

/* A real walk of this process: committing 8 MiB shows up in private
 * committed bytes. */
static void walk_self_grows(void **state)
{
	struct mw_vm_regions v = { 0 };
	struct mw_vm_summary a, b;
	struct mw_err err;
	const size_t n = 8u << 20;
	unsigned char *p;

	(void)state;
	assert_int_equal(mw_vm_walk(mw_self_pid(), true, &v, &err), 0);
	mw_vm_summarize(&v, &a);
	p = malloc(n);
	assert_non_null(p);
	memset(p, 1, n);
	assert_int_equal(mw_vm_walk(mw_self_pid(), true, &v, &err), 0);
	mw_vm_summarize(&v, &b);
	assert_true(b.bytes[MW_VM_COMMIT][MW_VM_PRIVATE] >= a.bytes[MW_VM_COMMIT][MW_VM_PRIVATE] + n);
	assert_true(b.bytes[MW_VM_COMMIT][MW_VM_IMAGE] > 0);
	assert_true(b.largest_free > 0);
	free(p);
	mw_vm_regions_release(&v);
}

/* Which rights each kind of call asks for: never more than it needs. */
static void access_masks(void **state)
{
	(void)state;
	assert_int_equal(mw_process_access(MW_NEED_TOTALS), MW_PROCESS_QUERY_LIMITED_INFORMATION);
	assert_int_equal(mw_process_access(0), MW_PROCESS_QUERY_LIMITED_INFORMATION);
	assert_int_equal(mw_process_access(MW_NEED_READ),
			 MW_PROCESS_QUERY_LIMITED_INFORMATION | MW_PROCESS_VM_READ);
	assert_int_equal(mw_process_access(MW_NEED_TOTALS | MW_NEED_READ),
			 MW_PROCESS_QUERY_LIMITED_INFORMATION | MW_PROCESS_VM_READ);
	assert_int_equal(mw_process_access(MW_NEED_REGIONS), MW_PROCESS_QUERY_INFORMATION);
	assert_int_equal(mw_process_access(MW_NEED_REGIONS | MW_NEED_READ),
			 MW_PROCESS_QUERY_INFORMATION | MW_PROCESS_VM_READ);
	assert_int_equal(mw_process_access(MW_NEED_WORKING_SET),
			 MW_PROCESS_QUERY_INFORMATION | MW_PROCESS_VM_READ);
	/* a totals-only read never asks for VM_READ or QUERY_INFORMATION */
	assert_int_equal(mw_process_access(MW_NEED_TOTALS) &
			 (MW_PROCESS_VM_READ | MW_PROCESS_QUERY_INFORMATION), 0);
	/* GetProcessMemoryInfo: what its documentation asks, no more */
	assert_int_equal(mw_process_access(MW_NEED_MEMORY_INFO),
			 MW_PROCESS_QUERY_LIMITED_INFORMATION | MW_PROCESS_VM_READ);
	assert_int_equal(mw_thread_access(), MW_THREAD_QUERY_LIMITED_INFORMATION);
}

MW_TEST_MAIN(
	cmocka_unit_test(access_masks),
	cmocka_unit_test(summary_with_and_without_free_regions),
	cmocka_unit_test(fragmentation),
	cmocka_unit_test(proc_maps),
	cmocka_unit_test(walk_self_grows),
)
