/* test_heap.c - the heap collector's pure parts on constructed input with
 * known answers: HeapWalk accounting, HeapPeep's breakdown of a region
 * map, the RtlQueryProcessDebugInformation buffer, the
 * SystemProcessInformation thread states, the back-off table. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/heap.h"
#include "collectors/process.h"
#include "tests/support/heap_sums.h"
#include "tests/support/test_main.h"

#define P 0x1000ULL

static void accounting(void **state)
{
	struct mw_heap_totals t;

	(void)state;
	memset(&t, 0, sizeof(t));
	mw_heap_account(&t, MW_HEAP_REGION, 0, 0, 65536, 1 << 20);
	mw_heap_account(&t, MW_HEAP_ENTRY_BUSY, 100, 16, 0, 0);
	mw_heap_account(&t, MW_HEAP_ENTRY_BUSY, 200, 16, 0, 0);
	mw_heap_account(&t, 0, 4000, 8, 0, 0);
	mw_heap_account(&t, MW_HEAP_UNCOMMITTED_RANGE, 1 << 20, 0, 0, 0);
	assert_int_equal(t.committed, 65536);
	assert_int_equal(t.uncommitted, 1 << 20);
	assert_int_equal(t.busy, 300);
	assert_int_equal(t.blocks, 2);
	assert_int_equal(t.free, 4000);
	assert_int_equal(t.free_blocks, 1);
	assert_int_equal(t.overhead, 40);
	assert_int_equal(t.regions, 1);
}

/* --- breakdown ------------------------------------------------------------ */

/* PAGE_* values (winnt.h) */
#define RO 0x02
#define RW 0x04
#define WC 0x08
#define XR 0x20
#define GUARD 0x100

/* app.exe image at 0x400000: header R, .text XR 4 pages, .rdata R 2,
 * .data RW 1 + copy-on-write 1, .bss RW 1; a mapped view 0x600000 (4
 * committed, 4 reserved); a thread stack 0x800000 (248 pages reserved,
 * guard page, 7 committed); a heap 0xa00000 (16 committed, 48 reserved);
 * a VirtualAlloc 0xc00000 (8 committed); free in between. */
static void build(struct mw_vm_regions *v)
{
	memset(v, 0, sizeof(*v));
	v->lo = 0x10000;
	v->hi = 0x10000000;
	mw_vm_regions_add(v, 0x10000, 0x3f0000, 0, MW_VM_FREE, MW_VM_NONE, 0);
	mw_vm_regions_add(v, 0x400000, P, 0x400000, MW_VM_COMMIT, MW_VM_IMAGE, RO);
	mw_vm_regions_add(v, 0x401000, 4 * P, 0x400000, MW_VM_COMMIT, MW_VM_IMAGE, XR);
	mw_vm_regions_add(v, 0x405000, 2 * P, 0x400000, MW_VM_COMMIT, MW_VM_IMAGE, RO);
	mw_vm_regions_add(v, 0x407000, P, 0x400000, MW_VM_COMMIT, MW_VM_IMAGE, RW);
	mw_vm_regions_add(v, 0x408000, P, 0x400000, MW_VM_COMMIT, MW_VM_IMAGE, WC);
	mw_vm_regions_add(v, 0x409000, P, 0x400000, MW_VM_COMMIT, MW_VM_IMAGE, RW);
	mw_vm_regions_add(v, 0x40a000, 0x1f6000, 0, MW_VM_FREE, MW_VM_NONE, 0);
	mw_vm_regions_add(v, 0x600000, 4 * P, 0x600000, MW_VM_COMMIT, MW_VM_MAPPED, RO);
	mw_vm_regions_add(v, 0x604000, 4 * P, 0x600000, MW_VM_RESERVE, MW_VM_MAPPED, 0);
	mw_vm_regions_add(v, 0x608000, 0x1f8000, 0, MW_VM_FREE, MW_VM_NONE, 0);
	mw_vm_regions_add(v, 0x800000, 248 * P, 0x800000, MW_VM_RESERVE, MW_VM_PRIVATE, 0);
	mw_vm_regions_add(v, 0x8f8000, P, 0x800000, MW_VM_COMMIT, MW_VM_PRIVATE, GUARD | RW);
	mw_vm_regions_add(v, 0x8f9000, 7 * P, 0x800000, MW_VM_COMMIT, MW_VM_PRIVATE, RW);
	mw_vm_regions_add(v, 0x900000, 0x100000, 0, MW_VM_FREE, MW_VM_NONE, 0);
	mw_vm_regions_add(v, 0xa00000, 16 * P, 0xa00000, MW_VM_COMMIT, MW_VM_PRIVATE, RW);
	mw_vm_regions_add(v, 0xa10000, 48 * P, 0xa00000, MW_VM_RESERVE, MW_VM_PRIVATE, 0);
	mw_vm_regions_add(v, 0xa40000, 0x1c0000, 0, MW_VM_FREE, MW_VM_NONE, 0);
	mw_vm_regions_add(v, 0xc00000, 8 * P, 0xc00000, MW_VM_COMMIT, MW_VM_PRIVATE, RW);
}

/* StackLimit..StackBase of the one thread */
static const struct mw_vm_range stack[] = { { 0x8f9000, 7 * P, 1234 } };

