/*
 * bench_remote_write.c - the remote-write forwarder against a real
 * VictoriaMetrics on loopback (Debian's victoria-metrics, started and
 * stopped here by PID), beside a /metrics scrape of the same series in the
 * same run:
 *
 *   forward   a backlog (as after an outage) of 200 x 5,000, 2,000 x 500
 *             and 200 x 20,000 series x points, each in a fresh database,
 *             sent from the cursor until the receiver accepted all: points
 *             per second, the CPU time of this process (the forwarder
 *             thread: read, encode, compress, POST) per million points,
 *             and the peak RSS growth while forwarding (bounded by the
 *             batch, not the backlog).  VictoriaMetrics' CPU is apart.
 *   scrape    GET /metrics of the same live series, uncached, repeated:
 *             CPU per million values exposed (server and client here),
 *             the baseline a scraping setup pays per value.
 *
 * Skipped (exit 0) when victoria-metrics is not installed.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/batch.h"
#include "base/clock.h"
#include "core/config.h"
#include "base/log.h"
#include "core/status.h"
#include "forward/forwarder.h"
#include "storage/store.h"
#include "tests/test_web_client.h"
#include "web/web.h"
#include "web/web_internal.h"

#define SCRAPES 300

extern char **environ;

static double forward_cpu_per_point;


static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* utime + stime of another process, from /proc/PID/stat. */
static double proc_cpu_s(pid_t pid)
{
	char path[64], buf[4096], *p;
	unsigned long ut = 0, st = 0;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return 0;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static int free_port(void)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len))
		port = 0;
	else
		port = ntohs(a.sin_port);
	if (fd >= 0)
		close(fd);
	return port;
}

static const char *find_vm(void)
{
	static const char *const where[] = { "/usr/bin/victoria-metrics",
					     "/usr/local/bin/victoria-metrics" };
	size_t i;

	for (i = 0; i < sizeof(where) / sizeof(where[0]); i++)
		if (access(where[i], X_OK) == 0)
			return where[i];
	return NULL;
}

/* Resident set now and its peak since the last reset, kB (Linux). */
static long rss_kb(const char *field)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, strlen(field)))
			v = atol(line + strlen(field));
	if (f)
		fclose(f);
	return v;
}

static void reset_peak_rss(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");

	if (f) {
		fputs("5", f);	/* resets VmHWM to the current RSS */
		fclose(f);
	}
}

/* Store nseries x npoints ending now in db, forward them all to the
 * receiver at vport; prints one line.  0 or -1. */
static int forward_run(const char *dir, int run, int nseries, int npoints, int vport,
		       pid_t vmpid)
{
	char db[256], url[128];
	struct mw_store_options o;
	struct mw_store *s;
	struct mw_config cfg;
	struct mw_status_table *status;
	struct mw_forwarder *f;
	struct mw_rw_status st;
	struct mw_err err;
	int64_t now = mw_clock_wall_ms();
	uint64_t total = (uint64_t)nseries * (uint64_t)npoints;
	double t0, c0, v0, wall, cpu, vcpu;
	long rss0, peak;
	int i, j;

	snprintf(db, sizeof(db), "%s/rw%d.db", dir, run);
	mw_store_options_init(&o);
	o.db_path = db;
	o.self_metrics = false;
	if (mw_store_open(&s, &o, &err)) {
		fprintf(stderr, "bench_remote_write: %s\n", err.msg);
		return -1;
	}
	for (i = 0; i < nseries; i++) {
		char iv[16], key[128];
		struct mw_label l[2] = { { "i", iv }, { "process", "bench.exe" } };

		snprintf(iv, sizeof(iv), "%d", i);
		mw_series_key_format(key, sizeof(key), "bench_rw_bytes", l, 2);
		for (j = 0; j < npoints; j++)
			mw_store_add(s, key, "bench_rw_bytes", l, 2,
				     now - (int64_t)(npoints - 1 - j) * 1000,
				     (double)(64 << 20) + (double)((j * 7 + i) % 97) * 4096);
	}
	if (mw_store_flush(s, &err)) {
		fprintf(stderr, "bench_remote_write: %s\n", err.msg);
		mw_store_free(s);
		return -1;
	}
	mw_store_free(s);

	mw_config_init(&cfg);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d/api/v1/write", vport);
	mw_config_set(&cfg, "storage", "db", db, "bench", &err);
	mw_config_set(&cfg, "remote_write.vm", "url", url, "bench", &err);
	mw_config_set(&cfg, "remote_write.vm", "match", "bench_rw_bytes", "bench", &err);
	snprintf(url, sizeof(url), "instance=bench%d", run);
	mw_config_set(&cfg, "remote_write.vm", "labels", url, "bench", &err);
	status = mw_status_new(0);
	reset_peak_rss();
	rss0 = rss_kb("VmRSS:");
	t0 = now_s();
	c0 = cpu_s();
	v0 = proc_cpu_s(vmpid);
	if (mw_forwarder_start(&f, &cfg, status, &err)) {
		fprintf(stderr, "bench_remote_write: %s\n", err.msg);
		return -1;
	}
	do {
		usleep(2000);
		mw_status_rw_get(status, 0, &st);
	} while (st.points_sent + st.points_skipped < total && now_s() - t0 < 600);
	wall = now_s() - t0;
	cpu = cpu_s() - c0;
	vcpu = proc_cpu_s(vmpid) - v0;
	peak = rss_kb("VmHWM:");
	mw_forwarder_stop(f);
	mw_status_free(status);
	if (st.points_sent != total)
		printf("!! sent %llu of %llu points (%llu skipped, last error: %s)\n",
		       (unsigned long long)st.points_sent, (unsigned long long)total,
		       (unsigned long long)st.points_skipped, st.last_error);
	printf("forward    %5d x %6d = %7llu points  %8.0f points/s  %6.3f CPU s/M points  "
	       "peak RSS +%5.1f MB  (%d requests; VictoriaMetrics %.3f CPU s/M)\n",
	       nseries, npoints, (unsigned long long)total, (double)st.points_sent / wall,
	       cpu * 1e6 / (double)total, rss0 >= 0 && peak >= rss0 ? (double)(peak - rss0) / 1024 : -1.0,
	       (int)st.batches_sent, vcpu * 1e6 / (double)total);
	fflush(stdout);
	if (run == 0)
		forward_cpu_per_point = cpu / (double)total;
	mw_config_release(&cfg);
	return 0;
}

