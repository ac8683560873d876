/*
 * exit_reports.c - exit leak reports stored and read (exit_reports.h):
 * the exit_report table, the writer's insert (from store.c's detail
 * routing) and the reader's query.
 *
 * The row holds the figures a list or a check needs as columns and the
 * whole report as the detail record's own bytes (mw_exit_report_encode:
 * blocks by size, top stacks by bytes), decoded on read: one format,
 * versioned and length-checked in one place (core/exit_report.c).
 */
#include "exit_reports.h"

#include <stdlib.h>
#include <string.h>

#include "db.h"
#include "query_impl.h"
#include "store_impl.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/xalloc.h"

const char *mw_exit_source_name(enum mw_exit_source s)
{
	switch (s) {
	case MW_EXIT_NTDLL:
		return "ntdll";
	case MW_EXIT_LSAN:
		return "lsan";
	case MW_EXIT_UMDH:
		return "umdh";
	}
	return "unknown";
}

int mw_exit_reports_schema(struct sqlite3 *db, struct mw_err *err)
{
	return mw_db_exec(db,
			  "CREATE TABLE IF NOT EXISTS exit_report ("
			  " id INTEGER PRIMARY KEY,"
			  " process TEXT NOT NULL,"
			  " pid INTEGER NOT NULL,"
			  " started_ms INTEGER NOT NULL,"
			  " exited_ms INTEGER NOT NULL,"
			  " source TEXT NOT NULL,"
			  " complete INTEGER NOT NULL,"
			  " leaks INTEGER NOT NULL,"
			  " bytes INTEGER NOT NULL,"
			  " detail BLOB NOT NULL,"
			  " UNIQUE (process, pid, exited_ms, source));"
			  "CREATE INDEX IF NOT EXISTS exit_report_by_time ON exit_report(exited_ms);",
			  err);
}

static int64_t clamp(uint64_t v)
{
	return v > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)v;
}

void mw_store_add_exit_report(struct mw_store *s, const struct mw_detail *d)
{
	static bool bad_logged;	/* writer thread only */
	struct mw_exit_report r;
	struct mw_err err = { "" };
	sqlite3_stmt *st = NULL;
	int rc;

	/* the table comes with the first report: a file without reports stays
	 * as it was (readers answer none without it) */
	if (mw_exit_reports_schema(s->db, &err)) {
		mw_log_warn("storage: cannot store exit leak reports: %s", err.msg);
		s->stats.dropped_points_total++;
		return;
	}
	if (!mw_exit_report_decode(d->data, d->len, &r, &err)) {
		if (!bad_logged)
			mw_log_warn("storage: dropping an exit leak report: %s", err.msg);
		bad_logged = true;
		s->stats.dropped_points_total++;
		return;
	}
	rc = sqlite3_prepare_v2(s->db,
				"INSERT OR IGNORE INTO exit_report (process, pid, started_ms, exited_ms,"
				" source, complete, leaks, bytes, detail)"
				" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)", -1, &st, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, r.process ? r.process : "", -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, r.pid);
		sqlite3_bind_int64(st, 3, r.started_ms);
		sqlite3_bind_int64(st, 4, r.exited_ms);
		sqlite3_bind_text(st, 5, mw_exit_source_name(r.source), -1, SQLITE_STATIC);
		sqlite3_bind_int(st, 6, r.complete);
		sqlite3_bind_int64(st, 7, clamp(r.leaks));
		sqlite3_bind_int64(st, 8, clamp(r.bytes));
		sqlite3_bind_blob(st, 9, d->data, (int)d->len, SQLITE_STATIC);
		rc = sqlite3_step(st);
	}
	if (rc != SQLITE_DONE) {
		mw_log_warn("storage: cannot store the exit leak report of %s pid %lld: %s",
			    r.process ? r.process : "?", (long long)r.pid, sqlite3_errmsg(s->db));
		s->stats.dropped_points_total++;
	}
	sqlite3_finalize(st);
	/* the retention: as long as the run's longest-kept series (1h rollups) */
	if (s->opt.retention_1h_ms > 0) {
		st = NULL;
		if (sqlite3_prepare_v2(s->db, "DELETE FROM exit_report WHERE exited_ms < ?1", -1, &st,
				       NULL) == SQLITE_OK) {
			sqlite3_bind_int64(st, 1, mw_clock_wall_ms() - s->opt.retention_1h_ms);
			sqlite3_step(st);
		}
		sqlite3_finalize(st);
	}
	mw_exit_report_release(&r);
}

void mw_exit_report_list_release(struct mw_exit_report_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		mw_exit_report_release(&l->items[i].r);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

/* st's rows into out in its order, at most max (out->more when there
 * were more); a row that does not decode is skipped with a warning.  The
 * last sqlite3_step result. */
static int decode_rows(sqlite3_stmt *st, size_t max, struct mw_exit_report_list *out)
{
	size_t cap = 0;
	int step;

	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		struct mw_exit_report_row *row;
		struct mw_err why;

		if (out->n == max) {
			out->more = true;
			return SQLITE_ROW;
		}
		MW_GROW(out->items, cap, out->n + 1);
		row = &out->items[out->n];
		row->id = sqlite3_column_int64(st, 0);
		if (!mw_exit_report_decode(sqlite3_column_blob(st, 1),
					   (size_t)sqlite3_column_bytes(st, 1), &row->r, &why)) {
			mw_log_warn("storage: exit_report row %lld unreadable: %s",
				    (long long)row->id, why.msg);
			continue;
		}
		out->n++;
	}
	return step;
}

int mw_reader_exit_reports(struct mw_reader *r, const char *process, int64_t from_ms,
			   int64_t to_ms, size_t max, struct mw_exit_report_list *out,
			   struct mw_err *err)
{
	int64_t t0 = mw_clock_mono_ns();
	sqlite3_stmt *st = NULL;
	int rc = -1, step;

	memset(out, 0, sizeof(*out));
	if (mw_reader_begin(r, err))
		return -1;
	if (sqlite3_prepare_v2(mw_reader_sqlite(r),
			       "SELECT id, detail FROM exit_report"
			       " WHERE exited_ms >= ?1 AND exited_ms <= ?2"
			       " AND (?3 IS NULL OR process = ?3)"
			       " ORDER BY exited_ms DESC, id DESC LIMIT ?4", -1, &st, NULL) != SQLITE_OK) {
		/* a file no daemon of this version has opened yet: no reports */
		if (strstr(sqlite3_errmsg(mw_reader_sqlite(r)), "no such table"))
			rc = 0;
		else
			mw_reader_fail(r, err);
		goto out;
	}
	sqlite3_bind_int64(st, 1, from_ms);
	sqlite3_bind_int64(st, 2, to_ms);
	if (process)
		sqlite3_bind_text(st, 3, process, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_int64(st, 4, max < (size_t)INT32_MAX ? (int64_t)max + 1 : -1);	/* -1: all */
	step = decode_rows(st, max, out);
	if (step != SQLITE_ROW && step != SQLITE_DONE) {
		mw_reader_fail(r, err);
		mw_exit_report_list_release(out);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	mw_reader_end(r);
	mw_reader_count(t0);
	return rc;
}
