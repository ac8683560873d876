/* leak_judge.c - see leak_judge.h. */
#include "leak_judge.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/leak_report.h"
#include "analysis/leak_steps.h"
#include "core/batch.h"
#include "base/clock.h"
#include "base/heap_tune.h"
#include "core/watch.h"
#include "core/leak_gauges.h"
#include "base/log.h"
#include "storage/query.h"
#include "base/worker.h"
#include "base/xalloc.h"
#include "base/thread_name.h"

/* The judge's page cache (its reader and the one it shares work with). */
#define JUDGE_CACHE_BYTES (256u << 10)

struct mw_leak_judge {
	struct mw_worker w;
	char *db_path;
	struct mw_status_table *status;
	void (*submit)(void *arg, struct mw_batch *b);
	void *submit_arg;
	struct mw_leak_params params;
	int64_t window_ms, refresh_ms;
	double cpu_budget;
	size_t top;
	struct mw_watch watch;
	bool have_watch;
	/* the judge thread's own: the run counters */
	uint64_t runs, failures;
};

int64_t mw_leak_judge_pause_ms(int64_t refresh_ms, int64_t run_ms, double cpu_budget)
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

/* A group is kept for the gauges when it is watched: by the report (its
 * working set, heap or address space is sampled) or by the watch list. */
static bool watched(struct mw_leak_judge *j, const struct mw_leak_verdict *v)
{
	return v->watched || (j->have_watch && mw_watch_match(&j->watch, 0, v->process, mw_self_pid()));
}

/* Batch sink of the gauge walk: one sample a call, stamped ts. */
struct batch_sink {
	struct mw_batch *batch;
	int64_t ts;
};

static void batch_family(void *arg, const char *name, const char *type, const char *help)
{
	(void)arg;
	(void)name;
	(void)type;
	(void)help;
}

static void batch_sample(void *arg, const char *name, const char *l1, const char *v1,
			 const char *l2, const char *v2, double value)
{
	struct batch_sink *k = arg;
	struct mw_label l[2];
	size_t n = 0;

	/* the batch wants its labels sorted by name */
	if (l1)
		l[n++] = (struct mw_label){ l1, v1 };
	if (l2) {
		if (n && strcmp(l2, l1) < 0) {
			l[1] = l[0];
			l[0] = (struct mw_label){ l2, v2 };
		} else {
			l[n] = (struct mw_label){ l2, v2 };
		}
		n++;
	}
	mw_batch_add(k->batch, name, l, n, value, k->ts);
}

void mw_leak_judge_samples(const struct mw_leak_status *s, struct mw_batch *batch, int64_t ts_ms)
{
	struct batch_sink bs = { batch, ts_ms };
	struct mw_leak_gauge_sink sink = { batch_family, batch_sample, &bs };

	mw_leak_gauges_walk(s, &sink);
}

/* One judgement; the reader is kept between runs (NULL until the
 * database exists). */
