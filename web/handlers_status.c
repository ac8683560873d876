/*
 * handlers_status.c - /healthz, /api/v1/collectors and
 * /api/v1/remote_write: small structured bodies, written with json_out's
 * structure writer.  None touches storage, so all answer even while the
 * database is unavailable.
 */
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/json_out.h"
#include "base/xalloc.h"
#include "web_internal.h"

#ifndef MW_VERSION
#define MW_VERSION "dev"
#endif

/* The document w holds, closed, as the answer. */
static struct MHD_Response *reply_doc(struct mw_req *r, struct mw_jw *w)
{
	struct MHD_Response *resp;

	mw_jw_end(w);
	mw_j_char(w->b, '\n');
	resp = mw_reply_json(r, 200, w->b);
	mw_jbuf_release(w->b);
	return resp;
}

/* A time in ms, or null when it never happened (0). */
static void add_ms_or_null(struct mw_jw *w, const char *key, int64_t ms)
{
	if (ms)
		mw_jw_int(w, key, ms);
	else
		mw_jw_null(w, key);
}

struct MHD_Response *mw_h_healthz(struct mw_req *r)
{
	int64_t started = r->web->status ? mw_status_started_ms(r->web->status) : r->now_ms;
	struct mw_storage_health h;
	struct mw_jbuf b;
	struct mw_jw w;

	mw_status_get_storage(r->web->status, &h);
	h.last_error[sizeof(h.last_error) - 1] = '\0';
	mw_jbuf_init(&b);
	mw_jw_init(&w, &b);
	mw_jw_object(&w, NULL);
	/* "degraded" while the writer cannot commit: samples pile up in memory
	 * (and are dropped past [storage] limits) - a monitor must see it. */
	mw_jw_str(&w, "status", h.failing ? "degraded" : "ok");
	mw_jw_str(&w, "version", MW_VERSION);
	mw_jw_int(&w, "uptime_s", (r->now_ms - started) / 1000);
	if (h.known) {
		mw_jw_object(&w, "storage");
		mw_jw_str(&w, "writer", h.failing ? "failing" : "ok");
		add_ms_or_null(&w, "last_flush_ms", h.last_ok_flush_ms);
		mw_jw_uint(&w, "failed_flushes", h.failed_flushes);
		mw_jw_uint(&w, "dropped_points", h.dropped_points_total);
		mw_jw_uint(&w, "pending_points", h.pending_points);
		mw_jw_str(&w, "error", h.failing ? h.last_error : NULL);
		mw_jw_end(&w);
	}
	return reply_doc(r, &w);
}

/* "watch": each entry of the watch list with the processes it selects, as
 * the detail collectors last resolved it, and the entries selecting none
 * ("unmatched" stays empty until a first resolution: checked_ms null). */
static void add_watch(struct mw_jw *w, struct mw_status_table *status)
{
	struct mw_watch_status *ws = mw_xmalloc(sizeof(*ws));
	size_t i, k, n;

	mw_status_get_watch(status, ws);
	n = ws->nentries < MW_WATCH_STATUS_ENTRIES ? ws->nentries : MW_WATCH_STATUS_ENTRIES;
	mw_jw_object(w, "watch");
	mw_jw_array(w, "entries");
	for (i = 0; i < n; i++) {
		struct mw_watch_status_entry *e = &ws->e[i];

		e->entry[sizeof(e->entry) - 1] = '\0';
		mw_jw_object(w, NULL);
		mw_jw_str(w, "entry", e->entry);
		mw_jw_array(w, "matched");
		for (k = 0; k < e->nmatched && k < MW_WATCH_STATUS_MATCHES; k++) {
			e->matched[k].process[sizeof(e->matched[k].process) - 1] = '\0';
			mw_jw_object(w, NULL);
			mw_jw_int(w, "pid", e->matched[k].pid);
			mw_jw_str(w, "process", e->matched[k].process);
			mw_jw_end(w);
		}
		mw_jw_end(w);
		mw_jw_uint(w, "matched_total", e->matched_total);
		mw_jw_end(w);
	}
	mw_jw_end(w);
	mw_jw_array(w, "unmatched");
	for (i = 0; i < n; i++)
		if (ws->checked_ms && !ws->e[i].matched_total)
			mw_jw_str(w, NULL, ws->e[i].entry);
	mw_jw_end(w);
	add_ms_or_null(w, "checked_ms", ws->checked_ms);
	mw_jw_uint(w, "entries_total", ws->entries_total);
	mw_jw_end(w);
	free(ws);
}

/* "remote_write": one object per [remote_write.NAME] destination, as its
 * forwarder last published it (forward/forwarder.h). */
