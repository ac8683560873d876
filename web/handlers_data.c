/*
 * handlers_data.c - the endpoints that read the time-series store:
 * /api/v1/series, /api/v1/query, /api/v1/processes.  (/api/v1/export is in
 * export.c, /metrics in metrics.c.)  They parse the request and write the
 * answer; the reading and computing is storage's (query.h, processes.h)
 * and, for the processes' rates, analysis/floor_rate.h.
 *
 * Bodies are written with the streaming JSON writer: the query's numeric
 * columns are the bulk of the bytes.  Every request borrows a reader from
 * the pool for its duration; a database that cannot be opened is a 503.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/floor_rate.h"
#include "base/cpu_count.h"
#include "base/xalloc.h"
#include "core/params.h"
#include "readers.h"
#include "storage/export.h"
#include "storage/processes.h"
#include "storage/query.h"
#include "web_internal.h"

/* Most series /api/v1/series lists in one answer. */
#define SERIES_LIST_MAX 10000

static void j_ts_or_null(struct mw_jbuf *b, int64_t ts)
{
	if (ts == INT64_MIN)
		mw_j_null(b);
	else
		mw_j_int(b, ts);
}

/* A field of an object: lit is its separator and key (",\"ts\":"). */
static void j_int_at(struct mw_jbuf *b, const char *lit, int64_t v)
{
	mw_j_lit(b, lit);
	mw_j_int(b, v);
}

static void j_str_at(struct mw_jbuf *b, const char *lit, const char *v)
{
	mw_j_lit(b, lit);
	mw_j_str(b, v);
}

static void j_double_at(struct mw_jbuf *b, const char *lit, double v)
{
	mw_j_lit(b, lit);
	mw_j_double(b, v);
}

/* A rate in whole bytes per hour, null when there is none. */
static void j_rate_at(struct mw_jbuf *b, const char *lit, double v)
{
	mw_j_lit(b, lit);
	if (isnan(v))
		mw_j_null(b);
	else
		mw_j_double(b, round(v));
}

static void j_ts_at(struct mw_jbuf *b, const char *lit, int64_t ts)
{
	mw_j_lit(b, lit);
	j_ts_or_null(b, ts);
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
		j_ts_at(&b, ",\"first_ts\":", list.items[i].first_ts);
		j_ts_at(&b, ",\"last_ts\":", list.items[i].last_ts);
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
	q->threads = mw_cpu_count();	/* a week of hundreds of series */
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

/* Every match= of the request (repeated: the union, read on one axis,
 * so a page asks for many series in one request). */
#define QUERY_MATCH_MAX 100

struct matches {
	const char *v[QUERY_MATCH_MAX];
	size_t n;
	bool over, empty;
};

static enum MHD_Result collect_match(void *cls, enum MHD_ValueKind kind, const char *key,
				     const char *value)
{
	struct matches *m = cls;

	(void)kind;
	if (!key || strcmp(key, "match"))
		return MHD_YES;
	if (!value || !*value)
		m->empty = true;
	else if (m->n == QUERY_MATCH_MAX)
		m->over = true;
	else
		m->v[m->n++] = value;
	return MHD_YES;
}

struct MHD_Response *mw_h_query(struct mw_req *r)
{
	struct MHD_Response *resp = NULL;
	struct mw_reader *reader;
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_err err = { "" };
	struct mw_jbuf b;
	struct matches m = { { NULL }, 0, false, false };
	const char *v;
	size_t i, j, nkeep;
	int64_t top = 0;

	r->web->mhd->get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, collect_match, &m);
	if (!m.n)
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "match: required (a series selector)");
	if (m.empty)
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "match: one of them is empty");
	if (m.over)
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "match: at most %d selectors",
				      QUERY_MATCH_MAX);
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
	if (mw_reader_range_multi(reader, m.v, m.n, &q, &res, &err)) {
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
	j_int_at(&b, "{\"step_ms\":", res.step_ms);
	j_str_at(&b, ",\"tier\":", mw_tier_name(res.tier));
	j_str_at(&b, ",\"agg\":", agg_name(res.agg));
	mw_j_lit(&b, ",\"truncated\":");
	mw_j_bool(&b, res.truncated);
	if (top) {
		j_int_at(&b, ",\"top\":", top);
		j_int_at(&b, ",\"series_total\":", (int64_t)res.series_total);
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
			j_double_at(&b, ",\"growth\":", res.growth ? res.growth[i] : NAN);
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

/* The JSON name of each column (storage/processes.h). */
static const char *const col_name[MW_PROC_NCOLS] = {
	"working_set_bytes", "working_set_peak_bytes", "private_bytes", "virtual_bytes",
	"handles", "threads", "page_faults",
};

#define PROC_LIMIT_DEFAULT 200
#define PROC_LIMIT_MAX 1000
#define FILTER_MAX 200

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

/* sort, limit, offset, window and filter into q; a 400 on bad input. */
static struct MHD_Response *processes_params(struct mw_req *r, struct mw_proc_query *q)
{
	static const struct { const char *name; int col; } sorts[] = {
		{ "private_bytes", MW_PROC_PRIVATE }, { "working_set", MW_PROC_WS },
		{ "working_set_bytes", MW_PROC_WS }, { "growth", MW_PROC_SORT_PRIVATE_RATE },
		{ "private_growth", MW_PROC_SORT_PRIVATE_RATE },
		{ "working_set_growth", MW_PROC_SORT_WS_RATE },
		{ "virtual_bytes", MW_PROC_VIRTUAL }, { "handles", MW_PROC_HANDLES },
		{ "threads", MW_PROC_THREADS }, { "name", MW_PROC_SORT_NAME },
	};
	struct mw_err err = { "" };
	const char *v = mw_req_arg(r, "sort");
	int64_t limit = PROC_LIMIT_DEFAULT, offset = 0;
	size_t i;

	memset(q, 0, sizeof(*q));
	q->sort = MW_PROC_PRIVATE;
	q->window_ms = 3600000;
	if (v) {
		for (i = 0; i < MW_ARRAY_SIZE(sorts) && strcmp(sorts[i].name, v); i++)
			;
		if (i == MW_ARRAY_SIZE(sorts))
			return mw_reply_error(r, MHD_HTTP_BAD_REQUEST,
					      "sort: must be one of private_bytes, working_set, "
					      "growth, working_set_growth, virtual_bytes, handles, "
					      "threads, name");
		q->sort = sorts[i].col;
	}
	if ((v = mw_req_arg(r, "limit")) && mw_param_int(v, 1, PROC_LIMIT_MAX, &limit, &err))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "limit: %s", err.msg);
	if ((v = mw_req_arg(r, "offset")) && mw_param_int(v, 0, 100000000, &offset, &err))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "offset: %s", err.msg);
	q->limit = (size_t)limit;
	q->offset = (size_t)offset;
	if ((v = mw_req_arg(r, "window"))) {
		if (mw_param_duration(v, &q->window_ms, &err))
			return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "window: %s", err.msg);
		if (q->window_ms < 300000 || q->window_ms > 7 * 86400000LL)
			return mw_reply_error(r, MHD_HTTP_BAD_REQUEST,
					      "window: must be between 5m and 7d");
	}
	if ((q->filter = mw_req_arg(r, "filter"))) {
		if (strlen(q->filter) > FILTER_MAX)
			return mw_reply_error(r, MHD_HTTP_BAD_REQUEST,
					      "filter: longer than %d bytes", FILTER_MAX);
		for (v = q->filter; *v; v++)
			if ((unsigned char)*v < 0x20 || *v == 0x7f)
				return mw_reply_error(r, MHD_HTTP_BAD_REQUEST,
						      "filter: holds a control character");
	}
	q->interval_ms = process_interval_ms(r);
	q->now_ms = r->now_ms;
	q->rate = mw_floor_rate;
	return NULL;
}

