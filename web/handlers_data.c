/*
 * handlers_data.c - the endpoints that read the time-series store:
 * /api/v1/series, /api/v1/query, /api/v1/processes.  (/api/v1/export is in
 * export.c, /metrics in metrics.c.)
 *
 * Bodies are written with the streaming JSON writer: the query's numeric
 * columns are the bulk of the bytes.  Every request borrows a reader from
 * the pool for its duration; a database that cannot be opened is a 503.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/leak.h"
#include "base/xalloc.h"
#include "core/params.h"
#include "readers.h"
#include "storage/export.h"
#include "storage/query.h"
#include "web_internal.h"

struct mw_reader *mw_req_reader(struct mw_req *r, struct MHD_Response **resp)
{
	struct mw_err err = { "" };
	struct mw_reader *reader = mw_pool_get(r->web->pool, &err);

	if (!reader)
		*resp = mw_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE,
				       "storage unavailable: %s", err.msg);
	return reader;
}

void mw_req_reader_put(struct mw_req *r, struct mw_reader *reader)
{
	mw_pool_put(r->web->pool, reader);
}

/* Most series /api/v1/series lists in one answer. */
#define SERIES_LIST_MAX 10000

/*
 * A failed read: the reader's error kind decides.  Past the deadline:
 * 503 naming [web] query_timeout; a bad request or a size limit: 400
 * naming the parameter; otherwise the database answers a probe (400: the
 * request was at fault) or not (503).
 */
struct MHD_Response *mw_reply_storage_error(struct mw_req *r, struct mw_reader *reader,
					    const char *what, const struct mw_err *err)
{
	struct mw_series_list probe = { 0 };
	int64_t ms = mw_pool_timeout(r->web->pool);
	int ok;

	switch (mw_reader_error_kind(reader)) {
	case MW_QERR_DEADLINE:
		if (ms % 1000)
			return mw_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE,
					      "query took longer than %lldms (web.query_timeout); "
					      "narrow the range or the selector", (long long)ms);
		return mw_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE,
				      "query took longer than %llds (web.query_timeout); "
				      "narrow the range or the selector", (long long)(ms / 1000));
	case MW_QERR_BAD:
	case MW_QERR_LIMIT:
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "%s: %s", what, err->msg);
	default:
		break;
	}
	ok = mw_reader_find(reader, "memwatch_web_probe_", &probe, NULL) == 0;

	mw_series_list_release(&probe);
	if (ok)
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "%s: %s", what, err->msg);
	return mw_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "storage unavailable: %s",
			      err->msg);
}

struct MHD_Response *mw_req_range(struct mw_req *r, int64_t *from, int64_t *to)
{
	struct mw_err err = { "" };
	const char *v;

	*from = r->now_ms - 3600000;
	*to = r->now_ms;
	if ((v = mw_req_arg(r, "from")) && mw_param_time(v, r->now_ms, from, &err))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "from: %s", err.msg);
	if ((v = mw_req_arg(r, "to")) && mw_param_time(v, r->now_ms, to, &err))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "to: %s", err.msg);
	if (*from > *to)
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "from: is after to");
	return NULL;
}

static void j_ts_or_null(struct mw_jbuf *b, int64_t ts)
{
	if (ts == INT64_MIN)
		mw_j_null(b);
	else
		mw_j_int(b, ts);
}

struct MHD_Response *mw_h_series(struct mw_req *r)
{
	struct MHD_Response *resp = NULL;
	struct mw_reader *reader = mw_req_reader(r, &resp);
	struct mw_series_list list = { 0 };
	struct mw_err err = { "" };
	struct mw_jbuf b;
	size_t i;

