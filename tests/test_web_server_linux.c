/*
 * test_web_server_linux.c - the HTTP server end to end in one process:
 * mw_web_start on a loopback port chosen by the kernel, a real socket
 * client (test_web_client.h), real libmicrohttpd.  Linux-only because the
 * client uses POSIX sockets; the same server code is built for Windows.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <cjson/cJSON.h>

#include "core/config.h"
#include "core/status.h"
#include "test_web_client.h"
#include "web/web.h"
#include "tests/support/test_main.h"

struct fixture {
	struct mw_config cfg;
	struct mw_status_table *status;
	struct mw_web *web;
	int port;
	char dir[64];
};

static struct fixture *start(const char *listen, const char *token)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct mw_err err = { "" };
	struct mw_collector_status st;
	char db[128];

	mw_config_init(&f->cfg);
	snprintf(f->dir, sizeof(f->dir), "/tmp/mw-web-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(db, sizeof(db), "%s/x.db", f->dir);
	assert_int_equal(mw_config_set(&f->cfg, "web", "listen", listen, "test", &err), 0);
	assert_int_equal(mw_config_set(&f->cfg, "storage", "db", db, "test", &err), 0);
	if (token)
		assert_int_equal(mw_config_set(&f->cfg, "web", "token", token, "test", &err), 0);
	assert_int_equal(mw_config_set(&f->cfg, "web", "max_connections_per_ip", "4", "test", &err), 0);
	f->status = mw_status_new(2);
	memset(&st, 0, sizeof(st));
	snprintf(st.name, sizeof(st.name), "system");
	st.enabled = st.supported = true;
	snprintf(st.mode, sizeof(st.mode), "procfs");
	st.interval_ms = 1000;
	st.samples = 42;
	st.last_duration_us = 123;
	mw_status_set(f->status, 0, &st);
	memset(&st, 0, sizeof(st));
	snprintf(st.name, sizeof(st.name), "heap");
	st.enabled = true;
	snprintf(st.reason, sizeof(st.reason), "needs \"Windows\"");
	snprintf(st.last_error, sizeof(st.last_error), "bad \xff byte");
	st.errors = 3;
	mw_status_set(f->status, 1, &st);
	if (mw_web_start(&f->web, &f->cfg, f->status, &err))
		fail_msg("mw_web_start: %s", err.msg);
	f->port = mw_web_port(f->web);
	assert_true(f->port > 0);
	return f;
}

static void stop(struct fixture *f)
{
	char db[128];

	mw_web_stop(f->web);
	mw_status_free(f->status);
	mw_config_release(&f->cfg);
	snprintf(db, sizeof(db), "%s/x.db", f->dir);
	unlink(db);
	rmdir(f->dir);
	free(f);
}

static int setup(void **state)
{
	*state = start("127.0.0.1:0", NULL);
	return 0;
}

static int teardown(void **state)
{
	stop(*state);
	return 0;
}

/* GET path, expect status; return the parsed JSON body (caller deletes). */
static cJSON *get_json(struct fixture *f, const char *path, int want)
{
	struct wc_resp r;
	cJSON *j;
	char ct[128];

	assert_int_equal(wc_get(f->port, "GET", path, "", &r), 0);
	if (r.status != want)
		fail_msg("%s: status %d, want %d: %s", path, r.status, want, r.body);
	assert_int_equal(wc_header(&r, "Content-Type", ct, sizeof(ct)), 0);
	assert_string_equal(ct, "application/json");
	j = cJSON_Parse(r.body);
	if (!j)
		fail_msg("%s: not JSON: %s", path, r.body);
	wc_resp_free(&r);
	return j;
}

/* Expect a JSON error with `status` whose message contains `needle`. */
static void expect_error(struct fixture *f, const char *method, const char *path,
			 const char *headers, int status, const char *needle)
{
	struct wc_resp r;
	cJSON *j, *e;

	assert_int_equal(wc_get(f->port, method, path, headers, &r), 0);
	if (r.status != status)
		fail_msg("%s %s: status %d, want %d: %s", method, path, r.status, status, r.body);
	j = cJSON_Parse(r.body);
	if (!j)
		fail_msg("%s %s: not JSON: %s", method, path, r.body);
	e = cJSON_GetObjectItem(j, "error");
	assert_true(cJSON_IsString(e));
	if (needle && !strstr(e->valuestring, needle))
		fail_msg("%s %s: error '%s' lacks '%s'", method, path, e->valuestring, needle);
	cJSON_Delete(j);
	wc_resp_free(&r);
}

