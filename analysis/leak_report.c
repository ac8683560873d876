/*
 * leak_report.c - the leak report (see leak_report.h): the series each
 * aspect selects, grouped by process name, each group judged
 * (leak_report_group.c), ranked and counted into the report's JSON.
 *
 * The floors come from one bucketed range query per process group with
 * agg=min: the store answers it from the 1-minute or 1-hour rollups when
 * the step allows, so judging a week of 1 Hz data reads about a thousand
 * rows per series, not 600,000 points.  A group is read, judged and
 * released before the next, so memory is bounded by the largest group,
 * not by the number of series in the file.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "core/watch.h"
#include "exit_check.h"
#include "leak_steps.h"
#include "leak_report_internal.h"

/* Buckets per judged range: enough for the statistics, few enough that
 * Theil-Sen's pairwise slopes stay cheap. */
#define TARGET_BUCKETS 700

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

/* The group a series belongs to: its process, else its own key. */
static const char *group_of(const struct mw_series_info *s)
{
	const char *p = mw_leak_label_of(s, "process");
	return p ? p : s->key;
}

/* The parameters the report was judged with, as the query gave them. */
static void add_params(struct mw_jw *w, const struct mw_leak_query *q)
{
	char buf[64];

	mw_jw_object(w, "params");
	mw_jw_int(w, "warmup_ms", q->params.warmup_ms);
	mw_jw_int(w, "min_duration_ms", q->params.min_duration_ms);
	mw_jw_double(w, "min_coverage", q->params.min_coverage);
	mw_jw_double(w, "max_growth_bytes_per_hour", q->params.budget_bytes_per_hour);
	mw_jw_double(w, "max_growth_relative_per_hour", q->params.budget_rel_per_hour);
	mw_format_growth_budget(buf, sizeof(buf), q->params.budget_bytes_per_hour,
				q->params.budget_rel_per_hour);
	mw_jw_str(w, "max_growth", buf);
	mw_jw_double(w, "max_count_growth_per_hour", q->params.budget_count_per_hour);
	mw_jw_int(w, "horizon_ms", q->params.horizon_ms);
	mw_jw_bool(w, "inconclusive_passes", q->inconclusive_passes);
	mw_jw_end(w);
}

/* The series of one selector, the live ones only when q says so. */
static int find_series(struct mw_reader *reader, const char *sel, bool live_only, int64_t from_ms,
		       struct mw_series_list *list, struct mw_err *err)
{
	struct mw_latest_list live = { 0 };
	size_t i;

	if (!live_only)
		return mw_reader_find(reader, sel, list, err);
	/* The live series only: one pass over the live table (ids, labels,
	 * newest point), then their spans by id (indexed reads). */
	if (mw_reader_latest(reader, sel, &live, err))
		return -1;
	list->items = mw_xcalloc(live.n ? live.n : 1, sizeof(*list->items));
	for (i = 0; i < live.n; i++) {
		/* take the live list's strings over */
		list->items[i] = live.items[i].info;
		memset(&live.items[i].info, 0, sizeof(live.items[i].info));
	}
	list->n = live.n;
	if (mw_reader_fill_spans(reader, list->items, list->n, err)) {
		mw_latest_list_release(&live);
		return -1;
	}
	for (i = 0; i < live.n; i++) {
		if (list->items[i].first_ts == INT64_MIN)
			list->items[i].first_ts = from_ms != INT64_MIN ? from_ms : live.items[i].ts_ms;
		if (list->items[i].last_ts == INT64_MIN || list->items[i].last_ts < live.items[i].ts_ms)
			list->items[i].last_ts = live.items[i].ts_ms;
	}
	mw_latest_list_release(&live);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
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
				const char *p = mw_leak_label_of(&l.items[i], "process");

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
		   struct mw_jbuf *out, enum mw_verdict *overall, struct mw_err *err)
{
	struct mw_leak_status verdicts;
	int rc = mw_leak_report_verdicts(reader, q, out, &verdicts, err);

