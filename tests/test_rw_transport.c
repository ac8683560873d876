/*
 * test_rw_transport.c - the remote-write transport: its pure parts (URL,
 * endpoint checks, headers, base64, the receiver's message), and real
 * POSTs over loopback to a tiny HTTP server this test runs in a thread of
 * its own (plain HTTP; both platforms: libcurl natively, WinHTTP under
 * Wine).  The server answers each connection the way the test set before
 * posting: 204, 401 or 400 with a body, or never (it reads the request and
 * waits for the client to give up): tests/support/http_stub.c.  TLS is tested natively in
 * test_rw_transport_linux.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <pthread.h>
#include <cmocka.h>

#include "forward/rw_proxy_auth.h"
#include "forward/rw_transport.h"
#include "forward/rw_transport_util.h"
#include "tests/support/http_stub.h"

/* --- pure parts ------------------------------------------------------------ */

static void url_parse(void **state)
{
	struct mw_rw_url u;
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_rw_url_parse("http://127.0.0.1:9090/api/v1/write", &u, &err), 0);
	assert_false(u.https);
	assert_string_equal(u.host, "127.0.0.1");
	assert_int_equal(u.port, 9090);
	assert_string_equal(u.path, "/api/v1/write");
	assert_int_equal(mw_rw_url_parse("HTTPS://prom.example/api/v1/write?tenant=a", &u, &err), 0);
	assert_true(u.https);
	assert_int_equal(u.port, 443);
	assert_string_equal(u.path, "/api/v1/write?tenant=a");
	assert_int_equal(mw_rw_url_parse("http://[::1]:8428/api/v1/write", &u, &err), 0);
	assert_string_equal(u.host, "::1");
	assert_int_equal(u.port, 8428);
	assert_int_equal(mw_rw_url_parse("http://vm", &u, &err), 0);
	assert_int_equal(u.port, 80);
	assert_string_equal(u.path, "/");
	assert_int_equal(mw_rw_url_parse("http://vm?x", &u, &err), 0);
	assert_string_equal(u.path, "/?x");
}

static void expect_url_error(const char *url, const char *part)
{
	struct mw_rw_url u;
	struct mw_err err = { "" };

	assert_int_equal(mw_rw_url_parse(url, &u, &err), -1);
	if (!strstr(err.msg, part))
		fail_msg("'%s': error \"%s\" does not say \"%s\"", url ? url : "(null)", err.msg,
			 part);
}

static void url_errors(void **state)
{
	struct mw_rw_url u;
	struct mw_err err = { "" };

	(void)state;
	expect_url_error(NULL, "empty");
	expect_url_error("", "empty");
	expect_url_error("ftp://h/x", "http:// or https://");
	expect_url_error("localhost:9090/api/v1/write", "http:// or https://");
	expect_url_error("http://", "no host");
	expect_url_error("http://:80/", "no host");
	expect_url_error("http://h:0/", "out of range");
	expect_url_error("http://h:99999/", "out of range");
	expect_url_error("http://h:123456789012345678901234567890/", "bad port");
	expect_url_error("http://h:/", "empty port");
	expect_url_error("http://h:8x/", "bad port");
	expect_url_error("http://[::1/", "unterminated");
	expect_url_error("http://h/a b", "space");
	expect_url_error("http://h/a\nb", "control");
	expect_url_error("http://h/w#top", "fragment");
	/* credentials in the URL: refused, and not repeated in the message */
	assert_int_equal(mw_rw_url_parse("http://ann:s3cret@h/", &u, &err), -1);
	assert_non_null(strstr(err.msg, "basic_user"));
	assert_null(strstr(err.msg, "s3cret"));
}

static struct mw_rw_endpoint endpoint(const char *url)
{
	return (struct mw_rw_endpoint){ .url = url, .tls_verify = true, .timeout_ms = 5000 };
}

static void expect_endpoint_error(const struct mw_rw_endpoint *ep, const char *part)
{
	struct mw_rw_url u;
	struct mw_err err = { "" };
	struct mw_rw_transport *t;

	assert_int_equal(mw_rw_endpoint_check(ep, &u, &err), -1);
	if (!strstr(err.msg, part))
		fail_msg("error \"%s\" does not say \"%s\"", err.msg, part);
	/* and the transport refuses it at creation, with the same words */
	err.msg[0] = '\0';
	t = mw_rw_transport_new(ep, &err);
	assert_null(t);
	if (!strstr(err.msg, part))
		fail_msg("transport error \"%s\" does not say \"%s\"", err.msg, part);
	if (ep->bearer_token)
		assert_null(strstr(err.msg, ep->bearer_token));
}

