/*
 * leak_report_parallel.c - the report's groups judged side by side
 * (leak_report_internal.h, mw_leak_judge_spans).
 *
 * A week's report over hundreds of processes is CPU-bound (the detector's
 * statistics, then reading hourly floors), and each group is judged on its
 * own: its floors, its verdict, its JSON.  So the groups are shared out
 * among a few threads, each taking the next unjudged group from a counter
 * and reading through a reader of its own (a SQLite connection is used by
 * one thread at a time).  Each result lands in the slot of its group, so
 * the report is byte for byte the one a single thread writes.  A worker
 * whose reader cannot be opened takes no group; the others do its share.
 *
 * What the groups share: the query, the aspects and the clock-step holes
 * (read only), and the exit leak reports (xc), where each group marks
 * only its own process's entries as taken.
 *
 * Owner: the detector work.  Caller: leak_report.c.
 */
#include <stdlib.h>
#include <string.h>

#include "base/parallel.h"
#include "leak_report_internal.h"

struct share {
	struct mw_reader *reader;	/* worker 0's */
	const struct mw_leak_span *spans;
	const struct mw_leak_aspect *aspects;
	size_t naspects;
	const struct mw_leak_query *q;
	int64_t from, to, step;
	struct mw_exit_check *xc;
	struct mw_leak_judged_group *out;
	bool *excluded;
	struct mw_share items;		/* the spans */
};

static void work(void *arg, size_t worker)
{
	struct share *sh = arg;
	struct mw_reader *own = NULL, *reader = sh->reader;
	struct mw_err err;
	size_t k;

	if (worker > 0) {
		if (mw_reader_open_like(&own, sh->reader, &err))
			return;	/* the others take its share */
		reader = own;
	}
	while (mw_share_next(&sh->items, &k)) {
		const struct mw_leak_span *sp = &sh->spans[k];
		int rc;

		/* a group's reads (each aspect's floors, ...) in one read
		 * transaction instead of one each */
		rc = mw_reader_snapshot_begin(reader, &err);
		if (rc == 0) {
			rc = mw_leak_report_group(reader, sp->e, sp->n, sh->aspects, sh->naspects,
						  sh->q, sh->from, sh->to, sh->step, sp->watched,
						  sh->xc, &sh->out[k], &sh->excluded[k], &err);
			mw_reader_snapshot_end(reader);
		}
		if (rc)
			mw_share_fail(&sh->items, k, &err, (int)mw_reader_error_kind(reader));
	}
	mw_reader_free(own);
}

int mw_leak_judge_spans(struct mw_reader *reader, const struct mw_leak_span *spans, size_t nspans,
			const struct mw_leak_aspect *aspects, size_t naspects,
			const struct mw_leak_query *q, int64_t from, int64_t to, int64_t step,
			struct mw_exit_check *xc, struct mw_leak_judged_group *out, bool *excluded,
			struct mw_err *err)
{
	struct share sh;
	size_t threads = q->threads ? q->threads : 1, k;
	int kind;

	memset(&sh, 0, sizeof(sh));
	sh.reader = reader;
	sh.spans = spans;
	sh.aspects = aspects;
	sh.naspects = naspects;
	sh.q = q;
	sh.from = from;
	sh.to = to;
	sh.step = step;
	sh.xc = xc;
	sh.out = out;
	sh.excluded = excluded;
	mw_share_init(&sh.items, nspans);
	if (threads > MW_LEAK_MAX_THREADS)
		threads = MW_LEAK_MAX_THREADS;
	/* a thread and a reader cost more than a few groups' judgement */
	if (threads > nspans / 8)
		threads = nspans / 8 ? nspans / 8 : 1;
	mw_parallel_run(threads, work, &sh);
	if (!mw_share_end(&sh.items, err, &kind))
		return 0;
	for (k = 0; k < nspans; k++) {
		free(out[k].json);
		out[k].json = NULL;
	}
	/* the caller asks its reader why (a deadline is a 503, a bad
	 * selector a 400: web/request.c) */
	mw_reader_set_kind(reader, (enum mw_query_error)kind);
	return -1;
}
