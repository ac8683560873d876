/*
 * scheduler.c - see scheduler.h.
 */
#include "scheduler.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "core/watch.h"
#include "base/log.h"
#include "base/stop.h"
#include "base/xalloc.h"
#include "core/metric_catalog.h"

#define NS_PER_MS 1000000LL
#define BACKOFF_CAP_NS (300LL * 1000 * NS_PER_MS)

int64_t mw_schedule_next(int64_t due_ns, int64_t interval_ns, int64_t now_ns, uint64_t *skipped)
{
	int64_t next = due_ns + interval_ns;

	if (next <= now_ns) {
		/* Behind: skip the ticks that are already past instead of
		 * running them back to back. */
		int64_t missed = (now_ns - next) / interval_ns + 1;
		*skipped += (uint64_t)missed;
		next += missed * interval_ns;
	}
	return next;
}

static int64_t floor_ms(int64_t ns)
{
	return ns / NS_PER_MS - (ns % NS_PER_MS < 0);
}

int64_t mw_tick_stamp(struct mw_tick_clock *c, int64_t due_ns, int64_t interval_ns,
		      int64_t now_ns, int64_t now_wall_ms)
{
	int64_t tol = MW_TICK_TOLERANCE_NS, off = now_wall_ms - floor_ms(now_ns), late;

	if (interval_ns > 0 && interval_ns / 20 < tol)
		tol = interval_ns / 20;
	/* The offset wobbles by the clocks' 1 ms granularity: keep the one we
	 * have unless the wall clock stepped. */
	if (!c->valid || off - c->offset_ms > tol / NS_PER_MS + 1 ||
	    c->offset_ms - off > tol / NS_PER_MS + 1) {
		c->offset_ms = off;
		c->valid = true;
	}
	late = now_ns - due_ns;
	if (late < 0 || late > tol)
		return now_wall_ms;
	return floor_ms(due_ns) + c->offset_ms;
}

int64_t mw_schedule_backoff(int64_t interval_ns, unsigned failures)
{
	int64_t delay = interval_ns;
	int64_t cap = interval_ns > BACKOFF_CAP_NS ? interval_ns : BACKOFF_CAP_NS;
	unsigned i;

	for (i = 1; i < failures && delay < cap; i++)
		delay *= 2;
	return delay < cap ? delay : cap;
}

int mw_scheduler_init(struct mw_scheduler *s, const struct mw_config *cfg,
		      struct mw_status_table *status, struct mw_err *err)
{
	int64_t now = mw_clock_mono_ns();
	size_t i;

	memset(s, 0, sizeof(*s));
	s->cfg = cfg;
	s->status = status;
	s->nitems = cfg->ncollectors;
	s->items = mw_xcalloc(s->nitems ? s->nitems : 1, sizeof(*s->items));
	/* The entries, unresolved until a detail collector runs. */
	s->watch = mw_xcalloc(1, sizeof(*s->watch));
	s->watch->entries_total = cfg->nwatch;
	s->watch->nentries = cfg->nwatch < MW_WATCH_STATUS_ENTRIES ? cfg->nwatch
								    : MW_WATCH_STATUS_ENTRIES;
	for (i = 0; i < s->watch->nentries; i++)
		snprintf(s->watch->e[i].entry, sizeof(s->watch->e[i].entry), "%s", cfg->watch[i]);
	s->watch_logged = mw_xcalloc(MW_WATCH_STATUS_ENTRIES, sizeof(*s->watch_logged));
	mw_status_set_watch(status, s->watch);
	for (i = 0; i < s->nitems; i++) {
		struct mw_scheduled *it = &s->items[i];
		const struct mw_collector_config *cc = &cfg->collectors[i];
		struct mw_collector_env env = { cfg, cc };
		struct mw_err why = { "" };
		int rc;

		it->collector = cc->collector;
		it->cc = cc;
		it->interval_ns = mw_config_interval(cfg, cc) * NS_PER_MS;
		it->next_due_ns = now;
		snprintf(it->status.name, sizeof(it->status.name), "%s", it->collector->name);
		it->status.enabled = cc->enabled;
		it->status.interval_ms = mw_config_interval(cfg, cc);
		if (!cc->enabled) {
			snprintf(it->status.reason, sizeof(it->status.reason), "disabled in config");
			mw_status_set(status, i, &it->status);
			continue;
		}
		rc = it->collector->init(&it->state, &env, &why);
		if (rc == MW_COLLECTOR_ERROR) {
			mw_error(err, "collector '%s': %s", it->collector->name, why.msg);
			s->nitems = i;	/* fini only what was initialised */
			mw_scheduler_release(s);
			return -1;
		}
		if (rc == MW_COLLECTOR_UNSUPPORTED) {
			it->state = NULL;
			snprintf(it->status.reason, sizeof(it->status.reason), "%s", why.msg);
			mw_log_warn("%s: unsupported here: %s", it->collector->name, why.msg);
		} else {
			it->active = true;
			it->status.supported = true;
		}
		mw_status_set(status, i, &it->status);
	}
	return 0;
}

void mw_scheduler_release(struct mw_scheduler *s)
{
	size_t i;

	for (i = 0; i < s->nitems; i++)
		if (s->items[i].active && s->items[i].collector->fini)
			s->items[i].collector->fini(s->items[i].state);
	free(s->items);
	free(s->watch);
	free(s->watch_logged);
	memset(s, 0, sizeof(*s));
}

/* Describe the collector's own cost as series, so a user can chart what
 * memwatch spends (the /metrics endpoint reads the status table instead). */
