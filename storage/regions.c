/*
 * regions.c - the region snapshot codec (regions.h, SCHEMA.md).
 *
 * Why keyed by allocation base: between two ticks of a long-running
 * process almost every allocation keeps its base, so a delta is the few
 * bases that went and the few records that changed.  Bases are written
 * as differences from the previous base (sorted), every integer as a
 * LEB128 varint, so a typical record is 10-20 bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "regions.h"
#include "base/xalloc.h"

void mw_rg_buf_release(struct mw_rg_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

static void put_byte(struct mw_rg_buf *b, uint8_t v)
{
	MW_GROW(b->p, b->cap, b->n + 1);
	b->p[b->n++] = v;
}

static void put_var(struct mw_rg_buf *b, uint64_t v)
{
	MW_GROW(b->p, b->cap, b->n + 10);
	while (v >= 0x80) {
		b->p[b->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b->p[b->n++] = (uint8_t)v;
}

struct rd {
	const uint8_t *p;
	size_t n, at;
	bool bad;
};

static uint64_t get_var(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;

	while (r->at < r->n && shift < 64) {
		uint8_t c = r->p[r->at++];

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
		shift += 7;
	}
	r->bad = true;
	return 0;
}

static uint8_t get_byte(struct rd *r)
{
	if (r->at >= r->n) {
		r->bad = true;
		return 0;
	}
	return r->p[r->at++];
}

static int region_cmp(const void *a, const void *b)
{
	const struct mw_ws_region *x = a, *y = b;

	return x->alloc_base < y->alloc_base ? -1 : x->alloc_base > y->alloc_base;
}

static void recount(struct mw_ws_result *r)
{
	memset(r->pages, 0, sizeof(r->pages));
	mw_ws_region_totals(r, r->pages);
}

bool mw_rg_normalize(struct mw_ws_result *r)
{
	bool dup = false;
	size_t i;

	if (r->nregions > 1)
		qsort(r->regions, r->nregions, sizeof(*r->regions), region_cmp);
	for (i = 1; i < r->nregions; i++)
		dup |= r->regions[i].alloc_base == r->regions[i - 1].alloc_base;
	recount(r);
	return dup;
}

static void put_record(struct mw_rg_buf *b, const struct mw_ws_region *g, uint64_t prev_base,
		       mw_rg_intern_fn intern, void *ctx)
{
	put_var(b, g->alloc_base - prev_base);
	put_var(b, g->size);
	put_byte(b, g->category);
	put_byte(b, g->owner_kind);
	put_var(b, g->owner_id);
	put_var(b, g->owner ? intern(ctx, g->owner) : 0);
	put_var(b, g->pages[0]);
	put_var(b, g->pages[1]);
	put_var(b, g->pages[2]);
}

static int get_record(struct rd *r, struct mw_ws_region *g, uint64_t prev_base,
		      mw_rg_owner_fn owner, void *ctx, struct mw_err *err)
{
	uint64_t ref, v[3];
	int s;

	memset(g, 0, sizeof(*g));
	g->alloc_base = prev_base + get_var(r);
	g->size = get_var(r);
	g->category = get_byte(r);
	g->owner_kind = get_byte(r);
	g->owner_id = (uint32_t)get_var(r);
	ref = get_var(r);
	for (s = 0; s < MW_WS_NSHARING; s++)
		v[s] = get_var(r);
	if (r->bad || g->category >= MW_WS_NCATEGORIES || ref > UINT32_MAX ||
	    v[0] > UINT32_MAX || v[1] > UINT32_MAX || v[2] > UINT32_MAX)
		return mw_error(err, "region snapshot: malformed record at byte %zu", r->at);
	for (s = 0; s < MW_WS_NSHARING; s++)
		g->pages[s] = (uint32_t)v[s];
	if (ref) {
		const char *t = owner(ctx, (uint32_t)ref);

		if (!t)
			return mw_error(err, "region snapshot: unknown owner id %llu",
					(unsigned long long)ref);
		g->owner = mw_xstrdup(t);
	}
	return 0;
}

void mw_rg_encode_keyframe(const struct mw_ws_result *cur, mw_rg_intern_fn intern, void *ctx,
			   struct mw_rg_buf *out)
{
	uint64_t prev = 0;
	size_t i;

	out->n = 0;
	put_byte(out, MW_RG_KEYFRAME);
	put_var(out, cur->page_size);
	put_var(out, cur->nregions);
	for (i = 0; i < cur->nregions; i++) {
		put_record(out, &cur->regions[i], prev, intern, ctx);
		prev = cur->regions[i].alloc_base;
	}
}

static bool same_region(const struct mw_ws_region *a, const struct mw_ws_region *b)
{
	if (a->size != b->size || a->category != b->category || a->owner_kind != b->owner_kind ||
	    a->owner_id != b->owner_id || memcmp(a->pages, b->pages, sizeof(a->pages)))
		return false;
	if (!a->owner || !b->owner)
		return a->owner == b->owner;
	return !strcmp(a->owner, b->owner);
}

void mw_rg_encode_delta(const struct mw_ws_result *prev, const struct mw_ws_result *cur,
			mw_rg_intern_fn intern, void *ctx, struct mw_rg_buf *out)
{
	size_t i = 0, j = 0, nrem = 0, nups = 0;
	size_t *rem = mw_xmalloc((prev->nregions + 1) * sizeof(*rem));
	size_t *ups = mw_xmalloc((cur->nregions + 1) * sizeof(*ups));
	uint64_t last = 0;

	while (i < prev->nregions || j < cur->nregions) {
		const struct mw_ws_region *x = i < prev->nregions ? &prev->regions[i] : NULL;
		const struct mw_ws_region *y = j < cur->nregions ? &cur->regions[j] : NULL;

		if (x && (!y || x->alloc_base < y->alloc_base)) {
			rem[nrem++] = i++;
		} else if (y && (!x || y->alloc_base < x->alloc_base)) {
			ups[nups++] = j++;
		} else if (x && y) {
			if (!same_region(x, y))
				ups[nups++] = j;
			i++;
			j++;
		}
	}
	out->n = 0;
	if (nrem || nups) {
		put_byte(out, MW_RG_DELTA);
		put_var(out, nrem);
		for (i = 0; i < nrem; i++) {
			put_var(out, prev->regions[rem[i]].alloc_base - last);
			last = prev->regions[rem[i]].alloc_base;
		}
		put_var(out, nups);
		last = 0;
		for (i = 0; i < nups; i++) {
			put_record(out, &cur->regions[ups[i]], last, intern, ctx);
			last = cur->regions[ups[i]].alloc_base;
		}
	}
	free(rem);
	free(ups);
}

static void free_regions(struct mw_ws_region *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(g[i].owner);
	free(g);
}

static int apply_keyframe(struct mw_ws_result *snap, struct rd *r, mw_rg_owner_fn owner,
			  void *ctx, struct mw_err *err)
{
	uint64_t page_size = get_var(r), count = get_var(r), prev = 0;
	struct mw_ws_region *g;
	size_t i;

	if (r->bad || page_size > UINT32_MAX || count > (r->n - r->at) / 9 + 1)
		return mw_error(err, "region snapshot: malformed keyframe header");
	g = mw_xcalloc(count + 1, sizeof(*g));
	for (i = 0; i < count; i++) {
		if (get_record(r, &g[i], prev, owner, ctx, err)) {
			free_regions(g, i + 1);
			return -1;
		}
		prev = g[i].alloc_base;
	}
	mw_ws_result_release(snap);
	snap->regions = g;
	snap->nregions = snap->cap = count;
	snap->page_size = (uint32_t)page_size;
	return 0;
}

static int apply_delta(struct mw_ws_result *snap, struct rd *r, mw_rg_owner_fn owner,
		       void *ctx, struct mw_err *err)
{
	uint64_t nrem = get_var(r), nups, last = 0, *rem;
	struct mw_ws_region *ups, *out;
	size_t i, j = 0, k = 0, n = 0;
	int rc = -1;

	if (r->bad || nrem > r->n - r->at)
		return mw_error(err, "region snapshot: malformed delta");
	rem = mw_xmalloc((nrem + 1) * sizeof(*rem));
	for (i = 0; i < nrem; i++) {
		rem[i] = last + get_var(r);
		last = rem[i];
	}
	nups = get_var(r);
	if (r->bad || nups > r->n - r->at) {
		free(rem);
		return mw_error(err, "region snapshot: malformed delta");
	}
	ups = mw_xcalloc(nups + 1, sizeof(*ups));
	last = 0;
	for (i = 0; i < nups; i++) {
		if (get_record(r, &ups[i], last, owner, ctx, err)) {
			free_regions(ups, i + 1);
			free(rem);
			return -1;
		}
		last = ups[i].alloc_base;
	}
	/* merge: snap minus rem, with ups replacing or inserted */
	out = mw_xcalloc(snap->nregions + nups + 1, sizeof(*out));
	for (i = 0; i < snap->nregions || k < nups;) {
		struct mw_ws_region *x = i < snap->nregions ? &snap->regions[i] : NULL;
		struct mw_ws_region *y = k < nups ? &ups[k] : NULL;

		if (x && (!y || x->alloc_base <= y->alloc_base)) {
			while (j < nrem && rem[j] < x->alloc_base)
				j++;
			if (y && x->alloc_base == y->alloc_base) {
				free(x->owner);		/* replaced */
				i++;
				continue;
			}
			if (j < nrem && rem[j] == x->alloc_base)
				free(x->owner);		/* removed */
			else
				out[n++] = *x;
			i++;
		} else if (y) {
			out[n++] = *y;
			k++;
		}
	}
	free(snap->regions);
	free(ups);
	snap->regions = out;
	snap->nregions = snap->cap = n;
	rc = 0;
	free(rem);
	return rc;
}

