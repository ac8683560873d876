/*
 * heap_breakdown.c - the heap bar, pure (heap.h): where a process's memory
 * is, by kind (heap used / free, stacks, image, static data, private,
 * mapped), from its address space (Windows: the region map, the stacks and
 * the heaps) or from its smaps (Linux).  The heap collector (heap.c) and
 * the Linux reader (heap_linux.c) call it; it calls neither.
 */
#include "heap.h"

#include <stdlib.h>
#include <string.h>

/* --- the breakdown ------------------------------------------------------- */

const char *const mw_heap_kind_names[MW_HK_N] = {
	"heap_used", "heap_free", "stack_reserved", "stack_committed",
	"image", "static_data", "private_other", "mapped", "heap",
};

static bool overlaps_stack(const struct mw_vm_range *s, size_t n, uint64_t lo, uint64_t hi)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i].size && s[i].base < hi && lo < s[i].base + s[i].size)
			return true;
	return false;
}

/* Whether addr lies in a mapped (section view) region of v, sorted by base. */
static bool in_mapped_view(const struct mw_vm_regions *v, uint64_t addr)
{
	size_t lo = 0, hi = v->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct mw_vm_region *r = &v->r[mid];

		if (addr < r->base)
			hi = mid;
		else if (addr - r->base >= r->size)
			lo = mid + 1;
		else
			return r->state != MW_VM_FREE && r->type == MW_VM_MAPPED;
	}
	return false;
}

/* Take want bytes out of *pool, at most what it holds; the bytes taken. */
static uint64_t take(uint64_t *pool, uint64_t want)
{
	if (want > *pool)
		want = *pool;
	*pool -= want;
	return want;
}

void mw_heap_breakdown(const struct mw_vm_regions *v, const struct mw_vm_range *stacks,
		       size_t nstacks, const struct mw_heap_list *heaps,
		       struct mw_heap_breakdown *out)
{
	uint64_t priv = 0;
	size_t i = 0, j;

	memset(out, 0, sizeof(*out));
	while (i < v->n) {
		size_t first = i;
		uint64_t ab = v->r[i].alloc_base, lo, hi;
		bool stack;

		if (v->r[i].state == MW_VM_FREE) {
			i++;
			continue;
		}
		/* one allocation: consecutive regions with its AllocationBase */
		while (i < v->n && v->r[i].state != MW_VM_FREE && v->r[i].alloc_base == ab)
			i++;
		lo = v->r[first].base;
		hi = v->r[i - 1].base + v->r[i - 1].size;
		stack = overlaps_stack(stacks, nstacks, lo, hi);
		for (j = first; j < i; j++) {
			const struct mw_vm_region *r = &v->r[j];
			bool commit = r->state == MW_VM_COMMIT;

			switch (r->type) {
			case MW_VM_IMAGE:
				if (commit)
					out->bytes[(r->protect & 0xff & MW_PAGE_WRITABLE) ? MW_HK_STATIC_DATA
											 : MW_HK_IMAGE] += r->size;
				break;
			case MW_VM_MAPPED:
				if (commit)
					out->bytes[MW_HK_MAPPED] += r->size;
				break;
			default:	/* private */
				if (stack)
					out->bytes[commit ? MW_HK_STACK_COMMITTED : MW_HK_STACK_RESERVED] +=
						r->size;
				else if (commit)
					priv += r->size;
				break;
			}
		}
	}
	/* A heap in a section view (a shared heap, CSR's) is in mapped bytes,
	 * not private ones: its figures come out of mapped (pool 1). */
	if (heaps && heaps->n && heaps->h[0].segments) {
		/* PEB heap list: only the committed heap is known */
		uint64_t whole[2] = { 0, 0 };

		for (i = 0; i < heaps->n; i++)
			whole[in_mapped_view(v, heaps->h[i].base)] += heaps->h[i].committed;
		out->bytes[MW_HK_HEAP] = take(&priv, whole[0]) +
					 take(&out->bytes[MW_HK_MAPPED], whole[1]);
		out->have_heaps = out->heap_whole = true;
	} else if (heaps) {
		uint64_t used[2] = { 0, 0 }, unused[2] = { 0, 0 };

		for (i = 0; i < heaps->n; i++) {
			const struct mw_heap_totals *h = &heaps->h[i];
			int m = in_mapped_view(v, h->base);

			used[m] += h->busy;
			if (h->summary)
				unused[m] += h->committed > h->busy ? h->committed - h->busy : 0;
			else
				unused[m] += h->free + h->overhead;
		}
		/* The heap figures and the walk are two snapshots: clip. */
		out->bytes[MW_HK_HEAP_USED] = take(&priv, used[0]);
		out->bytes[MW_HK_HEAP_FREE] = take(&priv, unused[0]);
		out->bytes[MW_HK_HEAP_USED] += take(&out->bytes[MW_HK_MAPPED], used[1]);
		out->bytes[MW_HK_HEAP_FREE] += take(&out->bytes[MW_HK_MAPPED], unused[1]);
		out->have_heaps = true;
	}
	out->bytes[MW_HK_PRIVATE_OTHER] = priv;
}

void mw_heap_breakdown_smaps(const struct mw_smaps *s, const struct mw_smaps_use *u,
			     struct mw_heap_breakdown *out)
{
	static const uint8_t kind_of[MW_SK_N] = {
		[MW_SK_IMAGE] = MW_HK_IMAGE, [MW_SK_STATIC_DATA] = MW_HK_STATIC_DATA,
		[MW_SK_MAPPED] = MW_HK_MAPPED, [MW_SK_HEAP] = MW_HK_HEAP,
		[MW_SK_STACK] = MW_HK_STACK_COMMITTED, [MW_SK_PRIVATE] = MW_HK_PRIVATE_OTHER,
	};
	size_t i;

	memset(out, 0, sizeof(*out));
	out->heap_whole = true;
	for (i = 0; i < s->n; i++) {
		uint64_t size = s->m[i].end - s->m[i].start;

		if (!u[i].counted || u[i].kind >= MW_SK_N)
			continue;
		if (u[i].reserved) {
			/* address space only: a stack's guard is its reserve */
			if (u[i].kind == MW_SK_STACK)
				out->bytes[MW_HK_STACK_RESERVED] += size;
			continue;
		}
		out->bytes[kind_of[u[i].kind]] += size;
	}
}
