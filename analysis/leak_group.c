/*
 * leak_group.c - the verdict of a group: every incarnation of one image
 * name in the range (pid + start time), judged one at a time so that a
 * group of tens of thousands of short-lived incarnations (a build agent's
 * `sleep`) costs memory bounded by one trace and the common axis.
 *
 * Each incarnation is judged on its own (leak.c); the group also sums the
 * floors of the incarnations alive in each bucket, and judges that total
 * when instances were only ever added (a worker started every 20 minutes
 * that never exits), or when the same ones ran throughout and those that
 * did not fail passed without a rise (a pool whose workers each keep a
 * little).  The group's figures are those of its steepest failing
 * incarnation (the sum of those alive at the end when several fail; the
 * pool's total when that is surely more), else of the total.
 *
 * Owner: the detector work.  Callers: analysis/leak_report.c (streaming:
 * mw_leak_group_begin/add/count/end) and the tests (mw_leak_judge_group).
 */
#include "leak_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A pool's total is reported instead of its failing incarnations' rates
 * when its lower bound is this many times theirs (pool_beyond_its_fails). */
#define POOL_BEYOND_FAILS 1.5

/* The common axis must stay a small multiple of the data (a trace far in
 * the future must not make the total allocate gigabytes). */
#define GROUP_MAX_BUCKETS 10000000

void mw_leak_group_begin(struct mw_leak_group *g, const struct mw_leak_params *p, int64_t t0_ms,
			 int64_t step_ms, size_t nb)
{
	memset(g, 0, sizeof(*g));
	mw_leak_params_sane(p, &g->params);
	g->t0_ms = t0_ms;
	g->step_ms = step_ms;
	g->nb = nb;
	g->best = -1;
	if (step_ms > 0 && nb > 0 && nb <= GROUP_MAX_BUCKETS) {
		g->sum = calloc(nb, sizeof(*g->sum));
		g->alive = calloc(nb, sizeof(*g->alive));
		g->valid = calloc(nb, sizeof(*g->valid));
		if (!g->sum || !g->alive || !g->valid) {
			free(g->sum);
			free(g->alive);
			free(g->valid);
			g->sum = NULL;
			g->alive = g->valid = NULL;
		}
	}
}

void mw_leak_group_count(struct mw_leak_group *g, int64_t first_ms, int64_t last_ms, int ended,
			 struct mw_leak_result *out)
{
	char d[32];

	g->counted_only++;
	g->ninc++;
	g->ninconclusive++;
	if (ended)
		g->nended++;
	if (!out)
		return;
	mw_leak_result_reset(out);
	out->first_ms = first_ms;
	out->last_ms = last_ms;
	mw_leak_fmt_duration(d, sizeof(d), (double)(last_ms - first_ms));
	snprintf(out->reason, sizeof(out->reason), "too little data: lived %s in the range", d);
}

void mw_leak_group_add(struct mw_leak_group *g, const struct mw_trace *tr, struct mw_leak_result *out)
{
	struct mw_leak_result tmp, *r = out ? out : &tmp;

	mw_leak_judge(tr, &g->params, r);
	mw_leak_group_add_judged(g, tr, r);
}

/* Adds a failing incarnation's figures to the sum of those alive at the
 * end (a figure one of them lacks leaves the sum's NaN). */
static void add_alive_fail(struct mw_leak_group *g, const struct mw_leak_result *r)
{
	struct mw_leak_result *a = &g->alive_sum;

	if (g->nfail_alive++ == 0) {
		*a = *r;
		return;
	}
	a->slope_bph += r->slope_bph;
	a->slope_lo_bph += r->slope_lo_bph;
	a->slope_hi_bph += r->slope_hi_bph;
	a->growth_bytes += r->growth_bytes;
	a->projected_bytes += r->projected_bytes;
}

/* Whether tr ends more than a bucket before the group's axis does. */
static bool ended_before_axis(const struct mw_leak_group *g, const struct mw_trace *tr,
			      size_t last)
{
	return tr->t0_ms / tr->step_ms + (int64_t)last + 2 < g->t0_ms / g->step_ms + (int64_t)g->nb;
}