static void breakdown_known_answer(void **state)
{
	struct mw_vm_regions v;
	struct mw_heap_totals h[2];
	struct mw_heap_list heaps = { h, 2, 2 };
	struct mw_heap_breakdown b;

	(void)state;
	build(&v);
	memset(h, 0, sizeof(h));
	/* heap 0 walked: 0x6000 allocated, 0x3000 free, 0x800 overhead;
	 * heap 1 from the summary: 0x2000 committed, 0x1800 allocated */
	h[0].committed = 0x10000, h[0].busy = 0x6000, h[0].free = 0x3000, h[0].overhead = 0x800;
	h[1].summary = true, h[1].committed = 0x2000, h[1].busy = 0x1800;
	mw_heap_breakdown(&v, stack, 1, &heaps, &b);
	assert_true(b.have_heaps);
	assert_int_equal(b.bytes[MW_HK_IMAGE], 7 * P);		/* header, .text, .rdata */
	assert_int_equal(b.bytes[MW_HK_STATIC_DATA], 3 * P);	/* RW, WC, RW */
	assert_int_equal(b.bytes[MW_HK_MAPPED], 4 * P);		/* the reserve is not */
	assert_int_equal(b.bytes[MW_HK_STACK_COMMITTED], 8 * P);	/* guard page too */
	assert_int_equal(b.bytes[MW_HK_STACK_RESERVED], 248 * P);
	assert_int_equal(b.bytes[MW_HK_HEAP_USED], 0x6000 + 0x1800);
	assert_int_equal(b.bytes[MW_HK_HEAP_FREE], 0x3000 + 0x800 + 0x800);
	/* 24 private committed pages outside the stack, less the heaps */
	assert_int_equal(b.bytes[MW_HK_PRIVATE_OTHER], 24 * P - 0x7800 - 0x4000);
	assert_int_equal(mw_test_heap_committed(&b), mw_test_vm_committed(&v));
	mw_vm_regions_release(&v);
}

static void breakdown_without_heaps_or_stacks(void **state)
{
	struct mw_vm_regions v;
	struct mw_heap_breakdown b;
	/* a stale range that meets no allocation */
	const struct mw_vm_range stale[] = { { 0x300000, P, 1 } };

	(void)state;
	build(&v);
	mw_heap_breakdown(&v, stack, 1, NULL, &b);
	assert_false(b.have_heaps);
	assert_int_equal(b.bytes[MW_HK_HEAP_USED], 0);
	assert_int_equal(b.bytes[MW_HK_HEAP_FREE], 0);
	assert_int_equal(b.bytes[MW_HK_PRIVATE_OTHER], 24 * P);
	assert_int_equal(mw_test_heap_committed(&b), mw_test_vm_committed(&v));

	/* no stacks known: the stack allocation is plain private memory */
	mw_heap_breakdown(&v, stale, 1, NULL, &b);
	assert_int_equal(b.bytes[MW_HK_STACK_COMMITTED], 0);
	assert_int_equal(b.bytes[MW_HK_STACK_RESERVED], 0);
	assert_int_equal(b.bytes[MW_HK_PRIVATE_OTHER], 32 * P);
	assert_int_equal(mw_test_heap_committed(&b), mw_test_vm_committed(&v));
	mw_vm_regions_release(&v);
}

/* Heap figures from a later moment than the walk: clipped, never more
 * than the private bytes there are. */
static void breakdown_clips_heaps(void **state)
{
	struct mw_vm_regions v;
	struct mw_heap_totals h;
	struct mw_heap_list heaps = { &h, 1, 1 };
	struct mw_heap_breakdown b;

	(void)state;
	build(&v);
	memset(&h, 0, sizeof(h));
	h.busy = 20 * P, h.free = 10 * P;
	mw_heap_breakdown(&v, stack, 1, &heaps, &b);
	assert_int_equal(b.bytes[MW_HK_HEAP_USED], 20 * P);
	assert_int_equal(b.bytes[MW_HK_HEAP_FREE], 4 * P);
	assert_int_equal(b.bytes[MW_HK_PRIVATE_OTHER], 0);
	h.busy = 100 * P;
	mw_heap_breakdown(&v, stack, 1, &heaps, &b);
	assert_int_equal(b.bytes[MW_HK_HEAP_USED], 24 * P);
	assert_int_equal(b.bytes[MW_HK_HEAP_FREE], 0);
	assert_int_equal(mw_test_heap_committed(&b), mw_test_vm_committed(&v));
	mw_vm_regions_release(&v);
}

static void kind_names(void **state)
{
	static const char *const want[] = { "heap_used", "heap_free", "stack_reserved",
					    "stack_committed", "image", "static_data",
					    "private_other", "mapped", "heap" };

	(void)state;
	for (int k = 0; k < MW_HK_N; k++)
		assert_string_equal(mw_heap_kind_names[k], want[k]);
}

/* --- RtlQueryProcessDebugInformation buffer -------------------------------- */

static void w32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void w64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }

#define BUF_ADDR 0x7ff600000000ULL

/* RTL_DEBUG_INFORMATION at 0, RTL_PROCESS_HEAPS at 0x100, n heaps */
static void debug_buffer(unsigned char *b, size_t len, uint32_t n, size_t stride)
{
	memset(b, 0, len);
	w64(b + MW_RDI_HEAPS, BUF_ADDR + 0x100);
	w32(b + 0x100, n);
	for (uint32_t i = 0; i < n; i++) {
		unsigned char *e = b + 0x100 + MW_RPH_HEAPS + i * stride;

		w64(e + MW_RHI_BASE, 0x10000000ULL * (i + 1));
		w32(e + MW_RHI_FLAGS, 2);
		w64(e + MW_RHI_BYTES_ALLOCATED, 1000 * (i + 1));
		w64(e + MW_RHI_BYTES_COMMITTED, 0x10000 * (i + 1));
		w32(e + MW_RHI_NUMBER_OF_ENTRIES, 10 * (i + 1));
		if (stride > MW_RHI_SIZE_V1)
			w64(e + MW_RHI_SIZE_V1, 0xdeadbeefULL);	/* HeapTag */
	}
}

