/*
 * report_source.h - where `check` and `diff` get their report: from a
 * database file (--db, built here by analysis/) or from a running daemon
 * (--url, built there by the same code and sent as JSON), then printed
 * as a table or as that JSON.  Both commands print the same messages
 * ("memwatchd CMD: --db: ..."), so they live here once.
 */
#ifndef MW_APP_REPORT_SOURCE_H
#define MW_APP_REPORT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/mwerr.h"
#include "storage/query.h"

/* --db and --url are exclusive (2 with a message when both are given);
 * with no --token the token is $MEMWATCH_TOKEN.  0 otherwise. */
int mw_report_source_check(const char *cmd, const char *db, const char *url,
			   const char **token);

/* Append "?name=value" (the first time, then "&name=value") to path,
 * percent-encoded; nothing when value is NULL.  -1 when it does not fit
 * in size bytes. */
int mw_report_query_append(char *path, size_t size, bool *first, const char *name,
			   const char *value);

/* GET url + path_and_query (a JSON object with the member `expect`);
 * NULL after printing "memwatchd CMD: --url: <why>". */
cJSON *mw_report_from_url(const char *cmd, const char *url, const char *path_and_query,
			  const char *token, const char *expect, const char *what);

/* Open db (NULL: memwatch.db) and build the report with build(reader,
 * query, &report, err); NULL after printing why. */
typedef int (*mw_report_build_fn)(struct mw_reader *r, const void *query, cJSON **out,
				  struct mw_err *err);
cJSON *mw_report_from_db(const char *cmd, const char *db, mw_report_build_fn build,
			 const void *query);

/* Print report on stdout: the JSON on one line, or print_table's table. */
void mw_report_print(const cJSON *report, bool json,
		     void (*print_table)(const cJSON *report, FILE *f));

#endif
