/*
 * leak_report_held.c - a shared-memory (or mapped-file) fail of one
 * process whose group already held the pages it came to map.
 *
 * PostgreSQL's checkpointer and backends map more and more of the buffer
 * pool the others filled: each one's resident shared memory climbs by
 * tens of MiB an hour, while no page is added to the machine.  What a
 * group of processes costs is its proportional set (PSS: each page
 * divided among the processes that map it), summed over the incarnations
 * alive in each bucket.  A page one member comes to map that another
 * held already moves PSS between them and leaves the sum alone; a leak
 * (a memfd or section that grows, whoever maps it) raises the sum.  So a
 * failing shared or mapped aspect of a group of several is judged again
 * on that sum, and when the sum does not fail, neither does the aspect.
 *
 * Where the PSS comes from: the process collector's for every process,
 * on a budget (Linux: smaps_rollup; Windows: each page of the working set
 * divided by its share count, QueryWorkingSet), else the working-set
 * collector's for watched processes (the same, every tick).  Windows
 * counts at most 7 sharers of a page: where more processes of the group
 * map the same pages, each still counts a seventh, the sum rises as more
 * of them map it, and the fail is kept.
 *
 * Owner: the detector work.  Caller: leak_report_group.c.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "leak_internal.h"
#include "leak_report_internal.h"

/* The series of the sum, the first with two or more series deciding. */
static const char *const held_metrics[] = {
	"memwatch_process_pss_bytes",
	"memwatch_workingset_pss_bytes",
};
/* Groups with more incarnations keep their fail: the sum would read every
 * one of them, and a shared-memory fail among thousands of short-lived
 * processes is not the pattern this undoes. */
#define HELD_MAX_INCARNATIONS 256

/* The floors of the incarnations alive in each bucket, summed into sum
 * (res->nt values; NaN where none is alive), as the group's total sums
 * them (mw_leak_sum_floors). */
static void sum_alive(const struct mw_range_result *res, double *sum)
{
	uint32_t *alive = mw_xcalloc(res->nt ? res->nt : 1, sizeof(*alive));
	size_t i, j;

	memset(sum, 0, res->nt * sizeof(*sum));
	for (i = 0; i < res->nseries; i++)
		mw_leak_sum_floors(sum, alive, NULL, res->nt, res->values[i], res->nt, 0);
	for (j = 0; j < res->nt; j++)
		if (!alive[j])
			sum[j] = NAN;
	free(alive);
}

/* The floors of the group's PSS series on the axis from, to, step into
 * *res, from the first metric with two or more; 0, or -1 when none has
 * (*res then empty). */
static int read_group_pss(struct mw_reader *reader, const char *process, int64_t from, int64_t to,
			  int64_t step, struct mw_range_result *res)
{
	struct mw_range_query q;
	char sel[512];
	size_t m;

	for (m = 0; m < MW_ARRAY_SIZE(held_metrics); m++) {
		memset(res, 0, sizeof(*res));
		mw_leak_group_selector(sel, sizeof(sel), held_metrics[m], process);
		mw_range_query_init(&q, from, to);
		q.step_ms = step;
		q.agg = MW_AGG_MIN;
		if (mw_reader_range(reader, sel, &q, res, NULL) == 0 && res->nseries >= 2 &&
		    res->nt > 0)
			return 0;
		mw_range_result_release(res);
	}
	memset(res, 0, sizeof(*res));
	return -1;
}

void mw_leak_bound_by_group(struct mw_reader *reader, struct mw_leak_aspect_result *ar,
			    const char *process, const struct mw_leak_params *p, int64_t from,
			    int64_t to, int64_t step)
{
	struct mw_range_result res;
	struct mw_leak_result r;
	struct mw_trace tr;
	char tmp[MW_LEAK_REASON_MAX];
	double *sum;

	if (!ar->present || ar->g.r.verdict != MW_VERDICT_FAIL || ar->ninc < 2 ||
	    ar->ninc > HELD_MAX_INCARNATIONS || !process ||
	    read_group_pss(reader, process, from, to, step, &res))
		return;
	sum = mw_xcalloc(res.nt, sizeof(*sum));
	sum_alive(&res, sum);
	tr.t0_ms = res.t[0];
	tr.step_ms = res.step_ms;
	tr.v = sum;
	tr.n = res.nt;
	mw_leak_judge(&tr, p, &r);
	if (r.verdict != MW_VERDICT_FAIL) {
		snprintf(tmp, sizeof(tmp),
			 "its group held the shared pages it came to map: the proportional set of "
			 "its %zu processes, summed: %s", res.nseries, r.reason);
		memcpy(r.reason, tmp, sizeof(tmp));
		ar->g.r = r;
		ar->g.total_failed = 0;
		mw_leak_aspect_relist_fails(ar);
	}
	free(sum);
	mw_range_result_release(&res);
}