int main(void)
{
	char dir[] = "/tmp/mw-bench-rw-XXXXXX", db[256], vmdata[256], a1[300], a2[64];
	const char *vm = find_vm();
	struct mw_config cfg;
	struct mw_status_table *status;
	struct mw_web *web;
	struct mw_err err;
	pid_t vmpid;
	int vport, i, ok = 0;
	double scrape_cpu;

	if (!vm) {
		printf("bench_remote_write: skipped (victoria-metrics not installed)\n");
		return 0;
	}
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(vmdata, sizeof(vmdata), "%s/vm", dir);
	vport = free_port();
	snprintf(a1, sizeof(a1), "-storageDataPath=%s", vmdata);
	snprintf(a2, sizeof(a2), "-httpListenAddr=127.0.0.1:%d", vport);
	{
		char *argv[] = { (char *)vm, a1, a2, (char *)"-loggerLevel=ERROR",
				 (char *)"-retentionPeriod=100y", NULL };
		posix_spawn_file_actions_t fa;

		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
		if (posix_spawn(&vmpid, vm, &fa, NULL, argv, environ)) {
			perror("posix_spawn victoria-metrics");
			return 1;
		}
		posix_spawn_file_actions_destroy(&fa);
	}
	for (i = 0; i < 600 && !ok; i++) {
		struct wc_resp r;

		if (wc_get(vport, "GET", "/health", "", &r) == 0 && r.status == 200)
			ok = 1;
		else
			usleep(50000);
		wc_resp_free(&r);
	}
	if (!ok) {
		fprintf(stderr, "bench_remote_write: victoria-metrics did not start\n");
		kill(vmpid, SIGKILL);
		waitpid(vmpid, NULL, 0);
		return 1;
	}
	/* The forwarder's info lines would interleave with the figures. */
	mw_log_open("", MW_LOG_WARN, NULL);
	printf("forward    to VictoriaMetrics on loopback, batch_size 2000\n");
	if (forward_run(dir, 0, 200, 5000, vport, vmpid) || forward_run(dir, 1, 2000, 500, vport, vmpid) ||
	    forward_run(dir, 2, 200, 20000, vport, vmpid)) {
		kill(vmpid, SIGKILL);
		waitpid(vmpid, NULL, 0);
		return 1;
	}

	/* scrape: /metrics of the first run's 200 series (live: their last
	 * point is a few seconds old), uncached each time */
	mw_config_init(&cfg);
	snprintf(db, sizeof(db), "%s/rw0.db", dir);
	mw_config_set(&cfg, "storage", "db", db, "bench", &err);
	mw_config_set(&cfg, "web", "listen", "127.0.0.1:0", "bench", &err);
	status = mw_status_new(0);
	if (mw_web_start(&web, &cfg, status, &err)) {
		fprintf(stderr, "bench_remote_write: %s\n", err.msg);
		return 1;
	}
	{
		int port = mw_web_port(web), exposed = 0;
		double c1;

		c1 = cpu_s();
		for (i = 0; i < SCRAPES; i++) {
			struct wc_resp r;
			const char *p;

			mw_metrics_cache_clear();
			if (wc_get(port, "GET", "/metrics", "", &r) || r.status != 200) {
				fprintf(stderr, "bench_remote_write: /metrics failed\n");
				break;
			}
			if (i == 0)
				for (p = r.body; (p = strstr(p, "\nbench_rw_bytes{")); p++)
					exposed++;
			wc_resp_free(&r);
		}
		scrape_cpu = cpu_s() - c1;
		if (exposed != 200)
			printf("!! /metrics exposed %d of 200 series\n", exposed);
		if (exposed > 0) {
			double per = scrape_cpu / ((double)SCRAPES * exposed);

			printf("scrape     /metrics of the same %d series: %6.3f CPU s per million values "
			       "(server and client)\n", exposed, per * 1e6);
			printf("ratio      forwarding (200 x 5000) costs %.2fx the CPU per value of a "
			       "/metrics scrape, and sends every stored point, not one per scrape\n",
			       forward_cpu_per_point / per);
		}
	}
	mw_web_stop(web);
	mw_status_free(status);
	mw_config_release(&cfg);
	kill(vmpid, SIGTERM);
	waitpid(vmpid, NULL, 0);
	{
		char cmd[300];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "bench_remote_write: could not remove %s\n", dir);
	}
	return 0;
}
