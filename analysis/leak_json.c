/*
 * leak_json.c - the figures of a leak result as JSON, the same for a
 * group and each of its incarnations: a figure that cannot be computed is
 * null, never NaN (which is no JSON), and "no onset" is null, not a
 * sentinel time.
 *
 * Owner: the detector work.  Callers: leak_report_group.c,
 * leak_report_kind.c and leak_report.c (leak_report_internal.h).
 */
#include <math.h>

#include "leak_report_internal.h"

void mw_leak_json_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

void mw_leak_json_ts(cJSON *o, const char *key, int64_t ts)
{
	if (ts == INT64_MIN || ts == INT64_MAX)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, (double)ts);
}

void mw_leak_json_str(cJSON *o, const char *key, const char *s)
{
	if (s)
		cJSON_AddStringToObject(o, key, s);
	else
		cJSON_AddNullToObject(o, key);
}

void mw_leak_json_result(cJSON *o, const struct mw_leak_result *r, const struct mw_leak_params *p)
{
	cJSON *ci;

	cJSON_AddStringToObject(o, "verdict", mw_verdict_name(r->verdict));
	mw_leak_json_num(o, "slope_bytes_per_hour", r->slope_bph);
	if (isfinite(r->slope_lo_bph) && isfinite(r->slope_hi_bph)) {
		ci = cJSON_AddArrayToObject(o, "slope_ci_bytes_per_hour");
		cJSON_AddItemToArray(ci, cJSON_CreateNumber(r->slope_lo_bph));
		cJSON_AddItemToArray(ci, cJSON_CreateNumber(r->slope_hi_bph));
	} else {
		cJSON_AddNullToObject(o, "slope_ci_bytes_per_hour");
	}
	mw_leak_json_ts(o, "onset_ms", r->onset_ms);
	mw_leak_json_num(o, "growth_bytes", r->growth_bytes);
	mw_leak_json_num(o, "projected_bytes", r->projected_bytes);
	cJSON_AddNumberToObject(o, "horizon_ms", (double)p->horizon_ms);
	mw_leak_json_num(o, "level_bytes", r->level_bytes);
	mw_leak_json_ts(o, "first_ms", r->first_ms);
	mw_leak_json_ts(o, "last_ms", r->last_ms);
	mw_leak_json_ts(o, "judged_from_ms", r->judged_from_ms);
	mw_leak_json_num(o, "coverage", r->coverage);
	mw_leak_json_num(o, "p_value", r->p_value);
	cJSON_AddStringToObject(o, "reason", r->reason);
}

void mw_leak_json_fit(cJSON *o, const struct mw_leak_result *r)
{
	cJSON *fit;

	if (r->fit_t0_ms == INT64_MIN || !isfinite(r->fit_value0) || !isfinite(r->slope_bph)) {
		cJSON_AddNullToObject(o, "fit");
		return;
	}
	fit = cJSON_AddObjectToObject(o, "fit");
	cJSON_AddNumberToObject(fit, "t0_ms", (double)r->fit_t0_ms);
	cJSON_AddNumberToObject(fit, "value0", r->fit_value0);
	cJSON_AddNumberToObject(fit, "slope_bytes_per_hour", r->slope_bph);
}
