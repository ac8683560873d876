/*
 * export.c - see export.h.  The output is produced on demand, a piece of
 * about `budget` bytes per call, so the web server streams it through a
 * callback response and the command through stdout, both in constant
 * memory.
 */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "query_impl.h"
#include "base/calendar.h"
#include "base/json_out.h"
#include "base/xalloc.h"

struct mw_export {
	struct mw_reader *reader;
	struct mw_series_list list;
	int64_t from, to;
	int64_t complete_to;
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
	char sec_text[MW_TIME_TEXT_MAX];
	size_t sec_len;
	int stage;		/* 0: header, 1: body, 3: done */
	struct mw_jbuf out;
};

int mw_export_format_parse(const char *text, enum mw_export_format *out, struct mw_err *err)
{
	if (!strcmp(text, "csv"))
		*out = MW_EXPORT_CSV;
	else if (!strcmp(text, "json"))
		*out = MW_EXPORT_JSON;
	else
		return mw_error(err, "must be csv or json");
	return 0;
}

/* The completeness mark lives in a table of its own (writer_mark, see
 * storage/SCHEMA.md) that files written before it existed lack: no
 * table, no mark.  Slots of mw_reader_stmt (query_impl.h). */
enum { SL_MARK_TABLE = 5, SL_MARK };

int mw_reader_complete_to(struct mw_reader *r, int64_t *out, struct mw_err *err)
{
	sqlite3_stmt *st;
	int rc;

	*out = INT64_MIN;
	if (mw_reader_begin(r, err))
		return -1;
	if (!(st = mw_reader_stmt(r, SL_MARK_TABLE, "SELECT 1 FROM sqlite_master"
				  " WHERE type = 'table' AND name = 'writer_mark'", err)))
		goto fail;
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW) {
		if (!(st = mw_reader_stmt(r, SL_MARK, "SELECT complete_to_ms FROM writer_mark"
					  " WHERE id = 1", err)))
			goto fail;
		rc = sqlite3_step(st);
		if (rc == SQLITE_ROW)
			*out = sqlite3_column_int64(st, 0);
		sqlite3_reset(st);
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		mw_reader_fail(r, err);
		goto fail;
	}
	mw_reader_end(r);
	return 0;
fail:
	mw_reader_end(r);
	return -1;
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

void mw_export_free(struct mw_export *e)
{
	size_t i;

	if (!e)
		return;
	if (e->iters)
		for (i = 0; i < e->list.n; i++)
			mw_raw_iter_free(e->iters[i]);
	mw_raw_iter_free(e->it);
	free(e->iters);
	free(e->head_ts);
	free(e->head_v);
	free(e->has);
	mw_series_list_release(&e->list);
	mw_jbuf_release(&e->out);
	free(e);
}

int mw_export_open(struct mw_export **out, struct mw_reader *r, const char *selector,
		   size_t max_series, int64_t from_ms, int64_t to_ms,
		   enum mw_export_format fmt, struct mw_err *err)
{
	struct mw_export *e = mw_xcalloc(1, sizeof(*e));
	size_t i;

	*out = NULL;
	e->reader = r;
	e->from = from_ms;
	e->to = to_ms;
	e->csv = fmt == MW_EXPORT_CSV;
	mw_jbuf_init(&e->out);
	/* the mark before the data: what is read later is at least as
	 * complete */
	if (mw_reader_complete_to(r, &e->complete_to, err) ||
	    mw_reader_find_max(r, selector, max_series, &e->list, err))
		goto fail;
	if (e->csv) {
		e->iters = mw_xcalloc(e->list.n + 1, sizeof(*e->iters));
		e->head_ts = mw_xcalloc(e->list.n + 1, sizeof(*e->head_ts));
		e->head_v = mw_xcalloc(e->list.n + 1, sizeof(*e->head_v));
		e->has = mw_xcalloc(e->list.n + 1, sizeof(*e->has));
		for (i = 0; i < e->list.n; i++)
			if (mw_raw_iter_open(&e->iters[i], r, e->list.items[i].id, from_ms, to_ms,
					     err))
				goto fail;
	}
	*out = e;
	return 0;
fail:
	mw_export_free(e);
	return -1;
}

size_t mw_export_nseries(const struct mw_export *e)
{
	return e->list.n;
}

int64_t mw_export_complete_to(const struct mw_export *e)
{
	return e->complete_to;
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
static void csv_time(struct mw_export *e, int64_t t)
{
	struct mw_jbuf *b = &e->out;
	int64_t sec = t >= 0 ? t / 1000 : -((-t + 999) / 1000);
	unsigned ms = (unsigned)(t - sec * 1000);
	char *o;

	if (!e->sec_len || sec != e->sec_cached) {
		e->sec_len = mw_time_typeperf(e->sec_text, sizeof(e->sec_text), sec * 1000) - 4;	/* drop ".000" */
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

static int advance(struct mw_export *e, size_t i, struct mw_err *err)
{
	int rc = mw_raw_iter_next(e->iters[i], &e->head_ts[i], &e->head_v[i], err);

	e->has[i] = rc == 1;
	return rc < 0 ? -1 : 0;
}

/* Append up to `budget` bytes' worth of output; -1 on a storage error. */
static int produce_csv(struct mw_export *e, size_t budget, struct mw_err *err)
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
			if (advance(e, i, err))
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
				if (advance(e, i, err))
					return -1;
			}
			mw_j_char(b, '"');
		}
		mw_j_lit(b, "\r\n");
	}
	return 0;
}

static int produce_json(struct mw_export *e, size_t budget, struct mw_err *err)
{
	struct mw_jbuf *b = &e->out;
	int64_t ts;
	double v;
	int rc = 0;

	if (e->stage == 0) {
		mw_j_char(b, '{');
		if (e->complete_to != INT64_MIN) {
			mw_j_key(b, "complete_to_ms");
			mw_j_int(b, e->complete_to);
			mw_j_char(b, ',');
		}
		mw_j_lit(b, "\"series\":[");
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
					     e->from, e->to, err))
				return -1;
			if (e->cur)
				mw_j_char(b, ',');
			mw_j_series_head(b, &e->list.items[e->cur]);
			mw_j_lit(b, ",\"points\":[");
			e->cur_started = false;
		}
		while (b->len < budget && (rc = mw_raw_iter_next(e->it, &ts, &v, err)) == 1) {
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

int mw_export_next(struct mw_export *e, size_t budget, const char **p, size_t *n,
		   struct mw_err *err)
{
	e->out.len = 0;
	e->out.p[0] = '\0';
	if (e->stage == 3)
		return 0;
	if ((e->csv ? produce_csv(e, budget, err) : produce_json(e, budget, err)) < 0)
		return -1;
	*p = e->out.p;
	*n = e->out.len;
	return e->out.len ? 1 : 0;
}