	if (!reader)
		return resp;
	if (mw_reader_find_max(reader, mw_req_arg(r, "match"), SERIES_LIST_MAX, &list, &err)) {
		resp = mw_reply_storage_error(r, reader, "match", &err);
		goto out;
	}
	mw_jbuf_init(&b);
	mw_j_lit(&b, "{\"series\":[");
	for (i = 0; i < list.n; i++) {
		if (i)
			mw_j_char(&b, ',');
		mw_j_series_head(&b, &list.items[i]);
		mw_j_lit(&b, ",\"first_ts\":");
		j_ts_or_null(&b, list.items[i].first_ts);
		mw_j_lit(&b, ",\"last_ts\":");
		j_ts_or_null(&b, list.items[i].last_ts);
		mw_j_char(&b, '}');
	}
	mw_j_lit(&b, "]}\n");
	resp = mw_reply_json(r, 200, &b);
	mw_jbuf_release(&b);
out:
	mw_series_list_release(&list);
	mw_req_reader_put(r, reader);
	return resp;
}

/* Fill q from step, agg, max_points; a 400 response on bad input. */
static struct MHD_Response *range_params(struct mw_req *r, struct mw_range_query *q)
{
	struct mw_err err = { "" };
	int64_t from, to, n;
	const char *v;
	struct MHD_Response *resp = mw_req_range(r, &from, &to);

	if (resp)
		return resp;
	mw_range_query_init(q, from, to);
	if ((v = mw_req_arg(r, "step"))) {
		if (!strcmp(v, "raw"))
			q->step_ms = MW_STEP_RAW;
		else if (!strcmp(v, "auto"))
			q->step_ms = MW_STEP_AUTO;
		else if (mw_param_duration(v, &q->step_ms, &err))
			return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "step: %s (or raw, auto)",
					      err.msg);
	}
	if ((v = mw_req_arg(r, "agg")) && mw_agg_parse(v, &q->agg, &err))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST,
				      "agg: must be one of min, max, avg, last");
	if ((v = mw_req_arg(r, "max_points"))) {
		if (mw_param_int(v, 1, MW_QUERY_MAX_POINTS, &n, &err))
			return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "max_points: %s", err.msg);
		q->max_points = (size_t)n;
	}
	/* An explicit step is never widened: too many buckets is a 400. */
	if (mw_range_query_check(q, &err))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "%s", err.msg);
	return NULL;
}

static const char *agg_name(enum mw_agg a)
{
	switch (a) {
	case MW_AGG_MIN: return "min";
	case MW_AGG_MAX: return "max";
	case MW_AGG_LAST: return "last";
	default: return "avg";
	}
}

struct MHD_Response *mw_h_query(struct mw_req *r)
{
	struct MHD_Response *resp = NULL;
	struct mw_reader *reader;
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_err err = { "" };
	struct mw_jbuf b;
	const char *match = mw_req_arg(r, "match"), *v;
	size_t i, j, nkeep;
	int64_t top = 0;

