/* http_stub.c - see http_stub.h.  Test-only code. */
#include "tests/support/http_stub.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
typedef SOCKET sock_t;
#define close_sock closesocket
#define SHUT_RDWR SD_BOTH
#define recv_timed_out() (WSAGetLastError() == WSAETIMEDOUT)
#else
#include <errno.h>
#include <fcntl.h>
#define recv_timed_out() (errno == EAGAIN || errno == EWOULDBLOCK)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
typedef int sock_t;
#define INVALID_SOCKET (-1)
#define close_sock close
#endif

void mw_stub_set(struct mw_stub *s, enum mw_stub_mode m, const char *answer)
{
	pthread_mutex_lock(&s->mu);
	s->mode = m;
	s->answer = answer;
	pthread_mutex_unlock(&s->mu);
}

static void send_all(sock_t c, const char *p, size_t n)
{
	while (n) {
		int k = send(c, p, (int)n, 0);

		if (k <= 0)
			return;
		p += k;
		n -= (size_t)k;
	}
}

/* Read one request: headers up to the blank line, then Content-Length
 * bytes of body. */
static void read_request(struct mw_stub *s, sock_t c)
{
	static char buf[sizeof(s->head) + sizeof(s->body)];	/* one server thread */
	size_t n = 0, hlen = 0, clen = 0;
	char *end = NULL, *cl;

	while (n < sizeof(buf) - 1) {
		int k = recv(c, buf + n, (int)(sizeof(buf) - 1 - n), 0);

		if (k <= 0)
			return;
		n += (size_t)k;
		buf[n] = '\0';
		if (!end && (end = strstr(buf, "\r\n\r\n"))) {
			hlen = (size_t)(end - buf) + 4;
			for (size_t i = 0; i < hlen; i++)
				buf[i] = (char)tolower((unsigned char)buf[i]);
			cl = strstr(buf, "\r\ncontent-length:");
			clen = cl && cl < end ? strtoul(cl + 17, NULL, 10) : 0;
		}
		if (end && n >= hlen + clen)
			break;
	}
	if (!end || hlen >= sizeof(s->head) || clen > sizeof(s->body))
		return;
	pthread_mutex_lock(&s->mu);
	memcpy(s->head, buf, hlen);
	s->head[hlen] = '\0';
	memcpy(s->body, buf + hlen, clen);
	s->body_len = clen;
	s->requests++;
	pthread_cond_broadcast(&s->got_request);
	pthread_mutex_unlock(&s->mu);
}

/* Serve the listening socket until told to QUIT. */
static void *serve(void *arg)
{
	struct mw_stub *s = arg;

	for (;;) {
		sock_t c = accept((sock_t)s->lsock, NULL, NULL);
		enum mw_stub_mode m;
		const char *answer;
		char drain[512];

		if (c == INVALID_SOCKET)
			return NULL;
		{
			/* A safety net against a client that never closes, so the
			 * test ends; not a synchronisation. */
#ifdef _WIN32
			DWORD tv = 30000;
#else
			struct timeval tv = { 30, 0 };
#endif
			setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, (const char *)&tv, sizeof(tv));
		}
		pthread_mutex_lock(&s->mu);
		m = s->mode;
		answer = s->answer;
		s->conn = (uintptr_t)c;
		pthread_mutex_unlock(&s->mu);
		if (m == MW_STUB_QUIT) {
			pthread_mutex_lock(&s->mu);
			s->conn = (uintptr_t)INVALID_SOCKET;
			pthread_mutex_unlock(&s->mu);
			close_sock(c);
			return NULL;
		}
		read_request(s, c);
		if (m == MW_STUB_ANSWER)
			send_all(c, answer, strlen(answer));
		else {	/* HANG: say nothing until the client gives up */
			int k;

			while ((k = recv(c, drain, sizeof(drain), 0)) > 0)
				;
			if (k < 0 && recv_timed_out()) {
				pthread_mutex_lock(&s->mu);
				s->gave_up++;
				pthread_mutex_unlock(&s->mu);
			}
		}
		pthread_mutex_lock(&s->mu);
		s->conn = (uintptr_t)INVALID_SOCKET;
		pthread_mutex_unlock(&s->mu);
		close_sock(c);
	}
}

/* The loopback address of the family, port 0 for the system's choice. */
static socklen_t loopback(int ipv6, unsigned port, struct sockaddr_storage *a)
{
	memset(a, 0, sizeof(*a));
	if (ipv6) {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)a;

		a6->sin6_family = AF_INET6;
		a6->sin6_addr = in6addr_loopback;
		a6->sin6_port = htons((unsigned short)port);
		return sizeof(*a6);
	}
	((struct sockaddr_in *)a)->sin_family = AF_INET;
	((struct sockaddr_in *)a)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	((struct sockaddr_in *)a)->sin_port = htons((unsigned short)port);
	return sizeof(struct sockaddr_in);
}

