/* test_jvm.c - the jvm collector's pure parts: the hsperfdata parser on a
 * file a JDK 17 JVM under G1 wrote (tests/data/jvm/) and on constructed
 * files, both byte orders and every way a file can be wrong; file names
 * as pids; a file left by a dead JVM. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/jvm.h"
#include "collectors/jvm_after_gc.h"
#include "collectors/jvm_perfdata.h"
#include "tests/support/hsperf_file.h"
#include "tests/support/test_main.h"


static void recorded_g1_file(void **state)
{
	struct mw_jvm_heap h;
	struct mw_err err = { "" };
	size_t len;
	uint8_t *buf = mw_test_hsperf_load(&len);

	(void)state;
	assert_int_equal(len, 32768);
	assert_int_equal(mw_jvm_perfdata_parse(buf, len, &h, &err), 0);
	assert_true(h.have_old);
	assert_true(h.old_used == MW_TEST_HSPERF_OLD_USED);
	assert_true(h.old_capacity == 68157448);
	assert_true(h.young_used == 5242880 + 2097152);	/* eden + s0 + s1 */
	assert_true(h.young_capacity == 14680088);
	assert_true(h.max_capacity == 268435464);	/* G1: the old generation's, the whole heap */
	assert_true(h.metaspace_used == 237784);
	assert_true(h.young_collections == 55);
	assert_true(h.old_collections == 2 + 23);
	assert_true(h.vm_start_ms == 1795801407004LL);
	/* cut anywhere inside its entries: an error, never a read past */
	for (size_t cut = 0; cut < 12400; cut += 97)
		if (mw_jvm_perfdata_parse(buf, cut, &h, &err) == 0)
			fail_msg("parsed from %zu bytes", cut);
	free(buf);
}

/* --- constructed files ----------------------------------------------------- */

struct builder {
	uint8_t b[4096];
	size_t at;
	uint32_t n;
	bool little;
};

static void put32(struct builder *w, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		w->b[at + (size_t)i] = (uint8_t)(w->little ? v >> (8 * i) : v >> (8 * (3 - i)));
}

static void put64(struct builder *w, size_t at, uint64_t v)
{
	put32(w, at + (w->little ? 0 : 4), (uint32_t)v);
	put32(w, at + (w->little ? 4 : 0), (uint32_t)(v >> 32));
}

static void start(struct builder *w, bool little)
{
	memset(w, 0, sizeof(*w));
	w->little = little;
	w->b[0] = 0xca, w->b[1] = 0xfe, w->b[2] = 0xc0, w->b[3] = 0xc0;
	w->b[4] = little, w->b[5] = 2, w->b[6] = 0, w->b[7] = 1;
	w->at = 32;
	put32(w, 24, 32);
}

/* An entry: a J scalar, or (type 'B', vlen > 0) a string. */
static void entry(struct builder *w, const char *name, char type, uint32_t vlen, uint64_t v)
{
	size_t e = w->at, nl = strlen(name) + 1, data = 20 + ((nl + 7) & ~(size_t)7);
	size_t len = data + (vlen ? vlen : 8);

	put32(w, e, (uint32_t)len);
	put32(w, e + 4, 20);
	put32(w, e + 8, vlen);
	w->b[e + 12] = (uint8_t)type;
	w->b[e + 15] = 3;
	put32(w, e + 16, (uint32_t)data);
	memcpy(w->b + e + 20, name, nl);
	if (!vlen)
		put64(w, e + data, v);
	w->at += len;
	w->n++;
}

static size_t finish(struct builder *w)
{
	put32(w, 8, (uint32_t)w->at);
	put32(w, 28, w->n);
	return w->at;
}

