/*
 * bench_page.c - a week of history as the page's 7-day view reads it
 * (issue 26): one watched process with every series a watched process
 * records (the process collector's, memwatch_workingset_bytes by category
 * and sharing, memwatch_heap_breakdown_bytes, memwatch_vm_*, as in
 * tests/data/leak_real/rec.json.gz) and a crowd of ordinary processes
 * (the process collector's 12 Linux series), written through the store
 * (chunks, 1-minute, 10-minute and 1-hour rollups) over the 7 days that
 * end now, so a daemon serving the file shows it under "last 7 days".
 *
 *   bench_page DB    write DB (removed first) and keep it: bench/page_week.sh
 *                    serves it and times the page's switch to 7 days (about
 *                    16 minutes and 1 GB on a loaded 2-core VM: a minute
 *                    rollup row for every crowd point)
 *   bench_page       (`make bench`) 6 hours of 30 processes into a scratch
 *                    file, then removed: the points, seconds and file size
 *
 * MW_BENCH_PAGE_HOURS (168; 6 without DB) of MW_BENCH_PAGE_PROCS (300; 30
 * without DB) ordinary processes, a point every
 * MW_BENCH_PAGE_EVERY_S (60: the same rollup rows as 1 s, a quick write);
 * the watched process every MW_BENCH_PAGE_WATCHED_S (10), its heap
 * breakdown every third of those.  The watched process leaks (heap, about
 * 1 MiB/h); a tenth of the crowd creeps a page every ~10 minutes, the rest
 * is flat or noisy.  Deterministic (fixed seed) but for the end time.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/clock.h"
#include "core/batch.h"
#include "storage/store.h"
#include "tests/support/bench_store.h"
#include "tests/support/proc_series.h"
#include "tests/support/test_db.h"
#include "tests/support/xorshift.h"

#define MiB 1048576.0
#define WATCHED_PID "4242"
#define WATCHED_NAME "soakd"

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v && atol(v) > 0 ? atol(v) : def;
}

/* One point of a series whose labels are sorted by name. */
static void put(struct mw_store *s, const char *metric, const struct mw_label *l, size_t n,
		int64_t ts, double v)
{
	char key[320];

	mw_series_key_format(key, sizeof(key), metric, l, n);
	mw_store_add(s, key, metric, l, n, ts, floor(v));
}

/* ---- the crowd: the process collector's Linux series ------------------------- */

struct proc {
	char pid[16], name[24], started[24];
	double v[MW_PROC_SERIES];
};

static void proc_init(struct proc *p, const char *pid, const char *name, int64_t started_ms)
{
	int m;

	snprintf(p->pid, sizeof(p->pid), "%s", pid);
	snprintf(p->name, sizeof(p->name), "%s", name);
	snprintf(p->started, sizeof(p->started), "%lld", (long long)(started_ms / 1000));
	for (m = 0; m < MW_PROC_SERIES; m++)
		p->v[m] = 4096.0 * (double)(1000 + mw_xorshift(&rng) % 100000);
	p->v[4] = (double)(1 + mw_xorshift(&rng) % 32);	/* threads */
	p->v[5] = (double)(mw_xorshift(&rng) % 100000);	/* page faults */
	p->v[9] = 0;					/* swap */
}

/* One sample of process i: noisy (a third), creeping (a tenth) or flat
 * with rare steps; private, working set and anon move together. */
static void proc_step(struct proc *p, long i)
{
	uint64_t r = mw_xorshift(&rng);
	double d = i % 3 == 0 ? 4096.0 * (double)((int64_t)(r % 9) - 4)
		   : i % 10 == 1 ? (r % 10 == 0 ? 4096.0 : 0)
		   : r % 1000 == 0 ? 4096.0 * (double)((int64_t)(r >> 32) % 64 - 32) : 0;

	if (p->v[2] + d < 65536)
		d = 0;
	p->v[0] += d;
	if (p->v[0] > p->v[1])
		p->v[1] = p->v[0];
	p->v[2] += d;
	p->v[6] += d;
	p->v[5] += (double)((r >> 8) % 4 == 0 ? (r >> 16) % 50 : 0);
	p->v[10] = p->v[0] * 0.75;
	p->v[11] = p->v[0] * 0.5;
}