static void debug_info_heaps(void **state)
{
	unsigned char b[0x400];
	struct mw_heap_list out = { 0 };
	struct mw_err err;
	size_t strides[] = { MW_RHI_SIZE_V1, MW_RHI_SIZE_V2 };

	(void)state;
	for (int s = 0; s < 2; s++) {
		debug_buffer(b, sizeof(b), 3, strides[s]);
		assert_int_equal(mw_heap_parse_debug_info(b, sizeof(b), BUF_ADDR, strides[s], &out,
							  &err), 0);
		assert_int_equal(out.n, 3);
		for (size_t i = 0; i < 3; i++) {
			assert_true(out.h[i].summary);
			assert_int_equal(out.h[i].base, 0x10000000ULL * (i + 1));
			assert_int_equal(out.h[i].busy, 1000 * (i + 1));
			assert_int_equal(out.h[i].committed, 0x10000 * (i + 1));
			assert_int_equal(out.h[i].free, 0x10000 * (i + 1) - 1000 * (i + 1));
			assert_int_equal(out.h[i].blocks, 10 * (i + 1));
		}
	}
	/* exactly as long as the last record: fits; one byte less: does not */
	debug_buffer(b, sizeof(b), 3, MW_RHI_SIZE_V1);
	assert_int_equal(mw_heap_parse_debug_info(b, 0x108 + 3 * MW_RHI_SIZE_V1, BUF_ADDR,
						  MW_RHI_SIZE_V1, &out, &err), 0);
	assert_int_equal(mw_heap_parse_debug_info(b, 0x107 + 3 * MW_RHI_SIZE_V1, BUF_ADDR,
						  MW_RHI_SIZE_V1, &out, &err), -1);
	assert_non_null(strstr(err.msg, "3 heaps"));
	assert_int_equal(out.n, 0);
	free(out.h);
}

static void debug_info_wine_and_lies(void **state)
{
	unsigned char b[0x400];
	struct mw_heap_list out = { 0 };
	struct mw_err err;

	(void)state;
	/* Wine: the call succeeds, Heaps stays NULL */
	memset(b, 0, sizeof(b));
	assert_int_equal(mw_heap_parse_debug_info(b, MW_RDI_SIZE, BUF_ADDR, MW_RHI_SIZE_V1, &out,
						  &err), 1);
	assert_non_null(strstr(err.msg, "returned no heaps"));
	/* Heaps before the buffer, past it */
	debug_buffer(b, sizeof(b), 1, MW_RHI_SIZE_V1);
	w64(b + MW_RDI_HEAPS, BUF_ADDR - 8);
	assert_int_equal(mw_heap_parse_debug_info(b, sizeof(b), BUF_ADDR, MW_RHI_SIZE_V1, &out,
						  &err), -1);
	assert_non_null(strstr(err.msg, "outside"));
	w64(b + MW_RDI_HEAPS, BUF_ADDR + sizeof(b) - 4);
	assert_int_equal(mw_heap_parse_debug_info(b, sizeof(b), BUF_ADDR, MW_RHI_SIZE_V1, &out,
						  &err), -1);
	/* a count beyond any sane process */
	debug_buffer(b, sizeof(b), 1, MW_RHI_SIZE_V1);
	w32(b + 0x100, 0xffffffffu);
	assert_int_equal(mw_heap_parse_debug_info(b, sizeof(b), BUF_ADDR, MW_RHI_SIZE_V1, &out,
						  &err), -1);
	/* too short for the header */
	assert_int_equal(mw_heap_parse_debug_info(b, 0x40, BUF_ADDR, MW_RHI_SIZE_V1, &out, &err),
			 -1);
	/* zero heaps is an answer */
	debug_buffer(b, sizeof(b), 0, MW_RHI_SIZE_V1);
	assert_int_equal(mw_heap_parse_debug_info(b, sizeof(b), BUF_ADDR, MW_RHI_SIZE_V1, &out,
						  &err), 0);
	assert_int_equal(out.n, 0);
	free(out.h);
}

static void info_stride(void **state)
{
	(void)state;
	assert_int_equal(mw_heap_info_stride(0), MW_RHI_SIZE_V1);
	assert_int_equal(mw_heap_info_stride(19045), MW_RHI_SIZE_V1);	/* Windows 10 22H2 */
	assert_int_equal(mw_heap_info_stride(22000), MW_RHI_SIZE_V1);	/* Windows 11 21H2 */
	assert_int_equal(mw_heap_info_stride(22621), MW_RHI_SIZE_V2);	/* Windows 11 22H2 */
	assert_int_equal(mw_heap_info_stride(26100), MW_RHI_SIZE_V2);
}

/* --- SystemProcessInformation threads -------------------------------------- */

struct th {
	uint32_t state, wait;
};

/* Append one process record with its thread records; returns its offset. */
static size_t spi_add(unsigned char *b, size_t at, uint32_t pid, uint64_t ctime,
		      const struct th *t, uint32_t n)
{
	unsigned char *e = b + at;

	memset(e, 0, MW_SPI_SIZE + n * MW_STI_SIZE);
	w32(e + MW_SPI_THREADS, n);
	w64(e + MW_SPI_CREATE_TIME, ctime);
	w64(e + MW_SPI_PID, pid);
	for (uint32_t i = 0; i < n; i++) {
		unsigned char *r = e + MW_SPI_SIZE + i * MW_STI_SIZE;

		w64(r + MW_STI_TID, pid * 10 + i);
		w32(r + MW_STI_STATE, t[i].state);
		w32(r + MW_STI_WAIT_REASON, t[i].wait);
	}
	return at;
}