static void test_healthz(void **state)
{
	cJSON *j = get_json(*state, "/healthz", 200);

	assert_string_equal(cJSON_GetObjectItem(j, "status")->valuestring, "ok");
	assert_true(cJSON_IsString(cJSON_GetObjectItem(j, "version")));
	assert_true(cJSON_GetObjectItem(j, "uptime_s")->valuedouble >= 0);
	cJSON_Delete(j);
}

static void test_collectors(void **state)
{
	cJSON *j = get_json(*state, "/api/v1/collectors", 200);
	cJSON *arr = cJSON_GetObjectItem(j, "collectors"), *c;

	assert_int_equal(cJSON_GetArraySize(arr), 2);
	c = cJSON_GetArrayItem(arr, 0);
	assert_string_equal(cJSON_GetObjectItem(c, "name")->valuestring, "system");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(c, "supported")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(c, "reason")));
	assert_string_equal(cJSON_GetObjectItem(c, "mode")->valuestring, "procfs");
	assert_int_equal(cJSON_GetObjectItem(c, "interval_ms")->valueint, 1000);
	assert_int_equal(cJSON_GetObjectItem(c, "samples")->valueint, 42);
	assert_int_equal(cJSON_GetObjectItem(c, "last_duration_us")->valueint, 123);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(c, "last_error")));
	assert_non_null(cJSON_GetObjectItem(c, "skipped_ticks"));
	c = cJSON_GetArrayItem(arr, 1);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(c, "supported")));
	assert_string_equal(cJSON_GetObjectItem(c, "reason")->valuestring, "needs \"Windows\"");
	assert_int_equal(cJSON_GetObjectItem(c, "errors")->valueint, 3);
	assert_true(cJSON_IsString(cJSON_GetObjectItem(c, "last_error")));
	cJSON_Delete(j);
}

static void test_keep_alive(void **state)
{
	struct fixture *f = *state;
	struct wc_in *in = calloc(1, sizeof(*in));
	struct wc_resp r;
	int i;

	in->fd = wc_connect(f->port);
	assert_true(in->fd >= 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(wc_request(in, "GET", "/healthz", "", &r), 0);
		assert_int_equal(r.status, 200);
		assert_false(r.closed);
		wc_resp_free(&r);
	}
	/* Errors keep the connection too. */
	assert_int_equal(wc_request(in, "GET", "/nope", "", &r), 0);
	assert_int_equal(r.status, 404);
	assert_false(r.closed);
	wc_resp_free(&r);
	assert_int_equal(wc_request(in, "GET", "/healthz", "", &r), 0);
	assert_int_equal(r.status, 200);
	wc_resp_free(&r);
	close(in->fd);
	free(in);
}

static void test_not_found(void **state)
{
	expect_error(*state, "GET", "/nope", "", 404, "no such path");
	expect_error(*state, "GET", "/../../etc/passwd", "", 404, NULL);
	expect_error(*state, "GET", "/api/v1/%2e%2e/collectors", "", 404, NULL);
	expect_error(*state, "GET", "/api/v1/collectors/", "", 404, NULL);
}

static void test_methods(void **state)
{
	struct fixture *f = *state;
	struct wc_resp r;
	char allow[64];

	expect_error(f, "POST", "/healthz", "Content-Length: 0\r\n", 405, "method");
	expect_error(f, "DELETE", "/api/v1/series", "", 405, "method");
	expect_error(f, "PUT", "/", "Content-Length: 3\r\n\r\nabc", 405, NULL);
	expect_error(f, "BREW", "/metrics", "", 405, NULL);
	assert_int_equal(wc_get(f->port, "OPTIONS", "/healthz", "", &r), 0);
	assert_int_equal(r.status, 405);
	assert_int_equal(wc_header(&r, "Allow", allow, sizeof(allow)), 0);
	assert_string_equal(allow, "GET, HEAD");
	wc_resp_free(&r);
	/* HEAD: headers only. */
	assert_int_equal(wc_get(f->port, "HEAD", "/healthz", "", &r), 0);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.body_len, 0);
	wc_resp_free(&r);
}

