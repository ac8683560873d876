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

#include "core/watch.h"
#include "core/config.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "leak_report.h"
#include "storage/query.h"
#include "core/params.h"

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

void mw_leak_params_from_config(struct mw_leak_params *p, const struct mw_config *cfg)
{
	mw_leak_params_init(p);
	p->warmup_ms = cfg->leak_warmup_ms;
	p->min_duration_ms = cfg->leak_min_duration_ms;
	p->budget_bytes_per_hour = cfg->leak_max_growth.bytes_per_hour;
	p->budget_rel_per_hour = cfg->leak_max_growth.rel_per_hour;
	p->horizon_ms = cfg->leak_horizon_ms;
	p->budget_count_per_hour = (double)cfg->leak_max_count_growth;
}

void mw_leak_query_release(struct mw_leak_query *q)
{
	free(q->match);
	q->match = NULL;
	free(q->process);
	q->process = NULL;
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
	if (!strcmp(name, "process")) {
		free(q->process);
		q->process = mw_xstrdup(value);
		return 0;
	}
	if (!strcmp(name, "max_count_growth")) {
		char *end;
		double v2 = strtod(value, &end);

		if (end != value && (!strcmp(end, "/h") || !*end) && v2 >= 0 && isfinite(v2)) {
			q->params.budget_count_per_hour = v2;
			return 0;
		}
		return mw_error(err, "'%s' is not a count per hour (e.g. 10/h)", value);
	}
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
		int best = -1;

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
		/* the first source that names the kind; else the first with
		 * series at all, whose figures still say what grew */
		if (nk && (best >= 0 || !cJSON_GetObjectItemCaseSensitive(o, "kind_source"))) {
			cJSON *kinds;

			cJSON_DeleteItemFromObjectCaseSensitive(o, "kind");
			cJSON_DeleteItemFromObjectCaseSensitive(o, "kind_source");
			cJSON_DeleteItemFromObjectCaseSensitive(o, "kinds_bytes_per_hour");
			add_str(o, "kind", best >= 0 ? names[best] : NULL);
			cJSON_AddStringToObject(o, "kind_source", src->metric);
			kinds = cJSON_AddObjectToObject(o, "kinds_bytes_per_hour");
			for (k = 0; k < nk; k++)
				add_num(kinds, names[k], shares[k]);
		}
		for (k = 0; k < nk; k++)
			free(sums[k]);
		mw_range_result_release(&res);
		if (best >= 0)
			return;
	}
	if (!cJSON_GetObjectItemCaseSensitive(o, "kind"))
		cJSON_AddNullToObject(o, "kind");
}

/* ---- what is judged ------------------------------------------------------ */

/*
 * The aspects of a process judged by default: all of its memory, and the
 * things it holds by count.  Each is one per-process series; a group's
 * verdict is the worst of its aspects', and a fail names the aspect (for
 * private memory, the finer kind when a watched process has the series
 * to tell).  Windows has shared memory as the shareable part of the
 * working set (images and mapped files in it too), no mapped-file series.
 */
struct aspect {
	const char *name;	/* JSON key */
	const char *selector;
	const char *unit;	/* NULL: bytes, else what is counted */
	bool refine;		/* a fail looks for the finer kind (kind_sources) */
	const char *kind;	/* the kind a fail names otherwise; NULL: none */
};

#define MW_PRIVATE_METRIC "memwatch_process_private_bytes"

static const struct aspect default_aspects[] = {
	{ "private", "memwatch_process_private_bytes", NULL, true, "private" },
	{ "shared", "memwatch_process_resident_bytes{kind=\"shmem\"}", NULL, false, "shared" },
	/* Windows: the shareable pages resident, where a pagefile-backed
	 * section (CreateFileMapping without a file) that grows shows */
	{ "shared", "memwatch_process_shareable_working_set_bytes", NULL, false, "shared" },
	{ "mapped", "memwatch_process_resident_bytes{kind=\"file\"}", NULL, false, "mapped" },
	{ "handles", "memwatch_process_handles", "handles", false, "handles" },
	{ "threads", "memwatch_process_threads", "threads", false, "threads" },
};
#define NASPECTS MW_ARRAY_SIZE(default_aspects)

