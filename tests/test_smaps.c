/* test_smaps.c - /proc/PID/smaps parsing and classification on constructed
 * text with known answers: every category, the sharing classes, owners and
 * owner ids, region grouping, PSS/USS, the syscall-file stack pointer, and
 * malformed input (a clear error naming the line, never a crash). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/smaps.h"
#include "tests/support/test_main.h"

#define KB 1024ULL
#define PS 4096u

struct text {
	char *b;
	size_t n, cap;
};

static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int k;

	for (;;) {
		va_start(ap, fmt);
		k = vsnprintf(t->b ? t->b + t->n : NULL, t->b ? t->cap - t->n : 0, fmt, ap);
		va_end(ap);
		if (t->b && (size_t)k < t->cap - t->n)
			break;
		t->cap = t->cap * 2 + (size_t)k + 1024;
		t->b = realloc(t->b, t->cap);
		assert_non_null(t->b);
	}
	t->n += (size_t)k;
}

/* One smaps entry the way the kernel writes it. */
static void ent(struct text *t, uint64_t start, uint64_t end, const char *perms, uint64_t off,
		const char *path, unsigned sc, unsigned sd, unsigned pc, unsigned pd, unsigned pss)
{
	unsigned rss = sc + sd + pc + pd;

	put(t, "%012llx-%012llx %s %08llx %s %-10lu%s%s\n", (unsigned long long)start,
	    (unsigned long long)end, perms, (unsigned long long)off, path[0] == '/' ? "fe:00" : "00:00",
	    path[0] == '/' ? 4242ul : 0ul, path[0] ? "               " : "", path);
	put(t, "Size:           %8llu kB\nKernelPageSize:        4 kB\nMMUPageSize:           4 kB\n",
	    (unsigned long long)((end - start) / KB));
	put(t, "Rss:            %8u kB\nPss:            %8u kB\nPss_Dirty:             0 kB\n", rss,
	    pss);
	put(t, "Shared_Clean:   %8u kB\nShared_Dirty:   %8u kB\nPrivate_Clean:  %8u kB\n"
	       "Private_Dirty:  %8u kB\n", sc, sd, pc, pd);
	put(t, "Referenced:     %8u kB\nAnonymous:      %8u kB\nKSM:                   0 kB\n"
	       "LazyFree:              0 kB\nAnonHugePages:         0 kB\nShmemPmdMapped:        0 kB\n"
	       "FilePmdMapped:         0 kB\nShared_Hugetlb:        0 kB\nPrivate_Hugetlb:       0 kB\n"
	       "Swap:                  0 kB\nSwapPss:               0 kB\nLocked:                0 kB\n"
	       "THPeligible:           0\nVmFlags: rd wr mr mw me ac sd \n", rss, perms[3] == 'p' ? pd : 0);
}

#define EXE "/usr/bin/demo"
#define LIBM "/usr/lib/x86_64-linux-gnu/libm.so.6"

