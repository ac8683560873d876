/* test_regions.c - working-set region snapshots: codec, store, rebuild,
 * retention, disk full. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "core/ws_regions.h"
#include "core/batch.h"
#include "base/xalloc.h"
#include "storage/query.h"
#include "storage/regions.h"
#include "storage/schema.h"
#include "storage/store.h"
#include "tests/support/test_db.h"
#include "tests/support/xorshift.h"
#include "tests/support/test_reader.h"
#include "tests/support/test_main.h"

#define T0 1700000000000LL
#define DB "test_regions.tmp.db"

MW_TEST_DB_FIXTURES(DB)

/* ---- random evolving snapshots ---------------------------------------- */

static uint64_t rng = 88172645463325252ULL;
/* rnd(n): the next draw of this file's sequence, in [0, n) */
#define rnd(n) mw_xorshift_below(&rng, (n))

static const char *const owners[] = {
	"C:\\Windows\\System32\\ntdll.dll", "C:\\Windows\\System32\\kernel32.dll",
	"/usr/lib/libc.so.6", "/tmp/data.bin", "C:\\app\\leaky.exe", "[heap]",
};

static void add_region(struct mw_ws_result *r, uint64_t base)
{
	struct mw_ws_region *g;

	MW_GROW(r->regions, r->cap, r->nregions + 1);
	g = &r->regions[r->nregions++];
	memset(g, 0, sizeof(*g));
	g->alloc_base = base;
	g->size = (uint64_t)(1 + rnd(64)) * 4096;
	g->category = (uint8_t)rnd(MW_WS_NCATEGORIES);
	g->owner_kind = (uint8_t)rnd(5);
	g->owner_id = rnd(3) ? 0 : rnd(100000);
	g->owner = rnd(3) ? mw_xstrdup(owners[rnd(MW_ARRAY_SIZE(owners))]) : NULL;
	g->pages[0] = rnd(100) + 1;
	g->pages[1] = rnd(4) ? 0 : rnd(50);
	g->pages[2] = rnd(4) ? 0 : rnd(50);
}

static bool has_base(const struct mw_ws_result *r, uint64_t base)
{
	size_t i;

	for (i = 0; i < r->nregions; i++)
		if (r->regions[i].alloc_base == base)
			return true;
	return false;
}

static void evolve(struct mw_ws_result *r, int changes)
{
	int k;

	for (k = 0; k < changes; k++) {
		uint32_t what = rnd(4);

		if (what == 0 || r->nregions < 3) {
			uint64_t base = 0x10000ULL * (1 + rnd(1u << 20));

			if (!has_base(r, base))
				add_region(r, base);
		} else if (what == 1) {
			size_t i = rnd((uint32_t)r->nregions);

			free(r->regions[i].owner);
			r->regions[i] = r->regions[--r->nregions];
		} else if (what == 2) {
			r->regions[rnd((uint32_t)r->nregions)].pages[rnd(3)] = rnd(200);
		} else {
			struct mw_ws_region *g = &r->regions[rnd((uint32_t)r->nregions)];

			free(g->owner);
			g->owner = rnd(2) ? mw_xstrdup(owners[rnd(MW_ARRAY_SIZE(owners))]) : NULL;
		}
	}
	r->page_size = 4096;
}

static void add_snapshot(struct mw_store *s, const char *pid, const char *process,
			 int64_t ts, const struct mw_ws_result *r)
{
	struct mw_label l[2] = { { "pid", pid }, { "process", process } };
	struct mw_detail d = { "workingset.regions", "memwatch_workingset_bytes", l, 2, ts,
			       NULL, 0 };
	unsigned char *enc = mw_ws_encode(r, &d.len);

	d.data = enc;
	mw_store_add_regions(s, &d);
	free(enc);
}