/* The unit of a user's selector: a count for the count metrics. */
static const char *unit_of_selector(const char *sel)
{
	if (!strncmp(sel, "memwatch_process_handles", 24))
		return "handles";
	if (!strncmp(sel, "memwatch_process_threads", 24))
		return "threads";
	return NULL;
}

/* A selector of private bytes (with or without label matchers). */
static bool is_private_selector(const char *sel)
{
	size_t n = strlen(MW_PRIVATE_METRIC);

	return !strncmp(sel, MW_PRIVATE_METRIC, n) && (sel[n] == '\0' || sel[n] == '{');
}

/* One series selected for judging. */
struct entry {
	const char *group;
	unsigned aspect;
	struct mw_series_info *s;
};

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int c = strcmp(x->group, y->group);

	if (c)
		return c;
	if (x->aspect != y->aspect)
		return x->aspect < y->aspect ? -1 : 1;
	return x->s->id < y->s->id ? -1 : x->s->id > y->s->id;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ---- one aspect of one group --------------------------------------------- */

struct listed {
	const struct mw_series_info *s;
	struct mw_leak_result r;
	int rank;
};

struct aspect_result {
	bool present;
	struct mw_leak_group_result g;
	const struct mw_series_info *deciding;	/* the failing incarnation's series */
	struct listed *list;			/* the top MAX_LISTED_INCARNATIONS */
	size_t nlisted, ninc;
	double max_value;			/* largest floor read; -1: none */
};

static int listed_before(const struct listed *a, const struct listed *b)
{
	double sa = isnan(a->r.slope_bph) ? -INFINITY : a->r.slope_bph;
	double sb = isnan(b->r.slope_bph) ? -INFINITY : b->r.slope_bph;

	if (a->rank != b->rank)
		return a->rank > b->rank;
	if (sa != sb)
		return sa > sb;
	return a->s->id < b->s->id;
}

/* Keep the best MAX_LISTED_INCARNATIONS, in order (insertion: the list is short). */
static void list_insert(struct aspect_result *ar, const struct mw_series_info *s,
			const struct mw_leak_result *r)
{
	struct listed item = { s, *r, mw_verdict_rank(r->verdict) };
	size_t i;

	if (ar->nlisted == MAX_LISTED_INCARNATIONS &&
	    !listed_before(&item, &ar->list[ar->nlisted - 1]))
		return;
	if (ar->nlisted < MAX_LISTED_INCARNATIONS)
		ar->nlisted++;
	for (i = ar->nlisted - 1; i > 0 && listed_before(&item, &ar->list[i - 1]); i--)
		ar->list[i] = ar->list[i - 1];
	ar->list[i] = item;
}

/* The series' process ended before the range did (two buckets' slack). */
static bool ended_before(const struct mw_series_info *s, int64_t to, int64_t step)
{
	return s->last_ts < to - 2 * step;
}

/* Values read at once: a group of any size is read this many at a time. */
#define CHUNK_VALUES 1000000

/*
 * Judge one aspect of one group: the series sel[0..n).  Incarnations too
 * short to be judged are only counted, not read, when the group's total
 * will not be judged either (one of them ended): a build agent's `sleep`
 * with 25,000 incarnations costs a count, not 25,000 reads.
 */
