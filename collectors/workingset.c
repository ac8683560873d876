/*
 * workingset.c - the workingset collector (portable part): per watched
 * process the platform's snapshot (workingset_win32.c, workingset_linux.c)
 * classified (workingset_pages.c) into series and a "workingset.regions"
 * record (the region type and its encoding: core/ws_regions.c).
 */
#include "workingset.h"

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

struct ws_state {
	struct mw_watched w;
	struct mw_ws_snapshot snap;
	struct mw_ws_result result;
};

static int ws_init(void **state, const struct mw_collector_env *env, struct mw_err *why)
{
	struct ws_state *st;

	if (mw_ws_supported(why))
		return MW_COLLECTOR_UNSUPPORTED;
	st = mw_xcalloc(1, sizeof(*st));
	if (mw_watched_init(&st->w, env, why)) {
		free(st);
		return MW_COLLECTOR_ERROR;
	}
	*state = st;
	return MW_COLLECTOR_OK;
}

static const char *mode_name(enum mw_ws_mode m)
{
	switch (m) {
	case MW_WS_MODE_FULL:
		return "QueryWorkingSet";
	case MW_WS_MODE_EX:
		return "QueryWorkingSetEx";
	case MW_WS_MODE_SMAPS:
		return "/proc/PID/smaps";
	default:
		return "totals only";
	}
}

static int ws_sample(void *state, struct mw_sample_ctx *ctx)
{
	struct ws_state *st = state;
	int64_t t0 = mw_clock_mono_ns(), worst = 0;
	struct mw_err why = { "" };
	const char *mode = "no target";
	size_t i, nread = 0;

	if (mw_watched_refresh(&st->w, ctx))
		return MW_COLLECTOR_ERROR;
	for (i = 0; i < st->w.targets.n; i++) {
		const struct mw_target *t = &st->w.targets.t[i];
		struct mw_ws_snapshot *s = &st->snap;
		int64_t t1 = mw_clock_mono_ns();
		char pid[16];

		if (mw_ws_read(t->pid, t->self, s, &why)) {
			ctx->inaccessible++;
			continue;
		}
		snprintf(pid, sizeof(pid), "%" PRIu32, t->pid);
		mode = mode_name(s->mode);
		if (s->mode == MW_WS_MODE_TOTALS) {
			if (!s->have_total) {	/* nothing read: never a stale figure */
				ctx->inaccessible++;
				continue;
			}
			struct mw_label l[4] = { { "pid", pid }, { "process", t->name },
						 { "category", "all" }, { "sharing", "all" } };

			mw_batch_add(ctx->batch, mw_metric_name(MW_M_WORKINGSET_BYTES), l, 4,
				     (double)s->total_bytes, ctx->ts_ms);
			continue;
		}
		{
			struct mw_ws_input in = {
				.regions = &s->regions, .names = s->names, .nnames = s->nnames,
				.heaps = s->heaps, .nheaps = s->nheaps, .stacks = s->stacks,
				.nstacks = s->nstacks, .page_size = s->page_size,
			};
			struct mw_label l[4] = { { "pid", pid }, { "process", t->name } };
			const struct mw_ws_result *res = &st->result;
			unsigned char *enc;
			size_t len;

			if (s->mode == MW_WS_MODE_SMAPS)
				res = &s->classified;	/* the platform classified already */
			else
				mw_ws_classify(&in, s->pages, s->npages, &st->result);
			for (int c = 0; c < MW_WS_NCATEGORIES; c++) {
				for (int sh = 0; sh < MW_WS_NSHARING; sh++) {
					l[2] = (struct mw_label){ "category", mw_ws_category_names[c] };
					l[3] = (struct mw_label){ "sharing", mw_ws_sharing_names[sh] };
					mw_batch_add(ctx->batch, mw_metric_name(MW_M_WORKINGSET_BYTES), l, 4,
						     (double)res->pages[c][sh] * s->page_size,
						     ctx->ts_ms);
				}
			}
			if (s->have_pss) {
				mw_batch_add(ctx->batch, mw_metric_name(MW_M_WORKINGSET_PSS_BYTES), l, 2,
					     (double)s->pss_bytes, ctx->ts_ms);
				mw_batch_add(ctx->batch, mw_metric_name(MW_M_WORKINGSET_USS_BYTES), l, 2,
					     (double)s->uss_bytes, ctx->ts_ms);
			}
			enc = mw_ws_encode(res, &len);
			mw_batch_add_detail(ctx->batch, "workingset.regions",
					    mw_metric_name(MW_M_WORKINGSET_BYTES), l, 2, ctx->ts_ms, enc, len);
			free(enc);
		}
		nread++;
		if (mw_clock_mono_ns() - t1 > worst)
			worst = mw_clock_mono_ns() - t1;
	}
	/* e.g. "/proc/PID/smaps; 3.10 ms, 2 processes, slowest 2.05 ms" */
	snprintf(ctx->mode, sizeof(ctx->mode), "%s%s%.40s%s; %.2f ms", mode,
		 st->snap.why[0] ? " (" : "", st->snap.why, st->snap.why[0] ? ")" : "",
		 (double)(mw_clock_mono_ns() - t0) / 1e6);
	if (nread)
		snprintf(ctx->mode + strlen(ctx->mode), sizeof(ctx->mode) - strlen(ctx->mode),
			 ", %zu process%s, slowest %.2f ms", nread, nread == 1 ? "" : "es",
			 (double)worst / 1e6);
	return MW_COLLECTOR_OK;
}

static void ws_fini(void *state)
{
	struct ws_state *st = state;

	if (!st)
		return;
	mw_watched_release(&st->w);
	mw_ws_snapshot_release(&st->snap);
	mw_ws_result_release(&st->result);
	free(st);
}

const struct mw_collector mw_collector_workingset = {
	.name = "workingset",
	.summary = "Working-set pages of watched processes by category (image, mapped file,\n"
		   "shareable, heap, stack, private data, other) and sharing, with region detail.",
	.default_interval_ms = 10000,
	.default_enabled = true,
	.init = ws_init,
	.sample = ws_sample,
	.fini = ws_fini,
};

