/*
 * leak_kind.c - which kind of memory carries a growth: given the floors
 * of each kind of one process (heap, private data, stacks, mapped files,
 * image ...) over a judged span, the kind whose own Theil-Sen slope
 * explains the most of the judged slope (at least a third of it).
 *
 * Owner: the detector work.  Caller: analysis/leak_report.c (the "kind"
 * of a failing group whose process has the finer series).
 */
#include "leak_internal.h"
#include "robust_stats.h"

#include <stdint.h>

/* Theil-Sen slope (bytes/h) of a trace's valid floors in [from, to]. */
static double trace_slope(const struct mw_trace *tr, int64_t from, int64_t to)
{
	struct mw_leak_work w;
	size_t i, n = 0;
	double slope = NAN;
	struct mw_ts_fit fit;

	if (!tr || !tr->v || tr->n == 0 || tr->step_ms <= 0)
		return NAN;
	if (from == INT64_MIN)
		from = tr->t0_ms;
	if (mw_leak_work_alloc(&w, tr->n) < 0) {
		mw_leak_work_free(&w);
		return NAN;
	}
	for (i = 0; i < tr->n; i++) {
		double t = (double)tr->t0_ms + (double)i * (double)tr->step_ms;

		if (t < (double)from || t > (double)to || !mw_leak_valid_value(tr->v[i]))
			continue;
		w.x[n] = t - (double)from;
		w.y[n] = tr->v[i];
		n++;
	}
	if (n >= 3) {
		size_t m = mw_block_medians(w.x, w.y, n, MW_LEAK_MAX_POINTS, w.a, w.rx, w.ry);

		mw_ts_fit(w.rx, w.ry, m, 1.0, MW_TS_SLOPE_ONLY, w.pairs, &fit);
		if (fit.ok)
			slope = fit.slope * HOUR_MS;
	}
	mw_leak_work_free(&w);
	return slope;
}

int mw_leak_kind(const struct mw_trace *kinds, size_t nkinds,
		 const struct mw_leak_result *r, double *shares_out)
{
	int64_t from = INT64_MIN, to = INT64_MAX;
	size_t k;
	int best = -1;
	double bs = -INFINITY;

	if (r) {
		if (r->onset_ms != INT64_MIN)
			from = r->onset_ms;
		else if (r->judged_from_ms != INT64_MIN)
			from = r->judged_from_ms;
		if (r->last_ms != INT64_MIN)
			to = r->last_ms;
	}
	for (k = 0; k < nkinds; k++) {
		double s = kinds ? trace_slope(&kinds[k], from, to) : NAN;

		if (shares_out)
			shares_out[k] = s;
		if (isfinite(s) && s > bs) {
			bs = s;
			best = (int)k;
		}
	}
	if (!r || !isfinite(r->slope_bph) || r->slope_bph <= 0)
		return -1;
	if (best < 0 || !(bs >= r->slope_bph / 3.0))
		return -1;
	return best;
}
