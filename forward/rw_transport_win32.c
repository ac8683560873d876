/*
 * rw_transport_win32.c - one remote-write POST, or one GET of a JSON
 * answer, with WinHTTP (a system DLL, so memwatchd.exe stays one static
 * file), see rw_transport.h.
 *
 * Owned by the forwarder (forward/).  A thin layer: the endpoint checks,
 * header lines and message clean-up are in rw_transport.c (pure, tested);
 * here are the WinHTTP calls and the mapping of their errors to messages.
 *
 * TLS: WinHTTP verifies the receiver's certificate against the Windows
 * certificate store, always, unless tls_verify is false.  It has no way
 * to trust one extra CA file for a connection before the request (and its
 * Authorization header) is sent, so `ca_file` is refused at creation with
 * a message saying what to do instead (import the CA into the store).
 *
 * Timeouts: WinHTTP's are per step (resolve, connect, send, receive), each
 * set to timeout_ms, so a very slow receiver may take a few times
 * timeout_ms in all; a receiver that accepts and never answers ends after
 * about timeout_ms (the receive step).
 *
 * One session and connection handle per transport (WinHTTP keeps the
 * connection alive between requests); one request handle per request.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <winsock2.h>
#include <windows.h>
#include <winhttp.h>

#include "base/utf8_wide.h"
#include "base/xalloc.h"
#include "forward/rw_transport.h"
#include "forward/rw_transport_util.h"

#define BODY_KEEP 2048
/* Draining more of an error body than this is not worth it: the
 * connection is dropped instead. */
#define BODY_DRAIN (1u << 20)

struct mw_rw_transport {
	HINTERNET session, connect;
	struct mw_rw_url url;
	wchar_t *path, *headers;
	bool tls_verify, get;
	const char *peer;		/* who should be running, for messages */
	int timeout_ms;
	volatile LONG cancelled;	/* mw_rw_transport_cancel, any thread */
};

void mw_rw_transport_cancel(struct mw_rw_transport *t)
{
	if (t)
		InterlockedExchange(&t->cancelled, 1);
}

void mw_rw_transport_free(struct mw_rw_transport *t)
{
	if (!t)
		return;
	if (t->connect)
		WinHttpCloseHandle(t->connect);
	if (t->session)
		WinHttpCloseHandle(t->session);
	if (t->headers) {
		SecureZeroMemory(t->headers, wcslen(t->headers) * sizeof(wchar_t));
		free(t->headers);
	}
	free(t->path);
	free(t);
}

/* WinHTTP's own text for an error, trimmed. */
static void error_text(DWORD code, char *out, size_t size)
{
	DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_HMODULE | FORMAT_MESSAGE_FROM_SYSTEM |
					 FORMAT_MESSAGE_IGNORE_INSERTS,
				 GetModuleHandleA("winhttp.dll"), code, 0, out, (DWORD)size, NULL);

	while (n && (out[n - 1] == '\n' || out[n - 1] == '\r' || out[n - 1] == ' ' ||
		     out[n - 1] == '.'))
		n--;
	if (n == 0)
		snprintf(out, size, "error %lu", (unsigned long)code);
	else
		out[n] = '\0';
}

struct mw_rw_transport *mw_rw_transport_new(const struct mw_rw_endpoint *ep,
					    struct mw_err *err)
{
	struct mw_rw_transport *t = mw_xcalloc(1, sizeof(*t));
	struct mw_rw_headers h;
	wchar_t *agent = NULL, *host = NULL;
	char *joined = NULL, text[256];
	size_t jlen = 1;

	if (mw_rw_endpoint_check(ep, &t->url, err) < 0)
		goto fail;
	if (ep->ca_file && ep->ca_file[0]) {
		mw_error(err, "%s is not supported on Windows: WinHTTP checks "
			 "certificates against the Windows certificate store; import the CA "
			 "there (certutil -addstore Root %s) and leave it out",
			 mw_rw_ca_setting(ep), ep->ca_file);
		goto fail;
	}
	t->tls_verify = ep->tls_verify;
	t->timeout_ms = ep->timeout_ms;
	t->get = ep->get;
	t->peer = ep->get ? "the daemon" : "the receiver";