	if (!match)
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "match: required (a series selector)");
	if ((resp = range_params(r, &q)))
		return resp;
	if ((v = mw_req_arg(r, "top")) && mw_param_int(v, 1, 1000, &top, &err))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "top: %s", err.msg);
	/* top is ranked in storage (last minus first value of each series, as
	 * it is read), holding only `top` value arrays: the series x points
	 * limit applies to the series returned, not to those ranked. */
	q.top = (size_t)top;
	if (!(reader = mw_req_reader(r, &resp)))
		return resp;
	memset(&res, 0, sizeof(res));
	if (mw_reader_range(reader, match, &q, &res, &err)) {
		resp = mw_reply_storage_error(r, reader, "match", &err);
		goto out;
	}
	if (!res.nseries) {
		resp = mw_reply_error(r, MHD_HTTP_NOT_FOUND, "match: no series matches");
		goto out;
	}
	/* The series written, in order: all, or the top ones by growth
	 * (already chosen and ordered by the read). */
	nkeep = res.nseries;
	mw_jbuf_init(&b);
	/* Reserve for the numbers up front: ~14 bytes a timestamp, ~12 a value. */
	mw_jbuf_reserve(&b, res.nt * (15 + 13 * nkeep) + 256 * nkeep + 256);
	mw_j_lit(&b, "{\"step_ms\":");
	mw_j_int(&b, res.step_ms);
	mw_j_lit(&b, ",\"tier\":");
	mw_j_str(&b, mw_tier_name(res.tier));
	mw_j_lit(&b, ",\"agg\":");
	mw_j_str(&b, agg_name(res.agg));
	mw_j_lit(&b, ",\"truncated\":");
	mw_j_bool(&b, res.truncated);
	if (top) {
		mw_j_lit(&b, ",\"top\":");
		mw_j_int(&b, top);
		mw_j_lit(&b, ",\"series_total\":");
		mw_j_int(&b, (int64_t)res.series_total);
	}
	mw_j_lit(&b, ",\"t\":[");
	for (j = 0; j < res.nt; j++) {
		if (j)
			mw_j_char(&b, ',');
		mw_j_int(&b, res.t[j]);
	}
	mw_j_lit(&b, "],\"series\":[");
	for (i = 0; i < nkeep; i++) {
		const double *vals = res.values[i];

		if (i)
			mw_j_char(&b, ',');
		mw_j_series_head(&b, &res.series[i]);
		if (top) {
			mw_j_lit(&b, ",\"growth\":");
			mw_j_double(&b, res.growth ? res.growth[i] : NAN);
		}
		mw_j_lit(&b, ",\"values\":[");
		for (j = 0; j < res.nt; j++) {
			if (j)
				mw_j_char(&b, ',');
			mw_j_double(&b, vals[j]);
		}
		mw_j_lit(&b, "]}");
	}
	mw_j_lit(&b, "]}\n");
	resp = mw_reply_json(r, 200, &b);
	mw_jbuf_release(&b);
out:
	mw_range_result_release(&res);
	mw_req_reader_put(r, reader);
	return resp;
}

/* ---- /api/v1/processes ------------------------------------------------ */

enum { C_WS, C_WS_PEAK, C_PRIVATE, C_VIRTUAL, C_HANDLES, C_THREADS, C_FAULTS, NCOLS };
static const char *const col_metric[NCOLS] = {
	"memwatch_process_working_set_bytes", "memwatch_process_working_set_peak_bytes",
	"memwatch_process_private_bytes", "memwatch_process_virtual_bytes",
	"memwatch_process_handles", "memwatch_process_threads",
	"memwatch_process_page_faults_total",
};
static const char *const col_name[NCOLS] = {
	"working_set_bytes", "working_set_peak_bytes", "private_bytes", "virtual_bytes",
	"handles", "threads", "page_faults",
};

/* Rates: Theil-Sen slope of the floors (per-bucket minima) of private
 * bytes and working set.  Fewer floors than this: no rate (null). */
#define RATE_MIN_FLOORS 5
/* At most this many floors per series: a longer window reads wider
 * buckets (still floors), so the O(n^2) slope stays cheap. */
#define RATE_MAX_FLOORS 180
#define PROC_LIMIT_DEFAULT 200
#define PROC_LIMIT_MAX 1000
#define FILTER_MAX 200

struct proc_row {
	const char *process, *pid, *started;
	int64_t ts;
	double v[NCOLS];
	double private_growth, ws_growth;
	int64_t growth_window_ms;
	int64_t id_private, id_ws;	/* series ids, -1: none */
	double private_rate, ws_rate;	/* bytes per hour, NaN: not enough floors */
	int64_t rate_span_ms;		/* span the floors cover, 0: none */
	int rate_floors;		/* floors behind the private rate */
	double key;		/* the sort column's value */
};

static const char *label(const struct mw_series_info *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nlabels; i++)
		if (!strcmp(s->labels[i].name, name))
			return s->labels[i].value;
	return "";
}

