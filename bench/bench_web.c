/*
 * bench_web.c - HTTP throughput of the web module beside a hello-world
 * libmicrohttpd handler with the same flags, in the same run:
 *
 *   hello       52-byte JSON, queued on the second call (the ceiling)
 *   /healthz    a small composed body (json_out), no storage
 *   query       /api/v1/query of one series, 60 points
 *   /metrics    2,000 live series plus the daemon's health
 *   export      1 M raw points of one series, CSV and JSON, streamed
 *
 * Clients: CONNS keep-alive connections, one thread each, REQS requests
 * per connection.  Figures are requests (or points) per second; the issue's
 * target is query and /metrics at >= 50 % of hello.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <microhttpd.h>

#include "core/batch.h"
#include "core/config.h"
#include "core/status.h"
#include "storage/storage.h"
#include "tests/test_web_client.h"
#include "web/web.h"

#define CONNS 8
#define NSERIES 2000
#define EXPORT_POINTS 1000000

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --- the hello-world server, same flags as web/server.c ------------------ */

static const char small_body[] = "{\"status\":\"ok\",\"version\":\"0.1.0\",\"uptime_s\":12345}";
/* What hello answers: the 52-byte body, or one as long as the response it
 * is compared with, so the ratio shows our handler's cost, not the bytes. */
static const char *hello_body = small_body;
static size_t hello_len = sizeof(small_body) - 1;

static enum MHD_Result hello(void *cls, struct MHD_Connection *c, const char *url,
			     const char *method, const char *version, const char *data,
			     size_t *size, void **con_cls)
{
	static int first;
	struct MHD_Response *r;
	enum MHD_Result ret;

	(void)cls, (void)url, (void)method, (void)version, (void)data, (void)size;
	if (!*con_cls) {
		*con_cls = &first;
		return MHD_YES;
	}
	r = MHD_create_response_from_buffer(hello_len, (void *)hello_body,
					    MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
	ret = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return ret;
}

static struct MHD_Daemon *hello_start(int *port)
{
	struct MHD_Daemon *d = MHD_start_daemon(
		MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, hello, NULL,
		MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)2,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)256,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)32,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)30,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(16384 * 2 + 32768),
		MHD_OPTION_END);

	*port = d ? MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT)->port : 0;
	return d;
}

/* --- client --------------------------------------------------------------- */

struct client {
	pthread_t th;
	int port;
	const char *path;
	int reqs;
	int failures;
	size_t bytes;
};

static void *client_run(void *arg)
{
	struct client *c = arg;
	struct wc_in *in = calloc(1, sizeof(*in));
	struct wc_resp r;
	int i;

	in->fd = wc_connect(c->port);
	for (i = 0; i < c->reqs; i++) {
		if (in->fd < 0 || wc_request(in, "GET", c->path, "", &r) || r.status != 200 ||
		    r.closed) {
			c->failures++;
			wc_resp_free(&r);
			break;
		}
		c->bytes += r.body_len;
		wc_resp_free(&r);
	}
	if (in->fd >= 0)
		close(in->fd);
	free(in);
	return NULL;
}

/* Requests per second for path over CONNS keep-alive connections. */
static double rps(int port, const char *path, int reqs_per_conn, size_t *body)
{
	struct client c[CONNS];
	double t0, t;
	int i, fails = 0;

	memset(c, 0, sizeof(c));
	t0 = now_s();
	for (i = 0; i < CONNS; i++) {
		c[i].port = port;
		c[i].path = path;
		c[i].reqs = reqs_per_conn;
		pthread_create(&c[i].th, NULL, client_run, &c[i]);
	}
	for (i = 0; i < CONNS; i++) {
		pthread_join(c[i].th, NULL);
		fails += c[i].failures;
	}
	t = now_s() - t0;
	if (fails) {
		fprintf(stderr, "bench_web: %s: %d connections failed\n", path, fails);
		exit(1);
	}
	if (body)
		*body = c[0].bytes / (size_t)reqs_per_conn;
	return (double)CONNS * reqs_per_conn / t;
}

/* --- data ----------------------------------------------------------------------- */

