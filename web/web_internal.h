/*
 * web_internal.h - what the files of web/ share: the server state, the
 * request context, reply helpers and the route table.  Not for use outside
 * web/ (and its tests).
 *
 * Threads: every handler runs on one of libmicrohttpd's worker threads;
 * the only shared mutable state is the reader pool (its own mutex), the
 * status table (its own mutex) and the request counters (atomics).
 */
#ifndef MW_WEB_INTERNAL_H
#define MW_WEB_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/leak.h"
#include "base/mwerr.h"
#include "core/status.h"
#include "base/json_out.h"
#include "mhd_api.h"
#include "tls.h"
#include "web.h"

struct mw_reader_pool;
struct mw_conn_guard;

/* HTTP status codes we count for /metrics. */
enum { MW_WEB_NCODES = 11 };
extern const unsigned mw_web_codes[MW_WEB_NCODES];

struct mw_web {
	/* the library the daemon runs on; every MHD call for it, its
	 * connections and its responses goes through this (mhd_api.h) */
	const struct mw_mhd_api *mhd;
	struct MHD_Daemon *daemon;
	struct mw_status_table *status;
	struct mw_reader_pool *pool;
	char *listen;
	char *token;		/* NULL: no token */
	size_t token_len;
	size_t max_request_bytes;
	int port;
	struct mw_leak_params leak_params;	/* [leak] defaults of /api/v1/leaks */
	struct mw_conn_guard *guard;	/* slow request heads (conn_guard.h) */
	struct mw_web_tls tls;	/* [web] tls_cert / tls_key; cert NULL: plain HTTP */
	/* libmicrohttpd's first log line while it starts (GnuTLS's reason
	 * when it refuses the certificate); written only before it returns */
	char start_said[256];
	atomic_bool starting;
	atomic_uint_fast64_t requests[MW_WEB_NCODES + 1];	/* last: other */
};

/* One HTTP request, from the first call of the access handler to the
 * completion callback. */
struct mw_req {
	struct mw_web *web;
	struct MHD_Connection *conn;
	const char *method;
	const char *url;
	bool head;
	bool too_large;
	size_t body_bytes;
	unsigned status;	/* set by the reply helpers */
	int64_t now_ms;
};

typedef struct MHD_Response *(*mw_handler_fn)(struct mw_req *r);

struct mw_route {
	const char *path;
	mw_handler_fn handler;
	const char *const *params;	/* allowed query parameters, NULL-terminated */
};

/* The route for an exact path, or NULL (router.c). */
const struct mw_route *mw_route_find(const char *path);

/* --- replies (reply.c): each sets r->status and returns a response that
 * the server queues and destroys. ---------------------------------------- */

/* Take b's bytes as a JSON body (b is re-initialised). */
struct MHD_Response *mw_reply_json(struct mw_req *r, unsigned status, struct mw_jbuf *b);
/* {"error":"..."}; the message names the bad parameter. */
struct MHD_Response *mw_reply_error(struct mw_req *r, unsigned status, const char *fmt, ...)
	MW_PRINTF(3, 4);
/* A body we own (malloc'd, freed by MHD) or static bytes. */
struct MHD_Response *mw_reply_bytes(struct mw_req *r, unsigned status, const char *type,
				    char *data, size_t len);
struct MHD_Response *mw_reply_static(struct mw_req *r, unsigned status, const char *type,
				     const void *data, size_t len);

/* A query parameter (already checked: valid UTF-8, no NUL, bounded), or
 * NULL when absent or empty. */
const char *mw_req_arg(struct mw_req *r, const char *name);

/* --- storage access shared by the data handlers (handlers_data.c) ---- */
struct mw_reader;
struct mw_series_info;
/* A reader from the pool, or NULL with *resp set to a 503. */
struct mw_reader *mw_req_reader(struct mw_req *r, struct MHD_Response **resp);
void mw_req_reader_put(struct mw_req *r, struct mw_reader *reader);
/* Answer a failed selector lookup: 400 naming `match` when the selector
 * is at fault (the reader still answers a trivial query), 503 otherwise. */
struct MHD_Response *mw_reply_storage_error(struct mw_req *r, struct mw_reader *reader,
					    const char *what, const struct mw_err *err);
/* Parse from/to (defaults: -1h and now); 400 response on bad input. */
struct MHD_Response *mw_req_range(struct mw_req *r, int64_t *from, int64_t *to);

/* --- handlers ----------------------------------------------------------- */
struct MHD_Response *mw_h_healthz(struct mw_req *r);
struct MHD_Response *mw_h_collectors(struct mw_req *r);
struct MHD_Response *mw_h_remote_write(struct mw_req *r);
struct MHD_Response *mw_h_series(struct mw_req *r);
struct MHD_Response *mw_h_query(struct mw_req *r);
struct MHD_Response *mw_h_processes(struct mw_req *r);
struct MHD_Response *mw_h_export(struct mw_req *r);
struct MHD_Response *mw_h_metrics(struct mw_req *r);
struct MHD_Response *mw_h_leaks(struct mw_req *r);	/* leaks.c */
struct MHD_Response *mw_h_check(struct mw_req *r);
struct MHD_Response *mw_h_diff(struct mw_req *r);	/* diff.c */
struct MHD_Response *mw_h_regions(struct mw_req *r);
/* The embedded page and its assets; NULL when url is none of them. */
struct MHD_Response *mw_h_page(struct mw_req *r);
bool mw_page_has(const char *url);
/* Drop /metrics' cached stored-series text (metrics.c). */
void mw_metrics_cache_clear(void);
/* Compute the assets' ETags once, before the server starts. */
void mw_page_init(void);

#endif