	if (rc == 0 && overall)
		*overall = mw_leak_overall_verdict(verdicts.counts);
	mw_leak_status_release(&verdicts);
	return rc;
}

/*
 * The series selected for a report, as entries by group.  Each series
 * keeps only its id and time span once its group is known (compacted):
 * a build agent's `sleep` has tens of thousands of incarnations, and
 * holding every one's key and labels until the end cost ~1 KB a series
 * (a daemon judging 30 minutes of such churn peaked at 160-280 MB).  The
 * few incarnations a report names are read again by id
 * (mw_leak_aspect_restore).  Group names are held once each.
 */
struct selection {
	struct mw_series_list lists[MW_LEAK_NASPECTS];	/* per aspect, owned, compacted */
	struct mw_leak_entry *ent;	/* into lists */
	size_t nent, cap;
	size_t nmatched;		/* series the selectors matched, in range or not */
	int64_t first, last;		/* the span of the entries' data */
	char **names;			/* the group names: open addressing, owned */
	size_t nnames, names_cap;
};

static void selection_release(struct selection *sel, size_t naspects)
{
	size_t a;

	free(sel->ent);
	for (a = 0; a < naspects; a++)
		mw_series_list_release(&sel->lists[a]);
	for (a = 0; a < sel->names_cap; a++)
		free(sel->names[a]);
	free(sel->names);
}

static uint64_t name_hash(const char *p)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	while (*p)
		h = (h ^ (unsigned char)*p++) * 1099511628211ULL;
	return h;
}

/* The selection's own copy of group name g (added the first time). */
static const char *intern_name(struct selection *sel, const char *g)
{
	size_t mask, i;

	if (2 * (sel->nnames + 1) > sel->names_cap) {
		size_t cap = sel->names_cap ? 2 * sel->names_cap : 64, k;
		char **t = mw_xcalloc(cap, sizeof(*t));

		for (k = 0; k < sel->names_cap; k++) {
			if (!sel->names[k])
				continue;
			for (i = name_hash(sel->names[k]) & (cap - 1); t[i]; i = (i + 1) & (cap - 1))
				;
			t[i] = sel->names[k];
		}
		free(sel->names);
		sel->names = t;
		sel->names_cap = cap;
	}
	mask = sel->names_cap - 1;
	for (i = name_hash(g) & mask; sel->names[i]; i = (i + 1) & mask)
		if (!strcmp(sel->names[i], g))
			return sel->names[i];
	sel->nnames++;
	return sel->names[i] = mw_xstrdup(g);
}

/* Only the id and the time span stay (see struct selection). */
static void compact(struct mw_series_info *s)
{
	int64_t id = s->id, first = s->first_ts, last = s->last_ts;

	mw_series_info_release(s);
	s->id = id;
	s->first_ts = first;
	s->last_ts = last;
}

/* Series s, of group g, has data in q's range and is of q's process. */
static bool in_query(const struct mw_series_info *s, const char *g, const struct mw_leak_query *q)
{
	return s->first_ts != INT64_MIN && s->last_ts >= q->from_ms && s->first_ts <= q->to_ms &&
	       (!q->process || mw_image_name_match(q->process, g));
}

/* The identity of an incarnation: its process, pid and start time. */
static int cmp_incarnation(const void *a, const void *b)
{
	const struct mw_series_info *x = *(const struct mw_series_info *const *)a;
	const struct mw_series_info *y = *(const struct mw_series_info *const *)b;
	static const char *const keys[] = { "process", "pid", "started" };
	size_t k;
	int c = 0;

	for (k = 0; k < 3 && !c; k++) {
		const char *vx = mw_leak_label_of(x, keys[k]), *vy = mw_leak_label_of(y, keys[k]);

		c = strcmp(vx ? vx : "", vy ? vy : "");
	}
	return c;
}

