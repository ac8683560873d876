/* reply.c - response helpers: JSON bodies, errors, owned and static bytes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web_internal.h"

/* The status codes /metrics counts answers by (memwatch_web_requests_total). */
const unsigned mw_web_codes[MW_WEB_NCODES] = { 200, 304, 400, 401, 404, 405, 409, 412, 413, 500, 503 };

static void common_headers(struct mw_req *r, struct MHD_Response *resp, const char *type,
			   bool no_store)
{
	const struct mw_mhd_api *mhd = r->web->mhd;

	mhd->add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	mhd->add_response_header(resp, "X-Content-Type-Options", "nosniff");
	if (no_store)
		mhd->add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
}

struct MHD_Response *mw_reply_bytes(struct mw_req *r, unsigned status, const char *type,
				    char *data, size_t len)
{
	struct MHD_Response *resp;

	resp = r->web->mhd->create_response_from_buffer_with_free_callback(len, data, free);
	if (!resp) {
		free(data);
		return NULL;
	}
	common_headers(r, resp, type, true);
	r->status = status;
	return resp;
}

struct MHD_Response *mw_reply_static(struct mw_req *r, unsigned status, const char *type,
				     const void *data, size_t len)
{
	struct MHD_Response *resp;

	resp = r->web->mhd->create_response_from_buffer(len, (void *)(uintptr_t)data,
							MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return NULL;
	common_headers(r, resp, type, false);
	r->status = status;
	return resp;
}

struct MHD_Response *mw_reply_json(struct mw_req *r, unsigned status, struct mw_jbuf *b)
{
	size_t len;
	char *p = mw_jbuf_detach(b, &len);

	return mw_reply_bytes(r, status, "application/json", p, len);
}

struct MHD_Response *mw_reply_error(struct mw_req *r, unsigned status, const char *fmt, ...)
{
	struct mw_jbuf b;
	char msg[512];
	va_list ap;
	struct MHD_Response *resp;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	mw_jbuf_init(&b);
	mw_j_lit(&b, "{\"error\":");
	mw_j_str(&b, msg);
	mw_j_lit(&b, "}\n");
	resp = mw_reply_json(r, status, &b);
	mw_jbuf_release(&b);
	return resp;
}
