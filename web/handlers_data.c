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

#include "params.h"
#include "readers.h"
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

struct MHD_Response *mw_reply_storage_error(struct mw_req *r, struct mw_reader *reader,
					    const char *what, const struct mw_err *err)
{
	struct mw_series_list probe = { 0 };
	int ok = mw_reader_find(reader, "memwatch_web_probe_", &probe, NULL) == 0;

	mw_series_list_release(&probe);
	if (ok)
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "%s: %s", what, err->msg);
	return mw_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "storage unavailable: %s",
			      err->msg);
}

void mw_j_series_head(struct mw_jbuf *b, const struct mw_series_info *s)
{
	size_t i;

	mw_j_lit(b, "{\"id\":");
	mw_j_int(b, s->id);
	mw_j_lit(b, ",\"name\":");
	mw_j_str(b, s->name);
	mw_j_lit(b, ",\"labels\":{");
	for (i = 0; i < s->nlabels; i++) {
		if (i)
			mw_j_char(b, ',');
		mw_j_key(b, s->labels[i].name);
		mw_j_str(b, s->labels[i].value);
	}
	mw_j_char(b, '}');
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
	if (mw_reader_find(reader, mw_req_arg(r, "match"), &list, &err)) {
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
	const char *match = mw_req_arg(r, "match");
	size_t i, j;

	if (!match)
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "match: required (a series selector)");
	if ((resp = range_params(r, &q)))
		return resp;
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
	mw_jbuf_init(&b);
	/* Reserve for the numbers up front: ~14 bytes a timestamp, ~12 a value. */
	mw_jbuf_reserve(&b, res.nt * (15 + 13 * res.nseries) + 256 * res.nseries + 256);
	mw_j_lit(&b, "{\"step_ms\":");
	mw_j_int(&b, res.step_ms);
	mw_j_lit(&b, ",\"tier\":");
	mw_j_str(&b, mw_tier_name(res.tier));
	mw_j_lit(&b, ",\"agg\":");
	mw_j_str(&b, agg_name(res.agg));
	mw_j_lit(&b, ",\"truncated\":");
	mw_j_bool(&b, res.truncated);
	mw_j_lit(&b, ",\"t\":[");
	for (j = 0; j < res.nt; j++) {
		if (j)
			mw_j_char(&b, ',');
		mw_j_int(&b, res.t[j]);
	}
	mw_j_lit(&b, "],\"series\":[");
	for (i = 0; i < res.nseries; i++) {
		if (i)
			mw_j_char(&b, ',');
		mw_j_series_head(&b, &res.series[i]);
		mw_j_lit(&b, ",\"values\":[");
		for (j = 0; j < res.nt; j++) {
			if (j)
				mw_j_char(&b, ',');
			mw_j_double(&b, res.values[i][j]);
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

struct proc_row {
	const char *process, *pid, *started;
	int64_t ts;
	double v[NCOLS];
	double private_growth, ws_growth;
	int64_t growth_window_ms;
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

static double sort_key(const struct proc_row *p, int col)
{
	if (col == -1)
		return p->private_growth;
	if (col == -2)
		return p->ws_growth;
	return p->v[col];
}

/* Descending by key, NaN (no data) last. */
static int cmp_rows(const void *a, const void *b)
{
	double x = ((const struct proc_row *)a)->key, y = ((const struct proc_row *)b)->key;

	if (isnan(x))
		return isnan(y) ? 0 : 1;
	if (isnan(y))
		return -1;
	return x > y ? -1 : x < y ? 1 : 0;
}

static int cmp_rows_name(const void *a, const void *b)
{
	const struct proc_row *x = a, *y = b;
	int c = strcmp(x->process, y->process);

	return c ? c : strcmp(x->pid, y->pid);
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

struct MHD_Response *mw_h_processes(struct mw_req *r)
{
	static const struct { const char *name; int col; } sorts[] = {
		{ "private_bytes", C_PRIVATE }, { "working_set", C_WS },
		{ "working_set_bytes", C_WS }, { "growth", -1 }, { "private_growth", -1 },
		{ "working_set_growth", -2 }, { "virtual_bytes", C_VIRTUAL },
		{ "handles", C_HANDLES }, { "threads", C_THREADS }, { "name", -3 },
	};
	struct MHD_Response *resp = NULL;
	struct mw_reader *reader;
	struct mw_latest_list list = { 0 };
	struct mw_err err = { "" };
	struct mw_latest **idx = NULL;
	struct proc_row *rows = NULL, *row = NULL;
	struct mw_jbuf b;
	const char *v = mw_req_arg(r, "sort");
	int64_t limit = 0, newest = INT64_MIN, live;
	size_t i, k, nrows = 0;
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
	if ((v = mw_req_arg(r, "limit")) && mw_param_int(v, 1, 100000, &limit, &err))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "limit: %s", err.msg);
	if (!(reader = mw_req_reader(r, &resp)))
		return resp;
	if (mw_reader_processes(reader, 3600000, &list, &err)) {
		resp = mw_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "storage unavailable: %s",
				      err.msg);
		goto out;
	}
	/* Group the per-metric series by process identity (pid, started). */
	idx = calloc(list.n ? list.n : 1, sizeof(*idx));
	rows = calloc(list.n ? list.n : 1, sizeof(*rows));
	if (!idx || !rows)
		goto out;
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
			row->private_growth = growth(idx[i]);
			if (idx[i]->past_ts_ms != INT64_MIN)
				row->growth_window_ms = idx[i]->ts_ms - idx[i]->past_ts_ms;
		} else if (k == C_WS) {
			row->ws_growth = growth(idx[i]);
		}
	}
	for (i = k = 0; i < nrows; i++)
		if (rows[i].ts >= live)
			rows[k++] = rows[i];
	nrows = k;
	if (col == -3) {
		qsort(rows, nrows, sizeof(*rows), cmp_rows_name);
	} else {
		for (i = 0; i < nrows; i++)
			rows[i].key = sort_key(&rows[i], col);
		qsort(rows, nrows, sizeof(*rows), cmp_rows);
	}
	if (limit && (size_t)limit < nrows)
		nrows = (size_t)limit;
	mw_jbuf_init(&b);
	mw_j_lit(&b, "{\"ts\":");
	j_ts_or_null(&b, newest);
	mw_j_lit(&b, ",\"growth_window_ms\":3600000,\"processes\":[");
	for (i = 0; i < nrows; i++) {
		row = &rows[i];
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
out:
	free(idx);
	free(rows);
	mw_latest_list_release(&list);
	mw_req_reader_put(r, reader);
	return resp;
}
