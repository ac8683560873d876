/*
 * leak_params.c - the vocabulary every leak judgement shares: the names
 * and order of verdicts, the parameters' defaults and their checks, and
 * the empty (inconclusive) result a judgement starts from.
 *
 * Owner: the detector work.  Callers: every analysis/leak*.c file (through
 * leak_internal.h), the check command, the web API and the judge service
 * (mw_verdict_name, mw_verdict_rank, mw_leak_params_init via leak.h).
 */
#include "leak_internal.h"

#include <math.h>
#include <string.h>

/* Anything else reads as inconclusive: it is neither a pass nor a fail. */
const char *mw_verdict_name(enum mw_verdict v)
{
	return v == MW_VERDICT_PASS ? "pass" : v == MW_VERDICT_FAIL ? "fail" : "inconclusive";
}

int mw_verdict_rank(enum mw_verdict v)
{
	return v == MW_VERDICT_PASS ? 0 : v == MW_VERDICT_FAIL ? 2 : 1;
}

/*
 * Defaults, and why:
 *   warm-up 10 min: JIT, pools and caches of most services settle in it
 *     (questdb uses 600 s); longer warm-ups are the user's to set;
 *   minimum judged duration 20 min: the tail check needs a tail of at
 *     least a few points and a quarter of the span;
 *   coverage 0.8: Coroot's completeness gate;
 *   64 KiB/h absolute: 1.5 MiB a day, below what anyone sizes for, yet
 *     above what allocator noise makes of a flat process over hours;
 *   relative off: a percentage punishes small processes (Coroot notes);
 *   horizon 24 h: the usual soak length, "+X MiB per day".
 */
void mw_leak_params_init(struct mw_leak_params *p)
{
	if (!p)
		return;
	p->warmup_ms = 10 * 60000;
	p->min_duration_ms = 20 * 60000;
	p->min_coverage = 0.8;
	p->budget_bytes_per_hour = 64.0 * 1024.0;
	p->budget_rel_per_hour = 0.0;
	p->horizon_ms = 24 * 3600000LL;
	p->count_unit = NULL;
	p->budget_count_per_hour = 10.0;
	p->exit_max_bytes = 0;
	p->holes = NULL;
	p->nholes = 0;
	p->onset_unknown = 0;
	p->process_start_ms = INT64_MIN;
}
int mw_leak_seen_late(int64_t process_start_ms, int64_t first_ms, int64_t step_ms)
{
	return process_start_ms != INT64_MIN &&
	       first_ms - process_start_ms >= MW_LEAK_SEEN_LATE_MS + step_ms;
}

/* A service that has run for days before memwatch (or before the range a
 * CI gate asks for) is warm: judged over `--from -25m`, its every check
 * read "too little data after warm-up" however long it had run. */
int64_t mw_leak_warmup_left(const struct mw_leak_params *p, int64_t process_start_ms,
			    int64_t first_ms, int64_t step_ms)
{
	int64_t left;

	if (!mw_leak_seen_late(process_start_ms, first_ms, step_ms))
		return p->warmup_ms;
	left = process_start_ms + p->warmup_ms - first_ms;
	return left < 0 ? 0 : left < p->warmup_ms ? left : p->warmup_ms;
}

void mw_leak_result_reset(struct mw_leak_result *out)
{
	memset(out, 0, sizeof(*out));
	out->verdict = MW_VERDICT_INCONCLUSIVE;
	out->slope_bph = out->slope_lo_bph = out->slope_hi_bph = NAN;
	out->growth_bytes = NAN;
	out->projected_bytes = 0.0;
	out->level_bytes = NAN;
	out->onset_ms = INT64_MIN;
	out->first_ms = out->last_ms = INT64_MIN;
	out->judged_from_ms = INT64_MIN;
	out->coverage = 0.0;
	out->p_value = NAN;
	out->fit_t0_ms = INT64_MIN;
	out->fit_value0 = NAN;
	out->detectable_bph = NAN;
	out->undecided = 0;
	out->unbounded = 0;
}

void mw_leak_params_sane(const struct mw_leak_params *in, struct mw_leak_params *p)
{
	mw_leak_params_init(p);
	if (!in)
		return;
	if (in->warmup_ms >= 0)
		p->warmup_ms = in->warmup_ms;
	if (in->min_duration_ms >= 0)
		p->min_duration_ms = in->min_duration_ms;
	if (in->min_coverage >= 0.0 && in->min_coverage <= 1.0)
		p->min_coverage = in->min_coverage;
	if (in->budget_bytes_per_hour >= 0.0 && isfinite(in->budget_bytes_per_hour))
		p->budget_bytes_per_hour = in->budget_bytes_per_hour;
	if (in->budget_rel_per_hour >= 0.0 && isfinite(in->budget_rel_per_hour))
		p->budget_rel_per_hour = in->budget_rel_per_hour;
	if (in->horizon_ms >= 0)
		p->horizon_ms = in->horizon_ms;
	p->count_unit = in->count_unit;
	p->onset_unknown = in->onset_unknown;
	/* 0 (a caller's zeroed struct) is no start time */
	p->process_start_ms = in->process_start_ms > 0 ? in->process_start_ms : INT64_MIN;
	if (in->budget_count_per_hour >= 0.0 && isfinite(in->budget_count_per_hour))
		p->budget_count_per_hour = in->budget_count_per_hour;
	if (in->holes && in->nholes) {
		p->holes = in->holes;
		p->nholes = in->nholes;
	}
}
