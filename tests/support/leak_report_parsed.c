/*
 * leak_report_parsed.c - the leak report, parsed (leak_report_parsed.h).
 */
#include "leak_report_parsed.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/leak_report.h"
#include "base/json_out.h"
#include "storage/query.h"

cJSON *mw_test_leak_report(const char *db, const struct mw_leak_query *q)
{
	struct mw_reader *r;
	struct mw_err err = { "" };
	struct mw_jbuf text;
	cJSON *rep;

	if (mw_reader_open(&r, db, &err))
		fail_msg("open %s: %s", db, err.msg);
	mw_jbuf_init(&text);
	if (mw_leak_report(r, q, &text, NULL, &err))
		fail_msg("report: %s", err.msg);
	rep = cJSON_Parse(text.p);
	assert_non_null(rep);
	mw_jbuf_release(&text);
	mw_reader_free(r);
	return rep;
}

cJSON *mw_test_leak_report_of(const char *db, const char *process)
{
	struct mw_leak_query q;
	cJSON *rep;

	mw_leak_query_init(&q);
	q.process = strdup(process);
	rep = mw_test_leak_report(db, &q);
	mw_leak_query_release(&q);
	return rep;
}

cJSON *mw_test_leak_group_of(const char *db, const char *process, cJSON **rep)
{
	*rep = mw_test_leak_report_of(db, process);
	return cJSON_GetArrayItem(cJSON_GetObjectItem(*rep, "groups"), 0);
}
