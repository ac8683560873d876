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
 *
 * Cancelling (stopping) ends the step in flight at once: the session is
 * asynchronous (WINHTTP_FLAG_ASYNC), each step (send, wait for the answer,
 * read) is started and then waited for together with the transport's
 * cancel event, and a cancelled wait closes the request handle, which
 * WinHTTP documents as terminating an in-progress asynchronous request.
 * (Closing the handle of a blocked synchronous call from another thread
 * is not documented for WinHTTP, and Wine's does not end the call.)  What
 * WinHTTP may still touch after that - the body being sent, the buffer
 * being read into, the event - lives in the request's struct step, which
 * the callback frees on the handle's last notification (HANDLE_CLOSING),
 * so the caller can return and free its own memory at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <winsock2.h>
#include <windows.h>
#include <winhttp.h>

#include "base/mwerr_text.h"
#include "base/utf8_wide.h"
#include "base/xalloc.h"
#include "forward/rw_proxy_auth.h"
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
	HANDLE cancel;			/* manual-reset event, set by the cancel */
};

/* One request's state shared with WinHTTP's callback (which may run on
 * WinHTTP's threads); freed by the callback at HANDLE_CLOSING. */
struct step {
	HANDLE done;		/* auto-reset: the step started last completed */
	DWORD error;		/* its error, 0 when it succeeded */
	DWORD got;		/* bytes a completed read gave */
	DWORD tls_flags;	/* why the certificate was refused */
	char *body;		/* a copy of the post's body, sent from here */
	char buf[4096];		/* reads land here */
};

void mw_rw_transport_cancel(struct mw_rw_transport *t)
{
	if (!t)
		return;
	InterlockedExchange(&t->cancelled, 1);
	SetEvent(t->cancel);
}

static bool is_cancelled(struct mw_rw_transport *t)
{
	return InterlockedCompareExchange(&t->cancelled, 0, 0) != 0;
}

static void cancelled_message(struct mw_rw_result *res)
{
	snprintf(res->message, sizeof(res->message), "cancelled: memwatchd is stopping");
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
	if (t->cancel)
		CloseHandle(t->cancel);
	free(t);
}

/* WinHTTP's own text for an error (its codes are in winhttp.dll's table),
 * UTF-8 whatever the ANSI code page. */
static void error_text(DWORD code, char *out, size_t size)
{
	mw_system_error_text(code, "winhttp.dll", out, size);
}

/* WinHTTP's notifications for a request (its context is the struct step;
 * the session's and connection's have none): a step completed or failed,
 * why a certificate was refused, and the handle's end, which frees it. */
static void CALLBACK on_status(HINTERNET h, DWORD_PTR ctx, DWORD status, LPVOID info,
			       DWORD info_len)
{
	struct step *st = (struct step *)ctx;

	(void)h;
	if (!st)
		return;
	switch (status) {
	case WINHTTP_CALLBACK_STATUS_SECURE_FAILURE:
		if (info && info_len >= sizeof(DWORD))
			st->tls_flags = *(DWORD *)info;
		break;
	case WINHTTP_CALLBACK_STATUS_SENDREQUEST_COMPLETE:
	case WINHTTP_CALLBACK_STATUS_HEADERS_AVAILABLE:
		SetEvent(st->done);
		break;
	case WINHTTP_CALLBACK_STATUS_READ_COMPLETE:
		st->got = info_len;
		SetEvent(st->done);
		break;
	case WINHTTP_CALLBACK_STATUS_REQUEST_ERROR:
		st->error = info ? ((WINHTTP_ASYNC_RESULT *)info)->dwError : ERROR_WINHTTP_INTERNAL_ERROR;
		if (!st->error)
			st->error = ERROR_WINHTTP_INTERNAL_ERROR;
		SetEvent(st->done);
		break;
	case WINHTTP_CALLBACK_STATUS_HANDLE_CLOSING:
		CloseHandle(st->done);
		free(st->body);
		free(st);
		break;
	default:
		break;
	}
}

struct mw_rw_transport *mw_rw_transport_new(const struct mw_rw_endpoint *ep,
					    struct mw_err *err)
{
	struct mw_rw_transport *t = mw_xcalloc(1, sizeof(*t));
	struct mw_rw_headers h;
	wchar_t *agent = NULL, *host = NULL;
	char *joined = NULL, text[256];
	size_t jlen = 1;

