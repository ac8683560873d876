/* test_web_tls.c - [web] tls_cert / tls_key: the settings as the config
 * file and --set give them, and the checks of web/tls.c at start (both or
 * neither, missing file, a folder, not PEM, DER, swapped files, an
 * encrypted key), each naming the setting and the file.  Where
 * libmicrohttpd has no TLS (the Windows build) every pair is refused with
 * the message that says what to do instead.  On Linux the library with
 * TLS is Debian's, loaded by the first load() of a pair (web/mhd_api.h).
 * Whether a key matches its certificate is GnuTLS's check at start:
 * tests/api/tls.sh. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/config.h"
#include "web/mhd_api.h"
#include "web/tls.h"
#include "tests/support/test_file.h"
#include "tests/support/test_main.h"

static const char cert_pem[] = "-----BEGIN CERTIFICATE-----\nMIIBfake\n"
			       "-----END CERTIFICATE-----\n";
static const char key_pem[] = "-----BEGIN PRIVATE KEY-----\nMIIEfake\n"
			      "-----END PRIVATE KEY-----\n";
static const char rsa_key_pem[] = "-----BEGIN RSA PRIVATE KEY-----\nMIIEfake\n"
				  "-----END RSA PRIVATE KEY-----\n";
static const char enc_key_pem[] = "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIEfake\n"
				  "-----END ENCRYPTED PRIVATE KEY-----\n";

#define CERT_FILE "test_web_tls.tmp.cert.pem"
#define KEY_FILE "test_web_tls.tmp.key.pem"
#define OTHER_FILE "test_web_tls.tmp.other.pem"

/* Whether the library that serves HTTPS here has TLS. */
static bool have_tls(void)
{
	struct mw_err err;
	const struct mw_mhd_api *mhd = mw_mhd_https(&err);

	return mhd && mhd->is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
}

static void config_reads_both(void **state)
{
	struct mw_config c;
	struct mw_err err = { "" };

	(void)state;
	mw_config_init(&c);
	assert_true(!c.web_tls_cert || !c.web_tls_cert[0]);	/* default: plain HTTP */
	assert_true(!c.web_tls_key || !c.web_tls_key[0]);
	assert_int_equal(mw_config_load_string(&c, "t.ini",
					       "[web]\ntls_cert = /etc/memwatch/server.pem\n"
					       "tls_key = \"/etc/memwatch/server key.pem\"\n",
					       &err), 0);
	assert_string_equal(c.web_tls_cert, "/etc/memwatch/server.pem");
	assert_string_equal(c.web_tls_key, "/etc/memwatch/server key.pem");
	assert_int_equal(mw_config_set(&c, "web", "tls_cert", "other.pem", "--set", &err), 0);
	assert_string_equal(c.web_tls_cert, "other.pem");
	/* a misspelt key is named, as every unknown key is */
	assert_int_equal(mw_config_load_string(&c, "t.ini", "[web]\ntls_certificate = x\n", &err),
			 -1);
	assert_non_null(strstr(err.msg, "tls_certificate"));
	mw_config_release(&c);
}

/* mw_web_tls_load with these settings: its return, the message in err. */
static int load(const char *cert, const char *key, struct mw_err *err)
{
	struct mw_config c;
	struct mw_web_tls tls;
	struct mw_err none = { "" };
	int rc;

	mw_config_init(&c);
	if (cert)
		assert_int_equal(mw_config_set(&c, "web", "tls_cert", cert, "--set", &none), 0);
	if (key)
		assert_int_equal(mw_config_set(&c, "web", "tls_key", key, "--set", &none), 0);
	err->msg[0] = '\0';
	rc = mw_web_tls_load(&tls, &c, err);
	if (rc == 0 && cert && key) {
		assert_non_null(tls.cert);
		assert_non_null(tls.key);
		assert_non_null(tls.mhd);
		assert_non_null(strstr(tls.cert, "BEGIN CERTIFICATE"));
		assert_non_null(strstr(tls.key, "PRIVATE KEY"));
	}
	mw_web_tls_release(&tls);
	mw_config_release(&c);
	return rc;
}

#define assert_says(err, text)                                                       \
	do {                                                                         \
		if (!strstr((err).msg, (text)))                                      \
			fail_msg("message '%s' does not say '%s'", (err).msg, (text)); \
	} while (0)

