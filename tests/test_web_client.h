/*
 * test_web_client.h - a tiny blocking HTTP/1.1 client over POSIX sockets
 * for the web tests and benchmark: one request written, one response read
 * (Content-Length, chunked, or until close).  Not a general client: it
 * exists so the tests talk to the real server through a real socket.
 *
 * Everything is static so each test program includes it once.
 */
#ifndef MW_TEST_WEB_CLIENT_H
#define MW_TEST_WEB_CLIENT_H

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

struct wc_resp {
	int status;		/* 0: no response (connection closed or reset) */
	char head[8192];	/* status line and headers, NUL-terminated */
	char *body;		/* malloc'd, NUL-terminated */
	size_t body_len;
	int closed;		/* server closed the connection after it */
};

static inline void wc_resp_free(struct wc_resp *r)
{
	free(r->body);
	r->body = NULL;
}

static inline int wc_connect_addr(const char *host, int port)
{
	struct sockaddr_in a;
	struct sockaddr_in6 a6;
	int fd, one = 1, rc;

	if (strchr(host, ':')) {
		memset(&a6, 0, sizeof(a6));
		a6.sin6_family = AF_INET6;
		a6.sin6_port = htons((unsigned short)port);
		if (inet_pton(AF_INET6, host, &a6.sin6_addr) != 1)
			return -1;
		fd = socket(AF_INET6, SOCK_STREAM, 0);
		if (fd < 0)
			return -1;
		rc = connect(fd, (struct sockaddr *)&a6, sizeof(a6));
	} else {
		memset(&a, 0, sizeof(a));
		a.sin_family = AF_INET;
		a.sin_port = htons((unsigned short)port);
		inet_pton(AF_INET, host, &a.sin_addr);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0)
			return -1;
		rc = connect(fd, (struct sockaddr *)&a, sizeof(a));
	}
	if (rc) {
		close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static inline int wc_connect(int port)
{
	return wc_connect_addr("127.0.0.1", port);
}

static inline int wc_send_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n) {
		w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Buffered reader over fd. */
struct wc_in {
	int fd;
	char buf[65536];
	size_t pos, len;
};

static inline int wc_fill(struct wc_in *in)
{
	ssize_t r;

	if (in->pos < in->len)
		return 1;
	do
		r = recv(in->fd, in->buf, sizeof(in->buf), 0);
	while (r < 0 && errno == EINTR);
	if (r <= 0)
		return 0;
	in->pos = 0;
	in->len = (size_t)r;
	return 1;
}

static inline int wc_getc(struct wc_in *in)
{
	if (!wc_fill(in))
		return -1;
	return (unsigned char)in->buf[in->pos++];
}

static inline void wc_body_add(struct wc_resp *r, size_t *cap, const char *p, size_t n)
{
	if (r->body_len + n + 1 > *cap) {
		while (r->body_len + n + 1 > *cap)
			*cap = *cap ? *cap * 2 : 4096;
		r->body = realloc(r->body, *cap);
	}
	memcpy(r->body + r->body_len, p, n);
	r->body_len += n;
	r->body[r->body_len] = '\0';
}

/* Read n body bytes (or to EOF when n is (size_t)-1). */
static inline int wc_read_n(struct wc_in *in, struct wc_resp *r, size_t *cap, size_t n)
{
	size_t k;

	while (n) {
		if (!wc_fill(in))
			return n == (size_t)-1 ? 0 : -1;
		k = in->len - in->pos;
		if (n != (size_t)-1 && k > n)
			k = n;
		wc_body_add(r, cap, in->buf + in->pos, k);
		in->pos += k;
		if (n != (size_t)-1)
			n -= k;
	}
	return 0;
}

static inline int wc_line(struct wc_in *in, char *out, size_t size)
{
	size_t o = 0;
	int c;

	while ((c = wc_getc(in)) >= 0) {
		if (c == '\n') {
			if (o && out[o - 1] == '\r')
				o--;
			out[o] = '\0';
			return 0;
		}
		if (o + 1 < size)
			out[o++] = (char)c;
	}
	return -1;
}

/* Header value (case-insensitive name) from r->head into out; 0 if found. */
static inline int wc_header(const struct wc_resp *r, const char *name, char *out, size_t size)
{
	const char *p = r->head;
	size_t n = strlen(name), k;

	while ((p = strchr(p, '\n'))) {
		p++;
		if (!strncasecmp(p, name, n) && p[n] == ':') {
			p += n + 1;
			while (*p == ' ')
				p++;
			for (k = 0; k + 1 < size && p[k] && p[k] != '\r' && p[k] != '\n'; k++)
				out[k] = p[k];
			out[k] = '\0';
			return 0;
		}
	}
	return -1;
}

/* Read one response from in.  head_only: a response to HEAD (no body). */
static inline int wc_read_resp(struct wc_in *in, struct wc_resp *r, int head_only)
{
	char line[8192], v[64];
	size_t cap = 0, hl = 0, n;
	long long cl = -1;
	int chunked = 0;

	memset(r, 0, sizeof(*r));
	wc_body_add(r, &cap, "", 0);
	if (wc_line(in, line, sizeof(line)) || sscanf(line, "HTTP/1.%*d %d", &r->status) != 1) {
		r->status = 0;
		r->closed = 1;
		return -1;
	}
	hl = (size_t)snprintf(r->head, sizeof(r->head), "%s\r\n", line);
	for (;;) {
		if (wc_line(in, line, sizeof(line)))
			return -1;
		if (!line[0])
			break;
		n = strlen(line);
		if (hl + n + 3 < sizeof(r->head)) {
			memcpy(r->head + hl, line, n);
			memcpy(r->head + hl + n, "\r\n", 3);
			hl += n + 2;
		}
	}
	if (!wc_header(r, "Content-Length", v, sizeof(v)))
		cl = atoll(v);
	if (!wc_header(r, "Transfer-Encoding", v, sizeof(v)) && !strcasecmp(v, "chunked"))
		chunked = 1;
	if (!wc_header(r, "Connection", v, sizeof(v)) && !strcasecmp(v, "close"))
		r->closed = 1;
	if (head_only || r->status == 304 || r->status == 204)
		return 0;
	if (chunked) {
		for (;;) {
			if (wc_line(in, line, sizeof(line)))
				return -1;
			n = strtoul(line, NULL, 16);
			if (!n)
				break;
			if (wc_read_n(in, r, &cap, n) || wc_line(in, line, sizeof(line)))
				return -1;
		}
		while (!wc_line(in, line, sizeof(line)) && line[0])
			;	/* trailers */
		return 0;
	}
	if (cl >= 0)
		return wc_read_n(in, r, &cap, (size_t)cl);
	r->closed = 1;
	return wc_read_n(in, r, &cap, (size_t)-1);
}

/* One request on an open connection (in->fd); extra_headers may be "". */
static inline int wc_request(struct wc_in *in, const char *method, const char *path,
			     const char *extra_headers, struct wc_resp *r)
{
	char req[65536 + 1024];
	int n = snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: localhost\r\n%s\r\n",
			 method, path, extra_headers);

	if (n < 0 || (size_t)n >= sizeof(req) || wc_send_all(in->fd, req, (size_t)n)) {
		memset(r, 0, sizeof(*r));
		return -1;
	}
	return wc_read_resp(in, r, !strcmp(method, "HEAD"));
}

/* A fresh connection, one request, closed. */
static inline int wc_get(int port, const char *method, const char *path,
			 const char *extra_headers, struct wc_resp *r)
{
	struct wc_in *in = calloc(1, sizeof(*in));
	int rc;

	memset(r, 0, sizeof(*r));
	in->fd = wc_connect(port);
	if (in->fd < 0) {
		free(in);
		return -1;
	}
	rc = wc_request(in, method, path, extra_headers, r);
	close(in->fd);
	free(in);
	return rc;
}

#endif