static size_t spi_buffer(unsigned char *b)
{
	static const struct th running[] = { { 2, 0 }, { 5, 6 } };	/* Running; Waiting UserRequest */
	static const struct th frozen[] = { { 5, 5 }, { 5, 5 }, { 5, 12 } };	/* Suspended, WrSuspended */
	static const struct th half[] = { { 5, 5 }, { 5, 6 } };
	size_t a = 0, c, d;

	spi_add(b, a, 4, 111, running, 2);
	c = a + MW_SPI_SIZE + 2 * MW_STI_SIZE + 16;	/* records may have slack */
	w32(b + a, (uint32_t)(c - a));
	spi_add(b, c, 100, 222, frozen, 3);
	d = c + MW_SPI_SIZE + 3 * MW_STI_SIZE;
	w32(b + c, (uint32_t)(d - c));
	spi_add(b, d, 200, 333, half, 2);
	return d + MW_SPI_SIZE + 2 * MW_STI_SIZE;	/* last: next 0 */
}

static void spi_threads(void **state)
{
	unsigned char b[4096];
	size_t len = spi_buffer(b);
	struct mw_heap_proc_state s;
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_heap_spi_find(b, len, 4, &s, &err), 0);
	assert_true(s.found);
	assert_int_equal(s.threads, 2);
	assert_int_equal(s.suspended, 0);
	assert_int_equal(s.create_time, 111);
	assert_int_equal(mw_heap_spi_find(b, len, 100, &s, &err), 0);
	assert_true(s.found);
	assert_int_equal(s.threads, 3);
	assert_int_equal(s.suspended, 3);	/* all: skip this one */
	assert_int_equal(s.create_time, 222);
	assert_int_equal(mw_heap_spi_find(b, len, 200, &s, &err), 0);
	assert_int_equal(s.threads, 2);
	assert_int_equal(s.suspended, 1);
	assert_int_equal(mw_heap_spi_find(b, len, 300, &s, &err), 0);
	assert_false(s.found);
}

static void spi_lies(void **state)
{
	unsigned char b[4096];
	size_t len = spi_buffer(b);
	struct mw_heap_proc_state s;
	struct mw_err err;

	(void)state;
	/* the last record cut short */
	assert_int_equal(mw_heap_spi_find(b, len - MW_STI_SIZE, 200, &s, &err), -1);
	/* more threads than the record holds */
	w32(b + MW_SPI_THREADS, 3);
	assert_int_equal(mw_heap_spi_find(b, len, 4, &s, &err), -1);
	assert_non_null(strstr(err.msg, "3 threads"));
	w32(b + MW_SPI_THREADS, 2);
	/* a next offset past the end, or inside the record */
	w32(b, (uint32_t)len + 8);
	assert_int_equal(mw_heap_spi_find(b, len, 200, &s, &err), -1);
	w32(b, 8);
	assert_int_equal(mw_heap_spi_find(b, len, 200, &s, &err), -1);
	assert_int_equal(mw_heap_spi_find(b, 16, 4, &s, &err), -1);
}

/* --- back-off ------------------------------------------------------------- */

static void backoff(void **state)
{
	struct mw_heap_backoff b = { 0 };
	const struct mw_heap_held *h;

	(void)state;
	mw_heap_backoff_hold(&b, 10, 1, 1000, "heap: pid 10 timed out");
	mw_heap_backoff_hold(&b, 11, 1, 5000, "heap: pid 11 timed out");
	h = mw_heap_backoff_find(&b, 10, 1, 500);
	assert_non_null(h);
	assert_string_equal(h->why, "heap: pid 10 timed out");
	/* the same pid, another process (reused pid): not held */
	assert_null(mw_heap_backoff_find(&b, 10, 2, 500));
	/* expired: forgotten */
	assert_null(mw_heap_backoff_find(&b, 10, 1, 1000));
	assert_int_equal(b.n, 1);
	assert_non_null(mw_heap_backoff_find(&b, 11, 1, 1000));
	/* holding again extends, never duplicates */
	mw_heap_backoff_hold(&b, 11, 1, 9000, "again");
	assert_int_equal(b.n, 1);
	assert_non_null(mw_heap_backoff_find(&b, 11, 1, 8000));
	assert_null(mw_heap_backoff_find(&b, 11, 1, 9000));
	assert_int_equal(b.n, 0);
	mw_heap_backoff_release(&b);
}

/* --- the Linux bar from /proc/PID/smaps (pure, constructed text) --------- */

/* An app with its bss, [heap], an arena (4 MiB used of its 64 MiB), a
 * glibc thread stack (guard + 8 MiB), a stack without a guard that a
 * thread's stack pointer is in, a mapped file, shared memory, libc with a
 * PROT_NONE gap, RELRO, .data and its bss, anonymous memory, [stack],
 * [vvar], [vdso], [vsyscall].  Header lines only: the bar reads sizes
 * from the addresses (smaps' Size). */
