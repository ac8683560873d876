/*
 * test_regions_crash_linux.c - SIGKILL a child writing region snapshots
 * at random moments (as test_storage_crash_linux.c does for points).
 *
 * The child stores deterministic, evolving region lists of three
 * processes (snapshot k of process j is a function of j and k) and after
 * each successful flush reports over the pipe how many are committed.
 * The parent kills it after a random number of reports; the file must
 * pass integrity_check and every reported snapshot must rebuild exactly.
 * Each new child resumes after what the file holds (its first snapshot
 * is a keyframe: the writer's memory is gone).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/ws_regions.h"
#include "base/xalloc.h"
#include "storage/query.h"
#include "storage/regions.h"
#include "storage/store.h"
#include "tests/support/kill_rounds_linux.h"
#include "tests/support/test_db.h"
#include "tests/support/test_reader.h"

#define DB "test_regions_crash.tmp.db"
#define NPROC 3
#define NREG 80
#define T0 1700000000000LL

static uint32_t h(uint64_t a, uint64_t b)
{
	uint64_t x = a * 0x9E3779B97F4A7C15ULL ^ (b + 0x632BE59BD9B4E019ULL);

	x ^= x >> 29;
	x *= 0xBF58476D1CE4E5B9ULL;
	x ^= x >> 32;
	return (uint32_t)x;
}

static const char *const owners[] = { "/usr/lib/libc.so.6", "/usr/bin/app", "[heap]",
				      "/data/file.bin" };

/* Snapshot k of process j. */
static void gen(int j, int64_t k, struct mw_ws_result *r)
{
	int i;

	mw_ws_result_release(r);
	r->regions = mw_xcalloc(NREG, sizeof(*r->regions));
	r->cap = NREG;
	r->page_size = 4096;
	for (i = 0; i < NREG; i++) {
		struct mw_ws_region *g;

		if (h((uint64_t)(i * 7 + j), (uint64_t)k / 10) % 10 == 0)
			continue;	/* gone for a while */
		g = &r->regions[r->nregions++];
		g->alloc_base = 0x400000ULL + (uint64_t)i * 0x100000ULL;
		g->size = (uint64_t)(1 + h(i, j) % 64) * 4096;
		g->category = (uint8_t)(h(i, 1) % MW_WS_NCATEGORIES);
		g->owner_kind = (uint8_t)(h(i, 2) % 5);
		g->owner = h(i, 3) % 3 ? mw_xstrdup(owners[h(i, 4) % 4]) : NULL;
		g->pages[0] = 1 + h((uint64_t)i, (uint64_t)k / (1 + i % 5)) % 100;
		g->pages[2] = h(i, 5) % 20;
	}
	mw_rg_normalize(r);
}

static void add(struct mw_store *s, int j, int64_t k, struct mw_ws_result *r)
{
	char pid[16];
	struct mw_label l[2] = { { "pid", pid }, { "process", "app" } };
	struct mw_detail d = { "workingset.regions", "k", l, 2, T0 + k * 1000, NULL, 0 };
	unsigned char *enc;

	snprintf(pid, sizeof(pid), "%d", 100 + j);
	gen(j, k, r);
	enc = mw_ws_encode(r, &d.len);
	d.data = enc;
	mw_store_add_regions(s, &d);
	free(enc);
}

static void child(int fd, int64_t start)
{
	struct mw_store_options o;
	struct mw_store *s;
	struct mw_ws_result r = { 0 };
	int64_t k;
	int j;

	mw_test_store_options(&o, DB);
	o.regions_keyframe_every = 6;	/* groups open and close often */
	s = mw_kill_child_store(&o);
	for (k = start;; k++) {
		for (j = 0; j < NPROC; j++)
			add(s, j, k, &r);
		if (k % 5 == 4) {
			mw_kill_child_commit(s, fd, k + 1);
		}
	}
}

static bool same(const struct mw_ws_result *a, const struct mw_ws_result *b)
{
	size_t i;

	if (a->nregions != b->nregions || a->page_size != b->page_size)
		return false;
	for (i = 0; i < a->nregions; i++) {
		const struct mw_ws_region *x = &a->regions[i], *y = &b->regions[i];

		if (x->alloc_base != y->alloc_base || x->size != y->size ||
		    x->category != y->category || x->owner_kind != y->owner_kind ||
		    memcmp(x->pages, y->pages, sizeof(x->pages)) || !x->owner != !y->owner ||
		    (x->owner && strcmp(x->owner, y->owner)))
			return false;
	}
	return true;
}

/* Integrity, and snapshots [from, upto) of every process (plus a few
 * older ones) rebuild exactly.  Returns the count every process holds. */
static int64_t verify(int64_t from, int64_t upto)
{
	struct mw_ws_result want = { 0 }, got = { 0 };
	struct mw_reader *r;
	struct mw_err err;
	int64_t have = INT64_MAX, snapped, k;
	int j, i;

	mw_kill_assert_intact(DB);
	r = mw_test_reader_open(DB);
	for (j = 0; j < NPROC; j++) {
		struct mw_ws_process_list list;
		char pid[16];

		snprintf(pid, sizeof(pid), "%d", 100 + j);
		assert_int_equal(mw_reader_ws_processes(r, pid, "app", INT64_MIN, INT64_MAX, &list,
							&err), 0);
		if (!list.n) {
			assert_int_equal(upto, 0);
			have = 0;
			mw_ws_process_list_release(&list);
			continue;
		}
		assert_true(list.items[0].first_ts == T0);
		assert_true((int64_t)list.items[0].count >= upto);
		if ((int64_t)list.items[0].count < have)
			have = (int64_t)list.items[0].count;
		for (i = 0; i < 8; i++) {
			k = i < 5 && from + i < upto ? from + i : rand() % (upto ? upto : 1);
			if (k >= upto)
				continue;
			assert_int_equal(mw_reader_ws_snapshot(r, list.items[0].id, T0 + k * 1000,
							       T0 + k * 1000, T0 + k * 1000,
							       &snapped, &got, &err), 0);
			gen(j, k, &want);
			assert_true(same(&want, &got));
		}
		for (k = from > 5 ? from - 5 : 0; k < upto; k++) {
			assert_int_equal(mw_reader_ws_snapshot(r, list.items[0].id, T0 + k * 1000,
							       T0 + k * 1000, T0 + k * 1000,
							       &snapped, &got, &err), 0);
			gen(j, k, &want);
			assert_true(same(&want, &got));
		}
		mw_ws_process_list_release(&list);
	}
	mw_reader_free(r);
	mw_ws_result_release(&want);
	mw_ws_result_release(&got);
	return have;
}

MW_KILL_ROUNDS_MAIN(DB, 20, child, verify)
