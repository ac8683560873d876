/* test_http_client.c - the client side of `check --url` and `diff --url`
 * (app/http_client.c over memwatch's one HTTP client, forward/
 * rw_transport): the daemon's address, the query string, and real GETs
 * over loopback to a server of our own (tests/support/http_stub.c) that
 * answers with the bytes each test gives: plain, chunked, without a
 * length, malformed, an error status, or never. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "app/http_client.h"
#include "forward/rw_transport.h"
#include "tests/support/http_stub.h"

static struct mw_stub srv;

MW_STUB_FIXTURES(srv)

static void urls_built(void **state)
{
	static const struct {
		const char *daemon, *url;
	} cases[] = {
		{ "http://127.0.0.1:8080", "http://127.0.0.1:8080/api/v1/leaks" },
		{ "http://lab-7/memwatch/", "http://lab-7/memwatch/api/v1/leaks" },
		{ "[::1]:9090", "http://[::1]:9090/api/v1/leaks" },
		{ "localhost:8080", "http://localhost:8080/api/v1/leaks" },
		{ "https://lab-7:8443", "https://lab-7:8443/api/v1/leaks" },
	};
	char url[256];
	struct mw_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(mw_http_url(cases[i].daemon, "/api/v1/leaks", url, sizeof(url),
					     &err), 0);
		assert_string_equal(url, cases[i].url);
	}
	assert_int_equal(mw_http_url("http://x", "/y", url, 10, &err), -1);
}

/* Each is refused before anything is sent, with a message. */
static void urls_reject(void **state)
{
	static const char *const bad[] = { "", "ftp://x", "http://", "http://x:",
					   "http://x:99999", "http://x:8a", "http://[::1",
					   "http://x/?a=1", "http://x/#top", "http://a b" };
	struct mw_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		if (mw_http_get_json(bad[i], "/healthz", NULL, 1000, NULL, "x", &err))
			fail_msg("'%s' was accepted", bad[i]);
		if (!err.msg[0])
			fail_msg("'%s': no message", bad[i]);
	}
	mw_http_get_json("ftp://x", "/healthz", NULL, 1000, NULL, "x", &err);
	assert_non_null(strstr(err.msg, "http:// or https://"));
}

static void encodes(void **state)
{
	char buf[64] = "q=";

	(void)state;
	assert_int_equal(mw_url_encode_append(buf, sizeof(buf), "a{b=\"c d\"}&"), 0);
	assert_string_equal(buf, "q=a%7Bb%3D%22c%20d%22%7D%26");
	buf[0] = '\0';
	assert_int_equal(mw_url_encode_append(buf, 4, "{{"), -1);
}

/* GET path from the stub answering `answer`; the parsed object or NULL
 * with err. */
static cJSON *get(const char *answer, const char *token, const char *expect,
		  struct mw_err *err)
{
	char base[64];

	snprintf(base, sizeof(base), "http://127.0.0.1:%u/", srv.port);
	mw_stub_set(&srv, MW_STUB_ANSWER, answer);
	err->msg[0] = '\0';
	return mw_http_get_json(base, "/api/v1/leaks?match=a%20b", token, 5000, expect,
				"a leak report", err);
}

/* The answer is read as a report whose verdict is n. */
static void expect_verdict(const char *answer, const char *token, int n)
{
	struct mw_err err;
	cJSON *doc = get(answer, token, "verdict", &err);

	if (!doc)
		fail_msg("%s", err.msg);
	assert_int_equal(cJSON_GetObjectItem(doc, "verdict")->valueint, n);
	cJSON_Delete(doc);
}

static void answers_read(void **state)
{
	static const char plain[] = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
				    "Content-Length: 13\r\n\r\n{\"verdict\":1}trailing";
	static const char chunked[] = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
				      "5\r\n{\"ver\r\n8\r\ndict\":2}\r\n0\r\n\r\n";
	static const char noclen[] = "HTTP/1.0 200 OK\r\n\r\n{\"verdict\":3}";

	(void)state;
	expect_verdict(plain, "tok-9", 1);
	/* what was asked, as the daemon saw it */
	pthread_mutex_lock(&srv.mu);
	assert_non_null(strstr(srv.head, "get /api/v1/leaks?match=a%20b http/1.1\r\n"));
	assert_non_null(strstr(srv.head, "\r\naccept: application/json\r\n"));
	assert_non_null(strstr(srv.head, "\r\nauthorization: bearer tok-9\r\n"));
	assert_non_null(strstr(srv.head, "\r\nuser-agent: memwatch/"));
	pthread_mutex_unlock(&srv.mu);

	expect_verdict(chunked, NULL, 2);
	pthread_mutex_lock(&srv.mu);
	assert_null(strstr(srv.head, "\r\nauthorization:"));
	pthread_mutex_unlock(&srv.mu);

	expect_verdict(noclen, NULL, 3);
}

