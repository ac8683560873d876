/*
 * regions_query.c - the read side of region snapshots (query.h).
 *
 * A snapshot is rebuilt from its group: the keyframe, then every delta of
 * the same process up to it, in id order (ids grow with time per
 * process, and a group's rows are exactly that process's rows between
 * its keyframe and the next one).  At most keyframe_every blobs are read.
 */
#include <stdlib.h>
#include <string.h>

#include "query_impl.h"
#include "regions.h"
#include "base/clock.h"
#include "base/xalloc.h"

void mw_ws_process_list_release(struct mw_ws_process_list *list)
{
	size_t i;

	for (i = 0; i < list->n; i++) {
		free(list->items[i].pid);
		free(list->items[i].process);
	}
	free(list->items);
	memset(list, 0, sizeof(*list));
}

/* Slots of mw_reader_stmt (query_impl.h). */
enum { SL_PROCS, SL_LO, SL_HI, SL_ROWS, SL_OWNER };

static int prepare(struct mw_reader *r, int slot, sqlite3_stmt **st, const char *sql,
		   struct mw_err *err)
{
	*st = mw_reader_stmt(r, slot, sql, err);
	return *st ? 0 : -1;
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

int mw_reader_ws_processes(struct mw_reader *r, const char *pid, const char *process,
			   int64_t from_ms, int64_t to_ms, struct mw_ws_process_list *out,
			   struct mw_err *err)
{
	int64_t t0 = mw_clock_mono_ns();
	sqlite3_stmt *st = NULL;
	size_t cap = 0;
	int rc = -1, step;

	memset(out, 0, sizeof(*out));
	if (mw_reader_begin(r, err))
		return -1;
	if (prepare(r, SL_PROCS, &st,
		    "SELECT p.id, p.pid, p.process, min(s.ts), max(s.ts), count(*)"
		    " FROM ws_process p JOIN ws_snapshot s ON s.process_id = p.id"
		    " WHERE (?1 IS NULL OR p.pid = ?1) AND (?2 IS NULL OR p.process = ?2)"
		    " AND EXISTS (SELECT 1 FROM ws_snapshot x WHERE x.process_id = p.id"
		    "  AND x.ts >= ?3 AND x.ts <= ?4)"
		    " GROUP BY p.id ORDER BY max(s.ts) DESC, p.id DESC", err))
		goto out;
	bind_text_or_null(st, 1, pid);
	bind_text_or_null(st, 2, process);
	sqlite3_bind_int64(st, 3, from_ms);
	sqlite3_bind_int64(st, 4, to_ms);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct mw_ws_process *p;

		MW_GROW(out->items, cap, out->n + 1);
		p = &out->items[out->n++];
		p->id = sqlite3_column_int64(st, 0);
		p->pid = mw_xstrdup((const char *)sqlite3_column_text(st, 1));
		p->process = mw_xstrdup((const char *)sqlite3_column_text(st, 2));
		p->first_ts = sqlite3_column_int64(st, 3);
		p->last_ts = sqlite3_column_int64(st, 4);
		p->count = (uint64_t)sqlite3_column_int64(st, 5);
	}
	if (step != SQLITE_DONE) {
		mw_reader_fail(r, err);
		mw_ws_process_list_release(out);
		goto out;
	}
	rc = 0;
out:
	if (st)
		sqlite3_reset(st);
	mw_reader_end(r);
	mw_reader_count(t0);
	return rc;
}

/* Owner texts read once per call: ids are small and dense (interned in
 * order), so a table by id; ids beyond OWNER_CACHE_MAX are read each time. */
#define OWNER_CACHE_MAX (1u << 20)

struct owner_ctx {
	sqlite3_stmt *st;
	char *last;
	char **by_id;
	size_t cap;
};

static const char *owner_text(void *arg, uint32_t id)
{
	struct owner_ctx *o = arg;
	const char *t = NULL;
	char *copy = NULL;

	if (id < o->cap && o->by_id[id])
		return o->by_id[id];
	sqlite3_bind_int64(o->st, 1, id);
	if (sqlite3_step(o->st) == SQLITE_ROW && (t = (const char *)sqlite3_column_text(o->st, 0)))
		copy = mw_xstrdup(t);
	sqlite3_reset(o->st);
	if (!copy)
		return NULL;
	if (id < OWNER_CACHE_MAX) {
		if (id >= o->cap) {
			size_t n = o->cap ? o->cap : 64;

			while (n <= id)
				n *= 2;
			o->by_id = mw_xrealloc(o->by_id, n * sizeof(*o->by_id));
			memset(o->by_id + o->cap, 0, (n - o->cap) * sizeof(*o->by_id));
			o->cap = n;
		}
		o->by_id[id] = copy;
		return copy;
	}
	free(o->last);
	o->last = copy;
	return copy;
}

