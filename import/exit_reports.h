/*
 * exit_reports.h - `memwatchd import` of exit leak reports
 * (core/exit_report.h) saved as files: LeakSanitizer report files, a
 * debugger log holding ntdll's exit leak report lines, UMDH logs and
 * comparisons.  Detected from the content; one exit_report row per run.
 */
#ifndef MW_IMPORT_EXIT_REPORTS_H
#define MW_IMPORT_EXIT_REPORTS_H

#include <stdio.h>

#include "base/mwerr.h"

struct mw_store;

/* Import path when it holds an exit leak report: 1 (a summary line per
 * report written to out), 0 when it is not one (nothing read into the
 * store: the caller tries the other formats), -1 with "PATH: what" in err
 * (unreadable, a report that does not parse, the store refusing: err
 * then holds ": storage: "). */
int mw_import_exit_report_file(struct mw_store *store, const char *path, FILE *out,
			       struct mw_err *err);

#endif
