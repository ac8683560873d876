/*
 * leak_report_kind.c - which kind of memory a failing process grew in,
 * read from the store: the per-kind series of a watched process (its
 * working set by category, its heap breakdown, its address space by
 * type), summed per kind and handed to mw_leak_kind (leak_kind.c).
 *
 * Owner: the detector work.  Caller: leak_report_group.c, for a failing
 * group whose aspect asks for the finer kind (private memory, Windows'
 * shareable working set): the deciding incarnation's series, or every
 * incarnation's summed when the group's total decided.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"
#include "base/xalloc.h"
#include "leak_report_internal.h"

/* Per-kind series of a watched process, from the most to the least
 * precise source; `map` turns the source's label value into a kind. */
struct kind_source {
	const char *metric;
	const char *extra;	/* extra matcher, or "" */
	const char *label;
	const char *const *map;	/* pairs: label value, kind; NULL-terminated */
};

/*
 * The kinds a fail names, one vocabulary for CLI, JSON, page and
 * /metrics (README, "Leak verdicts"): heap, stack, private_data (other
 * private memory), static_data, image, mapped (mapped files), shared
 * (shared memory: Linux shmem/memfd, Windows shareable pages), other;
 * private when private memory grew but no finer source says where;
 * handles and threads for the counts.
 *
 * Resident pages (the working set) first: a leak that grows inside a
 * mapping reserved in advance shows in what is resident, not in the
 * mapping sizes.  Then the heap bar (Windows: committed bytes by heap
 * walk; Linux: "heap" is the brk heap), then the committed address space.
 */
static const char *const ws_map[] = {
	"image", "image", "mapped_file", "mapped", "shareable", "shared", "heap", "heap",
	"stack", "stack", "private_data", "private_data", "other", "other", NULL,
};
static const char *const breakdown_map[] = {
	"heap_used", "heap", "heap_free", "heap", "heap", "heap", "stack_committed", "stack",
	"image", "image", "static_data", "static_data", "private_other", "private_data",
	"mapped", "mapped", NULL,
};
static const char *const vm_map[] = {
	"image", "image", "mapped", "mapped", "private", "private_data", NULL,
};
/* The shareable working set (Windows' "shared" aspect) is made of images,
 * mapped files and pagefile-backed sections (collectors/workingset_pages.c:
 * a MEM_MAPPED allocation with a file name is a mapped file, one without a
 * pagefile-backed section, "shareable"). */
static const char *const ws_shareable_map[] = {
	"image", "image", "mapped_file", "mapped", "shareable", "shared", NULL,
};
static const struct kind_source shareable_source = {
	"memwatch_workingset_bytes", "", "category", ws_shareable_map
};
static const struct kind_source kind_sources[] = {
	{ "memwatch_workingset_bytes", "", "category", ws_map },
	{ "memwatch_heap_breakdown_bytes", "", "kind", breakdown_map },
	{ "memwatch_vm_bytes", ",state=\"committed\"", "type", vm_map },
};

static const char *map_kind(const char *const *map, const char *v)
{
	size_t i;

	for (i = 0; v && map[i]; i += 2)
		if (!strcmp(map[i], v))
			return map[i + 1];
	return NULL;
}

/* Append a selector-quoted label value. */
static void quote_value(char *buf, size_t size, const char *v)
{
	size_t n = strlen(buf);

	for (; *v && n + 3 < size; v++) {
		if (*v == '"' || *v == '\\')
			buf[n++] = '\\';
		buf[n++] = *v == '\n' ? 'n' : *v;
	}
	buf[n] = '\0';
}

void mw_leak_process_selector(char *sel, size_t size, const char *metric, const char *extra,
			      const char *pid, const char *process)
{
	snprintf(sel, size, "%s{pid=\"", metric);
	quote_value(sel, size, pid);
	snprintf(sel + strlen(sel), size - strlen(sel), "\"%s", extra);
	if (process) {
		snprintf(sel + strlen(sel), size - strlen(sel), ",process=\"");
		quote_value(sel, size, process);
		snprintf(sel + strlen(sel), size - strlen(sel), "\"");
	}
	snprintf(sel + strlen(sel), size - strlen(sel), "}");
}

void mw_leak_group_selector(char *sel, size_t size, const char *metric, const char *process)
{
	snprintf(sel, size, "%s{process=\"", metric);
	quote_value(sel, size, process);
	snprintf(sel + strlen(sel), size - strlen(sel), "\"}");
}

/* One source's series summed per kind, bucket by bucket, into names[k]
 * and sums[k] (owned, res->nt values) for each of the returned number of
 * kinds.  One process's series (across = false): a bucket where any of
 * them is missing is a gap, not a dip.  Every incarnation of a group
 * (across = true): each series holds its last value across a gap and adds
 * nothing before its first point, so a worker started later adds its
 * memory when it starts. */
static size_t sum_by_kind(const struct kind_source *src, const struct mw_range_result *res,
			  bool across, const char *names[MW_LEAK_MAX_KINDS],
			  double *sums[MW_LEAK_MAX_KINDS])
{
	size_t nk = 0, i, j, k;

	for (i = 0; i < res->nseries; i++) {
		const char *kind = map_kind(src->map, mw_leak_label_of(&res->series[i], src->label));
		double last = 0.0;

		if (!kind)
			continue;
		for (k = 0; k < nk && strcmp(names[k], kind); k++)
			;
		if (k == nk) {
			if (nk == MW_LEAK_MAX_KINDS)
				continue;
			names[nk] = kind;
			sums[nk] = mw_xcalloc(res->nt ? res->nt : 1, sizeof(double));
			nk++;
		}
		for (j = 0; j < res->nt; j++) {
			double v = res->values[i][j];

			if (across && isfinite(v) && v >= 0.0)
				last = v;
			sums[k][j] += across ? last : v;
		}
	}
	return nk;
}