static void assert_same(const struct mw_ws_result *want0, const struct mw_ws_result *got)
{
	struct mw_ws_result want = { 0 };
	size_t i;

	mw_rg_copy(&want, want0);
	mw_rg_normalize(&want);
	assert_int_equal(got->page_size, want.page_size);
	assert_int_equal(got->nregions, want.nregions);
	for (i = 0; i < want.nregions; i++) {
		const struct mw_ws_region *a = &want.regions[i], *b = &got->regions[i];

		assert_true(a->alloc_base == b->alloc_base);
		assert_true(a->size == b->size);
		assert_int_equal(a->category, b->category);
		assert_int_equal(a->owner_kind, b->owner_kind);
		assert_int_equal(a->owner_id, b->owner_id);
		assert_memory_equal(a->pages, b->pages, sizeof(a->pages));
		if (a->owner || b->owner) {
			assert_non_null(a->owner);
			assert_non_null(b->owner);
			assert_string_equal(a->owner, b->owner);
		}
	}
	assert_memory_equal(want.pages, got->pages, sizeof(want.pages));
	mw_ws_result_release(&want);
}

static struct mw_store *open_store(int64_t keyframe_every)
{
	struct mw_store_options o;

	mw_test_store_options(&o, DB);
	o.regions_keyframe_every = keyframe_every;
	return mw_test_store_open_with(&o);
}

/* ---- the codec alone ---------------------------------------------------- */

struct strtab {
	char *s[64];
	uint32_t n;
};

static uint32_t tab_intern(void *ctx, const char *owner)
{
	struct strtab *t = ctx;
	uint32_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->s[i], owner))
			return i + 1;
	t->s[t->n++] = mw_xstrdup(owner);
	return t->n;
}

static const char *tab_owner(void *ctx, uint32_t id)
{
	struct strtab *t = ctx;

	return id && id <= t->n ? t->s[id - 1] : NULL;
}

static void codec_round_trip(void **state)
{
	struct strtab tab = { { 0 }, 0 };
	struct mw_ws_result prev = { 0 }, cur = { 0 }, rebuilt = { 0 };
	struct mw_rg_buf buf = { 0 };
	struct mw_err err;
	int i;
	uint32_t k;

	(void)state;
	evolve(&cur, 40);
	mw_rg_normalize(&cur);
	mw_rg_encode_keyframe(&cur, tab_intern, &tab, &buf);
	assert_int_equal(mw_rg_apply(&rebuilt, buf.p, buf.n, tab_owner, &tab, &err), 0);
	assert_same(&cur, &rebuilt);
	for (i = 0; i < 200; i++) {
		mw_rg_copy(&prev, &cur);
		evolve(&cur, (int)rnd(6));
		mw_rg_normalize(&cur);
		mw_rg_encode_delta(&prev, &cur, tab_intern, &tab, &buf);
		assert_int_equal(mw_rg_apply(&rebuilt, buf.p, buf.n, tab_owner, &tab, &err), 0);
		assert_same(&cur, &rebuilt);
	}
	/* unchanged: an empty delta */
	mw_rg_copy(&prev, &cur);
	mw_rg_encode_delta(&prev, &cur, tab_intern, &tab, &buf);
	assert_int_equal(buf.n, 0);
	/* malformed blobs are errors, not crashes */
	mw_rg_encode_keyframe(&cur, tab_intern, &tab, &buf);
	for (k = 1; k < buf.n; k += 7)
		(void)mw_rg_apply(&rebuilt, buf.p, k, tab_owner, &tab, &err);
	assert_int_equal(mw_rg_apply(&rebuilt, (const uint8_t *)"\x07", 1, tab_owner, &tab,
				     &err), -1);
	mw_ws_result_release(&prev);
	mw_ws_result_release(&cur);
	mw_ws_result_release(&rebuilt);
	mw_rg_buf_release(&buf);
	for (k = 0; k < tab.n; k++)
		free(tab.s[k]);
}

/* ---- store and rebuild ------------------------------------------------- */

