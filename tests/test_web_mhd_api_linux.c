/* test_web_mhd_api_linux.c - HTTPS on its own library (web/mhd_api.h,
 * issue 26): a plain-HTTP server runs on the linked libmicrohttpd and
 * maps no GnuTLS, even after answering; an HTTPS server loads Debian's
 * libmicrohttpd.so.12, GnuTLS with it, and both serve side by side, each
 * on its own library.  A library that cannot be loaded, or is not
 * libmicrohttpd, is refused with its name and the package to install.
 *
 * The order matters: once loaded the library stays (mhd_api_linux.c), so
 * the plain server's check comes before any HTTPS server in this process.
 * The certificate is made here with openssl (scripts/deps.sh installs it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/config.h"
#include "core/status.h"
#include "test_web_client.h"
#include "web/mhd_api.h"
#include "web/web.h"
#include "tests/support/test_main.h"

#define assert_says(err, text)                                                       \
	do {                                                                         \
		if (!strstr((err).msg, (text)))                                      \
			fail_msg("message '%s' does not say '%s'", (err).msg, (text)); \
	} while (0)

/* Whether a mapping of this process has `name` in its path. */
static bool mapped(const char *name)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	bool found = false;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, name) != NULL;
	fclose(f);
	return found;
}

struct server {
	struct mw_config cfg;
	struct mw_status_table *status;
	struct mw_web *web;
	char db[96];
};

/* A server on a loopback port the kernel picks; with cert and key, HTTPS. */
static void serve(struct server *s, const char *dir, const char *name, const char *cert,
		  const char *key)
{
	struct mw_err err = { "" };

	memset(s, 0, sizeof(*s));
	mw_config_init(&s->cfg);
	snprintf(s->db, sizeof(s->db), "%s/%s.db", dir, name);
	assert_int_equal(mw_config_set(&s->cfg, "web", "listen", "127.0.0.1:0", "test", &err), 0);
	assert_int_equal(mw_config_set(&s->cfg, "storage", "db", s->db, "test", &err), 0);
	if (cert) {
		assert_int_equal(mw_config_set(&s->cfg, "web", "tls_cert", cert, "test", &err), 0);
		assert_int_equal(mw_config_set(&s->cfg, "web", "tls_key", key, "test", &err), 0);
	}
	s->status = mw_status_new(1);
	if (mw_web_start(&s->web, &s->cfg, s->status, &err))
		fail_msg("mw_web_start %s: %s", name, err.msg);
	assert_true(mw_web_port(s->web) > 0);
}

static void unserve(struct server *s)
{
	mw_web_stop(s->web);
	mw_status_free(s->status);
	mw_config_release(&s->cfg);
	unlink(s->db);
}

static void healthz_answers(struct server *s)
{
	struct wc_resp r;

	assert_int_equal(wc_get(mw_web_port(s->web), "GET", "/healthz", "", &r), 0);
	assert_int_equal(r.status, 200);
	wc_resp_free(&r);
}

static void plain_then_https_side_by_side(void **state)
{
	char dir[] = "/tmp/mw-mhd-XXXXXX", cert[64], key[64], cmd[512];
	struct server plain, https;

	(void)state;
	assert_non_null(mkdtemp(dir));
	serve(&plain, dir, "plain", NULL, NULL);
	assert_string_equal(mw_web_scheme(plain.web), "http");
	healthz_answers(&plain);
	assert_false(mapped("libgnutls"));
	assert_false(mapped(MW_MHD_HTTPS_LIB));

	snprintf(cert, sizeof(cert), "%s/cert.pem", dir);
	snprintf(key, sizeof(key), "%s/key.pem", dir);
	snprintf(cmd, sizeof(cmd), "openssl req -x509 -newkey ec -pkeyopt "
		 "ec_paramgen_curve:prime256v1 -nodes -keyout %s -out %s -days 2 "
		 "-subj /CN=127.0.0.1 >/dev/null 2>&1", key, cert);
	if (system(cmd) != 0)
		fail_msg("openssl req failed (is openssl installed? scripts/deps.sh)");
	serve(&https, dir, "https", cert, key);
	assert_string_equal(mw_web_scheme(https.web), "https");
	assert_true(mapped(MW_MHD_HTTPS_LIB));
	assert_true(mapped("libgnutls"));
	/* the plain server goes on, on the linked library */
	healthz_answers(&plain);

	unserve(&https);
	unserve(&plain);
	unlink(cert);
	unlink(key);
	assert_int_equal(rmdir(dir), 0);
}

static void a_missing_library_is_named(void **state)
{
	struct mw_mhd_api api;
	struct mw_err err = { "" };

	(void)state;
	assert_int_equal(mw_mhd_open(&api, "libmicrohttpd-not-here.so.12", &err), -1);
	assert_says(err, "HTTPS needs libmicrohttpd-not-here.so.12");
	assert_says(err, "cannot be loaded");
	assert_says(err, "apt install " MW_MHD_HTTPS_PACKAGE);
}

static void another_library_is_refused(void **state)
{
	struct mw_mhd_api api;
	struct mw_err err = { "" };

	(void)state;
	assert_int_equal(mw_mhd_open(&api, "libm.so.6", &err), -1);
	assert_says(err, "libm.so.6 has no MHD_start_daemon");
	assert_says(err, "apt install " MW_MHD_HTTPS_PACKAGE);
	assert_null(api.start_daemon);
}

MW_TEST_MAIN(
	cmocka_unit_test(plain_then_https_side_by_side),
	cmocka_unit_test(a_missing_library_is_named),
	cmocka_unit_test(another_library_is_refused),
)
