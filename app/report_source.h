/*
 * report_source.h - where `check` and `diff` get their report: from a
 * database file (--db, written here by analysis/) or from a running daemon
 * (--url, written there by the same code and sent as JSON), then printed
 * as a table or as that JSON.  Both commands print the same messages
 * ("memwatchd CMD: --db: ..."), so they live here once.
 *
 * One data model: the report's JSON text.  --db writes it (json_out) and
 * parses it back, exactly as --url receives and parses it; the table and
 * the exit status read the parsed text, --json prints the text itself.
 * So `--db` and `--url` print the same by construction.
 */
#ifndef MW_APP_REPORT_SOURCE_H
#define MW_APP_REPORT_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "base/json_out.h"
#include "base/mwerr.h"
#include "storage/query.h"

/* A report: its JSON text and that text parsed (cJSON as a parser). */
struct mw_report {
	char *text;	/* one JSON object (owned) */
	size_t len;
	cJSON *doc;	/* text parsed (owned) */
};

void mw_report_release(struct mw_report *rep);

/* --db and --url are exclusive (2 with a message when both are given),
 * --ca-file needs --url (2 too); with no --token the token is
 * $MEMWATCH_TOKEN.  0 otherwise. */
int mw_report_source_check(const char *cmd, const char *db, const char *url,
			   const char *ca_file, const char **token);

/* Append "?name=value" (the first time, then "&name=value") to path,
 * percent-encoded; nothing when value is NULL.  -1 when it does not fit
 * in size bytes. */
int mw_report_query_append(char *path, size_t size, bool *first, const char *name,
			   const char *value);

/* GET url + path_and_query (a JSON object with the member `expect`) into
 * *rep, an https:// daemon's certificate verified (against ca_file when
 * not NULL): 0, or -1 after printing "memwatchd CMD: --url: <why>". */
int mw_report_from_url(const char *cmd, const char *url, const char *path_and_query,
		       const char *token, const char *ca_file, const char *expect,
		       const char *what, struct mw_report *rep);

/* Open db (NULL: memwatch.db) and write the report with build(reader,
 * query, out, err) into *rep: 0, or -1 after printing why. */
typedef int (*mw_report_build_fn)(struct mw_reader *r, const void *query,
				  struct mw_jbuf *out, struct mw_err *err);
int mw_report_from_db(const char *cmd, const char *db, mw_report_build_fn build,
		      const void *query, struct mw_report *rep);

/* Print the report on stdout: its JSON text on one line, or print_table's
 * table of it parsed. */
void mw_report_print(const struct mw_report *rep, bool json,
		     void (*print_table)(const cJSON *report, FILE *f));

#endif
