/*
 * http_client.h - the few HTTP GETs memwatchd makes as a client
 * (`check --url`): plain HTTP/1.0 to a memwatch daemon, one request per
 * connection, the whole answer read into memory (bounded).
 *
 * The parsing (URL, response) is pure and tested on constructed input;
 * the socket calls are in net_linux.c / net_win32.c (net.h).
 */
#ifndef MW_APP_HTTP_CLIENT_H
#define MW_APP_HTTP_CLIENT_H

#include <stddef.h>
#include "base/mwerr.h"

/* Largest answer read (a leak report of thousands of groups fits). */
#define MW_HTTP_MAX_RESPONSE (64u << 20)

struct mw_url {
	char host[256];		/* without brackets for IPv6 */
	char port[8];		/* "80" when not given */
	char path[1024];	/* "" or "/prefix" without the trailing slash */
};

/* Parse "http://HOST[:PORT][/PATH]" (also "[::1]:8080", and HOST:PORT
 * without a scheme).  https is refused with a message saying so. */
int mw_url_parse(const char *text, struct mw_url *out, struct mw_err *err);

/* Append s to buf (size bytes, NUL-terminated) percent-encoding every
 * byte that is not unreserved (RFC 3986).  -1 when it does not fit. */
int mw_url_encode_append(char *buf, size_t size, const char *s);

struct mw_http_response {
	int status;
	char *body;		/* NUL-terminated, owned */
	size_t body_len;
};

void mw_http_response_release(struct mw_http_response *r);

/* Split a raw HTTP/1.x answer (status line, headers, body) into status
 * and body; honours Content-Length and chunked transfer coding.  -1 with
 * a message on a malformed answer. */
int mw_http_parse_response(const char *raw, size_t len, struct mw_http_response *out,
			   struct mw_err *err);

/* GET url->path + path_and_query from the server; bearer token may be
 * NULL.  -1 with a message naming the address on a network error. */
int mw_http_get(const struct mw_url *url, const char *path_and_query, const char *token,
		struct mw_http_response *out, struct mw_err *err);

/*
 * GET a JSON answer of a memwatch daemon: parse url_text, GET
 * url->path + path_and_query, and return the parsed body when the status
 * is 200 and the object has the member `expect` (NULL: any object).
 * Otherwise NULL with a message for people: the network error, "URL
 * answered 400: <its error>", or "URL did not answer with WHAT (is it
 * memwatchd?)".  The caller cJSON_Delete()s the result.
 */
struct cJSON;
struct cJSON *mw_http_get_json(const char *url_text, const char *path_and_query,
			       const char *token, const char *expect, const char *what,
			       struct mw_err *err);

#endif
