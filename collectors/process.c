/*
 * process.c - the process collector (portable part): its options, its
 * tick (read the table, PSS on a budget, skip the young) and its samples.
 * The PSS scheduler is process_pss.c, the series keys process_keys.c,
 * the parsers process_procfs.c and process_spi.c.
 */
#include "process.h"
#include "process_keys.h"
#include "process_pss.h"
#include "core/watch.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "core/collector.h"
#include "base/log.h"
#include "base/units.h"
#include "base/xalloc.h"
#include "core/metric_catalog.h"

/*
 * min_age: a process gets series only once it has run this long, so the
 * short-lived ones (compilers, shells a build agent starts by the
 * thousand) do not each leave a set of series behind; what is skipped is
 * counted (the status line and memwatch_collector_young_skipped_total).
 *
 * PSS / USS: read on a time budget, pss_budget of one core, each process
 * at most once per pss_interval (process_pss.c): Linux's smaps_rollup,
 * Windows's working-set share counts (process_win32.c).
 */

/* [collector.process] keys, filled from process_options below. */
struct process_options {
	int64_t min_age_ms;
	double pss_budget;	/* share of one core */
	int64_t pss_interval_ms;
	int64_t status_interval_ms;
	int64_t handles_interval_ms;
	int64_t stat_interval_ms;
};

#define POFF(f) offsetof(struct process_options, f)
#define PROCESS_MAX_MS (100 * 365 * 86400000LL)

static const struct mw_option process_options[] = {
	{ MW_OPTION(NULL, "min_age", MW_OPT_DURATION, POFF(min_age_ms), "5s", 0, PROCESS_MAX_MS,
	  "A process gets series once it has run this long (0: at once); younger ones\n"
	  "(but memwatchd itself) are skipped and counted\n"
	  "(memwatch_collector_young_skipped_total).") },
	{ MW_OPTION(NULL, "pss_budget", MW_OPT_SHARE, POFF(pss_budget), "5%", 0, 0,
	  "Share of one core spent reading PSS/USS (Linux: smaps_rollup; Windows:\n"
	  "QueryWorkingSet's share counts), spread over ticks round-robin (0: never read\n"
	  "them); a process whose read took over 50 ms is left out for 10 minutes.") },
	{ MW_OPTION(NULL, "pss_interval", MW_OPT_DURATION, POFF(pss_interval_ms),
		    "60s", 0, PROCESS_MAX_MS,
	  "Each process's PSS/USS is read at most this often; one whose resident memory\n"
	  "has not moved since its last read is read again only after 5 times this.") },
	{ MW_OPTION(NULL, "status_interval", MW_OPT_DURATION, POFF(status_interval_ms), "10s", 0,
	  PROCESS_MAX_MS,
	  "Linux: each process's /proc/PID/status (peak working set, swap, the file/shmem\n"
	  "split of resident memory) is read this often, spread over the ticks, and where\n"
	  "statm has not moved since its last read only every sixth time; the figures are\n"
	  "carried forward in between (0: every tick).") },
	{ MW_OPTION(NULL, "handles_interval", MW_OPT_DURATION, POFF(handles_interval_ms), "30s", 0,
	  PROCESS_MAX_MS,
	  "Linux: each process's open descriptors (memwatch_process_handles) are counted\n"
	  "this often, spread over the ticks (0: every tick).") },
	{ MW_OPTION(NULL, "stat_interval", MW_OPT_DURATION, POFF(stat_interval_ms),
		    "10s", 0, PROCESS_MAX_MS,
	  "Linux: /proc/PID/stat (page faults, threads) is read in every tick where the\n"
	  "process's statm (virtual size, resident, shared) changed, and at least this\n"
	  "often where it did not, its figures carried forward in between (0: every tick).") },
};

struct process_state {
	struct mw_process_reader *reader;
	struct mw_process_table table;
	int64_t min_age_ms;
	uint64_t skipped_total;	/* process samples skipped: younger than min_age */
	bool pss_on;
	struct mw_pss_sched pss;
	struct mw_process_keys keys;
};

extern const struct mw_collector mw_collector_process;