static void proc_add(struct mw_store *s, const struct proc *p, int64_t ts)
{
	struct mw_label l[4];
	int m;

	for (m = 0; m < MW_PROC_SERIES; m++) {
		size_t n = 0;

		if (mw_proc_series_kind[m])
			l[n++] = (struct mw_label){ "kind", mw_proc_series_kind[m] };
		l[n++] = (struct mw_label){ "pid", p->pid };
		l[n++] = (struct mw_label){ "process", p->name };
		l[n++] = (struct mw_label){ "started", p->started };
		put(s, mw_proc_series_metric[m], l, n, ts, p->v[m]);
	}
}

/* ---- the watched process ------------------------------------------------------ */

static const char *const cats[] = { "heap", "image", "mapped_file", "other", "private_data",
				    "shareable", "stack" };
static const char *const sharings[] = { "private", "shareable", "shared" };
static const char *const kinds[] = { "heap", "image", "mapped", "private_other",
				     "stack_committed", "stack_reserved", "static_data" };
static const char *const vm_states[][2] = {
	{ "committed", "image" }, { "committed", "mapped" }, { "committed", "private" },
	{ "free", "none" }, { "reserved", "image" }, { "reserved", "mapped" }, { "reserved", "private" },
};

/* The watched process's bytes at ms since the start: a heap that leaks
 * about 1 MiB/h with a little noise, the rest steady. */
struct watched {
	struct proc p;
	double heap, data;
};

static void watched_add(struct mw_store *s, struct watched *w, int64_t ts, int64_t since_ms,
			int breakdown)
{
	const struct mw_label pl[] = { { "pid", WATCHED_PID }, { "process", WATCHED_NAME } };
	uint64_t r = mw_xorshift(&rng);
	double image = 3055616, stack = 135168, other = 4096, total;
	size_t i, j;

	w->heap = 11.0 * MiB + (double)since_ms / 3600000.0 * MiB + 4096.0 * (double)(r % 64);
	w->data = 900000.0 + 4096.0 * (double)((r >> 8) % 8);
	total = w->heap + w->data + image + stack + other;
	/* process collector series (14: the crowd's and handles, private ws) */
	w->p.v[0] = total + 1703936;
	if (w->p.v[0] > w->p.v[1])
		w->p.v[1] = w->p.v[0];
	w->p.v[2] = w->heap + w->data + stack;
	w->p.v[3] = w->p.v[2] + 3.5 * MiB;
	w->p.v[6] = w->p.v[2];
	w->p.v[7] = 1703936;
	w->p.v[10] = w->p.v[0] * 0.94;
	w->p.v[11] = w->p.v[0] * 0.93;
	w->p.v[5] += (double)(r % 3);
	proc_add(s, &w->p, ts);
	{
		const struct mw_label l[] = { { "pid", WATCHED_PID }, { "process", WATCHED_NAME },
					      { "started", w->p.started } };

		put(s, "memwatch_process_handles", l, 3, ts, 6);
		put(s, "memwatch_process_private_working_set_bytes", l, 3, ts, w->p.v[2]);
	}
	/* working set by category and sharing (21), pss, uss */
	for (i = 0; i < sizeof(cats) / sizeof(cats[0]); i++)
		for (j = 0; j < 3; j++) {
			const struct mw_label l[] = { { "category", cats[i] }, { "pid", WATCHED_PID },
						      { "process", WATCHED_NAME }, { "sharing", sharings[j] } };
			double v = 0;

			if (j == 0)
				v = i == 0 ? w->heap : i == 4 ? w->data : i == 6 ? stack : i == 1 ? 57344 : 0;
			else if (j == 2)
				v = i == 1 ? image - 73728 : i == 3 ? other : 0;
			else
				v = i == 1 ? 16384 : 0;
			put(s, "memwatch_workingset_bytes", l, 4, ts, v);
		}
	put(s, "memwatch_workingset_pss_bytes", pl, 2, ts, total * 0.99);
	put(s, "memwatch_workingset_uss_bytes", pl, 2, ts, total * 0.98);
	/* address space (7 + 3) */
	for (i = 0; i < sizeof(vm_states) / sizeof(vm_states[0]); i++) {
		const struct mw_label l[] = { { "pid", WATCHED_PID }, { "process", WATCHED_NAME },
					      { "state", vm_states[i][0] }, { "type", vm_states[i][1] } };
		double v = i == 0 ? image : i == 2 ? w->p.v[2] : i == 3 ? 140737473585152.0 - w->p.v[2] : 0;

		put(s, "memwatch_vm_bytes", l, 4, ts, v);
	}
	put(s, "memwatch_vm_free_blocks", pl, 2, ts, 6 + (double)(r % 2));
	put(s, "memwatch_vm_largest_free_bytes", pl, 2, ts, 94255055982592.0);
	put(s, "memwatch_vm_regions", pl, 2, ts, 28 + (double)(r % 2));
	if (!breakdown)
		return;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		const struct mw_label l[] = { { "kind", kinds[i] }, { "pid", WATCHED_PID },
					      { "process", WATCHED_NAME } };
		double v = i == 0 ? w->heap : i == 1 ? image : i == 3 ? w->data : i == 4 ? stack
			   : i == 6 ? 77824 : 0;

		put(s, "memwatch_heap_breakdown_bytes", l, 3, ts, v);
	}
}

