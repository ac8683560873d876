/*
 * metrics.c - GET /metrics: the newest value of every live series plus the
 * daemon's own health, in Prometheus text exposition format.
 *
 * Live: sampled within the last three intervals of the slowest collector
 * (at least a minute), so an exited process's series stop being exported.
 * No timestamps are written (Prometheus' advice for exporters: the scrape
 * time is the sample time).  Stored `memwatch_collector_*` (and
 * `memwatch_leak_*`, stored copies of the leak gauges) series are
 * skipped: the same figures come fresher from the status table.  Each
 * metric family is written once, with HELP and TYPE, its samples together.
 *
 * When storage is unavailable the health part is still served (with
 * memwatch_storage_up 0): that is when a scraper needs it most.
 */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fsutf8.h"
#include "conn_guard.h"
#include "core/leak_gauges.h"
#include "metrics.h"
#include "readers.h"
#include "storage/query.h"
#include "web_internal.h"

#ifndef MW_VERSION
#define MW_VERSION "dev"
#endif

static void value_line_end(struct mw_jbuf *b, double v)
{
	char num[40];

	mw_j_char(b, ' ');
	mw_j_raw(b, num, mw_fmt_double(num, v));
	mw_j_char(b, '\n');
}

static int cmp_latest(const void *a, const void *b)
{
	const struct mw_latest *x = *(const struct mw_latest *const *)a;
	const struct mw_latest *y = *(const struct mw_latest *const *)b;
	int c = strcmp(x->info.name, y->info.name);

	return c ? c : strcmp(x->info.key, y->info.key);
}

static bool is_health_name(const char *name)
{
	return !strncmp(name, "memwatch_collector_", 19) || !strncmp(name, "memwatch_web_", 13) ||
	       !strncmp(name, "memwatch_remote_write_", 22) ||
	       /* stored copies of the leak gauges, written below fresher */
	       !strncmp(name, "memwatch_leak_", 14) ||
	       !strncmp(name, "memwatch_storage_", 17) || !strcmp(name, "memwatch_up") ||
	       !strcmp(name, "memwatch_uptime_seconds") || !strcmp(name, "memwatch_build_info");
}

/* Stored series, newest values; returns the number written, -1 if the
 * storage could not be read. */
static long stored_series_uncached(struct mw_req *r, struct mw_jbuf *b, int64_t live_ms)
{
	struct mw_err err = { "" };
	struct mw_reader *reader = mw_pool_get(r->web->pool, &err);
	struct mw_latest_list list = { 0 };
	struct mw_latest **idx;
	const char *family = NULL;
	size_t i, n = 0;
	long written = 0;

	if (!reader)
		return -1;
	if (mw_reader_latest(reader, NULL, &list, &err)) {
		mw_pool_put(r->web->pool, reader);
		return -1;
	}
	idx = calloc(list.n ? list.n : 1, sizeof(*idx));
	if (idx) {
		for (i = 0; i < list.n; i++)
			if (list.items[i].ts_ms >= r->now_ms - live_ms &&
			    !is_health_name(list.items[i].info.name))
				idx[n++] = &list.items[i];
		qsort(idx, n, sizeof(*idx), cmp_latest);
		for (i = 0; i < n; i++) {
			if (!family || strcmp(family, idx[i]->info.name)) {
				family = idx[i]->info.name;
				mw_prom_family(b, family, mw_prom_type(family), mw_prom_help(family));
			}
			mw_prom_utf8(b, idx[i]->info.key);
			value_line_end(b, idx[i]->value);
			written++;
		}
	}
	free(idx);
	mw_latest_list_release(&list);
	mw_pool_put(r->web->pool, reader);
	return written;
}

/*
 * The stored part changes only when the writer flushes (every few
 * seconds) but costs one indexed read per series, so it is kept for up to
 * a second: scrapers and dashboards hitting /metrics together share one
 * read.  One rebuild at a time (the lock is held while rebuilding).
 */
#define STORED_TTL_MS 1000
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	const void *web;	/* the server the text belongs to */
	int64_t built_ms;
	long series;
	char *text;
	size_t len;
} cache;

