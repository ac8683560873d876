/*
 * rw_transport.h - memwatch's one HTTP client: one remote-write POST, or
 * one GET of a JSON answer (`memwatchd check --url`, `diff --url`, through
 * app/http_client.c), over HTTP or HTTPS.
 *
 * Owned by the forwarder (forward/).  A thin OS layer: rw_transport_linux.c
 * (libcurl, TLS by the system's library) and rw_transport_win32.c (WinHTTP,
 * a system DLL).  It sends the documented headers:
 *
 *   Content-Encoding: snappy
 *   Content-Type: application/x-protobuf
 *   User-Agent: memwatch/VERSION
 *   X-Prometheus-Remote-Write-Version: 0.1.0
 *
 * plus Authorization (Bearer TOKEN, or Basic from user and password),
 * sent with the first request.  A GET sends only Accept: application/json,
 * User-Agent and Authorization, and goes to the daemon directly (no proxy
 * from the environment: the commands never used one).  It never retries and never follows a
 * redirect: the forwarder decides (forward/).  A transport is used by one
 * thread at a time.
 *
 * TLS is verified unless tls_verify is false.  On Windows WinHTTP trusts
 * the Windows certificate store only: a ca_file is refused at creation
 * (the message says to import the CA into the store instead), for a GET
 * (--ca-file) as for a post.  Timeouts:
 * libcurl's covers the whole exchange; WinHTTP's are per step (resolve,
 * connect, send, wait for the answer), each timeout_ms.
 */
#ifndef MW_FORWARD_RW_TRANSPORT_H
#define MW_FORWARD_RW_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include "base/mwerr.h"

struct mw_rw_endpoint {
	const char *url;		/* http:// or https:// ... /api/v1/write */
	const char *bearer_token;	/* NULL or "" for none */
	const char *basic_user;		/* NULL or "" for none */
	const char *basic_password;
	const char *ca_file;		/* NULL: the system's trust store */
	const char *ca_setting;		/* names ca_file in messages: NULL for
					 * "remote-write ca_file", "--ca-file" */
	bool tls_verify;		/* false only when asked in the config */
	int timeout_ms;			/* whole exchange: connect, send, answer */
	bool get;			/* a GET (mw_rw_get) instead of the POST */
	const char *name;		/* names the settings in messages:
					 * NULL for "remote-write", "--url" ... */
};

struct mw_rw_transport;

/* Prepare a client for one endpoint (connection reuse between posts).
 * NULL with a message naming the setting when the URL is malformed or the
 * scheme is not http/https, when bearer_token and basic_user are both
 * set, a credential holds a line break, timeout_ms <= 0, ca_file is set
 * for http:// or cannot be read (or on Windows at all). */
struct mw_rw_transport *mw_rw_transport_new(const struct mw_rw_endpoint *ep,
					    struct mw_err *err);
void mw_rw_transport_free(struct mw_rw_transport *t);
/* Stopping: from any thread, make the exchange in progress end at once
 * and every later one fail, with "cancelled: memwatchd is stopping".
 * Linux (libcurl) ends it within a second; Windows (WinHTTP in
 * asynchronous mode) at once, the step in flight included. */
void mw_rw_transport_cancel(struct mw_rw_transport *t);

/* The outcome of one POST. */
struct mw_rw_result {
	int status;		/* HTTP status; 0 when no answer (network, TLS, timeout) */
	char message[512];	/* status >= 400: the receiver's body on one line,
				 * printable, cut with "..." ("(empty body)" if none);
				 * 3xx: where it redirects to; 2xx: "";
				 * 0: the network/TLS/timeout error */
};

/* POST body[0..len).  Returns 0 when an HTTP answer arrived (any status,
 * see res->status), -1 when none did (res->message says why, and contains
 * one of: "connection refused", "timed out after N ms", "certificate of
 * HOST did not verify: REASON", "cannot resolve host", "ca_file could not
 * be used", "TLS handshake", "lost before an answer"). */
int mw_rw_post(struct mw_rw_transport *t, const void *body, size_t len,
	       struct mw_rw_result *res);

/* The outcome of one GET: as for a post, and the whole body. */
struct mw_rw_answer {
	struct mw_rw_result res;
	char *body;		/* NUL-terminated, malloc'd (the caller frees); NULL on -1 */
	size_t len;
};

/* GET the URL of an endpoint made with get = true.  Returns 0 when an
 * HTTP answer arrived (any status; res.message as for a post), with its
 * body (after Content-Length or chunked coding), -1 when none did or it
 * was larger than max bytes (res.message says why, with the same words as
 * a post's, or "answer larger than N bytes"). */
int mw_rw_get(struct mw_rw_transport *t, size_t max, struct mw_rw_answer *out);

#endif
