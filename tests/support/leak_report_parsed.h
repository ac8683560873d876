/*
 * leak_report_parsed.h - the leak report of a test's database as the CLI
 * and the web read it: json_out's text parsed back with cJSON (tests of
 * the report, its exit leak and clock-step parts, future points).
 */
#ifndef MW_TESTS_SUPPORT_LEAK_REPORT_PARSED_H
#define MW_TESTS_SUPPORT_LEAK_REPORT_PARSED_H

#include <cjson/cJSON.h>

struct mw_leak_query;

/* The report of q over the database at db, parsed (the caller's to
 * cJSON_Delete); a report that fails fails the test with its message. */
cJSON *mw_test_leak_report(const char *db, const struct mw_leak_query *q);

/* The report of one process group over all of db with the defaults,
 * parsed (the caller's to cJSON_Delete). */
cJSON *mw_test_leak_report_of(const char *db, const char *process);

/* That report into *rep (the caller's to cJSON_Delete) and its first
 * group, NULL when it has none. */
cJSON *mw_test_leak_group_of(const char *db, const char *process, cJSON **rep);

#endif