static long stored_series(struct mw_req *r, struct mw_jbuf *b, int64_t live_ms)
{
	struct mw_jbuf tmp;
	long series;

	pthread_mutex_lock(&cache_lock);
	if (cache.web != r->web || !cache.text || r->now_ms - cache.built_ms >= STORED_TTL_MS ||
	    r->now_ms < cache.built_ms) {
		mw_jbuf_init(&tmp);
		cache.series = stored_series_uncached(r, &tmp, live_ms);
		free(cache.text);
		cache.text = mw_jbuf_detach(&tmp, &cache.len);
		mw_jbuf_release(&tmp);
		cache.web = r->web;
		cache.built_ms = r->now_ms;
	}
	mw_j_raw(b, cache.text, cache.len);
	series = cache.series;
	pthread_mutex_unlock(&cache_lock);
	return series;
}

/* Forget the cache (mw_web_stop: a later server may reuse the address). */
void mw_metrics_cache_clear(void)
{
	pthread_mutex_lock(&cache_lock);
	free(cache.text);
	memset(&cache, 0, sizeof(cache));
	pthread_mutex_unlock(&cache_lock);
}

static double file_bytes(const char *path)
{
	int64_t n = mw_file_size(path);	/* a UTF-8 name, as SQLite's */

	return n < 0 ? 0 : (double)n;
}

/* The forwarders' status ([remote_write.NAME]), one sample per
 * destination and family. */
/* The gauge walk's text sink. */
static void text_family(void *arg, const char *name, const char *type, const char *help)
{
	mw_prom_family(arg, name, type, help);
}

static void text_sample(void *arg, const char *name, const char *l1, const char *v1,
			const char *l2, const char *v2, double value)
{
	const char *kv[4] = { l1, v1, l2, v2 };

	mw_prom_sample_labels(arg, name, kv, l2 ? 2 : l1 ? 1 : 0, value);
}

/* The background leak judgement's last verdicts, as the judge published
 * them (nothing before its first run). */
static void write_leak_gauges(struct mw_req *r, struct mw_jbuf *b)
{
	struct mw_leak_status s;
	struct mw_leak_gauge_sink sink = { text_family, text_sample, b };

	if (!r->web->status)
		return;
	mw_status_get_leaks(r->web->status, &s);
	if (s.known) {
		mw_leak_gauges_walk(&s, &sink);
		mw_leak_gauges_walk_runs(&s, &sink);
	}
	mw_leak_status_release(&s);
}

static void write_remote_write(struct mw_req *r, struct mw_jbuf *b)
{
	static const struct {
		const char *name, *type, *help;
	} fam[] = {
		{ "memwatch_remote_write_up", "gauge",
		  "1 unless the last request to the destination failed (no answer, 5xx, 429, 401 ...)." },
		{ "memwatch_remote_write_lag_seconds", "gauge",
		  "Age of the oldest stored point not yet accepted by the destination; 0 when caught up." },
		{ "memwatch_remote_write_points_sent_total", "counter",
		  "Points the destination accepted." },
		{ "memwatch_remote_write_batches_sent_total", "counter",
		  "Requests the destination accepted." },
		{ "memwatch_remote_write_retries_total", "counter",
		  "Requests repeated after a failure (no answer, 5xx, 429, 401 ...)." },
		{ "memwatch_remote_write_batches_skipped_total", "counter",
		  "Requests the destination refused for good (4xx: too old, out of order ...); not resent." },
		{ "memwatch_remote_write_points_skipped_total", "counter",
		  "Points in those requests." },
		{ "memwatch_remote_write_pending_series", "gauge",
		  "Series with points waiting to be sent at the last scan." },
		{ "memwatch_remote_write_last_sent_timestamp_seconds", "gauge",
		  "When the destination last accepted a request (0: never)." },
	};
	size_t n = mw_status_rw_count(r->web->status), i, k;
	struct mw_rw_status *st;

	if (!n)
		return;
	st = calloc(n, sizeof(*st));
	if (!st)
		return;
	for (i = 0; i < n; i++) {
		mw_status_rw_get(r->web->status, i, &st[i]);
		st[i].name[sizeof(st[i].name) - 1] = '\0';
	}
	for (k = 0; k < MW_ARRAY_SIZE(fam); k++) {
		mw_prom_family(b, fam[k].name, fam[k].type, fam[k].help);
		for (i = 0; i < n; i++) {
			double v = 0;

			switch (k) {
			case 0: v = st[i].up; break;
			case 1: v = (double)mw_rw_status_lag_ms(&st[i], r->now_ms) / 1000; break;
			case 2: v = (double)st[i].points_sent; break;
			case 3: v = (double)st[i].batches_sent; break;
			case 4: v = (double)st[i].retries; break;
			case 5: v = (double)st[i].batches_skipped; break;
			case 6: v = (double)st[i].points_skipped; break;
			case 7: v = (double)st[i].pending_series; break;
			default: v = (double)st[i].last_sent_ms / 1000; break;
			}
			mw_prom_sample(b, fam[k].name, "destination", st[i].name, v);
		}
	}
	free(st);
}