int main(int argc, char **argv)
{
	const long procs = env_long("MW_BENCH_PAGE_PROCS", argc > 1 ? 300 : 30);
	const int64_t span_ms = env_long("MW_BENCH_PAGE_HOURS", argc > 1 ? 168 : 6) * 3600000LL;
	const int64_t every_ms = env_long("MW_BENCH_PAGE_EVERY_S", 60) * 1000LL;
	const int64_t watched_ms = env_long("MW_BENCH_PAGE_WATCHED_S", 10) * 1000LL;
	const char *path = argc > 1 ? argv[1] : "bench_page.tmp.db";
	/* the span ends at the last whole minute before now */
	const int64_t end = (int64_t)time(NULL) / 60 * 60000, start = end - span_ms;
	struct proc *crowd = calloc((size_t)procs, sizeof(*crowd));
	struct watched w;
	struct mw_store *s;
	struct stat st;
	uint64_t points = 0;
	int64_t t, next_flush = start + 3600000;
	double t0 = (double)mw_clock_mono_ns() / 1e9;
	long i;

	if (!crowd || every_ms % watched_ms) {
		fprintf(stderr, "bench_page: %s\n", crowd ? "MW_BENCH_PAGE_EVERY_S must be a multiple "
			"of MW_BENCH_PAGE_WATCHED_S" : "out of memory");
		return 1;
	}
	mw_test_db_remove(path);
	s = mw_bench_store_open(path);
	for (i = 0; i < procs; i++) {
		char pid[16], name[24];

		snprintf(pid, sizeof(pid), "%ld", 10000 + i);
		snprintf(name, sizeof(name), "worker-%03ld", i % 120);
		proc_init(&crowd[i], pid, name, start - 3600000 - i * 1000);
	}
	memset(&w, 0, sizeof(w));
	proc_init(&w.p, WATCHED_PID, WATCHED_NAME, start - 60000);
	for (t = start; t <= end; t += watched_ms) {
		int64_t k = (t - start) / watched_ms;

		watched_add(s, &w, t, t - start, k % 3 == 0);
		points += 14 + 21 + 2 + 7 + 3 + (k % 3 == 0 ? 7 : 0);
		if ((t - start) % every_ms == 0)
			for (i = 0; i < procs; i++) {
				proc_step(&crowd[i], i);
				proc_add(s, &crowd[i], t + (i % 50));
				points += MW_PROC_SERIES;
			}
		if (t >= next_flush) {
			mw_bench_store_flush(s);
			next_flush += 3600000;
		}
	}
	mw_store_free(s);
	printf("page week: 1 watched process (54 series every %lld s) and %ld processes x %d series "
	       "every %lld s over %lld h ending %lld: %llu points, %.0f s to write, %.1f MB\n",
	       (long long)(watched_ms / 1000), procs, MW_PROC_SERIES, (long long)(every_ms / 1000),
	       (long long)(span_ms / 3600000), (long long)end, (unsigned long long)points,
	       (double)mw_clock_mono_ns() / 1e9 - t0, stat(path, &st) ? 0.0 : (double)st.st_size / 1e6);
	free(crowd);
	if (argc <= 1)
		mw_test_db_remove(path);
	return 0;
}