static void add_remote_write(struct mw_jw *w, struct mw_status_table *status, int64_t now_ms)
{
	size_t i, n = mw_status_rw_count(status);
	struct mw_rw_status st;

	mw_jw_array(w, "remote_write");
	for (i = 0; i < n; i++) {
		mw_status_rw_get(status, i, &st);
		st.name[sizeof(st.name) - 1] = '\0';
		st.url[sizeof(st.url) - 1] = '\0';
		st.last_error[sizeof(st.last_error) - 1] = '\0';
		mw_jw_object(w, NULL);
		mw_jw_str(w, "name", st.name);
		mw_jw_str(w, "url", st.url);
		mw_jw_bool(w, "up", st.up);
		mw_jw_bool(w, "caught_up", st.caught_up);
		mw_jw_double(w, "lag_seconds", (double)mw_rw_status_lag_ms(&st, now_ms) / 1000);
		add_ms_or_null(w, "oldest_unsent_ms", st.oldest_unsent_ms);
		mw_jw_uint(w, "pending_series", st.pending_series);
		/* stamped after the present (a clock step): wait for their time */
		mw_jw_uint(w, "future_series", st.future_series);
		mw_jw_uint(w, "points_sent", st.points_sent);
		mw_jw_uint(w, "batches_sent", st.batches_sent);
		mw_jw_uint(w, "retries", st.retries);
		mw_jw_uint(w, "batches_skipped", st.batches_skipped);
		mw_jw_uint(w, "points_skipped", st.points_skipped);
		add_ms_or_null(w, "last_sent_ms", st.last_sent_ms);
		mw_jw_int(w, "last_status", st.last_status);
		if (st.last_error[0]) {
			mw_jw_str(w, "last_error", st.last_error);
			mw_jw_int(w, "last_error_ms", st.last_error_ms);
			mw_jw_double(w, "last_error_age_seconds",
				     (double)(now_ms - st.last_error_ms) / 1000);
		} else {
			mw_jw_null(w, "last_error");
		}
		mw_jw_end(w);
	}
	mw_jw_end(w);
}

/* A document of one object, begun. */
static void begin_doc(struct mw_jw *w, struct mw_jbuf *b)
{
	mw_jbuf_init(b);
	mw_jw_init(w, b);
	mw_jw_object(w, NULL);
}

struct MHD_Response *mw_h_remote_write(struct mw_req *r)
{
	struct mw_jbuf b;
	struct mw_jw w;

	begin_doc(&w, &b);
	add_remote_write(&w, r->web->status, r->now_ms);
	return reply_doc(r, &w);
}

struct MHD_Response *mw_h_collectors(struct mw_req *r)
{
	struct mw_collector_status st;
	size_t i, n = r->web->status ? mw_status_count(r->web->status) : 0;
	struct mw_jbuf b;
	struct mw_jw w;

	begin_doc(&w, &b);
	mw_jw_array(&w, "collectors");
	for (i = 0; i < n; i++) {
		mw_status_get(r->web->status, i, &st);
		st.name[sizeof(st.name) - 1] = '\0';
		st.reason[sizeof(st.reason) - 1] = '\0';
		st.mode[sizeof(st.mode) - 1] = '\0';
		st.last_error[sizeof(st.last_error) - 1] = '\0';
		mw_jw_object(&w, NULL);
		mw_jw_str(&w, "name", st.name);
		mw_jw_bool(&w, "enabled", st.enabled);
		mw_jw_bool(&w, "supported", st.supported);
		mw_jw_str(&w, "reason", st.supported ? NULL : st.reason);
		mw_jw_str(&w, "mode", st.mode);
		mw_jw_int(&w, "interval_ms", st.interval_ms);
		mw_jw_int(&w, "last_duration_us", st.last_duration_us);
		mw_jw_int(&w, "last_run_ms", st.last_run_ms);
		mw_jw_uint(&w, "samples", st.samples);
		mw_jw_uint(&w, "runs", st.runs);
		mw_jw_uint(&w, "errors", st.errors);
		mw_jw_str(&w, "last_error", st.last_error[0] ? st.last_error : NULL);
		mw_jw_uint(&w, "skipped_ticks", st.skipped_ticks);
		mw_jw_uint(&w, "inaccessible", st.inaccessible);
		mw_jw_bool(&w, "failing", st.failing);
		mw_jw_end(&w);
	}
	mw_jw_end(&w);
	add_watch(&w, r->web->status);
	add_remote_write(&w, r->web->status, r->now_ms);
	return reply_doc(r, &w);
}