/* Settings the transport refuses, each with the words its error says. */
static const struct {
	const char *url;
	bool no_timeout;
	const char *bearer_token, *basic_user, *basic_password, *ca_file;
	const char *says;
} endpoint_refusals[] = {
	{ "gopher://h/", false, NULL, NULL, NULL, NULL, "http:// or https://" },
	{ "http://h/", true, NULL, NULL, NULL, NULL, "timeout" },
	{ "http://h/", false, "s3cr3t", "ann", NULL, NULL, "both set" },
	{ "http://h/", false, NULL, NULL, "pw", NULL, "basic_password is set without basic_user" },
	{ "http://h/", false, NULL, "a:b", NULL, NULL, "must not contain ':'" },
	{ "http://h/", false, "abc\r\nX-Evil: 1", NULL, NULL, NULL, "bearer_token contains" },
	{ "http://h/", false, NULL, "ann", "pw\nX: y", NULL, "line break" },
	{ "http://h/", false, NULL, NULL, NULL, "ca.pem", "ca_file is set but" },
};

static void endpoint_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < MW_ARRAY_SIZE(endpoint_refusals); i++) {
		struct mw_rw_endpoint ep = endpoint(endpoint_refusals[i].url);

		if (endpoint_refusals[i].no_timeout)
			ep.timeout_ms = 0;
		if (endpoint_refusals[i].bearer_token)
			ep.bearer_token = endpoint_refusals[i].bearer_token;
		if (endpoint_refusals[i].basic_user)
			ep.basic_user = endpoint_refusals[i].basic_user;
		if (endpoint_refusals[i].basic_password)
			ep.basic_password = endpoint_refusals[i].basic_password;
		if (endpoint_refusals[i].ca_file)
			ep.ca_file = endpoint_refusals[i].ca_file;
		expect_endpoint_error(&ep, endpoint_refusals[i].says);
	}
}

