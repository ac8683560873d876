/* http_client.c - see http_client.h. */
#include "http_client.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "forward/rw_transport.h"

int mw_http_url(const char *daemon, const char *path_and_query, char *out, size_t size,
		struct mw_err *err)
{
	const char *scheme = strstr(daemon, "://") ? "" : "http://";
	size_t len = strlen(daemon);
	int n;

	if (!*daemon)
		return mw_error(err, "empty URL");
	if (strpbrk(daemon, "?#"))
		return mw_error(err, "'%s': give the daemon's address without a query", daemon);
	while (len && daemon[len - 1] == '/')
		len--;
	n = snprintf(out, size, "%s%.*s%s", scheme, (int)len, daemon, path_and_query);
	if (n < 0 || (size_t)n >= size)
		return mw_error(err, "'%s': URL too long", daemon);
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

/* The answer's body parsed, or NULL with the message for people. */
static cJSON *judge_answer(const char *url_text, const struct mw_rw_answer *a,
			   const char *expect, const char *what, struct mw_err *err)
{
	cJSON *doc = cJSON_ParseWithLength(a->body, a->len), *e;

	if (a->res.status != 200) {
		/* the daemon's JSON error, else the body (or where it
		 * redirects) on one line */
		e = doc ? cJSON_GetObjectItemCaseSensitive(doc, "error") : NULL;
		mw_error(err, "%s answered %d: %s", url_text, a->res.status,
			 cJSON_IsString(e) ? e->valuestring
			 : a->res.message[0] ? a->res.message : "(no error message)");
		cJSON_Delete(doc);
		return NULL;
	}
	if (!cJSON_IsObject(doc) || (expect && !cJSON_GetObjectItemCaseSensitive(doc, expect))) {
		mw_error(err, "%s did not answer with %s (is it memwatchd?)", url_text, what);
		cJSON_Delete(doc);
		return NULL;
	}
	return doc;
}

struct cJSON *mw_http_get_json(const char *url_text, const char *path_and_query,
			       const char *token, int timeout_ms, const char *expect,
			       const char *what, struct mw_err *err)
{
	return mw_http_get_json_text(url_text, path_and_query, token, NULL, timeout_ms, expect,
				     what, NULL, NULL, err);
}

struct cJSON *mw_http_get_json_text(const char *url_text, const char *path_and_query,
				    const char *token, const char *ca_file, int timeout_ms,
				    const char *expect, const char *what, char **text,
				    size_t *len, struct mw_err *err)
{
	char url[8192 + 1024];
	struct mw_rw_endpoint ep = {
		.url = url,
		.bearer_token = token,
		.ca_file = ca_file,
		.ca_setting = "--ca-file",
		.tls_verify = true,
		.timeout_ms = timeout_ms > 0 ? timeout_ms : MW_HTTP_TIMEOUT_MS,
		.get = true,
		.name = "the daemon's",
	};
	struct mw_rw_transport *t;
	struct mw_rw_answer answer;
	cJSON *doc = NULL;

	if (mw_http_url(url_text, path_and_query, url, sizeof(url), err))
		return NULL;
	t = mw_rw_transport_new(&ep, err);
	if (!t)
		return NULL;
	if (mw_rw_get(t, MW_HTTP_MAX_RESPONSE, &answer) < 0)	/* no answer: the URL and why */
		mw_error(err, "%s: %s", url_text, answer.res.message);
	else
		doc = judge_answer(url_text, &answer, expect, what, err);
	if (doc && text) {
		*text = answer.body;	/* NUL-terminated by the transport */
		*len = answer.len;
		answer.body = NULL;
	}
	free(answer.body);
	mw_rw_transport_free(t);
	return doc;
}
