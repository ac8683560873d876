/*
 * test_storage_size.c - [storage] max_size over simulated hours (issue 22:
 * "a 1 MB cap grew to 1.51 MB in 20 minutes").  A store fed through its
 * writer API with long-lived series, a churn of short-lived processes and
 * the region snapshots of two watched processes, timestamps advancing
 * over hours, flushed and maintained at every tick as the writer thread
 * does.  At every step the pages in use stay within 2 % of the cap and the
 * file (page count and size on disk) within 5 %; the WAL, which is not
 * part of the cap, within one and a half caps (it holds about one flush
 * and one cut step, SCHEMA.md); the chunks being written survive, the
 * newest data is there, snapshot groups stay whole; at the end the
 * counters read back what was cut.  Before the size cut was rewritten the
 * open chunks of long-lived series went within the first hour.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "storage/query.h"
#include "storage/schema.h"
#include "storage/store.h"
#include "core/ws_regions.h"
#include "base/clock.h"
#include "base/fsutf8.h"
#include "base/xalloc.h"
#include "tests/support/test_db.h"
#include "tests/support/test_reader.h"
#include "tests/support/xorshift.h"
#include "tests/support/test_main.h"

#define T0 1700000000000LL
#define DB "test_storage_size.tmp.db"
#define CAP (512 * 1024)
#define TICK_MS 10000
#define HOURS 4
#define LONG_SERIES 80		/* live all along */
#define CHURN_EVERY 3		/* ticks between two short-lived processes */
#define CHURN_SERIES 6		/* series of a short-lived process */
#define CHURN_TICKS 12		/* its life */
#define NREGIONS 120		/* regions of a watched process */

MW_TEST_DB_FIXTURES(DB)

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static void add(struct mw_store *s, const char *metric, const char *pid, int64_t ts, double v)
{
	struct mw_label l[1] = { { "pid", pid } };
	char key[160];

	mw_series_key_format(key, sizeof(key), metric, l, 1);
	mw_store_add(s, key, metric, l, 1, ts, v);
}

/* A watched process's regions, a few of them changing at every tick. */
static void snapshot(struct mw_store *s, struct mw_ws_result *r, const char *pid, int64_t ts)
{
	struct mw_label l[2] = { { "pid", pid }, { "process", "leaky.exe" } };
	struct mw_detail d = { "workingset.regions", "memwatch_workingset_bytes", l, 2, ts,
			       NULL, 0 };
	unsigned char *enc;
	size_t i;

	if (!r->nregions) {
		r->page_size = 4096;
		for (i = 0; i < NREGIONS; i++) {
			MW_GROW(r->regions, r->cap, r->nregions + 1);
			memset(&r->regions[i], 0, sizeof(r->regions[i]));
			r->regions[i].alloc_base = 0x10000ULL * (i + 1);
			r->regions[i].size = 65536;
			r->regions[i].category = (uint8_t)(i % MW_WS_NCATEGORIES);
			r->regions[i].pages[0] = 1;
			r->nregions++;
		}
	}
	for (i = 0; i < 6; i++)
		r->regions[mw_xorshift_below(&rng, NREGIONS)].pages[0] =
			1 + mw_xorshift_below(&rng, 16);
	enc = mw_ws_encode(r, &d.len);
	d.data = enc;
	mw_store_add_regions(s, &d);
	free(enc);
}

static int64_t q(struct mw_store *s, const char *sql)
{
	return mw_db_int(mw_store_db(s), sql);
}

static int64_t file_size(const char *suffix)
{
	char path[256];
	int64_t n;

	snprintf(path, sizeof(path), "%s%s", DB, suffix);
	n = mw_file_size(path);
	return n < 0 ? 0 : n;
}

/* Live series whose newest point (as readers see it: the chunk rows and
 * the bits appended since, storage/chunk_tail.h) is at now. */