/* A socket listening on loopback; its port in *port. */
static sock_t listen_on(int ipv6, unsigned *port)
{
	struct sockaddr_storage a;
	socklen_t alen = loopback(ipv6, 0, &a);
	sock_t s;

#ifdef _WIN32
	WSADATA wsa;

	WSAStartup(MAKEWORD(2, 2), &wsa);	/* counted: harmless when repeated */
#endif
	s = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
	if (s == INVALID_SOCKET)
		return s;
	if (bind(s, (struct sockaddr *)&a, alen) != 0 || listen(s, 8) != 0 ||
	    getsockname(s, (struct sockaddr *)&a, &alen) != 0) {
		close_sock(s);
		return INVALID_SOCKET;
	}
	*port = ipv6 ? ntohs(((struct sockaddr_in6 *)&a)->sin6_port)
		     : ntohs(((struct sockaddr_in *)&a)->sin_port);
	return s;
}

int mw_stub_start(struct mw_stub *s, int ipv6)
{
	sock_t l = listen_on(ipv6, &s->port);

	if (l == INVALID_SOCKET)
		return -1;
	s->lsock = (uintptr_t)l;
	s->family = ipv6 ? AF_INET6 : AF_INET;
	s->mode = MW_STUB_ANSWER;
	s->answer = "";
	s->conn = (uintptr_t)INVALID_SOCKET;
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->got_request, NULL);
	if (pthread_create(&s->thread, NULL, serve, s) != 0) {
		close_sock(l);
		return -1;
	}
	return 0;
}

void mw_stub_stop(struct mw_stub *s)
{
	struct sockaddr_storage a;
	socklen_t alen = loopback(s->family == AF_INET6, s->port, &a);
	sock_t c;

	/* end a connection still served, then wake the accept with one last
	 * connection, answered by quitting */
	pthread_mutex_lock(&s->mu);
	s->mode = MW_STUB_QUIT;
	if ((sock_t)s->conn != INVALID_SOCKET)
		shutdown((sock_t)s->conn, SHUT_RDWR);
	pthread_mutex_unlock(&s->mu);
	c = socket(s->family, SOCK_STREAM, 0);
	connect(c, (struct sockaddr *)&a, alen);
	pthread_join(s->thread, NULL);
	close_sock(c);
	close_sock((sock_t)s->lsock);
	pthread_cond_destroy(&s->got_request);
	pthread_mutex_destroy(&s->mu);
}

int mw_stub_requests(struct mw_stub *s)
{
	int n;

	pthread_mutex_lock(&s->mu);
	n = s->requests;
	pthread_mutex_unlock(&s->mu);
	return n;
}

int mw_stub_wait_requests(struct mw_stub *s, int n, int seconds)
{
	struct timespec until;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += seconds;
	pthread_mutex_lock(&s->mu);
	while (s->requests < n && rc == 0)
		rc = pthread_cond_timedwait(&s->got_request, &s->mu, &until);
	rc = s->requests >= n ? 0 : -1;
	pthread_mutex_unlock(&s->mu);
	return rc;
}

unsigned mw_stub_free_port(void)
{
	unsigned port = 0;
	sock_t s = listen_on(0, &port);

	if (s != INVALID_SOCKET)
		close_sock(s);
	return port;
}

int mw_blackhole_start(struct mw_blackhole *b)
{
	struct sockaddr_storage a;
	socklen_t alen;
	sock_t l, f;
	unsigned port = 0;

	l = listen_on(0, &port);
	if (l == INVALID_SOCKET)
		return -1;
	/* listen_on's backlog, made the smallest: one waiting connection */
	if (listen(l, 0) != 0) {
		close_sock(l);
		return -1;
	}
	alen = loopback(0, port, &a);
	f = socket(AF_INET, SOCK_STREAM, 0);
	if (f == INVALID_SOCKET || connect(f, (struct sockaddr *)&a, alen) != 0) {
		if (f != INVALID_SOCKET)
			close_sock(f);
		close_sock(l);
		return -1;
	}
	b->lsock = (uintptr_t)l;
	b->filler = (uintptr_t)f;
	b->port = port;
	return 0;
}

int mw_blackhole_queued(struct mw_blackhole *b)
{
	sock_t l = (sock_t)b->lsock, c;
	int n = 0;

#ifdef _WIN32
	u_long on = 1;

	ioctlsocket(l, FIONBIO, &on);
#else
	fcntl(l, F_SETFL, fcntl(l, F_GETFL) | O_NONBLOCK);
#endif
	while ((c = accept(l, NULL, NULL)) != INVALID_SOCKET) {
		close_sock(c);
		n++;
	}
	return n;
}

void mw_blackhole_stop(struct mw_blackhole *b)
{
	close_sock((sock_t)b->filler);
	close_sock((sock_t)b->lsock);
}
