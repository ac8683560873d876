/*
 * leak_report_group.c - one group of the report (every series of one
 * process name): each aspect judged (leak_report_read.c), their verdicts
 * combined into the group's, and the group written as JSON and as the
 * structure the judge service publishes.
 *
 * Owner: the detector work.  Caller: leak_report.c.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "exit_check.h"
#include "leak_report_internal.h"

int mw_leak_cmp_judged(const void *a, const void *b)
{
	const struct mw_leak_judged_group *x = a, *y = b;
	int rx = mw_verdict_rank(x->verdict), ry = mw_verdict_rank(y->verdict);
	double sx = isnan(x->slope) ? -INFINITY : x->slope;
	double sy = isnan(y->slope) ? -INFINITY : y->slope;

	/* failures first, then the watched processes (the soak's subject),
	 * then the steepest */
	if (rx != ry && (rx == 2 || ry == 2))
		return ry - rx;
	if (x->watched != y->watched)
		return x->watched ? -1 : 1;
	if (rx != ry)
		return ry - rx;
	return sx < sy ? 1 : sx > sy ? -1 : 0;
}

static void add_aspect_summary(struct mw_jw *w, const char *name, const char *unit,
			       const struct mw_leak_aspect_result *ar)
{
	const struct mw_leak_result *r = &ar->g.r;

	mw_jw_object(w, name);
	mw_jw_str(w, "verdict", mw_verdict_name(r->verdict));
	mw_jw_str(w, "unit", unit ? unit : "bytes");
	mw_jw_double(w, "slope_per_hour", r->slope_bph);
	mw_leak_json_ts(w, "onset_ms", r->onset_ms);
	mw_jw_bool(w, "onset_before_data", r->onset_before_data != 0);
	mw_jw_double(w, "growth", r->growth_bytes);
	mw_jw_double(w, "level", r->level_bytes);
	mw_jw_str(w, "reason", r->reason);
	mw_jw_end(w);
}

/* Judge each aspect of the group e[0..n) (sorted by aspect) into ar; the
 * largest floor read of any byte aspect into *max_bytes (-1: none). */
static int judge_aspects(struct mw_reader *reader, struct mw_leak_entry *e, size_t n,
			 const struct mw_leak_aspect *aspects, const struct mw_leak_query *q,
			 int64_t from, int64_t to, int64_t step, struct mw_leak_aspect_result *ar,
			 double *max_bytes, struct mw_err *err)
{
	size_t i, j, a;

	*max_bytes = -1;
	for (i = 0; i < n; i = j) {
		struct mw_leak_params params = q->params;

		for (j = i + 1; j < n && e[j].aspect == e[i].aspect; j++)
			;
		a = e[i].aspect;
		params.count_unit = aspects[a].unit;
		if (mw_leak_judge_aspect(reader, e + i, j - i, &params, from, to, step,
					 aspects[a].look, &ar[a], err))
			return -1;
		if (!aspects[a].unit && ar[a].max_value > *max_bytes)
			*max_bytes = ar[a].max_value;
	}
	return 0;
}

/* An aspect judged inconclusive because its points wander too much to
 * see a growth that matters, or rise in too few steps to fit a rate
 * (leak.c, undecided): it was judged, and its data cannot exclude a leak. */
static bool undecided(const struct mw_leak_aspect_result *a)
{
	return a->present && a->g.r.verdict == MW_VERDICT_INCONCLUSIVE && a->g.r.undecided;
}

/* One verdict: fail when an aspect fails; inconclusive when one is
 * undecided (a quiet shared-memory series that passes must not pass
 * a process whose private memory could hide a leak); pass when one
 * passes; inconclusive when none could be judged.  Its figures and reason
 * are those of the first aspect (private memory first, counts last) with
 * that verdict, so no reason contradicts it; for a pass the first whose
 * growth a bound explained ("reading through files it had mapped before"
 * says why the resident set rose; "flat" of private memory would not).
 * Returns that aspect, naspects when none is present. */
static size_t deciding_aspect(const struct mw_leak_aspect_result *ar, size_t naspects,
			      enum mw_verdict *verdict)
{
	size_t a;
	bool unsure = false;

	*verdict = MW_VERDICT_INCONCLUSIVE;
	for (a = 0; a < naspects; a++) {
		if (!ar[a].present)
			continue;
		if (ar[a].g.r.verdict == MW_VERDICT_FAIL)
			*verdict = MW_VERDICT_FAIL;
		else if (ar[a].g.r.verdict == MW_VERDICT_PASS && *verdict != MW_VERDICT_FAIL)
			*verdict = MW_VERDICT_PASS;
		unsure = unsure || undecided(&ar[a]);
	}
	if (unsure && *verdict != MW_VERDICT_FAIL) {
		*verdict = MW_VERDICT_INCONCLUSIVE;
		for (a = 0; a < naspects; a++)
			if (undecided(&ar[a]))
				return a;
	}
	if (*verdict == MW_VERDICT_PASS)
		for (a = 0; a < naspects; a++)
			if (ar[a].present && ar[a].g.r.verdict == MW_VERDICT_PASS && ar[a].g.r.bounded)
				return a;
	for (a = 0; a < naspects; a++)
		if (ar[a].present && ar[a].g.r.verdict == *verdict)
			return a;
	return naspects;
}