static void test_params(void **state)
{
	struct fixture *f = *state;

	expect_error(f, "GET", "/healthz?x=1", "", 400, "x: unknown parameter");
	expect_error(f, "GET", "/api/v1/series?match=%ff%fe", "", 400, "match: is not valid UTF-8");
	expect_error(f, "GET", "/api/v1/series?match=a%00b", "", 400, "match: contains a NUL");
	expect_error(f, "GET", "/api/v1/series?%ff=1", "", 400, "name");
}

static void test_oversize(void **state)
{
	struct fixture *f = *state;
	size_t n = 20000;
	char *path = malloc(n + 64);

	strcpy(path, "/api/v1/series?match=");
	memset(path + strlen(path), 'a', n);
	path[21 + n] = '\0';
	expect_error(f, "GET", path, "", 413, "too large");
	free(path);
	expect_error(f, "POST", "/api/v1/series", "Content-Length: 100000000\r\n", 413, "too large");
	/* Still serving. */
	cJSON_Delete(get_json(f, "/healthz", 200));
}

static void test_page(void **state)
{
	struct fixture *f = *state;
	struct wc_resp r;
	char ct[128], etag[64], hdr[128];

	assert_int_equal(wc_get(f->port, "GET", "/", "", &r), 0);
	assert_int_equal(r.status, 200);
	assert_int_equal(wc_header(&r, "Content-Type", ct, sizeof(ct)), 0);
	assert_non_null(strstr(ct, "text/html"));
	assert_non_null(strstr(r.body, "<html"));
	assert_int_equal(wc_header(&r, "ETag", etag, sizeof(etag)), 0);
	wc_resp_free(&r);
	snprintf(hdr, sizeof(hdr), "If-None-Match: %s\r\n", etag);
	assert_int_equal(wc_get(f->port, "GET", "/", hdr, &r), 0);
	assert_int_equal(r.status, 304);
	wc_resp_free(&r);
}

static void test_connection_limit(void **state)
{
	struct fixture *f = *state;
	struct wc_in *in[5];
	struct wc_resp r;
	int i;

	/* max_connections_per_ip is 4: four keep-alive connections, each
	 * proven accepted by a response... */
	for (i = 0; i < 4; i++) {
		in[i] = calloc(1, sizeof(*in[i]));
		in[i]->fd = wc_connect(f->port);
		assert_true(in[i]->fd >= 0);
		assert_int_equal(wc_request(in[i], "GET", "/healthz", "", &r), 0);
		assert_int_equal(r.status, 200);
		wc_resp_free(&r);
	}
	/* ...then a fifth gets no answer (MHD closes it at accept)... */
	in[4] = calloc(1, sizeof(*in[4]));
	in[4]->fd = wc_connect(f->port);
	if (in[4]->fd >= 0) {
		wc_request(in[4], "GET", "/healthz", "", &r);
		assert_int_equal(r.status, 0);
		wc_resp_free(&r);
		close(in[4]->fd);
	}
	free(in[4]);
	/* ...while the four admitted ones are still served. */
	for (i = 0; i < 4; i++) {
		assert_int_equal(wc_request(in[i], "GET", "/healthz", "", &r), 0);
		assert_int_equal(r.status, 200);
		wc_resp_free(&r);
		close(in[i]->fd);
		free(in[i]);
	}
}

/* No database file: the data endpoints answer 503, /metrics keeps the
 * daemon's health with memwatch_storage_up 0, status endpoints work. */
static void test_storage_unavailable(void **state)
{
	struct fixture *f = *state;
	struct wc_resp r;

	expect_error(f, "GET", "/api/v1/series", "", 503, "storage unavailable");
	expect_error(f, "GET", "/api/v1/query?match=x", "", 503, "storage unavailable");
	expect_error(f, "GET", "/api/v1/processes", "", 503, "storage unavailable");
	expect_error(f, "GET", "/api/v1/export?match=x", "", 503, "storage unavailable");
	/* Bad input is still 400, before storage is touched. */
	expect_error(f, "GET", "/api/v1/query?match=x&from=soon", "", 400, "from");
	assert_int_equal(wc_get(f->port, "GET", "/metrics", "", &r), 0);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body, "\nmemwatch_storage_up 0\n"));
	assert_non_null(strstr(r.body, "memwatch_collector_errors_total{collector=\"heap\"} 3\n"));
	/* HELP and TYPE from the metric catalogue */
	assert_non_null(strstr(r.body, "# HELP memwatch_collector_errors_total Failed runs of the "
				       "collector.\n# TYPE memwatch_collector_errors_total counter\n"));
	wc_resp_free(&r);
	cJSON_Delete(get_json(f, "/api/v1/collectors", 200));
}

