/*
 * leak_report_read.c - one aspect of one group: the floors of its series
 * read from the store in chunks (one bucketed range query with agg=min
 * per chunk, which the rollups answer), each incarnation judged as it is
 * read (leak_group.c), and the best MW_LEAK_MAX_LISTED kept for the
 * report.  Memory is bounded by a chunk and the list, whatever the size
 * of the group (a build agent's `sleep` has tens of thousands); the
 * series come compacted (id and time span), the listed ones' identity is
 * read again by id (mw_leak_aspect_restore).
 *
 * Owner: the detector work.  Caller: leak_report_group.c.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "leak_report_internal.h"

/* ---- grouping --------------------------------------------------------------- */

const char *mw_leak_label_of(const struct mw_series_info *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nlabels; i++)
		if (!strcmp(s->labels[i].name, name))
			return s->labels[i].value;
	return NULL;
}

int64_t mw_leak_started_ms(const struct mw_series_info *s)
{
	const char *started = mw_leak_label_of(s, "started");
	long long start_s;
	char *end;

	if (!started)
		return INT64_MIN;
	errno = 0;
	start_s = strtoll(started, &end, 10);
	if (end == started || *end || errno || start_s <= 0 || start_s > INT64_MAX / 1000)
		return INT64_MIN;
	return start_s * 1000;
}

const struct mw_series_info *mw_leak_labelled(struct mw_reader *reader,
					      const struct mw_series_info *s,
					      struct mw_series_info *id)
{
	memset(id, 0, sizeof(*id));
	if (s->labels)
		return s;
	return mw_reader_series_identity(reader, s->id, id, NULL) ? NULL : id;
}

void mw_leak_incarnation_matcher(char *inc, size_t size, const char *started)
{
	size_t i;

	inc[0] = '\0';
	for (i = 0; started && started[i] >= '0' && started[i] <= '9'; i++)
		;
	if (i > 0 && !started[i] && i < 32)
		snprintf(inc, size, ",started=\"%s\"", started);
}

int mw_leak_read_sum(struct mw_reader *reader, const char *sel, int64_t from, int64_t to,
		     int64_t step, struct mw_trace *tr, double **sum)
{
	struct mw_range_query q;
	struct mw_range_result res = { 0 };
	size_t i, j;
	int rc = -1;

	mw_range_query_init(&q, from, to);
	q.step_ms = step;
	q.agg = MW_AGG_MIN;
	if (mw_reader_range(reader, sel, &q, &res, NULL) == 0 && res.nseries && res.nt) {
		*sum = mw_xcalloc(res.nt, sizeof(double));
		for (i = 0; i < res.nseries; i++)
			for (j = 0; j < res.nt; j++)
				(*sum)[j] += res.values[i][j];
		tr->t0_ms = res.t[0];
		tr->step_ms = res.step_ms;
		tr->v = *sum;
		tr->n = res.nt;
		rc = 0;
	}
	mw_range_result_release(&res);
	return rc;
}

