/*
 * bench_regions.c - what working-set region snapshots cost: bytes per
 * stored snapshot of a 500-region process when nothing changed and when
 * 5 % of its regions changed (targets: <= 64 B and <= 1 KB), and the time
 * to rebuild the snapshot at an arbitrary time.
 *
 * Baseline, in the same run: the full v1 encoding (mw_ws_encode) stored
 * per snapshot in a plain table with the same index, read back with one
 * indexed SELECT and mw_ws_decode.  Bytes are pages in use (page_count -
 * freelist_count) times the page size, before and after, so rows,
 * indexes and blobs all count.  Files bench_regions*.tmp.db, removed.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "collectors/workingset.h"
#include "core/batch.h"
#include "base/clock.h"
#include "base/xalloc.h"
#include "storage/query.h"
#include "storage/schema.h"
#include "storage/store.h"
#include "tests/support/xorshift.h"
#include "tests/support/test_db.h"
#include "tests/support/bench_store.h"

#define DB "bench_regions.tmp.db"
#define BASE_DB "bench_regions_base.tmp.db"
#define T0 1700000000000LL
#define NREG 500
#define NSNAP 2000
#define NREBUILD 300

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
/* rnd(n): the next draw of this file's sequence, in [0, n) */
#define rnd(n) mw_xorshift_below(&rng, (n))

static void make_process(struct mw_ws_result *r)
{
	static const char *const mods[] = {
		"C:\\Windows\\System32\\ntdll.dll", "C:\\Windows\\System32\\kernel32.dll",
		"C:\\Windows\\System32\\KernelBase.dll", "C:\\Program Files\\App\\app.exe",
		"C:\\Program Files\\App\\plugin.dll", "C:\\data\\index.bin",
	};
	size_t i;

	memset(r, 0, sizeof(*r));
	r->regions = mw_xcalloc(NREG, sizeof(*r->regions));
	r->nregions = r->cap = NREG;
	r->page_size = 4096;
	for (i = 0; i < NREG; i++) {
		struct mw_ws_region *g = &r->regions[i];

		g->alloc_base = 0x7ff600000000ULL + i * 0x200000ULL;
		g->size = (uint64_t)(1 + rnd(256)) * 4096;
		g->category = (uint8_t)rnd(MW_WS_NCATEGORIES);
		g->owner_kind = (uint8_t)(i % 5);
		g->owner_id = i % 5 == 3 ? (uint32_t)i : 0;
		g->owner = i % 3 ? NULL : mw_xstrdup(mods[i % 6]);
		g->pages[0] = 1 + rnd(200);
		g->pages[1] = rnd(20);
		g->pages[2] = rnd(50);
	}
}

static int64_t used_bytes(sqlite3 *db)
{
	return (mw_db_int(db, "PRAGMA page_count") - mw_db_int(db, "PRAGMA freelist_count")) *
	       mw_db_int(db, "PRAGMA page_size");
}

static void change(struct mw_ws_result *r, int n)
{
	int k;

	for (k = 0; k < n; k++)
		r->regions[rnd(NREG)].pages[0] = 1 + rnd(400);
}

/* Write NSNAP snapshots (changing `n` regions each); bytes per snapshot
 * in the store and in the baseline table. */
static void phase(struct mw_store *s, sqlite3 *base, sqlite3_stmt *ins, struct mw_ws_result *r,
		  int n, int64_t *ts, double *per, double *base_per)
{
	struct mw_label l[2] = { { "pid", "4242" }, { "process", "app.exe" } };
	int64_t b0 = used_bytes(mw_store_db(s)), c0 = used_bytes(base);
	int i;

	sqlite3_exec(base, "BEGIN", NULL, NULL, NULL);
	for (i = 0; i < NSNAP; i++) {
		struct mw_detail d = { "workingset.regions", "k", l, 2, *ts, NULL, 0 };
		unsigned char *enc;

		change(r, n);
		enc = mw_ws_encode(r, &d.len);
		d.data = enc;
		mw_store_add_regions(s, &d);
		sqlite3_bind_int64(ins, 1, 1);
		sqlite3_bind_int64(ins, 2, *ts);
		sqlite3_bind_blob(ins, 3, enc, (int)d.len, SQLITE_STATIC);
		sqlite3_step(ins);
		sqlite3_reset(ins);
		free(enc);
		*ts += 5000;
		if (i % 10 == 9)
			mw_bench_store_flush(s);
	}
	sqlite3_exec(base, "COMMIT", NULL, NULL, NULL);
	*per = (double)(used_bytes(mw_store_db(s)) - b0) / NSNAP;
	*base_per = (double)(used_bytes(base) - c0) / NSNAP;
}