void mw_leak_group_add_judged(struct mw_leak_group *g, const struct mw_trace *tr,
			      const struct mw_leak_result *r)
{
	size_t first, last;
	int64_t off;
	bool has_data = tr && tr->v && tr->n > 0 && tr->step_ms > 0;

	for (first = 0; has_data && first < tr->n && !mw_leak_valid_value(tr->v[first]); first++)
		;
	has_data = has_data && first < tr->n;
	for (last = has_data ? tr->n - 1 : 0; has_data && !mw_leak_valid_value(tr->v[last]); last--)
		;
	if (g->ninc == 0)
		g->first_r = *r;
	g->ninc++;
	if (r->bounded)
		g->nbounded++;
	if (r->trended && r->verdict != MW_VERDICT_FAIL)
		g->nrose_unfailed++;
	if (r->verdict == MW_VERDICT_FAIL) {
		if (g->nfail == 0 || r->slope_bph > g->best_r.slope_bph) {
			g->best_r = *r;
			g->best = (long)(g->ninc - 1);
		}
		g->nfail++;
		if (has_data && tr->step_ms == g->step_ms && !ended_before_axis(g, tr, last))
			add_alive_fail(g, r);
	} else if (r->verdict == MW_VERDICT_INCONCLUSIVE) {
		g->ninconclusive++;
		if (r->unbounded)
			g->nunbounded++;
		if (r->undecided && g->nnoisy++ == 0)
			g->noisy_r = *r;
		if (r->first_ms != INT64_MIN && r->last_ms != INT64_MIN &&
		    (!g->have_longest ||
		     r->last_ms - r->first_ms > g->longest_r.last_ms - g->longest_r.first_ms)) {
			g->longest_r = *r;
			g->have_longest = 1;
		}
	}
	if (!tr || !tr->v || tr->n == 0)
		return;
	if (tr->step_ms != g->step_ms) {
		g->axis_bad = 1;
		return;
	}
	if (!has_data)
		return;
	/* ended: its last point is more than a bucket before the axis ends */
	if (ended_before_axis(g, tr, last))
		g->nended++;
	if (!g->sum)
		return;
	/* rounded to the common axis */
	if (tr->t0_ms < g->t0_ms - g->step_ms * (int64_t)GROUP_MAX_BUCKETS ||
	    tr->t0_ms > g->t0_ms + g->step_ms * (int64_t)GROUP_MAX_BUCKETS) {
		g->axis_bad = 1;
		return;
	}
	off = (tr->t0_ms - g->t0_ms + g->step_ms / 2) / g->step_ms;
	mw_leak_sum_floors(g->sum, g->alive, g->valid, g->nb, tr->v, tr->n, off);
}

void mw_leak_sum_floors(double *sum, uint32_t *alive, uint32_t *valid, size_t nb,
			const double *v, size_t n, int64_t off)
{
	size_t first, last, j;
	double lastv = NAN;

	for (first = 0; first < n && !mw_leak_valid_value(v[first]); first++)
		;
	if (first == n)
		return;
	for (last = n - 1; !mw_leak_valid_value(v[last]); last--)
		;
	for (j = first; j <= last; j++) {
		int64_t b = off + (int64_t)j;

		if (mw_leak_valid_value(v[j]))
			lastv = v[j];
		if (b < 0)
			continue;
		if (b >= (int64_t)nb)
			break;
		if (valid && mw_leak_valid_value(v[j]))
			valid[b]++;
		sum[b] += lastv;	/* a gap inside an incarnation keeps its last floor */
		alive[b]++;
	}
}

/* The total can only accumulate instances when more are alive at the
 * end than at the start; with the same ones throughout it is judged too,
 * but decides only when each passed on its own (judge_total).  Two more at
 * least: one more is a second instance started (a second JVM of the same
 * name, run beside the first: its whole memory and its heap's sizing read
 * as the total "rising 670 MiB/h"), not yet workers accumulating. */
static long more_alive_at_end(const struct mw_leak_group *g)
{
	size_t b, first = g->nb, last = g->nb;

	for (b = 0; b < g->nb; b++)
		if (g->alive[b]) {
			if (first == g->nb)
				first = b;
			last = b;
		}
	return first < g->nb ? (long)g->alive[last] - (long)g->alive[first] : 0;
}