/* A process with one of everything. */
static void demo(struct text *t)
{
	/* the executable: 3 mappings, one region */
	ent(t, 0x555555554000, 0x555555556000, "r--p", 0, EXE, 0, 0, 8, 0, 8);
	ent(t, 0x555555556000, 0x55555555a000, "r-xp", 0x2000, EXE, 16, 0, 0, 0, 8);
	ent(t, 0x55555555a000, 0x55555555b000, "rw-p", 0x6000, EXE, 0, 0, 0, 4, 4);
	ent(t, 0x555555600000, 0x555555700000, "rw-p", 0, "[heap]", 0, 0, 0, 400, 400);
	/* a malloc arena heap, 64 MiB-aligned, 1 MiB used, PROT_NONE tail */
	ent(t, 0x7f0000000000, 0x7f0000100000, "rw-p", 0, "", 0, 0, 0, 1024, 1024);
	ent(t, 0x7f0000100000, 0x7f0004000000, "---p", 0, "", 0, 0, 0, 0, 0);
	/* a second arena right after: its rw part follows the first's tail */
	ent(t, 0x7f0004000000, 0x7f0004021000, "rw-p", 0, "", 0, 0, 0, 132, 132);
	ent(t, 0x7f0004021000, 0x7f0008000000, "---p", 0, "", 0, 0, 0, 0, 0);
	/* thread stack with a known stack pointer (tid 4243) */
	ent(t, 0x7f0010000000, 0x7f0010001000, "---p", 0, "", 0, 0, 0, 0, 0);
	ent(t, 0x7f0010001000, 0x7f0010801000, "rw-p", 0, "", 0, 0, 0, 16, 16);
	/* thread stack known by its guard only */
	ent(t, 0x7f0020000000, 0x7f0020001000, "---p", 0, "", 0, 0, 0, 0, 0);
	ent(t, 0x7f0020001000, 0x7f0020801000, "rw-p", 0, "", 0, 0, 0, 8, 8);
	/* plain anonymous memory (large malloc blocks, mmap) */
	ent(t, 0x7f0030001000, 0x7f0030011000, "rw-p", 0, "", 0, 0, 0, 32, 32);
	ent(t, 0x7f0030011000, 0x7f0030013000, "rw-p", 0, "[anon:named]", 0, 0, 0, 8, 8);
	/* shared memory */
	ent(t, 0x7f0040000000, 0x7f0040010000, "rw-s", 0, "/dev/shm/demo", 0, 0, 0, 12, 12);
	ent(t, 0x7f0040010000, 0x7f0040020000, "rw-s", 0, "/memfd:wsdemo (deleted)", 0, 4, 0, 8, 10);
	ent(t, 0x7f0040020000, 0x7f0040030000, "rw-s", 0, "/dev/zero (deleted)", 0, 4, 0, 0, 2);
	ent(t, 0x7f0040030000, 0x7f0040040000, "rw-s", 0, "/SYSV0000abcd (deleted)", 0, 0, 4, 0, 4);
	/* mapped files: read-only shared with another process, private written */
	ent(t, 0x7f0050000000, 0x7f0050010000, "r--p", 0, "/usr/share/data.bin", 8, 0, 20, 0, 24);
	ent(t, 0x7f0050010000, 0x7f0050020000, "rw-p", 0, "/var/lib/db file", 0, 0, 4, 4, 8);
	/* a library: 4 mappings, one region, mostly shared */
	ent(t, 0x7f0060000000, 0x7f0060010000, "r--p", 0, LIBM, 40, 0, 0, 0, 10);
	ent(t, 0x7f0060010000, 0x7f0060090000, "r-xp", 0x10000, LIBM, 300, 0, 12, 0, 87);
	ent(t, 0x7f0060090000, 0x7f00600a0000, "r--p", 0x90000, LIBM, 0, 0, 0, 4, 4);
	ent(t, 0x7f00600a0000, 0x7f00600a1000, "rw-p", 0xa0000, LIBM, 0, 0, 0, 4, 4);
	/* an executable mapping of a file not named *.so */
	ent(t, 0x7f0070000000, 0x7f0070004000, "r-xp", 0, "/opt/plugin.bin", 0, 0, 16, 0, 16);
	ent(t, 0x7ffd00000000, 0x7ffd00021000, "rw-p", 0, "[stack]", 0, 0, 0, 132, 132);
	ent(t, 0x7ffd00100000, 0x7ffd00104000, "r--p", 0, "[vvar]", 0, 0, 0, 0, 0);
	ent(t, 0x7ffd00104000, 0x7ffd00106000, "r-xp", 0, "[vdso]", 4, 0, 0, 0, 1);
	ent(t, 0xffffffffff600000, 0xffffffffff601000, "--xp", 0, "[vsyscall]", 0, 0, 0, 0, 0);
}

static const struct mw_smaps_thread threads[] = {
	{ 4242, 0x7ffd00020000 }, { 4243, 0x7f0010800f00 }, { 4244, 0x12345 },
};

static const struct mw_ws_region *region_at(const struct mw_ws_result *r, uint64_t base)
{
	size_t i;

	for (i = 0; i < r->nregions; i++)
		if (r->regions[i].alloc_base == base)
			return &r->regions[i];
	fail_msg("no region at %llx", (unsigned long long)base);
	return NULL;
}

