/* leak_gauges.c - see leak_gauges.h. */
#include "leak_gauges.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/leak_report.h"
#include "collectors/watch.h"
#include "daemon/batch.h"
#include "daemon/clock.h"
#include "daemon/log.h"
#include "daemon/xalloc.h"
#include "metrics.h"
#include "storage/query.h"

struct mw_leak_gauges {
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool stopping;
	char *db_path;
	struct mw_leak_params params;
	int64_t window_ms, refresh_ms;
	double cpu_budget;
	size_t top;
	struct mw_watch watch;
	bool have_watch;
	/* Under lock: the text /metrics appends, and the run counters. */
	char *text;
	uint64_t runs, failures;
	double last_run_s, last_duration_s, pause_s;
};

int64_t mw_leak_gauges_pause_ms(int64_t refresh_ms, int64_t run_ms, double cpu_budget)
{
	double need;

	if (!(cpu_budget > 0) || run_ms <= 0)
		return refresh_ms;
	/* start to start >= run / budget, so the pause after the run is
	 * that less the run itself */
	need = (double)run_ms / cpu_budget - (double)run_ms;
	if (need > (double)INT64_MAX / 2)
		need = (double)INT64_MAX / 2;
	return need > (double)refresh_ms ? (int64_t)need : refresh_ms;
}

static void (*store_submit)(void *arg, struct mw_batch *b);
static void *store_arg;

void mw_leak_gauges_set_store(void (*submit)(void *arg, struct mw_batch *b), void *arg)
{
	store_submit = submit;
	store_arg = arg;
}

static double num_of(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static bool watched(struct mw_leak_gauges *g, const cJSON *group)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(group, "process");
	const cJSON *inc = cJSON_GetObjectItemCaseSensitive(group, "incarnations"), *i;

	if (!g->have_watch || !cJSON_IsString(p))
		return false;
	cJSON_ArrayForEach(i, inc) {
		const cJSON *pid = cJSON_GetObjectItemCaseSensitive(i, "pid");
		uint32_t n = cJSON_IsString(pid) ? (uint32_t)strtoul(pid->valuestring, NULL, 10) : 0;

		if (mw_watch_match(&g->watch, n, p->valuestring, mw_self_pid()))
			return true;
	}
	return false;
}

/* A gauge sample: into the exposition text and, when storing, the batch. */
static void gauge(struct mw_jbuf *b, struct mw_batch *batch, int64_t ts, const char *name,
		  const char *label, const char *value, double v)
{
	mw_prom_sample(b, name, label, value, v);
	if (batch) {
		struct mw_label l = { label, value };

		mw_batch_add(batch, name, &l, 1, v, ts);
	}
}

/* The exposition text of one report's selected groups (and the same
 * samples into batch when not NULL). */
