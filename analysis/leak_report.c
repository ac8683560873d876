/*
 * leak_report.c - see leak_report.h.
 *
 * The floors come from one bucketed range query per process group with
 * agg=min: the store answers it from the 1-minute or 1-hour rollups when
 * the step allows, so judging a week of 1 Hz data reads about a thousand
 * rows per series, not 600,000 points.  A group is read, judged and
 * released before the next, so memory is bounded by the largest group,
 * not by the number of series in the file.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/units.h"
#include "daemon/xalloc.h"
#include "leak_report.h"
#include "storage/query.h"
#include "daemon/params.h"

/* Buckets per judged range: enough for the statistics, few enough that
 * Theil-Sen's pairwise slopes stay cheap. */
#define TARGET_BUCKETS 700
/* Incarnations listed per group; the rest are counted. */
#define MAX_LISTED_INCARNATIONS 50

void mw_leak_query_init(struct mw_leak_query *q)
{
	memset(q, 0, sizeof(*q));
	q->from_ms = INT64_MIN;
	q->to_ms = INT64_MAX;
	mw_leak_params_init(&q->params);
}

void mw_leak_query_release(struct mw_leak_query *q)
{
	free(q->match);
	q->match = NULL;
}

int mw_leak_query_set(struct mw_leak_query *q, const char *name, const char *value,
		      int64_t now_ms, struct mw_err *err)
{
	int64_t v;

	if (!strcmp(name, "match")) {
		free(q->match);
		q->match = value && *value ? mw_xstrdup(value) : NULL;
		return 0;
	}
	if (!value || !*value)
		return mw_error(err, "empty value");
	if (!strcmp(name, "from"))
		return mw_param_time(value, now_ms, &q->from_ms, err);
	if (!strcmp(name, "to"))
		return mw_param_time(value, now_ms, &q->to_ms, err);
	if (!strcmp(name, "warmup"))
		return mw_parse_duration_ms(value, &q->params.warmup_ms, err);
	if (!strcmp(name, "min_duration"))
		return mw_parse_duration_ms(value, &q->params.min_duration_ms, err);
	if (!strcmp(name, "horizon")) {
		if (mw_parse_duration_ms(value, &v, err))
			return -1;
		if (v <= 0)
			return mw_error(err, "'%s' is not a positive duration", value);
		q->params.horizon_ms = v;
		return 0;
	}
	if (!strcmp(name, "max_growth"))
		return mw_parse_growth_budget(value, &q->params.budget_bytes_per_hour,
					      &q->params.budget_rel_per_hour, err);
	if (!strcmp(name, "limit")) {
		if (mw_param_int(value, 0, 100000, &v, err))
			return -1;
		q->limit = (size_t)v;
		return 0;
	}
	if (!strcmp(name, "inconclusive")) {
		if (!strcmp(value, "pass"))
			q->inconclusive_passes = true;
		else if (!strcmp(value, "fail"))
			q->inconclusive_passes = false;
		else
			return mw_error(err, "'%s' is neither pass nor fail", value);
		return 0;
	}
	return 1;
}

/* ---- choosing the buckets ---------------------------------------------- */

/* Spans this long are judged on hourly floors: the 1-hour rollups answer
 * them with a row per series and hour (a week: 168 rows, not the 10,080
 * rows of the 1-minute tier), and 120 floors or more are plenty for the
 * detector, which reduces long traces to about 300 points anyway. */
#define HOURLY_FROM_MS (5 * 86400000LL)

/* The smallest round step giving at most TARGET_BUCKETS over span_ms;
 * steps of a minute or more are whole minutes so the rollups answer. */
static int64_t choose_step(int64_t span_ms)
{
	static const int64_t steps[] = {
		1000, 2000, 5000, 10000, 15000, 30000,
		60000, 120000, 300000, 600000, 900000, 1800000,
		3600000, 7200000, 10800000, 21600000, 43200000, 86400000,
	};
	size_t i;

	for (i = 0; i < MW_ARRAY_SIZE(steps); i++)
		if (span_ms / steps[i] < TARGET_BUCKETS &&
		    (span_ms < HOURLY_FROM_MS || steps[i] % 3600000 == 0))
			return steps[i];
	return 7 * 86400000LL;
}

