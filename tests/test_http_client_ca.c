/* test_http_client_ca.c - `check --url` / `diff --url` with --ca-file:
 * refused before any connection for an http:// daemon and for a file
 * that cannot be used (on Linux: it cannot be read; on Windows: WinHTTP
 * takes no CA file, import it into the store), each message naming
 * --ca-file and the file.  The HTTPS exchange itself (verified with the
 * CA, refused without it): tests/api/tls.sh. */
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
#include "tests/support/test_main.h"

#define assert_says(err, text)                                                       \
	do {                                                                         \
		if (!strstr((err).msg, (text)))                                      \
			fail_msg("message '%s' does not say '%s'", (err).msg, (text)); \
	} while (0)

/* Port 9 on loopback: nothing is asked, the refusal comes first. */
static cJSON *get(const char *url, const char *ca_file, struct mw_err *err)
{
	err->msg[0] = '\0';
	return mw_http_get_json_text(url, "/api/v1/leaks", NULL, ca_file, 2000, "verdict",
				     "a leak report", NULL, NULL, err);
}

static void plain_http_refused(void **state)
{
	struct mw_err err;

	(void)state;
	assert_null(get("http://127.0.0.1:9", "ca.pem", &err));
	print_message("%s\n", err.msg);
	assert_says(err, "--ca-file is set but");
	assert_says(err, "is not https://");
	/* no scheme means http:// */
	assert_null(get("127.0.0.1:9", "ca.pem", &err));
	assert_says(err, "is not https://");
}

static void unusable_file_named(void **state)
{
	static const char missing[] = "test_http_client_ca.tmp.no-such.pem";
	struct mw_err err;

	(void)state;
	remove(missing);
	assert_null(get("https://127.0.0.1:9", missing, &err));
	print_message("%s\n", err.msg);
	assert_says(err, "--ca-file");
	assert_says(err, missing);
	/* the words of the transport that refused it, not a connection error */
	if (!strstr(err.msg, "cannot be read") && !strstr(err.msg, "not supported on Windows"))
		fail_msg("message: %s", err.msg);
}

MW_TEST_MAIN(
	cmocka_unit_test(plain_http_refused),
	cmocka_unit_test(unusable_file_named),
)
