/*
 * rw_transport.c - the pure parts of the remote-write transport, see
 * rw_transport_util.h.  The HTTP exchanges themselves are in
 * rw_transport_linux.c (libcurl) and rw_transport_win32.c (WinHTTP).
 *
 * Owned by the forwarder (forward/).  Pure: tested on constructed input
 * in tests/test_rw_transport.c.
 *
 * Secrets (token, password) never appear in a message: errors name the
 * setting, not its value.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/utf8.h"
#include "forward/rw_transport_util.h"

static int has_ctl_or_space(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* who names the setting in messages ("remote-write url", "the daemon's url"). */
static int url_parse_as(const char *who, const char *url, struct mw_rw_url *u, struct mw_err *err)
{
	const char *p, *auth_end, *host_end, *port = NULL;
	size_t hlen;

	memset(u, 0, sizeof(*u));
	if (!url || !*url)
		return mw_error(err, "%s is empty", who);
	if (has_ctl_or_space(url))
		return mw_error(err, "%s '%.200s' contains a space or a control "
				"character (percent-encode it)", who, url);
	if (!strncasecmp(url, "https://", 8)) {
		u->https = true;
		p = url + 8;
	} else if (!strncasecmp(url, "http://", 7)) {
		p = url + 7;
	} else {
		return mw_error(err, "%s '%.200s': the scheme must be http:// or "
				"https://", who, url);
	}
	auth_end = p + strcspn(p, "/?#");
	if (memchr(p, '@', (size_t)(auth_end - p)))
		return mw_error(err, "%s: user:password@ in the URL is not "
				"supported; use basic_user and basic_password", who);
	if (*p == '[') {
		host_end = memchr(p, ']', (size_t)(auth_end - p));
		if (!host_end)
			return mw_error(err, "%s '%.200s': unterminated [IPv6] "
					"address", who, url);
		hlen = (size_t)(host_end - p - 1);
		if (hlen >= sizeof(u->host))
			return mw_error(err, "%s '%.200s': host too long", who, url);
		memcpy(u->host, p + 1, hlen);
		if (host_end[1] == ':')
			port = host_end + 2;
		else if (host_end + 1 != auth_end)
			return mw_error(err, "%s '%.200s': junk after the [IPv6] "
					"address", who, url);
	} else {
		const char *colon = memchr(p, ':', (size_t)(auth_end - p));

		host_end = colon ? colon : auth_end;
		hlen = (size_t)(host_end - p);
		if (hlen >= sizeof(u->host))
			return mw_error(err, "%s '%.200s': host too long", who, url);
		memcpy(u->host, p, hlen);
		if (colon)
			port = colon + 1;
	}
	if (!u->host[0])
		return mw_error(err, "%s '%.200s' has no host", who, url);
	if (port) {
		unsigned long v = 0;
		const char *q;

		if (port == auth_end)
			return mw_error(err, "%s '%.200s': empty port", who, url);
		for (q = port; q < auth_end; q++) {
			if (*q < '0' || *q > '9' || v > 65535)
				return mw_error(err, "%s '%.200s': bad port", who, url);
			v = v * 10 + (unsigned long)(*q - '0');
		}
		if (v < 1 || v > 65535)
			return mw_error(err, "%s '%.200s': port %lu is out of range", who,
					url, v);
		u->port = (unsigned)v;
	} else {
		u->port = u->https ? 443 : 80;
	}
	{
		const char *path = auth_end, *frag = strchr(path, '#');
		size_t plen = frag ? (size_t)(frag - path) : strlen(path);

		if (frag)
			return mw_error(err, "%s '%.200s': a #fragment is not sent; "
					"remove it", who, url);
		if (plen + 2 > sizeof(u->path))
			return mw_error(err, "%s '%.200s': path too long", who, url);
		if (*path != '/')
			u->path[0] = '/';
		memcpy(u->path + (*path != '/'), path, plen);
	}
	return 0;
}