/* ---- grouping --------------------------------------------------------------- */

static const char *label_of(const struct mw_series_info *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nlabels; i++)
		if (!strcmp(s->labels[i].name, name))
			return s->labels[i].value;
	return NULL;
}

/* The group a series belongs to: its process, else its own key. */
static const char *group_of(const struct mw_series_info *s)
{
	const char *p = label_of(s, "process");
	return p ? p : s->key;
}

static int cmp_by_group(const void *a, const void *b)
{
	const struct mw_series_info *x = *(const struct mw_series_info *const *)a;
	const struct mw_series_info *y = *(const struct mw_series_info *const *)b;
	int c = strcmp(group_of(x), group_of(y));

	return c ? c : (x->id < y->id ? -1 : x->id > y->id);
}

/* Turn series i of a bucketed result into a trace without its leading and
 * trailing gaps; n = 0 when it has no data. */
static void trace_of(const struct mw_range_result *res, size_t i, struct mw_trace *tr)
{
	size_t first = 0, last = res->nt;

	while (first < res->nt && isnan(res->values[i][first]))
		first++;
	while (last > first && isnan(res->values[i][last - 1]))
		last--;
	tr->step_ms = res->step_ms;
	tr->t0_ms = first < res->nt ? res->t[first] : (res->nt ? res->t[0] : 0);
	tr->v = res->values[i] + first;
	tr->n = last - first;
}

/* ---- JSON helpers ------------------------------------------------------- */

static void add_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static void add_ts(cJSON *o, const char *key, int64_t ts)
{
	if (ts == INT64_MIN || ts == INT64_MAX)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, (double)ts);
}

static void add_str(cJSON *o, const char *key, const char *s)
{
	if (s)
		cJSON_AddStringToObject(o, key, s);
	else
		cJSON_AddNullToObject(o, key);
}

/* The figures every result has (group and incarnation alike). */
static void add_result(cJSON *o, const struct mw_leak_result *r, const struct mw_leak_params *p)
{
	cJSON *ci;

	cJSON_AddStringToObject(o, "verdict", mw_verdict_name(r->verdict));
	add_num(o, "slope_bytes_per_hour", r->slope_bph);
	if (isfinite(r->slope_lo_bph) && isfinite(r->slope_hi_bph)) {
		ci = cJSON_AddArrayToObject(o, "slope_ci_bytes_per_hour");
		cJSON_AddItemToArray(ci, cJSON_CreateNumber(r->slope_lo_bph));
		cJSON_AddItemToArray(ci, cJSON_CreateNumber(r->slope_hi_bph));
	} else {
		cJSON_AddNullToObject(o, "slope_ci_bytes_per_hour");
	}
	add_ts(o, "onset_ms", r->onset_ms);
	add_num(o, "growth_bytes", r->growth_bytes);
	add_num(o, "projected_bytes", r->projected_bytes);
	cJSON_AddNumberToObject(o, "horizon_ms", (double)p->horizon_ms);
	add_num(o, "level_bytes", r->level_bytes);
	add_ts(o, "first_ms", r->first_ms);
	add_ts(o, "last_ms", r->last_ms);
	add_ts(o, "judged_from_ms", r->judged_from_ms);
	add_num(o, "coverage", r->coverage);
	add_num(o, "p_value", r->p_value);
	cJSON_AddStringToObject(o, "reason", r->reason);
}

static void add_fit(cJSON *o, const struct mw_leak_result *r)
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

/* ---- which kind of memory ----------------------------------------------------------- */

/* Per-kind series of a watched process, from the most to the least
 * precise source; `map` turns the source's label value into a kind. */
struct kind_source {
	const char *metric;
	const char *extra;	/* extra matcher, or "" */
	const char *label;
	const char *const *map;	/* pairs: label value, kind; NULL-terminated */
};

