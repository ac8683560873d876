/* test_listen_options_win32.c - the web listener's socket options on
 * Windows (web/listen_options_win32.c), run under Wine: the listening
 * socket is not SO_EXCLUSIVEADDRUSE (which keeps the port unbindable while
 * connections the daemon accepted sit in TIME_WAIT, so a restart right
 * after serving fails) and not SO_REUSEADDR (which lets a second socket
 * share the port); a second plain bind of the port fails. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <winsock2.h>
#include <ws2tcpip.h>
#include <cmocka.h>

#include "web/listen_options.h"
#include "tests/support/test_main.h"

static enum MHD_Result refuse(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *data,
			      size_t *size, void **state)
{
	(void)cls, (void)c, (void)url, (void)method, (void)version, (void)data;
	(void)size, (void)state;
	return MHD_NO;
}

static int sock_option(SOCKET s, int name)
{
	int v = -1, len = sizeof v;

	assert_int_equal(getsockopt(s, SOL_SOCKET, name, (char *)&v, &len), 0);
	return v;
}

static void listener_is_plain_and_not_shared(void **state)
{
	struct sockaddr_in a = { 0 };
	struct sockaddr_in got;
	int len = sizeof got;
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	SOCKET fd, second;

	(void)state;
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, refuse, NULL,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&a,
			     MHD_OPTION_ARRAY, mw_web_listen_options(), MHD_OPTION_END);
	assert_non_null(d);
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_LISTEN_FD);
	assert_non_null(info);
	fd = info->listen_fd;
	assert_int_equal(sock_option(fd, SO_EXCLUSIVEADDRUSE), 0);
	assert_int_equal(sock_option(fd, SO_REUSEADDR), 0);

	/* A second socket (no options) cannot bind the daemon's port. */
	assert_int_equal(getsockname(fd, (struct sockaddr *)&got, &len), 0);
	second = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
	assert_true(second != INVALID_SOCKET);
	assert_int_not_equal(bind(second, (struct sockaddr *)&got, sizeof got), 0);
	assert_int_equal(WSAGetLastError(), WSAEADDRINUSE);
	closesocket(second);
	MHD_stop_daemon(d);
}

MW_TEST_MAIN(cmocka_unit_test(listener_is_plain_and_not_shared))
