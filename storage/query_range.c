/*
 * query_range.c - range reads (query.h "range queries"): the series'
 * points over [from, to] bucketed from the tier the plan picks, or raw.
 *
 * Tier choice: rollup rows are exact min/max/sum/last per aligned bucket,
 * so a query whose step is a multiple of a tier's resolution can be
 * answered from that tier without loss; the coarsest such tier reads the
 * fewest rows.  The newest stretch not yet rolled up (the bucket in
 * progress) comes from the raw chunks.
 *
 * Uses reader.c, query_series.c (the series and their ranges),
 * query_plan.c (step, tier, size) and query_top.c.  Used by callers of
 * query.h (web, analysis, forward, the CLI) and by processes.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "query_impl.h"
#include "codec.h"
#include "rollup.h"
#include "base/clock.h"
#include "base/parallel.h"
#include "base/xalloc.h"

static const char *const range_sql[MW_READER_SLOTS] = {
	[MW_SLOT_CHUNK_RANGE] = MW_SQL_CHUNK_RANGE,
#define ROLLUP_SQL(col, table) "SELECT t, count, base, " col " FROM " table \
	" WHERE series_id = ? AND t >= ? AND t <= ? ORDER BY t"
	[MW_SLOT_ROLLUP_1M + MW_AGG_AVG] = ROLLUP_SQL("sum", "rollup_1m_all"),
	[MW_SLOT_ROLLUP_1M + MW_AGG_MIN] = ROLLUP_SQL("min", "rollup_1m_all"),
	[MW_SLOT_ROLLUP_1M + MW_AGG_MAX] = ROLLUP_SQL("max", "rollup_1m_all"),
	[MW_SLOT_ROLLUP_1M + MW_AGG_LAST] = ROLLUP_SQL("last", "rollup_1m_all"),
	[MW_SLOT_ROLLUP_10M + MW_AGG_AVG] = ROLLUP_SQL("sum", "rollup_10m_data"),
	[MW_SLOT_ROLLUP_10M + MW_AGG_MIN] = ROLLUP_SQL("min", "rollup_10m_data"),
	[MW_SLOT_ROLLUP_10M + MW_AGG_MAX] = ROLLUP_SQL("max", "rollup_10m_data"),
	[MW_SLOT_ROLLUP_10M + MW_AGG_LAST] = ROLLUP_SQL("last", "rollup_10m_data"),
	[MW_SLOT_ROLLUP_1H + MW_AGG_AVG] = ROLLUP_SQL("sum", "rollup_1h_data"),
	[MW_SLOT_ROLLUP_1H + MW_AGG_MIN] = ROLLUP_SQL("min", "rollup_1h_data"),
	[MW_SLOT_ROLLUP_1H + MW_AGG_MAX] = ROLLUP_SQL("max", "rollup_1h_data"),
	[MW_SLOT_ROLLUP_1H + MW_AGG_LAST] = ROLLUP_SQL("last", "rollup_1h_data"),
	[MW_SLOT_RAW_COUNT] = "SELECT npoints, id FROM chunk WHERE series_id = ?1 "
			      "AND max_ts >= ?2 AND min_ts <= ?3",
};

static sqlite3_stmt *stmt(struct mw_reader *r, int slot, struct mw_err *err)
{
	return mw_reader_stmt(r, slot, range_sql[slot], err);
}

/* ---- range queries ---------------------------------------------------------- */

void mw_range_result_release(struct mw_range_result *res)
{
	size_t i;

	for (i = 0; i < res->nseries; i++) {
		mw_series_info_release(&res->series[i]);
		free(res->values[i]);
	}
	free(res->series);
	free(res->values);
	free(res->growth);
	free(res->t);
	memset(res, 0, sizeof(*res));
}

struct bucket {
	double min, max, sum, last;
	int64_t last_ts, count;
};

struct bucketing {
	int64_t from, to, step, first;	/* first = floor(from / step) */
	size_t nb;
	struct bucket *b;
};

static void bucket_add(struct bucketing *bk, int64_t ts, double min, double max,
		       double sum, double last, int64_t count)
{
	struct bucket *b;

	if (ts < bk->from || ts > bk->to || isnan(sum))
		return;
	b = &bk->b[mw_floor_div(ts, bk->step) - bk->first];
	if (!b->count) {
		b->min = min;
		b->max = max;
		b->sum = sum;
		b->last = last;
		b->last_ts = ts;
		b->count = count;
		return;
	}
	if (min < b->min)
		b->min = min;
	if (max > b->max)
		b->max = max;
	b->sum += sum;
	b->count += count;
	if (ts >= b->last_ts) {
		b->last = last;
		b->last_ts = ts;
	}
}