/* Series i of a bucketed result as a trace without its leading and
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
static int listed_before(const struct mw_leak_listed *a, const struct mw_leak_listed *b)
{
	double sa = isnan(a->r.slope_bph) ? -INFINITY : a->r.slope_bph;
	double sb = isnan(b->r.slope_bph) ? -INFINITY : b->r.slope_bph;

	if (a->rank != b->rank)
		return a->rank > b->rank;
	if (sa != sb)
		return sa > sb;
	return a->s->id < b->s->id;
}

/* Keep the best MW_LEAK_MAX_LISTED, in order (insertion: the list is short). */
static void list_insert(struct mw_leak_aspect_result *ar, const struct mw_series_info *s,
			const struct mw_leak_result *r)
{
	struct mw_leak_listed item = { s, *r, mw_verdict_rank(r->verdict) };
	size_t i;

	if (ar->nlisted == MW_LEAK_MAX_LISTED &&
	    !listed_before(&item, &ar->list[ar->nlisted - 1]))
		return;
	if (ar->nlisted < MW_LEAK_MAX_LISTED)
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
 * The incarnations to read, into readable (the count returned); the
 * others only counted.  Incarnations too short to be judged are only
 * counted, not read, when the group's total will not be judged either
 * (one of them ended): a build agent's `sleep` with 25,000 incarnations
 * costs a count, not 25,000 reads.
 */
static size_t count_the_short(struct mw_leak_entry *sel, size_t n, const struct mw_leak_params *params,
			      int64_t from, int64_t to, int64_t step, struct mw_leak_group *g,
			      struct mw_leak_aspect_result *ar, struct mw_leak_entry **readable)
{
	bool any_ended = false;
	size_t i, nids = 0;

	for (i = 0; i < n; i++)
		if (ended_before(sel[i].s, to, step))
			any_ended = true;
	for (i = 0; i < n; i++) {
		const struct mw_series_info *s = sel[i].s;
		int64_t a = s->first_ts > from ? s->first_ts : from;
		int64_t b = s->last_ts < to ? s->last_ts : to;
		/* what judging needs: the warm-up left (none for a process
		 * that ran long before the range) and the minimum duration */
		int64_t judgeable = mw_leak_warmup_left(params, sel[i].started_ms, a, step) +
				    params->min_duration_ms - step;

		if (any_ended && n > 8 && b - a < judgeable) {
			struct mw_leak_result r;

			mw_leak_group_count(g, a, b, ended_before(s, to, step), &r);
			list_insert(ar, s, &r);
			continue;
		}
		readable[nids++] = &sel[i];
	}
	return nids;
}

/* What judging an aspect's incarnations needs beside each one. */
struct aspect_ctx {
	struct mw_reader *reader;
	int64_t from, to, step;
	mw_leak_incarnation_look look;	/* NULL: none */
};

/* Judge series j of a chunk's result as an incarnation of the group. */
static void judge_incarnation(const struct aspect_ctx *cx, const struct mw_range_result *res,
			      size_t j, const struct mw_leak_entry *e, struct mw_leak_group *g,
			      struct mw_leak_aspect_result *ar)
{
	const struct mw_series_info *s = e->s;
	struct mw_leak_params own = g->params;	/* with its process's start */
	struct mw_trace tr;
	struct mw_leak_result r;
	size_t k;

	trace_of(res, j, &tr);
	for (k = 0; k < tr.n; k++)
		if (isfinite(tr.v[k]) && tr.v[k] > ar->max_value)
			ar->max_value = tr.v[k];
	/* An incarnation that ended before the range did: its last bucket
	 * may hold the teardown (memory released on exit), a dip that is no
	 * part of its trend. */
	if (tr.n > 2 && res->nt && tr.t0_ms + (int64_t)(tr.n - 1) * tr.step_ms < res->t[res->nt - 1])
		tr.n--;
	own.process_start_ms = e->started_ms;
	mw_leak_judge(&tr, &own, &r);
	if (cx->look)
		cx->look(cx->reader, s, &tr, &own, cx->from, cx->to, cx->step, &r);
	mw_leak_group_add_judged(g, &tr, &r);
	if (r.verdict == MW_VERDICT_FAIL && g->best == (long)(g->ninc - 1))
		ar->deciding = s;
	list_insert(ar, s, &r);
}

int mw_leak_judge_aspect(struct mw_reader *reader, struct mw_leak_entry *sel, size_t n,
			 const struct mw_leak_params *params, int64_t from, int64_t to, int64_t step,
			 mw_leak_incarnation_look look, struct mw_leak_aspect_result *ar,
			 struct mw_err *err)
{
	const struct aspect_ctx cx = { reader, from, to, step, look };
	size_t nb = (size_t)((to - from) / step + 1), chunk, i, j, nids;
	struct mw_leak_entry **readable;
	struct mw_leak_group g;
	struct mw_series_info *known;
	int rc = -1;

	memset(ar, 0, sizeof(*ar));
	ar->present = true;
	ar->max_value = -1;
	/* each incarnation is listed at most once: a group of one needs one
	 * entry, not MW_LEAK_MAX_LISTED (zeroing 50 results for every group
	 * and aspect of a host was 6-8 % of a judgement's CPU) */
	ar->list = mw_xcalloc(n && n < MW_LEAK_MAX_LISTED ? n : MW_LEAK_MAX_LISTED,
			      sizeof(*ar->list));
	ar->ninc = n;
	mw_leak_group_begin(&g, params, from - from % step, step, nb);
	readable = mw_xcalloc(n, sizeof(*readable));
	nids = count_the_short(sel, n, params, from, to, step, &g, ar, readable);
	/* CHUNK_VALUES floors at a time, whatever the group's size */
	chunk = nb ? CHUNK_VALUES / nb : 1;
	if (chunk < 1)
		chunk = 1;
	if (chunk > nids)
		chunk = nids ? nids : 1;	/* not a million values' worth for a few */
	known = mw_xcalloc(chunk, sizeof(*known));
	for (i = 0; i < nids; i += chunk) {
		struct mw_range_query rq;
		struct mw_range_result res = { 0 };
		size_t m = nids - i < chunk ? nids - i : chunk;

		/* id and span as the look-up found them: not sought again */
		for (j = 0; j < m; j++)
			known[j] = *readable[i + j]->s;
		mw_range_query_init(&rq, from, to);
		rq.step_ms = step;
		rq.agg = MW_AGG_MIN;
		if (mw_reader_range_known(reader, known, m, &rq, &res, err)) {
			mw_range_result_release(&res);
			mw_leak_group_end(&g, &ar->g);
			goto out;
		}
		for (j = 0; j < m && j < res.nseries; j++)
			judge_incarnation(&cx, &res, j, readable[i + j], &g, ar);
		mw_range_result_release(&res);
	}
	mw_leak_group_end(&g, &ar->g);
	if (ar->g.deciding_incarnation < 0)
		ar->deciding = NULL;
	rc = 0;
out:
	free(known);
	free(readable);
	return rc;
}

void mw_leak_aspect_relist_fails(struct mw_leak_aspect_result *ar)
{
	size_t i;

	for (i = 0; i < ar->nlisted; i++)
		if (ar->list[i].r.verdict == MW_VERDICT_FAIL) {
			ar->list[i].r = ar->g.r;
			ar->list[i].rank = mw_verdict_rank(ar->g.r.verdict);
		}
}

void mw_leak_aspect_restore(struct mw_reader *reader, struct mw_leak_aspect_result *ar)
{
	size_t i;

	struct mw_series_list *f = &ar->full;

	if (!ar->present || f->items)
		return;
	f->items = mw_xcalloc(ar->nlisted + 1, sizeof(*f->items));
	for (i = 0; i <= ar->nlisted; i++) {
		const struct mw_series_info **p = i < ar->nlisted ? &ar->list[i].s : &ar->deciding;
		size_t k;

		if (!*p || (*p)->key)
			continue;
		/* the deciding one is most often listed too: read once */
		for (k = 0; k < f->n && f->items[k].id != (*p)->id; k++)
			;
		if (k < f->n)
			*p = &f->items[k];
		else if (mw_reader_series_identity(reader, (*p)->id, &f->items[f->n], NULL) == 0) {
			/* the span as judged, not sought again */
			f->items[f->n].first_ts = (*p)->first_ts;
			f->items[f->n].last_ts = (*p)->last_ts;
			*p = &f->items[f->n++];
		}
	}
}

void mw_leak_aspect_result_release(struct mw_leak_aspect_result *ar)
{
	mw_series_list_release(&ar->full);
	free(ar->list);
	ar->list = NULL;
}
