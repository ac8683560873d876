/*
 * exit_reports.h - exit leak reports in the database (core/exit_report.h):
 * one exit_report row per process run (storage/SCHEMA.md, "Exit leak
 * reports").
 *
 * The writer side: store.c hands every MW_EXIT_REPORT_DETAIL detail
 * record to mw_store_add_exit_report, which decodes it and writes its row
 * at once (reports are rare: one per run), the same report twice (process,
 * pid, exit time, source) once.  The table is made with the first report
 * (outside the numbered schema versions: a file without reports is left
 * as it was, and readers answer none).  Rows older than [storage] retention_1h
 * (the longest the series of the run are kept) are removed then.
 *
 * The read side: mw_reader_exit_reports, for web/exit_leaks.c and
 * analysis/exit_check.c.
 */
#ifndef MW_STORAGE_EXIT_REPORTS_H
#define MW_STORAGE_EXIT_REPORTS_H

#include <stddef.h>
#include <stdint.h>

#include "base/mwerr.h"
#include "core/batch.h"
#include "core/exit_report.h"

struct mw_store;
struct mw_reader;
struct sqlite3;

/* The table, created where missing (by the writer, with the first report). */
int mw_exit_reports_schema(struct sqlite3 *db, struct mw_err *err);

/* Writer: store one detail record (a bad one is logged once and counted
 * as dropped, never fatal). */
void mw_store_add_exit_report(struct mw_store *s, const struct mw_detail *d);

struct mw_exit_report_row {
	int64_t id;
	struct mw_exit_report r;	/* decoded: blocks and stacks too */
};

struct mw_exit_report_list {
	struct mw_exit_report_row *items;
	size_t n;
	bool more;		/* max reached: older reports left out */
};

void mw_exit_report_list_release(struct mw_exit_report_list *l);

/* Reports whose run exited in [from_ms, to_ms] (process NULL: any), newest
 * first, at most max.  A database without the table has none.  -1 with a
 * message (the reader's error kind set). */
int mw_reader_exit_reports(struct mw_reader *r, const char *process, int64_t from_ms,
			   int64_t to_ms, size_t max, struct mw_exit_report_list *out,
			   struct mw_err *err);

/* "ntdll", "lsan", "umdh" */
const char *mw_exit_source_name(enum mw_exit_source s);

#endif