static void test_token(void **state)
{
	struct fixture *f = start("127.0.0.1:0", "s3cret");
	struct wc_resp r;

	MW_UNUSED(state);
	cJSON_Delete(get_json(f, "/healthz", 200));
	expect_error(f, "GET", "/api/v1/collectors", "", 401, "token");
	expect_error(f, "GET", "/api/v1/collectors", "Authorization: Bearer wrong\r\n", 401, NULL);
	expect_error(f, "GET", "/api/v1/collectors", "Authorization: Bearer s3cret2\r\n", 401, NULL);
	expect_error(f, "GET", "/metrics", "", 401, NULL);
	expect_error(f, "GET", "/nope", "", 401, NULL);
	assert_int_equal(wc_get(f->port, "GET", "/", "", &r), 0);
	assert_int_equal(r.status, 401);
	wc_resp_free(&r);
	assert_int_equal(wc_get(f->port, "GET", "/api/v1/collectors",
				"Authorization: Bearer s3cret\r\n", &r), 0);
	assert_int_equal(r.status, 200);
	wc_resp_free(&r);
	stop(f);
}

static void test_listen(void **state)
{
	struct mw_config cfg;
	struct mw_err err = { "" };
	struct mw_web *web = (struct mw_web *)1;
	struct mw_status_table *st = mw_status_new(0);
	struct wc_in in = { 0 };
	struct wc_resp r;

	MW_UNUSED(state);
	mw_config_init(&cfg);
	mw_config_set(&cfg, "web", "listen", "off", "test", &err);
	assert_int_equal(mw_web_start(&web, &cfg, st, &err), 0);
	assert_null(web);
	/* The shape is checked with the config (exit 2 naming --listen) ... */
	assert_int_equal(mw_config_set(&cfg, "web", "listen", "nonsense", "test", &err), -1);
	assert_non_null(strstr(err.msg, "nonsense"));
	assert_int_equal(mw_config_set(&cfg, "web", "listen", "127.0.0.1:99999", "test", &err), -1);
	assert_non_null(strstr(err.msg, "99999"));
	/* ... a host that is no address when the server starts. */
	assert_int_equal(mw_config_set(&cfg, "web", "listen", "nonsense:8080", "test", &err), 0);
	assert_int_equal(mw_web_start(&web, &cfg, st, &err), -1);
	assert_non_null(strstr(err.msg, "nonsense"));
	mw_config_set(&cfg, "web", "listen", "[::1]:0", "test", &err);
	if (mw_web_start(&web, &cfg, st, &err) == 0) {
		in.fd = wc_connect_addr("::1", mw_web_port(web));
		assert_true(in.fd >= 0);
		assert_int_equal(wc_request(&in, "GET", "/healthz", "", &r), 0);
		assert_int_equal(r.status, 200);
		wc_resp_free(&r);
		close(in.fd);
		mw_web_stop(web);
	} else {
		print_message("no IPv6 loopback here: %s\n", err.msg);
	}
	mw_status_free(st);
	mw_config_release(&cfg);
}

MW_TEST_MAIN(
	MW_FIXTURE_TEST(test_healthz),
	MW_FIXTURE_TEST(test_collectors),
	MW_FIXTURE_TEST(test_keep_alive),
	MW_FIXTURE_TEST(test_not_found),
	MW_FIXTURE_TEST(test_methods),
	MW_FIXTURE_TEST(test_params),
	MW_FIXTURE_TEST(test_oversize),
	MW_FIXTURE_TEST(test_page),
	MW_FIXTURE_TEST(test_connection_limit),
	MW_FIXTURE_TEST(test_storage_unavailable),
	cmocka_unit_test(test_token),
	cmocka_unit_test(test_listen),
)