#define NSNAP 100

static void rebuild_random_snapshots(void **state)
{
	struct mw_ws_result *want = mw_xcalloc(NSNAP, sizeof(*want));
	struct mw_ws_result cur = { 0 }, got = { 0 };
	struct mw_store *s = open_store(8);
	struct mw_reader *r;
	struct mw_ws_process_list list;
	struct mw_err err;
	int64_t snapped;
	int i;

	(void)state;
	evolve(&cur, 60);
	for (i = 0; i < NSNAP; i++) {
		evolve(&cur, i % 10 == 3 ? 0 : (int)rnd(8));
		mw_rg_copy(&want[i], &cur);
		add_snapshot(s, "4242", "leaky.exe", T0 + i * 1000LL, &cur);
		if (i % 7 == 6 && mw_store_flush(s, &err))
			fail_msg("%s", err.msg);
		if (i == 50) {		/* a restart: the next snapshot is a keyframe */
			mw_store_free(s);
			s = open_store(8);
		}
	}
	mw_store_free(s);

	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_ws_processes(r, NULL, NULL, INT64_MIN, INT64_MAX, &list,
						&err), 0);
	assert_int_equal(list.n, 1);
	assert_string_equal(list.items[0].pid, "4242");
	assert_string_equal(list.items[0].process, "leaky.exe");
	assert_true(list.items[0].first_ts == T0);
	assert_true(list.items[0].last_ts == T0 + (NSNAP - 1) * 1000LL);
	assert_int_equal(list.items[0].count, NSNAP);
	for (i = 0; i < NSNAP; i++) {
		int64_t at = T0 + i * 1000LL + (i % 3 == 0 ? 0 : i % 3 == 1 ? 400 : -400);

		assert_int_equal(mw_reader_ws_snapshot(r, list.items[0].id, at, INT64_MIN,
						       INT64_MAX, &snapped, &got, &err), 0);
		assert_true(snapped == T0 + i * 1000LL);
		assert_same(&want[i], &got);
	}
	/* a range without snapshots */
	assert_int_equal(mw_reader_ws_snapshot(r, list.items[0].id, T0 - 5000, T0 - 9000,
					       T0 - 1, &snapped, &got, &err), 1);
	/* nearest within the range: snaps to the range's edge */
	assert_int_equal(mw_reader_ws_snapshot(r, list.items[0].id, T0, T0 + 2500, T0 + 9000,
					       &snapped, &got, &err), 0);
	assert_true(snapped == T0 + 3000);
	mw_ws_process_list_release(&list);
	mw_reader_free(r);
	for (i = 0; i < NSNAP; i++)
		mw_ws_result_release(&want[i]);
	free(want);
	mw_ws_result_release(&cur);
	mw_ws_result_release(&got);
}

static void unchanged_is_empty(void **state)
{
	struct mw_ws_result cur = { 0 };
	struct mw_store *s = open_store(64);
	struct mw_store_stats st;
	struct mw_err err;
	int i;

	(void)state;
	evolve(&cur, 50);
	for (i = 0; i < 10; i++)
		add_snapshot(s, "7", "a.exe", T0 + i, &cur);
	assert_int_equal(mw_store_flush(s, &err), 0);
	mw_store_get_stats(s, &st);
	assert_int_equal(st.region_snapshots_total, 10);
	mw_store_free(s);
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM ws_snapshot WHERE length(data) = 0"), 9);
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM ws_snapshot WHERE id = key_id"), 1);
	/* owners interned once each */
	assert_true(mw_test_db_int(DB, "SELECT count(*) FROM ws_owner") <= (int64_t)MW_ARRAY_SIZE(owners));
	mw_ws_result_release(&cur);
}