static void expect_region(const struct mw_ws_result *r, uint64_t base, uint64_t size, int cat,
			  int owner_kind, uint32_t owner_id, const char *owner, uint64_t priv_kb,
			  uint64_t shareable_kb, uint64_t shared_kb)
{
	const struct mw_ws_region *g = region_at(r, base);

	assert_int_equal(g->size, size);
	assert_int_equal(g->category, cat);
	assert_int_equal(g->owner_kind, owner_kind);
	assert_int_equal(g->owner_id, owner_id);
	if (owner)
		assert_string_equal(g->owner, owner);
	else
		assert_null(g->owner);
	assert_int_equal(g->pages[MW_WS_PRIV], priv_kb * KB / PS);
	assert_int_equal(g->pages[MW_WS_SHAREABLE_PAGE], shareable_kb * KB / PS);
	assert_int_equal(g->pages[MW_WS_SHARED], shared_kb * KB / PS);
}

static void classify_text(const struct text *t, const char *exe, struct mw_ws_result *r,
			  struct mw_smaps_totals *tot)
{
	struct mw_smaps s = { 0 };
	struct mw_err err = { "" };
	struct mw_smaps_facts f = { .pid = 4242, .page_size = PS, .exe = exe, .threads = threads,
				    .nthreads = 3 };

	if (mw_smaps_parse(t->b, t->n, &s, &err))
		fail_msg("%s", err.msg);
	mw_smaps_classify(&s, &f, r, tot);
	mw_smaps_release(&s);
}

