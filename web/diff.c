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

static struct MHD_Response *reply_cjson(struct mw_req *r, cJSON *o)
{
	char *text = cJSON_PrintUnformatted(o);
	size_t len;

	if (!text)
		abort();
	len = strlen(text);
	text = realloc(text, len + 2);
	if (!text)
		abort();
	text[len] = '\n';
	text[len + 1] = '\0';
	return mw_reply_bytes(r, 200, "application/json", text, len + 1);
}

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

struct MHD_Response *mw_h_diff(struct mw_req *r)
{
	struct mw_ws_diff_query q = { NULL, NULL, INT64_MIN, INT64_MAX, 0 };
	struct MHD_Response *resp;
	struct mw_err err = { "" };
	struct mw_reader *reader;
	cJSON *report = NULL;
	const char *v;
	int64_t n;
	int rc;

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
	rc = mw_ws_diff_report(reader, &q, &report, &err);
	resp = rc ? outcome(r, reader, rc, &err) : reply_cjson(r, report);
	mw_req_reader_put(r, reader);
	cJSON_Delete(report);
	return resp;
}

struct MHD_Response *mw_h_regions(struct mw_req *r)
{
	struct MHD_Response *resp;
	struct mw_err err = { "" };
	struct mw_reader *reader;
	const char *pid, *process, *v;
	cJSON *report = NULL;
	int64_t at = INT64_MAX;
	int rc;

	if ((resp = who(r, &pid, &process)))
		return resp;
	if ((v = mw_req_arg(r, "at")) && mw_param_time(v, r->now_ms, &at, &err))
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "at: %s", err.msg);
	if (!(reader = mw_req_reader(r, &resp)))
		return resp;
	rc = mw_ws_regions_report(reader, pid, process, at, &report, &err);
	resp = rc ? outcome(r, reader, rc, &err) : reply_cjson(r, report);
	mw_req_reader_put(r, reader);
	cJSON_Delete(report);
	return resp;
}