static const char LINUX_SMAPS[] =
	"00400000-00401000 r--p 00000000 08:01 100      /usr/bin/app\n"
	"Size:                  4 kB\n"
	"Rss:                   4 kB\n"
	"00401000-00405000 r-xp 00001000 08:01 100      /usr/bin/app\n"
	"00405000-00407000 r--p 00005000 08:01 100      /usr/bin/app\n"
	"00407000-00408000 rw-p 00006000 08:01 100      /usr/bin/app\n"
	"00408000-0040a000 rw-p 00000000 00:00 0 \n"
	"01000000-01021000 rw-p 00000000 00:00 0        [heap]\n"
	"7f0000000000-7f0000400000 rw-p 00000000 00:00 0 \n"
	"7f0000400000-7f0004000000 ---p 00000000 00:00 0 \n"
	"7f1000000000-7f1000001000 ---p 00000000 00:00 0 \n"
	"7f1000001000-7f1000801000 rw-p 00000000 00:00 0 \n"
	"7f2000000000-7f2000800000 r--p 00000000 08:01 200      /data/file.dat\n"
	"7f2100000000-7f2100400000 rw-s 00000000 00:01 300      /dev/shm/x\n"
	"7f3000000000-7f3000005000 r--p 00000000 08:01 400      /usr/lib/libc.so.6\n"
	"7f3000005000-7f3000010000 r-xp 00005000 08:01 400      /usr/lib/libc.so.6\n"
	"7f3000010000-7f3000020000 ---p 00010000 08:01 400      /usr/lib/libc.so.6\n"
	"7f3000020000-7f3000024000 r--p 0001f000 08:01 400      /usr/lib/libc.so.6\n"
	"7f3000024000-7f3000026000 rw-p 00023000 08:01 400      /usr/lib/libc.so.6\n"
	"7f3000026000-7f3000030000 rw-p 00000000 00:00 0 \n"
	"7f4000010000-7f4000013000 rw-p 00000000 00:00 0 \n"
	"7f5000000000-7f5000100000 rw-p 00000000 00:00 0 \n"
	"7ffc00000000-7ffc00021000 rw-p 00000000 00:00 0        [stack]\n"
	"7ffc00100000-7ffc00102000 r--p 00000000 00:00 0        [vvar]\n"
	"7ffc00102000-7ffc00104000 r-xp 00000000 00:00 0        [vdso]\n"
	"ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0  [vsyscall]\n";

struct linux_fixture {
	struct mw_smaps maps;
	struct mw_smaps_use *u;
	struct mw_smaps_thread th;
	struct mw_smaps_facts f;
};

static void linux_setup(struct linux_fixture *x, const char *text)
{
	struct mw_err err = { "" };

	memset(x, 0, sizeof(*x));
	assert_int_equal(mw_smaps_parse(text, strlen(text), &x->maps, &err), 0);
	x->th.tid = 77;
	x->th.sp = 0x7f5000080000ULL;
	x->f.pid = 42;
	x->f.page_size = 4096;
	x->f.exe = "/usr/bin/app";
	x->f.threads = &x->th;
	x->f.nthreads = 1;
	x->u = calloc(x->maps.n, sizeof(*x->u));
	assert_non_null(x->u);
	mw_smaps_uses(&x->maps, &x->f, x->u);
}

static void linux_teardown(struct linux_fixture *x)
{
	free(x->u);
	mw_smaps_release(&x->maps);
}

#define PG(n) ((uint64_t)(n) * 4096)

static void linux_bar_kinds(void **state)
{
	struct linux_fixture x;
	struct mw_heap_breakdown bd;

	(void)state;
	linux_setup(&x, LINUX_SMAPS);
	mw_heap_breakdown_smaps(&x.maps, x.u, &bd);
	assert_true(bd.heap_whole);
	assert_false(bd.have_heaps);
	/* app 1 + 4 + 2, libc 5 + 11 + RELRO 4 (the PROT_NONE gap is not committed) */
	assert_int_equal(bd.bytes[MW_HK_IMAGE], PG(27));
	/* app .data 1 + bss 2, libc .data 2 + bss 10 */
	assert_int_equal(bd.bytes[MW_HK_STATIC_DATA], PG(15));
	/* [heap] 0x21 pages + the arena's 4 MiB (not its PROT_NONE 60 MiB) */
	assert_int_equal(bd.bytes[MW_HK_HEAP], PG(0x21) + (4 << 20));
	/* glibc thread stack 8 MiB + the one holding tid 77's sp (1 MiB) + [stack] */
	assert_int_equal(bd.bytes[MW_HK_STACK_COMMITTED], (8 << 20) + (1 << 20) + PG(0x21));
	/* the guard page */
	assert_int_equal(bd.bytes[MW_HK_STACK_RESERVED], PG(1));
	/* the file 8 MiB + /dev/shm 4 MiB */
	assert_int_equal(bd.bytes[MW_HK_MAPPED], 12 << 20);
	/* anonymous 3 pages, [vvar] 2, [vdso] 2 ([vsyscall] is not counted) */
	assert_int_equal(bd.bytes[MW_HK_PRIVATE_OTHER], PG(7));
	assert_int_equal(bd.bytes[MW_HK_HEAP_USED], 0);
	assert_int_equal(bd.bytes[MW_HK_HEAP_FREE], 0);
	linux_teardown(&x);
}

/* The committed kinds add up to the Size of the counted mappings that are
 * not PROT_NONE, summed here straight from the text. */
static void linux_bar_adds_up(void **state)
{
	struct linux_fixture x;
	struct mw_heap_breakdown bd;
	uint64_t want = 0, reserved = 0;
	const char *p = LINUX_SMAPS;

	(void)state;
	while (*p) {
		unsigned long long lo, hi;
		char perms[8];

		if (sscanf(p, "%llx-%llx %7s", &lo, &hi, perms) == 3 && lo < 0xffff800000000000ULL) {
			if (strncmp(perms, "---", 3))
				want += hi - lo;
			else
				reserved += hi - lo;
		}
		p = strchr(p, '\n') + 1;
	}
	linux_setup(&x, LINUX_SMAPS);
	mw_heap_breakdown_smaps(&x.maps, x.u, &bd);
	assert_int_equal(mw_test_heap_committed(&bd), want);
	/* the guard, the arena tail, libc's gap */
	assert_int_equal(reserved, PG(1) + (60 << 20) + PG(16));
	assert_true(bd.bytes[MW_HK_STACK_RESERVED] <= reserved);
	linux_teardown(&x);
}

/* The bss is only the anonymous mapping right after an image's writable
 * segment: not one after a gap, not a read-only one, not an arena. */