/* The raw body, byte for byte, through the transport itself. */
static void bodies_whole(void **state)
{
	static char answer[200000];
	char url[64];
	struct mw_rw_endpoint ep = { .url = url, .tls_verify = true, .timeout_ms = 5000,
				     .get = true };
	struct mw_rw_transport *t;
	struct mw_rw_answer a;
	struct mw_err err;
	int n;

	(void)state;
	/* larger than any one read, with a NUL byte inside */
	n = snprintf(answer, sizeof(answer), "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n",
		     150000);
	memset(answer + n, 'x', 150000);
	answer[n + 150000] = '\0';
	snprintf(url, sizeof(url), "http://127.0.0.1:%u/big", srv.port);
	t = mw_rw_transport_new(&ep, &err);
	assert_non_null(t);
	mw_stub_set(&srv, MW_STUB_ANSWER, answer);
	assert_int_equal(mw_rw_get(t, 1u << 20, &a), 0);
	assert_int_equal(a.res.status, 200);
	assert_int_equal(a.len, 150000);
	assert_int_equal(a.body[0], 'x');
	assert_int_equal(a.body[a.len - 1], 'x');
	assert_int_equal(a.body[a.len], '\0');
	free(a.body);
	/* more than the caller takes: an error, no body */
	assert_int_equal(mw_rw_get(t, 1000, &a), -1);
	assert_null(a.body);
	print_message("%s\n", a.res.message);
	assert_non_null(strstr(a.res.message, "larger than 1000 bytes"));
	mw_rw_transport_free(t);
}

static void answers_reject(void **state)
{
	static const char *const bad[] = {
		"", "SSH-2.0-OpenSSH\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n{}", "HTTP/1.1 200 OK\r\nNo-End: x",
		"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n{\"verdict\"",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nff\r\n{\"verdict\"",
		"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n[]",	/* not an object */
		"HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n{\"a\": 1}",	/* not a report */
	};
	struct mw_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cJSON *doc = get(bad[i], NULL, "verdict", &err);

		if (doc)
			fail_msg("answer %zu was accepted", i);
		if (!err.msg[0])
			fail_msg("answer %zu: no message", i);
		print_message("%zu: %s\n", i, err.msg);
	}
	assert_non_null(strstr(err.msg, "did not answer with a leak report (is it memwatchd?)"));
}

static void error_status_says_why(void **state)
{
	static const char json_error[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 37\r\n\r\n"
					 "{\"error\":\"warmup: is not a duration\"}";
	static const char text_error[] = "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 27\r\n\r\n"
					 "upstream\r\nmemwatchd is down";
	static const char empty[] = "HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n";
	struct mw_err err;

	(void)state;
	assert_null(get(json_error, NULL, "verdict", &err));
	assert_non_null(strstr(err.msg, "answered 400: warmup: is not a duration"));
	assert_null(get(text_error, NULL, "verdict", &err));
	assert_non_null(strstr(err.msg, "answered 502: upstream memwatchd is down"));
	assert_null(get(empty, NULL, "verdict", &err));
	assert_non_null(strstr(err.msg, "answered 401: (empty body)"));
}

static void silence_times_out(void **state)
{
	char base[64];
	struct mw_err err = { "" };

	(void)state;
	snprintf(base, sizeof(base), "http://127.0.0.1:%u", srv.port);
	mw_stub_set(&srv, MW_STUB_HANG, NULL);
	assert_null(mw_http_get_json(base, "/api/v1/leaks", NULL, 400, "verdict", "x", &err));
	print_message("%s\n", err.msg);
	assert_non_null(strstr(err.msg, "timed out after 400 ms"));
}

/* A daemon's address that never answers the connect (a listener whose
 * queue is full drops the SYN): the time-out covers the connect too, and
 * the client never got in. */
static void unanswered_connect_times_out(void **state)
{
	struct mw_blackhole b;
	char base[64];
	struct mw_err err = { "" };

	(void)state;
	assert_int_equal(mw_blackhole_start(&b), 0);
	snprintf(base, sizeof(base), "http://127.0.0.1:%u", b.port);
	assert_null(mw_http_get_json(base, "/api/v1/leaks", NULL, 400, "verdict", "x", &err));
	print_message("%s\n", err.msg);
	assert_non_null(strstr(err.msg, "timed out after 400 ms"));
	assert_int_equal(mw_blackhole_queued(&b), 1);	/* the filler only */
	mw_blackhole_stop(&b);
}

static void refused_connection_is_an_error(void **state)
{
	char base[64], where[32];
	unsigned port = mw_stub_free_port();
	struct mw_err err = { "" };

	(void)state;
	snprintf(base, sizeof(base), "http://127.0.0.1:%u", port);
	snprintf(where, sizeof(where), "127.0.0.1:%u", port);
	assert_null(mw_http_get_json(base, "/healthz", NULL, 5000, NULL, "x", &err));
	print_message("%s\n", err.msg);
	assert_non_null(strstr(err.msg, where));
	assert_non_null(strstr(err.msg, "refused"));
}

int main(void)
{
	const struct CMUnitTest pure[] = {
		cmocka_unit_test(urls_built),
		cmocka_unit_test(urls_reject),
		cmocka_unit_test(encodes),
	};
	const struct CMUnitTest live[] = {
		cmocka_unit_test(answers_read),
		cmocka_unit_test(bodies_whole),
		cmocka_unit_test(answers_reject),
		cmocka_unit_test(error_status_says_why),
		cmocka_unit_test(silence_times_out),
		cmocka_unit_test(unanswered_connect_times_out),
		cmocka_unit_test(refused_connection_is_an_error),
	};
	int failed;

#ifndef _WIN32
	/* loopback must not go through a proxy from the environment (the GET
	 * ignores them anyway; this keeps the test honest if that changes) */
	unsetenv("http_proxy");
	unsetenv("HTTP_PROXY");
#endif
	failed = cmocka_run_group_tests_name("pure", pure, NULL, NULL);
	failed += cmocka_run_group_tests_name("loopback", live, server_start, server_stop);
	return failed;
}