/* Keep one source's kinds as the answer: the kind it names (best; -1:
 * none) and every kind's slope. */
static void keep_kinds(struct mw_leak_kind_found *out, const struct kind_source *src,
		       const char *const *names, const double *shares, size_t nk, int best)
{
	size_t k;

	out->kind = best >= 0 ? names[best] : NULL;
	out->source = src->metric;
	out->nk = nk;
	for (k = 0; k < nk; k++) {
		out->names[k] = names[k];
		out->shares[k] = shares[k];
	}
}

/* Try one source on the series sel selects (across: every incarnation
 * of a group, sum_by_kind): -1 when it has none, else the kind it names
 * (-1 too when none carries the growth), kept in out when it names one or
 * is the first with series. */
static int kind_from_source(struct mw_leak_kind_found *out, struct mw_reader *reader,
			    const struct kind_source *src, const char *sel, bool across,
			    const struct mw_leak_result *r, int64_t from, int64_t to, int64_t step)
{
	struct mw_range_query q;
	struct mw_range_result res = { 0 };
	const char *names[MW_LEAK_MAX_KINDS];
	double *sums[MW_LEAK_MAX_KINDS], shares[MW_LEAK_MAX_KINDS];
	struct mw_trace traces[MW_LEAK_MAX_KINDS];
	size_t nk, k;
	int best;

	mw_range_query_init(&q, from, to);
	q.step_ms = step;
	q.agg = MW_AGG_MIN;
	if (mw_reader_range(reader, sel, &q, &res, NULL) || res.nseries == 0) {
		mw_range_result_release(&res);
		return -1;
	}
	nk = sum_by_kind(src, &res, across, names, sums);
	for (k = 0; k < nk; k++) {
		traces[k].t0_ms = res.nt ? res.t[0] : from;
		traces[k].step_ms = res.step_ms;
		traces[k].v = sums[k];
		traces[k].n = res.nt;
	}
	best = nk ? mw_leak_kind(traces, nk, r, shares) : -1;
	/* the first source that names the kind; else the first with series
	 * at all, whose figures still say what grew */
	if (nk && (best >= 0 || !out->source))
		keep_kinds(out, src, names, shares, nk, best);
	for (k = 0; k < nk; k++)
		free(sums[k]);
	mw_range_result_release(&res);
	return best;
}

static int kind_of_process(struct mw_leak_kind_found *out, struct mw_reader *reader,
			   const struct kind_source *src, const char *pid, const char *process,
			   const struct mw_leak_result *r, int64_t from, int64_t to, int64_t step)
{
	char sel[512];

	mw_leak_process_selector(sel, sizeof(sel), src->metric, src->extra, pid, process);
	return kind_from_source(out, reader, src, sel, false, r, from, to, step);
}

void mw_leak_find_kind(struct mw_leak_kind_found *out, struct mw_reader *reader,
		       const char *pid, const char *process, const struct mw_leak_result *r,
		       int64_t from, int64_t to, int64_t step)
{
	size_t s;

	memset(out, 0, sizeof(*out));
	for (s = 0; pid && s < MW_ARRAY_SIZE(kind_sources); s++)
		if (kind_of_process(out, reader, &kind_sources[s], pid, process, r, from, to,
				    step) >= 0)
			return;
}

void mw_leak_find_shareable_kind(struct mw_leak_kind_found *out, struct mw_reader *reader,
				 const char *pid, const char *process,
				 const struct mw_leak_result *r, int64_t from, int64_t to,
				 int64_t step)
{
	memset(out, 0, sizeof(*out));
	if (pid)
		kind_of_process(out, reader, &shareable_source, pid, process, r, from, to, step);
}

/* The selector of a source's series of every incarnation named process:
 * the group selector with the source's extra matchers inside it. */
static void group_source_selector(char *sel, size_t size, const struct kind_source *src,
				  const char *process)
{
	size_t n;

	mw_leak_group_selector(sel, size, src->metric, process);
	n = strlen(sel);
	if (n > 0 && *src->extra)
		snprintf(sel + n - 1, size - (n - 1), "%s}", src->extra);
}

void mw_leak_find_group_kind(struct mw_leak_kind_found *out, struct mw_reader *reader,
			     const char *process, bool shareable, const struct mw_leak_result *r,
			     int64_t from, int64_t to, int64_t step)
{
	char sel[512];
	size_t s;

	memset(out, 0, sizeof(*out));
	if (!process)
		return;
	if (shareable) {
		group_source_selector(sel, sizeof(sel), &shareable_source, process);
		kind_from_source(out, reader, &shareable_source, sel, true, r, from, to, step);
		return;
	}
	for (s = 0; s < MW_ARRAY_SIZE(kind_sources); s++) {
		group_source_selector(sel, sizeof(sel), &kind_sources[s], process);
		if (kind_from_source(out, reader, &kind_sources[s], sel, true, r, from, to, step) >= 0)
			return;
	}
}