	if (mw_rw_headers_build(ep, &h, err) < 0)
		goto fail;
	for (size_t i = 0; h.line[i]; i++)
		jlen += strlen(h.line[i]) + 2;
	joined = calloc(1, jlen);
	if (joined) {
		for (size_t i = 0; h.line[i]; i++) {
			if (!strcmp(h.line[i], "Expect:"))	/* curl's, see rw_transport.c */
				continue;
			strcat(joined, h.line[i]);
			strcat(joined, "\r\n");
		}
		t->headers = mw_utf8_to_wide(joined);
		SecureZeroMemory(joined, jlen);
		free(joined);
	}
	mw_rw_headers_free(&h);
	t->path = mw_utf8_to_wide(t->url.path);
	/* An IPv6 literal goes in brackets, as in the URL (WinHttpConnect
	 * takes the URL's form of the host). */
	if (strchr(t->url.host, ':')) {
		char b[sizeof(t->url.host) + 2];

		snprintf(b, sizeof(b), "[%s]", t->url.host);
		host = mw_utf8_to_wide(b);
	} else {
		host = mw_utf8_to_wide(t->url.host);
	}
	agent = mw_utf8_to_wide(MW_RW_USER_AGENT);
	if (!t->headers || !t->path || !host || !agent) {
		mw_error(err, "remote-write url, token or user is not valid UTF-8 (or out of "
			 "memory)");
		goto fail;
	}

	if (ep->get)	/* the commands go to the daemon directly */
		t->session = WinHttpOpen(agent, WINHTTP_ACCESS_TYPE_NO_PROXY, WINHTTP_NO_PROXY_NAME,
					 WINHTTP_NO_PROXY_BYPASS, 0);
	else
		t->session = WinHttpOpen(agent, WINHTTP_ACCESS_TYPE_AUTOMATIC_PROXY,
					 WINHTTP_NO_PROXY_NAME, WINHTTP_NO_PROXY_BYPASS, 0);
	if (!t->session)	/* before Windows 8.1 (and in some Wine versions) */
		t->session = WinHttpOpen(agent, WINHTTP_ACCESS_TYPE_DEFAULT_PROXY,
					 WINHTTP_NO_PROXY_NAME, WINHTTP_NO_PROXY_BYPASS, 0);
	if (!t->session) {
		error_text(GetLastError(), text, sizeof(text));
		mw_error(err, "remote write: WinHttpOpen failed: %s", text);
		goto fail;
	}
	t->connect = WinHttpConnect(t->session, host, (INTERNET_PORT)t->url.port, 0);
	if (!t->connect) {
		error_text(GetLastError(), text, sizeof(text));
		mw_error(err, "remote write: WinHttpConnect to %s:%u failed: %s", t->url.host,
			 t->url.port, text);
		goto fail;
	}
	free(host);
	free(agent);
	return t;
fail:
	free(host);
	free(agent);
	mw_rw_transport_free(t);
	return NULL;
}

/* Called by WinHTTP on this thread when the TLS check fails; the flags
 * say why. */
static void CALLBACK on_status(HINTERNET h, DWORD_PTR ctx, DWORD status, LPVOID info,
			       DWORD info_len)
{
	(void)h;
	if (status == WINHTTP_CALLBACK_STATUS_SECURE_FAILURE && ctx && info &&
	    info_len >= sizeof(DWORD))
		*(DWORD *)ctx = *(DWORD *)info;
}

static void tls_reason(DWORD flags, char *out, size_t size)
{
	static const struct {
		DWORD flag;
		const char *text;
	} reasons[] = {
		{ WINHTTP_CALLBACK_STATUS_FLAG_INVALID_CA,
		  "issued by a CA the Windows certificate store does not trust" },
		{ WINHTTP_CALLBACK_STATUS_FLAG_CERT_CN_INVALID,
		  "issued for another host name" },
		{ WINHTTP_CALLBACK_STATUS_FLAG_CERT_DATE_INVALID, "expired or not yet valid" },
		{ WINHTTP_CALLBACK_STATUS_FLAG_CERT_REVOKED, "revoked" },
		{ WINHTTP_CALLBACK_STATUS_FLAG_CERT_REV_FAILED, "revocation could not be checked" },
		{ WINHTTP_CALLBACK_STATUS_FLAG_CERT_WRONG_USAGE, "not for server use" },
		{ WINHTTP_CALLBACK_STATUS_FLAG_INVALID_CERT, "invalid" },
		{ WINHTTP_CALLBACK_STATUS_FLAG_SECURITY_CHANNEL_ERROR, "TLS channel error" },
	};
	size_t o = 0;

	out[0] = '\0';
	for (size_t i = 0; i < MW_ARRAY_SIZE(reasons); i++) {
		if (!(flags & reasons[i].flag))
			continue;
		int n = snprintf(out + o, size - o, "%s%s", o ? ", " : "", reasons[i].text);

		if (n < 0 || (size_t)n >= size - o)
			break;
		o += (size_t)n;
	}
	if (!o)
		snprintf(out, size, "no reason given");
}