static void every_category(void **state)
{
	struct text t = { 0 };
	struct mw_ws_result r = { 0 };
	struct mw_smaps_totals tot;
	uint64_t sum = 0;
	size_t i;

	(void)state;
	demo(&t);
	classify_text(&t, EXE, &r, &tot);
	assert_int_equal(r.page_size, PS);
	expect_region(&r, 0x555555554000, 0x7000, MW_WS_IMAGE, MW_WS_OWNER_MODULE, 0, EXE, 4, 8, 16);
	expect_region(&r, 0x555555600000, 0x100000, MW_WS_HEAP, MW_WS_OWNER_HEAP, 0, NULL, 400, 0, 0);
	expect_region(&r, 0x7f0000000000, 64 << 20, MW_WS_HEAP, MW_WS_OWNER_HEAP, 1, NULL, 1024, 0, 0);
	expect_region(&r, 0x7f0004000000, 64 << 20, MW_WS_HEAP, MW_WS_OWNER_HEAP, 2, NULL, 132, 0, 0);
	expect_region(&r, 0x7f0010000000, 0x801000, MW_WS_STACK, MW_WS_OWNER_STACK, 4243, NULL, 16, 0,
		      0);
	expect_region(&r, 0x7f0020000000, 0x801000, MW_WS_STACK, MW_WS_OWNER_STACK, 0, NULL, 8, 0, 0);
	expect_region(&r, 0x7f0030001000, 0x10000, MW_WS_PRIVATE, MW_WS_OWNER_UNKNOWN, 0, NULL, 32, 0,
		      0);
	expect_region(&r, 0x7f0030011000, 0x2000, MW_WS_PRIVATE, MW_WS_OWNER_UNKNOWN, 0, NULL, 8, 0, 0);
	expect_region(&r, 0x7f0040000000, 0x10000, MW_WS_SHAREABLE, MW_WS_OWNER_FILE, 0,
		      "/dev/shm/demo", 0, 12, 0);
	expect_region(&r, 0x7f0040010000, 0x10000, MW_WS_SHAREABLE, MW_WS_OWNER_FILE, 0,
		      "/memfd:wsdemo (deleted)", 0, 8, 4);
	expect_region(&r, 0x7f0040020000, 0x10000, MW_WS_SHAREABLE, MW_WS_OWNER_UNKNOWN, 0, NULL, 0, 0,
		      4);
	expect_region(&r, 0x7f0040030000, 0x10000, MW_WS_SHAREABLE, MW_WS_OWNER_FILE, 0,
		      "/SYSV0000abcd (deleted)", 0, 4, 0);
	expect_region(&r, 0x7f0050000000, 0x10000, MW_WS_MAPPED, MW_WS_OWNER_FILE, 0,
		      "/usr/share/data.bin", 0, 20, 8);
	expect_region(&r, 0x7f0050010000, 0x10000, MW_WS_MAPPED, MW_WS_OWNER_FILE, 0,
		      "/var/lib/db file", 4, 4, 0);
	expect_region(&r, 0x7f0060000000, 0xa1000, MW_WS_IMAGE, MW_WS_OWNER_MODULE, 0, LIBM, 8, 12,
		      340);
	expect_region(&r, 0x7f0070000000, 0x4000, MW_WS_IMAGE, MW_WS_OWNER_MODULE, 0,
		      "/opt/plugin.bin", 0, 16, 0);
	expect_region(&r, 0x7ffd00000000, 0x21000, MW_WS_STACK, MW_WS_OWNER_STACK, 4242, NULL, 132, 0,
		      0);
	expect_region(&r, 0x7ffd00104000, 0x2000, MW_WS_OTHER, MW_WS_OWNER_UNKNOWN, 0, NULL, 0, 0, 4);
	/* only resident regions: [vvar], [vsyscall], tails and guards alone are not listed */
	assert_int_equal(r.nregions, 18);
	/* totals by category and sharing add up to Rss */
	for (int c = 0; c < MW_WS_NCATEGORIES; c++)
		for (int s = 0; s < MW_WS_NSHARING; s++)
			sum += r.pages[c][s];
	assert_int_equal(sum * PS, tot.rss);
	assert_int_equal(r.pages[MW_WS_HEAP][MW_WS_PRIV], (400 + 1024 + 132) * KB / PS);
	assert_int_equal(r.pages[MW_WS_STACK][MW_WS_PRIV], (16 + 8 + 132) * KB / PS);
	assert_int_equal(r.pages[MW_WS_SHAREABLE][MW_WS_SHARED], 8 * KB / PS);
	assert_int_equal(r.pages[MW_WS_IMAGE][MW_WS_SHARED], (16 + 340) * KB / PS);
	assert_int_equal(r.pages[MW_WS_OTHER][MW_WS_SHARED], 1);
	/* PSS: the sum of Pss; USS: every Private_* page */
	{
		uint64_t pss = 8 + 8 + 4 + 400 + 1024 + 132 + 16 + 8 + 32 + 8 + 12 + 10 + 2 + 4 + 24 +
			       8 + 10 + 87 + 4 + 4 + 16 + 132 + 1;
		uint64_t uss = 8 + 4 + 400 + 1024 + 132 + 16 + 8 + 32 + 8 + 12 + 8 + 4 + 20 + 8 + 12 +
			       4 + 4 + 16 + 132;

		assert_int_equal(tot.pss, pss * KB);
		assert_int_equal(tot.uss, uss * KB);
	}
	/* the encoding carries the regions */
	{
		size_t len;
		unsigned char *enc = mw_ws_encode(&r, &len);
		struct mw_ws_result back = { 0 };
		struct mw_err err = { "" };

		assert_int_equal(mw_ws_decode(enc, len, &back, &err), 0);
		assert_int_equal(back.nregions, r.nregions);
		for (i = 0; i < r.nregions; i++)
			assert_int_equal(back.regions[i].category, r.regions[i].category);
		free(enc);
		mw_ws_result_release(&back);
	}
	mw_ws_result_release(&r);
	free(t.b);
}

/* A Go program (tests/corpus/gosvc.go built by Debian's Go 1.19, as
 * lk_goroutine in session 23's recording, 31 minutes in): its mappings as
 * /proc/PID/smaps gave them (Rss of each; addresses, permissions and sizes
 * as recorded) and its threads' stack pointers from /proc/PID/task/TID/
 * syscall.  Go runs its threads on stacks it allocates in its own heap:
 * three of the four stack pointers lie 0x45da8-0x4bda8 bytes into the
 * heap's first mapping (0xc000000000, 20 MiB, 15.2 MiB resident), which
 * therefore read as a thread stack, and the program's heap leak was named
 * "stack".  A stack grows down from its mapping's top: a pointer that deep
 * below the top makes no stack; a shallow one still does. */
