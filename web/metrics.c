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
 * metric family is written once, with HELP and TYPE from the metric
 * catalogue (core/metric_catalog.h), its samples together.
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
#include "base/heap_tune.h"
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
				mw_prom_family_named(b, family);
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
/* The background leak judgement's last verdicts, as the judge published
 * them (nothing before its first run). */
static void write_leak_gauges(struct mw_req *r, struct mw_jbuf *b)
{
	struct mw_leak_status s;
	struct mw_leak_gauge_sink sink = mw_prom_gauge_sink(b);

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
	size_t n = mw_status_rw_count(r->web->status), i;
	int k;
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
	/* the forwarder's families are consecutive in the catalogue */
	for (k = MW_M_REMOTE_WRITE_UP; k <= MW_M_REMOTE_WRITE_LAST_SENT_TIMESTAMP_SECONDS; k++) {
		const char *name = mw_prom_family_id(b, (enum mw_metric_id)k);

		for (i = 0; i < n; i++) {
			double v = 0;

			switch (k) {
			case MW_M_REMOTE_WRITE_UP: v = st[i].up; break;
			case MW_M_REMOTE_WRITE_LAG_SECONDS:
				v = (double)mw_rw_status_lag_ms(&st[i], r->now_ms) / 1000;
				break;
			case MW_M_REMOTE_WRITE_POINTS_SENT_TOTAL: v = (double)st[i].points_sent; break;
			case MW_M_REMOTE_WRITE_BATCHES_SENT_TOTAL: v = (double)st[i].batches_sent; break;
			case MW_M_REMOTE_WRITE_RETRIES_TOTAL: v = (double)st[i].retries; break;
			case MW_M_REMOTE_WRITE_BATCHES_SKIPPED_TOTAL:
				v = (double)st[i].batches_skipped;
				break;
			case MW_M_REMOTE_WRITE_POINTS_SKIPPED_TOTAL: v = (double)st[i].points_skipped; break;
			case MW_M_REMOTE_WRITE_PENDING_SERIES: v = (double)st[i].pending_series; break;
			default: v = (double)st[i].last_sent_ms / 1000; break;
			}
			mw_prom_sample(b, name, "destination", st[i].name, v);
		}
	}
	free(st);
}

/* One family with one unlabelled sample. */
static void write_one(struct mw_jbuf *b, enum mw_metric_id id, double v)
{
	mw_prom_sample(b, mw_prom_family_id(b, id), NULL, NULL, v);
}

/* The collectors' status: one family a figure, one sample a collector. */
static void write_collectors(struct mw_jbuf *b, const struct mw_collector_status *st, size_t n)
{
	size_t i;
	int k;

	/* the status table's families are consecutive in the catalogue */
	for (k = MW_M_COLLECTOR_UP; k <= MW_M_COLLECTOR_SKIPPED_TICKS_TOTAL; k++) {
		const char *name = mw_prom_family_id(b, (enum mw_metric_id)k);

		for (i = 0; i < n; i++) {
			double v;

			switch (k) {
			case MW_M_COLLECTOR_UP:
				v = st[i].enabled && st[i].supported && !st[i].failing;
				break;
			case MW_M_COLLECTOR_DURATION_SECONDS: v = (double)st[i].last_duration_us / 1e6; break;
			case MW_M_COLLECTOR_RUNS_TOTAL: v = (double)st[i].runs; break;
			case MW_M_COLLECTOR_SAMPLES_TOTAL: v = (double)st[i].samples; break;
			case MW_M_COLLECTOR_ERRORS_TOTAL: v = (double)st[i].errors; break;
			default: v = (double)st[i].skipped_ticks; break;
			}
			mw_prom_sample(b, name, "collector", st[i].name, v);
		}
	}
}

struct MHD_Response *mw_h_metrics(struct mw_req *r)
{
	struct mw_collector_status *st;
	struct mw_query_stats qs;
	struct mw_jbuf b;
	char path[1024];
	size_t i, n = r->web->status ? mw_status_count(r->web->status) : 0;
	int64_t live = 60000;
	const char *name;
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

