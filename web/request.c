/*
 * request.c - what every handler asks of its request: a query argument,
 * a reader borrowed from the pool, the from/to range, and the answer to a
 * failed read.  Below the handlers and the router (web_internal.h), above
 * reply.c: handlers call it, it calls nothing of theirs.
 */
#include <stdlib.h>
#include <string.h>

#include "core/params.h"
#include "readers.h"
#include "storage/query.h"
#include "web_internal.h"

const char *mw_req_arg(struct mw_req *r, const char *name)
{
	const char *v = r->web->mhd->lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, name);

	return v && *v ? v : NULL;
}

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
