/*
 * http_client.h - what `memwatchd check --url` and `diff --url` ask a
 * running daemon: one GET of a JSON answer, over HTTP or HTTPS, through
 * memwatch's one HTTP client (forward/rw_transport.h: libcurl on Linux,
 * WinHTTP on Windows).  Here: the daemon's address as people write it,
 * the query string, and turning the answer into a cJSON object or a
 * message for people.
 */
#ifndef MW_APP_HTTP_CLIENT_H
#define MW_APP_HTTP_CLIENT_H

#include <stddef.h>
#include "base/mwerr.h"

/* Largest answer read (a leak report of thousands of groups fits). */
#define MW_HTTP_MAX_RESPONSE (64u << 20)

/* The time a daemon has to answer, when the caller gives 0: a leak report
 * over a long range may take a few seconds. */
#define MW_HTTP_TIMEOUT_MS 60000

/* The URL to GET: the daemon's address as given to --url
 * ("http[s]://HOST[:PORT][/PREFIX]", or HOST:PORT, [::1]:PORT without a
 * scheme, which means http://) with path_and_query after it (a trailing
 * '/' of the prefix dropped).  -1 with a message when the address has a
 * query or a fragment, or the result does not fit in size bytes. */
int mw_http_url(const char *daemon, const char *path_and_query, char *out, size_t size,
		struct mw_err *err);

/* Append s to buf (size bytes, NUL-terminated) percent-encoding every
 * byte that is not unreserved (RFC 3986).  -1 when it does not fit. */
int mw_url_encode_append(char *buf, size_t size, const char *s);

/*
 * GET a JSON answer of a memwatch daemon: GET url_text + path_and_query
 * (bearer token may be NULL; timeout_ms 0 for MW_HTTP_TIMEOUT_MS) and
 * return the parsed body when the status is 200 and the object has the
 * member `expect` (NULL: any object).  Otherwise NULL with a message for
 * people: "URL: " and the network or TLS error ("connection refused by
 * HOST:PORT ...", "timed out after N ms ...", "certificate of HOST did
 * not verify: REASON ..."), "URL answered 400: <its error>" (the JSON
 * error member, or the body itself on one line), or "URL did not answer
 * with WHAT (is it memwatchd?)".  The caller cJSON_Delete()s the result.
 */
struct cJSON;
struct cJSON *mw_http_get_json(const char *url_text, const char *path_and_query,
			       const char *token, int timeout_ms, const char *expect,
			       const char *what, struct mw_err *err);
/* The same, and the body as received in *text (NUL-terminated, *len
 * bytes without the NUL; the caller frees it) when it returns a result:
 * `check --url --json` prints the daemon's own bytes.  ca_file (--ca-file;
 * NULL: the system's trust store) is the PEM file of the CA that signed
 * an https:// daemon's certificate; it is refused for http://, when it
 * cannot be read, and on Windows (WinHTTP trusts the Windows store only):
 * the message names --ca-file. */
struct cJSON *mw_http_get_json_text(const char *url_text, const char *path_and_query,
				    const char *token, const char *ca_file, int timeout_ms,
				    const char *expect, const char *what, char **text,
				    size_t *len, struct mw_err *err);

#endif
