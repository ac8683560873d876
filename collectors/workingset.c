/*
 * workingset.c - the workingset collector (portable part): page
 * classification, the "workingset.regions" encoding and its diff.
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
#include "core/watch.h"

const char *const mw_ws_category_names[MW_WS_NCATEGORIES] = {
	"image", "mapped_file", "shareable", "heap", "stack", "private_data", "other",
};
const char *const mw_ws_sharing_names[MW_WS_NSHARING] = { "private", "shareable", "shared" };

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

void mw_ws_result_release(struct mw_ws_result *r)
{
	size_t i;

	for (i = 0; i < r->nregions; i++)
		free(r->regions[i].owner);
	free(r->regions);
	memset(r, 0, sizeof(*r));
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
			int s = pages[pi].share_count > 1 ? MW_WS_SHARED
				: pages[pi].shareable ? MW_WS_SHAREABLE_PAGE : MW_WS_PRIV;
			out->pages[MW_WS_OTHER][s]++;
			pi++;
		}
		memset(&reg, 0, sizeof(reg));
		while (pi < npages && pages[pi].va < end) {
			int s = pages[pi].share_count > 1 ? MW_WS_SHARED
				: pages[pi].shareable ? MW_WS_SHAREABLE_PAGE : MW_WS_PRIV;

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
		int s = pages[pi].share_count > 1 ? MW_WS_SHARED
			: pages[pi].shareable ? MW_WS_SHAREABLE_PAGE : MW_WS_PRIV;
		out->pages[MW_WS_OTHER][s]++;
	}
}

/* --- encoding ----------------------------------------------------------- */

#define WS_HDR 16
#define WS_REC 40