static int judge_aspect(struct mw_reader *reader, struct entry *sel, size_t n,
			const struct mw_leak_params *params, int64_t from, int64_t to,
			int64_t step, struct aspect_result *ar, struct mw_err *err)
{
	int64_t judgeable = params->warmup_ms + params->min_duration_ms - step;
	size_t nb = (size_t)((to - from) / step + 1), chunk, i, j, nids;
	int64_t *ids = NULL;
	struct entry **readable = NULL;
	struct mw_leak_group g;
	bool any_ended = false;
	int rc = -1;

	memset(ar, 0, sizeof(*ar));
	ar->present = true;
	ar->max_value = -1;
	ar->list = mw_xcalloc(MAX_LISTED_INCARNATIONS, sizeof(*ar->list));
	ar->ninc = n;
	for (i = 0; i < n; i++)
		if (ended_before(sel[i].s, to, step))
			any_ended = true;
	mw_leak_group_begin(&g, params, from - from % step, step, nb);
	readable = mw_xcalloc(n, sizeof(*readable));
	nids = 0;
	for (i = 0; i < n; i++) {
		const struct mw_series_info *s = sel[i].s;
		int64_t a = s->first_ts > from ? s->first_ts : from;
		int64_t b = s->last_ts < to ? s->last_ts : to;

		if (any_ended && n > 8 && b - a < judgeable) {
			struct mw_leak_result r;

			mw_leak_group_count(&g, a, b, ended_before(s, to, step), &r);
			list_insert(ar, s, &r);
			continue;
		}
		readable[nids++] = &sel[i];
	}
	chunk = nb ? CHUNK_VALUES / nb : 1;
	if (chunk < 1)
		chunk = 1;
	ids = mw_xcalloc(chunk, sizeof(*ids));
	for (i = 0; i < nids; i += chunk) {
		struct mw_range_query rq;
		struct mw_range_result res = { 0 };
		size_t m = nids - i < chunk ? nids - i : chunk;

		for (j = 0; j < m; j++)
			ids[j] = readable[i + j]->s->id;
		mw_range_query_init(&rq, from, to);
		rq.step_ms = step;
		rq.agg = MW_AGG_MIN;
		if (mw_reader_range_ids(reader, ids, m, &rq, &res, err)) {
			mw_range_result_release(&res);
			mw_leak_group_end(&g, &ar->g);
			goto out;
		}
		for (j = 0; j < m && j < res.nseries; j++) {
			struct mw_trace tr;
			struct mw_leak_result r;
			size_t k;

			trace_of(&res, j, &tr);
			for (k = 0; k < tr.n; k++)
				if (isfinite(tr.v[k]) && tr.v[k] > ar->max_value)
					ar->max_value = tr.v[k];
			/* An incarnation that ended before the range did: its
			 * last bucket may hold the teardown (memory released on
			 * exit), a dip that is no part of its trend. */
			if (tr.n > 2 && res.nt &&
			    tr.t0_ms + (int64_t)(tr.n - 1) * tr.step_ms < res.t[res.nt - 1])
				tr.n--;
			mw_leak_group_add(&g, &tr, &r);
			if (r.verdict == MW_VERDICT_FAIL && g.best == (long)(g.ninc - 1))
				ar->deciding = readable[i + j]->s;
			list_insert(ar, readable[i + j]->s, &r);
		}
		mw_range_result_release(&res);
	}
	mw_leak_group_end(&g, &ar->g);
	if (ar->g.deciding_incarnation < 0)
		ar->deciding = NULL;
	rc = 0;
out:
	free(ids);
	free(readable);
	return rc;
}

static void aspect_result_release(struct aspect_result *ar)
{
	free(ar->list);
	ar->list = NULL;
}

/* ---- one group ------------------------------------------------------------- */

struct judged_group {
	cJSON *json;
	enum mw_verdict verdict;
	double slope;
	bool watched;
	struct mw_leak_verdict v;	/* the same, as a structure */
};

static int cmp_judged(const void *a, const void *b)
{
	const struct judged_group *x = a, *y = b;
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
			       const struct aspect_result *ar)
{
	cJSON *o = cJSON_AddObjectToObject(aspects, name);
	const struct mw_leak_result *r = &ar->g.r;

	cJSON_AddStringToObject(o, "verdict", mw_verdict_name(r->verdict));
	cJSON_AddStringToObject(o, "unit", unit ? unit : "bytes");
	add_num(o, "slope_per_hour", r->slope_bph);
	add_ts(o, "onset_ms", r->onset_ms);
	add_num(o, "growth", r->growth_bytes);
	add_num(o, "level", r->level_bytes);
	cJSON_AddStringToObject(o, "reason", r->reason);
}