static int process_init(void **state, const struct mw_collector_env *env, struct mw_err *why)
{
	struct process_options own;
	const struct process_options *o = mw_collector_options(env, &mw_collector_process, &own);
	struct process_state *st;
	int64_t tick_ms = 0;
	uint64_t a, b;

	if (env && env->self)
		tick_ms = env->self->interval_ms;
	if (!tick_ms && env && env->config)
		tick_ms = env->config->interval_ms;
	if (tick_ms <= 0)
		tick_ms = 10000;
	st = mw_xcalloc(1, sizeof(*st));
	st->min_age_ms = o->min_age_ms;
	mw_pss_sched_init(&st->pss, o->pss_budget, o->pss_interval_ms * 1000000LL, tick_ms * 1000000LL);
	st->reader = mw_process_reader_new();
	mw_process_reader_set_cadence(st->reader, o->status_interval_ms, o->handles_interval_ms,
				      o->stat_interval_ms);
	/* A first read proves the platform call works here. */
	if (mw_process_table_read(st->reader, &st->table, why)) {
		mw_process_reader_free(st->reader);
		mw_process_table_release(&st->table);
		free(st);
		return MW_COLLECTOR_UNSUPPORTED;
	}
	/* PSS where smaps_rollup exists (Linux 4.14+) and a budget is set */
	st->pss_on = o->pss_budget > 0 &&
		     mw_process_pss_read(st->reader, mw_self_pid(), &a, &b) == 0;
	*state = st;
	return MW_COLLECTOR_OK;
}

/* One process's samples: labels copied once into the batch, keys from
 * the cache, nothing formatted. */
static void emit(struct mw_batch *b, const struct mw_process_key *k,
		 const struct mw_process_info *p, int64_t ts)
{
	struct mw_label *l = mw_batch_alloc(b, 15 * sizeof(*l)), *kl = l + 3;
	size_t i;

#define ADD(metric, v) mw_batch_add_keyed(b, metric, l, 3, k->tail, k->tail_len, k->tail_id, \
					  (double)(v), ts)
	l[0].name = "pid";
	l[0].value = mw_batch_strdup(b, k->pid_s);
	l[1].name = "process";
	l[1].value = mw_batch_strdup(b, k->name);
	l[2].name = "started";
	l[2].value = mw_batch_strdup(b, k->started_s);
	ADD(mw_metric_name(MW_M_PROCESS_WORKING_SET_BYTES), p->working_set_bytes);
	ADD(mw_metric_name(MW_M_PROCESS_WORKING_SET_PEAK_BYTES), p->working_set_peak_bytes);
	ADD(mw_metric_name(MW_M_PROCESS_PRIVATE_BYTES), p->private_bytes);
	ADD(mw_metric_name(MW_M_PROCESS_VIRTUAL_BYTES), p->virtual_bytes);
	if (p->has_handles)
		ADD(mw_metric_name(MW_M_PROCESS_HANDLES), p->handles);
	ADD(mw_metric_name(MW_M_PROCESS_THREADS), p->threads);
	ADD(mw_metric_name(MW_M_PROCESS_PAGE_FAULTS_TOTAL), p->page_faults);
	if (p->has_private_ws)
		ADD(mw_metric_name(MW_M_PROCESS_PRIVATE_WORKING_SET_BYTES), p->private_ws_bytes);
	if (p->has_shareable_ws)
		ADD(mw_metric_name(MW_M_PROCESS_SHAREABLE_WORKING_SET_BYTES), p->shareable_ws_bytes);
	if (p->has_kinds) {
		const uint64_t v[3] = { p->rss_anon_bytes, p->rss_file_bytes, p->rss_shmem_bytes };

		for (i = 0; i < 3; i++) {
			struct mw_label *x = kl + 4 * i;

			x[0].name = "kind";
			x[0].value = mw_process_kind_names[i];
			x[1] = l[0];
			x[2] = l[1];
			x[3] = l[2];
			mw_batch_add_keyed(b, mw_metric_name(MW_M_PROCESS_RESIDENT_BYTES), x, 4, k->kind_tail[i],
					   k->kind_len[i], k->tail_id + 1 + i, (double)v[i], ts);
		}
	}
	if (p->has_swap)
		ADD(mw_metric_name(MW_M_PROCESS_SWAP_BYTES), p->swap_bytes);
	if (p->has_data)
		ADD(mw_metric_name(MW_M_PROCESS_DATA_BYTES), p->data_bytes);
	if (p->has_pss) {
		ADD(mw_metric_name(MW_M_PROCESS_PSS_BYTES), p->pss_bytes);
		ADD(mw_metric_name(MW_M_PROCESS_USS_BYTES), p->uss_bytes);
	}
#undef ADD
}

