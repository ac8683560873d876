/*
 * leak_report_mapped.c - a failing process whose resident file pages
 * only fill files it had mapped before (leak_bound.c says why that is no
 * leak): what it has mapped, read from the store and handed with the
 * judged trace to mw_leak_mapped_bound.
 *
 * Owner: the detector work.  Caller: the mapped files aspect's look at
 * each incarnation (leak_aspects.c; leak_report_read.c calls it).
 */
#include <math.h>
#include <stdlib.h>

#include "leak_report_internal.h"

/* statm's size less its data (the private writable address space): file
 * mappings, images, shared memory and reservations, where RssFile's pages
 * lie.  Linux only: Windows has no mapped files aspect. */
#define MAPPED_TOTAL "memwatch_process_virtual_bytes"
#define MAPPED_LESS "memwatch_process_data_bytes"

void mw_leak_mapped_within_maps(struct mw_reader *reader, const struct mw_series_info *s,
				const struct mw_trace *tr, const struct mw_leak_params *p,
				int64_t from, int64_t to, int64_t step, struct mw_leak_result *r)
{
	struct mw_trace vt, dt, mapped;
	struct mw_series_info id;
	const char *pid, *process;
	char sel[512], inc[48];
	double *v = NULL, *d = NULL;
	size_t i;

	/* only a fail is looked at: reads for the few that fail */
	if (r->verdict != MW_VERDICT_FAIL)
		return;
	if (!(s = mw_leak_labelled(reader, s, &id)) || !(pid = mw_leak_label_of(s, "pid")))
		goto out;
	process = mw_leak_label_of(s, "process");
	mw_leak_incarnation_matcher(inc, sizeof(inc), mw_leak_label_of(s, "started"));
	mw_leak_process_selector(sel, sizeof(sel), MAPPED_TOTAL, inc, pid, process);
	if (mw_leak_read_sum(reader, sel, from, to, step, &vt, &v))
		goto out;
	mw_leak_process_selector(sel, sizeof(sel), MAPPED_LESS, inc, pid, process);
	if (mw_leak_read_sum(reader, sel, from, to, step, &dt, &d) || dt.n != vt.n ||
	    dt.t0_ms != vt.t0_ms || dt.step_ms != vt.step_ms)
		goto out;
	for (i = 0; i < vt.n; i++)
		v[i] = isnan(v[i]) || isnan(d[i]) ? NAN : v[i] - d[i];
	mapped = vt;
	mapped.v = v;
	mw_leak_mapped_bound(&mapped, tr, p, r);
out:
	free(v);
	free(d);
	mw_series_info_release(&id);
}
