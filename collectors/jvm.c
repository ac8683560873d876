/*
 * jvm.c - the jvm collector (portable part): each tick, every HotSpot
 * JVM's performance-data file (jvm_linux.c / jvm_win32.c find and read
 * them, jvm_perfdata.c parses) as the series memwatch_jvm_*, labelled as
 * the process collector labels the process (pid, process, started), so a
 * leak report judges a JVM's old generation beside its private memory.
 */
#include "jvm.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "core/metric_catalog.h"
#include "jvm_after_gc.h"
#include "jvm_perfdata.h"

/* A JVM's default file is 32 KB; the buffer grows to a larger one. */
#define FIRST_BUF (64u << 10)

/* The folders are looked for again this often. */
#define RESCAN_MS 30000

/* A JVM's old generation after its collections, kept between ticks. */
struct jvm_track {
	uint32_t pid;
	int64_t vm_start_ms;
	struct mw_jvm_after_gc after_gc;
	bool seen;		/* this tick */
};

struct jvm_state {
	struct jvm_track *tracks;
	size_t ntracks, tracks_cap;
	struct mw_jvm_dirs dirs;
	int64_t dirs_ms;
	bool have_dirs;
	struct mw_jvm_files files;
	uint8_t *buf;
	size_t cap;
};

static int jvm_init(void **state, const struct mw_collector_env *env, struct mw_err *why)
{
	struct jvm_state *st = mw_xcalloc(1, sizeof(*st));

	(void)env;
	(void)why;
	st->cap = FIRST_BUF;
	st->buf = mw_xmalloc(st->cap);
	*state = st;
	return MW_COLLECTOR_OK;
}

/* The JVM's tracker (a new one for a pid seen with another VM start). */
static struct jvm_track *track_of(struct jvm_state *st, uint32_t pid, int64_t vm_start_ms)
{
	size_t i;

	for (i = 0; i < st->ntracks; i++)
		if (st->tracks[i].pid == pid) {
			if (st->tracks[i].vm_start_ms != vm_start_ms)
				memset(&st->tracks[i].after_gc, 0, sizeof(st->tracks[i].after_gc));
			st->tracks[i].vm_start_ms = vm_start_ms;
			return &st->tracks[i];
		}
	if (st->ntracks == st->tracks_cap) {
		st->tracks_cap = st->tracks_cap ? st->tracks_cap * 2 : 4;
		st->tracks = mw_xrealloc(st->tracks, st->tracks_cap * sizeof(*st->tracks));
	}
	memset(&st->tracks[st->ntracks], 0, sizeof(st->tracks[0]));
	st->tracks[st->ntracks].pid = pid;
	st->tracks[st->ntracks].vm_start_ms = vm_start_ms;
	return &st->tracks[st->ntracks++];
}

/* Forget the JVMs not seen this tick. */
static void drop_unseen(struct jvm_state *st)
{
	size_t i, n = 0;

	for (i = 0; i < st->ntracks; i++)
		if (st->tracks[i].seen) {
			st->tracks[n] = st->tracks[i];
			st->tracks[n++].seen = false;
		}
	st->ntracks = n;
}