static void linux_bss_rules(void **state)
{
	static const char text[] =
		"00400000-00401000 r-xp 00000000 08:01 100 /usr/bin/app\n"
		"00401000-00402000 rw-p 00001000 08:01 100 /usr/bin/app\n"
		"00402000-00404000 rw-p 00000000 00:00 0 \n"	/* bss */
		"00404000-00405000 rw-p 00000000 00:00 0 \n"	/* after the bss: private */
		"00500000-00501000 r-xp 00000000 08:01 200 /usr/lib/libq.so\n"
		"00501000-00502000 r--p 00001000 08:01 200 /usr/lib/libq.so\n"
		"00502000-00503000 rw-p 00000000 00:00 0 \n"	/* after r--p: private */
		"00600000-00601000 rw-p 00000000 08:01 300 /data/db\n"
		"00601000-00602000 rw-p 00000000 00:00 0 \n"	/* after a data file: private */
		"00700000-00701000 rw-p 00000000 08:01 400 /usr/lib/libr.so\n"
		"00702000-00703000 rw-p 00000000 00:00 0 \n";	/* a gap before it: private */
	static const uint8_t want[] = { MW_SK_IMAGE, MW_SK_STATIC_DATA, MW_SK_STATIC_DATA,
					MW_SK_PRIVATE, MW_SK_IMAGE, MW_SK_IMAGE, MW_SK_PRIVATE,
					MW_SK_MAPPED, MW_SK_PRIVATE, MW_SK_STATIC_DATA,
					MW_SK_PRIVATE };
	struct linux_fixture x;
	size_t i;

	(void)state;
	linux_setup(&x, text);
	assert_int_equal(x.maps.n, sizeof(want));
	for (i = 0; i < x.maps.n; i++) {
		assert_int_equal(x.u[i].kind, want[i]);
		/* the workingset still counts the bss pages as private_data */
		if (i == 2)
			assert_int_equal(x.u[i].category, MW_WS_PRIVATE);
	}
	/* the bss is part of the image's allocation in the address-space map */
	assert_int_equal(x.u[2].vm_type, MW_VM_IMAGE);
	assert_int_equal(x.u[2].alloc_base, 0x400000);
	linux_teardown(&x);
}

/* Arenas: the used part is heap, the PROT_NONE tail reserved (in no kind);
 * a full 64 MiB arena has no tail; a misaligned one is private. */
static void linux_arenas(void **state)
{
	static const char text[] =
		"7f0000000000-7f0000021000 rw-p 00000000 00:00 0 \n"
		"7f0000021000-7f0004000000 ---p 00000000 00:00 0 \n"
		"7f0004000000-7f0008000000 rw-p 00000000 00:00 0 \n"
		"7f0010001000-7f0010002000 rw-p 00000000 00:00 0 \n";
	struct linux_fixture x;
	struct mw_heap_breakdown bd;

	(void)state;
	linux_setup(&x, text);
	mw_heap_breakdown_smaps(&x.maps, x.u, &bd);
	assert_int_equal(bd.bytes[MW_HK_HEAP], PG(0x21) + (64 << 20));
	assert_int_equal(bd.bytes[MW_HK_PRIVATE_OTHER], PG(1));
	assert_int_equal(bd.bytes[MW_HK_STACK_RESERVED], 0);
	assert_true(x.u[1].reserved);
	assert_int_equal(x.u[0].owner_id, 1);
	assert_int_equal(x.u[2].owner_id, 2);
	linux_teardown(&x);
}

/* Thread stacks: glibc's guard + stack pairs (each guard is
 * stack_reserved), one found by a thread's stack pointer only, and their
 * ranges with the thread ids. */
static void linux_thread_stacks(void **state)
{
	static const char text[] =
		"7f1000000000-7f1000001000 ---p 00000000 00:00 0 \n"
		"7f1000001000-7f1000801000 rw-p 00000000 00:00 0 \n"
		"7f1000801000-7f1000811000 ---p 00000000 00:00 0 \n"
		"7f1000811000-7f1001011000 rw-p 00000000 00:00 0 \n"
		"7f5000000000-7f5000100000 rw-p 00000000 00:00 0 \n";
	struct linux_fixture x;
	struct mw_heap_breakdown bd;
	struct mw_vm_ranges r = { 0 };

	(void)state;
	linux_setup(&x, text);
	mw_heap_breakdown_smaps(&x.maps, x.u, &bd);
	assert_int_equal(bd.bytes[MW_HK_STACK_COMMITTED], (16 << 20) + (1 << 20));
	assert_int_equal(bd.bytes[MW_HK_STACK_RESERVED], PG(1) + PG(16));
	assert_int_equal(bd.bytes[MW_HK_PRIVATE_OTHER], 0);
	mw_smaps_stack_ranges(&x.maps, x.u, &r);
	assert_int_equal(r.n, 3);
	assert_int_equal(r.r[0].base, 0x7f1000001000ULL);
	assert_int_equal(r.r[0].size, 8 << 20);
	assert_int_equal(r.r[0].id, 0);	/* no thread's stack pointer in it */
	assert_int_equal(r.r[2].base, 0x7f5000000000ULL);
	assert_int_equal(r.r[2].id, 77);
	mw_vm_ranges_release(&r);
	linux_teardown(&x);
}

/* vmmap's committed total is the bar's for the same read; its reserved
 * total is the PROT_NONE mappings; types follow the kinds. */
