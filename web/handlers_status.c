/*
 * handlers_status.c - /healthz, /api/v1/collectors and
 * /api/v1/remote_write: small structured bodies, built with cJSON.  None
 * touches storage, so all answer even while the database is unavailable.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/clock.h"
#include "web_internal.h"

#ifndef MW_VERSION
#define MW_VERSION "dev"
#endif

/* cJSON's own allocation failure is our out-of-memory: NULL here is rare,
 * and answered with a 500 by the server rather than a crash. */
static struct MHD_Response *reply_cjson(struct mw_req *r, cJSON *root)
{
	char *text;
	size_t len;
	char *copy;

	if (!root)
		return NULL;
	text = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	if (!text)
		return NULL;
	/* cJSON may use its own allocator; hand MHD a malloc'd copy. */
	len = strlen(text);
	copy = malloc(len + 1);
	if (copy) {
		memcpy(copy, text, len);
		copy[len] = '\n';
	}
	cJSON_free(text);
	if (!copy)
		return NULL;
	return mw_reply_bytes(r, 200, "application/json", copy, len + 1);
}

/* A time in ms, or null when it never happened (0). */
static void add_ms_or_null(cJSON *o, const char *key, int64_t ms)
{
	if (ms)
		cJSON_AddNumberToObject(o, key, (double)ms);
	else
		cJSON_AddNullToObject(o, key);
}

/* A message, or null when there is none (""). */
static void add_text_or_null(cJSON *o, const char *key, const char *text)
{
	if (text[0])
		cJSON_AddStringToObject(o, key, text);
	else
		cJSON_AddNullToObject(o, key);
}

struct MHD_Response *mw_h_healthz(struct mw_req *r)
{
	cJSON *o = cJSON_CreateObject(), *s;
	int64_t started = r->web->status ? mw_status_started_ms(r->web->status) : r->now_ms;
	struct mw_storage_health h;

	mw_status_get_storage(r->web->status, &h);
	h.last_error[sizeof(h.last_error) - 1] = '\0';
	/* "degraded" while the writer cannot commit: samples pile up in memory
	 * (and are dropped past [storage] limits) - a monitor must see it. */
	cJSON_AddStringToObject(o, "status", h.failing ? "degraded" : "ok");
	cJSON_AddStringToObject(o, "version", MW_VERSION);
	cJSON_AddNumberToObject(o, "uptime_s", (double)((r->now_ms - started) / 1000));
	if (h.known) {
		s = cJSON_AddObjectToObject(o, "storage");
		cJSON_AddStringToObject(s, "writer", h.failing ? "failing" : "ok");
		add_ms_or_null(s, "last_flush_ms", h.last_ok_flush_ms);
		cJSON_AddNumberToObject(s, "failed_flushes", (double)h.failed_flushes);
		cJSON_AddNumberToObject(s, "dropped_points", (double)h.dropped_points_total);
		cJSON_AddNumberToObject(s, "pending_points", (double)h.pending_points);
		if (h.failing)
			cJSON_AddStringToObject(s, "error", h.last_error);
		else
			cJSON_AddNullToObject(s, "error");
	}
	return reply_cjson(r, o);
}

/* "watch": each entry of the watch list with the processes it selects, as
 * the detail collectors last resolved it, and the entries selecting none
 * ("unmatched" stays empty until a first resolution: checked_ms null). */
static void add_watch(cJSON *root, struct mw_status_table *status)
{
	struct mw_watch_status *w = malloc(sizeof(*w));
	cJSON *o = cJSON_AddObjectToObject(root, "watch"), *entries, *unmatched;
	size_t i, k;

	if (!o)
		return;
	entries = cJSON_AddArrayToObject(o, "entries");
	unmatched = cJSON_AddArrayToObject(o, "unmatched");
	if (!w || !entries || !unmatched) {
		free(w);
		return;
	}
	mw_status_get_watch(status, w);
	add_ms_or_null(o, "checked_ms", w->checked_ms);
	cJSON_AddNumberToObject(o, "entries_total", (double)w->entries_total);
	for (i = 0; i < w->nentries && i < MW_WATCH_STATUS_ENTRIES; i++) {
		struct mw_watch_status_entry *e = &w->e[i];
		cJSON *c = cJSON_CreateObject(), *m;

		if (!c)
			break;
		e->entry[sizeof(e->entry) - 1] = '\0';
		cJSON_AddStringToObject(c, "entry", e->entry);
		m = cJSON_AddArrayToObject(c, "matched");
		for (k = 0; m && k < e->nmatched && k < MW_WATCH_STATUS_MATCHES; k++) {
			cJSON *p = cJSON_CreateObject();

			if (!p)
				break;
			e->matched[k].process[sizeof(e->matched[k].process) - 1] = '\0';
			cJSON_AddNumberToObject(p, "pid", (double)e->matched[k].pid);
			cJSON_AddStringToObject(p, "process", e->matched[k].process);
			cJSON_AddItemToArray(m, p);
		}
		cJSON_AddNumberToObject(c, "matched_total", (double)e->matched_total);
		cJSON_AddItemToArray(entries, c);
		if (w->checked_ms && !e->matched_total)
			cJSON_AddItemToArray(unmatched, cJSON_CreateString(e->entry));
	}
	free(w);
}