static void no_answer(const struct mw_rw_transport *t, DWORD code, DWORD tls_flags,
		      struct mw_rw_result *res)
{
	char text[256];

	switch (code) {
	case ERROR_WINHTTP_TIMEOUT:
	case WSAETIMEDOUT:	/* what Wine's WinHTTP says instead */
		snprintf(res->message, sizeof(res->message),
			 "timed out after %d ms waiting for %s:%u", t->timeout_ms, t->url.host,
			 t->url.port);
		break;
	case ERROR_WINHTTP_CANNOT_CONNECT:
	case WSAECONNREFUSED:
		snprintf(res->message, sizeof(res->message),
			 "cannot connect to %s:%u: connection refused or unreachable (is %s "
			 "running?)", t->url.host, t->url.port, t->peer);
		break;
	case ERROR_WINHTTP_NAME_NOT_RESOLVED:
		snprintf(res->message, sizeof(res->message), "cannot resolve host %s",
			 t->url.host);
		break;
	case ERROR_WINHTTP_SECURE_FAILURE:
		tls_reason(tls_flags, text, sizeof(text));
		snprintf(res->message, sizeof(res->message),
			 "certificate of %s did not verify: %s (import its CA into the Windows "
			 "certificate store, or fix %s's certificate)", t->url.host, text,
			 t->peer);
		break;
	case ERROR_WINHTTP_INVALID_SERVER_RESPONSE:
		snprintf(res->message, sizeof(res->message),
			 "%s:%u closed the connection or answered something that is not HTTP",
			 t->url.host, t->url.port);
		break;
	case ERROR_WINHTTP_CONNECTION_ERROR:
		snprintf(res->message, sizeof(res->message),
			 "connection to %s:%u lost before an answer", t->url.host, t->url.port);
		break;
	default:
		error_text(code, text, sizeof(text));
		snprintf(res->message, sizeof(res->message), "%s to %s:%u failed: %s (%lu)",
			 t->get ? "GET" : "post", t->url.host, t->url.port, text,
			 (unsigned long)code);
		break;
	}
}

/* Send one request (with body[0..len) for a post) and wait for the
 * answer's status: 0 with the open request in *out, or -1 with the reason. */
static int request(struct mw_rw_transport *t, const void *body, size_t len,
		   struct mw_rw_result *res, HINTERNET *out)
{
	HINTERNET req;
	DWORD status = 0, size = sizeof(status), tls_flags = 0;
	DWORD feature = WINHTTP_DISABLE_REDIRECTS;
	DWORD_PTR ctx = (DWORD_PTR)&tls_flags;

	res->status = 0;
	res->message[0] = '\0';
	if (InterlockedCompareExchange(&t->cancelled, 0, 0)) {
		snprintf(res->message, sizeof(res->message), "cancelled: memwatchd is stopping");
		return -1;
	}
	if (len > MAXDWORD) {
		snprintf(res->message, sizeof(res->message), "body of %zu bytes is too large", len);
		return -1;
	}
	req = WinHttpOpenRequest(t->connect, t->get ? L"GET" : L"POST", t->path, NULL,
				 WINHTTP_NO_REFERER, WINHTTP_DEFAULT_ACCEPT_TYPES,
				 t->url.https ? WINHTTP_FLAG_SECURE : 0);
	if (!req) {
		no_answer(t, GetLastError(), 0, res);
		return -1;
	}
	WinHttpSetTimeouts(req, t->timeout_ms, t->timeout_ms, t->timeout_ms, t->timeout_ms);
	/* The wait for the answer's headers has a limit of its own (90 s by
	 * default; Wine takes only this one for it). */
	{
		DWORD ms = (DWORD)t->timeout_ms;

		WinHttpSetOption(req, WINHTTP_OPTION_RECEIVE_RESPONSE_TIMEOUT, &ms, sizeof(ms));
	}
	WinHttpSetOption(req, WINHTTP_OPTION_DISABLE_FEATURE, &feature, sizeof(feature));
	/* Never answer a receiver's challenge with the Windows logon. */
	{
		DWORD policy = WINHTTP_AUTOLOGON_SECURITY_LEVEL_HIGH;

		WinHttpSetOption(req, WINHTTP_OPTION_AUTOLOGON_POLICY, &policy, sizeof(policy));
	}
	WinHttpSetOption(req, WINHTTP_OPTION_CONTEXT_VALUE, &ctx, sizeof(ctx));
	WinHttpSetStatusCallback(req, on_status, WINHTTP_CALLBACK_FLAG_SECURE_FAILURE, 0);
	if (t->url.https && !t->tls_verify) {
		DWORD flags = SECURITY_FLAG_IGNORE_UNKNOWN_CA | SECURITY_FLAG_IGNORE_CERT_DATE_INVALID |
			      SECURITY_FLAG_IGNORE_CERT_CN_INVALID |
			      SECURITY_FLAG_IGNORE_CERT_WRONG_USAGE;

		WinHttpSetOption(req, WINHTTP_OPTION_SECURITY_FLAGS, &flags, sizeof(flags));
	}
	if (!WinHttpSendRequest(req, t->headers, (DWORD)-1L, (LPVOID)body, (DWORD)len,
				(DWORD)len, 0) ||
	    !WinHttpReceiveResponse(req, NULL)) {
		no_answer(t, GetLastError(), tls_flags, res);
		WinHttpCloseHandle(req);
		return -1;
	}
	if (!WinHttpQueryHeaders(req, WINHTTP_QUERY_STATUS_CODE | WINHTTP_QUERY_FLAG_NUMBER,
				 WINHTTP_HEADER_NAME_BY_INDEX, &status, &size,
				 WINHTTP_NO_HEADER_INDEX)) {
		no_answer(t, GetLastError(), 0, res);
		WinHttpCloseHandle(req);
		return -1;
	}
	res->status = (int)status;
	*out = req;
	return 0;
}