static void base64_vectors(void **state)
{
	static const char *const in[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	static const char *const out[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=",
					   "Zm9vYmFy" };
	char buf[16];

	(void)state;
	for (size_t i = 0; i < MW_ARRAY_SIZE(in); i++) {
		assert_int_equal(mw_rw_base64(in[i], strlen(in[i]), buf, sizeof(buf)), 0);
		assert_string_equal(buf, out[i]);
	}
	assert_int_equal(mw_rw_base64("foobar", 6, buf, 8), -1);	/* needs 9 */
	assert_int_equal(mw_rw_base64("foobar", 6, buf, 9), 0);
}

static void headers(void **state)
{
	struct mw_rw_endpoint ep = endpoint("http://h/");
	struct mw_rw_headers h;
	struct mw_err err;
	size_t n;

	(void)state;
	ep.bearer_token = "tok-123";
	assert_int_equal(mw_rw_headers_build(&ep, &h, &err), 0);
	for (n = 0; h.line[n]; n++)
		;
	assert_int_equal(n, 5);
	assert_string_equal(h.line[0], "Content-Encoding: snappy");
	assert_string_equal(h.line[1], "Content-Type: application/x-protobuf");
	assert_string_equal(h.line[2], "X-Prometheus-Remote-Write-Version: 0.1.0");
	assert_string_equal(h.line[3], "Authorization: Bearer tok-123");
	assert_string_equal(h.line[4], "Expect:");
	mw_rw_headers_free(&h);

	ep.bearer_token = "";
	ep.basic_user = "ann";
	ep.basic_password = "se:cret";	/* a ':' is fine in the password */
	assert_int_equal(mw_rw_headers_build(&ep, &h, &err), 0);
	assert_string_equal(h.line[3], "Authorization: Basic YW5uOnNlOmNyZXQ=");
	mw_rw_headers_free(&h);

	ep.basic_user = NULL;
	ep.basic_password = NULL;
	assert_int_equal(mw_rw_headers_build(&ep, &h, &err), 0);
	assert_string_equal(h.line[3], "Expect:");
	assert_null(h.line[4]);
	mw_rw_headers_free(&h);
}

static void printable(void **state)
{
	char out[32];
	const char utf8[] = "\xc3\xa9t\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac";

	(void)state;
	mw_rw_printable("line1\r\nline2\t  x\n", 17, out, sizeof(out));
	assert_string_equal(out, "line1 line2 x");
	mw_rw_printable("a\x01" "b\x7f" "c\xff" "d", 7, out, sizeof(out));
	assert_string_equal(out, "a?b?c?d");
	mw_rw_printable(utf8, strlen(utf8), out, sizeof(out));
	assert_string_equal(out, utf8);
	mw_rw_printable("", 0, out, sizeof(out));
	assert_string_equal(out, "(empty body)");
	mw_rw_printable(" \r\n ", 4, out, sizeof(out));
	assert_string_equal(out, "(empty body)");
	/* NUL bytes in a body are bytes like others */
	mw_rw_printable("a\0b", 3, out, sizeof(out));
	assert_string_equal(out, "a?b");
	/* cut, marked, never inside a character: 3-byte characters that do
	 * not fit are left out whole */
	{
		char big[300];

		for (size_t i = 0; i < 100; i++)
			memcpy(big + 3 * i, "\xe6\x97\xa5", 3);
		mw_rw_printable(big, 300, out, sizeof(out));
		assert_true(strlen(out) < sizeof(out));
		assert_int_equal(strcmp(out + strlen(out) - 3, "..."), 0);
		assert_int_equal((strlen(out) - 3) % 3, 0);
		mw_rw_printable("abcdefghij", 10, out, 8);
		assert_string_equal(out, "abcd...");
	}
}

/* --- real posts to a loopback server ------------------------------------- */

/* A proxy's 407: named, with its scheme, and what to set. */
static void proxy_auth_message(void **state)
{
	char m[512];

	(void)state;
	mw_rw_proxy_auth_message("proxy.corp:8080", "NTLM", m, sizeof(m));
	print_message("%s\n", m);
	assert_non_null(strstr(m, "the proxy proxy.corp:8080 asks for a logon (HTTP 407"));
	assert_non_null(strstr(m, "scheme NTLM)"));
	assert_non_null(strstr(m, "bypass list"));
	mw_rw_proxy_auth_message(NULL, "Basic realm=\"corp\"", m, sizeof(m));
	assert_non_null(strstr(m, "the proxy asks for a logon (HTTP 407 Proxy Authentication "
				  "Required, scheme Basic)"));
	mw_rw_proxy_auth_message("", NULL, m, sizeof(m));
	assert_non_null(strstr(m, "the proxy asks for a logon (HTTP 407 Proxy Authentication "
				  "Required);"));
	/* a hostile header stays on one printable line */
	mw_rw_proxy_auth_message("p\r\nX: y", "Basic\x01", m, sizeof(m));
	assert_null(strchr(m, '\r'));
	assert_null(strchr(m, '\n'));
	assert_null(strchr(m, '\x01'));
}

static struct mw_stub srv;

MW_STUB_FIXTURES(srv)

static struct mw_rw_transport *client(const char *path, int timeout_ms, const char *token)
{
	static char url[128];
	struct mw_rw_endpoint ep;
	struct mw_rw_transport *t;
	struct mw_err err = { "" };

	snprintf(url, sizeof(url), "http://127.0.0.1:%u%s", srv.port, path);
	ep = endpoint(url);
	ep.timeout_ms = timeout_ms;
	ep.bearer_token = token;
	t = mw_rw_transport_new(&ep, &err);
	if (!t)
		fail_msg("transport: %s", err.msg);
	return t;
}

static const unsigned char body[] = { 0x0b, 0x28, 0x0a, 0x09, 0x0a, 0x01, 'a', 0xff, 0x00, 0x80 };

static void post_accepted(void **state)
{
	struct mw_rw_transport *t = client("/api/v1/write", 5000, "tok-123");
	struct mw_rw_result res;
	char head[sizeof(srv.head)];
	size_t blen;

	(void)state;
	mw_stub_set(&srv, MW_STUB_ANSWER, "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
	assert_int_equal(mw_rw_post(t, body, sizeof(body), &res), 0);
	assert_int_equal(res.status, 204);
	assert_string_equal(res.message, "");
	pthread_mutex_lock(&srv.mu);
	memcpy(head, srv.head, sizeof(head));
	blen = srv.body_len;
	assert_int_equal(blen, sizeof(body));
	assert_memory_equal(srv.body, body, sizeof(body));
	pthread_mutex_unlock(&srv.mu);
	/* the documented headers (the server lower-cased them) */
	assert_non_null(strstr(head, "post /api/v1/write http/1.1\r\n"));
	assert_non_null(strstr(head, "\r\ncontent-encoding: snappy\r\n"));
	assert_non_null(strstr(head, "\r\ncontent-type: application/x-protobuf\r\n"));
	assert_non_null(strstr(head, "\r\nx-prometheus-remote-write-version: 0.1.0\r\n"));
	assert_non_null(strstr(head, "\r\nuser-agent: memwatch/"));
	assert_non_null(strstr(head, "\r\nauthorization: bearer tok-123\r\n"));
	assert_null(strstr(head, "\r\nexpect:"));

	/* again on the same transport (a new connection: the server closed) */
	assert_int_equal(mw_rw_post(t, body, 3, &res), 0);
	assert_int_equal(res.status, 204);
	pthread_mutex_lock(&srv.mu);
	assert_int_equal(srv.body_len, 3);
	pthread_mutex_unlock(&srv.mu);
	mw_rw_transport_free(t);
}

static void post_basic_auth(void **state)
{
	char url[128];
	struct mw_rw_endpoint ep;
	struct mw_rw_transport *t;
	struct mw_rw_result res;
	struct mw_err err = { "" };

	(void)state;
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/api/v1/write", srv.port);
	ep = endpoint(url);
	ep.basic_user = "ann";
	ep.basic_password = "se:cret";
	t = mw_rw_transport_new(&ep, &err);
	assert_non_null(t);
	mw_stub_set(&srv, MW_STUB_ANSWER, "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
	assert_int_equal(mw_rw_post(t, body, sizeof(body), &res), 0);
	assert_int_equal(res.status, 204);
	pthread_mutex_lock(&srv.mu);
	/* lower-cased by the server: base64 of ann:se:cret */
	assert_non_null(strstr(srv.head, "\r\nauthorization: basic yw5uonnlomnyzxq=\r\n"));
	pthread_mutex_unlock(&srv.mu);
	mw_rw_transport_free(t);
}

static void post_unauthorized(void **state)
{
	struct mw_rw_transport *t = client("/api/v1/write", 5000, "wrong");
	struct mw_rw_result res;
	int before = mw_stub_requests(&srv);

	(void)state;
	mw_stub_set(&srv, MW_STUB_ANSWER, "HTTP/1.1 401 Unauthorized\r\nContent-Type: text/plain\r\n"
			 "WWW-Authenticate: Basic realm=\"rw\"\r\n"
			 "WWW-Authenticate: Negotiate\r\n"
			 "Content-Length: 36\r\nConnection: close\r\n\r\n"
			 "authentication error: invalid token\n");
	assert_int_equal(mw_rw_post(t, body, sizeof(body), &res), 0);
	assert_int_equal(res.status, 401);
	assert_string_equal(res.message, "authentication error: invalid token");
	/* one request: the challenge was not answered on our own */
	assert_int_equal(mw_stub_requests(&srv), before + 1);
	mw_rw_transport_free(t);
}

static void post_bad_request(void **state)
{
	static char answer[8192];
	struct mw_rw_transport *t = client("/api/v1/write", 5000, NULL);
	struct mw_rw_result res;
	char text[6000];
	size_t n;

	(void)state;
	/* a long body, with control bytes, and no Content-Length (ends with
	 * the connection) */
	n = (size_t)snprintf(text, sizeof(text), "out of bounds\r\n\x01\x1b[31m");
	memset(text + n, 'x', sizeof(text) - n - 1);
	text[sizeof(text) - 1] = '\0';
	snprintf(answer, sizeof(answer), "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n%s",
		 text);
	mw_stub_set(&srv, MW_STUB_ANSWER, answer);
	assert_int_equal(mw_rw_post(t, body, sizeof(body), &res), 0);
	assert_int_equal(res.status, 400);
	assert_true(strlen(res.message) < sizeof(res.message));
	assert_int_equal(strncmp(res.message, "out of bounds ??[31mxxx", 23), 0);
	assert_int_equal(strcmp(res.message + strlen(res.message) - 3, "..."), 0);
	for (const char *p = res.message; *p; p++)
		assert_true((unsigned char)*p >= 0x20 && *p != 0x7f);
	mw_rw_transport_free(t);
}

/* A post through t that gets no HTTP answer: -1, no status, and a message
 * that says why (then t is freed). */
static void expect_no_answer(struct mw_rw_transport *t, const char *says)
{
	struct mw_rw_result res;

	assert_int_equal(mw_rw_post(t, body, sizeof(body), &res), -1);
	assert_int_equal(res.status, 0);
	print_message("%s\n", res.message);
	if (!strstr(res.message, says))
		fail_msg("message: %s", res.message);
	mw_rw_transport_free(t);
}

static void post_hangs(void **state)
{
	struct mw_rw_transport *t = client("/api/v1/write", 400, NULL);

	(void)state;
	mw_stub_set(&srv, MW_STUB_HANG, NULL);
	expect_no_answer(t, "timed out after 400 ms");
}

/* Stopping: a cancelled transport gives up on a receiver that never
 * answers (within a second on Linux, before the request on Windows), not
 * after its minute of timeout, and says why. */
static void post_cancelled(void **state)
{
	struct mw_rw_transport *t = client("/api/v1/write", 60000, NULL);

	(void)state;
	mw_stub_set(&srv, MW_STUB_HANG, NULL);
	mw_rw_transport_cancel(t);
	expect_no_answer(t, "cancelled: memwatchd is stopping");
}

/* A post on another thread, for cancelling it while it waits. */
struct post_job {
	struct mw_rw_transport *t;
	struct mw_rw_result res;
	int rc;
};

static void *post_job_run(void *arg)
{
	struct post_job *j = arg;

	j->rc = mw_rw_post(j->t, body, sizeof(body), &j->res);
	return NULL;
}

/* Stopping while the post waits for the answer: the cancel from another
 * thread ends the step in flight (libcurl's progress callback; WinHTTP's
 * request handle closed under it), not its timeout of an hour.  A
 * transport that missed the cancel would wait for that hour, or until the
 * stub's 30 s safety net closes the connection ("lost before an answer"),
 * so the test fails or never finishes; no timing is measured. */
static void post_cancelled_while_waiting(void **state)
{
	/* a receiver of its own: Wine's WinHTTP leaves the cancelled
	 * connection open, which would hold the shared one's single thread */
	static struct mw_stub hang;
	struct mw_rw_endpoint ep;
	struct post_job j = { 0 };
	struct mw_err err = { "" };
	char url[128];
	pthread_t th;
	int gave_up;

	(void)state;
	assert_int_equal(mw_stub_start(&hang, 0), 0);
	mw_stub_set(&hang, MW_STUB_HANG, NULL);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/api/v1/write", hang.port);
	ep = endpoint(url);
	ep.timeout_ms = 3600 * 1000;
	j.t = mw_rw_transport_new(&ep, &err);
	if (!j.t)
		fail_msg("transport: %s", err.msg);
	assert_int_equal(pthread_create(&th, NULL, post_job_run, &j), 0);
	/* the receiver has the whole request: the client now waits in receive */
	assert_int_equal(mw_stub_wait_requests(&hang, 1, 20), 0);
	mw_rw_transport_cancel(j.t);
	pthread_join(th, NULL);
	pthread_mutex_lock(&hang.mu);
	gave_up = hang.gave_up;
	pthread_mutex_unlock(&hang.mu);
	mw_rw_transport_free(j.t);
	mw_stub_stop(&hang);
	print_message("%s\n", j.res.message);
	assert_int_equal(j.rc, -1);
	assert_int_equal(j.res.status, 0);
	if (!strstr(j.res.message, "cancelled: memwatchd is stopping"))
		fail_msg("message: %s", j.res.message);
	/* it returned while the receiver still held the connection, not
	 * after the receiver's 30 s safety net closed it */
	assert_int_equal(gave_up, 0);
}

/* Post once to the stub answering `answer`: the result, its status checked. */
static struct mw_rw_result post_answered(const char *answer, int status)
{
	struct mw_rw_transport *t = client("/api/v1/write", 5000, NULL);
	struct mw_rw_result res;

	mw_stub_set(&srv, MW_STUB_ANSWER, answer);
	assert_int_equal(mw_rw_post(t, body, sizeof(body), &res), 0);
	assert_int_equal(res.status, status);
	print_message("%s\n", res.message);
	mw_rw_transport_free(t);
	return res;
}

/* A 407 from the way to the receiver: one request (no retry) and, on
 * Windows, the message naming the proxy and what to set (libcurl keeps
 * the body's text: it goes through a proxy only when told to). */
static void post_proxy_auth(void **state)
{
	int before = mw_stub_requests(&srv);
	struct mw_rw_result res = post_answered("HTTP/1.1 407 Proxy Authentication Required\r\n"
						"Proxy-Authenticate: Basic realm=\"corp\"\r\n"
						"Content-Length: 6\r\nConnection: close\r\n\r\n"
						"denied", 407);

	(void)state;
#ifdef _WIN32
	assert_non_null(strstr(res.message, "asks for a logon (HTTP 407 Proxy Authentication "
					     "Required, scheme Basic)"));
#else
	(void)res;
#endif
	assert_int_equal(mw_stub_requests(&srv), before + 1);
}

static void post_redirected(void **state)
{
	struct mw_rw_result res = post_answered("HTTP/1.1 308 Permanent Redirect\r\n"
						"Location: http://vm.example:8428/api/v1/write\r\n"
						"Content-Length: 0\r\nConnection: close\r\n\r\n", 308);

	(void)state;
	assert_non_null(strstr(res.message, "redirected to http://vm.example:8428/api/v1/write"));
}

/* http://[::1]:PORT/ - the IPv6 literal in brackets, where the host has
 * IPv6 loopback at all. */
static void post_ipv6(void **state)
{
	static struct mw_stub v6;
	char url[128];
	struct mw_rw_endpoint ep;
	struct mw_rw_transport *t;
	struct mw_rw_result res;
	struct mw_err err = { "" };
	int rc;

	(void)state;
	if (mw_stub_start(&v6, 1) != 0) {
		print_message("no IPv6 loopback here: skipped\n");
		skip();
	}
	mw_stub_set(&v6, MW_STUB_ANSWER, "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
	snprintf(url, sizeof(url), "http://[::1]:%u/api/v1/write", v6.port);
	ep = endpoint(url);
	t = mw_rw_transport_new(&ep, &err);
	assert_non_null(t);
	rc = mw_rw_post(t, body, sizeof(body), &res);
	mw_rw_transport_free(t);
	mw_stub_stop(&v6);
	if (rc != 0)
		fail_msg("message: %s", res.message);
	assert_int_equal(res.status, 204);
	assert_non_null(strstr(v6.head, "\r\nhost: [::1]:"));
}

static void post_refused(void **state)
{
	unsigned port = mw_stub_free_port();	/* nobody listens on that port now */
	char url[128];
	struct mw_rw_endpoint ep;
	struct mw_rw_transport *t;
	struct mw_err err;

	(void)state;
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/api/v1/write", port);
	ep = endpoint(url);
	t = mw_rw_transport_new(&ep, &err);
	assert_non_null(t);
	expect_no_answer(t, "refused");
}

int main(void)
{
	const struct CMUnitTest pure[] = {
		cmocka_unit_test(url_parse),
		cmocka_unit_test(url_errors),
		cmocka_unit_test(endpoint_errors),
		cmocka_unit_test(base64_vectors),
		cmocka_unit_test(headers),
		cmocka_unit_test(printable),
		cmocka_unit_test(proxy_auth_message),
	};
	const struct CMUnitTest live[] = {
		cmocka_unit_test(post_accepted),
		cmocka_unit_test(post_basic_auth),
		cmocka_unit_test(post_unauthorized),
		cmocka_unit_test(post_bad_request),
		cmocka_unit_test(post_hangs),
		cmocka_unit_test(post_cancelled),
		cmocka_unit_test(post_cancelled_while_waiting),
		cmocka_unit_test(post_proxy_auth),
		cmocka_unit_test(post_redirected),
		cmocka_unit_test(post_ipv6),
		cmocka_unit_test(post_refused),
	};
	int failed;

#ifndef _WIN32
	/* loopback must not go through a proxy from the environment */
	static const char *const proxies[] = { "http_proxy", "HTTP_PROXY", "https_proxy",
					       "HTTPS_PROXY", "all_proxy", "ALL_PROXY" };

	for (size_t i = 0; i < MW_ARRAY_SIZE(proxies); i++)
		unsetenv(proxies[i]);
#endif
	failed = cmocka_run_group_tests_name("pure", pure, NULL, NULL);
	failed += cmocka_run_group_tests_name("loopback", live, server_start, server_stop);
	return failed;
}