static void go_heap_is_no_stack(void **state)
{
	static const struct mw_smaps_thread go_threads[] = {
		{ 26135, 0x7fff8af64360 }, { 26137, 0xc000049e78 }, { 26138, 0xc00004bda8 },
		{ 26139, 0xc000045da8 },
		/* constructed: a thread without a guard, 64 KiB below its top */
		{ 26140, 0x7fa230000000 - 0x10000 },
		/* constructed: one 2 MiB below the top of a guardless 8 MiB
		 * mapping (deeper than a thread stack is taken to be) */
		{ 26141, 0x7fa240000000 - 0x200000 },
	};
	const char *exe = "/tmp/rec_go/bin/lk_goroutine";
	struct text t = { 0 };
	struct mw_smaps s = { 0 };
	struct mw_err err = { "" };
	struct mw_smaps_facts f = { .pid = 26135, .page_size = PS, .exe = exe,
				    .threads = go_threads, .nthreads = 6 };
	struct mw_ws_result r = { 0 };
	struct mw_smaps_totals tot;

	(void)state;
	ent(&t, 0x400000, 0x4a2000, "r-xp", 0, exe, 648, 0, 0, 0, 648);
	ent(&t, 0x4a2000, 0x54a000, "r--p", 0xa2000, exe, 672, 0, 0, 0, 672);
	ent(&t, 0x54a000, 0x564000, "rw-p", 0x14a000, exe, 0, 0, 0, 104, 104);
	ent(&t, 0x564000, 0x598000, "rw-p", 0, "", 0, 0, 0, 64, 64);
	ent(&t, 0xc000000000, 0xc001400000, "rw-p", 0, "", 0, 0, 0, 15572, 15572);
	ent(&t, 0xc001400000, 0xc001600000, "rw-p", 0, "", 0, 0, 0, 0, 0);
	ent(&t, 0xc001600000, 0xc001a00000, "rw-p", 0, "", 0, 0, 0, 48, 48);
	ent(&t, 0xc001c00000, 0xc001e00000, "rw-p", 0, "", 0, 0, 0, 36, 36);
	ent(&t, 0xc002400000, 0xc004000000, "---p", 0, "", 0, 0, 0, 0, 0);
	ent(&t, 0x7fa1f486f000, 0x7fa1f6c00000, "rw-p", 0, "", 0, 0, 0, 924, 924);
	ent(&t, 0x7fa21bc17000, 0x7fa21bcd7000, "rw-p", 0, "", 0, 0, 0, 708, 708);
	ent(&t, 0x7fa21bdd7000, 0x7fa21be37000, "rw-p", 0, "", 0, 0, 0, 44, 44);
	ent(&t, 0x7fa22f800000, 0x7fa230000000, "rw-p", 0, "", 0, 0, 0, 16, 16);
	ent(&t, 0x7fa23f800000, 0x7fa240000000, "rw-p", 0, "", 0, 0, 0, 2048, 2048);
	ent(&t, 0x7fff8af45000, 0x7fff8af66000, "rw-p", 0, "[stack]", 0, 0, 0, 16, 16);
	if (mw_smaps_parse(t.b, t.n, &s, &err))
		fail_msg("%s", err.msg);
	mw_smaps_classify(&s, &f, &r, &tot);
	assert_int_equal(region_at(&r, 0xc000000000)->category, MW_WS_PRIVATE);
	assert_int_equal(region_at(&r, 0xc001600000)->category, MW_WS_PRIVATE);
	assert_int_equal(region_at(&r, 0x7fa1f486f000)->category, MW_WS_PRIVATE);
	assert_int_equal(region_at(&r, 0x7fa22f800000)->category, MW_WS_STACK);
	assert_int_equal(region_at(&r, 0x7fa22f800000)->owner_id, 26140);
	assert_int_equal(region_at(&r, 0x7fa23f800000)->category, MW_WS_PRIVATE);
	assert_int_equal(region_at(&r, 0x7fff8af45000)->category, MW_WS_STACK);
	assert_int_equal(r.pages[MW_WS_STACK][MW_WS_PRIV], (16 + 16) * KB / PS);
	mw_ws_result_release(&r);
	mw_smaps_release(&s);
	free(t.b);
}