static size_t live_at(int64_t now)
{
	struct mw_reader *r = mw_test_reader_open(DB);
	struct mw_latest_list l;
	struct mw_err err;
	size_t i, n = 0;

	assert_int_equal(mw_reader_latest(r, NULL, &l, &err), 0);
	for (i = 0; i < l.n; i++)
		n += l.items[i].ts_ms == now;
	mw_latest_list_release(&l);
	mw_reader_free(r);
	return n;
}

struct figures {
	int64_t max_used, max_pages, max_file, max_wal;
};

/* What must hold after every flush and maintenance step. */
static void check_step(struct mw_store *s, int64_t now, int step, struct figures *f)
{
	int64_t psize = q(s, "PRAGMA page_size");
	int64_t pages = q(s, "PRAGMA page_count") * psize;
	int64_t used = pages - q(s, "PRAGMA freelist_count") * psize;
	int64_t file = file_size(""), wal = file_size("-wal");
	char sql[256];

	if (used > f->max_used)
		f->max_used = used;
	if (pages > f->max_pages)
		f->max_pages = pages;
	if (file > f->max_file)
		f->max_file = file;
	if (wal > f->max_wal)
		f->max_wal = wal;
	if (used > CAP + CAP / 50 || pages > CAP + CAP / 20 || file > CAP + CAP / 20 ||
	    wal > CAP + CAP / 2)
		fail_msg("step %d (%.2f h): %lld bytes in use, %lld in pages, file %lld, WAL %lld; "
			 "cap %d", step, (double)(now - T0) / 3600000, (long long)used,
			 (long long)pages, (long long)file, (long long)wal, CAP);
	/* the chunk every live series writes into is there, with its newest
	 * point: the long-lived series were all given a point at now */
	if (live_at(now) < LONG_SERIES)
		fail_msg("step %d: only %zu live series have their newest point", step,
			 live_at(now));
	assert_int_equal(q(s, "SELECT count(*) FROM series_live l JOIN series s ON"
			   " s.id = l.series_id WHERE s.last_chunk IS NOT NULL AND NOT EXISTS"
			   " (SELECT 1 FROM chunk c WHERE c.id = s.last_chunk)"), 0);
	/* the newest snapshot of the long-lived watched process */
	snprintf(sql, sizeof(sql), "SELECT max(s.ts) FROM ws_snapshot s JOIN ws_process p"
		 " ON p.id = s.process_id WHERE p.pid = 'w1'");
	assert_int_equal(q(s, sql), now);
}

