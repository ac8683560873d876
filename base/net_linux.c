/* net_linux.c - see net.h (POSIX sockets). */
#include "net.h"

#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "xalloc.h"

int mw_net_exchange(const char *host, const char *port, const char *request, size_t request_len,
		    size_t max, int timeout_ms, char **out, size_t *out_len, struct mw_err *err)
{
	struct addrinfo hints, *res = NULL, *ai;
	struct timeval tv = { timeout_ms / 1000, (timeout_ms % 1000) * 1000 };
	size_t len = 0, cap = 4096, sent = 0;
	char *buf;
	int fd = -1, rc, saved = 0;

	*out = NULL;
	*out_len = 0;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc)
		return mw_error(err, "cannot resolve '%s': %s", host, gai_strerror(rc));
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd < 0) {
			saved = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		saved = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return mw_error(err, "cannot connect to %s:%s: %s", host, port, strerror(saved));
	while (sent < request_len) {
		ssize_t n = send(fd, request + sent, request_len - sent, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			saved = errno;
			close(fd);
			return mw_error(err, "sending to %s:%s: %s", host, port, strerror(saved));
		}
		sent += (size_t)n;
	}
	buf = mw_xmalloc(cap);
	for (;;) {
		ssize_t n;

		if (len + 1 >= cap) {
			if (cap >= max + 1) {
				free(buf);
				close(fd);
				return mw_error(err, "answer from %s:%s is larger than %zu bytes", host,
						port, max);
			}
			cap = cap * 2 > max + 1 ? max + 1 : cap * 2;
			buf = mw_xrealloc(buf, cap);
		}
		n = recv(fd, buf + len, cap - len - 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			saved = errno;
			free(buf);
			close(fd);
			return mw_error(err, "reading from %s:%s: %s", host, port,
					saved == EAGAIN || saved == EWOULDBLOCK ? "timed out" : strerror(saved));
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	*out_len = len;
	return 0;
}
