/*
 * leak_report_bound.c - a failing process whose resident private memory
 * only fills what it had committed before (leak_bound.c says why that is
 * not a leak): its private writable address space and the resident pages
 * in it read from the store and handed to mw_leak_commit_bound.
 *
 * Owner: the detector work.  Caller: the private memory aspect's look at
 * each incarnation (leak_aspects.c; leak_report_read.c calls it).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"
#include "base/xalloc.h"
#include "leak_report_internal.h"

/* Where the two figures come from: the process collector's (every
 * process, Linux: statm's data against private bytes itself, anonymous
 * resident plus swap, all of it inside those mappings), else a watched
 * process's address space and working set (the committed private
 * mappings against the resident pages of the working-set categories that
 * live in them: collectors/smaps.c and workingset_pages.c). */
struct bound_source {
	const char *committed_metric, *committed_extra;
	const char *resident_metric, *resident_extra;
	bool by_incarnation;	/* the series carry `started` */
};

static const struct bound_source bound_sources[] = {
	{ "memwatch_process_data_bytes", "", "memwatch_process_private_bytes", "", true },
	{ "memwatch_vm_bytes", ",state=\"committed\",type=\"private\"", "memwatch_workingset_bytes",
	  ",sharing=\"private\",category=~\"heap|stack|private_data|other\"", false },
};

/* One source's two traces for the incarnation; 0, or -1 when it lacks
 * either (*c and *r, owned, freed by the caller either way). */
static int read_source(struct mw_reader *reader, const struct bound_source *src, const char *pid,
		       const char *process, const char *started, int64_t from, int64_t to,
		       int64_t step, struct mw_trace *committed, double **c,
		       struct mw_trace *resident, double **r)
{
	char sel[512], extra[160], inc[48] = "";

	if (src->by_incarnation)
		mw_leak_incarnation_matcher(inc, sizeof(inc), started);
	snprintf(extra, sizeof(extra), "%s%s", src->committed_extra, inc);
	mw_leak_process_selector(sel, sizeof(sel), src->committed_metric, extra, pid, process);
	if (mw_leak_read_sum(reader, sel, from, to, step, committed, c))
		return -1;
	snprintf(extra, sizeof(extra), "%s%s", src->resident_extra, inc);
	mw_leak_process_selector(sel, sizeof(sel), src->resident_metric, extra, pid, process);
	return mw_leak_read_sum(reader, sel, from, to, step, resident, r);
}

/* A JVM's committed memory with its heap (and what its collector commits
 * beside it) counted at its most from the start: committed - heap
 * committed + heap max, each with the side share, bucket by bucket on the
 * committed trace's axis, into c (the trace's values; NaN where the
 * heap's is not read).  A JVM grows its heap toward -Xmx as its collector
 * sizes it; what lives in it is the java_heap aspect's to judge. */
static void count_heap_whole(double *c, const struct mw_trace *committed, const struct mw_trace *hc,
			     double max)
{
	size_t i;

	for (i = 0; i < committed->n; i++) {
		int64_t t = committed->t0_ms + (int64_t)i * committed->step_ms;
		int64_t k = hc->step_ms > 0 ? (t - hc->t0_ms) / hc->step_ms : -1;

		if (k < 0 || (size_t)k >= hc->n || (t - hc->t0_ms) % hc->step_ms || isnan(hc->v[k]))
			c[i] = NAN;
		else
			c[i] += (max - hc->v[k]) * (1 + MW_LEAK_JVM_SIDE_PER_HEAP);
	}
}

void mw_leak_private_within_commit(struct mw_reader *reader, const struct mw_series_info *s,
				   const struct mw_trace *tr, const struct mw_leak_params *p,
				   int64_t from, int64_t to, int64_t step, struct mw_leak_result *r)
{
	struct mw_trace committed, resident;
	struct mw_trace hc_tr = { 0 };
	struct mw_series_info id;
	const char *pid, *process, *started;
	double by_design, *hc = NULL;
	size_t k;

	(void)tr;
	/* only a fail is looked at: reads for the few that fail, none for
	 * the rest of a host */
	if (r->verdict != MW_VERDICT_FAIL)
		return;
	if (!(s = mw_leak_labelled(reader, s, &id)) || !(pid = mw_leak_label_of(s, "pid")))
		goto out;
	process = mw_leak_label_of(s, "process");
	started = mw_leak_label_of(s, "started");
	by_design = mw_leak_java_heap(reader, pid, process, started, from, to, step, &hc_tr, &hc);
	for (k = 0; k < MW_ARRAY_SIZE(bound_sources); k++) {
		double *c = NULL, *res = NULL;
		int found = !read_source(reader, &bound_sources[k], pid, process, started, from, to,
					 step, &committed, &c, &resident, &res);

		if (found && by_design > 0)
			count_heap_whole(c, &committed, &hc_tr, by_design);
		if (found)
			mw_leak_commit_bound(&committed, &resident, p, by_design, r);
		free(c);
		free(res);
		if (found)
			break;	/* the first source with both series decides */
	}
	free(hc);
out:
	mw_series_info_release(&id);
}
