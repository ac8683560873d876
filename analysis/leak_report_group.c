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

static void add_aspect_summary(cJSON *aspects, const char *name, const char *unit,
			       const struct mw_leak_aspect_result *ar)
{
	cJSON *o = cJSON_AddObjectToObject(aspects, name);
	const struct mw_leak_result *r = &ar->g.r;

	cJSON_AddStringToObject(o, "verdict", mw_verdict_name(r->verdict));
	cJSON_AddStringToObject(o, "unit", unit ? unit : "bytes");
	mw_leak_json_num(o, "slope_per_hour", r->slope_bph);
	mw_leak_json_ts(o, "onset_ms", r->onset_ms);
	mw_leak_json_num(o, "growth", r->growth_bytes);
	mw_leak_json_num(o, "level", r->level_bytes);
	cJSON_AddStringToObject(o, "reason", r->reason);
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
		if (mw_leak_judge_aspect(reader, e + i, j - i, &params, from, to, step, &ar[a], err))
			return -1;
		if (!aspects[a].unit && ar[a].max_value > *max_bytes)
			*max_bytes = ar[a].max_value;
	}
	return 0;
}

/* One verdict: fail when an aspect fails, pass when one passes,
 * inconclusive when none could be judged; its figures and reason are
 * those of the first aspect (private memory first, counts last) with that
 * verdict, so no reason contradicts it.  Returns that aspect, naspects
 * when none is present. */
static size_t deciding_aspect(const struct mw_leak_aspect_result *ar, size_t naspects,
			      enum mw_verdict *verdict)
{
	size_t a;

	*verdict = MW_VERDICT_INCONCLUSIVE;
	for (a = 0; a < naspects; a++) {
		if (!ar[a].present)
			continue;
		if (ar[a].g.r.verdict == MW_VERDICT_FAIL)
			*verdict = MW_VERDICT_FAIL;
		else if (ar[a].g.r.verdict == MW_VERDICT_PASS && *verdict != MW_VERDICT_FAIL)
			*verdict = MW_VERDICT_PASS;
	}
	for (a = 0; a < naspects; a++)
		if (ar[a].present && ar[a].g.r.verdict == *verdict)
			return a;
	return naspects;
}

/* The kind a fail names: for private memory the finer kind where the
 * process has the series to tell (else the aspect's own), for the other
 * aspects their own; null for a pass or an inconclusive. */
static void add_group_kind(cJSON *o, struct mw_reader *reader, const struct mw_leak_aspect *aspect,
			   const struct mw_leak_aspect_result *d, enum mw_verdict verdict,
			   int64_t from, int64_t to, int64_t step)
{
	if (verdict == MW_VERDICT_FAIL && d->deciding && aspect->refine) {
		mw_leak_add_kind(o, reader, mw_leak_label_of(d->deciding, "pid"),
				 mw_leak_label_of(d->deciding, "process"), &d->g.r, from, to, step);
		if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "kind")) && aspect->kind)
			cJSON_ReplaceItemInObjectCaseSensitive(o, "kind", cJSON_CreateString(aspect->kind));
	} else if (verdict == MW_VERDICT_FAIL && aspect->kind) {
		cJSON_AddStringToObject(o, "kind", aspect->kind);
	} else {
		cJSON_AddNullToObject(o, "kind");
	}
}

/* The deciding aspect's incarnations, the best listed, all counted. */
static void add_incarnations(cJSON *o, const struct mw_leak_aspect_result *d,
			     const struct mw_leak_params *params)
{
	cJSON *arr;
	size_t i;

	cJSON_AddNumberToObject(o, "incarnations_total", (double)d->ninc);
	arr = cJSON_AddArrayToObject(o, "incarnations");
	for (i = 0; i < d->nlisted; i++) {
		const struct mw_series_info *s = d->list[i].s;
		cJSON *io = cJSON_CreateObject();

		mw_leak_json_str(io, "pid", mw_leak_label_of(s, "pid"));
		mw_leak_json_str(io, "started", mw_leak_label_of(s, "started"));
		cJSON_AddStringToObject(io, "series", s->key);
		cJSON_AddNumberToObject(io, "series_id", (double)s->id);
		mw_leak_json_result(io, &d->list[i].r, params);
		mw_leak_json_fit(io, &d->list[i].r);
		cJSON_AddItemToArray(arr, io);
	}
}

