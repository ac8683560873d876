/* report_source.c - see report_source.h. */
#include "report_source.h"

#include <stdlib.h>
#include <string.h>

#include "http_client.h"

int mw_report_source_check(const char *cmd, const char *db, const char *url,
			   const char *ca_file, const char **token)
{
	if (db && url) {
		fprintf(stderr, "memwatchd %s: give --db or --url, not both\n", cmd);
		return 2;
	}
	if (ca_file && !url) {
		fprintf(stderr, "memwatchd %s: --ca-file is for --url https://...\n", cmd);
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

void mw_report_release(struct mw_report *rep)
{
	free(rep->text);
	cJSON_Delete(rep->doc);
	memset(rep, 0, sizeof(*rep));
}

int mw_report_from_url(const char *cmd, const char *url, const char *path_and_query,
		       const char *token, const char *ca_file, const char *expect,
		       const char *what, struct mw_report *rep)
{
	struct mw_err err = { "" };

	memset(rep, 0, sizeof(*rep));
	rep->doc = mw_http_get_json_text(url, path_and_query, token, ca_file, 0, expect, what,
					 &rep->text, &rep->len, &err);
	if (!rep->doc) {
		fprintf(stderr, "memwatchd %s: --url: %s\n", cmd, err.msg);
		return -1;
	}
	/* the daemon ends its answers with a newline; printing adds one */
	while (rep->len && (rep->text[rep->len - 1] == '\n' || rep->text[rep->len - 1] == '\r'))
		rep->text[--rep->len] = '\0';
	return 0;
}

int mw_report_from_db(const char *cmd, const char *db, mw_report_build_fn build,
		      const void *query, struct mw_report *rep)
{
	struct mw_err err = { "" };
	struct mw_reader *reader = NULL;
	struct mw_jbuf out;
	int rc = -1;

	memset(rep, 0, sizeof(*rep));
	if (mw_reader_open(&reader, db ? db : "memwatch.db", &err)) {
		fprintf(stderr, "memwatchd %s: --db: %s\n", cmd, err.msg);
		return -1;
	}
	mw_jbuf_init(&out);
	if (build(reader, query, &out, &err)) {
		fprintf(stderr, "memwatchd %s: %s\n", cmd, err.msg);
	} else if (!(rep->doc = cJSON_ParseWithLength(out.p, out.len))) {
		/* read back as --url reads the daemon's answer; json_out writes
		 * valid JSON, so only cJSON's memory can fail here */
		fprintf(stderr, "memwatchd %s: out of memory reading the report\n", cmd);
	} else {
		rep->text = mw_jbuf_detach(&out, &rep->len);
		rc = 0;
	}
	mw_jbuf_release(&out);
	mw_reader_free(reader);
	return rc;
}

void mw_report_print(const struct mw_report *rep, bool json,
		     void (*print_table)(const cJSON *report, FILE *f))
{
	if (json) {
		fwrite(rep->text, 1, rep->len, stdout);
		fputc('\n', stdout);
	} else {
		print_table(rep->doc, stdout);
	}
	fflush(stdout);
}