static void linux_vmmap_agrees(void **state)
{
	struct linux_fixture x;
	struct mw_heap_breakdown bd;
	struct mw_vm_regions v = { 0 };
	struct mw_vm_summary sum;
	uint64_t bar = 0, committed = 0, reserved = 0;
	int k;

	(void)state;
	linux_setup(&x, LINUX_SMAPS);
	mw_heap_breakdown_smaps(&x.maps, x.u, &bd);
	mw_smaps_vm_regions(&x.maps, x.u, &v);
	mw_vm_summarize(&v, &sum);
	for (k = 0; k < MW_HK_N; k++)
		if (k != MW_HK_STACK_RESERVED)
			bar += bd.bytes[k];
	for (k = 0; k < MW_VM_NTYPES; k++) {
		committed += sum.bytes[MW_VM_COMMIT][k];
		reserved += sum.bytes[MW_VM_RESERVE][k];
	}
	assert_int_equal(committed, bar);
	assert_int_equal(reserved, PG(1) + (60 << 20) + PG(16));
	assert_int_equal(sum.bytes[MW_VM_COMMIT][MW_VM_IMAGE],
			 bd.bytes[MW_HK_IMAGE] + bd.bytes[MW_HK_STATIC_DATA]);
	assert_int_equal(sum.bytes[MW_VM_COMMIT][MW_VM_MAPPED], bd.bytes[MW_HK_MAPPED]);
	assert_int_equal(sum.bytes[MW_VM_COMMIT][MW_VM_PRIVATE],
			 bd.bytes[MW_HK_HEAP] + bd.bytes[MW_HK_STACK_COMMITTED] +
			 bd.bytes[MW_HK_PRIVATE_OTHER]);
	assert_int_equal(sum.bytes[MW_VM_RESERVE][MW_VM_IMAGE], PG(16));	/* libc's gap */
	assert_int_equal(v.hi, 0x800000000000ULL);
	mw_vm_regions_release(&v);
	linux_teardown(&x);
}

/* The workingset's categories and the bar's kinds come from one
 * classification: heap, stack, mapped agree mapping by mapping. */
static void linux_workingset_agrees(void **state)
{
	struct linux_fixture x;
	size_t i;

	(void)state;
	linux_setup(&x, LINUX_SMAPS);
	for (i = 0; i < x.maps.n; i++) {
		switch (x.u[i].category) {
		case MW_WS_HEAP:
			assert_int_equal(x.u[i].kind, MW_SK_HEAP);
			break;
		case MW_WS_STACK:
			assert_int_equal(x.u[i].kind, MW_SK_STACK);
			break;
		case MW_WS_MAPPED:
		case MW_WS_SHAREABLE:
			assert_int_equal(x.u[i].kind, MW_SK_MAPPED);
			break;
		case MW_WS_IMAGE:
			assert_true(x.u[i].kind == MW_SK_IMAGE || x.u[i].kind == MW_SK_STATIC_DATA);
			break;
		default:
			assert_true(x.u[i].kind == MW_SK_PRIVATE || x.u[i].kind == MW_SK_STATIC_DATA);
			break;
		}
	}
	linux_teardown(&x);
}

/* Heaps of another process from its PEB heap ranges over the region map. */
static void heaps_from_ranges(void **state)
{
	struct mw_vm_regions v = { 0 };
	struct mw_vm_ranges rg = { 0 };
	struct mw_heap_list h = { 0 };
	struct mw_heap_breakdown b;
	(void)state;
	build(&v);
	/* heap 0: header at 0xa00000 and its segment (same allocation: once) */
	mw_vm_ranges_add(&rg, 0xa00000, 1, 0);
	mw_vm_ranges_add(&rg, 0xa00000, 64 * P, 0);
	/* heap 1: a range in free space (a heap that lied) takes nothing */
	mw_vm_ranges_add(&rg, 0x950000, P, 1);
	/* heap 2: the same allocation as heap 0: stays with heap 0 */
	mw_vm_ranges_add(&rg, 0xa10000, 1, 2);
	mw_heap_from_ranges(&v, &rg, &h);
	assert_int_equal(h.n, 3);
	assert_int_equal(h.h[0].id, 0);
	assert_true(h.h[0].segments && !h.h[0].summary);
	assert_int_equal(h.h[0].committed, 16 * P);
	assert_int_equal(h.h[0].uncommitted, 48 * P);
	assert_int_equal(h.h[0].regions, 1);
	assert_int_equal(h.h[1].committed, 0);
	assert_int_equal(h.h[2].committed, 0);
	/* the breakdown: the committed heap as one figure */
	mw_heap_breakdown(&v, NULL, 0, &h, &b);
	assert_true(b.have_heaps && b.heap_whole);
	assert_int_equal(b.bytes[MW_HK_HEAP], 16 * P);
	assert_int_equal(b.bytes[MW_HK_HEAP_USED], 0);
	assert_int_equal(b.bytes[MW_HK_HEAP_FREE], 0);
	/* replaces */
	rg.n = 0;
	mw_heap_from_ranges(&v, &rg, &h);
	assert_int_equal(h.n, 0);
	free(h.h);
	mw_vm_ranges_release(&rg);
	mw_vm_regions_release(&v);
}

/* A heap in a section view (a shared heap, CSR's) is not private memory:
 * its bytes come out of mapped, and private_other keeps every private byte
 * that is no heap. */
