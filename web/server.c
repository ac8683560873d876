/*
 * server.c - libmicrohttpd set-up, limits and the keep-alive-correct
 * dispatch of every request.
 *
 * Keep-alive: with libmicrohttpd 0.9.75 a response queued on the first
 * call of the access handler (before MHD has seen the whole request) makes
 * it answer "Connection: close", 3-5x slower for clients that reuse
 * connections.  So the first call only allocates the request context and
 * the response is queued on a later call, once the request is complete.
 * The exception is a body announced too large: answering at once and
 * closing is exactly what we want there.
 *
 * Limits (all from [web]): a thread pool (MHD picks epoll on Linux),
 * total and per-IP connection limits, an idle timeout, and a request-size
 * guard: URL, query string and headers over max_request_size get a JSON
 * 413; far bigger requests overflow MHD's per-connection memory and MHD
 * answers them itself before we are called.
 *
 * HTTPS ([web] tls_cert / tls_key, checked by tls.c): libmicrohttpd with
 * GnuTLS, TLS 1.2 and 1.3; GnuTLS's reason for refusing the pair comes
 * through libmicrohttpd's log while it starts, so the message can say it.
 * On Linux that is another library than plain HTTP's (mhd_api.h): the
 * server runs on the one tls.c picked, web->mhd.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/sockets.h"
#include "base/utf8.h"
#include "core/listen_addr.h"
#include "base/xalloc.h"
#include "conn_guard.h"
#include "listen_options.h"
#include "analysis/leak_report.h"
#include "core/params.h"
#include "readers.h"
#include "web_internal.h"

static void count_status(struct mw_web *web, unsigned status)
{
	size_t i;

	for (i = 0; i < MW_WEB_NCODES; i++)
		if (mw_web_codes[i] == status)
			break;
	atomic_fetch_add_explicit(&web->requests[i], 1, memory_order_relaxed);
}

/* --- request-size guard and parameter checks ---------------------------- */

struct arg_check {
	struct mw_req *r;
	const struct mw_route *route;
	size_t total;
	char bad[80];
	char why[MW_ERR_MAX + 32];
};

static bool param_allowed(const struct mw_route *route, const char *key)
{
	const char *const *p;

	if (!route || !route->params)
		return false;
	for (p = route->params; *p; p++)
		if (!strcmp(*p, key))
			return true;
	return false;
}

/* Copy a parameter's name for a message, keeping the message valid UTF-8
 * and short whatever the client sent. */
static void name_for_message(char *out, size_t size, const char *key, size_t n)
{
	size_t ok = mw_utf8_valid_prefix(key, n), i, o = 0;

	for (i = 0; i < ok && o + 1 < size; i++)
		out[o++] = (unsigned char)key[i] < 0x20 ? '?' : key[i];
	out[o] = '\0';
}

static enum MHD_Result check_arg(void *cls, enum MHD_ValueKind kind, const char *key,
				 size_t key_size, const char *value, size_t value_size)
{
	struct arg_check *c = cls;
	struct mw_err err = { "" };

	MW_UNUSED(kind);
	c->total += key_size + value_size + 2;
	if (c->bad[0])
		return MHD_YES;
	if (mw_param_check(key, key_size, 64, &err)) {
		snprintf(c->bad, sizeof(c->bad), "(name)");
		snprintf(c->why, sizeof(c->why), "a parameter name %s", err.msg);
		return MHD_YES;
	}
	if (!param_allowed(c->route, key)) {
		name_for_message(c->bad, sizeof(c->bad), key, key_size);
		snprintf(c->why, sizeof(c->why), "unknown parameter");
		return MHD_YES;
	}
	if (value && mw_param_check(value, value_size, c->r->web->max_request_bytes, &err)) {
		name_for_message(c->bad, sizeof(c->bad), key, key_size);
		snprintf(c->why, sizeof(c->why), "%s", err.msg);
	}
	return MHD_YES;
}

static enum MHD_Result sum_header(void *cls, enum MHD_ValueKind kind, const char *key,
				  size_t key_size, const char *value, size_t value_size)
{
	size_t *total = cls;

	MW_UNUSED(kind);
	MW_UNUSED(key);
	MW_UNUSED(value);
	*total += key_size + value_size + 4;
	return MHD_YES;
}