/* Raw points of one series in [lo, to] into buckets. */
static int raw_into(struct mw_reader *r, sqlite3_stmt *st, int64_t id, int64_t lo,
		    struct bucketing *bk, struct mw_err *err)
{
	int rc;

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, lo);
	sqlite3_bind_int64(st, 3, bk->to);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct mw_chunk_dec d;
		int64_t ts;
		double v;
		const uint8_t *blob;
		size_t len;

		if (mw_reader_chunk_blob(r, st, 0, 1, NULL, &blob, &len, err)) {
			sqlite3_reset(st);
			return -1;
		}
		if (mw_chunk_dec_init(&d, blob, len))
			continue;	/* a corrupt chunk reads as a gap */
		while (mw_chunk_dec_next(&d, &ts, &v) == 1)
			if (ts >= lo)
				bucket_add(bk, ts, v, v, v, v, 1);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : mw_reader_fail(r, err);
}

/* Fill one series' buckets from a tier (plus raw for what it lacks).
 * Rollup rows are read for agg only: its one column (sum for avg), as
 * mw_rollup_column computes it, fills every field of the bucket, of which
 * agg_value() reads only agg's.  Half the columns: ~1.5x fewer cycles a
 * row (bench_storage history), the row stepping being the cost. */
static int fill_buckets(struct mw_reader *r, int tier, enum mw_agg agg, int64_t id,
			struct bucketing *bk, struct mw_err *err)
{
	sqlite3_stmt *raw = stmt(r, MW_SLOT_CHUNK_RANGE, err), *st, *cov;
	int64_t lo = bk->from;
	int step;

	if (!raw)
		return -1;
	if (tier > 0) {
		if (!(cov = mw_reader_tier_last(r, tier, err)) ||
		    !(st = stmt(r, MW_SLOT_ROLLUP_1M + 4 * (tier - 1) + (int)agg, err)))
			return -1;
		lo = mw_stmt_int(cov, id, INT64_MIN);
		lo = lo == INT64_MIN ? bk->from : lo + mw_tier_res[tier];
		/* bucket numbers whose start lies in [from, to] */
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, mw_floor_div(bk->from - 1, mw_tier_res[tier]) + 1);
		sqlite3_bind_int64(st, 3, mw_floor_div(bk->to, mw_tier_res[tier]));
		while ((step = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t count = sqlite3_column_int64(st, 1);
			double base = sqlite3_column_double(st, 2), v;

			v = agg == MW_AGG_AVG ? base * (double)count + sqlite3_column_double(st, 3)
					      : base + sqlite3_column_double(st, 3);
			bucket_add(bk, sqlite3_column_int64(st, 0) * mw_tier_res[tier], v, v, v, v,
				   count);
		}
		sqlite3_reset(st);
		if (step != SQLITE_DONE)
			return mw_reader_fail(r, err);
		if (lo < bk->from)
			lo = bk->from;
	}
	if (lo <= bk->to && raw_into(r, raw, id, lo, bk, err))
		return -1;
	return 0;
}

static double agg_value(const struct bucket *b, enum mw_agg agg)
{
	if (!b->count)
		return NAN;
	switch (agg) {
	case MW_AGG_MIN:
		return b->min;
	case MW_AGG_MAX:
		return b->max;
	case MW_AGG_LAST:
		return b->last;
	default:
		return b->sum / (double)b->count;
	}
}


/* Rank series i of a bucketed read among the kept[0..*nkept): hold at
 * most `top` value arrays, evicting the lowest ranked. */
static void rank_one(struct mw_range_result *res, struct mw_ranked *kept, size_t *nkept,
		     size_t top, size_t i)
{
	struct mw_ranked cur;
	size_t w, j;

	cur.i = i;
	cur.g = mw_column_growth(res->values[i], res->nt);
	if (*nkept < top) {
		kept[(*nkept)++] = cur;
		return;
	}
	for (w = 0, j = 1; j < *nkept; j++)
		if (mw_ranked_cmp(&kept[j], &kept[w]) > 0)
			w = j;
	if (mw_ranked_cmp(&cur, &kept[w]) < 0) {
		free(res->values[kept[w].i]);
		res->values[kept[w].i] = NULL;
		kept[w] = cur;
	} else {
		free(res->values[i]);
		res->values[i] = NULL;
	}
}

