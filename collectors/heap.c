/*
 * heap.c - the heap collector (portable part): per watched process the
 * heaps (Windows) and the breakdown bar, as series.  The pure parts are
 * heap_breakdown.c (the bar) and heap_parse.c (the Windows reader's
 * parsers); the platform reads are heap_win32.c and heap_linux.c.
 */
#include "heap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "core/collector.h"
#include "core/metric_catalog.h"
#include "core/config.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "watched.h"

/* --- the collector ------------------------------------------------------ */

/* [collector.heap] keys, filled from heap_options below. */
struct heap_options {
	bool remote_summary;
};

static const struct mw_option heap_options[] = {
	{ MW_OPTION(NULL, "remote_summary", MW_OPT_BOOL,
		    offsetof(struct heap_options, remote_summary), "false", 0, 0,
	  "Windows: true reads other processes' heaps with RtlQueryProcessDebugInformation,\n"
	  "which CREATES A THREAD in each watched process every interval (invasive: its DLLs'\n"
	  "thread-attach code runs, heap locks are taken, it can hang; endpoint security may\n"
	  "flag it).  false: heap list and segments from the PEB and heap headers, read without\n"
	  "running code in the target: committed and uncommitted bytes per heap.") },
};

struct heap_state {
	struct mw_watched w;
	struct mw_heap_list heaps;
	struct mw_heap_reader *reader;
	bool logged_no_remote;
};

static int heap_init(void **state, const struct mw_collector_env *env, struct mw_err *why)
{
	struct heap_options own;
	const struct heap_options *o = mw_collector_options(env, &mw_collector_heap, &own);
	struct mw_heap_reader_opts opts;
	struct heap_state *st;

	memset(&opts, 0, sizeof(opts));
	opts.remote_summary = o->remote_summary;
	if (mw_heap_supported(why))
		return MW_COLLECTOR_UNSUPPORTED;
	st = mw_xcalloc(1, sizeof(*st));
	if (mw_watched_init(&st->w, env, why)) {
		free(st);
		return MW_COLLECTOR_ERROR;
	}
	st->reader = mw_heap_reader_new(&opts);
	*state = st;
	return MW_COLLECTOR_OK;
}

/* memwatch_heap_bytes / _blocks per heap and for heap="all". */
static void emit_heaps(struct mw_batch *b, int64_t ts, const char *pid, const char *name,
		       const struct mw_heap_list *heaps)
{
	static const char *const kinds[] = { "committed", "allocated", "free", "uncommitted",
					     "overhead" };
	struct mw_heap_totals all;
	char hn[16];
	size_t h;

	memset(&all, 0, sizeof(all));
	for (h = 0; h <= heaps->n; h++) {
		const struct mw_heap_totals *x = h < heaps->n ? &heaps->h[h] : &all;
		struct mw_label l[4] = { { "pid", pid }, { "process", name }, { "heap", hn } };
		uint64_t v[5] = { x->committed, x->busy, x->free, x->uncommitted, x->overhead };

		if (h < heaps->n) {
			snprintf(hn, sizeof(hn), "%zu", h);
			all.committed += x->committed, all.busy += x->busy;
			all.free += x->free, all.uncommitted += x->uncommitted;
			all.overhead += x->overhead, all.blocks += x->blocks;
			all.summary |= x->summary;
			all.segments |= x->segments;
		} else {
			snprintf(hn, sizeof(hn), "all");
		}
		/* the summary knows no uncommitted or overhead bytes; the PEB
		 * heap list only committed and uncommitted */
		for (int k = 0; k < (x->summary ? 3 : 5); k++) {
			if (x->segments && k != 0 && k != 3)
				continue;
			l[3] = (struct mw_label){ "kind", kinds[k] };
			mw_batch_add(b, mw_metric_name(MW_M_HEAP_BYTES), l, 4, (double)v[k], ts);
		}
		if (!x->segments)
			mw_batch_add(b, mw_metric_name(MW_M_HEAP_BLOCKS), l, 3, (double)x->blocks, ts);
	}
	{
		struct mw_label l[2] = { { "pid", pid }, { "process", name } };

		mw_batch_add(b, mw_metric_name(MW_M_HEAP_COUNT), l, 2, (double)heaps->n, ts);
	}
}

