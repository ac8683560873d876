/*
 * vmmap.c - the vmmap collector (portable part) and the pure region
 * summary and /proc/PID/maps parser behind it.
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
#include "core/watch.h"

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
	struct mw_vm_region *r;

	MW_GROW(v->r, v->cap, v->n + 1);
	r = &v->r[v->n++];
	r->base = base;
	r->size = size;
	r->alloc_base = alloc_base;
	r->state = (uint8_t)state;
	r->type = (uint8_t)type;
	r->protect = protect;
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

/* --- the collector ------------------------------------------------------ */

struct vmmap_state {
	struct mw_watch watch;
	struct mw_targets targets;
	struct mw_vm_regions regions;
};

static int vmmap_init(void **state, const struct mw_collector_env *env, struct mw_err *why)
{
	struct vmmap_state *st = mw_xcalloc(1, sizeof(*st));

	if (mw_watch_init(&st->watch, (const char *const *)env->config->watch, env->config->nwatch, why)) {
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

	/* Nothing to watch: no walk of every process's name (on Linux a
	 * readdir of /proc and an exe link per process every 10 s). */
	if (!st->watch.n)
		st->targets.n = 0;
	else if (mw_watch_targets(&st->watch, &st->targets, &ctx->err))
		return MW_COLLECTOR_ERROR;
	ctx->watch = &st->watch, ctx->watched = &st->targets;	/* reported by the scheduler */
	for (i = 0; i < st->targets.n; i++) {
		const struct mw_target *t = &st->targets.t[i];
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
		 ok, st->targets.n, wow, (double)(mw_clock_mono_ns() - t0) / 1e6,
		 why.msg[0] ? "; last refusal: " : "", why.msg);
	return MW_COLLECTOR_OK;
}

static void vmmap_fini(void *state)
{
	struct vmmap_state *st = state;

	if (!st)
		return;
	mw_watch_release(&st->watch);
	mw_targets_release(&st->targets);
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

uint32_t mw_process_access(unsigned need)
{
	uint32_t m = MW_PROCESS_QUERY_LIMITED_INFORMATION;

	if (need & (MW_NEED_REGIONS | MW_NEED_WORKING_SET))
		m = MW_PROCESS_QUERY_INFORMATION;	/* implies LIMITED */
	if (need & (MW_NEED_READ | MW_NEED_WORKING_SET))
		m |= MW_PROCESS_VM_READ;
	return m;
}

uint32_t mw_thread_access(void)
{
	return MW_THREAD_QUERY_LIMITED_INFORMATION;
}