/* A selector judges one series per process: the series of one process
 * are not its incarnations, and summing bytes with counts means nothing.
 * `match={process="app"}` (every metric of it) or a metric with a series
 * per kind is the caller's error, said with what it picked.  Checked on
 * the list as found, before the entries give up their labels. */
static int one_series_per_incarnation(const struct mw_series_list *list, const struct mw_leak_query *q,
				      struct mw_err *err)
{
	const struct mw_series_info **v;
	size_t i, j, n = 0;
	int rc = 0;

	if (!q->match || list->n < 2)
		return 0;
	v = mw_xmalloc(list->n * sizeof(*v));
	for (i = 0; i < list->n; i++) {
		const struct mw_series_info *s = &list->items[i];
		const char *g = mw_leak_label_of(s, "process");

		if (g && in_query(s, g, q))
			v[n++] = s;
	}
	qsort(v, n, sizeof(*v), cmp_incarnation);
	for (i = 0; i < n && !rc; i = j) {
		for (j = i + 1; j < n && !cmp_incarnation(&v[i], &v[j]); j++)
			;
		if (j - i > 1) {
			const char *pid = mw_leak_label_of(v[i], "pid");

			rc = mw_error(err, "match: '%s' selects %zu series of one process (%s, pid %s),"
				      " e.g. %s and %s: a leak is judged on one series per process;"
				      " name one metric (and kind), or leave match out to judge all"
				      " of each process's memory (choose processes by name with"
				      " process, --process NAME: * and ? wildcards)", q->match, j - i,
				      mw_leak_label_of(v[i], "process"), pid ? pid : "-", v[i]->key,
				      v[i + 1]->key);
		}
	}
	free(v);
	return rc;
}

/* Every series of each aspect with data in q's range and of q's process,
 * as an entry of its group. */
static int select_series(struct mw_reader *reader, const struct mw_leak_query *q,
			 const struct mw_leak_aspect *aspects, size_t naspects,
			 struct selection *sel, struct mw_err *err)
{
	size_t a, i;

	for (a = 0; a < naspects; a++) {
		if (find_series(reader, aspects[a].selector, q->live_only, q->from_ms, &sel->lists[a], err)) {
			mw_error_prefix(err, "match");
			return -1;
		}
		sel->nmatched += sel->lists[a].n;
		if (one_series_per_incarnation(&sel->lists[a], q, err))
			return -1;
		for (i = 0; i < sel->lists[a].n; i++) {
			struct mw_series_info *s = &sel->lists[a].items[i];
			const char *g = group_of(s);
			int64_t started;

			if (!in_query(s, g, q)) {
				compact(s);
				continue;
			}
			g = intern_name(sel, g);
			started = mw_leak_started_ms(s);
			compact(s);
			if (sel->nent == sel->cap) {
				sel->cap = sel->cap ? 2 * sel->cap : 256;
				sel->ent = mw_xrealloc(sel->ent, sel->cap * sizeof(*sel->ent));
			}
			sel->ent[sel->nent].group = g;
			sel->ent[sel->nent].aspect = (unsigned)a;
			sel->ent[sel->nent].s = s;
			sel->ent[sel->nent].started_ms = started;
			sel->nent++;
			if (s->first_ts < sel->first)
				sel->first = s->first_ts;
			if (s->last_ts > sel->last)
				sel->last = s->last_ts;
		}
	}
	/* A gate that selects nothing must not go green: a misspelt process
	 * or selector is the caller's error, not an empty pass. */
	if (!q->live_only && q->match && sel->nmatched == 0)
		return mw_error(err, "match: no series match '%s'", q->match);
	if (!q->live_only && q->process && sel->nent == 0 &&
	    !mw_exit_check_has_reports(reader, q))	/* a run known by its exit report only */
		return mw_error(err, "process: no process named '%s' has data in the range", q->process);
	return 0;
}

/* The groups judged, in ranked order. */
struct judged {
	struct mw_leak_judged_group *groups;
	size_t ngroups, nexcluded;
	int64_t ready;			/* when the first verdicts can come; INT64_MAX: n/a */
};