static const char *const breakdown_map[] = {
	"heap_used", "heap", "heap_free", "heap", "stack_committed", "stack",
	"image", "image", "static_data", "static_data", "private_other", "private_data",
	"mapped", "mapped", NULL,
};
static const char *const vm_map[] = {
	"image", "image", "mapped", "mapped", "private", "private_data", NULL,
};
static const char *const ws_map[] = {
	"image", "image", "mapped_file", "mapped", "shareable", "mapped", "heap", "heap",
	"stack", "stack", "private_data", "private_data", "other", "other", NULL,
};
static const struct kind_source kind_sources[] = {
	{ "memwatch_heap_breakdown_bytes", "", "kind", breakdown_map },
	{ "memwatch_vm_bytes", ",state=\"committed\"", "type", vm_map },
	{ "memwatch_workingset_bytes", "", "category", ws_map },
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

/* Name the kind carrying r's growth for the process with this pid, from
 * the first source that has series for it; adds "kind" and "kinds". */
static void add_kind(cJSON *o, struct mw_reader *reader, const char *pid, const char *process,
		     const struct mw_leak_result *r, int64_t from, int64_t to, int64_t step)
{
	size_t s;

	for (s = 0; pid && s < MW_ARRAY_SIZE(kind_sources); s++) {
		const struct kind_source *src = &kind_sources[s];
		struct mw_range_query q;
		struct mw_range_result res = { 0 };
		char sel[512];
		const char *names[16];
		double *sums[16], shares[16];
		struct mw_trace traces[16];
		size_t nk = 0, i, j, k;
		int best;

		snprintf(sel, sizeof(sel), "%s{pid=\"", src->metric);
		quote_value(sel, sizeof(sel), pid);
		snprintf(sel + strlen(sel), sizeof(sel) - strlen(sel), "\"%s", src->extra);
		if (process) {
			snprintf(sel + strlen(sel), sizeof(sel) - strlen(sel), ",process=\"");
			quote_value(sel, sizeof(sel), process);
			snprintf(sel + strlen(sel), sizeof(sel) - strlen(sel), "\"");
		}
		snprintf(sel + strlen(sel), sizeof(sel) - strlen(sel), "}");
		mw_range_query_init(&q, from, to);
		q.step_ms = step;
		q.agg = MW_AGG_MIN;
		if (mw_reader_range(reader, sel, &q, &res, NULL) || res.nseries == 0) {
			mw_range_result_release(&res);
			continue;
		}
		/* Sum the series of each kind bucket by bucket; a bucket where
		 * any of them is missing is a gap, not a dip. */
		for (i = 0; i < res.nseries; i++) {
			const char *kind = map_kind(src->map, label_of(&res.series[i], src->label));

			if (!kind)
				continue;
			for (k = 0; k < nk && strcmp(names[k], kind); k++)
				;
			if (k == nk) {
				if (nk == MW_ARRAY_SIZE(names))
					continue;
				names[nk] = kind;
				sums[nk] = mw_xcalloc(res.nt ? res.nt : 1, sizeof(double));
				nk++;
			}
			for (j = 0; j < res.nt; j++)
				sums[k][j] += res.values[i][j];
		}
		for (k = 0; k < nk; k++) {
			traces[k].t0_ms = res.nt ? res.t[0] : from;
			traces[k].step_ms = res.step_ms;
			traces[k].v = sums[k];
			traces[k].n = res.nt;
		}
		best = nk ? mw_leak_kind(traces, nk, r, shares) : -1;
		if (nk) {
			cJSON *kinds;

			add_str(o, "kind", best >= 0 ? names[best] : NULL);
			cJSON_AddStringToObject(o, "kind_source", src->metric);
			kinds = cJSON_AddObjectToObject(o, "kinds_bytes_per_hour");
			for (k = 0; k < nk; k++)
				add_num(kinds, names[k], shares[k]);
		}
		for (k = 0; k < nk; k++)
			free(sums[k]);
		mw_range_result_release(&res);
		if (nk)
			return;
	}
	cJSON_AddNullToObject(o, "kind");
}

/* ---- judging ---------------------------------------------------------------- */

struct judged_group {
	cJSON *json;
	enum mw_verdict verdict;
	double slope;
};

static int cmp_judged(const void *a, const void *b)
{
	const struct judged_group *x = a, *y = b;
	int rx = mw_verdict_rank(x->verdict), ry = mw_verdict_rank(y->verdict);
	double sx = isnan(x->slope) ? -INFINITY : x->slope;
	double sy = isnan(y->slope) ? -INFINITY : y->slope;

	if (rx != ry)
		return ry - rx;
	return sx < sy ? 1 : sx > sy ? -1 : 0;
}

struct inc_order {
	size_t i;
	int rank;
	double slope;
};

static int cmp_inc(const void *a, const void *b)
{
	const struct inc_order *x = a, *y = b;
	double sx = isnan(x->slope) ? -INFINITY : x->slope;
	double sy = isnan(y->slope) ? -INFINITY : y->slope;

	if (x->rank != y->rank)
		return y->rank - x->rank;
	if (sx != sy)
		return sx < sy ? 1 : -1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Judge one group (the series sel[0..n), all of one process name). */
static int judge_group(struct mw_reader *reader, struct mw_series_info *const *sel, size_t n,
		       const struct mw_leak_query *q, int64_t from, int64_t to, int64_t step,
		       struct judged_group *out, struct mw_err *err)
{
	struct mw_range_query rq;
	struct mw_range_result res = { 0 };
	int64_t *ids = mw_xmalloc(n * sizeof(*ids));
	struct mw_trace *traces = mw_xcalloc(n, sizeof(*traces));
	struct mw_leak_result *inc = mw_xcalloc(n, sizeof(*inc));
	struct inc_order *order = mw_xcalloc(n, sizeof(*order));
	struct mw_leak_group_result g;
	cJSON *o, *arr;
	size_t i, listed;
	int rc = -1;

	for (i = 0; i < n; i++)
		ids[i] = sel[i]->id;
	mw_range_query_init(&rq, from, to);
	rq.step_ms = step;
	rq.agg = MW_AGG_MIN;
	if (mw_reader_range_ids(reader, ids, n, &rq, &res, err))
		goto out;
	for (i = 0; i < n; i++) {
		trace_of(&res, i, &traces[i]);
		/* An incarnation that ended before the range did: its last
		 * bucket may hold the teardown (memory released on exit), a dip
		 * that is no part of its trend. */
		if (traces[i].n > 2 && res.nt &&
		    traces[i].t0_ms + (int64_t)(traces[i].n - 1) * traces[i].step_ms < res.t[res.nt - 1])
			traces[i].n--;
	}
	memset(&g, 0, sizeof(g));
	mw_leak_judge_group(traces, n, &q->params, inc, &g);

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "process", group_of(&res.series[0]));
	add_result(o, &g.r, &q->params);
	if (g.deciding_incarnation >= 0 && (size_t)g.deciding_incarnation < n) {
		const struct mw_series_info *s = &res.series[g.deciding_incarnation];

		cJSON_AddStringToObject(o, "series", s->key);
		cJSON_AddNumberToObject(o, "series_id", (double)s->id);
	} else {
		cJSON_AddNullToObject(o, "series");
		cJSON_AddNullToObject(o, "series_id");
	}
	cJSON_AddBoolToObject(o, "total_growing", g.total_failed != 0);
	add_fit(o, &g.r);
	if (g.r.verdict == MW_VERDICT_FAIL && g.deciding_incarnation >= 0 &&
	    (size_t)g.deciding_incarnation < n)
		add_kind(o, reader, label_of(&res.series[g.deciding_incarnation], "pid"),
			 label_of(&res.series[g.deciding_incarnation], "process"), &g.r,
			 from, to, step);
	else
		cJSON_AddNullToObject(o, "kind");

	for (i = 0; i < n; i++) {
		order[i].i = i;
		order[i].rank = mw_verdict_rank(inc[i].verdict);
		order[i].slope = inc[i].slope_bph;
	}
	qsort(order, n, sizeof(*order), cmp_inc);
	cJSON_AddNumberToObject(o, "incarnations_total", (double)n);
	arr = cJSON_AddArrayToObject(o, "incarnations");
	listed = n < MAX_LISTED_INCARNATIONS ? n : MAX_LISTED_INCARNATIONS;
	for (i = 0; i < listed; i++) {
		const struct mw_series_info *s = &res.series[order[i].i];
		cJSON *io = cJSON_CreateObject();

		add_str(io, "pid", label_of(s, "pid"));
		add_str(io, "started", label_of(s, "started"));
		cJSON_AddStringToObject(io, "series", s->key);
		cJSON_AddNumberToObject(io, "series_id", (double)s->id);
		add_result(io, &inc[order[i].i], &q->params);
		add_fit(io, &inc[order[i].i]);
		cJSON_AddItemToArray(arr, io);
	}
	out->json = o;
	out->verdict = g.r.verdict;
	out->slope = g.r.slope_bph;
	rc = 0;
out:
	mw_range_result_release(&res);
	free(ids);
	free(traces);
	free(inc);
	free(order);
	return rc;
}

static void add_params(cJSON *report, const struct mw_leak_query *q)
{
	cJSON *p = cJSON_AddObjectToObject(report, "params");
	char buf[64];

	cJSON_AddNumberToObject(p, "warmup_ms", (double)q->params.warmup_ms);
	cJSON_AddNumberToObject(p, "min_duration_ms", (double)q->params.min_duration_ms);
	cJSON_AddNumberToObject(p, "min_coverage", q->params.min_coverage);
	cJSON_AddNumberToObject(p, "max_growth_bytes_per_hour", q->params.budget_bytes_per_hour);
	cJSON_AddNumberToObject(p, "max_growth_relative_per_hour", q->params.budget_rel_per_hour);
	mw_format_growth_budget(buf, sizeof(buf), q->params.budget_bytes_per_hour,
				q->params.budget_rel_per_hour);
	cJSON_AddStringToObject(p, "max_growth", buf);
	cJSON_AddNumberToObject(p, "horizon_ms", (double)q->params.horizon_ms);
	cJSON_AddBoolToObject(p, "inconclusive_passes", q->inconclusive_passes);
}

int mw_leak_report(struct mw_reader *reader, const struct mw_leak_query *q,
		   cJSON **out, struct mw_err *err)
{
	const char *match = q->match ? q->match : MW_LEAK_DEFAULT_MATCH;
	struct mw_series_list list = { 0 };
	struct mw_latest_list live = { 0 };
	struct mw_series_info **sel = NULL;
	struct judged_group *groups = NULL;
	size_t nsel = 0, ngroups = 0, i, j, counts[4] = { 0 };
	int64_t first = INT64_MAX, last = INT64_MIN, from, to, step = 0;
	enum mw_verdict overall;
	cJSON *report, *arr, *c;
	int rc = -1;

	*out = NULL;
	if (q->live_only) {
		/* The live series only: one pass over the live table, then
		 * each one's first point by its id (an indexed read). */
		if (mw_reader_latest(reader, match, &live, err)) {
			mw_error_prefix(err, "match");
			return -1;
		}
		list.items = mw_xcalloc(live.n ? live.n : 1, sizeof(*list.items));
		for (i = 0; i < live.n; i++) {
			struct mw_series_info one;

			list.items[i] = live.items[i].info;
			if (mw_reader_series_by_id(reader, live.items[i].info.id, &one, NULL) == 0) {
				list.items[i].first_ts = one.first_ts;
				mw_series_info_release(&one);
			}
			if (list.items[i].first_ts == INT64_MIN)
				list.items[i].first_ts = q->from_ms != INT64_MIN ? q->from_ms :
							 live.items[i].ts_ms;
			if (list.items[i].last_ts == INT64_MIN)
				list.items[i].last_ts = live.items[i].ts_ms;
		}
		list.n = live.n;
	} else if (mw_reader_find(reader, match, &list, err)) {
		mw_error_prefix(err, "match");
		return -1;
	}
	/* The series with data in the range. */
	sel = mw_xcalloc(list.n ? list.n : 1, sizeof(*sel));
	for (i = 0; i < list.n; i++) {
		struct mw_series_info *s = &list.items[i];

		if (s->first_ts == INT64_MIN || s->last_ts < q->from_ms || s->first_ts > q->to_ms)
			continue;
		sel[nsel++] = s;
		if (s->first_ts < first)
			first = s->first_ts;
		if (s->last_ts > last)
			last = s->last_ts;
	}
	from = q->from_ms > first ? q->from_ms : first;
	to = q->to_ms < last ? q->to_ms : last;
	if (nsel && to >= from) {
		step = choose_step(to - from);
		qsort(sel, nsel, sizeof(*sel), cmp_by_group);
		groups = mw_xcalloc(nsel, sizeof(*groups));
		for (i = 0; i < nsel; i = j) {
			for (j = i + 1; j < nsel && !strcmp(group_of(sel[i]), group_of(sel[j])); j++)
				;
			if (judge_group(reader, sel + i, j - i, q, from, to, step, &groups[ngroups], err))
				goto out;
			ngroups++;
		}
		qsort(groups, ngroups, sizeof(*groups), cmp_judged);
	}

	for (i = 0; i < ngroups; i++)
		counts[groups[i].verdict]++;
	/* One failing group fails the whole; a report where nothing could be
	 * judged is inconclusive; otherwise the groups that could be judged
	 * passed (processes too short-lived to judge do not hold a soak test
	 * hostage: select the process under test with match to be strict). */
	if (counts[MW_VERDICT_FAIL])
		overall = MW_VERDICT_FAIL;
	else if (counts[MW_VERDICT_PASS])
		overall = MW_VERDICT_PASS;
	else
		overall = MW_VERDICT_INCONCLUSIVE;

	report = cJSON_CreateObject();
	cJSON_AddStringToObject(report, "verdict", mw_verdict_name(overall));
	if (ngroups == 0)
		cJSON_AddStringToObject(report, "reason", nsel || list.n ?
					"no data in the range" : "no series match");
	add_ts(report, "from_ms", nsel && to >= from ? from : q->from_ms);
	add_ts(report, "to_ms", nsel && to >= from ? to : q->to_ms);
	cJSON_AddNumberToObject(report, "step_ms", (double)step);
	cJSON_AddStringToObject(report, "match", match);
	add_params(report, q);
	c = cJSON_AddObjectToObject(report, "counts");
	cJSON_AddNumberToObject(c, "pass", (double)counts[MW_VERDICT_PASS]);
	cJSON_AddNumberToObject(c, "fail", (double)counts[MW_VERDICT_FAIL]);
	cJSON_AddNumberToObject(c, "inconclusive", (double)counts[MW_VERDICT_INCONCLUSIVE]);
	cJSON_AddNumberToObject(report, "groups_total", (double)ngroups);
	arr = cJSON_AddArrayToObject(report, "groups");
	for (i = 0; i < ngroups; i++) {
		if (q->limit && i >= q->limit) {
			cJSON_Delete(groups[i].json);
			continue;
		}
		cJSON_AddItemToArray(arr, groups[i].json);
	}
	ngroups = 0;
	*out = report;
	rc = 0;
out:
	for (i = 0; i < ngroups; i++)
		cJSON_Delete(groups[i].json);
	free(groups);
	free(sel);
	if (q->live_only) {
		/* the items borrow the live list's strings */
		free(list.items);
		mw_latest_list_release(&live);
	} else {
		mw_series_list_release(&list);
	}
	return rc;
}

enum mw_verdict mw_leak_report_verdict(const cJSON *report, bool inconclusive_passes)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(report, "verdict");

	if (cJSON_IsString(v) && !strcmp(v->valuestring, "fail"))
		return MW_VERDICT_FAIL;
	if (cJSON_IsString(v) && !strcmp(v->valuestring, "pass"))
		return MW_VERDICT_PASS;
	return inconclusive_passes ? MW_VERDICT_PASS : MW_VERDICT_INCONCLUSIVE;
}