/* id, ts and key_id of the row `sql` finds; 0 found, 1 none, -1 error. */
static int find_row(struct mw_reader *r, sqlite3_stmt *st, int64_t pid, int64_t a, int64_t b,
		    int64_t row[3], struct mw_err *err)
{
	int step;

	sqlite3_bind_int64(st, 1, pid);
	sqlite3_bind_int64(st, 2, a);
	sqlite3_bind_int64(st, 3, b);
	step = sqlite3_step(st);
	if (step == SQLITE_ROW) {
		row[0] = sqlite3_column_int64(st, 0);
		row[1] = sqlite3_column_int64(st, 1);
		row[2] = sqlite3_column_int64(st, 2);
	}
	sqlite3_reset(st);
	if (step == SQLITE_ROW)
		return 0;
	return step == SQLITE_DONE ? 1 : mw_reader_fail(r, err);
}

int mw_reader_ws_snapshot(struct mw_reader *r, int64_t process_id, int64_t at_ms,
			  int64_t lo_ms, int64_t hi_ms, int64_t *snapped_ms,
			  struct mw_ws_result *out, struct mw_err *err)
{
	int64_t t0 = mw_clock_mono_ns(), before[3], after[3], *row;
	sqlite3_stmt *lo = NULL, *hi = NULL, *rows = NULL;
	struct owner_ctx own = { NULL, NULL, NULL, 0 };
	size_t i;
	int rc = -1, a, b, step;
	bool first = true;

	mw_ws_result_release(out);
	*snapped_ms = INT64_MIN;
	if (mw_reader_begin(r, err))
		return -1;
	if (prepare(r, SL_LO, &lo, "SELECT id, ts, key_id FROM ws_snapshot WHERE process_id = ?1"
		    " AND ts <= ?2 AND ts >= ?3 ORDER BY ts DESC, id DESC LIMIT 1", err) ||
	    prepare(r, SL_HI, &hi, "SELECT id, ts, key_id FROM ws_snapshot WHERE process_id = ?1"
		    " AND ts >= ?2 AND ts <= ?3 ORDER BY ts, id LIMIT 1", err) ||
	    prepare(r, SL_ROWS, &rows, "SELECT id, data FROM ws_snapshot WHERE id >= ?2 AND id <= ?3"
		    " AND +process_id = ?1 AND (id = ?2 OR length(data) > 0) ORDER BY id", err) ||
	    prepare(r, SL_OWNER, &own.st, "SELECT text FROM ws_owner WHERE id = ?", err))
		goto out;
	a = find_row(r, lo, process_id, at_ms < hi_ms ? at_ms : hi_ms, lo_ms, before, err);
	if (a < 0)
		goto out;
	b = find_row(r, hi, process_id, at_ms > lo_ms ? at_ms : lo_ms, hi_ms, after, err);
	if (b < 0)
		goto out;
	if (a && b) {
		rc = 1;
		goto out;
	}
	row = a ? after : b ? before
	      : (uint64_t)(at_ms - before[1]) <= (uint64_t)(after[1] - at_ms) ? before : after;
	sqlite3_bind_int64(rows, 1, process_id);
	sqlite3_bind_int64(rows, 2, row[2]);
	sqlite3_bind_int64(rows, 3, row[0]);
	while ((step = sqlite3_step(rows)) == SQLITE_ROW) {
		const uint8_t *blob = sqlite3_column_blob(rows, 1);
		size_t len = (size_t)sqlite3_column_bytes(rows, 1);

		if (first && (sqlite3_column_int64(rows, 0) != row[2] || !len ||
			      blob[0] != MW_RG_KEYFRAME)) {
			mw_reader_set_kind(r, MW_QERR_STORAGE);
			mw_error(err, "region snapshot %lld: its keyframe is missing",
				 (long long)row[0]);
			goto out;
		}
		first = false;
		if (mw_rg_apply(out, blob, len, owner_text, &own, err)) {
			mw_reader_set_kind(r, MW_QERR_STORAGE);
			goto out;
		}
	}
	if (step != SQLITE_DONE) {
		mw_reader_fail(r, err);
		goto out;
	}
	if (first) {
		mw_reader_set_kind(r, MW_QERR_STORAGE);
		mw_error(err, "region snapshot %lld: its keyframe is missing", (long long)row[0]);
		goto out;
	}
	*snapped_ms = row[1];
	rc = 0;
out:
	if (rc)
		mw_ws_result_release(out);
	free(own.last);
	for (i = 0; i < own.cap; i++)
		free(own.by_id[i]);
	free(own.by_id);
	if (rows)
		sqlite3_reset(rows);
	if (own.st)
		sqlite3_reset(own.st);
	mw_reader_end(r);
	mw_reader_count(t0);
	return rc;
}
