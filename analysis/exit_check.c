/*
 * exit_check.c - exit leak reports in the leak verdict (exit_check.h).
 *
 * The trend verdict sees memory from outside; an exit report is the
 * program's own heap (or LeakSanitizer) saying what was unreachable when
 * it ended.  Either failing fails the group: a process can leak at exit
 * without a trend (a short run) and trend without exit leaks (memory
 * still referenced).  The trend judgement itself is not touched: a group
 * whose trend did not fail takes the report's verdict and reason, one
 * that failed says the report beside its own reason.
 */
#include "exit_check.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "core/watch.h"
#include "leak_report.h"

#define REPORTS_MAX 200	/* listed in the report */
#define JUDGED_MAX 100000	/* judged: the newest, when a range holds more */

void mw_exit_check_read(struct mw_reader *r, const struct mw_leak_query *q, struct mw_exit_check *xc)
{
	struct mw_err err = { "" };
	size_t i, keep = 0;

	memset(xc, 0, sizeof(*xc));
	xc->max_bytes = q->params.exit_max_bytes;
	if (mw_reader_exit_reports(r, NULL, q->from_ms, q->to_ms, JUDGED_MAX, &xc->list, &err)) {
		snprintf(xc->error, sizeof(xc->error), "%s", err.msg);
		memset(&xc->list, 0, sizeof(xc->list));
		return;
	}
	/* only the runs of q's process pattern take part */
	for (i = 0; i < xc->list.n; i++) {
		if (q->process && !mw_image_name_match(q->process, xc->list.items[i].r.process)) {
			mw_exit_report_release(&xc->list.items[i].r);
			continue;
		}
		xc->list.items[keep++] = xc->list.items[i];
	}
	xc->list.n = keep;
	xc->reason = mw_xcalloc(keep ? keep : 1, sizeof(*xc->reason));
	xc->taken = mw_xcalloc(keep ? keep : 1, sizeof(*xc->taken));
	for (i = 0; i < keep; i++) {
		const struct mw_exit_report_row *row = &xc->list.items[i];
		const struct mw_exit_report *x = &row->r;

		if (x->bytes <= xc->max_bytes)
			continue;
		xc->failed++;
		snprintf(xc->reason[i], sizeof(xc->reason[i]),
			 "exit leak report %" PRId64 " (%s, %s pid %" PRId64 "): %" PRIu64
			 " bytes in %" PRIu64 " allocations leaked at exit, more than max_bytes %"
			 PRIu64 "%s", row->id, mw_exit_source_name(x->source), x->process, x->pid,
			 x->bytes, x->leaks, xc->max_bytes, x->complete ? "" : " (report incomplete)");
	}
}

void mw_exit_check_release(struct mw_exit_check *xc)
{
	mw_exit_report_list_release(&xc->list);
	free(xc->reason);
	free(xc->taken);
	memset(xc, 0, sizeof(*xc));
}

const char *mw_exit_check_reason(struct mw_exit_check *xc, const char *process)
{
	const char *newest = NULL;
	size_t i;

	for (i = 0; i < xc->list.n; i++) {
		if (!xc->reason[i][0] || strcmp(xc->list.items[i].r.process, process))
			continue;
		if (!newest)
			newest = xc->reason[i];	/* the list is newest first */
		xc->taken[i] = true;
	}
	return newest;
}

bool mw_exit_check_untaken(struct mw_exit_check *xc, size_t *i, const char **process,
			   const char **reason)
{
	for (; *i < xc->list.n; (*i)++) {
		if (!xc->reason[*i][0] || xc->taken[*i])
			continue;
		*process = xc->list.items[*i].r.process;
		*reason = mw_exit_check_reason(xc, *process);	/* takes its other runs too */
		(*i)++;
		return true;
	}
	return false;
}

void mw_exit_check_group_json(struct mw_jbuf *out, const char *process, const char *reason)
{
	struct mw_jw w;

	mw_jw_init(&w, out);
	mw_jw_object(&w, NULL);
	mw_jw_str(&w, "process", process);
	mw_jw_bool(&w, "watched", 0);
	mw_jw_str(&w, "verdict", "fail");
	mw_jw_str(&w, "reason", reason);
	mw_jw_str(&w, "aspect", "exit_leaks");
	mw_jw_str(&w, "unit", "bytes");
	mw_jw_str(&w, "kind", "exit leak");
	mw_jw_str(&w, "exit_leak_reason", reason);
	mw_jw_end(&w);
}

void mw_exit_check_json(struct mw_jw *w, const struct mw_exit_check *xc)
{
	size_t i;

	mw_jw_object(w, "exit_leaks");
	mw_jw_uint(w, "max_bytes", xc->max_bytes);
	mw_jw_array(w, "reports");
	for (i = 0; i < xc->list.n && i < REPORTS_MAX; i++) {
		const struct mw_exit_report_row *row = &xc->list.items[i];
		const struct mw_exit_report *x = &row->r;

		mw_jw_object(w, NULL);
		mw_jw_int(w, "id", row->id);
		mw_jw_str(w, "process", x->process);
		mw_jw_int(w, "pid", x->pid);
		mw_jw_int(w, "exited_ms", x->exited_ms);
		mw_jw_str(w, "source", mw_exit_source_name(x->source));
		mw_jw_uint(w, "leaks", x->leaks);
		mw_jw_uint(w, "bytes", x->bytes);
		mw_jw_bool(w, "failed", xc->reason[i][0] != '\0');
		mw_jw_end(w);
	}
	mw_jw_end(w);
	mw_jw_uint(w, "failed", xc->failed);
	if (xc->list.more)
		mw_jw_uint(w, "judged_only_newest", JUDGED_MAX);
	if (xc->error[0])
		mw_jw_str(w, "error", xc->error);
	mw_jw_end(w);
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