/* Constant-time comparison of the Authorization header with the token. */
static bool authorized(struct mw_req *r)
{
	const char *h;
	size_t i, n;
	unsigned char diff = 0;

	if (!r->web->token)
		return true;
	h = r->web->mhd->lookup_connection_value(r->conn, MHD_HEADER_KIND,
						 MHD_HTTP_HEADER_AUTHORIZATION);
	if (!h || strncmp(h, "Bearer ", 7))
		return false;
	h += 7;
	n = strlen(h);
	if (n != r->web->token_len)
		return false;
	for (i = 0; i < n; i++)
		diff |= (unsigned char)(h[i] ^ r->web->token[i]);
	return diff == 0;
}

static struct MHD_Response *dispatch(struct mw_req *r)
{
	const struct mw_route *route;
	struct MHD_Response *resp;
	struct arg_check c;
	size_t headers = 0;

	if (r->too_large)
		return mw_reply_error(r, MHD_HTTP_CONTENT_TOO_LARGE,
				      "request body too large (at most %zu bytes)",
				      r->web->max_request_bytes);
	memset(&c, 0, sizeof(c));
	c.r = r;
	c.route = route = mw_route_find(r->url);
	r->web->mhd->get_connection_values_n(r->conn, MHD_HEADER_KIND, sum_header, &headers);
	r->web->mhd->get_connection_values_n(r->conn, MHD_GET_ARGUMENT_KIND, check_arg, &c);
	if (strlen(r->url) + c.total + headers > r->web->max_request_bytes)
		return mw_reply_error(r, MHD_HTTP_CONTENT_TOO_LARGE,
				      "request too large (at most %zu bytes of URL and headers)",
				      r->web->max_request_bytes);
	if (strcmp(r->url, "/healthz") && !authorized(r)) {
		resp = mw_reply_error(r, MHD_HTTP_UNAUTHORIZED,
				      "missing or wrong bearer token (Authorization header)");
		r->web->mhd->add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
						 "Bearer realm=\"memwatch\"");
		return resp;
	}
	if (!route && !mw_page_has(r->url))
		return mw_reply_error(r, MHD_HTTP_NOT_FOUND, "no such path");
	if (strcmp(r->method, MHD_HTTP_METHOD_GET) && !r->head) {
		resp = mw_reply_error(r, MHD_HTTP_METHOD_NOT_ALLOWED,
				      "method not allowed (GET or HEAD only)");
		r->web->mhd->add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
		return resp;
	}
	if (c.bad[0])
		return mw_reply_error(r, MHD_HTTP_BAD_REQUEST, "%s: %s", c.bad, c.why);
	if (!route)
		return mw_h_page(r);
	return route->handler(r);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size,
				  void **con_cls)
{
	struct mw_web *web = cls;
	struct mw_req *r = *con_cls;
	struct MHD_Response *resp;
	enum MHD_Result ret;
	const char *cl;

	MW_UNUSED(version);
	MW_UNUSED(upload_data);
	if (!r) {
		/* First call: headers only.  Don't queue (see the top). */
		r = mw_xcalloc(1, sizeof(*r));
		r->web = web;
		r->conn = conn;
		r->method = method;
		r->url = url;
		r->head = !strcmp(method, MHD_HTTP_METHOD_HEAD);
		*con_cls = r;
		mw_conn_guard_head_done(web->guard, conn);
		cl = web->mhd->lookup_connection_value(conn, MHD_HEADER_KIND,
						       MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl && strtoull(cl, NULL, 10) > web->max_request_bytes) {
			r->too_large = true;
			resp = mw_reply_error(r, MHD_HTTP_CONTENT_TOO_LARGE,
					      "request body too large (at most %zu bytes)",
					      web->max_request_bytes);
			count_status(web, r->status);
			ret = web->mhd->queue_response(conn, r->status, resp);
			web->mhd->destroy_response(resp);
			return ret;
		}
		return MHD_YES;
	}
	if (*upload_data_size) {
		/* No endpoint takes a body; count it for the size guard. */
		r->body_bytes += *upload_data_size;
		if (r->body_bytes > web->max_request_bytes)
			r->too_large = true;
		*upload_data_size = 0;
		return MHD_YES;
	}
	r->now_ms = mw_clock_wall_ms();
	resp = dispatch(r);
	if (!resp)
		resp = mw_reply_error(r, MHD_HTTP_INTERNAL_SERVER_ERROR, "internal error");
	count_status(web, r->status);
	ret = web->mhd->queue_response(conn, r->status, resp);
	web->mhd->destroy_response(resp);
	return ret;
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct mw_web *web = cls;

	MW_UNUSED(toe);
	mw_conn_guard_request_done(web->guard, conn);
	free(*con_cls);
	*con_cls = NULL;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	struct mw_web *web = cls;
	char line[512];
	size_t n;

	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		line[--n] = '\0';
	if (atomic_load(&web->starting) && !web->start_said[0])
		snprintf(web->start_said, sizeof(web->start_said), "%s", line);
	mw_log_debug("web: libmicrohttpd: %s", line);
}