static int64_t run_once(struct mw_leak_judge *j, struct mw_reader **reader)
{
	struct mw_err err = { "" };
	struct mw_leak_query q;
	struct mw_leak_status all, pub;
	int64_t t0 = mw_clock_mono_ns(), now = mw_clock_wall_ms();
	bool ok = false;
	size_t i;

	memset(&all, 0, sizeof(all));
	memset(&pub, 0, sizeof(pub));
	if (!*reader) {
		if (mw_reader_open(reader, j->db_path, &err)) {
			*reader = NULL;
			goto done;
		}
		/* paced by its CPU budget over tens of seconds each minute:
		 * the web's 1-2 MB cache resident that long made the daemon's
		 * RSS step up by ~0.4 MB for 40 % of the time (issue 26) */
		mw_reader_set_cache(*reader, JUDGE_CACHE_BYTES);
	}
	mw_leak_query_init(&q);
	q.params = j->params;
	/* the window in the processes' own time: a step of the clock
	 * forward inside it would leave it too short to judge */
	q.from_ms = mw_leak_window_from(*reader, now, j->window_ms);
	q.to_ms = now;
	q.live_only = true;
	/* the verdicts only: no JSON is written */
	if (mw_leak_report_verdicts(*reader, &q, NULL, &all, &err) == 0)
		ok = true;
	else
		mw_log_warn("leak judgement: %s", err.msg);
	mw_leak_query_release(&q);
	/* The reader stays until the next run, its cache does not (stale by
	 * then); what the judgement read and allocated goes back too. */
	mw_reader_idle(*reader);
	mw_heap_release();
done:
	j->runs++;
	if (!ok)
		j->failures++;
	/* the watched groups and the first-ranked top (the report ranks
	 * them: failing, then watched, then the steepest) */
	pub.v = mw_xcalloc(all.n ? all.n : 1, sizeof(*pub.v));
	for (i = 0; i < all.n; i++)
		if (pub.n < j->top || watched(j, &all.v[i]))
			pub.v[pub.n++] = all.v[i];
	memcpy(pub.counts, all.counts, sizeof(pub.counts));
	pub.runs = j->runs;
	pub.failures = j->failures;
	pub.last_run_s = (double)now / 1000;
	pub.last_duration_s = (double)(mw_clock_mono_ns() - t0) / 1e9;
	pub.pause_s = (double)mw_leak_judge_pause_ms(j->refresh_ms, (int64_t)(pub.last_duration_s * 1000),
						     j->cpu_budget) / 1000;
	if (ok && j->submit) {
		struct mw_batch *batch = mw_batch_new();

		mw_leak_judge_samples(&pub, batch, now);
		j->submit(j->submit_arg, batch);
	}
	if (ok) {
		mw_status_set_leaks(j->status, &pub);
	} else {
		/* keep the last verdicts; the counters move */
		struct mw_leak_status last;

		mw_status_get_leaks(j->status, &last);
		last.runs = pub.runs;
		last.failures = pub.failures;
		last.last_run_s = pub.last_run_s;
		last.last_duration_s = pub.last_duration_s;
		last.pause_s = pub.pause_s;
		mw_status_set_leaks(j->status, &last);
		mw_leak_status_release(&last);
	}
	mw_leak_status_release(&pub);
	mw_leak_status_release(&all);
	return (int64_t)(pub.pause_s * 1000);
}

static void *judge_main(void *arg)
{
	struct mw_leak_judge *j = arg;
	struct mw_reader *reader = NULL;

	mw_thread_set_name("mw-judge");
	pthread_mutex_lock(&j->w.lock);
	while (!j->w.stopping) {
		int64_t pause_ms;

		pthread_mutex_unlock(&j->w.lock);
		pause_ms = run_once(j, &reader);
		pthread_mutex_lock(&j->w.lock);
		/* Wake up after the pause (refresh, or longer to keep within
		 * cpu_budget) or when told to stop. */
		mw_worker_sleep(&j->w, pause_ms);
	}
	pthread_mutex_unlock(&j->w.lock);
	mw_reader_free(reader);
	return NULL;
}

struct mw_leak_judge *mw_leak_judge_start(const struct mw_config *cfg, struct mw_status_table *status,
					  void (*submit)(void *arg, struct mw_batch *b), void *arg)
{
	struct mw_leak_judge *j = mw_xcalloc(1, sizeof(*j));
	struct mw_err err = { "" };

	j->db_path = mw_xstrdup(cfg->db_path);
	j->status = status;
	j->submit = submit;
	j->submit_arg = arg;
	mw_leak_params_from_config(&j->params, cfg);
	j->window_ms = cfg->leak_window_ms;
	j->refresh_ms = cfg->leak_refresh_ms;
	j->cpu_budget = cfg->leak_cpu_budget;
	j->top = (size_t)cfg->leak_metrics_top;
	if (cfg->nwatch) {
		if (mw_watch_init(&j->watch, (const char *const *)cfg->watch, cfg->nwatch, &err) == 0)
			j->have_watch = true;
		else
			mw_log_warn("leak judgement: watch list: %s", err.msg);
	}
	if (mw_worker_start(&j->w, judge_main, j)) {
		mw_log_error("leak judgement: cannot start a thread; no memwatch_leak_* gauges");
		mw_leak_judge_stop(j);
		return NULL;
	}
	return j;
}

void mw_leak_judge_stop(struct mw_leak_judge *j)
{
	if (!j)
		return;
	mw_worker_stop(&j->w);
	if (j->have_watch)
		mw_watch_release(&j->watch);
	free(j->db_path);
	free(j);
}