static int emit_table(struct process_state *st, struct mw_sample_ctx *ctx);

int mw_process_sample_at(void *state, struct mw_sample_ctx *ctx, int64_t now_ns)
{
	struct process_state *st = state;

	if (mw_process_table_read_at(st->reader, &st->table, now_ns, &ctx->err))
		return MW_COLLECTOR_ERROR;
	if (st->pss_on)
		mw_pss_sched_tick(&st->pss, st->reader, &st->table, now_ns);
	return emit_table(st, ctx);
}

int mw_process_sample_table(void *state, struct mw_sample_ctx *ctx,
			    const struct mw_process_table *t)
{
	struct process_state *st = state;

	st->table.nprocs = 0;
	MW_GROW(st->table.procs, st->table.cap, t->nprocs + 1);
	memcpy(st->table.procs, t->procs, t->nprocs * sizeof(*t->procs));
	st->table.nprocs = t->nprocs;
	st->table.inaccessible = t->inaccessible;
	return emit_table(st, ctx);
}

/* The samples of st->table. */
static int emit_table(struct process_state *st, struct mw_sample_ctx *ctx)
{
	uint32_t self = mw_self_pid();
	uint64_t skipped = 0;
	size_t i, len = 0;

	mw_process_keys_begin(&st->keys, st->table.nprocs);
	for (i = 0; i < st->table.nprocs; i++) {
		const struct mw_process_info *p = &st->table.procs[i];
		int64_t ts = ctx->ts_ms;

		/* a start time of 0 is unknown: never skipped; nor is memwatch */
		if (st->min_age_ms > 0 && p->start_ms > 0 && ts - p->start_ms < st->min_age_ms &&
		    p->pid != self) {
			skipped++;
			continue;
		}
		emit(ctx->batch, mw_process_keys_of(&st->keys, p), p, ts);
	}
	mw_process_keys_done(&st->keys, ctx->batch);
	ctx->inaccessible = st->table.inaccessible;
	st->skipped_total += skipped;
	{
		struct mw_label l[1] = { { "collector", "process" } };

		mw_batch_add(ctx->batch, mw_metric_name(MW_M_COLLECTOR_YOUNG_SKIPPED_TOTAL), l, 1,
			     (double)st->skipped_total, ctx->ts_ms);
	}
	ctx->mode[0] = '\0';
	if (st->pss_on)
		len = (size_t)snprintf(ctx->mode, sizeof(ctx->mode),
				       "pss %g%%: %zu read %.1f ms, %zu unchanged, %zu waiting, "
				       "%zu slow", st->pss.share * 100, st->pss.last.read,
				       (double)st->pss.last.spent_ns / 1e6, st->pss.last.unchanged,
				       st->pss.last.waiting, st->pss.last.paused);
	else if (st->pss.share > 0)	/* a budget, but the self-read at start failed */
		len = (size_t)snprintf(ctx->mode, sizeof(ctx->mode), "pss off: %s unreadable",
				       mw_process_pss_source());
	if (st->min_age_ms > 0 && len + 2 < sizeof(ctx->mode))
		snprintf(ctx->mode + len, sizeof(ctx->mode) - len, "%smin_age %llds: %llu young "
			 "skipped", len ? "; " : "", (long long)st->min_age_ms / 1000,
			 (unsigned long long)skipped);
	return MW_COLLECTOR_OK;
}

static int process_sample(void *state, struct mw_sample_ctx *ctx)
{
	return mw_process_sample_at(state, ctx, mw_clock_mono_ns());
}

static void process_fini(void *state)
{
	struct process_state *st = state;

	if (!st)
		return;
	mw_process_reader_free(st->reader);
	mw_process_table_release(&st->table);
	mw_pss_sched_release(&st->pss);
	mw_process_keys_release(&st->keys);
	free(st);
}

const struct mw_collector mw_collector_process = {
	.name = "process",
	.summary = "Every process every tick: working set (and peak), private working set,\n"
		   "private bytes (commit charge), virtual size, handles, threads, page faults;\n"
		   "Linux: resident bytes by kind (anon, file, shmem), swap, and PSS/USS on a\n"
		   "time budget.",
	.default_interval_ms = 0,
	.default_enabled = true,
	.options = process_options,
	.noptions = MW_ARRAY_SIZE(process_options),
	.options_size = sizeof(struct process_options),
	.init = process_init,
	.sample = process_sample,
	.fini = process_fini,
};
