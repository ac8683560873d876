/*
 * diff.c - GET /api/v1/diff (what changed in a process's working set
 * between two times) and GET /api/v1/regions (its region map at a time),
 * from the region snapshots the writer stores (storage/regions.h).  The
 * reports are built by analysis/ws_diff.c, which `memwatchd diff --db`
 * prints too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ws_diff.h"
#include "core/params.h"
#include "storage/query.h"
#include "web_internal.h"

/* pid and process: pid a decimal number; 400 response on bad input. */
static struct MHD_Response *who(struct mw_req *r, const char **pid, const char **process)
{
	struct mw_err err = { "" };
	int64_t n;

	*pid = mw_req_arg(r, "pid");
	*process = mw_req_arg(r, "process");
	if (*pid && mw_param_int(*pid, 0, UINT32_MAX, &n, &err))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "pid: %s", err.msg);
	if (!*pid && !*process)
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST,
				      "pid: pid or process is required");
	return NULL;
}

static struct MHD_Response *outcome(struct mw_req *r, struct mw_reader *reader, int rc,
				    const struct mw_err *err)
{
	if (rc == MW_WS_NOT_FOUND)
		return mw_reply_error(r, MHD_HTTP_NOT_FOUND, "%s", err->msg);
	if (rc == MW_WS_BAD)
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "%s", err->msg);
	if (mw_reader_error_kind(reader) == MW_QERR_DEADLINE)
		return mw_reply_storage_error(r, reader, "pid", err);
	return mw_reply_error(r, MHD_HTTP_SERVICE_UNAVAILABLE, "storage unavailable: %s",
			      err->msg);
}

/* The report written into b, or the error rc says. */
static struct MHD_Response *answer(struct mw_req *r, struct mw_reader *reader, int rc,
				   struct mw_jbuf *b, const struct mw_err *err)
{
	struct MHD_Response *resp;

	if (rc) {
		resp = outcome(r, reader, rc, err);
	} else {
		mw_j_char(b, '\n');
		resp = mw_reply_json(r, 200, b);
	}
	mw_req_reader_put(r, reader);
	mw_jbuf_release(b);
	return resp;
}

struct MHD_Response *mw_h_diff(struct mw_req *r)
{
	struct mw_ws_diff_query q = { NULL, NULL, INT64_MIN, INT64_MAX, 0 };
	struct MHD_Response *resp;
	struct mw_err err = { "" };
	struct mw_reader *reader;
	struct mw_jbuf b;
	const char *v;
	int64_t n;

	if ((resp = who(r, &q.pid, &q.process)))
		return resp;
	if ((v = mw_req_arg(r, "from")) && mw_param_time(v, r->now_ms, &q.from_ms, &err))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "from: %s", err.msg);
	if ((v = mw_req_arg(r, "to")) && mw_param_time(v, r->now_ms, &q.to_ms, &err))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "to: %s", err.msg);
	if (q.from_ms > q.to_ms)
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "from: is after to");
	if ((v = mw_req_arg(r, "limit"))) {
		if (mw_param_int(v, 1, 1000000, &n, &err))
			return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "limit: %s", err.msg);
		q.limit = (size_t)n;
	}
	if (!(reader = mw_req_reader(r, &resp)))
		return resp;
	mw_jbuf_init(&b);
	return answer(r, reader, mw_ws_diff_report(reader, &q, &b, &err), &b, &err);
}

struct MHD_Response *mw_h_regions(struct mw_req *r)
{
	struct MHD_Response *resp;
	struct mw_err err = { "" };
	struct mw_reader *reader;
	const char *pid, *process, *v;
	struct mw_jbuf b;
	int64_t at = INT64_MAX;

	if ((resp = who(r, &pid, &process)))
		return resp;
	if ((v = mw_req_arg(r, "at")) && mw_param_time(v, r->now_ms, &at, &err))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "at: %s", err.msg);
	if (!(reader = mw_req_reader(r, &resp)))
		return resp;
	mw_jbuf_init(&b);
	return answer(r, reader, mw_ws_regions_report(reader, pid, process, at, &b, &err), &b,
		      &err);
}
