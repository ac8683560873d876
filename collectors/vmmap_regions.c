/*
 * vmmap_regions.c - the address space as data, pure (vmmap.h): the region
 * and range lists the platforms fill, their summary, the /proc/PID/maps
 * parser, and the access rights each kind of read needs.  The vmmap
 * collector (vmmap.c) and the platform readers (vmmap_win32.c,
 * vmmap_linux.c) call these; these call neither.
 */
#include "vmmap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

const char *const mw_vm_state_names[MW_VM_NSTATES] = { "committed", "reserved", "free" };
const char *const mw_vm_type_names[MW_VM_NTYPES] = { "image", "mapped", "private", "none" };

void mw_vm_regions_release(struct mw_vm_regions *v)
{
	free(v->r);
	memset(v, 0, sizeof(*v));
}

void mw_vm_regions_add(struct mw_vm_regions *v, uint64_t base, uint64_t size, uint64_t alloc_base,
		       int state, int type, uint32_t protect)
{
	MW_GROW(v->r, v->cap, v->n + 1);
	v->r[v->n++] = (struct mw_vm_region){
		.base = base, .size = size, .alloc_base = alloc_base,
		.state = (uint8_t)state, .type = (uint8_t)type, .protect = protect,
	};
}

void mw_vm_ranges_add(struct mw_vm_ranges *s, uint64_t base, uint64_t size, uint32_t id)
{
	MW_GROW(s->r, s->cap, s->n + 1);
	s->r[s->n].base = base;
	s->r[s->n].size = size;
	s->r[s->n++].id = id;
}

void mw_vm_ranges_release(struct mw_vm_ranges *s)
{
	free(s->r);
	memset(s, 0, sizeof(*s));
}

static void add_free(struct mw_vm_summary *s, uint64_t size)
{
	if (!size)
		return;
	s->bytes[MW_VM_FREE][MW_VM_NONE] += size;
	s->free_blocks++;
	if (size > s->largest_free)
		s->largest_free = size;
}

void mw_vm_summarize(const struct mw_vm_regions *v, struct mw_vm_summary *s)
{
	uint64_t at = v->lo, run_free = 0, last_alloc = UINT64_MAX;
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < v->n; i++) {
		const struct mw_vm_region *r = &v->r[i];
		uint64_t base = r->base, end = r->base + r->size;

		if (end <= v->lo || (v->hi && base >= v->hi) || end < base)
			continue;
		if (base < at)
			base = at;	/* overlapping or before lo: clip */
		if (v->hi && end > v->hi)
			end = v->hi;
		if (base >= end)
			continue;
		run_free += base - at;	/* a gap no region covers */
		if (r->state == MW_VM_FREE) {
			run_free += end - base;
		} else {
			add_free(s, run_free);
			run_free = 0;
			s->bytes[r->state < MW_VM_NSTATES ? r->state : MW_VM_RESERVE]
				[r->type < MW_VM_NTYPES ? r->type : MW_VM_NONE] += end - base;
			s->regions++;
			if (r->alloc_base != last_alloc)
				s->allocations++;
			last_alloc = r->alloc_base;
		}
		at = end;
	}
	if (v->hi > at)
		run_free += v->hi - at;
	add_free(s, run_free);
}

int mw_vm_parse_maps(const char *text, struct mw_vm_regions *v, struct mw_err *err)
{
	const char *line = text;
	size_t lineno = 0;

	v->n = 0;
	while (*line) {
		unsigned long long lo, hi, off, inode;
		char perms[8], dev[16];
		int n = 0, path_at = 0;
		const char *nl = strchr(line, '\n');
		const char *path;
		int type, state;

		lineno++;
		if (sscanf(line, "%llx-%llx %7s %llx %15s %llu %n", &lo, &hi, perms, &off, dev,
			   &inode, &n) < 6 || hi < lo)
			return mw_error(err, "maps line %zu is not 'lo-hi perms offset dev inode [path]'",
					lineno);
		path_at = n;
		path = line + path_at;
		if (inode != 0 && *path == '/')
			type = perms[2] == 'x' ? MW_VM_IMAGE : MW_VM_MAPPED;
		else
			type = MW_VM_PRIVATE;
		state = (!strncmp(perms, "---", 3) && type == MW_VM_PRIVATE) ? MW_VM_RESERVE
									       : MW_VM_COMMIT;
		/* Image sections share the allocation of the file's first map. */
		mw_vm_regions_add(v, lo, hi - lo, lo, state, type, 0);
		if (!nl)
			break;
		line = nl + 1;
	}
	return 0;
}

uint32_t mw_process_access(unsigned need)
{
	uint32_t m = MW_PROCESS_QUERY_LIMITED_INFORMATION;

	if (need & (MW_NEED_REGIONS | MW_NEED_WORKING_SET))
		m = MW_PROCESS_QUERY_INFORMATION;	/* implies LIMITED */
	if (need & (MW_NEED_READ | MW_NEED_WORKING_SET | MW_NEED_MEMORY_INFO))
		m |= MW_PROCESS_VM_READ;
	return m;
}

uint32_t mw_thread_access(void)
{
	return MW_THREAD_QUERY_LIMITED_INFORMATION;
}