/* When an inconclusive group's first verdict can come: its longest-lived
 * incarnation still alive, after the warm-up and the minimum duration. */
static void note_first_verdict(const struct mw_leak_entry *e, size_t n, const struct mw_leak_query *q,
			       int64_t to, int64_t step, int64_t *ready)
{
	size_t k;

	for (k = 0; k < n; k++) {
		/* its first point in the range, then what is left of the
		 * process's warm-up there */
		int64_t first = e[k].s->first_ts > q->from_ms ? e[k].s->first_ts : q->from_ms;
		int64_t at = first + mw_leak_warmup_left(&q->params, e[k].started_ms, first, step) +
			     q->params.min_duration_ms;
		if (e[k].s->last_ts >= to - 2 * step && at > to && at < *ready)
			*ready = at;
	}
}

/* Judge every group of the selection over [from, to] on step, one group
 * read, judged and released before the next (side by side on q->threads
 * threads: leak_report_parallel.c); keep the judged ones in the
 * selection's order (ranked later). */
static int judge_groups(struct mw_reader *reader, const struct mw_leak_query *q,
			const struct mw_leak_aspect *aspects, size_t naspects, struct selection *sel,
			int64_t from, int64_t to, int64_t step, struct mw_exit_check *xc,
			struct judged *jg, struct mw_err *err)
{
	struct mw_leak_entry *ent = sel->ent;
	struct mw_leak_span *spans;
	struct mw_leak_judged_group *out;
	bool *excluded;
	char **watched = NULL;
	size_t nwatched = 0, nspans = 0, i, j, k;
	int rc;

	qsort(ent, sel->nent, sizeof(*ent), mw_leak_cmp_entry);
	watched_names(reader, &watched, &nwatched);
	/* one per group (the names are the selection's, one copy each) */
	spans = mw_xcalloc(sel->nnames ? sel->nnames : 1, sizeof(*spans));
	for (i = 0; i < sel->nent; i = j) {
		for (j = i + 1; j < sel->nent && ent[i].group == ent[j].group; j++)
			;
		spans[nspans].e = ent + i;
		spans[nspans].n = j - i;
		spans[nspans].watched = nwatched && bsearch(&ent[i].group, watched, nwatched,
							    sizeof(*watched), cmp_str);
		nspans++;
	}
	for (i = 0; i < nwatched; i++)
		free(watched[i]);
	free(watched);
	out = mw_xcalloc(nspans ? nspans : 1, sizeof(*out));
	excluded = mw_xcalloc(nspans ? nspans : 1, sizeof(*excluded));
	rc = mw_leak_judge_spans(reader, spans, nspans, aspects, naspects, q, from, to, step, xc,
				 out, excluded, err);
	jg->groups = out;
	for (k = 0; rc == 0 && k < nspans; k++) {
		if (excluded[k]) {
			free(out[k].json);
			jg->nexcluded++;
			continue;
		}
		if (out[k].verdict == MW_VERDICT_INCONCLUSIVE)
			note_first_verdict(spans[k].e, spans[k].n, q, to, step, &jg->ready);
		out[jg->ngroups++] = out[k];
	}
	free(excluded);
	free(spans);
	return rc;
}

/* A group for each process whose failing exit leak report no judged
 * group took: a run too short for series, or one imported. */