int mw_rg_apply(struct mw_ws_result *snap, const uint8_t *blob, size_t len,
		mw_rg_owner_fn owner, void *ctx, struct mw_err *err)
{
	struct rd r = { blob, len, 0, false };
	uint8_t kind;
	int rc;

	if (!len)
		return 0;
	kind = get_byte(&r);
	if (kind == MW_RG_KEYFRAME)
		rc = apply_keyframe(snap, &r, owner, ctx, err);
	else if (kind == MW_RG_DELTA)
		rc = apply_delta(snap, &r, owner, ctx, err);
	else
		return mw_error(err, "region snapshot: unknown format byte 0x%02x", kind);
	if (rc)
		return -1;
	if (r.at != r.n)
		return mw_error(err, "region snapshot: %zu bytes after the end", r.n - r.at);
	recount(snap);
	return 0;
}

void mw_rg_copy(struct mw_ws_result *dst, const struct mw_ws_result *src)
{
	size_t i;

	mw_ws_result_release(dst);
	dst->regions = mw_xcalloc(src->nregions + 1, sizeof(*dst->regions));
	dst->nregions = dst->cap = src->nregions;
	for (i = 0; i < src->nregions; i++) {
		dst->regions[i] = src->regions[i];
		dst->regions[i].owner = src->regions[i].owner ? mw_xstrdup(src->regions[i].owner)
							      : NULL;
	}
	memcpy(dst->pages, src->pages, sizeof(dst->pages));
	dst->page_size = src->page_size;
}
