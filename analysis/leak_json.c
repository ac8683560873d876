/*
 * leak_json.c - the figures of a leak result as JSON, the same for a
 * group and each of its incarnations: a figure that cannot be computed is
 * null, never NaN (which is no JSON), and "no onset" is null, not a
 * sentinel time.  Written with json_out's structure writer.
 *
 * Owner: the detector work.  Callers: leak_report_group.c and
 * leak_report.c (leak_report_internal.h).
 */
#include <math.h>

#include "leak_report_internal.h"

void mw_leak_json_ts(struct mw_jw *w, const char *key, int64_t ts)
{
	if (ts == INT64_MIN || ts == INT64_MAX)
		mw_jw_null(w, key);
	else
		mw_jw_int(w, key, ts);
}

void mw_leak_json_result(struct mw_jw *w, const struct mw_leak_result *r,
			 const struct mw_leak_params *p)
{
	mw_jw_str(w, "verdict", mw_verdict_name(r->verdict));
	mw_jw_double(w, "slope_bytes_per_hour", r->slope_bph);
	if (isfinite(r->slope_lo_bph) && isfinite(r->slope_hi_bph)) {
		mw_jw_array(w, "slope_ci_bytes_per_hour");
		mw_jw_double(w, NULL, r->slope_lo_bph);
		mw_jw_double(w, NULL, r->slope_hi_bph);
		mw_jw_end(w);
	} else {
		mw_jw_null(w, "slope_ci_bytes_per_hour");
	}
	mw_leak_json_ts(w, "onset_ms", r->onset_ms);
	/* the growth was under way at onset_ms already, the process having
	 * run before its first data there */
	mw_jw_bool(w, "onset_before_data", r->onset_before_data != 0);
	mw_jw_double(w, "growth_bytes", r->growth_bytes);
	mw_jw_double(w, "projected_bytes", r->projected_bytes);
	mw_jw_int(w, "horizon_ms", p->horizon_ms);
	mw_jw_double(w, "level_bytes", r->level_bytes);
	mw_leak_json_ts(w, "first_ms", r->first_ms);
	mw_leak_json_ts(w, "last_ms", r->last_ms);
	mw_leak_json_ts(w, "judged_from_ms", r->judged_from_ms);
	mw_jw_double(w, "coverage", r->coverage);
	mw_jw_double(w, "p_value", r->p_value);
	/* inconclusive, too noisy: the smallest growth the data could show */
	mw_jw_double(w, "detectable_bytes_per_hour", r->detectable_bph);
	mw_jw_str(w, "reason", r->reason);
}

void mw_leak_json_fit(struct mw_jw *w, const struct mw_leak_result *r)
{
	if (r->fit_t0_ms == INT64_MIN || !isfinite(r->fit_value0) || !isfinite(r->slope_bph)) {
		mw_jw_null(w, "fit");
		return;
	}
	mw_jw_object(w, "fit");
	mw_jw_int(w, "t0_ms", r->fit_t0_ms);
	mw_jw_double(w, "value0", r->fit_value0);
	mw_jw_double(w, "slope_bytes_per_hour", r->slope_bph);
	mw_jw_end(w);
}

void mw_leak_json_kind(struct mw_jw *w, const struct mw_leak_kind_found *k)
{
	size_t i;

	mw_jw_str(w, "kind", k->kind);
	if (!k->source)
		return;
	mw_jw_str(w, "kind_source", k->source);
	mw_jw_object(w, "kinds_bytes_per_hour");
	for (i = 0; i < k->nk; i++)
		mw_jw_double(w, k->names[i], k->shares[i]);
	mw_jw_end(w);
}