/* The bucket axis of step over the query's range into bk and res. */
static void bucket_axis(const struct mw_range_query *q, int64_t step, int tier,
			struct bucketing *bk, struct mw_range_result *res)
{
	size_t j;

	memset(bk, 0, sizeof(*bk));
	bk->step = step;
	bk->first = mw_floor_div(q->from_ms, step);
	bk->nb = (size_t)mw_nbuckets(q->from_ms, q->to_ms, step);
	bk->from = bk->first * step;	/* whole buckets, see query.h */
	bk->to = (bk->first + (int64_t)bk->nb) * step - 1;
	bk->b = mw_xcalloc(bk->nb, sizeof(*bk->b));
	res->step_ms = step;
	res->tier = (enum mw_tier)tier;
	res->nt = bk->nb;
	res->t = mw_xmalloc(bk->nb * sizeof(*res->t));
	for (j = 0; j < bk->nb; j++)
		res->t[j] = (bk->first + (int64_t)j) * step;
}

/* Series i's values from its buckets on bk's axis (bk->b cleared first). */
static int fill_series(struct mw_reader *r, int tier, enum mw_agg agg, struct bucketing *bk,
		       struct mw_range_result *res, size_t i, struct mw_err *err)
{
	size_t j;

	memset(bk->b, 0, bk->nb * sizeof(*bk->b));
	if (mw_reader_check_deadline(r, err) ||
	    fill_buckets(r, tier, agg, res->series[i].id, bk, err))
		return -1;
	res->values[i] = mw_xmalloc(bk->nb * sizeof(double));
	for (j = 0; j < bk->nb; j++)
		res->values[i][j] = agg_value(&bk->b[j], agg);
	return 0;
}

/*
 * The series of a bucketed read shared out among threads (a 7-day chart
 * of hundreds of processes steps a thousand rollup rows a series, and the
 * stepping is the cost): each thread takes the next series from a
 * counter and reads it through a reader of its own, in its own read
 * transaction, into its own buckets; every series' values land in its
 * slot.  A thread whose reader cannot open or begin takes none.
 */
struct fill_share {
	struct mw_reader *r0;
	const struct mw_range_query *q;
	struct mw_range_result *res;
	const struct bucketing *axis;
	int tier;
	struct mw_share items;		/* the series */
};

static void fill_worker(void *arg, size_t worker)
{
	struct fill_share *sh = arg;
	struct mw_reader *own = NULL, *r = sh->r0;
	struct bucketing bk = *sh->axis;
	struct mw_err err;
	size_t i;

	if (worker > 0) {
		if (mw_reader_open_like(&own, sh->r0, &err))
			return;
		if (mw_reader_begin(own, &err)) {
			mw_reader_free(own);
			return;
		}
		r = own;
	}
	bk.b = mw_xcalloc(bk.nb, sizeof(*bk.b));
	while (mw_share_next(&sh->items, &i))
		if (fill_series(r, sh->tier, sh->q->agg, &bk, sh->res, i, &err))
			mw_share_fail(&sh->items, i, &err, (int)mw_reader_error_kind(r));
	free(bk.b);
	if (own) {
		mw_reader_end(own);
		mw_reader_free(own);
	}
}

static int fill_shared(struct mw_reader *r, const struct mw_range_query *q, int tier,
		       const struct bucketing *axis, struct mw_range_result *res, struct mw_err *err)
{
	struct fill_share sh = { r, q, res, axis, tier, { 0 } };
	size_t threads = q->threads < MW_RANGE_MAX_THREADS ? q->threads : MW_RANGE_MAX_THREADS;
	int kind;

	if (threads > res->nseries / (MW_RANGE_SHARE_FROM / 2))
		threads = res->nseries / (MW_RANGE_SHARE_FROM / 2);
	mw_share_init(&sh.items, res->nseries);
	mw_parallel_run(threads, fill_worker, &sh);
	if (!mw_share_end(&sh.items, err, &kind))
		return 0;
	mw_reader_set_kind(r, (enum mw_query_error)kind);
	return -1;
}

static int query_bucketed(struct mw_reader *r, const struct mw_range_query *q, size_t maxp,
			  struct mw_range_result *res, struct mw_err *err)
{
	int64_t step = q->step_ms;
	struct bucketing bk;
	struct mw_ranked *kept = NULL;
	size_t i, nkept = 0, top = q->top;
	int tier;

