/*
 * leak_report_bound.c - a failing process whose resident private memory
 * only fills what it had committed before (leak_bound.c says why that is
 * not a leak): its committed private address space and the resident
 * pages of the same mappings read from the store and handed to
 * mw_leak_commit_bound.
 *
 * Owner: the detector work.  Caller: leak_report_group.c, for the private
 * memory aspect.
 */
#include <math.h>
#include <stdlib.h>

#include "base/xalloc.h"
#include "leak_report_internal.h"

/* Every series of sel summed per bucket into *sum (owned, NaN where one
 * has no floor) on the axis from, to, step; 0, or -1 when none. */
static int read_sum(struct mw_reader *reader, const char *sel, int64_t from, int64_t to,
		    int64_t step, struct mw_trace *tr, double **sum)
{
	struct mw_range_query q;
	struct mw_range_result res = { 0 };
	size_t i, j;
	int rc = -1;

	mw_range_query_init(&q, from, to);
	q.step_ms = step;
	q.agg = MW_AGG_MIN;
	if (mw_reader_range(reader, sel, &q, &res, NULL) == 0 && res.nseries && res.nt) {
		*sum = mw_xcalloc(res.nt, sizeof(double));
		for (i = 0; i < res.nseries; i++)
			for (j = 0; j < res.nt; j++)
				(*sum)[j] += res.values[i][j];
		tr->t0_ms = res.t[0];
		tr->step_ms = res.step_ms;
		tr->v = *sum;
		tr->n = res.nt;
		rc = 0;
	}
	mw_range_result_release(&res);
	return rc;
}

/* The failing incarnations listed: the group's only one when 1. */
static size_t listed_fails(const struct mw_leak_aspect_result *ar)
{
	size_t i, n = 0;

	for (i = 0; i < ar->nlisted; i++)
		n += ar->list[i].r.verdict == MW_VERDICT_FAIL;
	return n;
}

void mw_leak_bound_by_commit(struct mw_reader *reader, struct mw_leak_aspect_result *ar,
			     const struct mw_leak_params *p, int64_t from, int64_t to,
			     int64_t step)
{
	struct mw_trace committed, resident;
	double *c = NULL, *r = NULL;
	const char *pid, *process;
	char sel[512];
	size_t i;

	/* one failing incarnation (listed first, fails rank highest), not
	 * a growing total of several */
	if (!ar->present || ar->g.r.verdict != MW_VERDICT_FAIL || ar->g.total_failed ||
	    ar->g.deciding_incarnation < 0 || listed_fails(ar) != 1)
		return;
	mw_leak_aspect_restore(reader, ar);
	if (!ar->deciding || !(pid = mw_leak_label_of(ar->deciding, "pid")))
		return;
	process = mw_leak_label_of(ar->deciding, "process");
	mw_leak_process_selector(sel, sizeof(sel), "memwatch_vm_bytes",
				 ",state=\"committed\",type=\"private\"", pid, process);
	if (read_sum(reader, sel, from, to, step, &committed, &c))
		goto out;
	/* the working-set categories of private mappings (collectors/smaps.c
	 * and workingset_pages.c: what the address space counts as private) */
	mw_leak_process_selector(sel, sizeof(sel), "memwatch_workingset_bytes",
				 ",sharing=\"private\",category=~\"heap|stack|private_data|other\"",
				 pid, process);
	if (read_sum(reader, sel, from, to, step, &resident, &r))
		goto out;
	if (mw_leak_commit_bound(&committed, &resident, p, &ar->g.r))
		for (i = 0; i < ar->nlisted; i++)
			if (ar->list[i].r.verdict == MW_VERDICT_FAIL) {
				ar->list[i].r = ar->g.r;
				ar->list[i].rank = mw_verdict_rank(MW_VERDICT_PASS);
			}
out:
	free(c);
	free(r);
}
