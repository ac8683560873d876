/* heap.c - the heap collector (portable part) and mw_heap_account. */
#include "heap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/clock.h"
#include "daemon/collector.h"
#include "daemon/xalloc.h"
#include "watch.h"

void mw_heap_account(struct mw_heap_totals *t, uint32_t flags, uint64_t cb, uint32_t overhead,
		     uint64_t region_committed, uint64_t region_uncommitted)
{
	if (flags & MW_HEAP_REGION) {
		/* A region (segment) header: its sizes, not a block. */
		t->regions++;
		t->committed += region_committed;
		t->uncommitted += region_uncommitted;
	} else if (flags & MW_HEAP_UNCOMMITTED_RANGE) {
		/* counted by the region entry already */
	} else if (flags & MW_HEAP_ENTRY_BUSY) {
		t->busy += cb;
		t->overhead += overhead;
		t->blocks++;
	} else {
		t->free += cb;
		t->overhead += overhead;
		t->free_blocks++;
	}
}

struct heap_state {
	struct mw_watch watch;
	struct mw_targets targets;
	struct mw_heap_list heaps;
};

static int heap_init(void **state, const struct mw_collector_env *env, struct mw_err *why)
{
	struct heap_state *st;

	if (mw_heap_supported(why))
		return MW_COLLECTOR_UNSUPPORTED;
	st = mw_xcalloc(1, sizeof(*st));
	if (mw_watch_init(&st->watch, (const char *const *)env->config->watch,
			  env->config->nwatch, why)) {
		free(st);
		return MW_COLLECTOR_ERROR;
	}
	*state = st;
	return MW_COLLECTOR_OK;
}

static int heap_sample(void *state, struct mw_sample_ctx *ctx)
{
	struct heap_state *st = state;
	int64_t t0 = mw_clock_mono_ns();
	struct mw_err why = { "" };
	size_t i, ok = 0;

	if (mw_watch_targets(&st->watch, &st->targets, &ctx->err))
		return MW_COLLECTOR_ERROR;
	for (i = 0; i < st->targets.n; i++) {
		const struct mw_target *t = &st->targets.t[i];
		char pid[16], hn[16];
		struct mw_heap_totals all;

		if (mw_heap_read(t->pid, t->self, &st->heaps, &why)) {
			ctx->inaccessible++;
			continue;
		}
		ok++;
		memset(&all, 0, sizeof(all));
		snprintf(pid, sizeof(pid), "%" PRIu32, t->pid);
		for (size_t h = 0; h <= st->heaps.n; h++) {
			const struct mw_heap_totals *x = h < st->heaps.n ? &st->heaps.h[h] : &all;
			struct mw_label l[4] = { { "pid", pid }, { "process", t->name }, { "heap", hn } };
			static const char *const kinds[] = { "committed", "allocated", "free",
							     "uncommitted", "overhead" };
			uint64_t v[5] = { x->committed, x->busy, x->free, x->uncommitted, x->overhead };

			if (h < st->heaps.n) {
				snprintf(hn, sizeof(hn), "%zu", h);
				all.committed += x->committed, all.busy += x->busy;
				all.free += x->free, all.uncommitted += x->uncommitted;
				all.overhead += x->overhead, all.blocks += x->blocks;
			} else {
				snprintf(hn, sizeof(hn), "all");
			}
			for (int k = 0; k < 5; k++) {
				l[3] = (struct mw_label){ "kind", kinds[k] };
				mw_batch_add(ctx->batch, "memwatch_heap_bytes", l, 4, (double)v[k],
					     ctx->ts_ms);
			}
			mw_batch_add(ctx->batch, "memwatch_heap_blocks", l, 3, (double)x->blocks,
				     ctx->ts_ms);
		}
		{
			struct mw_label l[2] = { { "pid", pid }, { "process", t->name } };

			mw_batch_add(ctx->batch, "memwatch_heap_count", l, 2, (double)st->heaps.n,
				     ctx->ts_ms);
		}
	}
	snprintf(ctx->mode, sizeof(ctx->mode), "%zu of %zu read, %.2f ms%s%.40s", ok,
		 st->targets.n, (double)(mw_clock_mono_ns() - t0) / 1e6,
		 why.msg[0] ? "; " : "", why.msg);
	return MW_COLLECTOR_OK;
}

static void heap_fini(void *state)
{
	struct heap_state *st = state;

	if (!st)
		return;
	mw_watch_release(&st->watch);
	mw_targets_release(&st->targets);
	free(st->heaps.h);
	free(st);
}

const struct mw_collector mw_collector_heap = {
	.name = "heap",
	.summary = "Heaps of watched processes: committed, allocated, free bytes and blocks per heap.",
	.default_interval_ms = 30000,
	.default_enabled = true,
	.init = heap_init,
	.sample = heap_sample,
	.fini = heap_fini,
};