/* Without /proc/PID/exe the executable is still an image when it has an
 * executable mapping; a data file mapped read-only is not. */
static void image_rules(void **state)
{
	static const struct { const char *path, *perms; int cat; } cases[] = {
		{ "/lib/libz.so.1.2.13", "r--p", MW_WS_IMAGE },
		{ "/lib/libfoo.so", "r--p", MW_WS_IMAGE },
		{ "/lib/ld-linux-x86-64.so.2", "r--p", MW_WS_IMAGE },
		{ "/lib/libfoo.so (deleted)", "r--p", MW_WS_IMAGE },
		{ "/x/mod.cpython-311-x86_64-linux-gnu.so", "r--p", MW_WS_IMAGE },
		{ "/usr/bin/demo", "r--p", MW_WS_IMAGE },	/* the exe */
		{ "/usr/bin/other", "r-xp", MW_WS_IMAGE },	/* executable mapping */
		{ "/data/file.sox", "r--p", MW_WS_MAPPED },
		{ "/data/file.so.", "r--p", MW_WS_MAPPED },
		{ "/data/x.so.d/cache", "r--p", MW_WS_MAPPED },
		{ "/usr/lib/locale/locale-archive", "r--p", MW_WS_MAPPED },
		{ "/dev/shm/x.so", "rw-s", MW_WS_SHAREABLE },
		{ "/tmp/plain", "rw-s", MW_WS_MAPPED },
		{ "", "rw-s", MW_WS_SHAREABLE },
		{ "[anon_shmem:x]", "rw-s", MW_WS_SHAREABLE },
		{ "[uprobes]", "r-xp", MW_WS_OTHER },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct text t = { 0 };
		struct mw_ws_result r = { 0 };
		struct mw_smaps_totals tot;

		ent(&t, 0x10000, 0x11000, cases[i].perms, 0, cases[i].path, 0, 0, 4, 0, 4);
		classify_text(&t, "/usr/bin/demo", &r, &tot);
		assert_int_equal(r.nregions, 1);
		if (r.regions[0].category != cases[i].cat)
			fail_msg("%s %s: category %s, expected %s", cases[i].path, cases[i].perms,
				 mw_ws_category_names[r.regions[0].category],
				 mw_ws_category_names[cases[i].cat]);
		mw_ws_result_release(&r);
		free(t.b);
	}
}

/* Two mappings of one file from offset 0 are two regions; a file's
 * mappings with another mapping between them are two regions. */
static void grouping(void **state)
{
	struct text t = { 0 };
	struct mw_ws_result r = { 0 };
	struct mw_smaps_totals tot;

	(void)state;
	ent(&t, 0x10000, 0x11000, "r--p", 0, "/data/a", 0, 0, 4, 0, 4);
	ent(&t, 0x11000, 0x12000, "r--p", 0, "/data/a", 0, 0, 4, 0, 4);
	ent(&t, 0x12000, 0x13000, "r--p", 0x1000, "/data/a", 0, 0, 4, 0, 4);
	ent(&t, 0x13000, 0x14000, "rw-p", 0, "", 0, 0, 0, 4, 4);
	ent(&t, 0x14000, 0x15000, "r--p", 0x2000, "/data/a", 0, 0, 4, 0, 4);
	classify_text(&t, NULL, &r, &tot);
	assert_int_equal(r.nregions, 4);
	assert_int_equal(r.regions[0].alloc_base, 0x10000);
	assert_int_equal(r.regions[1].alloc_base, 0x11000);
	assert_int_equal(r.regions[1].size, 0x2000);
	assert_int_equal(r.regions[1].pages[MW_WS_SHAREABLE_PAGE], 2);
	assert_int_equal(r.regions[3].alloc_base, 0x14000);
	mw_ws_result_release(&r);
	free(t.b);
}