	if (step > 0) {
		/* Explicit: honoured exactly (checked by mw_range_query_check). */
		tier = mw_explicit_tier(q);
	} else {
		step = mw_auto_step(q->from_ms, q->to_ms, maxp);
		if ((tier = mw_auto_tier(r, q, res, &step, err)) < 0)
			return -1;
	}
	bucket_axis(q, step, tier, &bk, res);
	/* many series, every one kept: shared out (top ranks as it reads,
	 * holding only `top` value arrays) */
	if (!top && q->threads > 1 && res->nseries >= MW_RANGE_SHARE_FROM) {
		int rc = fill_shared(r, q, tier, &bk, res, err);

		free(bk.b);
		return rc;
	}
	if (top)
		kept = mw_xmalloc((top < res->nseries ? top : res->nseries) * sizeof(*kept) + 1);
	for (i = 0; i < res->nseries; i++) {
		if (fill_series(r, tier, q->agg, &bk, res, i, err)) {
			free(bk.b);
			free(kept);
			return -1;
		}
		if (top)
			rank_one(res, kept, &nkept, top, i);
	}
	free(bk.b);
	if (top)
		mw_range_keep(res, kept, nkept);
	free(kept);
	return 0;
}

struct raw_point {
	int64_t ts;
	size_t series;
	double v;
};

static int cmp_point(const void *a, const void *b)
{
	const struct raw_point *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->series < y->series ? -1 : x->series > y->series;
}

static int query_raw(struct mw_reader *r, const struct mw_range_query *q, size_t maxp,
		     struct mw_range_result *res, struct mw_err *err)
{
	struct raw_point *pts = NULL;
	size_t n = 0, cap = 0, i, j;
	sqlite3_stmt *st;
	int rc = 0;

	res->step_ms = MW_STEP_RAW;
	res->tier = MW_TIER_RAW;
	if (!(st = stmt(r, MW_SLOT_CHUNK_RANGE, err)))
		return -1;
	for (i = 0; i < res->nseries && !rc; i++) {
		size_t mine = 0;	/* this series' points: at most maxp are needed */

		sqlite3_bind_int64(st, 1, res->series[i].id);
		sqlite3_bind_int64(st, 2, q->from_ms);
		sqlite3_bind_int64(st, 3, q->to_ms);
		while (mine < maxp && !mw_reader_expired(r) && (rc = sqlite3_step(st)) == SQLITE_ROW) {
			struct mw_chunk_dec d;
			struct raw_point p;

			const uint8_t *blob;
			size_t len;

			if (mw_reader_chunk_blob(r, st, 0, 1, NULL, &blob, &len, err)) {
				rc = -2;
				break;
			}
			if (mw_chunk_dec_init(&d, blob, len))
				continue;
			p.series = i;
			while (mine < maxp && mw_chunk_dec_next(&d, &p.ts, &p.v) == 1) {
				if (p.ts < q->from_ms || p.ts > q->to_ms)
					continue;
				MW_GROW(pts, cap, n + 1);
				pts[n++] = p;
				mine++;
			}
		}
		sqlite3_reset(st);
		if (rc == -2)
			rc = -1;	/* chunk_tail could not be read: said in err */
		else if (mw_reader_expired(r))
			rc = mw_reader_deadline_fail(r, err);
		else
			rc = rc == SQLITE_DONE || rc == SQLITE_ROW || mine >= maxp ? 0
			     : mw_reader_fail(r, err);
	}
	if (rc) {
		free(pts);
		return -1;
	}
	if (n)
		qsort(pts, n, sizeof(*pts), cmp_point);
	res->t = mw_xmalloc((n ? n : 1) * sizeof(*res->t));
	for (i = 0; i < n; i++)
		if (!res->nt || res->t[res->nt - 1] != pts[i].ts) {
			if (res->nt == maxp) {
				res->truncated = true;
				break;
			}
			res->t[res->nt++] = pts[i].ts;
		}
	for (i = 0; i < res->nseries; i++) {
		res->values[i] = mw_xmalloc((res->nt ? res->nt : 1) * sizeof(double));
		for (j = 0; j < res->nt; j++)
			res->values[i][j] = NAN;
	}
	for (i = 0, j = 0; i < n; i++) {
		while (j < res->nt && res->t[j] < pts[i].ts)
			j++;
		if (j == res->nt)
			break;
		res->values[pts[i].series][j] = pts[i].v;	/* last one wins */
	}
	free(pts);
	if (q->top)
		mw_range_top(res, q->top);
	return 0;
}