/* Judge one group (the entries e[0..n), all of one process name, sorted
 * by aspect); *excluded when it has no memory at all (a kernel thread, a
 * zombie). */
static int judge_group(struct mw_reader *reader, struct entry *e, size_t n,
		       const struct aspect *aspects, size_t naspects,
		       const struct mw_leak_query *q, int64_t from, int64_t to, int64_t step,
		       bool watched, struct judged_group *out, bool *excluded, struct mw_err *err)
{
	struct aspect_result ar[NASPECTS];
	size_t i, j, a, deciding = naspects;
	double max_bytes = -1;
	bool any_bytes = false;
	cJSON *o, *arr, *asp;
	const struct aspect_result *d;
	int rc = -1;

	memset(ar, 0, sizeof(ar));
	*excluded = false;
	for (i = 0; i < n; i = j) {
		struct mw_leak_params params = q->params;

		for (j = i + 1; j < n && e[j].aspect == e[i].aspect; j++)
			;
		a = e[i].aspect;
		params.count_unit = aspects[a].unit;
		if (judge_aspect(reader, e + i, j - i, &params, from, to, step, &ar[a], err))
			goto out;
		if (!aspects[a].unit) {
			any_bytes = true;
			if (ar[a].max_value > max_bytes)
				max_bytes = ar[a].max_value;
		}
	}
	if (any_bytes && max_bytes == 0) {
		*excluded = true;
		rc = 0;
		goto out;
	}
	/* One verdict: fail when an aspect fails, pass when one passes,
	 * inconclusive when none could be judged; its figures and reason are
	 * those of the first aspect (private memory first, counts last) with
	 * that verdict, so no reason contradicts it. */
	out->verdict = MW_VERDICT_INCONCLUSIVE;
	for (a = 0; a < naspects; a++) {
		if (!ar[a].present)
			continue;
		if (ar[a].g.r.verdict == MW_VERDICT_FAIL)
			out->verdict = MW_VERDICT_FAIL;
		else if (ar[a].g.r.verdict == MW_VERDICT_PASS && out->verdict != MW_VERDICT_FAIL)
			out->verdict = MW_VERDICT_PASS;
	}
	for (a = 0; a < naspects; a++)
		if (ar[a].present && ar[a].g.r.verdict == out->verdict) {
			deciding = a;
			break;
		}
	if (deciding == naspects) {
		*excluded = true;
		rc = 0;
		goto out;
	}
	d = &ar[deciding];

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "process", e[0].group);
	cJSON_AddBoolToObject(o, "watched", watched);
	add_result(o, &d->g.r, &q->params);
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
	add_fit(o, &d->g.r);
	if (out->verdict == MW_VERDICT_FAIL && d->deciding && aspects[deciding].refine) {
		/* the finer kind where the process has the series to tell */
		add_kind(o, reader, label_of(d->deciding, "pid"), label_of(d->deciding, "process"),
			 &d->g.r, from, to, step);
		if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, "kind")) && aspects[deciding].kind)
			cJSON_ReplaceItemInObjectCaseSensitive(o, "kind",
							      cJSON_CreateString(aspects[deciding].kind));
	} else if (out->verdict == MW_VERDICT_FAIL && aspects[deciding].kind) {
		cJSON_AddStringToObject(o, "kind", aspects[deciding].kind);
	} else {
		cJSON_AddNullToObject(o, "kind");
	}
	asp = cJSON_AddObjectToObject(o, "aspects");
	for (a = 0; a < naspects; a++)
		if (ar[a].present)
			add_aspect_summary(asp, aspects[a].name, aspects[a].unit, &ar[a]);

	cJSON_AddNumberToObject(o, "incarnations_total", (double)d->ninc);
	arr = cJSON_AddArrayToObject(o, "incarnations");
	for (i = 0; i < d->nlisted; i++) {
		const struct mw_series_info *s = d->list[i].s;
		cJSON *io = cJSON_CreateObject();

		add_str(io, "pid", label_of(s, "pid"));
		add_str(io, "started", label_of(s, "started"));
		cJSON_AddStringToObject(io, "series", s->key);
		cJSON_AddNumberToObject(io, "series_id", (double)s->id);
		add_result(io, &d->list[i].r, &q->params);
		add_fit(io, &d->list[i].r);
		cJSON_AddItemToArray(arr, io);
	}
	out->json = o;
	out->slope = d->g.r.slope_bph;
	out->watched = watched;
	{
		struct mw_leak_verdict *v = &out->v;
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(o, "kind");

		memset(v, 0, sizeof(*v));
		snprintf(v->process, sizeof(v->process), "%s", e[0].group);
		v->watched = watched;
		v->verdict = (int)out->verdict;
		snprintf(v->aspect, sizeof(v->aspect), "%s", aspects[deciding].name);
		snprintf(v->unit, sizeof(v->unit), "%s",
			 aspects[deciding].unit ? aspects[deciding].unit : "bytes");
		if (cJSON_IsString(k))
			snprintf(v->kind, sizeof(v->kind), "%s", k->valuestring);
		v->slope_per_hour = d->g.r.slope_bph;
		v->growth = d->g.r.growth_bytes;
		v->projected = d->g.r.projected_bytes;
		v->onset_ms = d->g.r.onset_ms;
	}
	rc = 0;