static void emit(struct mw_batch *b, int64_t ts, uint32_t pid, const struct mw_jvm_process *p,
		 const struct mw_jvm_heap *h, const struct mw_jvm_after_gc *after_gc)
{
	char pid_s[16], started[24];
	struct mw_label l[4] = { { "pid", pid_s }, { "process", p->name }, { "started", started } };

	snprintf(pid_s, sizeof(pid_s), "%" PRIu32, pid);
	snprintf(started, sizeof(started), "%" PRId64, p->start_ms / 1000);
	l[3] = (struct mw_label){ "space", "old" };
	mw_batch_add(b, mw_metric_name(MW_M_JVM_HEAP_USED_BYTES), l, 4, (double)h->old_used, ts);
	l[3] = (struct mw_label){ "space", "young" };
	mw_batch_add(b, mw_metric_name(MW_M_JVM_HEAP_USED_BYTES), l, 4, (double)h->young_used,
		     ts);
	mw_batch_add(b, mw_metric_name(MW_M_JVM_HEAP_COMMITTED_BYTES), l, 3,
		     (double)(h->old_capacity + h->young_capacity), ts);
	mw_batch_add(b, mw_metric_name(MW_M_JVM_HEAP_MAX_BYTES), l, 3, (double)h->max_capacity, ts);
	mw_batch_add(b, mw_metric_name(MW_M_JVM_METASPACE_USED_BYTES), l, 3,
		     (double)h->metaspace_used, ts);
	if (after_gc->have)
		mw_batch_add(b, mw_metric_name(MW_M_JVM_OLD_AFTER_GC_BYTES), l, 3, after_gc->value,
			     ts);
	l[3] = (struct mw_label){ "kind", "young" };
	mw_batch_add(b, mw_metric_name(MW_M_JVM_COLLECTIONS_TOTAL), l, 4,
		     (double)h->young_collections, ts);
	l[3].value = "old";
	mw_batch_add(b, mw_metric_name(MW_M_JVM_COLLECTIONS_TOTAL), l, 4, (double)h->old_collections,
		     ts);
}

static int jvm_sample(void *state, struct mw_sample_ctx *ctx)
{
	struct jvm_state *st = state;
	size_t i, read = 0;

	if (!st->have_dirs || ctx->ts_ms - st->dirs_ms >= RESCAN_MS || ctx->ts_ms < st->dirs_ms) {
		mw_jvm_find_dirs(&st->dirs);
		st->have_dirs = true;
		st->dirs_ms = ctx->ts_ms;
	}
	st->files.n = 0;
	for (i = 0; i < st->dirs.n; i++)
		mw_jvm_list_dir(st->dirs.dir[i], &st->files);
	for (i = 0; i < st->files.n; i++) {
		struct mw_jvm_process p;
		struct mw_jvm_heap h;
		struct jvm_track *t;
		struct mw_err err;
		size_t len;

		memset(&p, 0, sizeof(p));
		if (mw_jvm_read(&st->files.f[i], st->buf, st->cap, &len, &p, &err)) {
			ctx->inaccessible++;
			continue;
		}
		/* a file larger than the buffer: read again whole (a JVM
		 * started with a larger -XX:PerfDataMemorySize) */
		if (len == st->cap && st->cap < MW_JVM_PERFDATA_MAX) {
			st->cap = MW_JVM_PERFDATA_MAX;
			st->buf = mw_xrealloc(st->buf, st->cap);
			if (mw_jvm_read(&st->files.f[i], st->buf, st->cap, &len, &p, &err)) {
				ctx->inaccessible++;
				continue;
			}
		}
		/* one still starting, one of another collector, one left by
		 * a JVM that died (its pid reused): not a figure */
		if (mw_jvm_perfdata_parse(st->buf, len, &h, &err) ||
		    mw_jvm_perfdata_stale(h.vm_start_ms, p.start_ms)) {
			ctx->inaccessible++;
			continue;
		}
		t = track_of(st, st->files.f[i].pid, h.vm_start_ms);
		t->seen = true;
		mw_jvm_after_gc_add(&t->after_gc, ctx->ts_ms, (double)h.old_used, h.old_collections);
		emit(ctx->batch, ctx->ts_ms, st->files.f[i].pid, &p, &h, &t->after_gc);
		read++;
	}
	drop_unseen(st);
	snprintf(ctx->mode, sizeof(ctx->mode), "hsperfdata: %zu JVM%s", read, read == 1 ? "" : "s");
	return MW_COLLECTOR_OK;
}

static void jvm_fini(void *state)
{
	struct jvm_state *st = state;

	if (!st)
		return;
	mw_jvm_files_release(&st->files);
	free(st->tracks);
	free(st->buf);
	free(st);
}

const struct mw_collector mw_collector_jvm = {
	.name = "jvm",
	.summary = "Every HotSpot JVM's heap (old and young generation used, committed)\n"
		   "from its performance-data file, as jstat reads it, without attaching.",
	.default_interval_ms = 0,
	.default_enabled = true,
	.init = jvm_init,
	.sample = jvm_sample,
	.fini = jvm_fini,
};