/* Whether a group of the same incarnations throughout has its total
 * judged: two or more, one at least not failing, and each that did not
 * fail passing on its own without a rise (or seeing none, only unable to
 * bound one yet: leak.c unbounded_rise).  A pool whose workers each keep
 * a little (recorded, the pools set: four keeping 0.4 MiB/h each, every
 * one passing "no steady trend") grows by their rates together; the total
 * decides when none fails (decided_by_total), and says what the pool
 * keeps when one fails alone now and then (at 38 and 42-43 minutes one of
 * them did, "incarnation 5 of 5: rising 553 KiB/h", a third of the pool's
 * rate: decided_by_incarnation).  Not when one passed by a later look's
 * bound (JVMs filling the heaps they committed, each "growing inside its
 * Java heap") or by the shape of its rise ("stopped rising" after sizing
 * its heap: two JVMs sizing at different times): their sum would know
 * neither. */
static bool unfailed_passed_without_rise(const struct mw_leak_group *g)
{
	return g->ninc >= 2 && g->nfail < g->ninc && g->ninconclusive == g->nunbounded &&
	       g->nbounded == 0 && g->nrose_unfailed == 0;
}

/* The group's total, judged only while no incarnation ended: workers
 * added one by one that never exit accumulate, while a name whose
 * instances come and go (shells, compilers, a build agent's sleep) has a
 * total that follows how many happen to be alive, no leak.  Else the
 * total is inconclusive with the reason it was not judged. */
static void judge_total(struct mw_leak_group *g, struct mw_leak_result *total)
{
	struct mw_trace tt;
	size_t b;
	long more;

	mw_leak_result_reset(total);
	if (g->ninc == 0) {
		snprintf(total->reason, sizeof(total->reason), "no incarnations");
	} else if (g->nended > 0) {
		snprintf(total->reason, sizeof(total->reason), "%zu of them ended", g->nended);
	} else if (g->axis_bad) {
		snprintf(total->reason, sizeof(total->reason), "incarnations on different steps or times");
	} else if (!g->sum) {
		snprintf(total->reason, sizeof(total->reason), "no common time axis for the total");
	} else if ((more = more_alive_at_end(g)) < 1 && !unfailed_passed_without_rise(g)) {
		snprintf(total->reason, sizeof(total->reason), "the same %zu throughout", g->ninc);
	} else if (more == 1) {
		snprintf(total->reason, sizeof(total->reason),
			 "one more alive at the end than at the start: a second instance, not "
			 "workers accumulating");
	} else {
		/* workers added, or a pool each passing without a rise */
		g->total_same = more < 1;
		for (b = 0; b < g->nb; b++)
			if (!g->alive[b] || !g->valid[b])
				g->sum[b] = NAN;
		tt.t0_ms = g->t0_ms;
		tt.step_ms = g->step_ms;
		tt.v = g->sum;
		tt.n = g->nb;
		mw_leak_judge(&tt, &g->params, total);
	}
}

/* A pool whose other incarnations passed without a rise of their own
 * (unfailed_passed_without_rise) and whose total fails at a rate surely
 * half as much again as its failing ones add up to (the total's lower
 * bound) keeps more than they do: the group's figures and onset are the
 * total's, its reason says so before what failed alone.  One leaking
 * worker among quiet ones keeps its own figures: recorded (lk_poolone,
 * 6 MiB/h), the others' heaps crept +0.5 MiB over 37 minutes (glibc's
 * top under a churn, most of it early), so the total rose 7.0 MiB/h
 * against the worker's 6.4, its lower bound above 6.4: no pool keeping
 * more, and the worker's own rate is the one to act on. */
static void pool_beyond_its_fails(const struct mw_leak_group *g,
				  const struct mw_leak_result *total,
				  struct mw_leak_group_result *out)
{
	char tmp[MW_LEAK_REASON_MAX], rate[32];

