/*
 * vmmap.c - the vmmap collector (portable part): per watched process its
 * address space, summarized, as series.  The region lists and their
 * summary are vmmap_regions.c; the platform walks vmmap_win32.c and
 * vmmap_linux.c.
 */
#include "vmmap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "core/collector.h"
#include "core/metric_catalog.h"
#include "base/xalloc.h"
#include "watched.h"

/* --- the collector ------------------------------------------------------ */

struct vmmap_state {
	struct mw_watched w;
	struct mw_vm_regions regions;
};

static int vmmap_init(void **state, const struct mw_collector_env *env, struct mw_err *why)
{
	struct vmmap_state *st = mw_xcalloc(1, sizeof(*st));

	if (mw_watched_init(&st->w, env, why)) {
		free(st);
		return MW_COLLECTOR_ERROR;
	}
	*state = st;
	return MW_COLLECTOR_OK;
}

/* Append the series of one walked process. */
static void vm_emit(struct mw_batch *b, int64_t ts, const struct mw_target *t,
		const struct mw_vm_summary *s)
{
	char pid[16];
	int st, ty;

	snprintf(pid, sizeof(pid), "%" PRIu32, t->pid);
	for (st = 0; st < MW_VM_NSTATES; st++) {
		for (ty = 0; ty < MW_VM_NTYPES; ty++) {
			struct mw_label l[4] = {
				{ "pid", pid }, { "process", t->name },
				{ "state", mw_vm_state_names[st] }, { "type", mw_vm_type_names[ty] },
			};

			if ((st == MW_VM_FREE) != (ty == MW_VM_NONE))
				continue;
			mw_batch_add(b, mw_metric_name(MW_M_VM_BYTES), l, 4,
				     (double)s->bytes[st][ty], ts);
		}
	}
	{
		struct mw_label l[2] = { { "pid", pid }, { "process", t->name } };

		mw_batch_add(b, mw_metric_name(MW_M_VM_LARGEST_FREE_BYTES), l, 2,
			     (double)s->largest_free, ts);
		mw_batch_add(b, mw_metric_name(MW_M_VM_REGIONS), l, 2, (double)s->regions, ts);
		mw_batch_add(b, mw_metric_name(MW_M_VM_FREE_BLOCKS), l, 2, (double)s->free_blocks, ts);
	}
}

static int vmmap_sample(void *state, struct mw_sample_ctx *ctx)
{
	struct vmmap_state *st = state;
	int64_t t0 = mw_clock_mono_ns();
	size_t i, ok = 0, wow = 0;
	struct mw_err why = { "" };

	if (mw_watched_refresh(&st->w, ctx))
		return MW_COLLECTOR_ERROR;
	for (i = 0; i < st->w.targets.n; i++) {
		const struct mw_target *t = &st->w.targets.t[i];
		struct mw_vm_summary s;
		int rc = mw_vm_walk(t->pid, t->self, &st->regions, &why);

		if (rc) {
			ctx->inaccessible++;
			continue;
		}
		mw_vm_summarize(&st->regions, &s);
		vm_emit(ctx->batch, ctx->ts_ms, t, &s);
		ok++;
		wow += st->regions.wow64;
	}
	snprintf(ctx->mode, sizeof(ctx->mode), "%zu of %zu walked, %zu WOW64, %.2f ms%s%.40s",
		 ok, st->w.targets.n, wow, (double)(mw_clock_mono_ns() - t0) / 1e6,
		 why.msg[0] ? "; last refusal: " : "", why.msg);
	return MW_COLLECTOR_OK;
}

static void vmmap_fini(void *state)
{
	struct vmmap_state *st = state;

	if (!st)
		return;
	mw_watched_release(&st->w);
	mw_vm_regions_release(&st->regions);
	free(st);
}

const struct mw_collector mw_collector_vmmap = {
	.name = "vmmap",
	.summary = "Address space of watched processes: committed, reserved and free bytes by\n"
		   "type (image, mapped, private), regions, largest free block.",
	.default_interval_ms = 10000,
	.default_enabled = true,
	.init = vmmap_init,
	.sample = vmmap_sample,
	.fini = vmmap_fini,
};