/* The two files of a well-formed pair, as far as PEM goes. */
static void write_pair(void)
{
	mw_test_write_file(CERT_FILE, cert_pem, strlen(cert_pem));
	mw_test_write_file(KEY_FILE, key_pem, strlen(key_pem));
}

static void remove_files(void)
{
	remove(CERT_FILE);
	remove(KEY_FILE);
	remove(OTHER_FILE);
}

static void off_when_neither_set(void **state)
{
	struct mw_err err;
	struct mw_config c;
	struct mw_web_tls tls;

	(void)state;
	mw_config_init(&c);
	assert_int_equal(mw_web_tls_load(&tls, &c, &err), 0);
	assert_null(tls.cert);
	mw_web_tls_release(&tls);
	mw_config_release(&c);
}

static void one_without_the_other(void **state)
{
	struct mw_err err;

	(void)state;
	assert_int_equal(load("a.pem", NULL, &err), -1);
	assert_says(err, "tls_cert is set without [web] tls_key");
	assert_int_equal(load(NULL, "a.key", &err), -1);
	assert_says(err, "tls_key is set without [web] tls_cert");
}

static void windows_build_says_what_instead(void **state)
{
	struct mw_err err;

	(void)state;
	if (have_tls())
		skip();
	write_pair();
	assert_int_equal(load(CERT_FILE, KEY_FILE, &err), -1);
	assert_says(err, "cannot serve HTTPS");
	assert_says(err, "reverse proxy");
	remove_files();
}

static void good_pair_loads(void **state)
{
	struct mw_err err;

	(void)state;
	if (!have_tls())
		skip();
	write_pair();
	assert_int_equal(load(CERT_FILE, KEY_FILE, &err), 0);
	mw_test_write_file(KEY_FILE, rsa_key_pem, strlen(rsa_key_pem));
	assert_int_equal(load(CERT_FILE, KEY_FILE, &err), 0);
	remove_files();
}

static void bad_files_named(void **state)
{
	static const unsigned char der[] = { 0x30, 0x82, 0x01, 0x00, 0x00, 0x01 };
	struct mw_err err;

	(void)state;
	if (!have_tls())
		skip();
	write_pair();

	remove(OTHER_FILE);
	assert_int_equal(load(OTHER_FILE, KEY_FILE, &err), -1);
	assert_says(err, "[web] tls_cert '" OTHER_FILE "' cannot be opened");
	assert_int_equal(load(CERT_FILE, OTHER_FILE, &err), -1);
	assert_says(err, "[web] tls_key '" OTHER_FILE "' cannot be opened");

	assert_int_equal(load("tests", KEY_FILE, &err), -1);	/* a folder */
	assert_says(err, "[web] tls_cert 'tests'");

	mw_test_write_file(OTHER_FILE, "", 0);
	assert_int_equal(load(OTHER_FILE, KEY_FILE, &err), -1);
	assert_says(err, "is empty, not a PEM file");

	mw_test_write_file(OTHER_FILE, "hello\n", 6);
	assert_int_equal(load(OTHER_FILE, KEY_FILE, &err), -1);
	assert_says(err, "is not a PEM certificate");
	assert_int_equal(load(CERT_FILE, OTHER_FILE, &err), -1);
	assert_says(err, "[web] tls_key '" OTHER_FILE "' is not a PEM private key");

	mw_test_write_file(OTHER_FILE, der, sizeof(der));
	assert_int_equal(load(OTHER_FILE, KEY_FILE, &err), -1);
	assert_says(err, "is binary (DER?), not PEM");

	assert_int_equal(load(KEY_FILE, CERT_FILE, &err), -1);
	assert_says(err, "[web] tls_cert '" KEY_FILE "' holds a private key, not a certificate");

	mw_test_write_file(OTHER_FILE, enc_key_pem, strlen(enc_key_pem));
	assert_int_equal(load(CERT_FILE, OTHER_FILE, &err), -1);
	assert_says(err, "is encrypted with a passphrase");

	remove_files();
}

MW_TEST_MAIN(
	cmocka_unit_test(config_reads_both),
	cmocka_unit_test(off_when_neither_set),
	cmocka_unit_test(one_without_the_other),
	cmocka_unit_test(windows_build_says_what_instead),
	cmocka_unit_test(good_pair_loads),
	cmocka_unit_test(bad_files_named),
)