/* ---- the table ----------------------------------------------------------------- */

static double num_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static const char *str_of(const cJSON *o, const char *key, const char *def)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsString(v) ? v->valuestring : def;
}

/* "4.1 MiB", "-512 KiB", "-" for NaN. */
static void fmt_bytes(char *buf, size_t size, double v)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double a = fabs(v);
	size_t u = 0;

	if (!isfinite(v)) {
		snprintf(buf, size, "-");
		return;
	}
	while (a >= 1024 && u + 1 < MW_ARRAY_SIZE(units)) {
		a /= 1024;
		u++;
	}
	snprintf(buf, size, "%s%.*f %s", v < 0 ? "-" : "", u && a < 10 ? 1 : 0, a, units[u]);
}

/* UTC "2026-11-21 10:42" (the same on every machine and in CI logs). */
static void fmt_time(char *buf, size_t size, double ms)
{
	time_t t;
	struct tm tm;

	if (!isfinite(ms)) {
		snprintf(buf, size, "-");
		return;
	}
	t = (time_t)(ms / 1000);
#ifdef _WIN32
	gmtime_s(&tm, &t);
#else
	gmtime_r(&t, &tm);
#endif
	strftime(buf, size, "%Y-%m-%d %H:%M", &tm);
}

void mw_leak_report_print(const cJSON *report, FILE *f)
{
	const cJSON *groups = cJSON_GetObjectItemCaseSensitive(report, "groups");
	const cJSON *counts = cJSON_GetObjectItemCaseSensitive(report, "counts");
	const cJSON *g;
	char from[32], to[32];

	fmt_time(from, sizeof(from), num_of(report, "from_ms"));
	fmt_time(to, sizeof(to), num_of(report, "to_ms"));
	fprintf(f, "%s: %s from %s to %s UTC", str_of(report, "verdict", "?"),
		str_of(report, "match", ""), from, to);
	if (counts)
		fprintf(f, " (%.0f fail, %.0f inconclusive, %.0f pass)",
			num_of(counts, "fail"), num_of(counts, "inconclusive"),
			num_of(counts, "pass"));
	fputc('\n', f);
	if (str_of(report, "reason", NULL))
		fprintf(f, "%s\n", str_of(report, "reason", ""));
	if (!cJSON_GetArraySize(groups))
		return;
	fprintf(f, "\n%-12s  %-24s  %14s  %12s  %-16s  %10s  %-12s  %s\n", "VERDICT", "PROCESS",
		"SLOPE/h", "+/- /h", "SINCE (UTC)", "GROWTH", "KIND", "REASON");
	cJSON_ArrayForEach(g, groups) {
		const cJSON *ci = cJSON_GetObjectItemCaseSensitive(g, "slope_ci_bytes_per_hour");
		char slope[32], half[32], since[32], growth[32];
		double lo = NAN, hi = NAN;

		if (cJSON_GetArraySize(ci) == 2) {
			lo = cJSON_GetArrayItem(ci, 0)->valuedouble;
			hi = cJSON_GetArrayItem(ci, 1)->valuedouble;
		}
		fmt_bytes(slope, sizeof(slope), num_of(g, "slope_bytes_per_hour"));
		fmt_bytes(half, sizeof(half), (hi - lo) / 2);
		fmt_time(since, sizeof(since), num_of(g, "onset_ms"));
		fmt_bytes(growth, sizeof(growth), num_of(g, "growth_bytes"));
		fprintf(f, "%-12s  %-24.24s  %14s  %12s  %-16s  %10s  %-12s  %s\n",
			str_of(g, "verdict", "?"), str_of(g, "process", "?"), slope, half, since,
			growth, str_of(g, "kind", "-"), str_of(g, "reason", ""));
	}
}
