/* test_http_client.c - the client side of `check --url`: URLs, answers,
 * and one real GET against a listener of our own (loopback). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "app/http_client.h"

static void urls_parse(void **state)
{
	struct mw_url u;
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_url_parse("http://127.0.0.1:8080", &u, &err), 0);
	assert_string_equal(u.host, "127.0.0.1");
	assert_string_equal(u.port, "8080");
	assert_string_equal(u.path, "");
	assert_int_equal(mw_url_parse("http://lab-7/memwatch/", &u, &err), 0);
	assert_string_equal(u.host, "lab-7");
	assert_string_equal(u.port, "80");
	assert_string_equal(u.path, "/memwatch");
	assert_int_equal(mw_url_parse("[::1]:9090", &u, &err), 0);
	assert_string_equal(u.host, "::1");
	assert_string_equal(u.port, "9090");
	assert_int_equal(mw_url_parse("localhost:8080", &u, &err), 0);
	assert_string_equal(u.host, "localhost");
}

static void urls_reject(void **state)
{
	static const char *const bad[] = { "", "https://x", "ftp://x", "http://", "http://x:",
					   "http://x:99999", "http://x:8a", "http://[::1", "http://x/?a=1" };
	struct mw_url u;
	struct mw_err err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		if (mw_url_parse(bad[i], &u, &err) == 0)
			fail_msg("'%s' was accepted", bad[i]);
		assert_true(err.msg[0] != '\0');
	}
	assert_non_null(strstr((mw_url_parse("https://x", &u, &err), err.msg), "https"));
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

static void answers_parse(void **state)
{
	static const char plain[] = "HTTP/1.1 412 Precondition Failed\r\nContent-Type: application/json\r\n"
				    "Content-Length: 5\r\n\r\n{\"a\"}trailing";
	static const char chunked[] = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
				      "3\r\n{\"a\r\n2\r\n\"}\r\n0\r\n\r\n";
	static const char noclen[] = "HTTP/1.0 200 OK\r\n\r\nbody";
	struct mw_http_response r;
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_http_parse_response(plain, sizeof(plain) - 1, &r, &err), 0);
	assert_int_equal(r.status, 412);
	assert_string_equal(r.body, "{\"a\"}");
	mw_http_response_release(&r);
	assert_int_equal(mw_http_parse_response(chunked, sizeof(chunked) - 1, &r, &err), 0);
	assert_int_equal(r.status, 200);
	assert_string_equal(r.body, "{\"a\"}");
	mw_http_response_release(&r);
	assert_int_equal(mw_http_parse_response(noclen, sizeof(noclen) - 1, &r, &err), 0);
	assert_string_equal(r.body, "body");
	mw_http_response_release(&r);
}

static void answers_reject(void **state)
{
	static const char *const bad[] = {
		"", "SSH-2.0-OpenSSH\r\n\r\n", "HTTP/1.1 2x0 OK\r\n\r\n", "HTTP/1.1 200 OK\r\nNo-End: x",
		"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\nshort",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nff\r\nab",
	};
	struct mw_http_response r;
	struct mw_err err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		if (mw_http_parse_response(bad[i], strlen(bad[i]), &r, &err) == 0)
			fail_msg("answer %zu was accepted", i);
		assert_true(err.msg[0] != '\0');
		mw_http_response_release(&r);
	}
}

static void refused_connection_is_an_error(void **state)
{
	struct mw_url u;
	struct mw_http_response r;
	struct mw_err err;

	(void)state;
	/* Port 1 on loopback: nobody listens there in a test machine. */
	assert_int_equal(mw_url_parse("http://127.0.0.1:1", &u, &err), 0);
	assert_int_equal(mw_http_get(&u, "/healthz", NULL, &r, &err), -1);
	assert_non_null(strstr(err.msg, "127.0.0.1:1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(urls_parse),
		cmocka_unit_test(urls_reject),
		cmocka_unit_test(encodes),
		cmocka_unit_test(answers_parse),
		cmocka_unit_test(answers_reject),
		cmocka_unit_test(refused_connection_is_an_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