static void add_exit_groups(struct judged *jg, struct mw_exit_check *xc)
{
	const char *process, *reason;
	size_t i = 0;

	while (mw_exit_check_untaken(xc, &i, &process, &reason)) {
		struct mw_leak_judged_group *g;
		struct mw_jbuf json;

		jg->groups = mw_xrealloc(jg->groups, (jg->ngroups + 1) * sizeof(*jg->groups));
		g = &jg->groups[jg->ngroups++];
		memset(g, 0, sizeof(*g));
		mw_jbuf_init(&json);
		mw_exit_check_group_json(&json, process, reason);
		g->json = mw_jbuf_detach(&json, &g->len);
		mw_jbuf_release(&json);
		g->verdict = MW_VERDICT_FAIL;
		g->slope = NAN;
		snprintf(g->v.process, sizeof(g->v.process), "%s", process);
		g->v.verdict = MW_VERDICT_FAIL;
		snprintf(g->v.aspect, sizeof(g->v.aspect), "exit_leaks");
		snprintf(g->v.unit, sizeof(g->v.unit), "bytes");
		snprintf(g->v.kind, sizeof(g->v.kind), "exit leak");
		g->v.slope_per_hour = g->v.growth = g->v.projected = NAN;
		g->v.onset_ms = INT64_MIN;
	}
}

/* Every group's verdict as a structure, in ranked order (the judge
 * service publishes and stores them). */
static void copy_verdicts(const struct judged *jg, const size_t counts[4],
			  struct mw_leak_status *verdicts)
{
	size_t i;

	memset(verdicts, 0, sizeof(*verdicts));
	verdicts->v = mw_xcalloc(jg->ngroups ? jg->ngroups : 1, sizeof(*verdicts->v));
	for (i = 0; i < jg->ngroups; i++)
		verdicts->v[i] = jg->groups[i].v;
	verdicts->n = jg->ngroups;
	memcpy(verdicts->counts, counts, 4 * sizeof(counts[0]));
}

enum mw_verdict mw_leak_overall_verdict(const size_t counts[4])
{
	/* One failing group fails the whole; a report where nothing could be
	 * judged is inconclusive; otherwise the groups that could be judged
	 * passed (processes too short-lived to judge do not hold a soak test
	 * hostage: select the process under test with process= to be strict). */
	if (counts[MW_VERDICT_FAIL])
		return MW_VERDICT_FAIL;
	if (counts[MW_VERDICT_PASS])
		return MW_VERDICT_PASS;
	return MW_VERDICT_INCONCLUSIVE;
}

/* The report's JSON into out: the groups' JSON, written by
 * leak_report_group.c, in ranked order up to q's limit. */
static void report_json(struct mw_jbuf *out, const struct mw_leak_query *q,
			const struct selection *sel, const struct judged *jg, const size_t counts[4],
			const struct mw_exit_check *xc, bool judged_range, int64_t from, int64_t to,
			int64_t step)
{
	enum mw_verdict overall = mw_leak_overall_verdict(counts);
	struct mw_jw w;
	size_t i;

	mw_jw_init(&w, out);
	mw_jw_object(&w, NULL);
	mw_jw_str(&w, "verdict", mw_verdict_name(overall));
	if (jg->ngroups == 0)
		mw_jw_str(&w, "reason", sel->nent || sel->nmatched ?
			  "no data in the range" : "no series match");
	else if (overall == MW_VERDICT_INCONCLUSIVE && jg->ready != INT64_MAX)
		mw_jw_str(&w, "reason", "too little data yet: warm-up and minimum duration not over");
	mw_leak_json_ts(&w, "first_verdicts_ms", overall == MW_VERDICT_INCONCLUSIVE ? jg->ready : INT64_MIN);
	mw_leak_json_ts(&w, "from_ms", judged_range ? from : q->from_ms);
	mw_leak_json_ts(&w, "to_ms", judged_range ? to : q->to_ms);
	mw_jw_int(&w, "step_ms", step);
	mw_jw_str(&w, "match", q->match ? q->match : "all");
	mw_jw_str(&w, "process", q->process);
	add_params(&w, q);
	mw_jw_object(&w, "counts");
	mw_jw_uint(&w, "pass", counts[MW_VERDICT_PASS]);
	mw_jw_uint(&w, "fail", counts[MW_VERDICT_FAIL]);
	mw_jw_uint(&w, "inconclusive", counts[MW_VERDICT_INCONCLUSIVE]);
	mw_jw_uint(&w, "excluded", jg->nexcluded);
	mw_jw_end(&w);
	mw_jw_uint(&w, "groups_total", jg->ngroups);
	mw_jw_array(&w, "groups");
	for (i = 0; i < jg->ngroups && (!q->limit || i < q->limit); i++)
		mw_jw_json(&w, NULL, jg->groups[i].json, jg->groups[i].len);
	mw_jw_end(&w);
	mw_exit_check_json(&w, xc);
	mw_jw_end(&w);
}

