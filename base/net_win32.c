/* net_win32.c - see net.h (Winsock). */
#include "net.h"

#include <winsock2.h>
#include <ws2tcpip.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

int mw_net_exchange(const char *host, const char *port, const char *request, size_t request_len,
		    size_t max, int timeout_ms, char **out, size_t *out_len, struct mw_err *err)
{
	struct addrinfo hints, *res = NULL, *ai;
	WSADATA wsa;
	DWORD tv = (DWORD)timeout_ms;
	size_t len = 0, cap = 4096, sent = 0;
	SOCKET fd = INVALID_SOCKET;
	char *buf;
	int rc, saved = 0;

	*out = NULL;
	*out_len = 0;
	if (WSAStartup(MAKEWORD(2, 2), &wsa))
		return mw_error(err, "WSAStartup failed");
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc) {
		WSACleanup();
		return mw_error(err, "cannot resolve '%s': error %d", host, rc);
	}
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd == INVALID_SOCKET) {
			saved = WSAGetLastError();
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, (const char *)&tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, (const char *)&tv, sizeof(tv));
		if (connect(fd, ai->ai_addr, (int)ai->ai_addrlen) == 0)
			break;
		saved = WSAGetLastError();
		closesocket(fd);
		fd = INVALID_SOCKET;
	}
	freeaddrinfo(res);
	if (fd == INVALID_SOCKET) {
		WSACleanup();
		return mw_error(err, "cannot connect to %s:%s: Winsock error %d", host, port, saved);
	}
	while (sent < request_len) {
		int n = send(fd, request + sent, (int)(request_len - sent), 0);

		if (n <= 0) {
			saved = WSAGetLastError();
			closesocket(fd);
			WSACleanup();
			return mw_error(err, "sending to %s:%s: Winsock error %d", host, port, saved);
		}
		sent += (size_t)n;
	}
	buf = mw_xmalloc(cap);
	for (;;) {
		int n;

		if (len + 1 >= cap) {
			if (cap >= max + 1) {
				free(buf);
				closesocket(fd);
				WSACleanup();
				return mw_error(err, "answer from %s:%s is larger than %zu bytes", host,
						port, max);
			}
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			buf = mw_xrealloc(buf, cap);
		}
		n = recv(fd, buf + len, (int)(cap - len - 1), 0);
		if (n < 0) {
			saved = WSAGetLastError();
			free(buf);
			closesocket(fd);
			WSACleanup();
			return mw_error(err, "reading from %s:%s: %s", host, port,
					saved == WSAETIMEDOUT ? "timed out" : "Winsock error");
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	closesocket(fd);
	WSACleanup();
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	return 0;
}
