/*
 * export.c - /api/v1/export: every raw point of the matching series
 * (storage/export.h writes them, as CSV or JSON), streamed through a
 * libmicrohttpd callback response in constant memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "readers.h"
#include "storage/export.h"
#include "storage/query.h"
#include "web_internal.h"

#define EXPORT_MAX_SERIES 2000
#define EXPORT_BLOCK 65536
#define EXPORT_TIMEOUT_FACTOR 12
#define EXPORT_FLUSH_WAIT_MS 5000

struct export {
	struct mw_web *web;
	struct mw_reader *reader;
	struct mw_export *x;
	const char *p;		/* the piece being sent */
	size_t n, off;
	bool done;
};

static void export_free(void *cls)
{
	struct export *e = cls;

	mw_export_free(e->x);
	if (e->reader)
		mw_pool_put(e->web->pool, e->reader);
	free(e);
}

static ssize_t export_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct export *e = cls;
	struct mw_err err;
	size_t n;
	int rc;

	MW_UNUSED(pos);
	if (e->off >= e->n) {
		e->off = e->n = 0;
		if (e->done)
			return MHD_CONTENT_READER_END_OF_STREAM;
		rc = mw_export_next(e->x, max, &e->p, &e->n, &err);
		if (rc < 0)
			return MHD_CONTENT_READER_END_WITH_ERROR;
		if (rc == 0) {
			e->done = true;
			return MHD_CONTENT_READER_END_OF_STREAM;
		}
	}
	n = e->n - e->off;
	if (n > max)
		n = max;
	memcpy(buf, e->p + e->off, n);
	e->off += n;
	return (ssize_t)n;
}

struct MHD_Response *mw_h_export(struct mw_req *r)
{
	struct MHD_Response *resp = NULL;
	struct mw_err err = { "" };
	const char *match = mw_req_arg(r, "match"), *fmt = mw_req_arg(r, "format");
	enum mw_export_format format = MW_EXPORT_CSV;
	const struct mw_mhd_api *mhd = r->web->mhd;
	struct export *e;
	int64_t timeout_ms, from, to, mark;
	char num[32];

	if (!match)
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "match: required (a series selector)");
	if (fmt && mw_export_format_parse(fmt, &format, &err))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "format: %s", err.msg);
	if ((resp = mw_req_range(r, &from, &to)))
		return resp;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->web = r->web;
	if (!(e->reader = mw_req_reader(r, &resp)))
		goto fail;
	/* Up to now (or a time the file is not complete to yet): have the
	 * writer commit what it holds first, so the export has every point
	 * taken before the request instead of stopping at the last periodic
	 * flush.  If that fails or takes too long, the export says how far it
	 * is complete (complete_to_ms, from the mark read below). */
	if (mw_reader_complete_to(e->reader, &mark, &err)) {
		resp = mw_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "storage unavailable: %s",
				      err.msg);
		goto fail;
	}
	if (to > mark) {
		timeout_ms = mw_pool_timeout(r->web->pool);
		mw_status_flush(r->web->status, timeout_ms > 0 && timeout_ms < EXPORT_FLUSH_WAIT_MS ?
				timeout_ms : EXPORT_FLUSH_WAIT_MS);
	}
	if (mw_export_open(&e->x, e->reader, match, EXPORT_MAX_SERIES, from, to, format, &err)) {
		resp = mw_reply_storage_error(r, e->reader, "match", &err);
		goto fail;
	}
	if (!mw_export_nseries(e->x)) {
		resp = mw_reply_error(r, MHD_HTTP_NOT_FOUND, "match: no series matches");
		goto fail;
	}
	/* The stream (a read transaction, which pins the WAL) gets
	 * EXPORT_TIMEOUT_FACTOR query timeouts; past that it ends with an
	 * error (the client sees a truncated body). */
	timeout_ms = mw_pool_timeout(r->web->pool);
	if (timeout_ms)
		mw_reader_set_deadline(e->reader, mw_clock_mono_ns() +
				       timeout_ms * EXPORT_TIMEOUT_FACTOR * 1000000);
	resp = mhd->create_response_from_callback(MHD_SIZE_UNKNOWN, EXPORT_BLOCK, export_read,
						  e, export_free);
	if (!resp)
		goto fail;
	mhd->add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				 format == MW_EXPORT_CSV ? "text/csv; charset=utf-8" :
				 "application/json");
	mhd->add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	if ((mark = mw_export_complete_to(e->x)) != INT64_MIN) {
		snprintf(num, sizeof(num), "%lld", (long long)mark);
		mhd->add_response_header(resp, "X-Complete-To-Ms", num);
	}
	mhd->add_response_header(resp, "X-Content-Type-Options", "nosniff");
	if (format == MW_EXPORT_CSV)
		mhd->add_response_header(resp, MHD_HTTP_HEADER_CONTENT_DISPOSITION,
					 "attachment; filename=\"memwatch-export.csv\"");
	r->status = 200;
	return resp;
fail:
	export_free(e);
	return resp;
}