/* --- listen address ------------------------------------------------------ */

union mw_sockaddr {
	struct sockaddr sa;
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;
};

/* "127.0.0.1:8080", "[::1]:8080", "0.0.0.0:0", "[::]:8080": the parts from
 * the one listen-address parser (core/listen_addr.h), then the address. */
static int parse_listen(const char *s, union mw_sockaddr *out, bool *v6, struct mw_err *err)
{
	struct mw_listen_addr a;

	memset(out, 0, sizeof(*out));
	if (mw_listen_addr_parse(s, &a, err))
		return -1;
	*v6 = a.v6;
	if (a.v6) {
		out->v6.sin6_family = AF_INET6;
		out->v6.sin6_port = htons((unsigned short)a.port);
		if (inet_pton(AF_INET6, a.host, &out->v6.sin6_addr) != 1)
			goto bad;
	} else {
		out->v4.sin_family = AF_INET;
		out->v4.sin_port = htons((unsigned short)a.port);
		if (inet_pton(AF_INET, a.host[0] ? a.host : "0.0.0.0", &out->v4.sin_addr) != 1)
			goto bad;
	}
	return 0;
bad:
	return mw_error(err, "bad listen address '%s' (want HOST:PORT or [V6]:PORT)", s);
}

/* Only this machine can connect: 127.0.0.0/8, ::1, ::ffff:127.x.x.x. */
static bool is_loopback(const union mw_sockaddr *a, bool v6)
{
	static const unsigned char v6_loop[16] = { [15] = 1 };
	static const unsigned char v4_mapped[12] = { [10] = 0xff, [11] = 0xff };
	const unsigned char *b;

	if (!v6)
		return (ntohl(a->v4.sin_addr.s_addr) >> 24) == 127;
	b = (const unsigned char *)&a->v6.sin6_addr;
	return !memcmp(b, v6_loop, 16) || (!memcmp(b, v4_mapped, 12) && b[12] == 127);
}

/* Beyond loopback without a token anyone who reaches the port reads what
 * /proc hides from them (other users' mapped-file paths): refused unless
 * [web] allow_anonymous says it is meant, and then said in the log. */
static int check_anonymous(const struct mw_config *cfg, const union mw_sockaddr *a, bool v6,
			   struct mw_err *err)
{
	if ((cfg->token && cfg->token[0]) || is_loopback(a, v6))
		return 0;
	if (!cfg->web_allow_anonymous)
		return mw_error(err, "'%s' is reachable from other machines and [web] token is "
				"not set: anyone reaching it would read every process's data; set "
				"[web] token, listen on 127.0.0.1, or set [web] allow_anonymous = "
				"true", cfg->listen);
	mw_log_warn("web: listening on %s without a token ([web] allow_anonymous = true): "
		    "anyone who can reach it reads every process's data", cfg->listen);
	return 0;
}

/* Whether libmicrohttpd's line is about the certificate or key (GnuTLS),
 * not the socket. */
static bool tls_refused(const char *said)
{
	return said[0] && (strstr(said, "TLS") || strstr(said, "x509") ||
			   strstr(said, "certificate") || strstr(said, "key"));
}

/* A token over plain HTTP beyond loopback crosses the network readable by
 * anyone on the path: allowed (a lab behind a proxy), but said loudly. */
static void warn_clear_token(const struct mw_config *cfg, const union mw_sockaddr *a, bool v6,
			     bool tls)
{
	if (tls || !cfg->token || !cfg->token[0] || is_loopback(a, v6))
		return;
	mw_log_warn("web: listening on %s over plain HTTP: the bearer token crosses the "
		    "network in clear text; set [web] tls_cert and tls_key (HTTPS), or listen "
		    "on 127.0.0.1 behind an HTTPS proxy", cfg->listen);
}

int mw_web_start(struct mw_web **out, const struct mw_config *cfg,
		 struct mw_status_table *status, struct mw_err *err)
{
	union mw_sockaddr addr;
	struct mw_web *web;
	const union MHD_DaemonInfo *info;
	unsigned int flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG;
	unsigned int threads, timeout_s;
	size_t mem;
	bool v6 = false;
	struct MHD_OptionItem tls_opts[4] = { { MHD_OPTION_END, 0, NULL },
					      { MHD_OPTION_END, 0, NULL },
					      { MHD_OPTION_END, 0, NULL },
					      { MHD_OPTION_END, 0, NULL } };