static int cmp_identity(const void *a, const void *b)
{
	const struct mw_latest *x = *(const struct mw_latest *const *)a;
	const struct mw_latest *y = *(const struct mw_latest *const *)b;
	int c = strcmp(label(&x->info, "pid"), label(&y->info, "pid"));

	if (!c)
		c = strcmp(label(&x->info, "started"), label(&y->info, "started"));
	if (!c)
		c = strcmp(label(&x->info, "process"), label(&y->info, "process"));
	return c;
}

enum { SORT_PRIVATE_RATE = -1, SORT_WS_RATE = -2, SORT_NAME = -3 };

static double sort_key(const struct proc_row *p, int col)
{
	if (col == SORT_PRIVATE_RATE)
		return p->private_rate;
	if (col == SORT_WS_RATE)
		return p->ws_rate;
	return p->v[col];
}

/* Descending by key, NaN (no data) last; ties by name, pid. */
static int cmp_rows_name(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;
	int c = strcmp(x->process, y->process);

	return c ? c : strcmp(x->pid, y->pid);
}

static int cmp_rows(const void *a, const void *b)
{
	double x = ((const struct proc_row *)a)->key, y = ((const struct proc_row *)b)->key;

	if (isnan(x) || isnan(y)) {
		if (isnan(x) && isnan(y))
			return cmp_rows_name(a, b);
		return isnan(x) ? 1 : -1;
	}
	return x > y ? -1 : x < y ? 1 : cmp_rows_name(a, b);
}

static double growth(const struct mw_latest *l)
{
	if (l->past_ts_ms == INT64_MIN || isnan(l->past_value))
		return NAN;
	return l->value - l->past_value;
}

static int64_t process_interval_ms(struct mw_req *r)
{
	struct mw_collector_status st;
	size_t i, n = r->web->status ? mw_status_count(r->web->status) : 0;

	for (i = 0; i < n; i++) {
		mw_status_get(r->web->status, i, &st);
		if (!strcmp(st.name, "process") && st.interval_ms > 0)
			return st.interval_ms;
	}
	return 10000;
}

/* Case-insensitive (ASCII) substring test. */
static bool contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle), i;

	for (; *hay; hay++) {
		for (i = 0; i < n && hay[i]; i++) {
			char a = hay[i], b = needle[i];

			if (a >= 'A' && a <= 'Z')
				a = (char)(a - 'A' + 'a');
			if (b >= 'A' && b <= 'Z')
				b = (char)(b - 'A' + 'a');
			if (a != b)
				break;
		}
		if (i == n)
			return true;
	}
	return n == 0;
}

static bool row_matches(const struct proc_row *row, const char *filter)
{
	return !filter || !strcmp(row->pid, filter) || contains_ci(row->process, filter);
}

/* Theil-Sen slope (bytes per hour) of one series' floors; NaN when fewer
 * than RATE_MIN_FLOORS.  *span_ms and *nfloors: what the floors cover. */
static double floor_rate(const struct mw_range_result *res, size_t i, double *x, double *y,
			 int64_t *span_ms, int *nfloors)
{
	double slope, lo, hi;
	size_t j, n = 0;

	for (j = 0; j < res->nt; j++) {
		if (isnan(res->values[i][j]))
			continue;
		x[n] = (double)(res->t[j] - res->t[0]);
		y[n++] = res->values[i][j];
	}
	*nfloors = (int)n;
	*span_ms = n ? (int64_t)(x[n - 1] - x[0]) : 0;
	if (n < RATE_MIN_FLOORS || mw_theil_sen(x, y, n, (double)n, &slope, &lo, &hi))
		return NAN;
	return slope * 3600000.0;
}

/*
 * Fill the rates of rows[0..n) from one range read of their private-bytes
 * and working-set series: per-bucket minima over [to - window, to].
 * 0, or -1 with err on a storage failure.
 */
