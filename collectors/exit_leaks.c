/*
 * exit_leaks.c - the exit_leaks collector (portable part, exit_leaks.h):
 * [exit_leaks] into the platform hook's options, each delivered report
 * into a MW_EXIT_REPORT_DETAIL record (mw_exit_report_encode) for the
 * writer (storage/exit_reports.c), and the gauges of the last report of
 * every image seen since start (memwatch_exit_leak_*), written when a
 * report arrives and every GAUGE_EVERY_MS, so /metrics keeps them while
 * the daemon runs.
 */
#include "exit_leaks.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/xalloc.h"
#include "core/collector.h"
#include "core/metric_catalog.h"

/* Images whose last report is exported; beyond, the oldest is forgotten
 * (bounded cardinality whatever names the report files carry). */
#define LAST_MAX 256
/* The gauges are written again this often (and when a report arrives):
 * /metrics shows a series sampled within the last minute at least, and a
 * gauge that changes once per run need not cost a point per tick. */
#define GAUGE_EVERY_MS 15000

struct last_report {
	char *process;
	uint64_t bytes, leaks;
	int64_t exited_ms;
};

struct xl_state {
	struct mw_exit_leaks_options o;
	void *os;
	bool active;		/* something is configured */
	struct last_report *last;
	size_t nlast;
	/* the tick being filled (deliver's context) */
	struct mw_sample_ctx *ctx;
	uint64_t delivered;
	int64_t gauges_ms;	/* when the gauges were last written */
	bool fresh;		/* a report arrived this tick */
};

char **mw_exit_leaks_split_images(const char *list, size_t *n)
{
	char **out = NULL;
	size_t cap = 0;

	*n = 0;
	while (list && *list) {
		size_t len = strcspn(list, ","), a = 0, b = len;

		while (a < b && (list[a] == ' ' || list[a] == '\t'))
			a++;
		while (b > a && (list[b - 1] == ' ' || list[b - 1] == '\t'))
			b--;
		if (b > a) {
			MW_GROW(out, cap, *n + 1);
			out[(*n)++] = mw_xstrndup(list + a, b - a);
		}
		list += len;
		if (*list)
			list++;
	}
	return out;
}

static void remember(struct xl_state *st, const struct mw_exit_report *r)
{
	size_t i, oldest = 0;
	struct last_report *l = NULL;

	for (i = 0; i < st->nlast; i++)
		if (!strcmp(st->last[i].process, r->process))
			l = &st->last[i];
	if (!l && st->nlast < LAST_MAX) {
		st->last = mw_xrealloc(st->last, (st->nlast + 1) * sizeof(*st->last));
		l = &st->last[st->nlast++];
		l->process = mw_xstrdup(r->process);
		l->exited_ms = INT64_MIN;
	} else if (!l) {
		for (i = 1; i < st->nlast; i++)
			if (st->last[i].exited_ms < st->last[oldest].exited_ms)
				oldest = i;
		l = &st->last[oldest];
		free(l->process);
		l->process = mw_xstrdup(r->process);
		l->exited_ms = INT64_MIN;
	}
	if (r->exited_ms < l->exited_ms)
		return;	/* an older run's report, found late */
	l->bytes = r->bytes;
	l->leaks = r->leaks;
	l->exited_ms = r->exited_ms;
}

static void deliver(void *arg, struct mw_exit_report *r)
{
	struct xl_state *st = arg;
	struct mw_sample_ctx *ctx = st->ctx;
	char pid[24];
	struct mw_label l[2] = { { "pid", pid }, { "process", NULL } };
	void *enc;
	size_t len;

	if (!r->process || !*r->process) {
		free(r->process);
		r->process = mw_xstrdup("unknown");
	}
	if (!r->exited_ms)
		r->exited_ms = ctx->ts_ms;
	l[1].value = r->process;
	snprintf(pid, sizeof(pid), "%" PRId64, r->pid);
	enc = mw_exit_report_encode(r, &len);
	mw_batch_add_detail(ctx->batch, MW_EXIT_REPORT_DETAIL,
			    mw_metric_name(MW_M_EXIT_LEAK_BYTES), l, 2, ctx->ts_ms, enc, len);
	free(enc);
	mw_log_info("exit_leaks: %s pid %" PRId64 ": %" PRIu64 " byte(s) leaked in %" PRIu64
		    " allocation(s)%s", r->process, r->pid, r->bytes, r->leaks,
		    r->complete ? "" : " (report incomplete)");
	remember(st, r);
	st->delivered++;
	st->fresh = true;
	mw_exit_report_release(r);
}