/* Whether every series has at most maxp raw points in [from, to] (chunk
 * counts).  Stops at the first series over maxp, and counts that one's
 * chunks only until it is over: a week at 1 Hz is ~5,000 chunks a series,
 * each a table lookup, where ~10 decide. */
static bool raw_fits(struct mw_reader *r, const struct mw_range_query *q,
		     const struct mw_range_result *res, size_t maxp)
{
	sqlite3_stmt *st = stmt(r, MW_SLOT_RAW_COUNT, NULL);
	int64_t n = 0;
	size_t i;

	if (!st)
		return false;
	for (i = 0; i < res->nseries && n <= (int64_t)maxp && !mw_reader_expired(r); i++) {
		sqlite3_bind_int64(st, 1, res->series[i].id);
		sqlite3_bind_int64(st, 2, q->from_ms);
		sqlite3_bind_int64(st, 3, q->to_ms);
		for (n = 0; n <= (int64_t)maxp && sqlite3_step(st) == SQLITE_ROW;) {
			int64_t rows = sqlite3_column_int64(st, 0), ts, tail;
			double v;

			/* points chunk_tail holds past the row's count */
			if (mw_reader_chunk_newest(r, sqlite3_column_int64(st, 1), rows, &ts, &v,
						   &tail, NULL) == 1)
				rows = tail;
			n += rows;
		}
		sqlite3_reset(st);
	}
	return n <= (int64_t)maxp;
}

/* spans_known: list's first_ts and last_ts come from the caller's own
 * look-up (mw_reader_range_known), so mw_reader_fill_range's index seeks
 * (up to nine a series) are not made again. */
static int range(struct mw_reader *r, struct mw_series_list *list,
		 const struct mw_range_query *q_in, bool spans_known,
		 struct mw_range_result *out, struct mw_err *err)
{
	struct mw_range_query q = *q_in;
	size_t maxp = mw_points_limit(&q), i;
	int64_t lo = INT64_MAX;
	bool raw, raw_ok;
	int rc;

	out->series = list->items;
	out->nseries = out->series_total = list->n;
	out->agg = q.agg;
	list->items = NULL;
	list->n = 0;
	out->values = mw_xcalloc(out->nseries ? out->nseries : 1, sizeof(*out->values));
	if (mw_range_query_check(&q, err)) {
		mw_reader_set_kind(r, MW_QERR_BAD);
		return -1;
	}
	if (mw_range_check_size(r, &q, out->nseries, maxp, &raw_ok, err))
		return -1;
	if (!spans_known && mw_reader_fill_range(r, out->series, out->nseries, err))
		return -1;
	/* Before 1970: from the first stored point (nothing is older). */
	if (q.from_ms < 0) {
		for (i = 0; i < out->nseries; i++)
			if (out->series[i].first_ts != INT64_MIN && out->series[i].first_ts < lo)
				lo = out->series[i].first_ts;
		if (lo == INT64_MAX)
			lo = 0;
		if (lo > q.from_ms)
			q.from_ms = lo < q.to_ms ? lo : q.to_ms;
	}
	raw = q.step_ms == MW_STEP_RAW;
	if (q.step_ms == MW_STEP_AUTO && (q.tier == MW_TIER_AUTO || q.tier == MW_TIER_RAW) &&
	    raw_ok) {
		raw = raw_fits(r, &q, out, maxp);
		if (mw_reader_check_deadline(r, err))
			return -1;
	}
	rc = raw ? query_raw(r, &q, maxp, out, err) : query_bucketed(r, &q, maxp, out, err);
	return rc;
}

/* Read the range of the series loaded into list (rc: whether loading
 * them failed), then end the call: its transaction, list, the result on
 * failure, the statistics. */
static int range_and_end(struct mw_reader *r, int rc, struct mw_series_list *list,
			 const struct mw_range_query *q, bool spans_known,
			 struct mw_range_result *out, int64_t t0, struct mw_err *err)
{
	if (!rc)
		rc = range(r, list, q, spans_known, out, err);
	mw_reader_end(r);
	mw_series_list_release(list);
	if (rc)
		mw_range_result_release(out);
	mw_reader_count(t0);
	return rc;
}