	if (!g->total_same || total->verdict != MW_VERDICT_FAIL ||
	    !(total->slope_lo_bph > POOL_BEYOND_FAILS * out->r.slope_bph))
		return;
	out->pool_total = 1;
	out->r.slope_bph = total->slope_bph;
	out->r.slope_lo_bph = total->slope_lo_bph;
	out->r.slope_hi_bph = total->slope_hi_bph;
	out->r.growth_bytes = total->growth_bytes;
	out->r.projected_bytes = total->projected_bytes;
	/* since when the pool keeps more, not when the one worker that
	 * failed alone took its last step (recorded: 17 minutes in, the
	 * pool's total rising from the start) */
	out->r.onset_ms = total->onset_ms;
	mw_leak_fmt_amount(rate, sizeof(rate), total->slope_bph, &g->params);
	snprintf(tmp, sizeof(tmp), "%zu incarnations rising %s/h together; alone, %s", g->ninc,
		 rate, out->r.reason);
	memcpy(out->r.reason, tmp, sizeof(tmp));
}

/* A failing incarnation decides: the steepest, named by its place.  When
 * several alive at the end fail (a pool whose workers all leak), the
 * group grows by their rates together: its figures are their sums, and
 * the reason says how many and the sum before the steepest's words; the
 * onset and kind stay the steepest's.  Recorded (the pools set, session
 * 26): four workers keeping 1.5 MiB/h each read "incarnation 5 of 5:
 * rising 1.8 MiB/h" at 30 minutes, under a third of what the pool kept.
 * The deciding incarnation is named by its series in the report. */
static void decided_by_incarnation(const struct mw_leak_group *g,
				   const struct mw_leak_result *total,
				   struct mw_leak_group_result *out)
{
	char tmp[MW_LEAK_REASON_MAX], rate[32];

	out->r = g->best_r;
	out->steepest = g->best_r;
	out->deciding_incarnation = (int)g->best;
	if (g->nfail_alive < 2) {
		snprintf(tmp, sizeof(tmp), "incarnation %ld of %zu: %s", g->best + 1, g->ninc,
			 out->r.reason);
	} else {
		out->r.slope_bph = g->alive_sum.slope_bph;
		out->r.slope_lo_bph = g->alive_sum.slope_lo_bph;
		out->r.slope_hi_bph = g->alive_sum.slope_hi_bph;
		out->r.growth_bytes = g->alive_sum.growth_bytes;
		out->r.projected_bytes = g->alive_sum.projected_bytes;
		mw_leak_fmt_amount(rate, sizeof(rate), out->r.slope_bph, &g->params);
		snprintf(tmp, sizeof(tmp), "%zu of %zu incarnations rising, %s/h together; "
			 "the steepest: %s", g->nfail_alive, g->ninc, rate, g->best_r.reason);
	}
	memcpy(out->r.reason, tmp, sizeof(tmp));
	pool_beyond_its_fails(g, total, out);
}

/* None could be judged: what is missing, said by the longest incarnation
 * while it still runs, else by the warm-up and duration none lived. */
static void inconclusive_reason(const struct mw_leak_group *g, const struct mw_leak_result *total,
				char *tmp, size_t size)
{
	char w[32], d[32];

	mw_leak_fmt_duration(w, sizeof(w), (double)g->params.warmup_ms);
	mw_leak_fmt_duration(d, sizeof(d), (double)g->params.min_duration_ms);
	if (g->have_longest && g->longest_r.last_ms >= g->t0_ms + (int64_t)(g->nb - 2) * g->step_ms)
		snprintf(tmp, size, "%zu incarnations, the longest: %s", g->ninc, g->longest_r.reason);
	else if (g->nended > 0)
		snprintf(tmp, size, "%zu incarnations, none lived long enough to judge (warm-up %s + %s)",
			 g->ninc, w, d);
	else
		snprintf(tmp, size, "%zu incarnations, none judged yet; total: %s", g->ninc,
			 total->reason);
}

/* No incarnation fails: the total decides when it fails; when one was too
 * noisy to judge, or none could be judged, the group is inconclusive;
 * else it passes, without the figures of a total that was not judged, or
 * passed. */
static void decided_by_total(const struct mw_leak_group *g, const struct mw_leak_result *total,
			     struct mw_leak_group_result *out)
{
	char tmp[MW_LEAK_REASON_MAX];