static void breakdown_heap_in_section_view(void **state)
{
	struct mw_vm_regions v = { 0 };
	struct mw_vm_ranges rg = { 0 };
	struct mw_heap_list h = { 0 };
	struct mw_heap_totals s;
	struct mw_heap_list sum = { &s, 1, 1 };
	struct mw_heap_breakdown b;

	(void)state;
	build(&v);
	/* PEB heap list: heap 0 private at 0xa00000, heap 1 in the view */
	mw_vm_ranges_add(&rg, 0xa00000, 1, 0);
	mw_vm_ranges_add(&rg, 0x600000, 1, 1);
	mw_heap_from_ranges(&v, &rg, &h);
	assert_int_equal(h.n, 2);
	assert_int_equal(h.h[1].committed, 4 * P);
	mw_heap_breakdown(&v, stack, 1, &h, &b);
	assert_int_equal(b.bytes[MW_HK_HEAP], 16 * P + 4 * P);
	assert_int_equal(b.bytes[MW_HK_MAPPED], 0);
	assert_int_equal(b.bytes[MW_HK_PRIVATE_OTHER], 24 * P - 16 * P);
	assert_int_equal(mw_test_heap_committed(&b), mw_test_vm_committed(&v));
	/* the remote summary of the same shared heap: used and free from
	 * mapped, clipped to it */
	memset(&s, 0, sizeof(s));
	s.summary = true, s.base = 0x601000, s.committed = 6 * P, s.busy = 3 * P;
	mw_heap_breakdown(&v, stack, 1, &sum, &b);
	assert_int_equal(b.bytes[MW_HK_HEAP_USED], 3 * P);
	assert_int_equal(b.bytes[MW_HK_HEAP_FREE], 1 * P);
	assert_int_equal(b.bytes[MW_HK_MAPPED], 0);
	assert_int_equal(b.bytes[MW_HK_PRIVATE_OTHER], 24 * P);
	assert_int_equal(mw_test_heap_committed(&b), mw_test_vm_committed(&v));
	/* a base in the view's reserved part is still in the view; one in free
	 * space is not */
	s.base = 0x605000;
	mw_heap_breakdown(&v, stack, 1, &sum, &b);
	assert_int_equal(b.bytes[MW_HK_PRIVATE_OTHER], 24 * P);
	s.base = 0x300000;
	mw_heap_breakdown(&v, stack, 1, &sum, &b);
	assert_int_equal(b.bytes[MW_HK_PRIVATE_OTHER], 24 * P - 6 * P);
	assert_int_equal(b.bytes[MW_HK_MAPPED], 4 * P);
	free(h.h);
	mw_vm_ranges_release(&rg);
	mw_vm_regions_release(&v);
}

/* The remote summary never runs in a WOW64 target, nor in one whose
 * bitness is unknown. */
static void how_targets_are_read(void **state)
{
	(void)state;
	assert_int_equal(mw_heap_how(true, true, 1), MW_HEAP_HOW_SELF);
	assert_int_equal(mw_heap_how(true, false, 0), MW_HEAP_HOW_SELF);
	assert_int_equal(mw_heap_how(false, false, 0), MW_HEAP_HOW_PEB);
	assert_int_equal(mw_heap_how(false, false, 1), MW_HEAP_HOW_PEB);
	assert_int_equal(mw_heap_how(false, true, 0), MW_HEAP_HOW_REMOTE);
	assert_int_equal(mw_heap_how(false, true, 1), MW_HEAP_HOW_PEB);
	assert_int_equal(mw_heap_how(false, true, -1), MW_HEAP_HOW_PEB);
}

static void notes_in_the_mode(void **state)
{
	struct mw_heap_notes sum = { 0 }, a = { 1, 2, 0, 0 }, c = { 0, 1, 1, 0 };
	char buf[96];

	(void)state;
	mw_heap_notes_text(&sum, buf, sizeof(buf));
	assert_string_equal(buf, "");
	mw_heap_notes_add(&sum, &a);
	mw_heap_notes_text(&sum, buf, sizeof(buf));
	assert_string_equal(buf, "; segment heap: 2 header only, 1 partial");
	mw_heap_notes_add(&sum, &c);
	mw_heap_notes_text(&sum, buf, sizeof(buf));
	assert_string_equal(buf, "; segment heap: 3 header only, 1 partial; WOW64: PEB, no remote "
				 "summary");
	sum.segment_header_only = 0;
	mw_heap_notes_text(&sum, buf, sizeof(buf));
	assert_string_equal(buf, "; segment heap: 1 partial; WOW64: PEB, no remote summary");
	/* a short buffer: cut, terminated */
	mw_heap_notes_text(&sum, buf, 10);
	assert_string_equal(buf, "; segment");
	mw_heap_notes_text(&sum, buf, 1);
	assert_string_equal(buf, "");
	sum.segment_partial = sum.wow64_no_remote = 0;
	sum.wow64_side_unread = 2;
	mw_heap_notes_text(&sum, buf, sizeof(buf));
	assert_string_equal(buf, "; WOW64: 2 side unread");
}

MW_TEST_MAIN(
	cmocka_unit_test(heaps_from_ranges),
	cmocka_unit_test(accounting),
	cmocka_unit_test(breakdown_known_answer),
	cmocka_unit_test(breakdown_without_heaps_or_stacks),
	cmocka_unit_test(breakdown_clips_heaps),
	cmocka_unit_test(breakdown_heap_in_section_view),
	cmocka_unit_test(how_targets_are_read),
	cmocka_unit_test(notes_in_the_mode),
	cmocka_unit_test(kind_names),
	cmocka_unit_test(debug_info_heaps),
	cmocka_unit_test(debug_info_wine_and_lies),
	cmocka_unit_test(info_stride),
	cmocka_unit_test(spi_threads),
	cmocka_unit_test(spi_lies),
	cmocka_unit_test(backoff),
	cmocka_unit_test(linux_bar_kinds),
	cmocka_unit_test(linux_bar_adds_up),
	cmocka_unit_test(linux_bss_rules),
	cmocka_unit_test(linux_arenas),
	cmocka_unit_test(linux_thread_stacks),
	cmocka_unit_test(linux_vmmap_agrees),
	cmocka_unit_test(linux_workingset_agrees),
)