static int fill_rates(struct mw_reader *reader, struct proc_row *rows, size_t n, int64_t to,
		      int64_t window_ms, int64_t *step_out, struct mw_err *err)
{
	struct mw_range_query q;
	struct mw_range_result res;
	int64_t *ids = mw_xmalloc((2 * n + 1) * sizeof(*ids)), step;
	size_t *owner = mw_xmalloc((2 * n + 1) * sizeof(*owner));
	double *x = NULL, *y = NULL;
	size_t i, nids = 0;
	int rc = 0;

	step = (window_ms / 60000 + RATE_MAX_FLOORS - 1) / RATE_MAX_FLOORS * 60000;
	if (step < 60000)
		step = 60000;
	*step_out = step;
	for (i = 0; i < n; i++) {
		if (rows[i].id_private >= 0) {
			owner[nids] = 2 * i;
			ids[nids++] = rows[i].id_private;
		}
		if (rows[i].id_ws >= 0) {
			owner[nids] = 2 * i + 1;
			ids[nids++] = rows[i].id_ws;
		}
	}
	memset(&res, 0, sizeof(res));
	if (!nids)
		goto out;
	mw_range_query_init(&q, to - window_ms, to);
	q.step_ms = step;
	q.agg = MW_AGG_MIN;
	if ((rc = mw_reader_range_ids(reader, ids, nids, &q, &res, err)))
		goto out;
	x = mw_xmalloc((res.nt + 1) * sizeof(*x));
	y = mw_xmalloc((res.nt + 1) * sizeof(*y));
	for (i = 0; i < res.nseries && i < nids; i++) {
		struct proc_row *row = &rows[owner[i] / 2];
		int64_t span;
		int nf;
		double rate = floor_rate(&res, i, x, y, &span, &nf);

		if (owner[i] % 2 == 0) {
			row->private_rate = rate;
			row->rate_span_ms = span;
			row->rate_floors = nf;
		} else {
			row->ws_rate = rate;
			if (row->id_private < 0)
				row->rate_span_ms = span;
		}
	}
out:
	mw_range_result_release(&res);
	free(ids);
	free(owner);
	free(x);
	free(y);
	return rc;
}

static void j_rate(struct mw_jbuf *b, double v)
{
	if (isnan(v))
		mw_j_null(b);
	else
		mw_j_double(b, round(v));
}

struct MHD_Response *mw_h_processes(struct mw_req *r)
{
	static const struct { const char *name; int col; } sorts[] = {
		{ "private_bytes", C_PRIVATE }, { "working_set", C_WS },
		{ "working_set_bytes", C_WS }, { "growth", SORT_PRIVATE_RATE },
		{ "private_growth", SORT_PRIVATE_RATE }, { "working_set_growth", SORT_WS_RATE },
		{ "virtual_bytes", C_VIRTUAL }, { "handles", C_HANDLES },
		{ "threads", C_THREADS }, { "name", SORT_NAME },
	};
	struct MHD_Response *resp = NULL;
	struct mw_reader *reader;
	struct mw_latest_list list = { 0 };
	struct mw_err err = { "" };
	struct mw_latest **idx = NULL;
	struct proc_row *rows = NULL, *row = NULL, *page;
	struct mw_jbuf b;
	const char *v = mw_req_arg(r, "sort"), *filter = mw_req_arg(r, "filter");
	int64_t limit = PROC_LIMIT_DEFAULT, offset = 0, window = 3600000, step = 60000;
	int64_t newest = INT64_MIN, live, to;
	size_t i, k, nrows = 0, total, matched, npage;
	int col = C_PRIVATE;

