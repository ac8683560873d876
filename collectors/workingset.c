/*
 * workingset.c - the workingset collector (portable part): page
 * classification and the collector (the region type and its encoding:
 * core/ws_regions.c).
 */
#include "workingset.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "core/collector.h"
#include "base/xalloc.h"
#include "core/watch.h"

struct mw_ws_page mw_ws_from_block(uint64_t block)
{
	struct mw_ws_page p;

	p.va = block & ~0xfffULL;
	p.share_count = (uint8_t)((block >> 5) & 7);
	p.shareable = (block >> 8) & 1;
	return p;
}

bool mw_ws_from_ex_block(uint64_t va, uint64_t attrs, struct mw_ws_page *out)
{
	if (!(attrs & 1))
		return false;
	out->va = va;
	out->share_count = (uint8_t)((attrs >> 1) & 7);
	out->shareable = (attrs >> 15) & 1;
	return true;
}

/* Shared by more than one process, shareable but not shared now, or private. */
static int sharing_of(const struct mw_ws_page *p)
{
	return p->share_count > 1 ? MW_WS_SHARED : p->shareable ? MW_WS_SHAREABLE_PAGE : MW_WS_PRIV;
}

static int page_cmp(const void *a, const void *b)
{
	const struct mw_ws_page *x = a, *y = b;

	return x->va < y->va ? -1 : x->va > y->va;
}

static const struct mw_ws_range *in_ranges(const struct mw_ws_range *r, size_t n,
					   uint64_t base, uint64_t end)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (r[i].base < end && base < r[i].base + r[i].size)
			return &r[i];
	return NULL;
}

static const char *name_of(const struct mw_ws_input *in, uint64_t alloc_base)
{
	size_t i;

	for (i = 0; i < in->nnames; i++)
		if (in->names[i].alloc_base == alloc_base)
			return in->names[i].name;
	return NULL;
}

/* Category and owner of the allocation covering regions [first, last). */
static void describe(const struct mw_ws_input *in, size_t first, size_t last,
		     struct mw_ws_region *reg)
{
	const struct mw_vm_region *r = &in->regions->r[first];
	uint64_t end = r->base;
	const struct mw_ws_range *x;
	const char *name = name_of(in, r->alloc_base);
	size_t i;

	for (i = first; i < last; i++)
		end = in->regions->r[i].base + in->regions->r[i].size;
	reg->alloc_base = r->alloc_base;
	reg->size = end - in->regions->r[first].base;
	reg->owner_kind = MW_WS_OWNER_UNKNOWN;
	reg->owner = NULL;
	reg->owner_id = 0;
	if (r->type == MW_VM_IMAGE) {
		reg->category = MW_WS_IMAGE;
		reg->owner_kind = name ? MW_WS_OWNER_MODULE : MW_WS_OWNER_UNKNOWN;
	} else if (r->type == MW_VM_MAPPED) {
		reg->category = name ? MW_WS_MAPPED : MW_WS_SHAREABLE;
		reg->owner_kind = name ? MW_WS_OWNER_FILE : MW_WS_OWNER_UNKNOWN;
	} else if ((x = in_ranges(in->heaps, in->nheaps, r->alloc_base, end))) {
		reg->category = MW_WS_HEAP;
		reg->owner_kind = MW_WS_OWNER_HEAP;
		reg->owner_id = x->id;
	} else if ((x = in_ranges(in->stacks, in->nstacks, r->alloc_base, end))) {
		reg->category = MW_WS_STACK;
		reg->owner_kind = MW_WS_OWNER_STACK;
		reg->owner_id = x->id;
	} else {
		reg->category = MW_WS_PRIVATE;
	}
	if (name && (reg->owner_kind == MW_WS_OWNER_MODULE || reg->owner_kind == MW_WS_OWNER_FILE))
		reg->owner = mw_xstrdup(name);
}

void mw_ws_classify(const struct mw_ws_input *in, struct mw_ws_page *pages, size_t npages,
		    struct mw_ws_result *out)
{
	const struct mw_vm_regions *v = in->regions;
	size_t ri = 0, pi = 0;