/* The deciding incarnation's own figures: where the group's rate adds up
 * several (a pool's failing workers, or its total: leak_group.c), its
 * fit and kinds are still those of the one series the report names. */
static const struct mw_leak_result *deciding_own(const struct mw_leak_aspect_result *d)
{
	return d->deciding && d->g.r.verdict == MW_VERDICT_FAIL &&
			       (d->g.nfail_alive >= 2 || d->g.pool_total) ?
		       &d->g.steepest :
		       &d->g.r;
}

/* The kind a fail names: for private memory the finer kind where the
 * process has the series to tell (else the aspect's own), for the other
 * aspects their own; none (null) for a pass or an inconclusive.  The
 * deciding incarnation's kinds are weighed against its own rate, not
 * against a pool's rates summed (leak_group.c).  A fail that the group's
 * total decided (no incarnation failing alone) weighs every incarnation's
 * kinds summed against the total's rate: recorded (the pools set, session
 * 27), helpers forked one by one and four workers each keeping a little
 * of their heap were named only "private". */
static void group_kind(struct mw_leak_kind_found *k, struct mw_reader *reader,
		       const char *process, const struct mw_leak_aspect *aspect,
		       const struct mw_leak_aspect_result *d, enum mw_verdict verdict,
		       int64_t from, int64_t to, int64_t step)
{
	const struct mw_leak_result *r = deciding_own(d);
	bool by_total = verdict == MW_VERDICT_FAIL && !d->deciding && d->g.nfail == 0 &&
			d->g.total_failed;

	memset(k, 0, sizeof(*k));
	if (by_total && (aspect->refine || aspect->refine_shareable))
		mw_leak_find_group_kind(k, reader, process, aspect->refine_shareable, &d->g.r,
					from, to, step);
	else if (verdict == MW_VERDICT_FAIL && d->deciding && aspect->refine)
		mw_leak_find_kind(k, reader, mw_leak_label_of(d->deciding, "pid"),
				  mw_leak_label_of(d->deciding, "process"), r, from, to, step);
	else if (verdict == MW_VERDICT_FAIL && d->deciding && aspect->refine_shareable)
		mw_leak_find_shareable_kind(k, reader, mw_leak_label_of(d->deciding, "pid"),
					    mw_leak_label_of(d->deciding, "process"), r, from,
					    to, step);
	if (verdict == MW_VERDICT_FAIL && !k->kind)
		k->kind = aspect->kind;
}

/* The deciding aspect's incarnations, the best listed, all counted. */
static void add_incarnations(struct mw_jw *w, const struct mw_leak_aspect_result *d,
			     const struct mw_leak_params *params)
{
	size_t i;

	mw_jw_uint(w, "incarnations_total", d->ninc);
	mw_jw_uint(w, "incarnations_failing", d->g.nfail);
	mw_jw_array(w, "incarnations");
	for (i = 0; i < d->nlisted; i++) {
		const struct mw_series_info *s = d->list[i].s;

		mw_jw_object(w, NULL);
		mw_jw_str(w, "pid", mw_leak_label_of(s, "pid"));
		mw_jw_str(w, "started", mw_leak_label_of(s, "started"));
		mw_jw_str(w, "series", s->key);
		mw_jw_int(w, "series_id", s->id);
		mw_leak_json_result(w, &d->list[i].r, params);
		mw_leak_json_fit(w, &d->list[i].r);
		mw_jw_end(w);
	}
	mw_jw_end(w);
}

/* The group's verdict as the structure the judge service publishes, the
 * same figures as its JSON. */
static void fill_verdict(struct mw_leak_verdict *v, const char *process, bool watched,
			 enum mw_verdict verdict, const struct mw_leak_aspect *aspect,
			 const struct mw_leak_result *r, const char *kind)
{
	memset(v, 0, sizeof(*v));
	snprintf(v->process, sizeof(v->process), "%s", process);
	v->watched = watched;
	v->verdict = (int)verdict;
	snprintf(v->aspect, sizeof(v->aspect), "%s", aspect->name);
	snprintf(v->unit, sizeof(v->unit), "%s", aspect->unit ? aspect->unit : "bytes");
	if (kind)
		snprintf(v->kind, sizeof(v->kind), "%s", kind);
	v->slope_per_hour = r->slope_bph;
	v->growth = r->growth_bytes;
	v->projected = r->projected_bytes;
	v->onset_ms = r->onset_ms;
}