out:
	for (a = 0; a < naspects; a++)
		aspect_result_release(&ar[a]);
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
	cJSON_AddNumberToObject(p, "max_count_growth_per_hour", q->params.budget_count_per_hour);
	cJSON_AddNumberToObject(p, "horizon_ms", (double)q->params.horizon_ms);
	cJSON_AddBoolToObject(p, "inconclusive_passes", q->inconclusive_passes);
}

/* The series of one selector, the live ones only when q says so. */
static int find_series(struct mw_reader *reader, const char *sel, bool live_only, int64_t from_ms,
		       struct mw_series_list *list, struct mw_err *err)
{
	struct mw_latest_list live = { 0 };
	size_t i;

	if (!live_only)
		return mw_reader_find(reader, sel, list, err);
	/* The live series only: one pass over the live table, then each
	 * one's first point by its id (an indexed read). */
	if (mw_reader_latest(reader, sel, &live, err))
		return -1;
	list->items = mw_xcalloc(live.n ? live.n : 1, sizeof(*list->items));
	for (i = 0; i < live.n; i++) {
		struct mw_series_info one;

		if (mw_reader_series_by_id(reader, live.items[i].info.id, &one, NULL) == 0) {
			list->items[i] = one;
		} else {
			/* take the live list's strings over */
			list->items[i] = live.items[i].info;
			memset(&live.items[i].info, 0, sizeof(live.items[i].info));
		}
		if (list->items[i].first_ts == INT64_MIN)
			list->items[i].first_ts = from_ms != INT64_MIN ? from_ms : live.items[i].ts_ms;
		if (list->items[i].last_ts == INT64_MIN || list->items[i].last_ts < live.items[i].ts_ms)
			list->items[i].last_ts = live.items[i].ts_ms;
	}
	list->n = live.n;
	mw_latest_list_release(&live);
	return 0;
}

/* The process names that have a watched process's series (their
 * working set, heap or address space is sampled): sorted, owned. */
static void watched_names(struct mw_reader *reader, char ***out, size_t *nout)
{
	static const char *const sels[] = {
		"memwatch_workingset_bytes", "memwatch_heap_breakdown_bytes", "memwatch_vm_regions",
	};
	char **names = NULL;
	size_t n = 0, cap = 0, i, k, w;

	for (k = 0; k < MW_ARRAY_SIZE(sels); k++) {
		struct mw_series_list l = { 0 };

		if (mw_reader_find(reader, sels[k], &l, NULL) == 0)
			for (i = 0; i < l.n; i++) {
				const char *p = label_of(&l.items[i], "process");

				if (!p)
					continue;
				if (n == cap) {
					cap = cap ? 2 * cap : 16;
					names = mw_xrealloc(names, cap * sizeof(*names));
				}
				names[n++] = mw_xstrdup(p);
			}
		mw_series_list_release(&l);
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0, w = 0; i < n; i++) {
		if (w && !strcmp(names[w - 1], names[i])) {
			free(names[i]);
			continue;
		}
		names[w++] = names[i];
	}
	*out = names;
	*nout = w;
}

