/*
 * rw_transport_util.h - the pure parts both transports share
 * (rw_transport.c): checking the endpoint, splitting the URL, the header
 * lines, and turning a receiver's answer into a bounded printable message.
 *
 * Owned by the forwarder (forward/).  Not for the forwarder's own use:
 * it talks to rw_transport.h only.
 */
#ifndef MW_FORWARD_RW_TRANSPORT_UTIL_H
#define MW_FORWARD_RW_TRANSPORT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include "base/mwerr.h"
#include "forward/rw_transport.h"

struct mw_rw_url {
	bool https;
	char host[256];		/* without brackets for IPv6 */
	unsigned port;		/* 80 / 443 when not given */
	char path[2048];	/* "/..." with the query, "/" when none */
};

/* Split "http[s]://HOST[:PORT][/PATH[?QUERY]]".  -1 with a message naming
 * the URL and what is wrong (scheme, empty host, bad port, user:password@
 * in it, spaces or control characters). */
int mw_rw_url_parse(const char *url, struct mw_rw_url *u, struct mw_err *err);

/* Check an endpoint as a whole: the URL, the timeout, one kind of
 * credentials at most, no line breaks in them, no ':' in basic_user, no
 * ca_file on a plain http:// URL.  -1 with a message naming the setting. */
int mw_rw_endpoint_check(const struct mw_rw_endpoint *ep, struct mw_rw_url *u,
			 struct mw_err *err);

/* How messages name the endpoint's ca_file: its ca_setting, or
 * "remote-write ca_file". */
const char *mw_rw_ca_setting(const struct mw_rw_endpoint *ep);

/* The request's header lines besides Host, Content-Length and User-Agent
 * (which the HTTP clients write themselves), each "Name: value" without
 * CRLF, NULL-terminated.  Authorization is built here (Bearer, or Basic
 * with base64 of user:password), sent with the first request: no round
 * trip for a challenge.  -1 when out of memory. */
#define MW_RW_MAX_HEADERS 6
struct mw_rw_headers {
	char *line[MW_RW_MAX_HEADERS + 1];
};
int mw_rw_headers_build(const struct mw_rw_endpoint *ep, struct mw_rw_headers *h,
			struct mw_err *err);
void mw_rw_headers_free(struct mw_rw_headers *h);

#define MW_RW_USER_AGENT "memwatch/" MW_VERSION

/* Base64 (RFC 4648, with padding) of in[0..len) into out (size bytes);
 * -1 when it does not fit. */
int mw_rw_base64(const void *in, size_t len, char *out, size_t size);

/* The receiver's body as a one-line message for people: line breaks and
 * tabs become spaces (runs of them one), other control bytes and bytes
 * that are not UTF-8 become '?', cut at `size` (with "..." when cut,
 * never inside a UTF-8 character).  "(empty body)" for none. */
void mw_rw_printable(const char *body, size_t len, char *out, size_t size);

/* The message for a 3xx answer: where it points (NULL or "" when it did
 * not say), and that redirects are not followed. */
void mw_rw_redirect_message(const char *location, char *out, size_t size);

#endif
