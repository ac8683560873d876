/*
 * rw_transport_linux.c - one remote-write POST, or one GET of a JSON
 * answer, with libcurl (Debian's libcurl4-openssl-dev, loaded on first use:
 * curl_lib.h), see rw_transport.h.
 *
 * Owned by the forwarder (forward/).  A thin layer: the endpoint checks,
 * header lines and message clean-up are in rw_transport.c (pure, tested);
 * here are the curl calls and the mapping of curl's outcome to a status
 * and a message.
 *
 * One easy handle per transport: curl keeps the connection (and the TLS
 * session) open between posts.  A transport is used by one thread at a
 * time (the forwarder's).  CURLOPT_NOSIGNAL: no SIGALRM for timeouts in a
 * threaded daemon.  Redirects are not followed (a receiver that redirects
 * a POST is misconfigured; the 3xx status says so).  Proxies come from the
 * usual environment variables, as for curl itself.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "forward/curl_lib.h"
#include "forward/rw_transport.h"
#include "forward/rw_transport_util.h"

/* libcurl is loaded on first use (curl_lib.h): its calls go through the
 * table (curl.h's type-checking macros of the same names undone first). */
#undef curl_easy_setopt
#undef curl_easy_getinfo
#define curl_global_init mw_curl.global_init
#define curl_easy_init mw_curl.easy_init
#define curl_easy_setopt mw_curl.easy_setopt
#define curl_easy_getinfo mw_curl.easy_getinfo
#define curl_easy_perform mw_curl.easy_perform
#define curl_easy_cleanup mw_curl.easy_cleanup
#define curl_easy_strerror mw_curl.easy_strerror
#define curl_slist_append mw_curl.slist_append
#define curl_slist_free_all mw_curl.slist_free_all

/* What we keep of an answer's body: the message needs only its start. */
#define BODY_KEEP 2048