/* Arena and guard look-alikes that are neither. */
static void heuristics_negative(void **state)
{
	struct text t = { 0 };
	struct mw_ws_result r = { 0 };
	struct mw_smaps_totals tot;

	(void)state;
	/* aligned but 32 MiB + tail: not HEAP_MAX */
	ent(&t, 0x7f0000000000, 0x7f0001000000, "rw-p", 0, "", 0, 0, 0, 4, 4);
	ent(&t, 0x7f0001000000, 0x7f0002000000, "---p", 0, "", 0, 0, 0, 0, 0);
	/* a guard too large (2 MiB) */
	ent(&t, 0x7f0010000000, 0x7f0010200000, "---p", 0, "", 0, 0, 0, 0, 0);
	ent(&t, 0x7f0010200000, 0x7f0010300000, "rw-p", 0, "", 0, 0, 0, 4, 4);
	/* a guard not adjacent */
	ent(&t, 0x7f0020000000, 0x7f0020001000, "---p", 0, "", 0, 0, 0, 0, 0);
	ent(&t, 0x7f0020002000, 0x7f0020003000, "rw-p", 0, "", 0, 0, 0, 4, 4);
	/* exactly 64 MiB, aligned, no tail: an arena grown to its end */
	ent(&t, 0x7f0040000000, 0x7f0044000000, "rw-p", 0, "", 0, 0, 0, 4, 4);
	classify_text(&t, NULL, &r, &tot);
	assert_int_equal(r.nregions, 4);
	assert_int_equal(r.regions[0].category, MW_WS_PRIVATE);
	assert_int_equal(r.regions[1].category, MW_WS_PRIVATE);
	assert_int_equal(r.regions[2].category, MW_WS_PRIVATE);
	assert_int_equal(r.regions[3].category, MW_WS_HEAP);
	assert_int_equal(r.regions[3].owner_id, 1);
	mw_ws_result_release(&r);
	free(t.b);
}

/* Pages written with write(2) and mapped MAP_PRIVATE are dirty page
 * cache, not copies: Private_Dirty without Anonymous is shareable. */
static void dirty_page_cache(void **state)
{
	struct text t = { 0 };
	struct mw_ws_result r = { 0 };
	struct mw_smaps_totals tot;
	char *a;

	(void)state;
	ent(&t, 0x10000, 0x20000, "r--p", 0, "/data/new", 0, 0, 0, 64, 64);
	a = strstr(t.b, "Anonymous:");
	assert_non_null(a);
	memcpy(a, "Anonymous:             0 kB", 27);
	classify_text(&t, NULL, &r, &tot);
	assert_int_equal(r.nregions, 1);
	assert_int_equal(r.regions[0].category, MW_WS_MAPPED);
	assert_int_equal(r.regions[0].pages[MW_WS_SHAREABLE_PAGE], 16);
	assert_int_equal(r.regions[0].pages[MW_WS_PRIV], 0);
	assert_int_equal(tot.uss, 64 * KB);
	mw_ws_result_release(&r);
	free(t.b);
}

static void syscall_sp(void **state)
{
	uint64_t sp = 0;

	(void)state;
	assert_int_equal(mw_smaps_syscall_sp("230 0x0 0x0 0x7ffd8f8805d0 0x7ffd8f880610 0x0 0x0 "
					     "0x7ffd8f8805b8 0x7fa821e27503\n", &sp), 0);
	assert_int_equal(sp, 0x7ffd8f8805b8);
	assert_int_equal(mw_smaps_syscall_sp("-1 0x7f0010800f00 0x401000\n", &sp), 0);
	assert_int_equal(sp, 0x7f0010800f00);
	assert_int_equal(mw_smaps_syscall_sp("running\n", &sp), -1);
	assert_int_equal(mw_smaps_syscall_sp("", &sp), -1);
	assert_int_equal(mw_smaps_syscall_sp("230 0x0 0x0\n", &sp), -1);
	assert_int_equal(mw_smaps_syscall_sp("230 0x0 0x0 0x0 0x0 0x0 0x0 0x1 0x2 0x3\n", &sp), -1);
	assert_int_equal(mw_smaps_syscall_sp("-1 0xzz 0x1\n", &sp), -1);
}

