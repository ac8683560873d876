/*
 * exit_check.h - exit leak reports (storage/exit_reports.h) in the leak
 * verdict: a run in the report's range that left more than max_bytes
 * leaked at exit fails its process's group, the reason naming the report.
 *
 * Used by analysis/leak_report.c on every report it builds, so `memwatchd
 * check` (--db and --url), /api/v1/check, /api/v1/leaks and the judge
 * service judge alike: the reports are read before the groups are judged,
 * each group asks for its process's failing run while it is written, and
 * processes known only by a failing report get a group of their own.
 * Threads: any, with the caller's reader.
 */
#ifndef MW_ANALYSIS_EXIT_CHECK_H
#define MW_ANALYSIS_EXIT_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/json_out.h"
#include "storage/exit_reports.h"

struct mw_reader;
struct mw_leak_query;

/* The exit reports of one leak report's range and process pattern. */
struct mw_exit_check {
	struct mw_exit_report_list list;
	uint64_t max_bytes;
	char error[256];	/* a storage error: said in the JSON, never fatal */
	/* per list item: its failure reason ("" passes), and whether a
	 * group has taken it */
	char (*reason)[320];
	bool *taken;
	size_t failed;
};

/* Read q's reports and judge each against q->params.exit_max_bytes. */
void mw_exit_check_read(struct mw_reader *r, const struct mw_leak_query *q, struct mw_exit_check *xc);
void mw_exit_check_release(struct mw_exit_check *xc);

/* The newest failing run's reason for process, NULL when none; every
 * failing run of that process counts as taken by its group. */
const char *mw_exit_check_reason(struct mw_exit_check *xc, const char *process);

/* Failing runs no group took, one per process: i from 0 until it
 * returns false; *process and *reason stay the check's. */
bool mw_exit_check_untaken(struct mw_exit_check *xc, size_t *i, const char **process,
			   const char **reason);

/* A group of its own for a process known only by its failing report. */
void mw_exit_check_group_json(struct mw_jbuf *out, const char *process, const char *reason);

/* The report's "exit_leaks" object: max_bytes, the reports listed,
 * failed, and an error when storage could not be read. */
void mw_exit_check_json(struct mw_jw *w, const struct mw_exit_check *xc);

/* Has a process of q's pattern an exit report in q's range?  (A run too
 * short for series - [collector.process] min_age - is still judged by its
 * report: `check --process app` must not call it unknown.)  false on a
 * storage error. */
bool mw_exit_check_has_reports(struct mw_reader *r, const struct mw_leak_query *q);

#endif