static void processes_and_pids(void **state)
{
	struct mw_ws_result cur = { 0 };
	struct mw_store *s = open_store(64);
	struct mw_reader *r;
	struct mw_ws_process_list list;
	struct mw_err err;

	(void)state;
	evolve(&cur, 10);
	add_snapshot(s, "1", "app.exe", T0, &cur);
	add_snapshot(s, "2", "app.exe", T0 + 5000, &cur);
	add_snapshot(s, "2", "app.exe", T0 + 6000, &cur);
	add_snapshot(s, "3", "other.exe", T0 + 7000, &cur);
	mw_store_free(s);
	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_ws_processes(r, NULL, "app.exe", INT64_MIN, INT64_MAX, &list,
						&err), 0);
	assert_int_equal(list.n, 2);
	assert_string_equal(list.items[0].pid, "2");	/* newest first */
	assert_int_equal(list.items[0].count, 2);
	mw_ws_process_list_release(&list);
	assert_int_equal(mw_reader_ws_processes(r, "3", NULL, INT64_MIN, INT64_MAX, &list, &err), 0);
	assert_int_equal(list.n, 1);
	assert_string_equal(list.items[0].process, "other.exe");
	mw_ws_process_list_release(&list);
	assert_int_equal(mw_reader_ws_processes(r, NULL, "app.exe", T0 + 1, T0 + 4999, &list,
						&err), 0);
	assert_int_equal(list.n, 0);
	mw_ws_process_list_release(&list);
	mw_reader_free(r);
	mw_ws_result_release(&cur);
}

static void retention_whole_groups(void **state)
{
	struct mw_store_options o;
	struct mw_ws_result cur = { 0 }, got = { 0 };
	struct mw_store *s;
	struct mw_reader *r;
	struct mw_ws_process_list list;
	struct mw_err err;
	int64_t snapped, left, key_ts;
	char sql[128];
	int i;

	(void)state;
	mw_test_store_options(&o, DB);
	o.regions_keyframe_every = 10;
	o.retention_raw_ms = 60000;
	assert_int_equal(mw_store_open(&s, &o, &err), 0);
	evolve(&cur, 30);
	for (i = 0; i < 100; i++) {	/* one a second: groups of 10 s */
		evolve(&cur, 2);
		add_snapshot(s, "9", "x", T0 + i * 1000LL, &cur);
	}
	assert_int_equal(mw_store_flush(s, &err), 0);
	/* now = T0 + 125 s: snapshots before T0 + 65 s expire, as whole groups:
	 * the group holding 65 s stays whole */
	snprintf(sql, sizeof(sql), "SELECT max(ts) FROM ws_snapshot WHERE id = key_id AND ts <= %lld",
		 (long long)(T0 + 65000));
	key_ts = mw_test_db_int(DB, sql);
	assert_true(key_ts > T0 && key_ts <= T0 + 65000);
	assert_int_equal(mw_store_maintain(s, T0 + 125000, &err), 0);
	mw_store_free(s);
	left = mw_test_db_int(DB, "SELECT min(ts) FROM ws_snapshot");
	assert_true(left == key_ts);
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM ws_snapshot"), 100 - (key_ts - T0) / 1000);
	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_ws_processes(r, "9", "x", INT64_MIN, INT64_MAX, &list, &err), 0);
	assert_int_equal(list.n, 1);
	assert_int_equal(mw_reader_ws_snapshot(r, list.items[0].id, T0, INT64_MIN, INT64_MAX,
					       &snapped, &got, &err), 0);
	assert_true(snapped == key_ts);
	mw_ws_process_list_release(&list);
	mw_reader_free(r);
	/* an exited process (not in the writer's memory): its last group goes too */
	assert_int_equal(mw_store_open(&s, &o, &err), 0);
	assert_int_equal(mw_store_maintain(s, T0 + 200000, &err), 0);
	mw_store_free(s);
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM ws_snapshot"), 0);
	mw_ws_result_release(&cur);
	mw_ws_result_release(&got);
}