static void emit_breakdown(struct mw_batch *b, int64_t ts, const char *pid, const char *name,
			   const struct mw_heap_breakdown *bd)
{
	for (int k = 0; k < MW_HK_N; k++) {
		struct mw_label l[3] = { { "pid", pid }, { "process", name },
					 { "kind", mw_heap_kind_names[k] } };

		if ((!bd->have_heaps || bd->heap_whole) && (k == MW_HK_HEAP_USED || k == MW_HK_HEAP_FREE))
			continue;
		if (k == MW_HK_HEAP && !bd->heap_whole)
			continue;
		mw_batch_add(b, mw_metric_name(MW_M_HEAP_BREAKDOWN_BYTES), l, 3,
			     (double)bd->bytes[k], ts);
	}
}

static int heap_sample(void *state, struct mw_sample_ctx *ctx)
{
	struct heap_state *st = state;
	int64_t t0 = mw_clock_mono_ns();
	struct mw_err why = { "" };
	struct mw_heap_notes notes = { 0 };
	size_t i, ok = 0, no_remote = 0, cut = 0;

	if (mw_watched_refresh(&st->w, ctx))
		return MW_COLLECTOR_ERROR;
	for (i = 0; i < st->w.targets.n; i++) {
		const struct mw_target *t = &st->w.targets.t[i];
		struct mw_heap_target_read got;
		struct mw_heap_breakdown bd;
		char pid[16];
		int rc = mw_heap_read_target(st->reader, t->pid, t->self, &st->heaps, &bd, &got,
					     &why);

		snprintf(pid, sizeof(pid), "%" PRIu32, t->pid);
		mw_heap_notes_add(&notes, &got.notes);
		if (rc) {
			ctx->inaccessible++;
			no_remote += got.remote_unavailable;
		} else {
			ok++;
		}
		if (got.heaps) {
			for (size_t h = 0; h < st->heaps.n; h++)
				cut += st->heaps.h[h].truncated;
			emit_heaps(ctx->batch, ctx->ts_ms, pid, t->name, &st->heaps);
		}
		if (got.bar)
			emit_breakdown(ctx->batch, ctx->ts_ms, pid, t->name, &bd);
	}
	if (no_remote && !st->logged_no_remote) {
		mw_log_warn(MW_HEAP_NO_REMOTE_MSG "; other processes are counted inaccessible and "
			    "their breakdown has no heap_used/heap_free");
		st->logged_no_remote = true;
	}
	if (no_remote)
		snprintf(ctx->mode, sizeof(ctx->mode), "%zu/%zu read; %s", ok, st->w.targets.n,
			 MW_HEAP_NO_REMOTE_MSG);
	else
		mw_heap_mode_line(st->reader, ctx->mode, sizeof(ctx->mode), ok, st->w.targets.n,
				  (double)(mw_clock_mono_ns() - t0) / 1e6, cut, &notes, why.msg);
	return MW_COLLECTOR_OK;
}

static void heap_fini(void *state)
{
	struct heap_state *st = state;

	if (!st)
		return;
	mw_watched_release(&st->w);
	mw_heap_reader_free(st->reader);
	free(st->heaps.h);
	free(st);
}

const struct mw_collector mw_collector_heap = {
	.name = "heap",
	.summary = "Heaps of watched processes (committed, allocated, free bytes and blocks per\n"
		   "heap) and HeapPeep's breakdown: heap, stacks, image, static data, private, mapped.",
	.default_interval_ms = 30000,
	.default_enabled = true,
	.options = heap_options,
	.noptions = MW_ARRAY_SIZE(heap_options),
	.options_size = sizeof(struct heap_options),
	.init = heap_init,
	.sample = heap_sample,
	.fini = heap_fini,
};