static size_t a_g1_file(struct builder *w, bool little)
{
	start(w, little);
	entry(w, "sun.rt.createVmBeginTime", 'J', 0, 1700000000123ULL);
	entry(w, "sun.gc.policy.name", 'B', 16, 0);
	memcpy(w->b + w->at - 16, "GarbageFirst", 12);
	entry(w, "sun.gc.generation.0.maxCapacity", 'J', 0, 256);
	entry(w, "sun.gc.generation.1.maxCapacity", 'J', 0, 256);
	entry(w, "sun.gc.collector.0.invocations", 'J', 0, 40);
	entry(w, "sun.gc.collector.1.invocations", 'J', 0, 2);
	entry(w, "sun.gc.generation.0.capacity", 'J', 0, 1000);
	entry(w, "sun.gc.generation.0.space.0.used", 'J', 0, 300);
	entry(w, "sun.gc.generation.0.space.1.used", 'J', 0, 20);
	entry(w, "sun.gc.generation.0.space.12.used", 'J', 0, 5);
	entry(w, "sun.gc.generation.0.space.x.used", 'J', 0, 999999);	/* not an index */
	entry(w, "sun.gc.generation.1.capacity", 'J', 0, 5000000000ULL);
	entry(w, "sun.gc.generation.1.space.0.used", 'J', 0, 4000000000ULL);
	entry(w, "sun.gc.metaspace.used", 'J', 0, 777);
	return finish(w);
}

static void both_byte_orders(void **state)
{
	struct builder w;
	struct mw_jvm_heap h;
	struct mw_err err = { "" };

	(void)state;
	for (int little = 0; little <= 1; little++) {
		size_t len = a_g1_file(&w, little);

		assert_int_equal(mw_jvm_perfdata_parse(w.b, len, &h, &err), 0);
		assert_true(h.old_used == 4000000000ULL);	/* over 32 bits */
		assert_true(h.old_capacity == 5000000000ULL);
		assert_true(h.young_used == 325);
		assert_true(h.young_capacity == 1000);
		assert_true(h.metaspace_used == 777);
		assert_true(h.young_collections == 40);
		assert_true(h.old_collections == 2);
		assert_true(h.vm_start_ms == 1700000000123LL);
		assert_true(h.max_capacity == 256);	/* G1: not both added */
		/* another collector (its name not GarbageFirst): the two add up */
		for (size_t at = 0; at + 12 <= len; at++)
			if (!memcmp(w.b + at, "GarbageFirst", 12))
				memcpy(w.b + at, "ParallelGC\0\0", 12);
		assert_int_equal(mw_jvm_perfdata_parse(w.b, len, &h, &err), 0);
		assert_true(h.max_capacity == 512);
	}
}

static void expect_error_at(int line, struct builder *w, size_t len, const char *what)
{
	struct mw_jvm_heap h;
	struct mw_err err = { "" };

	if (mw_jvm_perfdata_parse(w->b, len, &h, &err) != -1)
		fail_msg("line %d: parsed, expected \"%s\"", line, what);
	if (!strstr(err.msg, what))
		fail_msg("line %d: expected \"%s\" in \"%s\"", line, what, err.msg);
}

#define expect_error(w, len, what) expect_error_at(__LINE__, w, len, what)

