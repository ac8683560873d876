/* http_client.c - see http_client.h. */
#include "http_client.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "base/net.h"
#include "base/xalloc.h"

/* Per send or receive; a daemon answering a leak report over a long
 * range may take a few seconds. */
#define HTTP_TIMEOUT_MS 60000

int mw_url_parse(const char *text, struct mw_url *out, struct mw_err *err)
{
	const char *p = text, *host_end, *port = NULL, *path;
	size_t hlen, plen;

	memset(out, 0, sizeof(*out));
	if (!text || !*text)
		return mw_error(err, "empty URL");
	if (!strncasecmp(p, "https://", 8))
		return mw_error(err, "'%s': https is not supported (memwatchd serves plain HTTP; "
				"use http:// or a tunnel)", text);
	if (!strncasecmp(p, "http://", 7))
		p += 7;
	else if (strstr(p, "://"))
		return mw_error(err, "'%s': only http:// URLs are supported", text);
	path = p + strcspn(p, "/?#");
	if (*p == '[') {
		host_end = memchr(p, ']', (size_t)(path - p));
		if (!host_end)
			return mw_error(err, "'%s': unterminated [IPv6] address", text);
		hlen = (size_t)(host_end - p - 1);
		memcpy(out->host, p + 1, hlen < sizeof(out->host) ? hlen : 0);
		if (host_end[1] == ':')
			port = host_end + 2;
		else if (host_end + 1 != path)
			return mw_error(err, "'%s': junk after the [IPv6] address", text);
	} else {
		const char *colon = memchr(p, ':', (size_t)(path - p));

		host_end = colon ? colon : path;
		hlen = (size_t)(host_end - p);
		if (hlen >= sizeof(out->host))
			return mw_error(err, "'%s': host name too long", text);
		memcpy(out->host, p, hlen);
		if (colon)
			port = colon + 1;
	}
	if (!out->host[0])
		return mw_error(err, "'%s': no host", text);
	if (port) {
		size_t n = (size_t)(path - port), i;
		long v;

		if (n == 0 || n >= sizeof(out->port))
			return mw_error(err, "'%s': bad port", text);
		for (i = 0; i < n; i++)
			if (!isdigit((unsigned char)port[i]))
				return mw_error(err, "'%s': bad port", text);
		memcpy(out->port, port, n);
		v = strtol(out->port, NULL, 10);
		if (v < 1 || v > 65535)
			return mw_error(err, "'%s': port %ld is out of range", text, v);
	} else {
		strcpy(out->port, "80");
	}
	if (strpbrk(path, "?#"))
		return mw_error(err, "'%s': give the daemon's address without a query", text);
	plen = strlen(path);
	while (plen && path[plen - 1] == '/')
		plen--;
	if (plen >= sizeof(out->path))
		return mw_error(err, "'%s': path too long", text);
	memcpy(out->path, path, plen);
	return 0;
}

int mw_url_encode_append(char *buf, size_t size, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = strlen(buf);

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
			if (n + 1 >= size)
				return -1;
			buf[n++] = (char)c;
		} else {
			if (n + 3 >= size)
				return -1;
			buf[n++] = '%';
			buf[n++] = hex[c >> 4];
			buf[n++] = hex[c & 15];
		}
	}
	buf[n] = '\0';
	return 0;
}

void mw_http_response_release(struct mw_http_response *r)
{
	free(r->body);
	r->body = NULL;
	r->body_len = 0;
}

/* The value of header `name` in the header block [h, end), or NULL. */
static const char *header_value(const char *h, const char *end, const char *name, size_t *len)
{
	size_t nlen = strlen(name);

	while (h < end) {
		const char *eol = memchr(h, '\n', (size_t)(end - h));
		const char *line_end = eol ? eol : end;

		if ((size_t)(line_end - h) > nlen && !strncasecmp(h, name, nlen) && h[nlen] == ':') {
			const char *v = h + nlen + 1;

			while (v < line_end && (*v == ' ' || *v == '\t'))
				v++;
			*len = (size_t)(line_end - v);
			while (*len && (v[*len - 1] == '\r' || v[*len - 1] == ' '))
				(*len)--;
			return v;
		}
		h = eol ? eol + 1 : end;
	}
	return NULL;
}

/* Undo chunked transfer coding of [p, end) into out. */
static int dechunk(const char *p, const char *end, struct mw_http_response *out,
		   struct mw_err *err)
{
	char *body = mw_xmalloc((size_t)(end - p) + 1);
	size_t n = 0;

	for (;;) {
		char *e;
		unsigned long size = strtoul(p, &e, 16);
		const char *eol = memchr(p, '\n', (size_t)(end - p));

		if (e == p || !eol) {
			free(body);
			return mw_error(err, "malformed chunked answer");
		}
		p = eol + 1;
		if (size == 0)
			break;
		if (size > (size_t)(end - p)) {
			free(body);
			return mw_error(err, "truncated chunked answer");
		}
		memcpy(body + n, p, size);
		n += size;
		p += size;
		if (p < end && *p == '\r')
			p++;
		if (p < end && *p == '\n')
			p++;
	}
	body[n] = '\0';
	out->body = body;
	out->body_len = n;
	return 0;
}

