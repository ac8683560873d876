/*
 * test_rw_transport_linux.c - the remote-write transport over TLS
 * (libcurl): a certificate made here with openssl for the name
 * "localhost" (valid two days), and an HTTPS receiver, the helper
 * tests/helpers/rw_tls_server.py, started and stopped by PID.  It prints
 * its port once it listens: that line is the only synchronisation.
 *
 *   not trusted       default verification, no ca_file: did not verify
 *   ca_file           the certificate as ca_file: 204
 *   another name      https://127.0.0.1 with the ca_file: did not verify
 *   verify off        tls_verify = false: 204
 *   ca_file missing   refused at creation, naming ca_file
 *   ca_file garbage   no answer, the message names ca_file
 *   GET               check/diff --url's GET over HTTPS: the body with
 *                     the ca_file; not trusted without it
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "app/http_client.h"
#include "forward/rw_transport.h"

#define HELPER "tests/helpers/rw_tls_server.py"

static char dir[64], cert[128], key[128], junk[128];
static pid_t server_pid = -1;
static int server_stdin = -1;
static unsigned port;

/* Run argv with output to /dev/null; its exit status, -1 if not run. */
static int run_quiet(const char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execvp(argv[0], (char *const *)argv);	/* execvp does not write them */
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int setup(void **state)
{
	const char *const req[] = {
		"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
		"ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert,
		"-days", "2", "-subj", "/CN=localhost", "-addext",
		"subjectAltName=DNS:localhost", NULL,
	};
	int in[2], out[2];
	char line[32];
	ssize_t n;
	size_t got = 0;
	FILE *f;

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	snprintf(dir, sizeof(dir), "/tmp/mw-rwtls-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(cert, sizeof(cert), "%s/cert.pem", dir);
	snprintf(key, sizeof(key), "%s/key.pem", dir);
	snprintf(junk, sizeof(junk), "%s/junk.pem", dir);
	if (run_quiet(req) != 0) {
		fprintf(stderr, "openssl req failed (is openssl installed? scripts/deps.sh)\n");
		return -1;
	}
	f = fopen(junk, "w");
	if (!f)
		return -1;
	fputs("-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n", f);
	fclose(f);

	if (access(HELPER, R_OK) != 0) {
		fprintf(stderr, "%s not found: run from the repository's top directory\n", HELPER);
		return -1;
	}
	if (pipe(in) < 0 || pipe(out) < 0)
		return -1;
	server_pid = fork();
	if (server_pid < 0)
		return -1;
	if (server_pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execlp("python3", "python3", HELPER, cert, key, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	server_stdin = in[1];
	/* the port line: the server listens once it is written */
	while (got < sizeof(line) - 1 && (n = read(out[0], line + got, sizeof(line) - 1 - got)) > 0) {
		got += (size_t)n;
		if (memchr(line, '\n', got))
			break;
	}
	close(out[0]);
	line[got] = '\0';
	port = (unsigned)strtoul(line, NULL, 10);
	if (port == 0) {
		fprintf(stderr, "%s did not say its port (got \"%s\")\n", HELPER, line);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (server_stdin >= 0)
		close(server_stdin);
	if (server_pid > 0) {
		kill(server_pid, SIGTERM);
		waitpid(server_pid, NULL, 0);
	}
	unlink(cert);
	unlink(key);
	unlink(junk);
	rmdir(dir);
	return 0;
}

static const unsigned char body[] = "\x0a\x03" "abc";

static int post(const char *host, const char *ca_file, bool verify, struct mw_rw_result *res)
{
	char url[128];
	struct mw_rw_endpoint ep = {
		.url = url, .ca_file = ca_file, .tls_verify = verify, .timeout_ms = 10000,
		.bearer_token = "tok",
	};
	struct mw_err err = { "" };
	struct mw_rw_transport *t;
	int rc;

	snprintf(url, sizeof(url), "https://%s:%u/api/v1/write", host, port);
	t = mw_rw_transport_new(&ep, &err);
	if (!t)
		fail_msg("transport: %s", err.msg);
	rc = mw_rw_post(t, body, sizeof(body) - 1, res);
	mw_rw_transport_free(t);
	return rc;
}

static void not_trusted(void **state)
{
	struct mw_rw_result res;

	(void)state;
	assert_int_equal(post("localhost", NULL, true, &res), -1);
	assert_int_equal(res.status, 0);
	print_message("%s\n", res.message);
	if (!strstr(res.message, "certificate of localhost did not verify"))
		fail_msg("message: %s", res.message);
}

static void trusted_by_ca_file(void **state)
{
	struct mw_rw_result res;

	(void)state;
	if (post("localhost", cert, true, &res) != 0)
		fail_msg("message: %s", res.message);
	assert_int_equal(res.status, 204);
}

static void another_name(void **state)
{
	struct mw_rw_result res;

	(void)state;
	assert_int_equal(post("127.0.0.1", cert, true, &res), -1);
	assert_int_equal(res.status, 0);
	print_message("%s\n", res.message);
	if (!strstr(res.message, "certificate of 127.0.0.1 did not verify"))
		fail_msg("message: %s", res.message);
}

static void verify_off(void **state)
{
	struct mw_rw_result res;

	(void)state;
	if (post("127.0.0.1", NULL, false, &res) != 0)
		fail_msg("message: %s", res.message);
	assert_int_equal(res.status, 204);
}

static void ca_file_missing(void **state)
{
	char url[128], missing[160];
	struct mw_rw_endpoint ep = { .url = url, .tls_verify = true, .timeout_ms = 1000 };
	struct mw_err err = { "" };

	(void)state;
	snprintf(url, sizeof(url), "https://localhost:%u/api/v1/write", port);
	snprintf(missing, sizeof(missing), "%s/none.pem", dir);
	ep.ca_file = missing;
	assert_null(mw_rw_transport_new(&ep, &err));
	assert_non_null(strstr(err.msg, "ca_file"));
	assert_non_null(strstr(err.msg, missing));
	assert_non_null(strstr(err.msg, strerror(ENOENT)));
	print_message("%s\n", err.msg);
}

static void ca_file_garbage(void **state)
{
	struct mw_rw_result res;

	(void)state;
	assert_int_equal(post("localhost", junk, true, &res), -1);
	assert_int_equal(res.status, 0);
	print_message("%s\n", res.message);
	if (!strstr(res.message, "ca_file"))
		fail_msg("message: %s", res.message);
}

static void get_over_https(void **state)
{
	char url[128];
	struct mw_rw_endpoint ep = {
		.url = url, .ca_file = cert, .tls_verify = true, .timeout_ms = 10000,
		.get = true, .name = "the daemon's",
	};
	struct mw_err err = { "" };
	struct mw_rw_transport *t;
	struct mw_rw_answer a;

	(void)state;
	snprintf(url, sizeof(url), "https://localhost:%u/api/v1/leaks?match=x", port);
	t = mw_rw_transport_new(&ep, &err);
	if (!t)
		fail_msg("transport: %s", err.msg);
	if (mw_rw_get(t, 1 << 20, &a) != 0)
		fail_msg("message: %s", a.res.message);
	assert_int_equal(a.res.status, 200);
	assert_string_equal(a.body, "{\"verdict\":\"pass\",\"path\":\"/api/v1/leaks?match=x\"}");
	free(a.body);
	mw_rw_transport_free(t);

	/* the way check --url asks: the system's trust store only */
	snprintf(url, sizeof(url), "https://localhost:%u", port);
	assert_null(mw_http_get_json(url, "/api/v1/leaks", NULL, 10000, "verdict", "a report",
				     &err));
	print_message("%s\n", err.msg);
	assert_non_null(strstr(err.msg, "certificate of localhost did not verify"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(not_trusted),
		cmocka_unit_test(trusted_by_ca_file),
		cmocka_unit_test(another_name),
		cmocka_unit_test(verify_off),
		cmocka_unit_test(ca_file_missing),
		cmocka_unit_test(ca_file_garbage),
		cmocka_unit_test(get_over_https),
	};
	static const char *const proxies[] = { "http_proxy", "HTTP_PROXY", "https_proxy",
					       "HTTPS_PROXY", "all_proxy", "ALL_PROXY" };

	for (size_t i = 0; i < MW_ARRAY_SIZE(proxies); i++)
		unsetenv(proxies[i]);
	return cmocka_run_group_tests(tests, setup, teardown);
}