int mw_reader_range(struct mw_reader *r, const char *selector,
		    const struct mw_range_query *q, struct mw_range_result *out,
		    struct mw_err *err)
{
	int64_t t0 = mw_clock_mono_ns();
	struct mw_series_list list;
	struct mw_selector sel;
	int rc;

	memset(out, 0, sizeof(*out));
	if (mw_reader_begin_selected(r, selector, &sel, err))
		return -1;
	rc = mw_reader_load_series(r, &sel, NULL, NULL, &list, err);
	mw_selector_release(&sel);
	return range_and_end(r, rc, &list, q, false, out, t0, err);
}

/* The start of a read of a series list: its clock, an empty result and
 * the transaction. */
static int begin_list_range(struct mw_reader *r, struct mw_range_result *out, int64_t *t0,
			    struct mw_err *err)
{
	*t0 = mw_clock_mono_ns();
	memset(out, 0, sizeof(*out));
	return mw_reader_begin(r, err);
}

int mw_reader_range_ids(struct mw_reader *r, const int64_t *ids, size_t nids,
			const struct mw_range_query *q, struct mw_range_result *out,
			struct mw_err *err)
{
	struct mw_series_list list = { NULL, 0 };
	size_t i, cap = 0;
	int64_t t0;
	int rc = 0;

	if (begin_list_range(r, out, &t0, err))
		return -1;
	for (i = 0; i < nids && !rc; i++) {
		struct mw_series_list one;

		rc = mw_reader_load_series(r, NULL, &ids[i], NULL, &one, err);
		if (!rc && !one.n)
			rc = mw_error(err, "no series with id %lld", (long long)ids[i]);
		if (!rc) {
			MW_GROW(list.items, cap, list.n + 1);
			list.items[list.n++] = one.items[0];
			free(one.items);
		} else {
			mw_series_list_release(&one);
		}
	}
	return range_and_end(r, rc, &list, q, false, out, t0, err);
}

int mw_reader_range_known(struct mw_reader *r, const struct mw_series_info *known, size_t n,
			  const struct mw_range_query *q, struct mw_range_result *out,
			  struct mw_err *err)
{
	struct mw_series_list list = { NULL, 0 };
	size_t i;
	int64_t t0;

	if (begin_list_range(r, out, &t0, err))
		return -1;
	list.items = mw_xcalloc(n ? n : 1, sizeof(*list.items));
	for (i = 0; i < n; i++) {
		list.items[i].id = known[i].id;
		list.items[i].first_ts = known[i].first_ts;
		list.items[i].last_ts = known[i].last_ts;
	}
	list.n = n;
	return range_and_end(r, 0, &list, q, true, out, t0, err);
}

/* Add the series of list not yet in *all (by id) to it; list is emptied. */
static void merge_series(struct mw_series_list *all, size_t *cap, struct mw_series_list *list)
{
	size_t i, j;

	for (i = 0; i < list->n; i++) {
		for (j = 0; j < all->n && all->items[j].id != list->items[i].id; j++)
			;
		if (j < all->n) {
			mw_series_info_release(&list->items[i]);
			continue;
		}
		MW_GROW(all->items, *cap, all->n + 1);
		all->items[all->n++] = list->items[i];
	}
	free(list->items);
	list->items = NULL;
	list->n = 0;
}

/* The series selector selects, loaded into *all (merge_series). */
static int load_selected(struct mw_reader *r, const char *selector, struct mw_series_list *all,
			 size_t *cap, struct mw_err *err)
{
	struct mw_series_list one;
	struct mw_selector sel;
	int rc;

	if (mw_selector_parse(&sel, selector, err)) {
		mw_reader_set_kind(r, MW_QERR_BAD);
		return -1;
	}
	rc = mw_reader_load_series(r, &sel, NULL, NULL, &one, err);
	mw_selector_release(&sel);
	if (!rc)
		merge_series(all, cap, &one);
	return rc;
}

int mw_reader_range_multi(struct mw_reader *r, const char *const *selectors, size_t nsel,
			  const struct mw_range_query *q, struct mw_range_result *out,
			  struct mw_err *err)
{
	size_t next = 0, cap = 0;
	struct mw_series_list all = { NULL, 0 };
	int64_t t0;
	int rc = 0;

	if (nsel == 1)
		return mw_reader_range(r, selectors[0], q, out, err);
	if (begin_list_range(r, out, &t0, err))
		return -1;
	while (!rc && next < nsel)
		rc = load_selected(r, selectors[next++], &all, &cap, err);
	return range_and_end(r, rc, &all, q, false, out, t0, err);
}