static char *gauges_text(struct mw_leak_gauges *g, const cJSON *report, struct mw_batch *batch,
			 int64_t ts)
{
	static const struct {
		const char *name, *key, *help;
	} figures[] = {
		{ "memwatch_leak_slope_bytes_per_hour", "slope_bytes_per_hour",
		  "Growth rate of the process group's floor (Theil-Sen), bytes per hour." },
		{ "memwatch_leak_growth_bytes", "growth_bytes",
		  "Growth over the judged window, bytes." },
		{ "memwatch_leak_projected_bytes", "projected_bytes",
		  "Growth projected over the [leak] horizon, bytes." },
		{ "memwatch_leak_onset_timestamp_seconds", "onset_ms",
		  "Since when the process group grows (absent when it does not)." },
	};
	const cJSON *groups = cJSON_GetObjectItemCaseSensitive(report, "groups"), *grp;
	const cJSON **sel;
	size_t n = 0, cap = (size_t)cJSON_GetArraySize(groups), i, k;
	struct mw_jbuf b;
	char *text;

	sel = mw_xcalloc(cap ? cap : 1, sizeof(*sel));
	cJSON_ArrayForEach(grp, groups)
		if (n < g->top || watched(g, grp))
			sel[n++] = grp;
	mw_jbuf_init(&b);
	mw_prom_family(&b, "memwatch_leak_verdict", "gauge",
		       "Leak verdict of the process group: 0 pass, 1 fail, 3 inconclusive.");
	for (i = 0; i < n; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(sel[i], "verdict");
		const char *vs = cJSON_IsString(v) ? v->valuestring : "";

		gauge(&b, batch, ts, "memwatch_leak_verdict", "process",
		      cJSON_GetObjectItemCaseSensitive(sel[i], "process")->valuestring,
		      !strcmp(vs, "fail") ? 1 : !strcmp(vs, "pass") ? 0 : 3);
	}
	for (k = 0; k < MW_ARRAY_SIZE(figures); k++) {
		mw_prom_family(&b, figures[k].name, "gauge", figures[k].help);
		for (i = 0; i < n; i++) {
			double v = num_of(sel[i], figures[k].key);

			if (isnan(v))
				continue;
			if (!strcmp(figures[k].key, "onset_ms"))
				v /= 1000;
			gauge(&b, batch, ts, figures[k].name, "process",
			      cJSON_GetObjectItemCaseSensitive(sel[i], "process")->valuestring, v);
		}
	}
	{
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(report, "counts");

		mw_prom_family(&b, "memwatch_leak_groups", "gauge",
			       "Process groups judged in the last background run, by verdict.");
		gauge(&b, batch, ts, "memwatch_leak_groups", "verdict", "fail", num_of(c, "fail"));
		gauge(&b, batch, ts, "memwatch_leak_groups", "verdict", "inconclusive",
		      num_of(c, "inconclusive"));
		gauge(&b, batch, ts, "memwatch_leak_groups", "verdict", "pass", num_of(c, "pass"));
	}
	free(sel);
	text = mw_jbuf_detach(&b, &n);
	mw_jbuf_release(&b);
	return text;
}

/* One judgement; the reader is kept between runs (NULL until the
 * database exists). */
static void run_once(struct mw_leak_gauges *g, struct mw_reader **reader)
{
	struct mw_err err = { "" };
	struct mw_leak_query q;
	cJSON *report = NULL;
	int64_t t0 = mw_clock_mono_ns(), now = mw_clock_wall_ms();
	char *text = NULL;
	bool ok = false;

	if (!*reader && mw_reader_open(reader, g->db_path, &err)) {
		*reader = NULL;
		goto done;
	}
	mw_leak_query_init(&q);
	q.params = g->params;
	q.from_ms = now - g->window_ms;
	q.to_ms = now;
	q.live_only = true;
	if (mw_leak_report(*reader, &q, &report, &err) == 0) {
		void (*submit)(void *, struct mw_batch *) = store_submit;
		struct mw_batch *batch = submit ? mw_batch_new() : NULL;

		text = gauges_text(g, report, batch, now);
		if (batch)
			submit(store_arg, batch);
		ok = true;
	} else {
		mw_log_warn("leak gauges: %s", err.msg);
	}
	cJSON_Delete(report);
	mw_leak_query_release(&q);
done:
	pthread_mutex_lock(&g->lock);
	g->runs++;
	if (!ok) {
		g->failures++;
	} else {
		free(g->text);
		g->text = text;
	}
	g->last_run_s = (double)now / 1000;
	g->last_duration_s = (double)(mw_clock_mono_ns() - t0) / 1e9;
	g->pause_s = (double)mw_leak_gauges_pause_ms(g->refresh_ms,
						     (int64_t)(g->last_duration_s * 1000),
						     g->cpu_budget) / 1000;
	pthread_mutex_unlock(&g->lock);
}