static void fill(const struct mw_config *cfg, int64_t now)
{
	struct mw_writer *w;
	struct mw_err err = { "" };
	struct mw_batch *b;
	char idx[16];
	struct mw_label l = { "i", idx };
	int64_t t;
	int i, k;

	if (mw_writer_start(&w, cfg, &err)) {
		fprintf(stderr, "bench_web: %s\n", err.msg);
		exit(1);
	}
	/* 2,000 series, a point a second for the last minute (the last ones
	 * in the future, so they stay live for /metrics during the run). */
	for (k = 60; k >= -120; k--) {
		b = mw_batch_new();
		for (i = 0; i < NSERIES; i++) {
			snprintf(idx, sizeof(idx), "%d", i);
			mw_batch_add(b, "bench_bytes", &l, 1, 1e6 + i * 4096.0 + k, now - k * 1000);
		}
		mw_writer_submit(w, b);
	}
	/* One series of 1 M points, 10 ms apart, ending now. */
	for (t = 0; t < EXPORT_POINTS; t += 10000) {
		b = mw_batch_new();
		for (k = 0; k < 10000; k++) {
			int64_t j = t + k;

			mw_batch_add(b, "bench_export_bytes", NULL, 0, (double)(1 << 20) + (double)(j % 977) * 4096,
				     now - (EXPORT_POINTS - j) * 10);
		}
		mw_writer_submit(w, b);
	}
	mw_writer_stop(w);
}

static void export_rate(int port, const char *fmt)
{
	char path[256];
	struct wc_resp r;
	double t0, t;

	snprintf(path, sizeof(path), "/api/v1/export?match=bench_export_bytes&from=0&to=now&format=%s", fmt);
	t0 = now_s();
	if (wc_get(port, "GET", path, "", &r) || r.status != 200) {
		fprintf(stderr, "bench_web: export %s failed: %d\n", fmt, r.status);
		exit(1);
	}
	t = now_s() - t0;
	printf("export %-4s  %8.0f k points/s  %6.1f MB/s  (%zu bytes, %.2f s)\n", fmt,
	       EXPORT_POINTS / t / 1e3, (double)r.body_len / t / 1e6, r.body_len, t);
	wc_resp_free(&r);
}

int main(int argc, char **argv)
{
	struct mw_config cfg;
	struct mw_err err = { "" };
	struct mw_status_table *st = mw_status_new(0);
	struct mw_web *web;
	struct MHD_Daemon *hd;
	char dir[] = "/tmp/mw-bench-XXXXXX", db[128];
	int hport, port, reqs = argc > 1 ? atoi(argv[1]) : 20000;
	double h, q, m, z, hq, hm;
	char *big;
	size_t qb, mb;
	int64_t now;
	struct timespec ts;

	if (!mkdtemp(dir))
		return 1;
	snprintf(db, sizeof(db), "%s/bench.db", dir);
	mw_config_init(&cfg);
	mw_config_set(&cfg, "storage", "db", db, "bench", &err);
	mw_config_set(&cfg, "storage", "queue_batches", "100000", "bench", &err);
	mw_config_set(&cfg, "web", "listen", "127.0.0.1:0", "bench", &err);
	clock_gettime(CLOCK_REALTIME, &ts);
	now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	fill(&cfg, now);
	if (mw_web_start(&web, &cfg, st, &err)) {
		fprintf(stderr, "bench_web: %s\n", err.msg);
		return 1;
	}
	port = mw_web_port(web);
	hd = hello_start(&hport);
	if (!hd)
		return 1;

	h = rps(hport, "/healthz", reqs, NULL);
	z = rps(port, "/healthz", reqs, NULL);
	q = rps(port, "/api/v1/query?match=bench_bytes%7Bi%3D%2242%22%7D&from=-1m&step=1s",
		reqs, &qb);
	m = rps(port, "/metrics", reqs, &mb);
	big = malloc(mb > qb ? mb : qb);
	memset(big, 'x', mb > qb ? mb : qb);
	hello_body = big;
	hello_len = qb;
	hq = rps(hport, "/", reqs, NULL);
	hello_len = mb;
	hm = rps(hport, "/", reqs, NULL);
	hello_body = small_body;
	free(big);
	printf("bench_web: %d keep-alive connections, 2 server threads, %d requests each\n",
	       CONNS, reqs);
	printf("hello       %8.0f req/s  (libmicrohttpd alone, 52 bytes)\n", h);
	printf("/healthz    %8.0f req/s  %5.1f %% of hello\n", z, 100 * z / h);
	printf("query       %8.0f req/s  %5.1f %% of hello, %5.1f %% of hello with the same "
	       "body size (%zu bytes, 60 points)\n", q, 100 * q / h, 100 * q / hq, qb);
	printf("/metrics    %8.0f req/s  %5.1f %% of hello, %5.1f %% of hello with the same "
	       "body size (%zu bytes, %d series)\n", m, 100 * m / h, 100 * m / hm, mb, NSERIES);
	export_rate(port, "csv");
	export_rate(port, "json");

	MHD_stop_daemon(hd);
	mw_web_stop(web);
	mw_status_free(st);
	mw_config_release(&cfg);
	unlink(db);
	snprintf(db, sizeof(db), "%s/bench.db-wal", dir);
	unlink(db);
	snprintf(db, sizeof(db), "%s/bench.db-shm", dir);
	unlink(db);
	rmdir(dir);
	return 0;
}