	*out = NULL;
	if (!cfg->listen || !strcmp(cfg->listen, "off") || !cfg->listen[0])
		return 0;
	if (parse_listen(cfg->listen, &addr, &v6, err) || check_anonymous(cfg, &addr, v6, err))
		return -1;
	if (v6)
		flags |= MHD_USE_IPv6;
	mw_page_init();
	web = mw_xcalloc(1, sizeof(*web));
	web->status = status;
	web->listen = mw_xstrdup(cfg->listen);
	if (cfg->token && cfg->token[0]) {
		web->token = mw_xstrdup(cfg->token);
		web->token_len = strlen(web->token);
	}
	web->max_request_bytes = (size_t)cfg->web_max_request_bytes;
	web->mhd = &mw_mhd_linked;
	if (mw_web_tls_load(&web->tls, cfg, err)) {
		mw_web_stop(web);
		return -1;
	}
	if (web->tls.cert)
		web->mhd = web->tls.mhd;
	web->pool = mw_pool_new(cfg->db_path, (size_t)cfg->web_threads + 2);
	mw_pool_set_timeout(web->pool, cfg->web_query_timeout_ms);
	mw_leak_params_from_config(&web->leak_params, cfg);
	threads = (unsigned int)(cfg->web_threads > 0 ? cfg->web_threads : 1);
	timeout_s = (unsigned int)((cfg->web_timeout_ms + 999) / 1000);
	/* Room for the request head up to the guard's limit, and for MHD's
	 * record of every query argument it could hold (one per 2 bytes, about
	 * 64 bytes each: 1,000 arguments in 7 KB overflowed a smaller pool and
	 * MHD then had no room left even to answer), plus its write buffer. */
	mem = web->max_request_bytes * 36 + 32768;
	web->guard = mw_conn_guard_start(cfg->web_header_timeout_ms, web->mhd);
	if (web->tls.cert) {
		flags |= MHD_USE_TLS;
		tls_opts[0] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_CERT, 0,
						       web->tls.cert };
		tls_opts[1] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_MEM_KEY, 0, web->tls.key };
		/* GnuTLS's defaults still offer TLS 1.0 and 1.1 (RFC 8996
		 * deprecates them): 1.2 and 1.3 only */
		tls_opts[2] = (struct MHD_OptionItem){ MHD_OPTION_HTTPS_PRIORITIES, 0,
						       (void *)"NORMAL:-VERS-TLS1.0:-VERS-TLS1.1" };
	}
	atomic_store(&web->starting, true);
	web->daemon = web->mhd->start_daemon(
		flags, 0, NULL, NULL, on_request, web,
		/* first, so MHD's every word (GnuTLS's refusal too) comes here */
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, web,
		MHD_OPTION_SOCK_ADDR, &addr.sa,
		MHD_OPTION_THREAD_POOL_SIZE, threads > 1 ? threads : 0,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)cfg->web_max_connections,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)cfg->web_max_per_ip,
		MHD_OPTION_CONNECTION_TIMEOUT, timeout_s,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, mem,
		/* never share the port (listen_options.h) */
		MHD_OPTION_ARRAY, mw_web_listen_options(),
		MHD_OPTION_ARRAY, tls_opts,	/* empty for plain HTTP */
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, web,
		MHD_OPTION_NOTIFY_CONNECTION, mw_conn_guard_notify, web->guard,
		MHD_OPTION_END);
	atomic_store(&web->starting, false);
	if (!web->daemon) {
		/* GnuTLS refusing the pair is said before the socket is made */
		if (web->tls.cert && tls_refused(web->start_said))
			mw_web_tls_start_failed(cfg, web->start_said, err);
		else
			mw_error(err, "cannot listen on '%s' (address in use or not available?)",
				 cfg->listen);
		mw_web_stop(web);
		return -1;
	}
	warn_clear_token(cfg, &addr, v6, web->tls.cert != NULL);
	info = web->mhd->get_daemon_info(web->daemon, MHD_DAEMON_INFO_BIND_PORT);
	web->port = info ? (int)info->port : 0;
	*out = web;
	return 0;
}

int mw_web_port(const struct mw_web *web)
{
	return web ? web->port : 0;
}

const char *mw_web_scheme(const struct mw_web *web)
{
	return web && web->tls.cert ? "https" : "http";
}

void mw_web_stop(struct mw_web *web)
{
	if (!web)
		return;
	if (web->daemon)
		web->mhd->stop_daemon(web->daemon);
	mw_conn_guard_stop(web->guard);
	mw_metrics_cache_clear();
	mw_pool_free(web->pool);
	mw_web_tls_release(&web->tls);
	free(web->token);
	free(web->listen);
	free(web);
}