int mw_leak_report(struct mw_reader *reader, const struct mw_leak_query *q,
		   cJSON **out, struct mw_err *err)
{
	return mw_leak_report_verdicts(reader, q, out, NULL, err);
}

int mw_leak_report_verdicts(struct mw_reader *reader, const struct mw_leak_query *q,
			    cJSON **out, struct mw_leak_status *verdicts, struct mw_err *err)
{
	struct aspect user = { "selected", NULL, NULL, true, NULL };
	const struct aspect *aspects = default_aspects;
	size_t naspects = NASPECTS;
	struct mw_series_list lists[NASPECTS];
	struct entry *ent = NULL;
	struct judged_group *groups = NULL;
	char **watched = NULL;
	size_t nwatched = 0, nent = 0, cap = 0, ngroups = 0, nexcluded = 0, nmatched = 0, i, j, a;
	size_t counts[4] = { 0 };
	int64_t first = INT64_MAX, last = INT64_MIN, from, to, step = 0, ready = INT64_MAX;
	enum mw_verdict overall;
	cJSON *report, *arr, *c;
	int rc = -1;

	*out = NULL;
	memset(lists, 0, sizeof(lists));
	if (q->match) {
		user.selector = q->match;
		/* the user's series: counts are judged as counts, private
		 * bytes as the default judges them, anything else without a
		 * kind it cannot tell */
		user.unit = unit_of_selector(q->match);
		if (user.unit)
			user = (struct aspect){ user.unit, q->match, user.unit, false, user.unit };
		else if (is_private_selector(q->match))
			user = default_aspects[0];
		user.selector = q->match;
		aspects = &user;
		naspects = 1;
	}
	for (a = 0; a < naspects; a++) {
		if (find_series(reader, aspects[a].selector, q->live_only, q->from_ms, &lists[a], err)) {
			mw_error_prefix(err, "match");
			goto out;
		}
		nmatched += lists[a].n;
		for (i = 0; i < lists[a].n; i++) {
			struct mw_series_info *s = &lists[a].items[i];
			const char *g = group_of(s);

			if (s->first_ts == INT64_MIN || s->last_ts < q->from_ms || s->first_ts > q->to_ms)
				continue;
			if (q->process && !mw_image_name_match(q->process, g))
				continue;
			if (nent == cap) {
				cap = cap ? 2 * cap : 256;
				ent = mw_xrealloc(ent, cap * sizeof(*ent));
			}
			ent[nent].group = g;
			ent[nent].aspect = (unsigned)a;
			ent[nent].s = s;
			nent++;
			if (s->first_ts < first)
				first = s->first_ts;
			if (s->last_ts > last)
				last = s->last_ts;
		}
	}
	/* A gate that selects nothing must not go green: a misspelt process
	 * or selector is the caller's error, not an empty pass. */
	if (!q->live_only && q->match && nmatched == 0) {
		mw_error(err, "match: no series match '%s'", q->match ? q->match : MW_LEAK_DEFAULT_MATCH);
		goto out;
	}
	if (!q->live_only && q->process && nent == 0) {
		mw_error(err, "process: no process named '%s' has data in the range", q->process);
		goto out;
	}
	from = q->from_ms > first ? q->from_ms : first;
	to = q->to_ms < last ? q->to_ms : last;
	if (nent && to >= from) {
		step = choose_step(to - from);
		qsort(ent, nent, sizeof(*ent), cmp_entry);
		watched_names(reader, &watched, &nwatched);
		groups = mw_xcalloc(nent, sizeof(*groups));
		for (i = 0; i < nent; i = j) {
			bool excluded, w;

			for (j = i + 1; j < nent && !strcmp(ent[i].group, ent[j].group); j++)
				;
			w = nwatched && bsearch(&ent[i].group, watched, nwatched, sizeof(*watched), cmp_str);
			if (judge_group(reader, ent + i, j - i, aspects, naspects, q, from, to, step, w,
					&groups[ngroups], &excluded, err))
				goto out;
			if (excluded) {
				nexcluded++;
				continue;
			}
			if (groups[ngroups].verdict == MW_VERDICT_INCONCLUSIVE) {
				/* when this group's first verdict can come: its
				 * longest-lived incarnation still alive, after the
				 * warm-up and the minimum duration */
				size_t k;

				for (k = i; k < j; k++) {
					int64_t at = ent[k].s->first_ts + q->params.warmup_ms +
						     q->params.min_duration_ms;

					if (ent[k].s->last_ts >= to - 2 * step && at > to && at < ready)
						ready = at;
				}
			}
			ngroups++;
		}
		qsort(groups, ngroups, sizeof(*groups), cmp_judged);
	}

	for (i = 0; i < ngroups; i++)
		counts[groups[i].verdict]++;
	if (verdicts) {
		memset(verdicts, 0, sizeof(*verdicts));
		verdicts->v = mw_xcalloc(ngroups ? ngroups : 1, sizeof(*verdicts->v));
		for (i = 0; i < ngroups; i++)
			verdicts->v[i] = groups[i].v;
		verdicts->n = ngroups;
		memcpy(verdicts->counts, counts, sizeof(counts));
	}
	/* One failing group fails the whole; a report where nothing could be
	 * judged is inconclusive; otherwise the groups that could be judged
	 * passed (processes too short-lived to judge do not hold a soak test
	 * hostage: select the process under test with process= to be strict). */
	if (counts[MW_VERDICT_FAIL])
		overall = MW_VERDICT_FAIL;
	else if (counts[MW_VERDICT_PASS])
		overall = MW_VERDICT_PASS;
	else
		overall = MW_VERDICT_INCONCLUSIVE;

	report = cJSON_CreateObject();
	cJSON_AddStringToObject(report, "verdict", mw_verdict_name(overall));
	if (ngroups == 0)
		cJSON_AddStringToObject(report, "reason", nent || nmatched ?
					"no data in the range" : "no series match");
	else if (overall == MW_VERDICT_INCONCLUSIVE && ready != INT64_MAX)
		cJSON_AddStringToObject(report, "reason", "too little data yet: warm-up and minimum duration not over");
	add_ts(report, "first_verdicts_ms", overall == MW_VERDICT_INCONCLUSIVE ? ready : INT64_MIN);
	add_ts(report, "from_ms", nent && to >= from ? from : q->from_ms);
	add_ts(report, "to_ms", nent && to >= from ? to : q->to_ms);
	cJSON_AddNumberToObject(report, "step_ms", (double)step);
	cJSON_AddStringToObject(report, "match", q->match ? q->match : "all");
	add_str(report, "process", q->process);
	add_params(report, q);
	c = cJSON_AddObjectToObject(report, "counts");
	cJSON_AddNumberToObject(c, "pass", (double)counts[MW_VERDICT_PASS]);
	cJSON_AddNumberToObject(c, "fail", (double)counts[MW_VERDICT_FAIL]);
	cJSON_AddNumberToObject(c, "inconclusive", (double)counts[MW_VERDICT_INCONCLUSIVE]);
	cJSON_AddNumberToObject(c, "excluded", (double)nexcluded);
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
	free(ent);
	for (i = 0; i < nwatched; i++)
		free(watched[i]);
	free(watched);
	for (a = 0; a < naspects; a++)
		mw_series_list_release(&lists[a]);
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

/* UTC "2026-11-21 10:42:07" (the same on every machine and in CI logs;
 * the header says UTC). */
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
	strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
}