static void holds_over_hours(void **state)
{
	struct mw_store_options o;
	struct mw_store *s;
	struct mw_store_stats st;
	struct mw_err err;
	struct mw_ws_result w1 = { 0 }, w2 = { 0 };
	struct figures f = { 0, 0, 0, 0 };
	double level[LONG_SERIES];
	int64_t now = T0, max_step_ns = 0;
	int slowest = 0;
	int step, i, nsteps = HOURS * 3600000 / TICK_MS;
	char pid[32];

	(void)state;
	mw_test_store_options(&o, DB);
	o.chunk_points = 60;	/* chunks close every 10 minutes here */
	o.max_db_bytes = CAP;
	s = mw_test_store_open_with(&o);
	assert_non_null(s);
	/* durability is not what is tested here: no fsync at every commit */
	sqlite3_exec(mw_store_db(s), "PRAGMA synchronous = OFF", NULL, NULL, NULL);
	for (i = 0; i < LONG_SERIES; i++)
		level[i] = 1e8 + i * 1e6;
	for (step = 0; step < nsteps; step++, now += TICK_MS) {
		int64_t t0;

		for (i = 0; i < LONG_SERIES; i++) {
			snprintf(pid, sizeof(pid), "L%d", i);
			level[i] += (double)(mw_xorshift_below(&rng, 1u << 20)) - (1 << 19);
			add(s, "memwatch_process_private_bytes", pid, now, level[i]);
		}
		/* short-lived processes: one starts every CHURN_EVERY ticks */
		for (i = step - CHURN_TICKS + 1; i <= step; i++) {
			int k;

			if (i < 0 || i % CHURN_EVERY)
				continue;
			snprintf(pid, sizeof(pid), "C%d", i);
			for (k = 0; k < CHURN_SERIES; k++) {
				char metric[64];

				snprintf(metric, sizeof(metric), "memwatch_process_m%d", k);
				add(s, metric, pid, now, (double)mw_xorshift_below(&rng, 1u << 30));
			}
		}
		snapshot(s, &w1, "w1", now);
		/* a second watched process restarted every half hour */
		snprintf(pid, sizeof(pid), "w2-%d", step / 180);
		if (step % 180 == 0)
			mw_ws_result_release(&w2);
		snapshot(s, &w2, pid, now);
		if (mw_store_flush(s, &err))
			fail_msg("flush: %s", err.msg);
		t0 = mw_clock_mono_ns();
		if (mw_store_maintain(s, now, &err))
			fail_msg("maintain: %s", err.msg);
		if (mw_clock_mono_ns() - t0 > max_step_ns) {
			max_step_ns = mw_clock_mono_ns() - t0;
			slowest = step;
		}
		check_step(s, now, step, &f);
		if (step % 360 == 359)
			printf("# %.1f h: in use %lld, pages %lld, file %lld, WAL %lld (max so far"
			       " %lld / %lld / %lld / %lld)\n", (double)(now - T0) / 3600000,
			       (long long)(q(s, "PRAGMA page_count") - q(s, "PRAGMA freelist_count"))
				       * q(s, "PRAGMA page_size"),
			       (long long)q(s, "PRAGMA page_count") * q(s, "PRAGMA page_size"),
			       (long long)file_size(""), (long long)file_size("-wal"),
			       (long long)f.max_used, (long long)f.max_pages, (long long)f.max_file,
			       (long long)f.max_wal);
	}
	printf("# cap %d: max in use %lld, pages %lld, file %lld, WAL %lld; slowest step %d, %.1f ms\n",
	       CAP, (long long)f.max_used, (long long)f.max_pages, (long long)f.max_file,
	       (long long)f.max_wal, slowest, (double)max_step_ns / 1e6);
	mw_store_get_stats(s, &st);
	printf("# cut: %llu points in %llu chunks, %llu rollup rows, %llu region snapshots, "
	       "%llu series, %llu bytes\n", (unsigned long long)st.size_cut.points,
	       (unsigned long long)st.size_cut.chunks, (unsigned long long)st.size_cut.rollup_rows,
	       (unsigned long long)st.size_cut.region_snapshots,
	       (unsigned long long)st.size_cut.series, (unsigned long long)st.size_cut.bytes);
	/* the oldest went: nothing of the first hour is left raw */
	assert_true(q(s, "SELECT min(min_ts) FROM chunk") > T0 + 3600000);
	/* snapshot groups are whole: every row's keyframe is there */
	assert_int_equal(q(s, "SELECT count(*) FROM ws_snapshot s WHERE NOT EXISTS (SELECT 1"
			   " FROM ws_snapshot k WHERE k.id = s.key_id AND k.id = k.key_id)"), 0);
	/* the counters read back what was cut: with no age limit reached,
	 * every committed point is stored or was cut, likewise snapshots */
	assert_true(st.size_cut.chunks > 0 && st.size_cut.bytes > 0);
	assert_true(st.size_cut.rollup_rows > 0 && st.size_cut.series > 0);
	assert_true(st.size_cut.region_snapshots > 0);
	assert_int_equal(st.size_cut.points + (uint64_t)q(s, "SELECT sum(npoints) FROM chunk"),
			 st.points_total);
	assert_int_equal(st.size_cut.region_snapshots + (uint64_t)q(s, "SELECT count(*) FROM"
								    " ws_snapshot"),
			 st.region_snapshots_total);
	mw_ws_result_release(&w1);
	mw_ws_result_release(&w2);
	mw_store_free(s);
}

MW_TEST_MAIN(
	MW_FIXTURE_TEST(holds_over_hours),
)