	out->r = *total;
	if (g->total_same && (total->verdict == MW_VERDICT_FAIL ||
			      (total->verdict == MW_VERDICT_INCONCLUSIVE && total->undecided))) {
		/* a pool's total that fails, or rises without being sure yet
		 * (not a pass: "none growing; total: rising about 2.2 MiB/h"
		 * read as its own contradiction) */
		snprintf(tmp, sizeof(tmp), "%zu incarnations together, none failing alone: %s",
			 g->ninc, total->reason);
	} else if (total->verdict == MW_VERDICT_FAIL) {
		snprintf(tmp, sizeof(tmp), "group total of %zu incarnations, none ended: %s", g->ninc,
			 total->reason);
	} else if (g->nnoisy > 0) {
		/* judged, and it could hide a leak: not a pass on the quiet ones */
		out->r = g->noisy_r;
		snprintf(tmp, sizeof(tmp), "%zu of %zu incarnations: %s", g->nnoisy, g->ninc,
			 g->noisy_r.reason);
	} else if (g->ninconclusive == g->ninc &&
		   (g->nended > 0 || total->verdict == MW_VERDICT_INCONCLUSIVE)) {
		out->r.verdict = MW_VERDICT_INCONCLUSIVE;
		inconclusive_reason(g, total, tmp, sizeof(tmp));
	} else {
		out->r.verdict = MW_VERDICT_PASS;
		out->r.growth_bytes = NAN;
		out->r.projected_bytes = 0.0;
		if (g->nended > 0) {
			out->r.slope_bph = out->r.slope_lo_bph = out->r.slope_hi_bph = NAN;
			snprintf(tmp, sizeof(tmp), "%zu incarnations, none growing", g->ninc);
		} else {
			snprintf(tmp, sizeof(tmp), "%zu incarnations, none growing; total: %s", g->ninc,
				 total->reason);
		}
	}
	memcpy(out->r.reason, tmp, sizeof(tmp));
}

void mw_leak_group_end(struct mw_leak_group *g, struct mw_leak_group_result *out)
{
	struct mw_leak_result total;

	memset(out, 0, sizeof(*out));
	mw_leak_result_reset(&out->r);
	out->deciding_incarnation = -1;
	judge_total(g, &total);
	out->total_failed = total.verdict == MW_VERDICT_FAIL;
	out->nfail = g->nfail;
	out->nfail_alive = g->nfail_alive;
	if (g->ninc == 1 && g->ninconclusive + g->nfail < 2 && !g->counted_only) {
		/* one incarnation: no group to speak of */
		out->r = g->first_r;
		out->deciding_incarnation = g->nfail ? 0 : -1;
	} else if (g->nfail > 0) {
		decided_by_incarnation(g, &total, out);
	} else {
		decided_by_total(g, &total, out);
	}
	free(g->sum);
	free(g->alive);
	free(g->valid);
	g->sum = NULL;
	g->alive = g->valid = NULL;
}

void mw_leak_judge_group(const struct mw_trace *inc, size_t ninc,
			 const struct mw_leak_params *p,
			 struct mw_leak_result *inc_out,
			 struct mw_leak_group_result *group_out)
{
	struct mw_leak_group g;
	int64_t step = 0, tmin = INT64_MAX, tmax = INT64_MIN;
	size_t i, nb = 0;

	if (!group_out)
		return;
	for (i = 0; inc && i < ninc; i++) {
		if (!inc[i].v || inc[i].n == 0 || inc[i].step_ms <= 0)
			continue;
		if (!step)
			step = inc[i].step_ms;
		if (inc[i].t0_ms < tmin)
			tmin = inc[i].t0_ms;
		if (inc[i].n < (size_t)GROUP_MAX_BUCKETS && inc[i].t0_ms < INT64_MAX / 4 &&
		    inc[i].t0_ms > INT64_MIN / 4 &&
		    inc[i].t0_ms + (int64_t)inc[i].n * inc[i].step_ms > tmax)
			tmax = inc[i].t0_ms + (int64_t)inc[i].n * inc[i].step_ms;
	}
	if (step > 0 && tmax > tmin && (tmax - tmin) / step < GROUP_MAX_BUCKETS)
		nb = (size_t)((tmax - tmin + step - 1) / step);
	mw_leak_group_begin(&g, p, nb ? tmin : 0, step, nb);
	for (i = 0; inc && i < ninc; i++)
		mw_leak_group_add(&g, &inc[i], inc_out ? &inc_out[i] : NULL);
	mw_leak_group_end(&g, group_out);
	if (!inc || ninc == 0)
		snprintf(group_out->r.reason, sizeof(group_out->r.reason), "no incarnations");
}