/* The message for the answer that arrived (its body read into body[0..len)),
 * and the request closed. */
static void answered(HINTERNET req, const char *body, size_t len, struct mw_rw_result *res)
{
	if (res->status >= 300 && res->status < 400) {
		wchar_t wloc[1024];
		char loc[1024] = "";
		DWORD lsize = sizeof(wloc);

		if (WinHttpQueryHeaders(req, WINHTTP_QUERY_LOCATION, WINHTTP_HEADER_NAME_BY_INDEX,
					wloc, &lsize, WINHTTP_NO_HEADER_INDEX))
			WideCharToMultiByte(CP_UTF8, 0, wloc, -1, loc, sizeof(loc), NULL, NULL);
		mw_rw_redirect_message(loc, res->message, sizeof(res->message));
	} else if (res->status >= 400 || res->status < 200) {
		mw_rw_printable(body, len, res->message, sizeof(res->message));
	}
	WinHttpCloseHandle(req);
}

int mw_rw_post(struct mw_rw_transport *t, const void *body, size_t len,
	       struct mw_rw_result *res)
{
	HINTERNET req;
	DWORD got;
	char keep[BODY_KEEP], drain[4096];
	size_t kept = 0, total = 0;

	if (request(t, body, len, res, &req) < 0)
		return -1;
	/* Read the body (its start kept) so the connection can be reused. */
	while (total < BODY_DRAIN) {
		bool keeping = kept < sizeof(keep);
		char *dst = keeping ? keep + kept : drain;
		DWORD room = keeping ? (DWORD)(sizeof(keep) - kept) : sizeof(drain);

		got = 0;
		if (!WinHttpReadData(req, dst, room, &got) || got == 0)
			break;
		if (keeping)
			kept += got;
		total += got;
	}
	answered(req, keep, kept, res);
	return 0;
}

int mw_rw_get(struct mw_rw_transport *t, size_t max, struct mw_rw_answer *out)
{
	HINTERNET req;
	size_t cap = 4096;
	DWORD got;

	memset(out, 0, sizeof(*out));
	if (request(t, NULL, 0, &out->res, &req) < 0)
		return -1;
	out->body = malloc(cap);
	for (;;) {
		if (out->body && out->len + 4096 + 1 > cap) {
			char *p = realloc(out->body, cap * 2);

			if (!p) {
				free(out->body);
				out->body = NULL;
			}
			out->body = p;
			cap *= 2;
		}
		if (!out->body) {
			snprintf(out->res.message, sizeof(out->res.message),
				 "out of memory for the answer");
			break;
		}
		got = 0;
		if (!WinHttpReadData(req, out->body + out->len, 4096, &got)) {
			no_answer(t, GetLastError(), 0, &out->res);
			break;
		}
		if (got == 0) {
			out->body[out->len] = '\0';
			answered(req, out->body, out->len, &out->res);
			return 0;
		}
		out->len += got;
		if (out->len > max) {
			snprintf(out->res.message, sizeof(out->res.message),
				 "answer from %s:%u larger than %zu bytes", t->url.host,
				 t->url.port, max);
			break;
		}
	}
	WinHttpCloseHandle(req);
	free(out->body);
	out->body = NULL;
	out->len = 0;
	out->res.status = 0;
	return -1;
}