	t->cancel = CreateEventW(NULL, TRUE, FALSE, NULL);
	if (!t->cancel) {
		mw_error(err, "remote write: CreateEvent failed (error %lu)",
			 (unsigned long)GetLastError());
		goto fail;
	}
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
					 WINHTTP_NO_PROXY_BYPASS, WINHTTP_FLAG_ASYNC);
	else
		t->session = WinHttpOpen(agent, WINHTTP_ACCESS_TYPE_AUTOMATIC_PROXY,
					 WINHTTP_NO_PROXY_NAME, WINHTTP_NO_PROXY_BYPASS,
					 WINHTTP_FLAG_ASYNC);
	if (!t->session)	/* before Windows 8.1 (and in some Wine versions) */
		t->session = WinHttpOpen(agent, WINHTTP_ACCESS_TYPE_DEFAULT_PROXY,
					 WINHTTP_NO_PROXY_NAME, WINHTTP_NO_PROXY_BYPASS,
					 WINHTTP_FLAG_ASYNC);
	if (!t->session) {
		error_text(GetLastError(), text, sizeof(text));
		mw_error(err, "remote write: WinHttpOpen failed: %s", text);
		goto fail;
	}
	/* without it no step would ever be seen to complete */
	if (WinHttpSetStatusCallback(t->session, on_status,
				     WINHTTP_CALLBACK_FLAG_ALL_COMPLETIONS |
				     WINHTTP_CALLBACK_FLAG_SECURE_FAILURE | WINHTTP_CALLBACK_FLAG_HANDLES,
				     0) == WINHTTP_INVALID_STATUS_CALLBACK) {
		error_text(GetLastError(), text, sizeof(text));
		mw_error(err, "remote write: WinHttpSetStatusCallback failed: %s", text);
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

static void no_answer(struct mw_rw_transport *t, DWORD code, DWORD tls_flags,
		      struct mw_rw_result *res)
{
	char text[256];

	if (is_cancelled(t) || code == ERROR_WINHTTP_OPERATION_CANCELLED) {
		cancelled_message(res);
		return;
	}
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

/* Wait for the step just started on req: 0 when it completed, or -1 with
 * res->message (its error, or the cancel: then the request is closed under
 * the step, which ends it). */
static int await_step(struct mw_rw_transport *t, struct step *st, struct mw_rw_result *res)
{
	HANDLE both[2] = { st->done, t->cancel };
	DWORD w = WaitForMultipleObjects(2, both, FALSE, INFINITE);

	if (w == WAIT_OBJECT_0 && !st->error)
		return 0;
	if (w == WAIT_OBJECT_0)
		no_answer(t, st->error, st->tls_flags, res);
	else
		cancelled_message(res);
	return -1;
}

/* Close the request: its struct step is freed by the callback once
 * WinHTTP is done with it (HANDLE_CLOSING). */
static void close_request(HINTERNET req)
{
	WinHttpCloseHandle(req);
}

/* A step of req just started (started: what its call returned): 0 once it
 * completed, or -1 with res->message and the request closed. */
static int run_step(struct mw_rw_transport *t, HINTERNET req, struct step *st, BOOL started,
		struct mw_rw_result *res)
{
	if (!started)
		no_answer(t, GetLastError(), st->tls_flags, res);
	if (!started || await_step(t, st, res) < 0) {
		close_request(req);
		return -1;
	}
	return 0;
}

/* A new request with its options set and its struct step as context: NULL
 * with res->message when it cannot be made. */
static HINTERNET open_request(struct mw_rw_transport *t, struct step **out,
			      struct mw_rw_result *res)
{
	HINTERNET req;
	DWORD feature = WINHTTP_DISABLE_REDIRECTS;
	struct step *st = calloc(1, sizeof(*st));
	DWORD_PTR ctx = (DWORD_PTR)st;

	if (st)
		st->done = CreateEventW(NULL, FALSE, FALSE, NULL);
	if (!st || !st->done) {
		free(st);
		snprintf(res->message, sizeof(res->message), "out of memory for a request");
		return NULL;
	}
	req = WinHttpOpenRequest(t->connect, t->get ? L"GET" : L"POST", t->path, NULL,
				 WINHTTP_NO_REFERER, WINHTTP_DEFAULT_ACCEPT_TYPES,
				 t->url.https ? WINHTTP_FLAG_SECURE : 0);
	if (!req || !WinHttpSetOption(req, WINHTTP_OPTION_CONTEXT_VALUE, &ctx, sizeof(ctx))) {
		no_answer(t, GetLastError(), 0, res);
		if (req)	/* no context yet: the callback does not free it */
			WinHttpCloseHandle(req);
		CloseHandle(st->done);
		free(st);
		return NULL;
	}
	/* from here on the callback frees st when req is closed */
	WinHttpSetTimeouts(req, t->timeout_ms, t->timeout_ms, t->timeout_ms, t->timeout_ms);
	/* The wait for the answer's headers has a limit of its own (90 s by
	 * default; Wine takes only this one for it). */
	{
		DWORD ms = (DWORD)t->timeout_ms;

		WinHttpSetOption(req, WINHTTP_OPTION_RECEIVE_RESPONSE_TIMEOUT, &ms, sizeof(ms));
	}
	/* A GET is the commands' one request: no connection left in the pool
	 * (Wine's pool is the whole process's: test_http_client, a transport
	 * per GET against a server that closes after each answer, failed about
	 * one run in 30-50 with a reset or a lost answer; none in 60 without). */
	if (t->get)
		feature |= WINHTTP_DISABLE_KEEP_ALIVE;
	WinHttpSetOption(req, WINHTTP_OPTION_DISABLE_FEATURE, &feature, sizeof(feature));
	/* Never answer a receiver's challenge with the Windows logon. */
	{
		DWORD policy = WINHTTP_AUTOLOGON_SECURITY_LEVEL_HIGH;

		WinHttpSetOption(req, WINHTTP_OPTION_AUTOLOGON_POLICY, &policy, sizeof(policy));
	}
	if (t->url.https && !t->tls_verify) {
		DWORD flags = SECURITY_FLAG_IGNORE_UNKNOWN_CA | SECURITY_FLAG_IGNORE_CERT_DATE_INVALID |
			      SECURITY_FLAG_IGNORE_CERT_CN_INVALID |
			      SECURITY_FLAG_IGNORE_CERT_WRONG_USAGE;

		WinHttpSetOption(req, WINHTTP_OPTION_SECURITY_FLAGS, &flags, sizeof(flags));
	}
	*out = st;
	return req;
}

/* Send one request (with body[0..len) for a post) and wait for the
 * answer's status: 0 with the open request in *out, or -1 with the reason. */
static int request(struct mw_rw_transport *t, const void *body, size_t len,
		   struct mw_rw_result *res, HINTERNET *out, struct step **step)
{
	HINTERNET req;
	struct step *st;
	DWORD status = 0, size = sizeof(status);

	res->status = 0;
	res->message[0] = '\0';
	if (is_cancelled(t)) {
		cancelled_message(res);
		return -1;
	}
	if (len > MAXDWORD) {
		snprintf(res->message, sizeof(res->message), "body of %zu bytes is too large", len);
		return -1;
	}
	req = open_request(t, &st, res);
	if (!req)
		return -1;
	/* WinHTTP reads the body while the send runs, maybe after a cancel
	 * returned: it sends a copy the callback frees. */
	if (len) {
		st->body = malloc(len);
		if (!st->body) {
			snprintf(res->message, sizeof(res->message), "out of memory for the body");
			close_request(req);
			return -1;
		}
		memcpy(st->body, body, len);
	}
	if (run_step(t, req, st, WinHttpSendRequest(req, t->headers, (DWORD)-1L, st->body, (DWORD)len,
						  (DWORD)len, (DWORD_PTR)st), res) ||
	    run_step(t, req, st, WinHttpReceiveResponse(req, NULL), res))
		return -1;
	if (!WinHttpQueryHeaders(req, WINHTTP_QUERY_STATUS_CODE | WINHTTP_QUERY_FLAG_NUMBER,
				 WINHTTP_HEADER_NAME_BY_INDEX, &status, &size,
				 WINHTTP_NO_HEADER_INDEX)) {
		no_answer(t, GetLastError(), 0, res);
		close_request(req);
		return -1;
	}
	res->status = (int)status;
	*out = req;
	*step = st;
	return 0;
}

/* Read the next piece of the answer's body into st->buf: its length (0 at
 * the end), or -1 with res->message. */
static long read_piece(struct mw_rw_transport *t, HINTERNET req, struct step *st,
		       struct mw_rw_result *res)
{
	st->got = 0;
	if (!WinHttpReadData(req, st->buf, sizeof(st->buf), NULL)) {
		no_answer(t, GetLastError(), 0, res);
		return -1;
	}
	if (await_step(t, st, res) < 0)
		return -1;
	return (long)st->got;
}

/* 407: name the proxy WinHTTP went through and the scheme it asked for. */
static void proxy_refused(HINTERNET req, struct mw_rw_result *res)
{
	wchar_t wscheme[128];
	char scheme[128] = "", proxy[256] = "";
	DWORD n = sizeof(wscheme);
	WINHTTP_PROXY_INFO info = { 0 };
	DWORD isize = sizeof(info);

	if (WinHttpQueryHeaders(req, WINHTTP_QUERY_PROXY_AUTHENTICATE, WINHTTP_HEADER_NAME_BY_INDEX,
				wscheme, &n, WINHTTP_NO_HEADER_INDEX))
		WideCharToMultiByte(CP_UTF8, 0, wscheme, -1, scheme, sizeof(scheme), NULL, NULL);
	if (WinHttpQueryOption(req, WINHTTP_OPTION_PROXY, &info, &isize)) {
		if (info.lpszProxy)
			WideCharToMultiByte(CP_UTF8, 0, info.lpszProxy, -1, proxy, sizeof(proxy),
					    NULL, NULL);
		if (info.lpszProxy)
			GlobalFree(info.lpszProxy);
		if (info.lpszProxyBypass)
			GlobalFree(info.lpszProxyBypass);
	}
	mw_rw_proxy_auth_message(proxy, scheme, res->message, sizeof(res->message));
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
	} else if (res->status == 407) {	/* never a logon, never a retry */
		proxy_refused(req, res);
	} else if (res->status >= 400 || res->status < 200) {
		mw_rw_printable(body, len, res->message, sizeof(res->message));
	}
	close_request(req);
}

int mw_rw_post(struct mw_rw_transport *t, const void *body, size_t len,
	       struct mw_rw_result *res)
{
	HINTERNET req;
	struct step *st;
	char keep[BODY_KEEP];
	size_t kept = 0, total = 0;
	int status;

	if (request(t, body, len, res, &req, &st) < 0)
		return -1;
	status = res->status;
	/* Read the body (its start kept) so the connection can be reused. */
	while (total < BODY_DRAIN) {
		long got = read_piece(t, req, st, res);

		if (got <= 0) {
			if (got < 0 && is_cancelled(t)) {	/* stopping: no answer */
				close_request(req);
				res->status = 0;
				return -1;
			}
			break;
		}
		if (kept < sizeof(keep)) {
			size_t room = sizeof(keep) - kept;
			size_t n = (size_t)got < room ? (size_t)got : room;

			memcpy(keep + kept, st->buf, n);
			kept += n;
		}
		total += (size_t)got;
	}
	res->status = status;
	res->message[0] = '\0';
	answered(req, keep, kept, res);
	return 0;
}

int mw_rw_get(struct mw_rw_transport *t, size_t max, struct mw_rw_answer *out)
{
	HINTERNET req;
	struct step *st;
	size_t cap = 4096;

	memset(out, 0, sizeof(*out));
	if (request(t, NULL, 0, &out->res, &req, &st) < 0)
		return -1;
	out->body = malloc(cap);
	for (;;) {
		long got;

		if (out->body && out->len + sizeof(st->buf) + 1 > cap) {
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
		got = read_piece(t, req, st, &out->res);
		if (got < 0)
			break;
		if (got == 0) {
			out->body[out->len] = '\0';
			answered(req, out->body, out->len, &out->res);
			return 0;
		}
		memcpy(out->body + out->len, st->buf, (size_t)got);
		out->len += (size_t)got;
		if (out->len > max) {
			snprintf(out->res.message, sizeof(out->res.message),
				 "answer from %s:%u larger than %zu bytes", t->url.host,
				 t->url.port, max);
			break;
		}
	}
	close_request(req);
	free(out->body);
	out->body = NULL;
	out->len = 0;
	out->res.status = 0;
	return -1;
}