static void j_process_row(struct mw_jbuf *b, const struct mw_proc_row *row)
{
	size_t k;

	j_str_at(b, "{\"process\":", row->process);
	j_str_at(b, ",\"pid\":", row->pid);
	j_str_at(b, ",\"started\":", row->started);
	j_int_at(b, ",\"ts\":", row->ts);
	for (k = 0; k < MW_PROC_NCOLS; k++) {
		mw_j_char(b, ',');
		mw_j_key(b, col_name[k]);
		mw_j_double(b, row->v[k]);
	}
	j_rate_at(b, ",\"private_rate_bytes_per_hour\":", row->private_rate);
	j_rate_at(b, ",\"working_set_rate_bytes_per_hour\":", row->ws_rate);
	j_int_at(b, ",\"growth_span_ms\":", row->rate_span_ms);
	j_int_at(b, ",\"growth_floors\":", row->rate_floors);
	j_double_at(b, ",\"private_growth_bytes\":", row->private_growth);
	j_double_at(b, ",\"working_set_growth_bytes\":", row->ws_growth);
	j_int_at(b, ",\"growth_over_ms\":", row->growth_window_ms);
	mw_j_char(b, '}');
}

static struct MHD_Response *reply_processes(struct mw_req *r, const struct mw_proc_query *q,
					    const struct mw_proc_view *t)
{
	struct MHD_Response *resp;
	struct mw_jbuf b;
	size_t i;

	mw_jbuf_init(&b);
	j_ts_at(&b, "{\"ts\":", t->newest);
	j_int_at(&b, ",\"total\":", (int64_t)t->total);
	j_int_at(&b, ",\"matched\":", (int64_t)t->matched);
	j_int_at(&b, ",\"offset\":", (int64_t)q->offset);
	j_int_at(&b, ",\"limit\":", (int64_t)q->limit);
	j_int_at(&b, ",\"window_ms\":", q->window_ms);
	j_int_at(&b, ",\"rate_step_ms\":", t->rate_step_ms);
	j_int_at(&b, ",\"growth_window_ms\":", q->window_ms);
	mw_j_lit(&b, ",\"processes\":[");
	for (i = 0; i < t->n; i++) {
		if (i)
			mw_j_char(&b, ',');
		j_process_row(&b, &t->rows[i]);
	}
	mw_j_lit(&b, "]}\n");
	resp = mw_reply_json(r, 200, &b);
	mw_jbuf_release(&b);
	return resp;
}

struct MHD_Response *mw_h_processes(struct mw_req *r)
{
	struct MHD_Response *resp = NULL;
	struct mw_reader *reader;
	struct mw_proc_query q;
	struct mw_proc_view t;
	struct mw_err err = { "" };
	int rc;

	if ((resp = processes_params(r, &q)))
		return resp;
	if (!(reader = mw_req_reader(r, &resp)))
		return resp;
	rc = mw_reader_proc_view(reader, &q, &t, &err);
	if (rc == 0)
		resp = reply_processes(r, &q, &t);
	else if (rc == -1 || mw_reader_error_kind(reader) == MW_QERR_DEADLINE)
		resp = mw_reply_storage_error(r, reader, "processes", &err);
	else	/* the rates' read failed: the store answered the first read */
		resp = mw_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "storage unavailable: %s",
				      err.msg);
	mw_proc_view_release(&t);
	mw_req_reader_put(r, reader);
	return resp;
}