#define TABLE_WIDTH 120
#define REASON_INDENT 14

/* The reason under its row, indented and folded at spaces to the width. */
static void print_reason(FILE *f, const char *reason)
{
	size_t room = TABLE_WIDTH - REASON_INDENT, len = strlen(reason);

	while (len > 0) {
		size_t n = len, cut;

		if (n > room) {
			for (cut = room; cut > 0 && reason[cut] != ' '; cut--)
				;
			n = cut ? cut : room;
		}
		fprintf(f, "%*s%.*s\n", REASON_INDENT, "", (int)n, reason);
		reason += n;
		len -= n;
		while (*reason == ' ') {
			reason++;
			len--;
		}
	}
}

void mw_leak_report_print(const cJSON *report, FILE *f)
{
	const cJSON *groups = cJSON_GetObjectItemCaseSensitive(report, "groups");
	const cJSON *counts = cJSON_GetObjectItemCaseSensitive(report, "counts");
	const cJSON *g;
	char from[32], to[32], ready[32];
	double excluded = num_of(counts, "excluded");
	bool any_watched = false;

	fmt_time(from, sizeof(from), num_of(report, "from_ms"));
	fmt_time(to, sizeof(to), num_of(report, "to_ms"));
	fprintf(f, "%s: %s%s%s from %s to %s UTC", str_of(report, "verdict", "?"),
		str_of(report, "process", NULL) ? "process " : "",
		str_of(report, "process", NULL) ? str_of(report, "process", "") : "",
		str_of(report, "process", NULL) ? "" : "every process", from, to);
	if (counts)
		fprintf(f, "\n  %.0f fail, %.0f inconclusive, %.0f pass", num_of(counts, "fail"),
			num_of(counts, "inconclusive"), num_of(counts, "pass"));
	if (isfinite(excluded) && excluded > 0)
		fprintf(f, "; %.0f without memory (kernel threads) left out", excluded);
	fputc('\n', f);
	if (str_of(report, "reason", NULL))
		fprintf(f, "%s\n", str_of(report, "reason", ""));
	if (isfinite(num_of(report, "first_verdicts_ms"))) {
		double in = (num_of(report, "first_verdicts_ms") - num_of(report, "to_ms")) / 60000;

		fmt_time(ready, sizeof(ready), num_of(report, "first_verdicts_ms"));
		fprintf(f, "first verdicts at %s UTC (%.0f min after the newest data)\n", ready,
			in > 0 ? ceil(in) : 0);
	}
	if (!cJSON_GetArraySize(groups))
		return;
	/* 12+2+26+2+12+2+10+2+19+2+10 = 99 columns, the reason below */
	fprintf(f, "\n%-12s  %-26s  %-12s  %10s  %-19s  %10s\n", "VERDICT", "PROCESS", "KIND",
		"RATE/h", "SINCE (UTC)", "GROWTH");
	cJSON_ArrayForEach(g, groups) {
		const char *unit = str_of(g, "unit", "bytes");
		char rate[32], since[32], growth[32], name[40];
		double slope = num_of(g, "slope_bytes_per_hour"), gr = num_of(g, "growth_bytes");
		bool fail = !strcmp(str_of(g, "verdict", ""), "fail");
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(g, "watched");

		/* a pass shows a rate only when it rises within the budget:
		 * no leak-like figure beside a pass */
		if (!fail && !(isfinite(gr) && gr > 0)) {
			slope = NAN;
			gr = NAN;
		}
		if (strcmp(unit, "bytes")) {
			snprintf(rate, sizeof(rate), isfinite(slope) ? "%+.0f" : "-", slope);
			snprintf(growth, sizeof(growth), isfinite(gr) ? "%+.0f" : "-", gr);
		} else {
			fmt_bytes(rate, sizeof(rate), slope);
			fmt_bytes(growth, sizeof(growth), gr);
		}
		fmt_time(since, sizeof(since), fail ? num_of(g, "onset_ms") : NAN);
		if (cJSON_IsTrue(w))
			any_watched = true;
		snprintf(name, sizeof(name), "%s%.24s", cJSON_IsTrue(w) ? "*" : "",
			 str_of(g, "process", "?"));
		fprintf(f, "%-12s  %-26s  %-12.12s  %10s  %-19s  %10s\n", str_of(g, "verdict", "?"), name,
			str_of(g, "kind", "-"), rate, since, growth);
		print_reason(f, str_of(g, "reason", ""));
	}
	if (any_watched)
		fprintf(f, "\n* watched process\n");
}