/* The group's JSON object into out: the deciding aspect's figures and
 * series, its kind, every aspect's summary, the listed incarnations, and
 * the failing exit leak report's reason when there is one. */
static void group_json(struct mw_jbuf *out, const char *process, bool watched,
		       const struct mw_leak_aspect *aspects, size_t naspects,
		       const struct mw_leak_aspect_result *ar, size_t deciding,
		       const struct mw_leak_kind_found *kind, const char *exit_reason,
		       const struct mw_leak_query *q)
{
	const struct mw_leak_aspect_result *d = &ar[deciding];
	struct mw_jw w;
	size_t a;

	mw_jw_init(&w, out);
	mw_jw_object(&w, NULL);
	mw_jw_str(&w, "process", process);
	mw_jw_bool(&w, "watched", watched);
	mw_leak_json_result(&w, &d->g.r, &q->params);
	mw_jw_str(&w, "aspect", aspects[deciding].name);
	mw_jw_str(&w, "unit", aspects[deciding].unit ? aspects[deciding].unit : "bytes");
	if (d->deciding) {
		mw_jw_str(&w, "series", d->deciding->key);
		mw_jw_int(&w, "series_id", d->deciding->id);
	} else {
		mw_jw_null(&w, "series");
		mw_jw_null(&w, "series_id");
	}
	mw_jw_bool(&w, "total_growing", d->g.total_failed != 0);
	/* the line over the series named, at its own rate */
	mw_leak_json_fit(&w, deciding_own(d));
	mw_leak_json_kind(&w, kind);
	mw_jw_object(&w, "aspects");
	for (a = 0; a < naspects; a++)
		if (ar[a].present)
			add_aspect_summary(&w, aspects[a].name, aspects[a].unit, &ar[a]);
	mw_jw_end(&w);
	add_incarnations(&w, d, &q->params);
	if (exit_reason)
		mw_jw_str(&w, "exit_leak_reason", exit_reason);
	mw_jw_end(&w);
}

int mw_leak_report_group(struct mw_reader *reader, struct mw_leak_entry *e, size_t n,
			 const struct mw_leak_aspect *aspects, size_t naspects,
			 const struct mw_leak_query *q, int64_t from, int64_t to, int64_t step,
			 bool watched, struct mw_exit_check *xc, struct mw_leak_judged_group *out,
			 bool *excluded, struct mw_err *err)
{
	struct mw_leak_aspect_result ar[MW_LEAK_NASPECTS];
	struct mw_leak_kind_found kind;
	struct mw_jbuf json;
	const char *exit_reason;
	size_t a, deciding;
	double max_bytes;
	int rc = -1;

	memset(ar, 0, sizeof(ar));
	*excluded = false;
	if (judge_aspects(reader, e, n, aspects, q, from, to, step, ar, &max_bytes, err))
		goto out;
	rc = 0;
	/* shared pages one member came to map that the group held already */
	for (a = 0; a < naspects; a++)
		if (aspects[a].held_by_group)
			mw_leak_bound_by_group(reader, &ar[a], e[0].group, &q->params, from, to, step);
	/* no memory at all: a kernel thread, a zombie */
	deciding = max_bytes == 0 ? naspects : deciding_aspect(ar, naspects, &out->verdict);
	if (deciding == naspects) {
		*excluded = true;
		goto out;
	}
	mw_leak_aspect_restore(reader, &ar[deciding]);
	group_kind(&kind, reader, e[0].group, &aspects[deciding], &ar[deciding], out->verdict, from,
		   to, step);
	exit_reason = xc ? mw_exit_check_reason(xc, e[0].group) : NULL;
	if (exit_reason && out->verdict != MW_VERDICT_FAIL) {
		/* the program's own heap check failed it: its verdict and reason */
		struct mw_leak_result *r = &ar[deciding].g.r;

		out->verdict = r->verdict = MW_VERDICT_FAIL;
		snprintf(r->reason, sizeof(r->reason), "%s", exit_reason);
		kind.kind = "exit leak";
	}
	mw_jbuf_init(&json);
	group_json(&json, e[0].group, watched, aspects, naspects, ar, deciding, &kind, exit_reason, q);
	out->json = mw_jbuf_detach(&json, &out->len);
	mw_jbuf_release(&json);
	out->slope = ar[deciding].g.r.slope_bph;
	out->watched = watched;
	fill_verdict(&out->v, e[0].group, watched, out->verdict, &aspects[deciding],
		     &ar[deciding].g.r, kind.kind);
out:
	for (a = 0; a < naspects; a++)
		mw_leak_aspect_result_release(&ar[a]);
	return rc;
}