/* "remote_write": one object per [remote_write.NAME] destination, as its
 * forwarder last published it (forward/forwarder.h). */
static void add_remote_write(cJSON *root, struct mw_status_table *status, int64_t now_ms)
{
	cJSON *arr = cJSON_AddArrayToObject(root, "remote_write");
	size_t i, n = mw_status_rw_count(status);
	struct mw_rw_status st;

	for (i = 0; arr && i < n; i++) {
		cJSON *c = cJSON_CreateObject();

		if (!c)
			break;
		mw_status_rw_get(status, i, &st);
		st.name[sizeof(st.name) - 1] = '\0';
		st.url[sizeof(st.url) - 1] = '\0';
		st.last_error[sizeof(st.last_error) - 1] = '\0';
		cJSON_AddStringToObject(c, "name", st.name);
		cJSON_AddStringToObject(c, "url", st.url);
		cJSON_AddBoolToObject(c, "up", st.up);
		cJSON_AddBoolToObject(c, "caught_up", st.caught_up);
		cJSON_AddNumberToObject(c, "lag_seconds",
					(double)mw_rw_status_lag_ms(&st, now_ms) / 1000);
		add_ms_or_null(c, "oldest_unsent_ms", st.oldest_unsent_ms);
		cJSON_AddNumberToObject(c, "pending_series", (double)st.pending_series);
		cJSON_AddNumberToObject(c, "points_sent", (double)st.points_sent);
		cJSON_AddNumberToObject(c, "batches_sent", (double)st.batches_sent);
		cJSON_AddNumberToObject(c, "retries", (double)st.retries);
		cJSON_AddNumberToObject(c, "batches_skipped", (double)st.batches_skipped);
		cJSON_AddNumberToObject(c, "points_skipped", (double)st.points_skipped);
		add_ms_or_null(c, "last_sent_ms", st.last_sent_ms);
		cJSON_AddNumberToObject(c, "last_status", st.last_status);
		if (st.last_error[0]) {
			cJSON_AddStringToObject(c, "last_error", st.last_error);
			cJSON_AddNumberToObject(c, "last_error_ms", (double)st.last_error_ms);
			cJSON_AddNumberToObject(c, "last_error_age_seconds",
						(double)(now_ms - st.last_error_ms) / 1000);
		} else {
			cJSON_AddNullToObject(c, "last_error");
		}
		cJSON_AddItemToArray(arr, c);
	}
}

struct MHD_Response *mw_h_remote_write(struct mw_req *r)
{
	cJSON *root = cJSON_CreateObject();

	if (root)
		add_remote_write(root, r->web->status, r->now_ms);
	return reply_cjson(r, root);
}

struct MHD_Response *mw_h_collectors(struct mw_req *r)
{
	cJSON *root = cJSON_CreateObject();
	cJSON *arr = cJSON_AddArrayToObject(root, "collectors");
	struct mw_collector_status st;
	size_t i, n = r->web->status ? mw_status_count(r->web->status) : 0;

	for (i = 0; i < n; i++) {
		cJSON *c = cJSON_CreateObject();

		mw_status_get(r->web->status, i, &st);
		st.name[sizeof(st.name) - 1] = '\0';
		st.reason[sizeof(st.reason) - 1] = '\0';
		st.mode[sizeof(st.mode) - 1] = '\0';
		st.last_error[sizeof(st.last_error) - 1] = '\0';
		cJSON_AddStringToObject(c, "name", st.name);
		cJSON_AddBoolToObject(c, "enabled", st.enabled);
		cJSON_AddBoolToObject(c, "supported", st.supported);
		if (st.supported)
			cJSON_AddNullToObject(c, "reason");
		else
			cJSON_AddStringToObject(c, "reason", st.reason);
		cJSON_AddStringToObject(c, "mode", st.mode);
		cJSON_AddNumberToObject(c, "interval_ms", (double)st.interval_ms);
		cJSON_AddNumberToObject(c, "last_duration_us", (double)st.last_duration_us);
		cJSON_AddNumberToObject(c, "last_run_ms", (double)st.last_run_ms);
		cJSON_AddNumberToObject(c, "samples", (double)st.samples);
		cJSON_AddNumberToObject(c, "runs", (double)st.runs);
		cJSON_AddNumberToObject(c, "errors", (double)st.errors);
		add_text_or_null(c, "last_error", st.last_error);
		cJSON_AddNumberToObject(c, "skipped_ticks", (double)st.skipped_ticks);
		cJSON_AddNumberToObject(c, "inaccessible", (double)st.inaccessible);
		cJSON_AddBoolToObject(c, "failing", st.failing);
		cJSON_AddItemToArray(arr, c);
	}
	add_watch(root, r->web->status);
	add_remote_write(root, r->web->status, r->now_ms);
	return reply_cjson(r, root);
}