static void damaged_files(void **state)
{
	struct builder w;
	size_t len;

	(void)state;
	len = a_g1_file(&w, true);
	expect_error(&w, 31, "prologue");
	w.b[0] = 0;
	expect_error(&w, len, "magic");
	len = a_g1_file(&w, true);
	w.b[4] = 7;
	expect_error(&w, len, "byte order 7");
	len = a_g1_file(&w, true);
	w.b[5] = 1;
	expect_error(&w, len, "version 1.0");
	len = a_g1_file(&w, true);
	w.b[7] = 0;
	expect_error(&w, len, "not accessible");
	len = a_g1_file(&w, true);
	put32(&w, 8, (uint32_t)len + 1);	/* more used than there is */
	expect_error(&w, len, "bytes used");
	len = a_g1_file(&w, true);
	put32(&w, 24, 8);			/* first entry inside the prologue */
	expect_error(&w, len, "first entry");
	len = a_g1_file(&w, true);
	put32(&w, 28, w.n + 1);			/* one entry more than written */
	expect_error(&w, len, "runs past");
	len = a_g1_file(&w, true);
	put32(&w, 32, 0x7fffffff);		/* the first entry's length */
	expect_error(&w, len, "has length");
	len = a_g1_file(&w, true);
	put32(&w, 32, 4);
	expect_error(&w, len, "has length");
	len = a_g1_file(&w, true);
	put32(&w, 36, 0xfffffff0u);		/* its name's offset */
	expect_error(&w, len, "name is outside");
	/* a name that runs to the entry's end without a NUL */
	start(&w, true);
	entry(&w, "sun.gc.generation.1.space.0.used", 'J', 0, 1);
	memset(w.b + 32 + 20, 'a', 40 + 8);
	len = finish(&w);
	expect_error(&w, len, "name is outside");
	/* a value past its entry */
	start(&w, true);
	entry(&w, "sun.gc.generation.1.space.0.used", 'J', 0, 1);
	put32(&w, 32 + 16, 61);	/* the entry is 68 bytes */
	len = finish(&w);
	expect_error(&w, len, "value outside");
	/* a string longer than its entry */
	start(&w, true);
	entry(&w, "sun.gc.policy.name", 'B', 16, 0);
	put32(&w, 32 + 8, 4096);
	len = finish(&w);
	expect_error(&w, len, "value outside");
	/* ZGC-like: no old generation */
	start(&w, false);
	entry(&w, "sun.gc.generation.0.space.0.used", 'J', 0, 1);
	len = finish(&w);
	expect_error(&w, len, "sun.gc.generation.1.space.0.used");
}

static void names_and_stale_files(void **state)
{
	struct mw_jvm_files files = { 0 };

	(void)state;
	assert_int_equal(mw_jvm_pid_of_name("12345"), 12345);
	assert_int_equal(mw_jvm_pid_of_name("4294967295"), 4294967295u);
	assert_int_equal(mw_jvm_pid_of_name("4294967296"), 0);
	assert_int_equal(mw_jvm_pid_of_name("12345678901"), 0);
	assert_int_equal(mw_jvm_pid_of_name(""), 0);
	assert_int_equal(mw_jvm_pid_of_name("12a"), 0);
	assert_int_equal(mw_jvm_pid_of_name("123.tmp"), 0);
	/* the VM begins just after its process; a file whose VM began
	 * before the process, or long after, is another process's */
	assert_false(mw_jvm_perfdata_stale(1000300, 1000000));
	assert_false(mw_jvm_perfdata_stale(999500, 1000000));	/* clocks */
	assert_true(mw_jvm_perfdata_stale(900000, 1000000));
	assert_true(mw_jvm_perfdata_stale(1000000 + 700000, 1000000));
	assert_false(mw_jvm_perfdata_stale(0, 1000000));	/* nothing to tell by */
	for (uint32_t i = 1; i <= 20; i++)
		mw_jvm_files_add(&files, i, "/tmp/hsperfdata_u", "123");
	assert_int_equal(files.n, 20);
	assert_string_equal(files.f[19].path, "/tmp/hsperfdata_u/123");
	{
		char dir[600];

		memset(dir, 'd', sizeof(dir) - 1);
		dir[sizeof(dir) - 1] = '\0';
		mw_jvm_files_add(&files, 7, dir, "7");	/* too long: left out */
		assert_int_equal(files.n, 20);
	}
	mw_jvm_files_release(&files);
}

/* The old generation after its collections: G1's shape (promotions fill
 * it, a concurrent cycle's remark and cleanup a second apart, mixed
 * pauses bring it down), Parallel's (a full collection), a first stretch
 * begun mid-cycle, and a pid reused by another JVM. */