	mw_ws_result_release(out);
	out->page_size = in->page_size;
	qsort(pages, npages, sizeof(*pages), page_cmp);
	/* Both sorted: one merge walk, allocation by allocation. */
	while (ri < v->n) {
		size_t first = ri;
		uint64_t ab = v->r[ri].alloc_base, end;
		struct mw_ws_region reg;
		bool any = false;

		if (v->r[ri].state == MW_VM_FREE) {
			ri++;
			continue;
		}
		while (ri < v->n && v->r[ri].state != MW_VM_FREE && v->r[ri].alloc_base == ab)
			ri++;
		end = v->r[ri - 1].base + v->r[ri - 1].size;
		/* pages before this allocation belong to nothing we know */
		while (pi < npages && pages[pi].va < v->r[first].base) {
			int s = sharing_of(&pages[pi]);
			out->pages[MW_WS_OTHER][s]++;
			pi++;
		}
		memset(&reg, 0, sizeof(reg));
		while (pi < npages && pages[pi].va < end) {
			int s = sharing_of(&pages[pi]);

			if (!any) {
				describe(in, first, ri, &reg);
				any = true;
			}
			reg.pages[s]++;
			out->pages[reg.category][s]++;
			pi++;
		}
		if (any) {
			MW_GROW(out->regions, out->cap, out->nregions + 1);
			out->regions[out->nregions++] = reg;
		}
	}
	for (; pi < npages; pi++) {
		out->pages[MW_WS_OTHER][sharing_of(&pages[pi])]++;
	}
}

/* --- the collector ------------------------------------------------------ */

struct ws_state {
	struct mw_watch watch;
	struct mw_targets targets;
	struct mw_ws_snapshot snap;
	struct mw_ws_result result;
};

static int ws_init(void **state, const struct mw_collector_env *env, struct mw_err *why)
{
	struct ws_state *st;

	if (mw_ws_supported(why))
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

	if (mw_watch_targets(&st->watch, &st->targets, &ctx->err))
		return MW_COLLECTOR_ERROR;
	ctx->watch = &st->watch, ctx->watched = &st->targets;	/* reported by the scheduler */
	for (i = 0; i < st->targets.n; i++) {
		const struct mw_target *t = &st->targets.t[i];
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
			struct mw_label l[4] = { { "pid", pid }, { "process", t->name },
						 { "category", "all" }, { "sharing", "all" } };

			mw_batch_add(ctx->batch, "memwatch_workingset_bytes", l, 4,
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
					mw_batch_add(ctx->batch, "memwatch_workingset_bytes", l, 4,
						     (double)res->pages[c][sh] * s->page_size,
						     ctx->ts_ms);
				}
			}
			if (s->mode == MW_WS_MODE_SMAPS) {
				mw_batch_add(ctx->batch, "memwatch_workingset_pss_bytes", l, 2,
					     (double)s->pss_bytes, ctx->ts_ms);
				mw_batch_add(ctx->batch, "memwatch_workingset_uss_bytes", l, 2,
					     (double)s->uss_bytes, ctx->ts_ms);
			}
			enc = mw_ws_encode(res, &len);
			mw_batch_add_detail(ctx->batch, "workingset.regions",
					    "memwatch_workingset_bytes", l, 2, ctx->ts_ms, enc, len);
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
	mw_watch_release(&st->watch);
	mw_targets_release(&st->targets);
	mw_ws_snapshot_release(&st->snap);
	mw_ws_result_release(&st->result);
	free(st);
}

void mw_ws_snapshot_release(struct mw_ws_snapshot *s)
{
	size_t i;

	free(s->pages);
	mw_vm_regions_release(&s->regions);
	for (i = 0; i < s->nnames; i++)
		free((char *)s->names[i].name);
	free(s->names);
	free(s->heaps);
	free(s->stacks);
	mw_ws_result_release(&s->classified);
	free(s->text);
	memset(s, 0, sizeof(*s));
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