struct MHD_Response *mw_h_metrics(struct mw_req *r)
{
	struct mw_collector_status *st;
	struct mw_query_stats qs;
	struct mw_jbuf b;
	char path[1024];
	size_t i, n = r->web->status ? mw_status_count(r->web->status) : 0;
	int64_t live = 60000;
	long series;
	double db;

	st = calloc(n ? n : 1, sizeof(*st));
	if (!st)
		return NULL;
	for (i = 0; i < n; i++) {
		mw_status_get(r->web->status, i, &st[i]);
		st[i].name[sizeof(st[i].name) - 1] = '\0';
		if (st[i].interval_ms * 3 > live)
			live = st[i].interval_ms * 3;
	}
	mw_jbuf_init(&b);
	series = stored_series(r, &b, live);

	mw_prom_family(&b, "memwatch_collector_up", "gauge",
		       "1 when the collector is enabled, supported and its last run succeeded.");
	for (i = 0; i < n; i++)
		mw_prom_sample(&b, "memwatch_collector_up", "collector", st[i].name,
			       st[i].enabled && st[i].supported && !st[i].failing);
	mw_prom_family(&b, "memwatch_collector_duration_seconds", "gauge",
		       "Time the collector's last run took.");
	for (i = 0; i < n; i++)
		mw_prom_sample(&b, "memwatch_collector_duration_seconds", "collector", st[i].name,
			       (double)st[i].last_duration_us / 1e6);
	mw_prom_family(&b, "memwatch_collector_runs_total", "counter", "Runs of the collector.");
	for (i = 0; i < n; i++)
		mw_prom_sample(&b, "memwatch_collector_runs_total", "collector", st[i].name,
			       (double)st[i].runs);
	mw_prom_family(&b, "memwatch_collector_samples_total", "counter",
		       "Samples the collector produced.");
	for (i = 0; i < n; i++)
		mw_prom_sample(&b, "memwatch_collector_samples_total", "collector", st[i].name,
			       (double)st[i].samples);
	mw_prom_family(&b, "memwatch_collector_errors_total", "counter", "Failed runs.");
	for (i = 0; i < n; i++)
		mw_prom_sample(&b, "memwatch_collector_errors_total", "collector", st[i].name,
			       (double)st[i].errors);
	mw_prom_family(&b, "memwatch_collector_skipped_ticks_total", "counter",
		       "Ticks skipped because the collector fell behind.");
	for (i = 0; i < n; i++)
		mw_prom_sample(&b, "memwatch_collector_skipped_ticks_total", "collector",
			       st[i].name, (double)st[i].skipped_ticks);

	mw_prom_family(&b, "memwatch_storage_up", "gauge", "1 when the database can be read.");
	mw_prom_sample(&b, "memwatch_storage_up", NULL, NULL, series >= 0);
	mw_prom_family(&b, "memwatch_storage_live_series", "gauge",
		       "Series with a value in the live window, exported above.");
	mw_prom_sample(&b, "memwatch_storage_live_series", NULL, NULL,
		       series >= 0 ? (double)series : NAN);
	snprintf(path, sizeof(path), "%s", mw_pool_path(r->web->pool));
	db = file_bytes(path);
	snprintf(path, sizeof(path), "%s-wal", mw_pool_path(r->web->pool));
	db += file_bytes(path);
	mw_prom_family(&b, "memwatch_storage_db_bytes", "gauge",
		       "Size of the database file and its write-ahead log.");
	mw_prom_sample(&b, "memwatch_storage_db_bytes", NULL, NULL, db);
	mw_query_stats_get(&qs);
	mw_prom_family(&b, "memwatch_storage_queries_total", "counter", "Read queries run.");
	mw_prom_sample(&b, "memwatch_storage_queries_total", NULL, NULL, (double)qs.queries);
	mw_prom_family(&b, "memwatch_storage_query_seconds_total", "counter",
		       "Time spent in read queries.");
	mw_prom_sample(&b, "memwatch_storage_query_seconds_total", NULL, NULL,
		       (double)qs.total_ns / 1e9);