static void *gauges_main(void *arg)
{
	struct mw_leak_gauges *g = arg;
	struct mw_reader *reader = NULL;

	pthread_mutex_lock(&g->lock);
	while (!g->stopping) {
		struct timespec until;
		int64_t ns, pause_ms;

		pthread_mutex_unlock(&g->lock);
		run_once(g, &reader);
		pthread_mutex_lock(&g->lock);
		/* Wake up after the pause (refresh, or longer to keep within
		 * cpu_budget) or when told to stop (the wall clock is what
		 * pthread_cond_timedwait takes). */
		pause_ms = (int64_t)(g->pause_s * 1000);
		clock_gettime(CLOCK_REALTIME, &until);
		ns = (int64_t)until.tv_nsec + (pause_ms % 1000) * 1000000;
		until.tv_sec += (time_t)(pause_ms / 1000 + ns / 1000000000);
		until.tv_nsec = (long)(ns % 1000000000);
		while (!g->stopping &&
		       pthread_cond_timedwait(&g->wake, &g->lock, &until) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&g->lock);
	mw_reader_free(reader);
	return NULL;
}

struct mw_leak_gauges *mw_leak_gauges_start(const struct mw_config *cfg)
{
	struct mw_leak_gauges *g = mw_xcalloc(1, sizeof(*g));
	struct mw_err err = { "" };

	g->db_path = mw_xstrdup(cfg->db_path);
	mw_leak_params_init(&g->params);
	g->params.warmup_ms = cfg->leak_warmup_ms;
	g->params.min_duration_ms = cfg->leak_min_duration_ms;
	g->params.budget_bytes_per_hour = cfg->leak_max_growth.bytes_per_hour;
	g->params.budget_rel_per_hour = cfg->leak_max_growth.rel_per_hour;
	g->params.horizon_ms = cfg->leak_horizon_ms;
	g->window_ms = cfg->leak_window_ms;
	g->refresh_ms = cfg->leak_refresh_ms;
	g->cpu_budget = cfg->leak_cpu_budget;
	g->top = (size_t)cfg->leak_metrics_top;
	if (cfg->nwatch) {
		if (mw_watch_init(&g->watch, (const char *const *)cfg->watch, cfg->nwatch, &err) == 0)
			g->have_watch = true;
		else
			mw_log_warn("leak gauges: watch list: %s", err.msg);
	}
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->wake, NULL);
	if (pthread_create(&g->thread, NULL, gauges_main, g) == 0) {
		g->started = true;
	} else {
		mw_log_error("leak gauges: cannot start a thread; no memwatch_leak_* gauges");
		mw_leak_gauges_stop(g);
		return NULL;
	}
	return g;
}

void mw_leak_gauges_stop(struct mw_leak_gauges *g)
{
	if (!g)
		return;
	pthread_mutex_lock(&g->lock);
	g->stopping = true;
	pthread_cond_signal(&g->wake);
	pthread_mutex_unlock(&g->lock);
	if (g->started)
		pthread_join(g->thread, NULL);
	pthread_cond_destroy(&g->wake);
	pthread_mutex_destroy(&g->lock);
	if (g->have_watch)
		mw_watch_release(&g->watch);
	free(g->text);
	free(g->db_path);
	free(g);
}

void mw_leak_gauges_write(struct mw_leak_gauges *g, struct mw_jbuf *b)
{
	if (!g)
		return;
	pthread_mutex_lock(&g->lock);
	if (g->text)
		mw_j_lit(b, g->text);
	mw_prom_family(b, "memwatch_leak_checks_total", "counter",
		       "Background leak judgements run (for the memwatch_leak_* gauges).");
	mw_prom_sample(b, "memwatch_leak_checks_total", NULL, NULL, (double)g->runs);
	mw_prom_family(b, "memwatch_leak_check_failures_total", "counter",
		       "Background leak judgements that could not read the database.");
	mw_prom_sample(b, "memwatch_leak_check_failures_total", NULL, NULL, (double)g->failures);
	mw_prom_family(b, "memwatch_leak_check_duration_seconds", "gauge",
		       "Time the last background leak judgement took.");
	mw_prom_sample(b, "memwatch_leak_check_duration_seconds", NULL, NULL, g->last_duration_s);
	mw_prom_family(b, "memwatch_leak_check_interval_seconds", "gauge",
		       "Pause before the next background leak judgement: [leak] refresh, or "
		       "longer to keep within [leak] cpu_budget.");
	mw_prom_sample(b, "memwatch_leak_check_interval_seconds", NULL, NULL, g->pause_s);
	pthread_mutex_unlock(&g->lock);
}
