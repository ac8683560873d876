/* report_source.c - see report_source.h. */
#include "report_source.h"

#include <stdlib.h>
#include <string.h>

#include "http_client.h"

int mw_report_source_check(const char *cmd, const char *db, const char *url,
			   const char **token)
{
	if (db && url) {
		fprintf(stderr, "memwatchd %s: give --db or --url, not both\n", cmd);
		return 2;
	}
	if (!*token)
		*token = getenv("MEMWATCH_TOKEN");
	return 0;
}

int mw_report_query_append(char *path, size_t size, bool *first, const char *name,
			   const char *value)
{
	if (!value)
		return 0;
	if (strlen(path) + strlen(name) + 3 >= size)
		return -1;
	strcat(path, *first ? "?" : "&");
	*first = false;
	if (mw_url_encode_append(path, size, name))
		return -1;
	strcat(path, "=");
	return mw_url_encode_append(path, size, value);
}

cJSON *mw_report_from_url(const char *cmd, const char *url, const char *path_and_query,
			  const char *token, const char *expect, const char *what)
{
	struct mw_err err = { "" };
	cJSON *report = mw_http_get_json(url, path_and_query, token, 0, expect, what, &err);

	if (!report)
		fprintf(stderr, "memwatchd %s: --url: %s\n", cmd, err.msg);
	return report;
}

cJSON *mw_report_from_db(const char *cmd, const char *db, mw_report_build_fn build,
			 const void *query)
{
	struct mw_err err = { "" };
	struct mw_reader *reader = NULL;
	cJSON *report = NULL;

	if (mw_reader_open(&reader, db ? db : "memwatch.db", &err)) {
		fprintf(stderr, "memwatchd %s: --db: %s\n", cmd, err.msg);
		return NULL;
	}
	if (build(reader, query, &report, &err)) {
		fprintf(stderr, "memwatchd %s: %s\n", cmd, err.msg);
		report = NULL;
	}
	mw_reader_free(reader);
	return report;
}

void mw_report_print(const cJSON *report, bool json,
		     void (*print_table)(const cJSON *report, FILE *f))
{
	if (json) {
		char *text = cJSON_PrintUnformatted(report);

		puts(text);
		free(text);
	} else {
		print_table(report, stdout);
	}
	fflush(stdout);
}