static void options_release(struct mw_exit_leaks_options *o)
{
	size_t i;

	for (i = 0; i < o->nimages; i++)
		free(o->images[i]);
	free(o->images);
	free(o->lsan_dir);
	memset(o, 0, sizeof(*o));
}

static int xl_init(void **state, const struct mw_collector_env *env, struct mw_err *why)
{
	struct xl_state *st = mw_xcalloc(1, sizeof(*st));
	const struct mw_config *cfg = env->config;
	int rc;

	if (cfg) {
		st->o.images = mw_exit_leaks_split_images(cfg->exit_leaks_images, &st->o.nimages);
		if (cfg->exit_leaks_lsan_dir && *cfg->exit_leaks_lsan_dir)
			st->o.lsan_dir = mw_xstrdup(cfg->exit_leaks_lsan_dir);
		st->o.max_bytes = cfg->exit_leaks_max_bytes;
	}
	st->active = st->o.nimages || st->o.lsan_dir;
	if (st->active) {
		rc = mw_exit_leaks_os_init(&st->os, &st->o, why);
		if (rc) {
			options_release(&st->o);
			free(st);
			return rc > 0 ? MW_COLLECTOR_UNSUPPORTED : MW_COLLECTOR_ERROR;
		}
	}
	*state = st;
	return MW_COLLECTOR_OK;
}

static int xl_sample(void *state, struct mw_sample_ctx *ctx)
{
	struct xl_state *st = state;
	char os_says[160];
	size_t i;
	bool write;

	if (!st->active) {
		snprintf(ctx->mode, sizeof(ctx->mode), "off ([exit_leaks] images, lsan_dir unset)");
		return MW_COLLECTOR_OK;
	}
	st->ctx = ctx;
	mw_exit_leaks_os_poll(st->os, ctx->ts_ms, deliver, st);
	st->ctx = NULL;
	write = st->fresh || ctx->ts_ms - st->gauges_ms >= GAUGE_EVERY_MS ||
		ctx->ts_ms < st->gauges_ms;	/* the clock went back */
	if (write) {
		st->fresh = false;
		st->gauges_ms = ctx->ts_ms;
	}
	for (i = 0; write && i < st->nlast; i++) {
		struct mw_label l = { "process", st->last[i].process };

		mw_batch_add(ctx->batch, mw_metric_name(MW_M_EXIT_LEAK_BYTES), &l, 1,
			     (double)st->last[i].bytes, ctx->ts_ms);
		mw_batch_add(ctx->batch, mw_metric_name(MW_M_EXIT_LEAK_ALLOCATIONS), &l, 1,
			     (double)st->last[i].leaks, ctx->ts_ms);
		mw_batch_add(ctx->batch, mw_metric_name(MW_M_EXIT_LEAK_REPORT_TIMESTAMP_SECONDS), &l,
			     1, (double)st->last[i].exited_ms / 1000.0, ctx->ts_ms);
	}
	mw_exit_leaks_os_describe(st->os, os_says, sizeof(os_says));
	snprintf(ctx->mode, sizeof(ctx->mode), "%s%s%s; %" PRIu64 " report%s since start%s%s",
		 st->o.lsan_dir ? "lsan_dir" : "", st->o.lsan_dir && st->o.nimages ? ", " : "",
		 st->o.nimages ? "images" : "", st->delivered, st->delivered == 1 ? "" : "s",
		 os_says[0] ? "; " : "", os_says);
	return MW_COLLECTOR_OK;
}

static void xl_fini(void *state)
{
	struct xl_state *st = state;
	size_t i;

	if (!st)
		return;
	if (st->active)
		mw_exit_leaks_os_fini(st->os);
	for (i = 0; i < st->nlast; i++)
		free(st->last[i].process);
	free(st->last);
	options_release(&st->o);
	free(st);
}

const struct mw_collector mw_collector_exit_leaks = {
	.name = "exit_leaks",
	.summary = "Leak reports of process runs at exit ([exit_leaks]: ntdll's heap leak check\n"
		   "on Windows, LeakSanitizer report files on Linux), stored one per run.",
	.default_interval_ms = 2000,
	.default_enabled = true,
	.init = xl_init,
	.sample = xl_sample,
	.fini = xl_fini,
};