int mw_http_parse_response(const char *raw, size_t len, struct mw_http_response *out,
			   struct mw_err *err)
{
	const char *end = raw + len, *hdr_end, *body, *v;
	size_t vlen;
	int status;

	memset(out, 0, sizeof(*out));
	if (len < 12 || strncmp(raw, "HTTP/1.", 7) || raw[8] != ' ' ||
	    !isdigit((unsigned char)raw[9]) || !isdigit((unsigned char)raw[10]) ||
	    !isdigit((unsigned char)raw[11]))
		return mw_error(err, "not an HTTP answer");
	status = (raw[9] - '0') * 100 + (raw[10] - '0') * 10 + (raw[11] - '0');
	hdr_end = NULL;
	for (v = raw; v + 3 < end; v++)
		if (v[0] == '\r' && v[1] == '\n' && v[2] == '\r' && v[3] == '\n') {
			hdr_end = v + 2;
			body = v + 4;
			break;
		}
	if (!hdr_end) {
		for (v = raw; v + 1 < end; v++)
			if (v[0] == '\n' && v[1] == '\n') {
				hdr_end = v + 1;
				body = v + 2;
				break;
			}
	}
	if (!hdr_end)
		return mw_error(err, "HTTP answer without the end of its headers");
	out->status = status;
	if ((v = header_value(raw, hdr_end, "Transfer-Encoding", &vlen)) && vlen >= 7 &&
	    !strncasecmp(v, "chunked", 7))
		return dechunk(body, end, out, err);
	if ((v = header_value(raw, hdr_end, "Content-Length", &vlen))) {
		unsigned long long cl = strtoull(v, NULL, 10);

		if (cl > (unsigned long long)(end - body))
			return mw_error(err, "HTTP answer shorter than its Content-Length (%llu bytes, "
					"got %zu)", cl, (size_t)(end - body));
		end = body + cl;
	}
	out->body_len = (size_t)(end - body);
	out->body = mw_xmalloc(out->body_len + 1);
	memcpy(out->body, body, out->body_len);
	out->body[out->body_len] = '\0';
	return 0;
}

struct cJSON *mw_http_get_json(const char *url_text, const char *path_and_query,
			       const char *token, const char *expect, const char *what,
			       struct mw_err *err)
{
	struct mw_url url;
	struct mw_http_response resp;
	cJSON *doc, *e;

	if (mw_url_parse(url_text, &url, err))
		return NULL;
	if (mw_http_get(&url, path_and_query, token, &resp, err))
		return NULL;
	doc = cJSON_ParseWithLength(resp.body, resp.body_len);
	if (resp.status != 200) {
		e = doc ? cJSON_GetObjectItemCaseSensitive(doc, "error") : NULL;
		mw_error(err, "%s answered %d: %s", url_text, resp.status,
			 cJSON_IsString(e) ? e->valuestring : "(no error message)");
		cJSON_Delete(doc);
		doc = NULL;
	} else if (!cJSON_IsObject(doc) ||
		   (expect && !cJSON_GetObjectItemCaseSensitive(doc, expect))) {
		mw_error(err, "%s did not answer with %s (is it memwatchd?)", url_text, what);
		cJSON_Delete(doc);
		doc = NULL;
	}
	mw_http_response_release(&resp);
	return doc;
}

int mw_http_get(const struct mw_url *url, const char *path_and_query, const char *token,
		struct mw_http_response *out, struct mw_err *err)
{
	size_t req_size = strlen(url->path) + strlen(path_and_query) + strlen(url->host) +
			  (token ? strlen(token) : 0) + 256;
	char *req = mw_xmalloc(req_size), *raw = NULL;
	size_t raw_len = 0;
	int n, rc;
	int v6 = strchr(url->host, ':') != NULL;

	memset(out, 0, sizeof(*out));
	n = snprintf(req, req_size,
		     "GET %s%s HTTP/1.0\r\nHost: %s%s%s:%s\r\nAccept: application/json\r\n"
		     "User-Agent: memwatchd-check\r\n%s%s%s\r\n",
		     url->path, path_and_query, v6 ? "[" : "", url->host, v6 ? "]" : "", url->port,
		     token ? "Authorization: Bearer " : "", token ? token : "", token ? "\r\n" : "");
	rc = mw_net_exchange(url->host, url->port, req, (size_t)n, MW_HTTP_MAX_RESPONSE,
			     HTTP_TIMEOUT_MS, &raw, &raw_len, err);
	free(req);
	if (rc)
		return -1;
	rc = mw_http_parse_response(raw, raw_len, out, err);
	free(raw);
	if (rc)
		mw_error_prefix(err, "%s:%s", url->host, url->port);
	return rc;
}