	write_collectors(&b, st, n);

	write_one(&b, MW_M_STORAGE_UP, series >= 0);
	write_one(&b, MW_M_STORAGE_LIVE_SERIES, series >= 0 ? (double)series : NAN);
	snprintf(path, sizeof(path), "%s", mw_pool_path(r->web->pool));
	db = file_bytes(path);
	snprintf(path, sizeof(path), "%s-wal", mw_pool_path(r->web->pool));
	db += file_bytes(path);
	write_one(&b, MW_M_STORAGE_DB_BYTES, db);
	mw_query_stats_get(&qs);
	write_one(&b, MW_M_STORAGE_QUERIES_TOTAL, (double)qs.queries);
	write_one(&b, MW_M_STORAGE_QUERY_SECONDS_TOTAL, (double)qs.total_ns / 1e9);

	name = mw_prom_family_id(&b, MW_M_WEB_REQUESTS_TOTAL);
	for (i = 0; i <= MW_WEB_NCODES; i++) {
		char code[16];

		snprintf(code, sizeof(code), "%u", i < MW_WEB_NCODES ? mw_web_codes[i] : 0);
		mw_prom_sample(&b, name, "code",
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
			write_one(&b, MW_M_STORAGE_WRITER_UP, !h.failing);
			write_one(&b, MW_M_STORAGE_POINTS_TOTAL, (double)h.points_total);
			write_one(&b, MW_M_STORAGE_DROPPED_POINTS_TOTAL, (double)h.dropped_points_total);
			write_one(&b, MW_M_STORAGE_PENDING_POINTS, (double)h.pending_points);
			write_one(&b, MW_M_STORAGE_FLUSHES_TOTAL, (double)h.flushes);
			write_one(&b, MW_M_STORAGE_FAILED_FLUSHES_TOTAL, (double)h.failed_flushes);
			write_one(&b, MW_M_STORAGE_LAST_FLUSH_TIMESTAMP_SECONDS,
				  (double)h.last_ok_flush_ms / 1000);
			write_one(&b, MW_M_STORAGE_SIZE_CUT_POINTS_TOTAL, (double)h.size_cut.points);
			write_one(&b, MW_M_STORAGE_SIZE_CUT_CHUNKS_TOTAL, (double)h.size_cut.chunks);
			write_one(&b, MW_M_STORAGE_SIZE_CUT_ROLLUP_ROWS_TOTAL,
				  (double)h.size_cut.rollup_rows);
			write_one(&b, MW_M_STORAGE_SIZE_CUT_REGION_SNAPSHOTS_TOTAL,
				  (double)h.size_cut.region_snapshots);
			write_one(&b, MW_M_STORAGE_SIZE_CUT_SERIES_TOTAL, (double)h.size_cut.series);
			write_one(&b, MW_M_STORAGE_SIZE_CUT_BYTES_TOTAL, (double)h.size_cut.bytes);
		}
	}
	write_one(&b, MW_M_WEB_SLOW_CLIENTS_CLOSED_TOTAL,
		  (double)mw_conn_guard_closed(r->web->guard));
	write_remote_write(r, &b);
	write_leak_gauges(r, &b);
	write_one(&b, MW_M_UPTIME_SECONDS,
		  r->web->status ? (double)(r->now_ms - mw_status_started_ms(r->web->status)) / 1000
				 : 0);
	mw_prom_sample(&b, mw_prom_family_id(&b, MW_M_BUILD_INFO), "version", MW_VERSION, 1);
	free(st);
	{
		size_t len;
		char *p = mw_jbuf_detach(&b, &len);

		mw_jbuf_release(&b);
		/* The stored series' read and the rebuilt text are megabytes at
		 * a thousand processes, freed by now: hand them back, or every
		 * scrape leaves its high-water mark resident. */
		mw_heap_release();
		return mw_reply_bytes(r, 200, "text/plain; version=0.0.4; charset=utf-8", p, len);
	}
}