int mw_rw_url_parse(const char *url, struct mw_rw_url *u, struct mw_err *err)
{
	return url_parse_as("remote-write url", url, u, err);
}

static int has_line_break(const char *s)
{
	return s && strpbrk(s, "\r\n") != NULL;
}

const char *mw_rw_ca_setting(const struct mw_rw_endpoint *ep)
{
	return ep->ca_setting ? ep->ca_setting : "remote-write ca_file";
}

int mw_rw_endpoint_check(const struct mw_rw_endpoint *ep, struct mw_rw_url *u,
			 struct mw_err *err)
{
	int bearer = ep->bearer_token && ep->bearer_token[0];
	int basic = ep->basic_user && ep->basic_user[0];
	const char *who = ep->name ? ep->name : "remote-write";
	char url_setting[64];

	snprintf(url_setting, sizeof(url_setting), "%s url", who);
	if (url_parse_as(url_setting, ep->url, u, err) < 0)
		return -1;
	if (ep->timeout_ms <= 0)
		return mw_error(err, "%s timeout must be more than 0 ms (got %d)", who,
				ep->timeout_ms);
	if (bearer && basic)
		return mw_error(err, "%s bearer_token and basic_user are both set; "
				"give one of them", who);
	if (!basic && ep->basic_password && ep->basic_password[0])
		return mw_error(err, "%s basic_password is set without basic_user", who);
	if (has_line_break(ep->bearer_token) || has_ctl_or_space(bearer ? ep->bearer_token : ""))
		return mw_error(err, "%s bearer_token contains a space, a line break "
				"or a control character", who);
	if (basic && strchr(ep->basic_user, ':'))
		return mw_error(err, "%s basic_user must not contain ':'", who);
	if (has_line_break(ep->basic_user) || has_line_break(ep->basic_password))
		return mw_error(err, "%s basic_user or basic_password contains a line "
				"break", who);
	if (ep->ca_file && ep->ca_file[0] && !u->https)
		return mw_error(err, "%s is set but %s '%.200s' is not https://",
				mw_rw_ca_setting(ep), url_setting, ep->url);
	return 0;
}

int mw_rw_base64(const void *in, size_t len, char *out, size_t size)
{
	static const char alphabet[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = in;
	size_t i, o = 0;

	if (size < (len + 2) / 3 * 4 + 1)
		return -1;
	for (i = 0; i + 2 < len; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];

		out[o++] = alphabet[v >> 18];
		out[o++] = alphabet[(v >> 12) & 63];
		out[o++] = alphabet[(v >> 6) & 63];
		out[o++] = alphabet[v & 63];
	}
	if (i < len) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0);

		out[o++] = alphabet[v >> 18];
		out[o++] = alphabet[(v >> 12) & 63];
		out[o++] = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
		out[o++] = '=';
	}
	out[o] = '\0';
	return 0;
}

static char *dup_printf(const char *fmt, const char *a, const char *b)
{
	int n = snprintf(NULL, 0, fmt, a, b);
	char *s;

	if (n < 0)
		return NULL;
	s = malloc((size_t)n + 1);
	if (s)
		snprintf(s, (size_t)n + 1, fmt, a, b);
	return s;
}

int mw_rw_headers_build(const struct mw_rw_endpoint *ep, struct mw_rw_headers *h,
			struct mw_err *err)
{
	static const char *const post[] = {
		"Content-Encoding: snappy",
		"Content-Type: application/x-protobuf",
		"X-Prometheus-Remote-Write-Version: 0.1.0",
		NULL,
	};
	static const char *const get[] = { "Accept: application/json", NULL };
	const char *const *fixed = ep->get ? get : post;
	size_t n = 0, i;

