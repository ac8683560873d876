/*
 * exit_check.c - exit leak reports in the leak verdict (exit_check.h).
 *
 * The trend verdict sees memory from outside; an exit report is the
 * program's own heap (or LeakSanitizer) saying what was unreachable when
 * it ended.  Either failing fails the group: a process can leak at exit
 * without a trend (a short run) and trend without exit leaks (memory
 * still referenced).  Works on the finished report JSON so the trend
 * judgement stays as it is.
 */
#include "exit_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/watch.h"
#include "leak_report.h"
#include "storage/exit_reports.h"

#define REPORTS_MAX 200	/* listed in the report */
#define JUDGED_MAX 100000	/* judged: the newest, when a range holds more */

static cJSON *group_of(cJSON *groups, const char *process)
{
	cJSON *g;

	cJSON_ArrayForEach(g, groups) {
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(g, "process");

		if (cJSON_IsString(p) && !strcmp(p->valuestring, process))
			return g;
	}
	return NULL;
}

static void set_str(cJSON *o, const char *key, const char *v)
{
	cJSON_DeleteItemFromObjectCaseSensitive(o, key);
	cJSON_AddStringToObject(o, key, v);
}

static void bump(cJSON *counts, const char *key, int by)
{
	cJSON *c = cJSON_GetObjectItemCaseSensitive(counts, key);

	if (cJSON_IsNumber(c))
		cJSON_SetNumberValue(c, c->valuedouble + by);
}

/* The group of the failing run's process fails with reason. */
static void fail_group(cJSON *report, const struct mw_exit_report_row *row, const char *reason)
{
	cJSON *groups = cJSON_GetObjectItemCaseSensitive(report, "groups");
	cJSON *counts = cJSON_GetObjectItemCaseSensitive(report, "counts");
	cJSON *g = group_of(groups, row->r.process), *v, *tot;

	if (!g) {	/* a run the process collector never saw (short, or imported) */
		g = cJSON_CreateObject();
		cJSON_AddStringToObject(g, "process", row->r.process);
		cJSON_AddBoolToObject(g, "watched", false);
		cJSON_AddStringToObject(g, "aspect", "exit_leaks");
		cJSON_AddStringToObject(g, "unit", "bytes");
		cJSON_AddStringToObject(g, "kind", "exit leak");
		cJSON_AddStringToObject(g, "verdict", "fail");
		cJSON_AddStringToObject(g, "reason", reason);
		if (!groups)
			groups = cJSON_AddArrayToObject(report, "groups");
		cJSON_InsertItemInArray(groups, 0, g);
		bump(counts, "fail", 1);
		tot = cJSON_GetObjectItemCaseSensitive(report, "groups_total");
		if (cJSON_IsNumber(tot))
			cJSON_SetNumberValue(tot, tot->valuedouble + 1);
		return;
	}
	v = cJSON_GetObjectItemCaseSensitive(g, "verdict");
	if (cJSON_IsString(v) && strcmp(v->valuestring, "fail")) {
		bump(counts, v->valuestring, -1);
		bump(counts, "fail", 1);
		set_str(g, "verdict", "fail");
		set_str(g, "reason", reason);
	} else if (!cJSON_GetObjectItemCaseSensitive(g, "exit_leak_reason")) {
		/* failing already on its trend: the exit leak said beside it */
		cJSON_AddStringToObject(g, "exit_leak_reason", reason);
	}
}

bool mw_exit_check_has_reports(struct mw_reader *r, const struct mw_leak_query *q)
{
	struct mw_exit_report_list list;
	struct mw_err err;
	bool found = false;
	size_t i;

	if (mw_reader_exit_reports(r, NULL, q->from_ms, q->to_ms, JUDGED_MAX, &list, &err))
		return false;
	for (i = 0; i < list.n && !found; i++)
		found = !q->process || mw_image_name_match(q->process, list.items[i].r.process);
	mw_exit_report_list_release(&list);
	return found;
}

void mw_exit_check_apply(struct mw_reader *r, const struct mw_leak_query *q, cJSON *report)
{
	struct mw_exit_report_list list;
	struct mw_err err = { "" };
	cJSON *xl, *arr;
	uint64_t max = q->params.exit_max_bytes, failed = 0;
	size_t i, listed = 0;

	if (!report)
		return;
	xl = cJSON_AddObjectToObject(report, "exit_leaks");
	cJSON_AddNumberToObject(xl, "max_bytes", (double)max);
	arr = cJSON_AddArrayToObject(xl, "reports");
	if (mw_reader_exit_reports(r, NULL, q->from_ms, q->to_ms, JUDGED_MAX, &list, &err)) {
		cJSON_AddStringToObject(xl, "error", err.msg);
		return;
	}
	for (i = 0; i < list.n; i++) {
		const struct mw_exit_report_row *row = &list.items[i];
		const struct mw_exit_report *x = &row->r;
		char reason[512];
		cJSON *o;

		if (q->process && !mw_image_name_match(q->process, x->process))
			continue;
		if (listed++ < REPORTS_MAX) {
			o = cJSON_CreateObject();
			cJSON_AddNumberToObject(o, "id", (double)row->id);
			cJSON_AddStringToObject(o, "process", x->process);
			cJSON_AddNumberToObject(o, "pid", (double)x->pid);
			cJSON_AddNumberToObject(o, "exited_ms", (double)x->exited_ms);
			cJSON_AddStringToObject(o, "source", mw_exit_source_name(x->source));
			cJSON_AddNumberToObject(o, "leaks", (double)x->leaks);
			cJSON_AddNumberToObject(o, "bytes", (double)x->bytes);
			cJSON_AddItemToArray(arr, o);
		}
		if (x->bytes <= max)
			continue;
		failed++;
		snprintf(reason, sizeof(reason),
			 "exit leak report %" PRId64 " (%s, %s pid %" PRId64 "): %" PRIu64
			 " bytes in %" PRIu64 " allocations leaked at exit, more than max_bytes %"
			 PRIu64 "%s", row->id, mw_exit_source_name(x->source), x->process, x->pid,
			 x->bytes, x->leaks, max, x->complete ? "" : " (report incomplete)");
		fail_group(report, row, reason);
	}
	cJSON_AddNumberToObject(xl, "failed", (double)failed);
	if (list.more)
		cJSON_AddNumberToObject(xl, "judged_only_newest", JUDGED_MAX);
	if (failed) {
		set_str(report, "verdict", "fail");
		cJSON_DeleteItemFromObjectCaseSensitive(report, "reason");
		cJSON_DeleteItemFromObjectCaseSensitive(report, "first_verdicts_ms");
	}
	mw_exit_report_list_release(&list);
}
