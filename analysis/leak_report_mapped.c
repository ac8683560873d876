/*
 * leak_report_mapped.c - a failing process whose resident mapped pages
 * only fill what it had mapped before (leak_bound.c says why that is no
 * leak): what it has mapped, read from the store and handed with the
 * judged trace to mw_leak_mapped_bound.  Linux: the mapped files aspect
 * (RssFile); Windows: the shared aspect (the shareable working set).
 *
 * Owner: the detector work.  Caller: the mapped files and shared aspects'
 * looks at each incarnation (leak_aspects.c; leak_report_read.c calls
 * them).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "leak_report_internal.h"

/* Linux: statm's size less its data (the private writable address
 * space): file mappings, images, shared memory and reservations, where
 * RssFile's pages lie. */
#define LINUX_TOTAL "memwatch_process_virtual_bytes"
#define LINUX_LESS "memwatch_process_data_bytes"
/* Windows: the virtual size less the commit charge (private bytes):
 * views of files and sections, images and reserved address space, where
 * the shareable working set's pages lie. */
#define WINDOWS_TOTAL "memwatch_process_virtual_bytes"
#define WINDOWS_LESS "memwatch_process_private_bytes"

/* The incarnation s's total less less on the axis from, to, step, held
 * against the fail r (judged on tr). */
static void bound_by_maps(struct mw_reader *reader, const struct mw_series_info *s,
			  const struct mw_trace *tr, const struct mw_leak_params *p, int64_t from,
			  int64_t to, int64_t step, const char *total, const char *less,
			  enum mw_leak_mapped_what what, struct mw_leak_result *r)
{
	struct mw_trace vt, lt, mapped;
	const char *pid, *process;
	char sel[512], inc[48];
	double *v = NULL, *l = NULL;
	size_t i;

	if (!(pid = mw_leak_label_of(s, "pid")))
		return;
	process = mw_leak_label_of(s, "process");
	mw_leak_incarnation_matcher(inc, sizeof(inc), mw_leak_label_of(s, "started"));
	mw_leak_process_selector(sel, sizeof(sel), total, inc, pid, process);
	if (mw_leak_read_sum(reader, sel, from, to, step, &vt, &v))
		goto out;
	mw_leak_process_selector(sel, sizeof(sel), less, inc, pid, process);
	if (mw_leak_read_sum(reader, sel, from, to, step, &lt, &l) || lt.n != vt.n ||
	    lt.t0_ms != vt.t0_ms || lt.step_ms != vt.step_ms)
		goto out;
	for (i = 0; i < vt.n; i++)
		v[i] = isnan(v[i]) || isnan(l[i]) ? NAN : v[i] - l[i];
	mapped = vt;
	mapped.v = v;
	mw_leak_mapped_bound(&mapped, tr, p, what, r);
out:
	free(v);
	free(l);
}

void mw_leak_mapped_within_maps(struct mw_reader *reader, const struct mw_series_info *s,
				const struct mw_trace *tr, const struct mw_leak_params *p,
				int64_t from, int64_t to, int64_t step, struct mw_leak_result *r)
{
	struct mw_series_info id;

	/* only a fail is looked at: reads for the few that fail */
	if (r->verdict != MW_VERDICT_FAIL)
		return;
	if ((s = mw_leak_labelled(reader, s, &id)))
		bound_by_maps(reader, s, tr, p, from, to, step, LINUX_TOTAL, LINUX_LESS,
			      MW_LEAK_MAPPED_FILES, r);
	mw_series_info_release(&id);
}

/*
 * Windows' shareable working set mixes images, views of files and views
 * of pagefile-backed sections.  A watched process's working-set
 * categories say which grew: views of files are bounded as Linux's file
 * pages are; a section's pages are the program's own data (trimmed to the
 * pagefile, not dropped), so their growth stays a fail, and so does an
 * image's (a new module maps more anyway).  An unwatched process has only
 * the sum: bounded all the same, its reason saying it cannot tell files
 * from sections (a section filled inside a view mapped in advance passes
 * while that view holds it; one leaked view after another grows what is
 * mapped and still fails).
 */
void mw_leak_shareable_within_views(struct mw_reader *reader, const struct mw_series_info *s,
				    const struct mw_trace *tr, const struct mw_leak_params *p,
				    int64_t from, int64_t to, int64_t step,
				    struct mw_leak_result *r)
{
	struct mw_series_info id;
	struct mw_leak_kind_found k;
	enum mw_leak_mapped_what what = MW_LEAK_MAPPED_VIEWS;

	if (r->verdict != MW_VERDICT_FAIL)
		return;
	if (!(s = mw_leak_labelled(reader, s, &id)))
		goto out;
	mw_leak_find_shareable_kind(&k, reader, mw_leak_label_of(s, "pid"),
				    mw_leak_label_of(s, "process"), r, from, to, step);
	if (k.source) {
		/* watched: only views of files are bounded */
		if (!k.kind || strcmp(k.kind, "mapped"))
			goto out;
		what = MW_LEAK_MAPPED_FILE_VIEWS;
	}
	bound_by_maps(reader, s, tr, p, from, to, step, WINDOWS_TOTAL, WINDOWS_LESS, what, r);
out:
	mw_series_info_release(&id);
}
