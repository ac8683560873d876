/*
 * exit_check.h - exit leak reports (storage/exit_reports.h) in the leak
 * verdict: a run in the report's range that left more than max_bytes
 * leaked at exit fails its process's group, the reason naming the report.
 *
 * Called once by analysis/leak_report.c on every report it builds, so
 * `memwatchd check` (--db and --url), /api/v1/check and /api/v1/leaks
 * judge alike.  Threads: any, with the caller's reader.
 */
#ifndef MW_ANALYSIS_EXIT_CHECK_H
#define MW_ANALYSIS_EXIT_CHECK_H

#include <stdbool.h>

#include <cjson/cJSON.h>

struct mw_reader;
struct mw_leak_query;

/* Fold the exit reports of q's range (and process pattern) into report:
 * an "exit_leaks" object ({"max_bytes", "reports":[…], "failed"}); each
 * failing run makes its process's group fail (a group is added for a
 * process without series), and the counts and the overall verdict follow.
 * A storage error is written into exit_leaks.error, never fatal. */
void mw_exit_check_apply(struct mw_reader *r, const struct mw_leak_query *q, cJSON *report);

/* Has a process of q's pattern an exit report in q's range?  (A run too
 * short for series - [collector.process] min_age - is still judged by its
 * report: `check --process app` must not call it unknown.)  false on a
 * storage error. */
bool mw_exit_check_has_reports(struct mw_reader *r, const struct mw_leak_query *q);

#endif