	mw_prom_family(&b, "memwatch_web_requests_total", "counter",
		       "HTTP requests answered, by status code.");
	for (i = 0; i <= MW_WEB_NCODES; i++) {
		char code[16];

		snprintf(code, sizeof(code), "%u", i < MW_WEB_NCODES ? mw_web_codes[i] : 0);
		mw_prom_sample(&b, "memwatch_web_requests_total", "code",
			       i < MW_WEB_NCODES ? code : "other",
			       (double)atomic_load_explicit(&r->web->requests[i],
							    memory_order_relaxed));
	}
	{
		struct mw_storage_health h;

		/* From the writer itself, not from the stored self series: while
		 * the disk is full those cannot be written. */
		mw_status_get_storage(r->web->status, &h);
		if (h.known) {
			mw_prom_family(&b, "memwatch_storage_writer_up", "gauge",
				       "1 when the writer's last flush committed.");
			mw_prom_sample(&b, "memwatch_storage_writer_up", NULL, NULL, !h.failing);
			mw_prom_family(&b, "memwatch_storage_points_total", "counter",
				       "Points committed to the database.");
			mw_prom_sample(&b, "memwatch_storage_points_total", NULL, NULL,
				       (double)h.points_total);
			mw_prom_family(&b, "memwatch_storage_dropped_points_total", "counter",
				       "Points given up: queue full, or writes failing past the pending limit.");
			mw_prom_sample(&b, "memwatch_storage_dropped_points_total", NULL, NULL,
				       (double)h.dropped_points_total);
			mw_prom_family(&b, "memwatch_storage_pending_points", "gauge",
				       "Points accepted and not yet committed.");
			mw_prom_sample(&b, "memwatch_storage_pending_points", NULL, NULL,
				       (double)h.pending_points);
			mw_prom_family(&b, "memwatch_storage_flushes_total", "counter",
				       "Flushes attempted.");
			mw_prom_sample(&b, "memwatch_storage_flushes_total", NULL, NULL, (double)h.flushes);
			mw_prom_family(&b, "memwatch_storage_failed_flushes_total", "counter",
				       "Flushes the database refused (disk full, I/O error, locked).");
			mw_prom_sample(&b, "memwatch_storage_failed_flushes_total", NULL, NULL,
				       (double)h.failed_flushes);
			mw_prom_family(&b, "memwatch_storage_last_flush_timestamp_seconds", "gauge",
				       "When the last successful flush committed.");
			mw_prom_sample(&b, "memwatch_storage_last_flush_timestamp_seconds", NULL, NULL,
				       (double)h.last_ok_flush_ms / 1000);
		}
	}
	mw_prom_family(&b, "memwatch_web_slow_clients_closed_total", "counter",
		       "Connections closed because their request head took longer than "
		       "[web] header_timeout.");
	mw_prom_sample(&b, "memwatch_web_slow_clients_closed_total", NULL, NULL,
		       (double)mw_conn_guard_closed(r->web->guard));
	write_remote_write(r, &b);
	write_leak_gauges(r, &b);
	mw_prom_family(&b, "memwatch_uptime_seconds", "gauge", "Seconds since the daemon started.");
	mw_prom_sample(&b, "memwatch_uptime_seconds", NULL, NULL,
		       r->web->status ? (double)(r->now_ms - mw_status_started_ms(r->web->status)) / 1000
				      : 0);
	mw_prom_family(&b, "memwatch_build_info", "gauge", "Always 1; the version as a label.");
	mw_prom_sample(&b, "memwatch_build_info", "version", MW_VERSION, 1);
	free(st);
	{
		size_t len;
		char *p = mw_jbuf_detach(&b, &len);

		mw_jbuf_release(&b);
		return mw_reply_bytes(r, 200, "text/plain; version=0.0.4; charset=utf-8", p, len);
	}
}