	memset(h, 0, sizeof(*h));
	for (i = 0; fixed[i]; i++)
		if (!(h->line[n++] = dup_printf("%s%s", fixed[i], "")))
			goto oom;
	if (ep->bearer_token && ep->bearer_token[0]) {
		if (!(h->line[n++] = dup_printf("Authorization: Bearer %s%s", ep->bearer_token, "")))
			goto oom;
	} else if (ep->basic_user && ep->basic_user[0]) {
		const char *pw = ep->basic_password ? ep->basic_password : "";
		char *pair = dup_printf("%s:%s", ep->basic_user, pw);
		size_t plen, blen;
		char *b64;

		if (!pair)
			goto oom;
		plen = strlen(pair);
		blen = (plen + 2) / 3 * 4 + 1;
		b64 = malloc(blen);
		if (!b64) {
			free(pair);
			goto oom;
		}
		mw_rw_base64(pair, plen, b64, blen);
		memset(pair, 0, plen);
		free(pair);
		h->line[n++] = dup_printf("Authorization: Basic %s%s", b64, "");
		memset(b64, 0, blen);
		free(b64);
		if (!h->line[n - 1])
			goto oom;
	}
	/* libcurl adds "Expect: 100-continue" to large POSTs and waits for
	 * an answer receivers do not send; an empty Expect turns that off.
	 * WinHTTP never sends Expect; the empty header is left out there. */
	if (!ep->get && !(h->line[n++] = dup_printf("%s%s", "Expect:", "")))
		goto oom;
	return 0;
oom:
	mw_rw_headers_free(h);
	return mw_error(err, "out of memory for the remote-write headers");
}

void mw_rw_headers_free(struct mw_rw_headers *h)
{
	for (size_t i = 0; i < MW_ARRAY_SIZE(h->line); i++) {
		if (h->line[i]) {
			memset(h->line[i], 0, strlen(h->line[i]));	/* credentials */
			free(h->line[i]);
			h->line[i] = NULL;
		}
	}
}

void mw_rw_printable(const char *body, size_t len, char *out, size_t size)
{
	const unsigned char *s = (const unsigned char *)body;
	size_t i = 0, o = 0;
	int space = 1;	/* drops leading white space too */

	if (size == 0)
		return;
	if (size < 4) {
		out[0] = '\0';
		return;
	}
	while (i < len) {
		size_t k = 1;
		const char *piece;
		char one[2] = { 0, 0 };

		if (s[i] == '\n' || s[i] == '\r' || s[i] == '\t' || s[i] == ' ') {
			if (!space) {
				one[0] = ' ';
				space = 1;
			}
			piece = one;
		} else if (s[i] < 0x20 || s[i] == 0x7f) {
			one[0] = '?';
			piece = one;
			space = 0;
		} else if (s[i] < 0x80) {
			one[0] = (char)s[i];
			piece = one;
			space = 0;
		} else if ((k = mw_utf8_char_len(s + i, len - i)) > 0) {
			piece = NULL;
			space = 0;
		} else {
			k = 1;
			one[0] = '?';
			piece = one;
			space = 0;
		}
		{
			size_t plen = piece ? strlen(piece) : k;

			/* keep room for "..." and the NUL */
			if (o + plen + 4 > size) {
				while (o && out[o - 1] == ' ')
					o--;
				memcpy(out + o, "...", 4);
				return;
			}
			memcpy(out + o, piece ? piece : (const char *)s + i, plen);
			o += plen;
		}
		i += k;
	}
	while (o && out[o - 1] == ' ')
		o--;
	if (o == 0 && size >= sizeof("(empty body)")) {
		memcpy(out, "(empty body)", sizeof("(empty body)"));
		return;
	}
	out[o] = '\0';
}

void mw_rw_redirect_message(const char *location, char *out, size_t size)
{
	char loc[256];

	if (!location || !*location) {
		snprintf(out, size, "redirected without a Location; remote write does not follow "
			 "redirects: check the url");
		return;
	}
	mw_rw_printable(location, strlen(location), loc, sizeof(loc));
	snprintf(out, size, "redirected to %s; remote write does not follow redirects: put "
		 "that URL in the config", loc);
}