static void w16(unsigned char *p, uint16_t v) { memcpy(p, &v, 2); }
static void w32(unsigned char *p, uint32_t v) { memcpy(p, &v, 4); }
static void w64(unsigned char *p, uint64_t v) { memcpy(p, &v, 8); }
static uint16_t r16(const unsigned char *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static uint32_t r32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static uint64_t r64(const unsigned char *p) { uint64_t v; memcpy(&v, p, 8); return v; }

unsigned char *mw_ws_encode(const struct mw_ws_result *r, size_t *len)
{
	size_t n = WS_HDR, i, at;
	unsigned char *b;

	for (i = 0; i < r->nregions; i++) {
		size_t ol = r->regions[i].owner ? strlen(r->regions[i].owner) : 0;

		n += WS_REC + (ol > 0xffff ? 0xffff : ol);
	}
	b = mw_xmalloc(n);
	memcpy(b, "MWWS", 4);
	w16(b + 4, 1);
	w16(b + 6, 0);
	w32(b + 8, r->page_size);
	w32(b + 12, (uint32_t)r->nregions);
	at = WS_HDR;
	for (i = 0; i < r->nregions; i++) {
		const struct mw_ws_region *g = &r->regions[i];
		size_t ol = g->owner ? strlen(g->owner) : 0;

		if (ol > 0xffff)
			ol = 0xffff;
		w64(b + at, g->alloc_base);
		w64(b + at + 8, g->size);
		b[at + 16] = g->category;
		b[at + 17] = g->owner_kind;
		w16(b + at + 18, (uint16_t)ol);
		w32(b + at + 20, g->owner_id);
		w32(b + at + 24, g->pages[0]);
		w32(b + at + 28, g->pages[1]);
		w32(b + at + 32, g->pages[2]);
		w32(b + at + 36, 0);
		if (ol)
			memcpy(b + at + WS_REC, g->owner, ol);
		at += WS_REC + ol;
	}
	*len = n;
	return b;
}

int mw_ws_decode(const unsigned char *b, size_t len, struct mw_ws_result *r, struct mw_err *err)
{
	uint32_t count, i;
	size_t at = WS_HDR;

	mw_ws_result_release(r);
	if (len < WS_HDR || memcmp(b, "MWWS", 4))
		return mw_error(err, "workingset.regions: no MWWS header");
	if (r16(b + 4) != 1)
		return mw_error(err, "workingset.regions: version %u unknown", r16(b + 4));
	r->page_size = r32(b + 8);
	count = r32(b + 12);
	if (count > (len - WS_HDR) / WS_REC)
		return mw_error(err, "workingset.regions: %" PRIu32 " regions cannot fit in %zu bytes",
				count, len);
	r->regions = mw_xcalloc(count ? count : 1, sizeof(*r->regions));
	r->cap = count;
	for (i = 0; i < count; i++) {
		struct mw_ws_region *g = &r->regions[i];
		uint16_t ol;

		if (len - at < WS_REC) {
			mw_ws_result_release(r);
			return mw_error(err, "workingset.regions: region %" PRIu32 " truncated", i);
		}
		ol = r16(b + at + 18);
		if (len - at - WS_REC < ol || b[at + 16] >= MW_WS_NCATEGORIES) {
			mw_ws_result_release(r);
			return mw_error(err, "workingset.regions: region %" PRIu32 " is malformed", i);
		}
		g->alloc_base = r64(b + at);
		g->size = r64(b + at + 8);
		g->category = b[at + 16];
		g->owner_kind = b[at + 17];
		g->owner_id = r32(b + at + 20);
		g->pages[0] = r32(b + at + 24);
		g->pages[1] = r32(b + at + 28);
		g->pages[2] = r32(b + at + 32);
		g->owner = ol ? mw_xstrndup((const char *)b + at + WS_REC, ol) : NULL;
		for (int s = 0; s < MW_WS_NSHARING; s++)
			r->pages[g->category][s] += g->pages[s];
		r->nregions = i + 1;
		at += WS_REC + ol;
	}
	if (at != len) {
		mw_ws_result_release(r);
		return mw_error(err, "workingset.regions: %zu bytes after the last region", len - at);
	}
	return 0;
}

static int region_cmp(const void *a, const void *b)
{
	const struct mw_ws_region *x = *(const struct mw_ws_region *const *)a;
	const struct mw_ws_region *y = *(const struct mw_ws_region *const *)b;

	return x->alloc_base < y->alloc_base ? -1 : x->alloc_base > y->alloc_base;
}

static const struct mw_ws_region **sorted(const struct mw_ws_result *r)
{
	const struct mw_ws_region **p = mw_xmalloc((r->nregions + 1) * sizeof(*p));
	size_t i;

	for (i = 0; i < r->nregions; i++)
		p[i] = &r->regions[i];
	qsort(p, r->nregions, sizeof(*p), region_cmp);
	return p;
}

size_t mw_ws_diff(const struct mw_ws_result *before, const struct mw_ws_result *after,
		  struct mw_ws_delta **out)
{
	const struct mw_ws_region **a = sorted(before), **b = sorted(after);
	size_t i = 0, j = 0, n = 0, cap = 0;
	struct mw_ws_delta *d = NULL;

	while (i < before->nregions || j < after->nregions) {
		const struct mw_ws_region *x = i < before->nregions ? a[i] : NULL;
		const struct mw_ws_region *y = j < after->nregions ? b[j] : NULL;
		struct mw_ws_delta e;
		bool changed = false;

		if (x && y && x->alloc_base != y->alloc_base) {
			if (x->alloc_base < y->alloc_base)
				y = NULL;
			else
				x = NULL;
		}
		const struct mw_ws_region *one = y ? y : x;

		if (!one)
			break;
		memset(&e, 0, sizeof(e));
		e.alloc_base = one->alloc_base;
		e.category = one->category;
		e.owner = one->owner ? one->owner : x ? x->owner : NULL;
		for (int s = 0; s < MW_WS_NSHARING; s++) {
			e.pages[s] = (int64_t)(y ? y->pages[s] : 0) - (int64_t)(x ? x->pages[s] : 0);
			changed |= e.pages[s] != 0;
		}
		if (changed) {
			MW_GROW(d, cap, n + 1);
			d[n++] = e;
		}
		i += x != NULL;
		j += y != NULL;
	}
	free(a);
	free(b);
	*out = d;
	return n;
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
			if (s->mode == MW_WS_MODE_SMAPS) {
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