static void expect_error(const char *text, const char *what)
{
	struct mw_smaps s = { 0 };
	struct mw_err err = { "" };

	if (mw_smaps_parse(text, strlen(text), &s, &err) != -1)
		fail_msg("accepted: %s", text);
	if (!strstr(err.msg, what))
		fail_msg("'%s': error '%s' does not say '%s'", text, err.msg, what);
	mw_smaps_release(&s);
}

static void malformed(void **state)
{
	struct text t = { 0 };
	struct mw_smaps s = { 0 };
	struct mw_err err = { "" };
	struct mw_ws_result r = { 0 };
	struct mw_smaps_totals tot;
	unsigned seed = 12345;
	size_t i, n;
	const char *lenient = "10000-11000 rw-p 0 00:00 0\nNewField: 7 MB\n\nRss: 4 kB";

	(void)state;
	expect_error("Rss: 4 kB\n", "line 1: field before any mapping header");
	expect_error("10000-11000 rw-p 0 00:00 0\nhello\n", "line 2: neither");
	expect_error("10000-11000 rw-p\n", "line 1: malformed mapping header");
	expect_error("10000-11000 rwzp 0 00:00 0\n", "line 1: malformed mapping header");
	expect_error("11000-10000 rw-p 0 00:00 0\n", "line 1: malformed mapping header");
	expect_error("10000-11000 rw-p 0 00:00 x\n", "line 1: malformed mapping header");
	expect_error("10000-11000 rw-p 0 00:00 0\nRss: lots kB\n", "line 2: Rss: not a number");
	expect_error("10000-11000 rw-p 0 00:00 0\nPss: 4 MB\n", "line 2: Pss: not a number");
	expect_error("10000-11000 rw-p 0 00:00 0\nRss: 99999999999999999999 kB\n", "line 2: Rss");
	expect_error("10000-12000 rw-p 0 00:00 0\n11000-13000 rw-p 0 00:00 0\n", "line 2: mapping 11000 "
		     "overlaps");
	expect_error("fffffffffffffffffff-1 rw-p 0 00:00 0\n", "line 1: malformed");
	/* unknown fields, empty lines, no final newline: fine */
	assert_int_equal(mw_smaps_parse(lenient, strlen(lenient), &s, &err), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.m[0].kb[MW_SM_RSS], 4);
	/* empty text: no mappings */
	assert_int_equal(mw_smaps_parse("", 0, &s, &err), 0);
	assert_int_equal(s.n, 0);
	/* every truncation and random byte damage of real-looking text: an
	 * answer or an error, never a crash (ASan watches) */
	demo(&t);
	for (n = 0; n < t.n; n += 7) {
		char *cut = malloc(n + 1);

		memcpy(cut, t.b, n);
		if (mw_smaps_parse(cut, n, &s, &err) == 0) {
			struct mw_smaps_facts f = { .pid = 1, .page_size = PS };

			mw_smaps_classify(&s, &f, &r, &tot);
		}
		free(cut);
	}
	for (i = 0; i < 3000; i++) {
		char *bad = malloc(t.n);

		memcpy(bad, t.b, t.n);
		for (int k = 0; k < 4; k++) {
			seed = seed * 1103515245u + 12345u;
			bad[(seed >> 8) % t.n] = (char)(seed >> 3);
		}
		if (mw_smaps_parse(bad, t.n, &s, &err) == 0) {
			struct mw_smaps_facts f = { .pid = 1, .page_size = PS, .exe = "/usr/bin/demo" };

			mw_smaps_classify(&s, &f, &r, &tot);
		} else {
			assert_non_null(strstr(err.msg, "smaps: line "));
		}
		free(bad);
	}
	mw_smaps_release(&s);
	mw_ws_result_release(&r);
	free(t.b);
}

MW_TEST_MAIN(
	cmocka_unit_test(every_category),
	cmocka_unit_test(go_heap_is_no_stack),
	cmocka_unit_test(image_rules),
	cmocka_unit_test(grouping),
	cmocka_unit_test(heuristics_negative),
	cmocka_unit_test(dirty_page_cache),
	cmocka_unit_test(syscall_sp),
	cmocka_unit_test(malformed),
)
