/*
 * heap.c - the heap collector (portable part) and the pure functions
 * behind it: HeapWalk accounting, the breakdown, the remote summary and
 * SystemProcessInformation thread parsers, the back-off table.
 */
#include "heap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "core/collector.h"
#include "core/metric_catalog.h"
#include "core/config.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "process.h"
#include "core/watch.h"

void mw_heap_account(struct mw_heap_totals *t, uint32_t flags, uint64_t cb, uint32_t overhead,
		     uint64_t region_committed, uint64_t region_uncommitted)
{
	if (flags & MW_HEAP_REGION) {
		/* A region (segment) header: its sizes, not a block. */
		t->regions++;
		t->committed += region_committed;
		t->uncommitted += region_uncommitted;
	} else if (flags & MW_HEAP_UNCOMMITTED_RANGE) {
		/* counted by the region entry already */
	} else if (flags & MW_HEAP_ENTRY_BUSY) {
		t->busy += cb;
		t->overhead += overhead;
		t->blocks++;
	} else {
		t->free += cb;
		t->overhead += overhead;
		t->free_blocks++;
	}
}

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
	if (heaps && heaps->n && heaps->h[0].segments) {
		/* PEB heap list: only the committed heap is known */
		uint64_t whole = 0;

		for (i = 0; i < heaps->n; i++)
			whole += heaps->h[i].committed;
		if (whole > priv)
			whole = priv;
		out->bytes[MW_HK_HEAP] = whole;
		priv -= whole;
		out->have_heaps = out->heap_whole = true;
	} else if (heaps) {
		uint64_t used = 0, unused = 0;

		for (i = 0; i < heaps->n; i++) {
			const struct mw_heap_totals *h = &heaps->h[i];

			used += h->busy;
			if (h->summary)
				unused += h->committed > h->busy ? h->committed - h->busy : 0;
			else
				unused += h->free + h->overhead;
		}
		/* The heap figures and the walk are two snapshots: clip. */
		if (used > priv)
			used = priv;
		if (unused > priv - used)
			unused = priv - used;
		out->bytes[MW_HK_HEAP_USED] = used;
		out->bytes[MW_HK_HEAP_FREE] = unused;
		priv -= used + unused;
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

/* --- other processes from the PEB heap list -------------------------------- */

void mw_heap_from_ranges(const struct mw_vm_regions *v, const struct mw_vm_ranges *ranges,
			 struct mw_heap_list *out)
{
	uint64_t *claimed = NULL;
	size_t nclaimed = 0, claimed_cap = 0, i, j, k;

	out->n = 0;
	for (i = 0; i < ranges->n; i++) {
		const struct mw_vm_range *rg = &ranges->r[i];
		struct mw_heap_totals *t = NULL;

		for (k = 0; k < out->n; k++)
			if (out->h[k].id == rg->id)
				t = &out->h[k];
		if (!t) {
			MW_GROW(out->h, out->cap, out->n + 1);
			t = &out->h[out->n++];
			memset(t, 0, sizeof(*t));
			t->id = rg->id;
			t->segments = true;
			t->base = rg->base;
		}
		for (j = 0; j < v->n; j++) {
			const struct mw_vm_region *r = &v->r[j];
			uint64_t ab = r->alloc_base;
			size_t a;

			if (r->state == MW_VM_FREE || r->base >= rg->base + (rg->size ? rg->size : 1) ||
			    r->base + r->size <= rg->base)
				continue;
			for (k = 0; k < nclaimed && claimed[k] != ab; k++)
				;
			if (k < nclaimed)
				continue;	/* another range (or heap) has it */
			MW_GROW(claimed, claimed_cap, nclaimed + 1);
			claimed[nclaimed++] = ab;
			/* the whole allocation: the consecutive regions sharing ab */
			for (a = j; a > 0 && v->r[a - 1].state != MW_VM_FREE &&
				    v->r[a - 1].alloc_base == ab; a--)
				;
			for (; a < v->n && v->r[a].state != MW_VM_FREE && v->r[a].alloc_base == ab; a++) {
				if (v->r[a].state == MW_VM_COMMIT)
					t->committed += v->r[a].size;
				else
					t->uncommitted += v->r[a].size;
			}
			t->regions++;
		}
	}
	free(claimed);
}

/* --- the remote summary --------------------------------------------------- */

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

size_t mw_heap_info_stride(uint32_t build)
{
	/* RTL_HEAP_INFORMATION gained HeapTag after Windows 11 21H2 (22000). */
	return build > 22000 ? MW_RHI_SIZE_V2 : MW_RHI_SIZE_V1;
}

int mw_heap_parse_debug_info(const unsigned char *buf, size_t len, uint64_t buf_addr,
			     size_t stride, struct mw_heap_list *out, struct mw_err *err)
{
	uint64_t heaps, off;
	uint32_t n, i;

	out->n = 0;
	if (len < MW_RDI_HEAPS + 8)
		return mw_error(err, "debug buffer: %zu bytes, too short for its header", len);
	if (stride < MW_RHI_NUMBER_OF_ENTRIES + 4)
		return mw_error(err, "debug buffer: heap record size %zu too small", stride);
	heaps = rd64(buf + MW_RDI_HEAPS);
	if (!heaps)
		return mw_error(err, "RtlQueryProcessDebugInformation returned no heaps"), 1;
	off = heaps - buf_addr;
	if (heaps < buf_addr || off > len || len - off < MW_RPH_HEAPS)
		return mw_error(err, "debug buffer: Heaps 0x%" PRIx64 " is outside the %zu bytes "
				"at 0x%" PRIx64, heaps, len, buf_addr);
	n = rd32(buf + off);
	if (n > MW_HEAP_MAX_HEAPS || (len - off - MW_RPH_HEAPS) / stride < n)
		return mw_error(err, "debug buffer: %" PRIu32 " heaps of %zu bytes cannot fit in "
				"%" PRIu64 " bytes", n, stride, (uint64_t)(len - off - MW_RPH_HEAPS));
	MW_GROW(out->h, out->cap, n ? n : 1);
	for (i = 0; i < n; i++) {
		const unsigned char *e = buf + off + MW_RPH_HEAPS + (size_t)i * stride;
		struct mw_heap_totals *t = &out->h[i];

		memset(t, 0, sizeof(*t));
		t->summary = true;
		t->base = rd64(e + MW_RHI_BASE);
		t->busy = rd64(e + MW_RHI_BYTES_ALLOCATED);
		t->committed = rd64(e + MW_RHI_BYTES_COMMITTED);
		t->blocks = rd32(e + MW_RHI_NUMBER_OF_ENTRIES);
		t->free = t->committed > t->busy ? t->committed - t->busy : 0;
	}
	out->n = n;
	return 0;
}

int mw_heap_spi_find(const unsigned char *buf, size_t len, uint32_t pid,
		     struct mw_heap_proc_state *out, struct mw_err *err)
{
	size_t off = 0;

	memset(out, 0, sizeof(*out));
	for (;;) {
		const unsigned char *e = buf + off;
		uint32_t next, nthreads, k;
		size_t room;

		if (len - off < MW_SPI_SIZE)
			return mw_error(err, "process record at %zu: %zu bytes left, needs %d", off,
					len - off, MW_SPI_SIZE);
		next = rd32(e + MW_SPI_NEXT);
		if (next && (next < MW_SPI_SIZE || next > len - off))
			return mw_error(err, "process record at %zu: next offset %" PRIu32
					" is out of bounds", off, next);
		if (rd64(e + MW_SPI_PID) == pid) {
			room = (next ? next : len - off) - MW_SPI_SIZE;
			nthreads = rd32(e + MW_SPI_THREADS);
			if (nthreads > room / MW_STI_SIZE)
				return mw_error(err, "process %" PRIu32 ": %" PRIu32 " threads cannot fit "
						"in %zu bytes", pid, nthreads, room);
			out->found = true;
			out->create_time = rd64(e + MW_SPI_CREATE_TIME);
			out->threads = nthreads;
			for (k = 0; k < nthreads; k++) {
				const unsigned char *t = e + MW_SPI_SIZE + (size_t)k * MW_STI_SIZE;
				uint32_t wr = rd32(t + MW_STI_WAIT_REASON);

				if (rd32(t + MW_STI_STATE) == MW_THREAD_STATE_WAITING &&
				    (wr == MW_WAIT_SUSPENDED || wr == MW_WAIT_WR_SUSPENDED))
					out->suspended++;
			}
			return 0;
		}
		if (!next)
			return 0;
		off += next;
	}
}

void mw_heap_backoff_hold(struct mw_heap_backoff *b, uint32_t pid, uint64_t create_time,
			  int64_t until_ms, const char *why)
{
	struct mw_heap_held *h = NULL;
	size_t i;

	for (i = 0; i < b->n && !h; i++)
		if (b->e[i].pid == pid && b->e[i].create_time == create_time)
			h = &b->e[i];
	if (!h) {
		MW_GROW(b->e, b->cap, b->n + 1);
		h = &b->e[b->n++];
	}
	h->pid = pid;
	h->create_time = create_time;
	h->until_ms = until_ms;
	snprintf(h->why, sizeof(h->why), "%s", why);
}

const struct mw_heap_held *mw_heap_backoff_find(struct mw_heap_backoff *b, uint32_t pid,
						uint64_t create_time, int64_t now_ms)
{
	size_t i = 0;

	while (i < b->n) {
		if (b->e[i].until_ms <= now_ms) {
			b->e[i] = b->e[--b->n];	/* expired */
			continue;
		}
		i++;
	}
	for (i = 0; i < b->n; i++)
		if (b->e[i].pid == pid && b->e[i].create_time == create_time)
			return &b->e[i];
	return NULL;
}

void mw_heap_backoff_release(struct mw_heap_backoff *b)
{
	free(b->e);
	memset(b, 0, sizeof(*b));
}

/* --- the collector ------------------------------------------------------ */

/* [collector.heap] keys, filled from heap_options below. */
struct heap_options {
	bool remote_summary;
};

static const struct mw_option heap_options[] = {
	{ MW_OPTION(NULL, "remote_summary", MW_OPT_BOOL,
		    offsetof(struct heap_options, remote_summary), "false", 0, 0,
	  "Windows: true reads other processes' heaps with RtlQueryProcessDebugInformation,\n"
	  "which CREATES A THREAD in each watched process every interval (invasive: its DLLs'\n"
	  "thread-attach code runs, heap locks are taken, it can hang; endpoint security may\n"
	  "flag it).  false: heap list and segments from the PEB and heap headers, read without\n"
	  "running code in the target: committed and uncommitted bytes per heap.") },
};

struct heap_state {
	struct mw_watch watch;
	struct mw_targets targets;
	struct mw_heap_list heaps;
	struct mw_heap_reader *reader;
	struct mw_vm_regions regions;
	struct mw_vm_ranges stacks;
	bool logged_no_remote;
	bool remote_summary;
};

static int heap_init(void **state, const struct mw_collector_env *env, struct mw_err *why)
{
	struct heap_options own;
	const struct heap_options *o = mw_collector_options(env, &mw_collector_heap, &own);
	struct mw_heap_reader_opts opts;
	struct heap_state *st;

	memset(&opts, 0, sizeof(opts));
	opts.remote_summary = o->remote_summary;
	if (mw_heap_supported(why))
		return MW_COLLECTOR_UNSUPPORTED;
	st = mw_xcalloc(1, sizeof(*st));
	if (mw_watch_init(&st->watch, (const char *const *)env->config->watch,
			  env->config->nwatch, why)) {
		free(st);
		return MW_COLLECTOR_ERROR;
	}
	st->reader = mw_heap_reader_new(&opts);
	st->remote_summary = opts.remote_summary;
	*state = st;
	return MW_COLLECTOR_OK;
}

/* memwatch_heap_bytes / _blocks per heap and for heap="all". */
static void emit_heaps(struct mw_batch *b, int64_t ts, const char *pid, const char *name,
		       const struct mw_heap_list *heaps)
{
	static const char *const kinds[] = { "committed", "allocated", "free", "uncommitted",
					     "overhead" };
	struct mw_heap_totals all;
	char hn[16];
	size_t h;

	memset(&all, 0, sizeof(all));
	for (h = 0; h <= heaps->n; h++) {
		const struct mw_heap_totals *x = h < heaps->n ? &heaps->h[h] : &all;
		struct mw_label l[4] = { { "pid", pid }, { "process", name }, { "heap", hn } };
		uint64_t v[5] = { x->committed, x->busy, x->free, x->uncommitted, x->overhead };

		if (h < heaps->n) {
			snprintf(hn, sizeof(hn), "%zu", h);
			all.committed += x->committed, all.busy += x->busy;
			all.free += x->free, all.uncommitted += x->uncommitted;
			all.overhead += x->overhead, all.blocks += x->blocks;
			all.summary |= x->summary;
			all.segments |= x->segments;
		} else {
			snprintf(hn, sizeof(hn), "all");
		}
		/* the summary knows no uncommitted or overhead bytes; the PEB
		 * heap list only committed and uncommitted */
		for (int k = 0; k < (x->summary ? 3 : 5); k++) {
			if (x->segments && k != 0 && k != 3)
				continue;
			l[3] = (struct mw_label){ "kind", kinds[k] };
			mw_batch_add(b, mw_metric_name(MW_M_HEAP_BYTES), l, 4, (double)v[k], ts);
		}
		if (!x->segments)
			mw_batch_add(b, mw_metric_name(MW_M_HEAP_BLOCKS), l, 3, (double)x->blocks, ts);
	}
	{
		struct mw_label l[2] = { { "pid", pid }, { "process", name } };

		mw_batch_add(b, mw_metric_name(MW_M_HEAP_COUNT), l, 2, (double)heaps->n, ts);
	}
}

static void emit_breakdown(struct mw_batch *b, int64_t ts, const char *pid, const char *name,
			   const struct mw_heap_breakdown *bd)
{
	for (int k = 0; k < MW_HK_N; k++) {
		struct mw_label l[3] = { { "pid", pid }, { "process", name },
					 { "kind", mw_heap_kind_names[k] } };

		if ((!bd->have_heaps || bd->heap_whole) && (k == MW_HK_HEAP_USED || k == MW_HK_HEAP_FREE))
			continue;
		if (k == MW_HK_HEAP && !bd->heap_whole)
			continue;
		mw_batch_add(b, mw_metric_name(MW_M_HEAP_BREAKDOWN_BYTES), l, 3,
			     (double)bd->bytes[k], ts);
	}
}

/* Linux: the bar from /proc/PID/smaps; no per-heap figures (malloc's
 * used and free blocks cannot be told apart from outside). */
static int sample_bars(struct heap_state *st, struct mw_sample_ctx *ctx, int64_t t0)
{
	struct mw_err why = { "" };
	size_t i, ok = 0;

	for (i = 0; i < st->targets.n; i++) {
		const struct mw_target *t = &st->targets.t[i];
		struct mw_heap_breakdown bd;
		char pid[16];
		int rc = mw_heap_bar_read(t->pid, &bd, &why);

		if (rc < 0)
			mw_log_warn("heap: pid %" PRIu32 ": %s", t->pid, why.msg);
		if (rc) {
			ctx->inaccessible++;
			continue;
		}
		snprintf(pid, sizeof(pid), "%" PRIu32, t->pid);
		emit_breakdown(ctx->batch, ctx->ts_ms, pid, t->name, &bd);
		ok++;
	}
	snprintf(ctx->mode, sizeof(ctx->mode), "%zu of %zu read, %.2f ms; %s%s%.40s", ok,
		 st->targets.n, (double)(mw_clock_mono_ns() - t0) / 1e6, MW_HEAP_LINUX_MODE,
		 why.msg[0] ? "; " : "", why.msg);
	return MW_COLLECTOR_OK;
}

static int heap_sample(void *state, struct mw_sample_ctx *ctx)
{
	struct heap_state *st = state;
	int64_t t0 = mw_clock_mono_ns();
	struct mw_err why = { "" };
	size_t i, ok = 0, no_remote = 0, cut = 0;

	if (mw_watch_targets(&st->watch, &st->targets, &ctx->err))
		return MW_COLLECTOR_ERROR;
	ctx->watch = &st->watch, ctx->watched = &st->targets;	/* reported by the scheduler */
	if (mw_heap_bar_only)
		return sample_bars(st, ctx, t0);
	for (i = 0; i < st->targets.n; i++) {
		const struct mw_target *t = &st->targets.t[i];
		struct mw_heap_breakdown bd;
		struct mw_err werr;
		bool unavailable = false, have;
		char pid[16];

		snprintf(pid, sizeof(pid), "%" PRIu32, t->pid);
		have = mw_heap_read(st->reader, t->pid, t->self, &st->heaps, &unavailable, &why) == 0;
		if (have) {
			ok++;
			for (size_t h = 0; h < st->heaps.n; h++)
				cut += st->heaps.h[h].truncated;
			emit_heaps(ctx->batch, ctx->ts_ms, pid, t->name, &st->heaps);
		} else {
			ctx->inaccessible++;
			no_remote += unavailable;
		}
		/* The breakdown needs the address space; the heaps only refine it. */
		if (mw_vm_walk(t->pid, t->self, &st->regions, &werr))
			continue;
		if (mw_vm_stacks(t->pid, t->self, &st->stacks, &werr))
			st->stacks.n = 0;
		mw_heap_breakdown(&st->regions, st->stacks.r, st->stacks.n, have ? &st->heaps : NULL,
				  &bd);
		emit_breakdown(ctx->batch, ctx->ts_ms, pid, t->name, &bd);
	}
	if (no_remote && !st->logged_no_remote) {
		mw_log_warn(MW_HEAP_NO_REMOTE_MSG "; other processes are counted inaccessible and "
			    "their breakdown has no heap_used/heap_free");
		st->logged_no_remote = true;
	}
	if (no_remote)
		snprintf(ctx->mode, sizeof(ctx->mode), "%zu/%zu read; %s", ok, st->targets.n,
			 MW_HEAP_NO_REMOTE_MSG);
	else
		snprintf(ctx->mode, sizeof(ctx->mode), "%zu of %zu read, %.2f ms, %s%s%s%.30s", ok,
			 st->targets.n, (double)(mw_clock_mono_ns() - t0) / 1e6,
			 st->remote_summary ? MW_HEAP_MODE_REMOTE : MW_HEAP_MODE_PEB,
			 cut ? "; " MW_HEAP_MODE_CUT : "", why.msg[0] ? "; " : "", why.msg);
	return MW_COLLECTOR_OK;
}

static void heap_fini(void *state)
{
	struct heap_state *st = state;

	if (!st)
		return;
	mw_watch_release(&st->watch);
	mw_targets_release(&st->targets);
	mw_heap_reader_free(st->reader);
	mw_vm_regions_release(&st->regions);
	mw_vm_ranges_release(&st->stacks);
	free(st->heaps.h);
	free(st);
}

const struct mw_collector mw_collector_heap = {
	.name = "heap",
	.summary = "Heaps of watched processes (committed, allocated, free bytes and blocks per\n"
		   "heap) and HeapPeep's breakdown: heap, stacks, image, static data, private, mapped.",
	.default_interval_ms = 30000,
	.default_enabled = true,
	.options = heap_options,
	.noptions = MW_ARRAY_SIZE(heap_options),
	.options_size = sizeof(struct heap_options),
	.init = heap_init,
	.sample = heap_sample,
	.fini = heap_fini,
};