	if (v) {
		for (i = 0; i < MW_ARRAY_SIZE(sorts) && strcmp(sorts[i].name, v); i++)
			;
		if (i == MW_ARRAY_SIZE(sorts))
			return mw_reply_error(r, MHD_HTTP_BAD_REQUEST,
					      "sort: must be one of private_bytes, working_set, "
					      "growth, working_set_growth, virtual_bytes, handles, "
					      "threads, name");
		col = sorts[i].col;
	}
	if ((v = mw_req_arg(r, "limit")) && mw_param_int(v, 1, PROC_LIMIT_MAX, &limit, &err))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "limit: %s", err.msg);
	if ((v = mw_req_arg(r, "offset")) && mw_param_int(v, 0, 100000000, &offset, &err))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "offset: %s", err.msg);
	if ((v = mw_req_arg(r, "window"))) {
		if (mw_param_duration(v, &window, &err))
			return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "window: %s", err.msg);
		if (window < 300000 || window > 7 * 86400000LL)
			return mw_reply_error(r, MHD_HTTP_BAD_REQUEST,
					      "window: must be between 5m and 7d");
	}
	if (filter) {
		if (strlen(filter) > FILTER_MAX)
			return mw_reply_error(r, MHD_HTTP_BAD_REQUEST,
					      "filter: longer than %d bytes", FILTER_MAX);
		for (v = filter; *v; v++)
			if ((unsigned char)*v < 0x20 || *v == 0x7f)
				return mw_reply_error(r, MHD_HTTP_BAD_REQUEST,
						      "filter: holds a control character");
	}
	if (!(reader = mw_req_reader(r, &resp)))
		return resp;
	if (mw_reader_processes(reader, window, &list, &err)) {
		resp = mw_reply_storage_error(r, reader, "processes", &err);
		goto out;
	}
	/* Group the per-metric series by process identity (pid, started). */
	idx = calloc(list.n ? list.n : 1, sizeof(*idx));
	rows = calloc(list.n ? list.n : 1, sizeof(*rows));
	if (!idx || !rows) {
		resp = mw_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "out of memory");
		goto out;
	}
	for (i = 0; i < list.n; i++) {
		idx[i] = &list.items[i];
		if (list.items[i].ts_ms > newest)
			newest = list.items[i].ts_ms;
	}
	qsort(idx, list.n, sizeof(*idx), cmp_identity);
	/* A process is live when sampled within three intervals of the newest
	 * sample; exited ones drop out of the table. */
	live = newest - 3 * process_interval_ms(r);
	for (i = 0; i < list.n; i++) {
		if (!row || cmp_identity(&idx[i - 1], &idx[i])) {
			row = &rows[nrows++];
			row->process = label(&idx[i]->info, "process");
			row->pid = label(&idx[i]->info, "pid");
			row->started = label(&idx[i]->info, "started");
			for (k = 0; k < NCOLS; k++)
				row->v[k] = NAN;
			row->private_growth = row->ws_growth = NAN;
			row->private_rate = row->ws_rate = NAN;
			row->id_private = row->id_ws = -1;
			row->ts = INT64_MIN;
		}
		for (k = 0; k < NCOLS; k++)
			if (!strcmp(idx[i]->info.name, col_metric[k]))
				break;
		if (k == NCOLS)
			continue;
		row->v[k] = idx[i]->value;
		if (idx[i]->ts_ms > row->ts)
			row->ts = idx[i]->ts_ms;
		if (k == C_PRIVATE) {
			row->id_private = idx[i]->info.id;
			row->private_growth = growth(idx[i]);
			if (idx[i]->past_ts_ms != INT64_MIN)
				row->growth_window_ms = idx[i]->ts_ms - idx[i]->past_ts_ms;
		} else if (k == C_WS) {
			row->id_ws = idx[i]->info.id;
			row->ws_growth = growth(idx[i]);
		}
	}
	for (i = k = 0; i < nrows; i++)
		if (rows[i].ts >= live)
			rows[k++] = rows[i];
	total = nrows = k;
	for (i = k = 0; i < nrows; i++)
		if (row_matches(&rows[i], filter))
			rows[k++] = rows[i];
	matched = nrows = k;
	/* The window ends at the newest sample (a stopped daemon's database
	 * still has rates), never after now. */
	to = newest == INT64_MIN || newest > r->now_ms ? r->now_ms : newest;
	/* Sorting by a rate needs every matched row's rate; otherwise only
	 * the page's rows are read. */
	if (col == SORT_PRIVATE_RATE || col == SORT_WS_RATE) {
		if (fill_rates(reader, rows, nrows, to, window, &step, &err))
			goto storage_err;
	}
	if (col == SORT_NAME) {
		qsort(rows, nrows, sizeof(*rows), cmp_rows_name);
	} else {
		for (i = 0; i < nrows; i++)
			rows[i].key = sort_key(&rows[i], col);
		qsort(rows, nrows, sizeof(*rows), cmp_rows);
	}
	page = rows + ((size_t)offset < nrows ? (size_t)offset : nrows);
	npage = (size_t)(rows + nrows - page);
	if ((size_t)limit < npage)
		npage = (size_t)limit;
	if (col != SORT_PRIVATE_RATE && col != SORT_WS_RATE &&
	    fill_rates(reader, page, npage, to, window, &step, &err))
		goto storage_err;
	mw_jbuf_init(&b);
	mw_j_lit(&b, "{\"ts\":");
	j_ts_or_null(&b, newest);
	mw_j_lit(&b, ",\"total\":");
	mw_j_int(&b, (int64_t)total);
	mw_j_lit(&b, ",\"matched\":");
	mw_j_int(&b, (int64_t)matched);
	mw_j_lit(&b, ",\"offset\":");
	mw_j_int(&b, offset);
	mw_j_lit(&b, ",\"limit\":");
	mw_j_int(&b, limit);
	mw_j_lit(&b, ",\"window_ms\":");
	mw_j_int(&b, window);
	mw_j_lit(&b, ",\"rate_step_ms\":");
	mw_j_int(&b, step);
	mw_j_lit(&b, ",\"growth_window_ms\":");
	mw_j_int(&b, window);
	mw_j_lit(&b, ",\"processes\":[");
	for (i = 0; i < npage; i++) {
		row = &page[i];
		if (i)
			mw_j_char(&b, ',');
		mw_j_lit(&b, "{\"process\":");
		mw_j_str(&b, row->process);
		mw_j_lit(&b, ",\"pid\":");
		mw_j_str(&b, row->pid);
		mw_j_lit(&b, ",\"started\":");
		mw_j_str(&b, row->started);
		mw_j_lit(&b, ",\"ts\":");
		mw_j_int(&b, row->ts);
		for (k = 0; k < NCOLS; k++) {
			mw_j_char(&b, ',');
			mw_j_key(&b, col_name[k]);
			mw_j_double(&b, row->v[k]);
		}
		mw_j_lit(&b, ",\"private_rate_bytes_per_hour\":");
		j_rate(&b, row->private_rate);
		mw_j_lit(&b, ",\"working_set_rate_bytes_per_hour\":");
		j_rate(&b, row->ws_rate);
		mw_j_lit(&b, ",\"growth_span_ms\":");
		mw_j_int(&b, row->rate_span_ms);
		mw_j_lit(&b, ",\"growth_floors\":");
		mw_j_int(&b, row->rate_floors);
		mw_j_lit(&b, ",\"private_growth_bytes\":");
		mw_j_double(&b, row->private_growth);
		mw_j_lit(&b, ",\"working_set_growth_bytes\":");
		mw_j_double(&b, row->ws_growth);
		mw_j_lit(&b, ",\"growth_over_ms\":");
		mw_j_int(&b, row->growth_window_ms);
		mw_j_char(&b, '}');
	}
	mw_j_lit(&b, "]}\n");
	resp = mw_reply_json(r, 200, &b);
	mw_jbuf_release(&b);
	goto out;
storage_err:
	if (mw_reader_error_kind(reader) == MW_QERR_DEADLINE)
		resp = mw_reply_storage_error(r, reader, "processes", &err);
	else
		resp = mw_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "storage unavailable: %s",
				      err.msg);
out:
	free(idx);
	free(rows);
	mw_latest_list_release(&list);
	mw_req_reader_put(r, reader);
	return resp;
}