int main(void)
{
	struct mw_store *s;
	struct mw_reader *rd;
	struct mw_ws_result r, got = { 0 };
	struct mw_ws_process_list list;
	struct mw_err err;
	sqlite3 *base;
	sqlite3_stmt *ins, *sel;
	int64_t ts = T0, t0, snapped, rebuild_ns, base_ns;
	double same, same_b, five, five_b;
	int i;

	mw_test_db_remove(DB);
	mw_test_db_remove(BASE_DB);
	s = mw_bench_store_open(DB);
	if (mw_schema_open(&base, BASE_DB, &(struct mw_schema_open_options){ 0, INT64_MAX }, NULL, NULL, NULL, &err) ||
	    mw_db_exec(base, "CREATE TABLE snap (id INTEGER PRIMARY KEY, process_id INTEGER,"
		       " ts INTEGER, data BLOB); CREATE INDEX snap_by ON snap(process_id, ts)",
		       &err) ||
	    mw_db_prepare(base, &ins, "INSERT INTO snap (process_id, ts, data) VALUES (?, ?, ?)",
			  &err) ||
	    mw_db_prepare(base, &sel, "SELECT data FROM snap WHERE process_id = 1 AND ts <= ?"
			  " ORDER BY ts DESC LIMIT 1", &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	make_process(&r);
	phase(s, base, ins, &r, 0, &ts, &same, &same_b);
	phase(s, base, ins, &r, NREG / 20, &ts, &five, &five_b);
	mw_store_free(s);

	if (mw_reader_open(&rd, DB, &err) ||
	    mw_reader_ws_processes(rd, "4242", NULL, INT64_MIN, INT64_MAX, &list, &err) ||
	    list.n != 1) {
		fprintf(stderr, "reader: %s\n", err.msg);
		return 1;
	}
	t0 = mw_clock_mono_ns();
	for (i = 0; i < NREBUILD; i++) {
		int64_t at = T0 + (int64_t)rnd(2 * NSNAP) * 5000 + rnd(5000);

		if (mw_reader_ws_snapshot(rd, list.items[0].id, at, INT64_MIN, INT64_MAX, &snapped,
					  &got, &err)) {
			fprintf(stderr, "rebuild: %s\n", err.msg);
			return 1;
		}
	}
	rebuild_ns = (mw_clock_mono_ns() - t0) / NREBUILD;
	t0 = mw_clock_mono_ns();
	for (i = 0; i < NREBUILD; i++) {
		int64_t at = T0 + (int64_t)rnd(2 * NSNAP) * 5000 + rnd(5000);

		sqlite3_bind_int64(sel, 1, at);
		if (sqlite3_step(sel) != SQLITE_ROW ||
		    mw_ws_decode(sqlite3_column_blob(sel, 0), (size_t)sqlite3_column_bytes(sel, 0),
				 &got, &err)) {
			fprintf(stderr, "baseline read failed\n");
			return 1;
		}
		sqlite3_reset(sel);
	}
	base_ns = (mw_clock_mono_ns() - t0) / NREBUILD;

	printf("region snapshots, %d regions, %d snapshots per phase, keyframe every %d\n",
	       NREG, NSNAP, 64);
	printf("  unchanged:         %8.1f B/snapshot (target <= 64)    baseline v1 per snapshot %8.1f B  ratio %.4f\n",
	       same, same_b, same / same_b);
	printf("  5%% regions changed: %8.1f B/snapshot (target <= 1024) baseline v1 per snapshot %8.1f B  ratio %.4f\n",
	       five, five_b, five / five_b);
	printf("  rebuild at a random time: %8.1f us (baseline: read + decode one v1 blob %8.1f us)  ratio %.2f\n",
	       (double)rebuild_ns / 1000, (double)base_ns / 1000, (double)rebuild_ns / (double)base_ns);
	mw_ws_process_list_release(&list);
	mw_ws_result_release(&got);
	mw_ws_result_release(&r);
	mw_reader_free(rd);
	sqlite3_finalize(ins);
	sqlite3_finalize(sel);
	sqlite3_close(base);
	mw_test_db_remove(DB);
	mw_test_db_remove(BASE_DB);
	return !(same <= 64 && five <= 1024);
}
