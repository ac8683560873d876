/*
 * export.c - /api/v1/export: every raw point of the matching series,
 * streamed through a libmicrohttpd callback response in constant memory
 * (memory grows with the number of series, never with the points).
 *
 * CSV is typeperf's shape, so it opens in a spreadsheet like a
 * perfmon log: a quoted header row whose first cell names the time column
 * ("(PDH-CSV 4.0) (UTC)(0)") and then one quoted series key per column;
 * each row is a quoted "MM/DD/YYYY hh:mm:ss.mmm" UTC time and one quoted
 * value per series, "" where that series has no point at that time.  The
 * series' iterators are merged by timestamp, so samples of one tick (which
 * share a timestamp) land in one row.
 *
 * JSON: {"series":[{"id":…,"name":…,"labels":{…},"points":[[ts,v],…]},…]},
 * one series after another.
 */
#include <stdlib.h>
#include <string.h>

#include "daemon/clock.h"
#include "params.h"
#include "readers.h"
#include "storage/query.h"
#include "web_internal.h"

#define EXPORT_MAX_SERIES 2000
#define EXPORT_BLOCK 65536
#define EXPORT_TIMEOUT_FACTOR 12

struct export {
	struct mw_web *web;
	struct mw_reader *reader;
	struct mw_series_list list;
	int64_t from, to;
	bool csv;
	/* CSV: one iterator per series, with its head point. */
	struct mw_raw_iter **iters;
	int64_t *head_ts;
	double *head_v;
	bool *has;
	/* JSON: the series being written and its iterator. */
	size_t cur;
	struct mw_raw_iter *it;
	bool cur_started;
	/* CSV: the formatted time of the last whole second seen. */
	int64_t sec_cached;
	char sec_text[32];
	size_t sec_len;
	int stage;		/* 0: header, 1: body, 2: footer written, 3: done */
	struct mw_jbuf out;
	size_t off;
};

static void export_free(void *cls)
{
	struct export *e = cls;
	size_t i;

	if (e->iters)
		for (i = 0; i < e->list.n; i++)
			mw_raw_iter_free(e->iters[i]);
	mw_raw_iter_free(e->it);
	free(e->iters);
	free(e->head_ts);
	free(e->head_v);
	free(e->has);
	mw_series_list_release(&e->list);
	mw_pool_put(e->web->pool, e->reader);
	mw_jbuf_release(&e->out);
	free(e);
}

/* A CSV cell: quoted, inner quotes doubled. */
static void csv_cell(struct mw_jbuf *b, const char *s)
{
	const char *q;

	mw_j_char(b, '"');
	while ((q = strchr(s, '"'))) {
		mw_j_raw(b, s, (size_t)(q - s) + 1);
		mw_j_char(b, '"');
		s = q + 1;
	}
	mw_j_lit(b, s);
	mw_j_char(b, '"');
}

/* "MM/DD/YYYY hh:mm:ss.mmm", quoted; snprintf only when the second
 * changes (rows are a tick apart, often many per second). */
static void csv_time(struct export *e, int64_t t)
{
	struct mw_jbuf *b = &e->out;
	int64_t sec = t >= 0 ? t / 1000 : -((-t + 999) / 1000);
	unsigned ms = (unsigned)(t - sec * 1000);
	char *o;

	if (!e->sec_len || sec != e->sec_cached) {
		e->sec_len = mw_fmt_time_utc(e->sec_text, sec * 1000) - 4;	/* drop ".000" */
		e->sec_cached = sec;
	}
	mw_jbuf_reserve(b, e->sec_len + 8);
	o = b->p + b->len;
	*o++ = '"';
	memcpy(o, e->sec_text, e->sec_len);
	o += e->sec_len;
	*o++ = '.';
	*o++ = (char)('0' + ms / 100);
	*o++ = (char)('0' + ms / 10 % 10);
	*o++ = (char)('0' + ms % 10);
	*o++ = '"';
	*o = '\0';
	b->len = (size_t)(o - b->p);
}

static int advance(struct export *e, size_t i)
{
	int rc = mw_raw_iter_next(e->iters[i], &e->head_ts[i], &e->head_v[i], NULL);

	e->has[i] = rc == 1;
	return rc < 0 ? -1 : 0;
}

/* Append up to `budget` bytes' worth of output; -1 on a storage error. */
static int produce_csv(struct export *e, size_t budget)
{
	struct mw_jbuf *b = &e->out;
	char num[40];
	size_t i, n = e->list.n;
	int64_t t;
	bool any;

	if (e->stage == 0) {
		mw_j_lit(b, "\"(PDH-CSV 4.0) (UTC)(0)\"");
		for (i = 0; i < n; i++) {
			mw_j_char(b, ',');
			csv_cell(b, e->list.items[i].key);
		}
		mw_j_lit(b, "\r\n");
		for (i = 0; i < n; i++)
			if (advance(e, i))
				return -1;
		e->stage = 1;
	}
	while (e->stage == 1 && b->len < budget) {
		any = false;
		t = INT64_MAX;
		for (i = 0; i < n; i++) {
			if (e->has[i] && e->head_ts[i] < t)
				t = e->head_ts[i];
			any |= e->has[i];
		}
		if (!any) {
			e->stage = 3;
			break;
		}
		csv_time(e, t);
		for (i = 0; i < n; i++) {
			mw_j_lit(b, ",\"");
			if (e->has[i] && e->head_ts[i] == t) {
				mw_j_raw(b, num, mw_fmt_double(num, e->head_v[i]));
				if (advance(e, i))
					return -1;
			}
			mw_j_char(b, '"');
		}
		mw_j_lit(b, "\r\n");
	}
	return 0;
}

