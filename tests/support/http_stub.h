/*
 * http_stub.h - a tiny HTTP server on loopback, in a thread of its own,
 * for the tests of memwatch's HTTP client (test_rw_transport.c: the
 * remote-write POST; test_http_client.c: check/diff --url's GET).  Both
 * platforms (plain sockets; Winsock under Wine).
 *
 * It answers each connection the way the test set before asking: with
 * the bytes of `answer` as they are (so a test can send any answer, good
 * or malformed), or never (HANG: it reads the request and waits for the
 * client to give up).  It keeps the last request's head (lower-cased) and
 * body for the test to look at, under mu.
 */
#ifndef MW_TESTS_SUPPORT_HTTP_STUB_H
#define MW_TESTS_SUPPORT_HTTP_STUB_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

enum mw_stub_mode { MW_STUB_ANSWER, MW_STUB_HANG, MW_STUB_QUIT };

struct mw_stub {
	uintptr_t lsock;		/* the listening socket */
	unsigned port;
	int family;			/* AF_INET or AF_INET6 */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t got_request;	/* signalled when requests grows */
	enum mw_stub_mode mode;
	const char *answer;		/* the whole HTTP answer for MW_STUB_ANSWER */
	char head[8192];		/* the last request's start line and headers, lower case */
	unsigned char body[1 << 16];	/* and its body */
	size_t body_len;
	int requests;
	int gave_up;			/* HANG connections ended by the 30 s safety net */
	uintptr_t conn;			/* the connection being served, for stop */
};

/* Listen on loopback (ipv6: [::1], else 127.0.0.1) on a port of the
 * system's choosing and serve in a thread.  -1 when that cannot be done
 * (no IPv6 loopback here, say). */
int mw_stub_start(struct mw_stub *s, int ipv6);
/* Stop serving and close the socket (a connection still being served is
 * shut down first, so a client that left it open does not hold the stop). */
void mw_stub_stop(struct mw_stub *s);
/* How to answer the next connections. */
void mw_stub_set(struct mw_stub *s, enum mw_stub_mode m, const char *answer);
/* How many requests it has read so far. */
int mw_stub_requests(struct mw_stub *s);
/* Wait until the stub has read n requests in all (so the client sent its
 * request and now waits for the answer): 0, or -1 after `seconds`. */
int mw_stub_wait_requests(struct mw_stub *s, int n, int seconds);
/* A loopback listener that never accepts, its queue already full (listen
 * backlog 0 and one connection in it): a further connect gets no answer,
 * its SYN dropped, as from a black hole.  For the connect time-out. */
struct mw_blackhole {
	uintptr_t lsock, filler;
	unsigned port;
};
int mw_blackhole_start(struct mw_blackhole *b);
/* How many connections wait in its queue (accepted here, without
 * waiting): 1 when nobody but the filler got in. */
int mw_blackhole_queued(struct mw_blackhole *b);
void mw_blackhole_stop(struct mw_blackhole *b);

/* A port on loopback where nobody listens (it was free a moment ago). */
unsigned mw_stub_free_port(void);

/* cmocka group fixtures named server_start and server_stop serving the
 * test's struct mw_stub `var` on 127.0.0.1. */
#define MW_STUB_FIXTURES(var)                      \
	static int server_start(void **state)      \
	{                                          \
		(void)state;                       \
		return mw_stub_start(&(var), 0);   \
	}                                          \
	static int server_stop(void **state)       \
	{                                          \
		(void)state;                       \
		mw_stub_stop(&(var));              \
		return 0;                          \
	}

#endif