static void add_self_metrics(struct mw_batch *b, const struct mw_scheduled *it, int64_t ts)
{
	struct mw_label l = { "collector", it->collector->name };

	mw_batch_add(b, mw_metric_name(MW_M_COLLECTOR_DURATION_SECONDS), &l, 1,
		     (double)it->status.last_duration_us / 1e6, ts);
	mw_batch_add(b, mw_metric_name(MW_M_COLLECTOR_ERRORS_TOTAL), &l, 1, (double)it->status.errors, ts);
	mw_batch_add(b, mw_metric_name(MW_M_COLLECTOR_SKIPPED_TICKS_TOTAL), &l, 1,
		     (double)it->status.skipped_ticks, ts);
}

/* What the watch list selects now, from a collector that resolved it: to
 * the status table, and a log line for an entry that matches nothing (once,
 * and again only after it matched something in between). */
static void report_watch(struct mw_scheduler *s, const struct mw_sample_ctx *ctx)
{
	bool announce[MW_WATCH_STATUS_ENTRIES];
	struct mw_watch_status *w = s->watch;
	size_t i;

	mw_watch_report(ctx->watch, ctx->watched, ctx->ts_ms, w);
	for (i = 0; i < w->nentries; i++)
		if (s->watch_logged[i] && w->e[i].matched_total)
			mw_log_info("watch: '%s' matches %zu process%s now (pid %" PRIu32 ", %s)",
				    w->e[i].entry, w->e[i].matched_total,
				    w->e[i].matched_total == 1 ? "" : "es", w->e[i].matched[0].pid,
				    w->e[i].matched[0].process);
	if (mw_watch_unmatched_news(w, s->watch_logged, announce))
		for (i = 0; i < w->nentries; i++)
			if (announce[i])
				mw_log_warn("watch: '%s' matches no process (logged again only after "
					    "it matched one)", w->e[i].entry);
	mw_status_set_watch(s->status, w);
}

int mw_scheduler_sample_one(struct mw_scheduler *s, size_t i, struct mw_batch *batch)
{
	struct mw_scheduled *it = &s->items[i];
	struct mw_sample_ctx ctx;
	size_t before = batch->nsamples;
	int64_t t0, t1;
	int rc;

	memset(&ctx, 0, sizeof(ctx));
	ctx.batch = batch;
	t0 = mw_clock_mono_ns();
	ctx.ts_ms = mw_tick_stamp(&s->clock, it->next_due_ns, it->interval_ns, t0,
				  mw_clock_wall_ms());
	batch->collector = it->collector->name;
	rc = it->collector->sample(it->state, &ctx);
	t1 = mw_clock_mono_ns();
	batch->collector = NULL;

	it->status.runs++;
	it->status.last_run_ms = ctx.ts_ms;
	it->status.last_duration_us = (t1 - t0) / 1000;
	it->status.samples += batch->nsamples - before;
	it->status.inaccessible = ctx.inaccessible;
	it->status.inaccessible_total += ctx.inaccessible;
	if (ctx.mode[0])
		snprintf(it->status.mode, sizeof(it->status.mode), "%s", ctx.mode);
	if (rc != MW_COLLECTOR_OK) {
		it->status.errors++;
		snprintf(it->status.last_error, sizeof(it->status.last_error), "%s",
			 ctx.err.msg[0] ? ctx.err.msg : "failed without a message");
		it->failures++;
		/* Log the first failure of a run of failures, not every one. */
		if (!it->status.failing)
			mw_log_error("%s: %s (backing off; logged again when it recovers)",
				     it->collector->name, it->status.last_error);
		it->status.failing = true;
	} else {
		if (it->status.failing)
			mw_log_info("%s: recovered after %u failed attempts", it->collector->name,
				    it->failures);
		it->status.failing = false;
		it->failures = 0;
	}
	if (rc == MW_COLLECTOR_OK && ctx.watch && ctx.watched)
		report_watch(s, &ctx);
	add_self_metrics(batch, it, ctx.ts_ms);
	mw_status_set(s->status, i, &it->status);
	return rc;
}

void mw_scheduler_loop(struct mw_scheduler *s, mw_emit_fn emit, void *arg)
{
	while (!mw_stop_requested()) {
		struct mw_batch *batch = NULL;
		int64_t now = mw_clock_mono_ns(), wake = INT64_MAX;
		size_t i;

		for (i = 0; i < s->nitems; i++) {
			struct mw_scheduled *it = &s->items[i];
			int rc;

			if (!it->active || it->next_due_ns > now)
				continue;
			if (!batch)
				batch = mw_batch_new();
			rc = mw_scheduler_sample_one(s, i, batch);
			now = mw_clock_mono_ns();
			if (rc == MW_COLLECTOR_OK) {
				uint64_t skipped = 0;
				it->next_due_ns = mw_schedule_next(it->next_due_ns, it->interval_ns,
								   now, &skipped);
				if (skipped) {
					it->status.skipped_ticks += skipped;
					mw_status_set(s->status, i, &it->status);
				}
			} else {
				it->next_due_ns = now + mw_schedule_backoff(it->interval_ns, it->failures);
			}
		}
		if (batch) {
			if (batch->nsamples || batch->ndetails)
				emit(arg, batch);
			else
				mw_batch_free(batch);
		}
		for (i = 0; i < s->nitems; i++)
			if (s->items[i].active && s->items[i].next_due_ns < wake)
				wake = s->items[i].next_due_ns;
		if (wake == INT64_MAX) {
			mw_stop_wait(1000);	/* nothing to run: idle until stopped */
			continue;
		}
		now = mw_clock_mono_ns();
		if (wake > now)
			/* Round up so we never wake a hair early and spin. */
			mw_stop_wait((wake - now + NS_PER_MS - 1) / NS_PER_MS);
	}
}
