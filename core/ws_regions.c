/*
 * ws_regions.c - the working-set region type: its names, the
 * "workingset.regions" encoding and the walk by allocation base that the
 * diffs share (ws_regions.h).
 */
#include "ws_regions.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

const char *const mw_ws_category_names[MW_WS_NCATEGORIES] = {
	"image", "mapped_file", "shareable", "heap", "stack", "private_data", "other",
};
const char *const mw_ws_sharing_names[MW_WS_NSHARING] = { "private", "shareable", "shared" };
const char *const mw_ws_owner_kind_names[MW_WS_NOWNER_KINDS] = {
	"unknown", "module", "file", "heap", "stack",
};

void mw_ws_result_release(struct mw_ws_result *r)
{
	size_t i;

	for (i = 0; i < r->nregions; i++)
		free(r->regions[i].owner);
	free(r->regions);
	memset(r, 0, sizeof(*r));
}

void mw_ws_region_totals(const struct mw_ws_result *r,
			 uint64_t t[MW_WS_NCATEGORIES][MW_WS_NSHARING])
{
	size_t i;
	int s;

	for (i = 0; i < r->nregions; i++)
		if (r->regions[i].category < MW_WS_NCATEGORIES)
			for (s = 0; s < MW_WS_NSHARING; s++)
				t[r->regions[i].category][s] += r->regions[i].pages[s];
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
		r->nregions = i + 1;
		at += WS_REC + ol;
	}
	if (at != len) {
		mw_ws_result_release(r);
		return mw_error(err, "workingset.regions: %zu bytes after the last region", len - at);
	}
	mw_ws_region_totals(r, r->pages);
	return 0;
}

/* --- the walk by base --------------------------------------------------- */

static int by_base(const void *a, const void *b)
{
	const struct mw_ws_region *x = *(const struct mw_ws_region *const *)a;
	const struct mw_ws_region *y = *(const struct mw_ws_region *const *)b;

	return x->alloc_base < y->alloc_base ? -1 : x->alloc_base > y->alloc_base;
}

/* Pointers, not copies: the regions stay where they are (owners too). */
static const struct mw_ws_region **sorted(const struct mw_ws_result *r)
{
	const struct mw_ws_region **p = mw_xmalloc((r->nregions + 1) * sizeof(*p));
	size_t i;

	for (i = 0; i < r->nregions; i++)
		p[i] = &r->regions[i];
	qsort(p, r->nregions, sizeof(*p), by_base);
	return p;
}

void mw_ws_pairs_init(struct mw_ws_pairs *w, const struct mw_ws_result *before,
		      const struct mw_ws_result *after)
{
	w->a = sorted(before);
	w->b = sorted(after);
	w->na = before->nregions;
	w->nb = after->nregions;
	w->i = w->j = 0;
}

bool mw_ws_pairs_next(struct mw_ws_pairs *w, const struct mw_ws_region **x,
		      const struct mw_ws_region **y)
{
	*x = w->i < w->na ? w->a[w->i] : NULL;
	*y = w->j < w->nb ? w->b[w->j] : NULL;
	if (*x && *y && (*x)->alloc_base != (*y)->alloc_base) {
		if ((*x)->alloc_base < (*y)->alloc_base)
			*y = NULL;
		else
			*x = NULL;
	}
	w->i += *x != NULL;
	w->j += *y != NULL;
	return *x || *y;
}

void mw_ws_pairs_release(struct mw_ws_pairs *w)
{
	free(w->a);
	free(w->b);
	memset(w, 0, sizeof(*w));
}

size_t mw_ws_diff(const struct mw_ws_result *before, const struct mw_ws_result *after,
		  struct mw_ws_delta **out)
{
	const struct mw_ws_region *x, *y;
	struct mw_ws_pairs w;
	size_t n = 0, cap = 0;
	struct mw_ws_delta *d = NULL;

	mw_ws_pairs_init(&w, before, after);
	while (mw_ws_pairs_next(&w, &x, &y)) {
		const struct mw_ws_region *one = y ? y : x;
		struct mw_ws_delta e;
		bool changed = false;

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
	}
	mw_ws_pairs_release(&w);
	*out = d;
	return n;
}