static void disk_full(void **state)
{
	struct mw_store_options o;
	struct mw_ws_result cur = { 0 }, got = { 0 }, last = { 0 };
	struct mw_store *s;
	struct mw_store_stats st;
	struct mw_reader *r;
	struct mw_ws_process_list list;
	struct mw_err err;
	int64_t pages, snapped;
	char sql[64];
	int i, failed = 0;

	(void)state;
	mw_test_store_options(&o, DB);
	o.regions_keyframe_every = 16;
	o.max_pending_region_bytes = 4000;
	assert_int_equal(mw_store_open(&s, &o, &err), 0);
	evolve(&cur, 200);
	add_snapshot(s, "5", "big.exe", T0, &cur);
	assert_int_equal(mw_store_flush(s, &err), 0);
	pages = mw_db_int(mw_store_db(s), "PRAGMA page_count");
	snprintf(sql, sizeof(sql), "PRAGMA max_page_count = %lld", (long long)pages);
	assert_int_equal(mw_db_exec(mw_store_db(s), sql, &err), 0);
	for (i = 1; i <= 40; i++) {
		evolve(&cur, 100);
		add_snapshot(s, "5", "big.exe", T0 + i * 1000LL, &cur);
		failed += mw_store_flush(s, &err) != 0;
	}
	mw_store_get_stats(s, &st);
	assert_true(failed > 30);
	assert_true(st.dropped_region_snapshots_total > 0);
	assert_true(st.pending_region_snapshots + st.dropped_region_snapshots_total +
		    st.region_snapshots_total == 41);
	assert_int_equal(mw_db_exec(mw_store_db(s), "PRAGMA max_page_count = 1000000", &err), 0);
	evolve(&cur, 3);
	add_snapshot(s, "5", "big.exe", T0 + 41000, &cur);
	mw_rg_copy(&last, &cur);
	assert_int_equal(mw_store_flush(s, &err), 0);
	mw_store_free(s);
	r = mw_test_reader_open(DB);
	assert_int_equal(mw_reader_ws_processes(r, "5", NULL, INT64_MIN, INT64_MAX, &list, &err), 0);
	assert_int_equal(list.n, 1);
	assert_int_equal(mw_reader_ws_snapshot(r, list.items[0].id, T0 + 41000, INT64_MIN,
					       INT64_MAX, &snapped, &got, &err), 0);
	assert_same(&last, &got);
	/* every stored snapshot rebuilds */
	for (i = 0; i <= 41; i++)
		assert_true(mw_reader_ws_snapshot(r, list.items[0].id, T0 + i * 1000LL,
						  T0 + i * 1000LL, T0 + i * 1000LL, &snapped,
						  &got, &err) >= 0);
	mw_ws_process_list_release(&list);
	mw_reader_free(r);
	mw_ws_result_release(&cur);
	mw_ws_result_release(&got);
	mw_ws_result_release(&last);
}

static void malformed_record_dropped(void **state)
{
	struct mw_store *s = open_store(64);
	struct mw_store_stats st;
	struct mw_label l[2] = { { "pid", "1" }, { "process", "p" } };
	struct mw_detail d = { "workingset.regions", "k", l, 2, T0, "MWWSjunk", 8 };

	(void)state;
	mw_store_add_regions(s, &d);
	mw_store_get_stats(s, &st);
	assert_int_equal(st.dropped_region_snapshots_total, 1);
	assert_int_equal(st.pending_region_snapshots, 0);
	mw_store_free(s);
}

MW_TEST_MAIN(
	cmocka_unit_test(codec_round_trip),
	MW_FIXTURE_TEST(rebuild_random_snapshots),
	MW_FIXTURE_TEST(unchanged_is_empty),
	MW_FIXTURE_TEST(processes_and_pids),
	MW_FIXTURE_TEST(retention_whole_groups),
	MW_FIXTURE_TEST(disk_full),
	MW_FIXTURE_TEST(malformed_record_dropped),
)