int mw_leak_report_verdicts(struct mw_reader *reader, const struct mw_leak_query *qin,
			    struct mw_jbuf *out, struct mw_leak_status *verdicts, struct mw_err *err)
{
	/* the query with the holes clock steps left (leak_steps.h) */
	struct mw_time_hole holes[MW_LEAK_MAX_HOLES];
	struct mw_leak_query qq = *qin, *q = &qq;
	struct mw_leak_aspect user;
	const struct mw_leak_aspect *aspects;
	size_t naspects = mw_leak_aspects_for(q, &user, &aspects), counts[4] = { 0 }, i;
	struct selection sel;
	struct judged jg = { NULL, 0, 0, INT64_MAX };
	struct mw_exit_check xc;
	int64_t from, to, step = 0;
	bool judged_range;
	int rc = -1;

	if (verdicts)
		memset(verdicts, 0, sizeof(*verdicts));
	memset(&xc, 0, sizeof(xc));
	memset(&sel, 0, sizeof(sel));
	sel.first = INT64_MAX;
	sel.last = INT64_MIN;
	/* one read transaction for the thousands of small reads that find
	 * the series, not one each (mw_reader_snapshot_begin) */
	if (mw_reader_snapshot_begin(reader, err))
		goto out;
	rc = select_series(reader, q, aspects, naspects, &sel, err);
	mw_reader_snapshot_end(reader);
	if (rc)
		goto out;
	rc = -1;
	from = q->from_ms > sel.first ? q->from_ms : sel.first;
	to = q->to_ms < sel.last ? q->to_ms : sel.last;
	/* A point stamped in the future (a clock-skewed import, a step of the
	 * clock) is not "now": an open range ends at the present, and never
	 * outside what a query can take (years 0001 to 9999). */
	if (q->to_ms == INT64_MAX && to > mw_clock_wall_ms())
		to = mw_clock_wall_ms();
	if (to > MW_TIME_MAX)
		to = MW_TIME_MAX;
	if (from < MW_TIME_MIN)
		from = MW_TIME_MIN;
	judged_range = sel.nent && to >= from;
	if (judged_range) {
		qq.params.holes = holes;
		qq.params.nholes = mw_leak_read_holes(reader, from, to, holes, MW_LEAK_MAX_HOLES);
	}
	mw_exit_check_read(reader, q, &xc);
	if (judged_range) {
		step = choose_step(to - from);
		if (judge_groups(reader, q, aspects, naspects, &sel, from, to, step, &xc, &jg, err))
			goto out;
	}
	add_exit_groups(&jg, &xc);
	qsort(jg.groups, jg.ngroups, sizeof(*jg.groups), mw_leak_cmp_judged);
	for (i = 0; i < jg.ngroups; i++)
		counts[jg.groups[i].verdict]++;
	if (verdicts)
		copy_verdicts(&jg, counts, verdicts);
	if (out)
		report_json(out, q, &sel, &jg, counts, &xc, judged_range, from, to, step);
	rc = 0;
out:
	for (i = 0; i < jg.ngroups; i++)
		free(jg.groups[i].json);
	free(jg.groups);
	mw_exit_check_release(&xc);
	selection_release(&sel, naspects);
	return rc;
}


enum mw_verdict mw_leak_verdict_gate(enum mw_verdict v, bool inconclusive_passes)
{
	return v == MW_VERDICT_INCONCLUSIVE && inconclusive_passes ? MW_VERDICT_PASS : v;
}
