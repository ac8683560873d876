/*
 * leak_sparse.c - a trace whose samples are sparser than its buckets,
 * brought to the samples' own spacing before it is judged.
 *
 * A report picks its bucket step from the range (about 700 buckets), not
 * from how often the process was sampled: over the last two hours of a
 * daemon sampling every 2 minutes the step is 15 s, seven buckets in
 * eight hold no sample, and every process read "data mostly missing: 13
 * % of the buckets after warm-up" (so did a 10 s interval over any range
 * shorter than about an hour: 50 %).  Missing data is a gap in the
 * samples, not the spacing of samples that came on time: the buckets are
 * merged by the spacing their samples keep (mw_leak_sample_spacing), each
 * merged bucket the lowest value of its buckets, as a bucket's floor is
 * the lowest of its samples.
 *
 * Owner: the detector work.  Caller: leak.c (mw_leak_judge).  Pure.
 */
#include <stdint.h>
#include <stdlib.h>

#include "leak_internal.h"

/* Gaps longer than this many buckets are counted as this long: missing
 * data, not spacing, and a median never lands there unless most of the
 * trace is missing, which the coverage check then says. */
#define SPACING_MAX 64
/* Gaps needed before the spacing is trusted (a short trace keeps its
 * buckets and its coverage reason). */
#define SPACING_MIN_GAPS 8
/* Gaps within one bucket of the median, in percent, for a spacing: the
 * samples came on a clock. */
#define REGULAR_PERCENT 95

size_t mw_leak_sample_spacing(const struct mw_trace *tr)
{
	size_t count[SPACING_MAX + 1] = { 0 }, i, last = SIZE_MAX, ngaps = 0, seen = 0, g, med;
	size_t n = 0, sum = 0, within;

	for (i = 0; i < tr->n; i++) {
		if (isnan(tr->v[i]))
			continue;
		if (last != SIZE_MAX) {
			g = i - last;
			count[g < SPACING_MAX ? g : SPACING_MAX]++;
			ngaps++;
		}
		last = i;
	}
	if (ngaps < SPACING_MIN_GAPS)
		return 1;
	/* the median gap: the first length at which half the gaps are seen */
	for (med = 1; med < SPACING_MAX; med++) {
		seen += count[med];
		if (2 * seen >= ngaps)
			break;
	}
	/* regular: nearly every gap within one bucket of the median.  A
	 * trace that lost buckets at random (a daemon stalled now and then)
	 * has gaps of every length, and is missing data however it is cut:
	 * 70 % kept at random leaves 9 % of its gaps longer than 2 */
	within = count[med] + (med < SPACING_MAX ? count[med + 1] : 0) +
		 (med > 1 ? count[med - 1] : 0);
	if (100 * within < REGULAR_PERCENT * ngaps)
		return 1;
	/* the mean of the gaps up to twice that (longer ones are missing
	 * data): samples every 15 s in 10 s buckets leave gaps of 1 and 2
	 * in turn, whose median is either and whose mean, 1.5, says two
	 * buckets hold a sample each time */
	for (g = 1; g <= 2 * med && g <= SPACING_MAX; g++) {
		n += count[g];
		sum += g * count[g];
	}
	/* rounded up past a fifth: a tick skipped now and then (a mean of
	 * 1.05) is no spacing, a third of the gaps doubled (1.3, a coverage
	 * of 77 %) is */
	g = (size_t)ceil((double)sum / (double)n - 0.2);
	return g < 1 ? 1 : g;
}

double *mw_leak_merge_sparse(const struct mw_trace *tr, struct mw_trace *out)
{
	size_t g, nb, k, i;
	double *v;

	if (!tr || !tr->v || tr->n == 0 || tr->step_ms <= 0 ||
	    (g = mw_leak_sample_spacing(tr)) < 2 || tr->step_ms > INT64_MAX / (int64_t)g)
		return NULL;
	nb = (tr->n + g - 1) / g;
	if (!(v = malloc(nb * sizeof(*v))))
		return NULL;
	for (k = 0; k < nb; k++) {
		double lo = NAN, any = NAN;

		for (i = k * g; i < tr->n && i < (k + 1) * g; i++) {
			if (!mw_leak_valid_value(tr->v[i])) {
				/* a value out of range stays one, so the coverage
				 * reason still mentions it */
				if (!isnan(tr->v[i]))
					any = tr->v[i];
				continue;
			}
			if (!(lo <= tr->v[i]))
				lo = tr->v[i];
		}
		v[k] = isnan(lo) ? any : lo;
	}
	out->t0_ms = tr->t0_ms;
	out->step_ms = tr->step_ms * (int64_t)g;
	out->v = v;
	out->n = nb;
	return v;
}