struct mw_rw_transport {
	CURL *curl;
	struct curl_slist *headers;
	struct mw_rw_url url;
	int timeout_ms;
	char errbuf[CURL_ERROR_SIZE];
	char body[BODY_KEEP];
	size_t body_len;
	bool get;
	const char *peer;		/* who should be running, for messages */
	char ca_setting[32];		/* how messages name ca_file */
	char *got;			/* a GET's whole body (NUL-terminated) */
	size_t got_len, got_cap, got_max;
	bool too_big;
	atomic_bool cancelled;		/* mw_rw_transport_cancel, any thread */
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc;

static void global_init(void)
{
	global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* libcurl calls this about once a second and on every transfer step,
 * also while waiting for a connection or an answer: a cancel
 * (stopping) ends the exchange there. */
static int on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
		       curl_off_t ulnow)
{
	struct mw_rw_transport *t = arg;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return atomic_load(&t->cancelled) ? 1 : 0;
}

/* A GET keeps all of the body, up to got_max: more ends the transfer. */
static size_t on_whole_body(struct mw_rw_transport *t, const char *data, size_t n)
{
	if (n > t->got_max - t->got_len) {
		t->too_big = true;
		return 0;
	}
	if (t->got_len + n + 1 > t->got_cap) {
		size_t cap = t->got_cap ? t->got_cap : 4096;
		char *p;

		while (cap < t->got_len + n + 1)
			cap *= 2;
		p = realloc(t->got, cap);
		if (!p)
			return 0;
		t->got = p;
		t->got_cap = cap;
	}
	memcpy(t->got + t->got_len, data, n);
	t->got_len += n;
	t->got[t->got_len] = '\0';
	return n;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct mw_rw_transport *t = arg;
	size_t n = size * nmemb, room = sizeof(t->body) - t->body_len;

	if (t->get)
		return on_whole_body(t, data, n);
	memcpy(t->body + t->body_len, data, n < room ? n : room);
	t->body_len += n < room ? n : room;
	return n;	/* the rest is read and dropped */
}

void mw_rw_transport_free(struct mw_rw_transport *t)
{
	if (!t)
		return;
	if (t->curl)
		curl_easy_cleanup(t->curl);
	free(t->got);
	if (t->headers) {
		/* the Authorization line holds a credential */
		for (struct curl_slist *l = t->headers; l; l = l->next)
			memset(l->data, 0, strlen(l->data));
		curl_slist_free_all(t->headers);
	}
	free(t);
}

#define SET(opt, val)                                                             \
	do {                                                                      \
		if (curl_easy_setopt(t->curl, opt, val) != CURLE_OK) {            \
			mw_error(err, "remote write: libcurl refused option %s", #opt); \
			goto fail;                                                \
		}                                                                 \
	} while (0)

struct mw_rw_transport *mw_rw_transport_new(const struct mw_rw_endpoint *ep,
					    struct mw_err *err)
{
	struct mw_rw_transport *t;
	struct mw_rw_headers h;
	FILE *ca;

	if (mw_curl_load(err)) {
		mw_error_prefix(err, "remote write");
		return NULL;
	}
	pthread_once(&global_once, global_init);
	if (global_rc != CURLE_OK) {
		mw_error(err, "remote write: libcurl did not initialise: %s",
			 curl_easy_strerror(global_rc));
		return NULL;
	}
	t = mw_xcalloc(1, sizeof(*t));
	if (mw_rw_endpoint_check(ep, &t->url, err) < 0)
		goto fail;
	/* Said now, not at the first post. */
	if (ep->ca_file && ep->ca_file[0]) {
		ca = fopen(ep->ca_file, "r");
		if (!ca) {
			mw_error(err, "%s %s cannot be read: %s", mw_rw_ca_setting(ep),
				 ep->ca_file, strerror(errno));
			goto fail;
		}
		fclose(ca);
	}
	t->timeout_ms = ep->timeout_ms;
	t->get = ep->get;
	t->peer = ep->get ? "the daemon" : "the receiver";
	snprintf(t->ca_setting, sizeof(t->ca_setting), "%s", mw_rw_ca_setting(ep));
	if (mw_rw_headers_build(ep, &h, err) < 0)
		goto fail;
	for (size_t i = 0; h.line[i]; i++) {
		struct curl_slist *l = curl_slist_append(t->headers, h.line[i]);

		if (!l) {
			mw_rw_headers_free(&h);
			mw_error(err, "out of memory for the remote-write headers");
			goto fail;
		}
		t->headers = l;
	}
	mw_rw_headers_free(&h);

	t->curl = curl_easy_init();
	if (!t->curl) {
		mw_error(err, "remote write: curl_easy_init failed");
		goto fail;
	}
	SET(CURLOPT_URL, ep->url);
#if LIBCURL_VERSION_NUM >= 0x075500
	SET(CURLOPT_PROTOCOLS_STR, "http,https");
#endif
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_ERRORBUFFER, t->errbuf);
	SET(CURLOPT_USERAGENT, MW_RW_USER_AGENT);
	SET(CURLOPT_HTTPHEADER, t->headers);
	if (ep->get) {
		SET(CURLOPT_HTTPGET, 1L);
		SET(CURLOPT_NOPROXY, "*");
	} else {
		SET(CURLOPT_POST, 1L);
	}
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	SET(CURLOPT_TIMEOUT_MS, (long)ep->timeout_ms);
	SET(CURLOPT_CONNECTTIMEOUT_MS, (long)ep->timeout_ms);
	SET(CURLOPT_NOPROGRESS, 0L);
	SET(CURLOPT_XFERINFOFUNCTION, on_progress);
	SET(CURLOPT_XFERINFODATA, t);
	SET(CURLOPT_WRITEFUNCTION, on_body);
	SET(CURLOPT_WRITEDATA, t);
	SET(CURLOPT_SSL_VERIFYPEER, ep->tls_verify ? 1L : 0L);
	SET(CURLOPT_SSL_VERIFYHOST, ep->tls_verify ? 2L : 0L);
	if (ep->ca_file && ep->ca_file[0])
		SET(CURLOPT_CAINFO, ep->ca_file);
	return t;
fail:
	mw_rw_transport_free(t);
	return NULL;
}

void mw_rw_transport_cancel(struct mw_rw_transport *t)
{
	if (t)
		atomic_store(&t->cancelled, true);
}

/* The message for a post that got no answer. */
static void no_answer(struct mw_rw_transport *t, CURLcode rc, struct mw_rw_result *res)
{
	const char *detail = t->errbuf[0] ? t->errbuf : curl_easy_strerror(rc);
	long oserr = 0;

	switch (rc) {
	case CURLE_ABORTED_BY_CALLBACK:
		snprintf(res->message, sizeof(res->message),
			 "cancelled: memwatchd is stopping (%s:%u)", t->url.host, t->url.port);
		break;
	case CURLE_OPERATION_TIMEDOUT:
		snprintf(res->message, sizeof(res->message),
			 "timed out after %d ms waiting for %s:%u (%s)", t->timeout_ms,
			 t->url.host, t->url.port, detail);
		break;
	case CURLE_COULDNT_CONNECT:
		curl_easy_getinfo(t->curl, CURLINFO_OS_ERRNO, &oserr);
		if (oserr == ECONNREFUSED)
			snprintf(res->message, sizeof(res->message),
				 "connection refused by %s:%u (is %s running?)",
				 t->url.host, t->url.port, t->peer);
		else
			snprintf(res->message, sizeof(res->message), "cannot connect to %s:%u: %s",
				 t->url.host, t->url.port, detail);
		break;
	case CURLE_COULDNT_RESOLVE_HOST:
		snprintf(res->message, sizeof(res->message), "cannot resolve host %s: %s",
			 t->url.host, detail);
		break;
	case CURLE_PEER_FAILED_VERIFICATION:
		snprintf(res->message, sizeof(res->message),
			 "certificate of %s did not verify: %s (give the CA that signed it as "
			 "%s or trust it in the system's store, or fix %s's certificate)",
			 t->url.host, detail, t->ca_setting, t->peer);
		break;
	case CURLE_SSL_CACERT_BADFILE:
		snprintf(res->message, sizeof(res->message), "%s could not be used: %s",
			 t->ca_setting, detail);
		break;
	case CURLE_SSL_CONNECT_ERROR:
		snprintf(res->message, sizeof(res->message), "TLS handshake with %s:%u failed: %s",
			 t->url.host, t->url.port, detail);
		break;
	case CURLE_GOT_NOTHING:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
		snprintf(res->message, sizeof(res->message),
			 "connection to %s:%u lost before an answer: %s", t->url.host, t->url.port,
			 detail);
		break;
	default:
		snprintf(res->message, sizeof(res->message), "%s to %s:%u failed: %s",
			 t->get ? "GET" : "post", t->url.host, t->url.port, detail);
		break;
	}
}

/* The status of the answer that arrived, and its message from body. */
static void answered(struct mw_rw_transport *t, const char *body, size_t len,
		     struct mw_rw_result *res)
{
	long status = 0;

	curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &status);
	res->status = (int)status;
	if (status >= 300 && status < 400) {
		char *loc = NULL;

		curl_easy_getinfo(t->curl, CURLINFO_REDIRECT_URL, &loc);
		mw_rw_redirect_message(loc, res->message, sizeof(res->message));
	} else if (status >= 400 || status < 200) {
		mw_rw_printable(body, len, res->message, sizeof(res->message));
	}
}

int mw_rw_post(struct mw_rw_transport *t, const void *body, size_t len,
	       struct mw_rw_result *res)
{
	CURLcode rc;

	res->status = 0;
	res->message[0] = '\0';
	t->errbuf[0] = '\0';
	t->body_len = 0;
	if (curl_easy_setopt(t->curl, CURLOPT_POSTFIELDS, body) != CURLE_OK ||
	    curl_easy_setopt(t->curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len) != CURLE_OK) {
		snprintf(res->message, sizeof(res->message), "libcurl refused the body");
		return -1;
	}
	rc = curl_easy_perform(t->curl);
	/* The body pointer is the caller's: not kept past this call. */
	curl_easy_setopt(t->curl, CURLOPT_POSTFIELDS, NULL);
	if (rc != CURLE_OK) {
		no_answer(t, rc, res);
		return -1;
	}
	answered(t, t->body, t->body_len, res);
	return 0;
}

int mw_rw_get(struct mw_rw_transport *t, size_t max, struct mw_rw_answer *out)
{
	CURLcode rc;

	memset(out, 0, sizeof(*out));
	t->errbuf[0] = '\0';
	t->got_len = 0;
	t->got_max = max;
	t->too_big = false;
	rc = curl_easy_perform(t->curl);
	if (rc == CURLE_OK && !t->got && !(t->got = calloc(1, 1)))
		rc = CURLE_OUT_OF_MEMORY;	/* an empty body */
	if (rc != CURLE_OK) {
		if (t->too_big)
			snprintf(out->res.message, sizeof(out->res.message),
				 "answer from %s:%u larger than %zu bytes", t->url.host,
				 t->url.port, max);
		else
			no_answer(t, rc, &out->res);
		free(t->got);
		t->got = NULL;
		t->got_cap = 0;
		return -1;
	}
	answered(t, t->got, t->got_len, &out->res);
	out->body = t->got;
	out->len = t->got_len;
	t->got = NULL;	/* the caller's now */
	t->got_cap = 0;
	return 0;
}