static int produce_json(struct export *e, size_t budget)
{
	struct mw_jbuf *b = &e->out;
	int64_t ts;
	double v;
	int rc = 0;

	if (e->stage == 0) {
		mw_j_lit(b, "{\"series\":[");
		e->stage = 1;
	}
	while (e->stage == 1 && b->len < budget) {
		if (e->cur >= e->list.n) {
			mw_j_lit(b, "]}\n");
			e->stage = 3;
			break;
		}
		if (!e->it) {
			if (mw_raw_iter_open(&e->it, e->reader, e->list.items[e->cur].id,
					     e->from, e->to, NULL))
				return -1;
			if (e->cur)
				mw_j_char(b, ',');
			mw_j_series_head(b, &e->list.items[e->cur]);
			mw_j_lit(b, ",\"points\":[");
			e->cur_started = false;
		}
		while (b->len < budget && (rc = mw_raw_iter_next(e->it, &ts, &v, NULL)) == 1) {
			if (e->cur_started)
				mw_j_char(b, ',');
			e->cur_started = true;
			mw_j_char(b, '[');
			mw_j_int(b, ts);
			mw_j_char(b, ',');
			mw_j_double(b, v);
			mw_j_char(b, ']');
		}
		if (b->len >= budget)
			break;
		if (rc < 0)
			return -1;
		mw_j_lit(b, "]}");
		mw_raw_iter_free(e->it);
		e->it = NULL;
		e->cur++;
	}
	return 0;
}

static ssize_t export_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct export *e = cls;
	size_t n;

	MW_UNUSED(pos);
	if (e->off >= e->out.len) {
		e->out.len = 0;
		e->out.p[0] = '\0';
		e->off = 0;
		if (e->stage == 3)
			return MHD_CONTENT_READER_END_OF_STREAM;
		if ((e->csv ? produce_csv(e, max) : produce_json(e, max)) < 0)
			return MHD_CONTENT_READER_END_WITH_ERROR;
		if (!e->out.len)
			return MHD_CONTENT_READER_END_OF_STREAM;
	}
	n = e->out.len - e->off;
	if (n > max)
		n = max;
	memcpy(buf, e->out.p + e->off, n);
	e->off += n;
	return (ssize_t)n;
}

struct MHD_Response *mw_h_export(struct mw_req *r)
{
	struct MHD_Response *resp = NULL;
	struct mw_err err = { "" };
	const char *match = mw_req_arg(r, "match"), *fmt = mw_req_arg(r, "format");
	struct export *e;
	int64_t timeout_ms;
	size_t i;

	if (!match)
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "match: required (a series selector)");
	if (fmt && strcmp(fmt, "csv") && strcmp(fmt, "json"))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "format: must be csv or json");
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->web = r->web;
	e->csv = !fmt || !strcmp(fmt, "csv");
	mw_jbuf_init(&e->out);
	if ((resp = mw_req_range(r, &e->from, &e->to)))
		goto fail;
	if (!(e->reader = mw_req_reader(r, &resp)))
		goto fail;
	if (mw_reader_find_max(e->reader, match, EXPORT_MAX_SERIES, &e->list, &err)) {
		resp = mw_reply_storage_error(r, e->reader, "match", &err);
		goto fail;
	}
	if (!e->list.n) {
		resp = mw_reply_error(r, MHD_HTTP_NOT_FOUND, "match: no series matches");
		goto fail;
	}
	if (e->csv) {
		e->iters = calloc(e->list.n, sizeof(*e->iters));
		e->head_ts = calloc(e->list.n, sizeof(*e->head_ts));
		e->head_v = calloc(e->list.n, sizeof(*e->head_v));
		e->has = calloc(e->list.n, sizeof(*e->has));
		if (!e->iters || !e->head_ts || !e->head_v || !e->has)
			goto fail;
		for (i = 0; i < e->list.n; i++) {
			if (mw_raw_iter_open(&e->iters[i], e->reader, e->list.items[i].id,
					     e->from, e->to, &err)) {
				resp = mw_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE,
						      "storage unavailable: %s", err.msg);
				goto fail;
			}
		}
	}
	/* The stream (a read transaction, which pins the WAL) gets
	 * EXPORT_TIMEOUT_FACTOR query timeouts; past that it ends with an
	 * error (the client sees a truncated body). */
	timeout_ms = mw_pool_timeout(r->web->pool);
	if (timeout_ms)
		mw_reader_set_deadline(e->reader, mw_clock_mono_ns() +
				       timeout_ms * EXPORT_TIMEOUT_FACTOR * 1000000);
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, EXPORT_BLOCK, export_read,
						 e, export_free);
	if (!resp)
		goto fail;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				e->csv ? "text/csv; charset=utf-8" : "application/json");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	if (e->csv)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_DISPOSITION,
					"attachment; filename=\"memwatch-export.csv\"");
	r->status = 200;
	return resp;
fail:
	export_free(e);
	return resp;
}