/* The group's verdict as the structure the judge service publishes, the
 * same figures as its JSON o. */
static void fill_verdict(struct mw_leak_verdict *v, const char *process, bool watched,
			 enum mw_verdict verdict, const struct mw_leak_aspect *aspect,
			 const struct mw_leak_result *r, const cJSON *o)
{
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(o, "kind");

	memset(v, 0, sizeof(*v));
	snprintf(v->process, sizeof(v->process), "%s", process);
	v->watched = watched;
	v->verdict = (int)verdict;
	snprintf(v->aspect, sizeof(v->aspect), "%s", aspect->name);
	snprintf(v->unit, sizeof(v->unit), "%s", aspect->unit ? aspect->unit : "bytes");
	if (cJSON_IsString(k))
		snprintf(v->kind, sizeof(v->kind), "%s", k->valuestring);
	v->slope_per_hour = r->slope_bph;
	v->growth = r->growth_bytes;
	v->projected = r->projected_bytes;
	v->onset_ms = r->onset_ms;
}

/* The group as JSON: the deciding aspect's figures and series, its kind,
 * every aspect's summary, the listed incarnations. */
static cJSON *group_json(struct mw_reader *reader, const char *process, bool watched,
			 enum mw_verdict verdict, const struct mw_leak_aspect *aspects, size_t naspects,
			 const struct mw_leak_aspect_result *ar, size_t deciding,
			 const struct mw_leak_query *q, int64_t from, int64_t to, int64_t step)
{
	const struct mw_leak_aspect_result *d = &ar[deciding];
	cJSON *o = cJSON_CreateObject(), *asp;
	size_t a;

	cJSON_AddStringToObject(o, "process", process);
	cJSON_AddBoolToObject(o, "watched", watched);
	mw_leak_json_result(o, &d->g.r, &q->params);
	cJSON_AddStringToObject(o, "aspect", aspects[deciding].name);
	cJSON_AddStringToObject(o, "unit", aspects[deciding].unit ? aspects[deciding].unit : "bytes");
	if (d->deciding) {
		cJSON_AddStringToObject(o, "series", d->deciding->key);
		cJSON_AddNumberToObject(o, "series_id", (double)d->deciding->id);
	} else {
		cJSON_AddNullToObject(o, "series");
		cJSON_AddNullToObject(o, "series_id");
	}
	cJSON_AddBoolToObject(o, "total_growing", d->g.total_failed != 0);
	mw_leak_json_fit(o, &d->g.r);
	add_group_kind(o, reader, &aspects[deciding], d, verdict, from, to, step);
	asp = cJSON_AddObjectToObject(o, "aspects");
	for (a = 0; a < naspects; a++)
		if (ar[a].present)
			add_aspect_summary(asp, aspects[a].name, aspects[a].unit, &ar[a]);
	add_incarnations(o, d, &q->params);
	return o;
}

int mw_leak_report_group(struct mw_reader *reader, struct mw_leak_entry *e, size_t n,
			 const struct mw_leak_aspect *aspects, size_t naspects,
			 const struct mw_leak_query *q, int64_t from, int64_t to, int64_t step,
			 bool watched, struct mw_leak_judged_group *out, bool *excluded,
			 struct mw_err *err)
{
	struct mw_leak_aspect_result ar[MW_LEAK_NASPECTS];
	size_t a, deciding;
	double max_bytes;
	int rc = -1;

	memset(ar, 0, sizeof(ar));
	*excluded = false;
	if (judge_aspects(reader, e, n, aspects, q, from, to, step, ar, &max_bytes, err))
		goto out;
	rc = 0;
	/* no memory at all: a kernel thread, a zombie */
	deciding = max_bytes == 0 ? naspects : deciding_aspect(ar, naspects, &out->verdict);
	if (deciding == naspects) {
		*excluded = true;
		goto out;
	}
	out->json = group_json(reader, e[0].group, watched, out->verdict, aspects, naspects, ar,
			       deciding, q, from, to, step);
	out->slope = ar[deciding].g.r.slope_bph;
	out->watched = watched;
	fill_verdict(&out->v, e[0].group, watched, out->verdict, &aspects[deciding],
		     &ar[deciding].g.r, out->json);
out:
	for (a = 0; a < naspects; a++)
		mw_leak_aspect_result_release(&ar[a]);
	return rc;
}
