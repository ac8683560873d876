/*
 * workingset_pages.c - the working set as data, pure (workingset.h): the
 * Windows working-set entries decoded, resident pages classified into
 * categories, sharing classes and allocations, and a snapshot released.
 * The workingset collector (workingset.c) and the platform readers
 * (workingset_win32.c, workingset_linux.c) call these; these call
 * neither.
 */
#include "workingset.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

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

/* Pages by share count (0-7) into PSS and USS: one division per count,
 * so a third of a page is a third, not 1,365 bytes. */
static void pss_of_counts(const uint64_t counts[8], uint32_t page_size, uint64_t *pss,
			  uint64_t *uss)
{
	double shared = 0;
	int c;

	*uss = (counts[0] + counts[1]) * page_size;
	for (c = 2; c < 8; c++)
		shared += (double)counts[c] * page_size / c;
	*pss = *uss + (uint64_t)(shared + 0.5);
}

void mw_ws_pages_pss(const struct mw_ws_page *p, size_t n, uint32_t page_size, uint64_t *pss,
		     uint64_t *uss)
{
	uint64_t counts[8] = { 0 };
	size_t i;

	for (i = 0; i < n; i++)
		counts[p[i].share_count & 7]++;
	pss_of_counts(counts, page_size, pss, uss);
}

void mw_ws_blocks_pss(const uint64_t *blocks, size_t n, uint32_t page_size, uint64_t *pss,
		      uint64_t *uss)
{
	uint64_t counts[8] = { 0 };
	size_t i;

	for (i = 0; i < n; i++)
		counts[mw_ws_from_block(blocks[i]).share_count]++;
	pss_of_counts(counts, page_size, pss, uss);
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