static void old_generation_after_collections(void **state)
{
	struct mw_jvm_after_gc t = { 0 };
	int64_t s = 1000;	/* a second */

	(void)state;
	/* seen mid-cycle at 90: nothing published until a stretch between
	 * two collections has been seen whole */
	assert_false(mw_jvm_after_gc_add(&t, 0, 90e6, 4));
	assert_false(mw_jvm_after_gc_add(&t, 1 * s, 95e6, 4));
	/* a cycle: remark (count 5) at 100, cleanup (6) a second later */
	assert_false(mw_jvm_after_gc_add(&t, 2 * s, 100e6, 5));
	assert_false(mw_jvm_after_gc_add(&t, 3 * s, 100e6, 6));
	/* mixed pauses: down to 60, then promotions again */
	assert_false(mw_jvm_after_gc_add(&t, 10 * s, 70e6, 6));
	assert_false(mw_jvm_after_gc_add(&t, 20 * s, 60e6, 6));
	assert_false(mw_jvm_after_gc_add(&t, 60 * s, 85e6, 6));
	/* the next cycle: what the last one left, 60, is published and held */
	assert_true(mw_jvm_after_gc_add(&t, 120 * s, 99e6, 8));
	assert_true(t.value == 60e6);
	assert_true(mw_jvm_after_gc_add(&t, 121 * s, 99e6, 8));
	assert_true(mw_jvm_after_gc_add(&t, 140 * s, 62e6, 8));
	assert_true(t.value == 60e6);
	/* its cleanup 10 s after the remark: the same cycle, not a new one */
	assert_true(mw_jvm_after_gc_add(&t, 130 * s, 61e6, 9));
	assert_true(t.value == 60e6);
	assert_true(mw_jvm_after_gc_add(&t, 200 * s, 80e6, 11));
	assert_true(t.value == 61e6);
	/* the pid's file now another JVM's (its counts went back): start over */
	assert_false(mw_jvm_after_gc_add(&t, 210 * s, 10e6, 1));
	assert_false(t.have);

	/* Parallel: full collections only, each a drop to what lives */
	memset(&t, 0, sizeof(t));
	assert_false(mw_jvm_after_gc_add(&t, 0, 50e6, 0));
	assert_false(mw_jvm_after_gc_add(&t, 100 * s, 40e6, 1));	/* a full GC */
	assert_false(mw_jvm_after_gc_add(&t, 150 * s, 70e6, 1));
	assert_true(mw_jvm_after_gc_add(&t, 300 * s, 41e6, 2));
	assert_true(t.value == 40e6);
	assert_true(mw_jvm_after_gc_add(&t, 500 * s, 42e6, 3));
	assert_true(t.value == 41e6);
}

/* A file is the JVM's only when its owner is the user the process runs as
 * or the owner it gives what it creates (Windows: an elevated
 * administrator's files are owned by Administrators); unknown is no. */
static void owner_of_a_file(void **state)
{
	const char *user = "S-1-5-21-1-2-3-1001", *admins = "S-1-5-32-544";

	(void)state;
	assert_true(mw_jvm_owner_ok(user, user, admins));
	assert_true(mw_jvm_owner_ok(admins, user, admins));
	assert_true(mw_jvm_owner_ok(user, user, NULL));
	assert_true(mw_jvm_owner_ok(admins, NULL, admins));
	assert_false(mw_jvm_owner_ok("S-1-5-21-1-2-3-1002", user, admins));	/* another user */
	assert_false(mw_jvm_owner_ok("S-1-5-7", user, admins));	/* Wine: a uid not ours */
	assert_false(mw_jvm_owner_ok("S-1-5-21-1-2-3-100", user, admins));	/* a prefix */
	assert_false(mw_jvm_owner_ok(NULL, user, admins));
	assert_false(mw_jvm_owner_ok("", "", ""));
	assert_false(mw_jvm_owner_ok(user, NULL, NULL));
}

MW_TEST_MAIN(
	cmocka_unit_test(recorded_g1_file),
	cmocka_unit_test(owner_of_a_file),
	cmocka_unit_test(both_byte_orders),
	cmocka_unit_test(damaged_files),
	cmocka_unit_test(names_and_stale_files),
	cmocka_unit_test(old_generation_after_collections),
)
