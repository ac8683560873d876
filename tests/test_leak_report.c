/*
 * test_leak_report.c - leak verdicts over a real store: processes written
 * through mw_store into a file, judged by mw_leak_report through a reader,
 * the report read back as JSON.  Clear-cut shapes only (the detector's own
 * corpus is test_leak_corpus.c): a steady 10 MB/h leak whose growth is in
 * the heap, a flat process, a worker added every 20 minutes that never
 * exits (and a watched one whose helpers' summed heap names the kind), a
 * pool of workers all leaking, a process too short to judge; a shared-memory leak with flat
 * private bytes (Linux shmem, a Windows section), a handle leak, a Linux heap leak inside a mapping whose
 * size does not change, a kernel thread, a build agent's 15,000 `sleep`s
 * and shells of which more are alive at the end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "analysis/leak_report.h"
#include "storage/query.h"
#include "storage/store.h"
#include "tests/support/test_db.h"
#include "tests/support/xorshift.h"

#define T0 1763683200000LL	/* a whole day */
#define DB "test_leak_report.tmp.db"
#define STEP 10000		/* 10 s samples */
#define HOURS 3
/* The `started` label of a process running from T0 (seconds): seen from
 * its start, it warms up over its first 10 minutes. */
#define STARTED "1763683200"

static uint64_t rng = 88172645463325252ULL;

static double noise_from(uint64_t *state, double sd)
{
	return (mw_xorshift_unit(state) - 0.5) * 2 * sd;
}

static double noise(double sd)
{
	return noise_from(&rng, sd);
}

/* Groups added later draw from a stream of their own, so that the noise
 * of the groups before them stays what their tests were written on. */
static uint64_t rng_late = 2463534242ULL;

static void add_proc(struct mw_store *s, const char *metric, const char *process, const char *pid,
		     const char *extra_name, const char *extra_value, int64_t ts, double v)
{
	char key[256];
	struct mw_label l[3];
	size_t n = 0;

	if (extra_name && strcmp(extra_name, "pid") < 0)
		l[n++] = (struct mw_label){ extra_name, extra_value };
	l[n++] = (struct mw_label){ "pid", pid };
	l[n++] = (struct mw_label){ "process", process };
	if (extra_name && strcmp(extra_name, "pid") > 0)
		l[n++] = (struct mw_label){ extra_name, extra_value };
	mw_series_key_format(key, sizeof(key), metric, l, n);
	mw_store_add(s, key, metric, l, n, ts, v);
}

/* The `started` label (seconds) of a process that began at ms. */
static const char *started_at(char *buf, size_t size, int64_t ms)
{
	snprintf(buf, size, "%lld", (long long)(ms / 1000));
	return buf;
}

/* A JVM whose heap G1 grows from 100 to 250 MB in the ten minutes from
 * hour h0, what its collections leave in the old generation rising with
 * it (40 -> 60 MB), leaking leak_ph bytes an hour once it is sized. */
static void add_sizing_jvm(struct mw_store *s, const char *name, const char *pid, int64_t ts,
			   double h, double h0, double leak_ph)
{
	double sizing = h < h0 ? 0.0 : h < h0 + 1.0 / 6 ? (h - h0) * 6 : 1.0;
	double hc = 100e6 + 150e6 * sizing;
	double leak = h > h0 + 1.0 / 6 ? leak_ph * (h - h0 - 1.0 / 6) : 0.0;

	add_proc(s, "memwatch_process_private_bytes", name, pid, "started", STARTED, ts,
		 60e6 + 0.9 * hc + noise(50e3));
	add_proc(s, "memwatch_process_data_bytes", name, pid, "started", STARTED, ts,
		 100e6 + 1.04 * hc);
	add_proc(s, "memwatch_jvm_heap_committed_bytes", name, pid, "started", STARTED, ts, hc);
	add_proc(s, "memwatch_jvm_heap_max_bytes", name, pid, "started", STARTED, ts, 268435456);
	add_proc(s, "memwatch_jvm_old_after_gc_bytes", name, pid, "started", STARTED, ts,
		 40e6 + 20e6 * sizing + leak + noise(100e3));
}

static int setup(void **state)
{
	struct mw_store *s;
	struct mw_err err;
	int64_t i, n = (int64_t)HOURS * 3600000 / STEP;

	(void)state;
	if (!(s = mw_test_store_open(DB)))
		return -1;
	for (i = 0; i < n; i++) {
		int64_t ts = T0 + i * STEP;
		double h = (double)(i * STEP) / 3600000.0, heap = 5e6 + 10e6 * h;
		int w;

		/* leaky.exe: 10 MB/h, all of it in the heap */
		add_proc(s, "memwatch_process_private_bytes", "leaky.exe", "10", "started", STARTED,
			 ts, 40e6 + heap + noise(50e3));
		add_proc(s, "memwatch_heap_breakdown_bytes", "leaky.exe", "10", "kind", "heap_used",
			 ts, heap + noise(20e3));
		add_proc(s, "memwatch_heap_breakdown_bytes", "leaky.exe", "10", "kind", "image", ts, 20e6);
		add_proc(s, "memwatch_heap_breakdown_bytes", "leaky.exe", "10", "kind", "private_other",
			 ts, 15e6 + noise(20e3));
		/* flat.exe */
		add_proc(s, "memwatch_process_private_bytes", "flat.exe", "20", "started", STARTED,
			 ts, 80e6 + noise(300e3));
		/* worker.exe: one more flat worker every 20 minutes */
		for (w = 0; w <= (int)(h * 3) && w < 9; w++) {
			char pid[16], st[24];
			snprintf(pid, sizeof(pid), "%d", 30 + w);
			add_proc(s, "memwatch_process_private_bytes", "worker.exe", pid, "started",
				 started_at(st, sizeof(st), T0 + w * 1200000LL), ts,
				 30e6 + noise(100e3));
		}
		/* shm.exe: private flat, shared memory (memfd) 5 MB/h */
		add_proc(s, "memwatch_process_private_bytes", "shm.exe", "50", "started", STARTED,
			 ts, 20e6 + noise(50e3));
		add_proc(s, "memwatch_process_resident_bytes", "shm.exe", "50", "kind", "shmem",
			 ts, 1e6 + 5e6 * h + noise(20e3));
		add_proc(s, "memwatch_process_resident_bytes", "shm.exe", "50", "kind", "file",
			 ts, 4e6);
		/* section.exe (Windows): commit flat, a pagefile-backed
		 * section mapped and touched grows its shareable working set */
		add_proc(s, "memwatch_process_private_bytes", "section.exe", "80", "started", STARTED,
			 ts, 25e6 + noise(50e3));
		add_proc(s, "memwatch_process_shareable_working_set_bytes", "section.exe", "80",
			 "started", STARTED, ts, 9e6 + 4e6 * h + noise(20e3));
		/* mapview.exe, sectionw.exe (Windows, watched): commit flat,
		 * the shareable working set grows 4 MB/h; the working-set
		 * categories say where: views of a mapped file, or a
		 * pagefile-backed section (category "shareable") */
		for (w = 0; w < 2; w++) {
			const char *name = w ? "sectionw.exe" : "mapview.exe", *pid = w ? "86" : "85";

			add_proc(s, "memwatch_process_private_bytes", name, pid, "started", STARTED, ts,
				 25e6 + noise(50e3));
			add_proc(s, "memwatch_process_shareable_working_set_bytes", name, pid,
				 "started", STARTED, ts, 20e6 + 4e6 * h + noise(20e3));
			add_proc(s, "memwatch_workingset_bytes", name, pid, "category", "image", ts,
				 12e6 + noise(10e3));
			add_proc(s, "memwatch_workingset_bytes", name, pid, "category", "mapped_file",
				 ts, 5e6 + (w ? 0.0 : 4e6 * h) + noise(10e3));
			add_proc(s, "memwatch_workingset_bytes", name, pid, "category", "shareable",
				 ts, 3e6 + (w ? 4e6 * h : 0.0) + noise(10e3));
			add_proc(s, "memwatch_workingset_bytes", name, pid, "category", "heap", ts,
				 15e6 + noise(10e3));
		}
		/* jsvc, jok (JVMs): private bytes flat, the heap committed to
		 * -Xmx; the old generation a sawtooth of 20 MB between mixed
		 * collections every 4 minutes, its floor rising 6 MB/h (jsvc:
		 * a leak inside the heap) or flat (jok) */
		for (w = 0; w < 2; w++) {
			const char *name = w ? "jok" : "jsvc", *pid = w ? "96" : "95";

			add_proc(s, "memwatch_process_private_bytes", name, pid, "started", STARTED, ts,
				 300e6 + noise(50e3));
			/* in use: the sawtooth; after the collections: its
			 * floor, held from one cycle to the next */
			add_proc(s, "memwatch_jvm_heap_used_bytes", name, pid, "space", "old", ts,
				 60e6 + (w ? 0.0 : 6e6 * h) + 20e6 * fmod(h * 15.0, 1.0) +
					 noise(100e3));
			add_proc(s, "memwatch_jvm_old_after_gc_bytes", name, pid, "started", STARTED, ts,
				 60e6 + (w ? 0.0 : 6e6 * floor(h * 15.0) / 15.0) + noise(100e3));
		}
		/* jtouch (a JVM, Linux): its 256 MB heap committed at start
		 * (statm's data flat) and touched region by region as G1
		 * cycles: private bytes rise 20 MB/h for the three hours, the
		 * old generation after collections stays */
		add_proc(s, "memwatch_process_private_bytes", "jtouch", "97", "started", STARTED, ts,
			 100e6 + 20e6 * h + noise(50e3));
		add_proc(s, "memwatch_process_data_bytes", "jtouch", "97", "started", STARTED, ts,
			 400e6);
		add_proc(s, "memwatch_jvm_heap_committed_bytes", "jtouch", "97", "started", STARTED, ts,
			 268435456);
		add_proc(s, "memwatch_jvm_heap_max_bytes", "jtouch", "97", "started", STARTED, ts,
			 268435456);
		add_proc(s, "memwatch_jvm_old_after_gc_bytes", "jtouch", "97", "started", STARTED, ts,
			 40e6 + noise(100e3));
		/* jtouchers: two JVMs of one name (a machine's are all
		 * `java`), each touching the heap it committed at start as
		 * jtouch does, at the same time: each judged on its own
		 * against what it committed */
		for (w = 0; w < 2; w++) {
			const char *pid = w ? "192" : "191";

			add_proc(s, "memwatch_process_private_bytes", "jtouchers", pid, "started", STARTED,
				 ts, 100e6 + (20e6 + 4e6 * w) * h + noise(50e3));
			add_proc(s, "memwatch_process_data_bytes", "jtouchers", pid, "started", STARTED,
				 ts, 400e6);
			add_proc(s, "memwatch_jvm_heap_committed_bytes", "jtouchers", pid, "started",
				 STARTED, ts, 268435456);
			add_proc(s, "memwatch_jvm_heap_max_bytes", "jtouchers", pid, "started", STARTED,
				 ts, 268435456);
			add_proc(s, "memwatch_jvm_old_after_gc_bytes", "jtouchers", pid, "started", STARTED,
				 ts, 40e6 + noise(100e3));
		}
		/* jgrow (a JVM): G1 grows its heap from 150 to 240 MB toward
		 * its -Xmx of 256 MB, committing 4 % more beside it, and
		 * touches it: a JVM's sizing, not a leak.  jnative (a JVM):
		 * its heap committed whole, 8 MB/h more committed and resident
		 * around it: a native leak */
		for (w = 0; w < 2; w++) {
			const char *name = w ? "jnative" : "jgrow", *pid = w ? "99" : "98";
			double hc = w ? 268435456.0 : 150e6 + 30e6 * h;
			double native = w ? 8e6 * h : 0;

			add_proc(s, "memwatch_process_private_bytes", name, pid, "started", STARTED, ts,
				 60e6 + 0.9 * hc + native + noise(50e3));
			add_proc(s, "memwatch_process_data_bytes", name, pid, "started", STARTED, ts,
				 100e6 + 1.04 * hc + native);
			add_proc(s, "memwatch_jvm_heap_committed_bytes", name, pid, "started", STARTED,
				 ts, hc);
			add_proc(s, "memwatch_jvm_heap_max_bytes", name, pid, "started", STARTED, ts,
				 268435456);
			add_proc(s, "memwatch_jvm_old_after_gc_bytes", name, pid, "started", STARTED, ts,
				 40e6 + noise(100e3));
		}
		/* jsized, jsizedq (JVMs): G1 grows the heap from 100 to 250
		 * MB between 60 and 70 minutes, and what its collections
		 * leave in the old generation rises with it (40 -> 60 MB, as
		 * the recorded lk_java's did while G1 sized its heap); from
		 * then on jsized leaks 6 MB/h, jsizedq nothing */
		add_sizing_jvm(s, "jsized", "94", ts, h, 1.0, 6e6);
		add_sizing_jvm(s, "jsizedq", "93", ts, h, 1.0, 0.0);
		/* jmulti, jpair: JVMs of one name, as a machine's are all
		 * `java`, each sizing its heap so (jpair's second 20 minutes
		 * earlier); jmulti's pid 195 leaks 6 MB/h after its sizing */
		add_sizing_jvm(s, "jmulti", "195", ts, h, 1.0, 6e6);
		add_sizing_jvm(s, "jmulti", "196", ts, h, 1.0, 0.0);
		add_sizing_jvm(s, "jpair", "197", ts, h, 1.0, 0.0);
		add_sizing_jvm(s, "jpair", "198", ts, h, 2.0 / 3, 0.0);
		/* gappy: private bytes only every other 10 minutes (too
		 * sparse to judge), handles flat throughout */
		if ((i * STEP / 600000) % 2 == 0)
			add_proc(s, "memwatch_process_private_bytes", "gappy", "90", "started", STARTED,
				 ts, 12e6 + noise(20e3));
		add_proc(s, "memwatch_process_handles", "gappy", "90", "started", STARTED, ts, 40);
		/* fdleak: flat memory, 100 more handles an hour */
		add_proc(s, "memwatch_process_private_bytes", "fdleak", "60", "started", STARTED,
			 ts, 30e6 + noise(50e3));
		add_proc(s, "memwatch_process_handles", "fdleak", "60", "started", STARTED,
			 ts, floor(50 + 100 * h));
		add_proc(s, "memwatch_process_handles", "flat.exe", "20", "started", STARTED, ts, 80);
		/* lheap: a glibc heap leak on Linux: the heap mapping's size
		 * (the bar) stays, its resident pages (working set) grow */
		add_proc(s, "memwatch_process_private_bytes", "lheap", "70", "started", STARTED,
			 ts, 10e6 + 8e6 * h + noise(30e3));
		add_proc(s, "memwatch_heap_breakdown_bytes", "lheap", "70", "kind", "heap", ts, 200e6);
		add_proc(s, "memwatch_heap_breakdown_bytes", "lheap", "70", "kind", "private_other",
			 ts, 5e6);
		add_proc(s, "memwatch_workingset_bytes", "lheap", "70", "category", "heap",
			 ts, 2e6 + 8e6 * h + noise(30e3));
		add_proc(s, "memwatch_workingset_bytes", "lheap", "70", "category", "private_data",
			 ts, 3e6 + noise(30e3));
		/* forker (Linux, watched): a master forks a helper every
		 * 20 minutes that keeps 8 MB of heap and never exits (the
		 * recorded lk_poolforks' shape): each incarnation is flat, the
		 * total fails, and the working sets summed say it is heap */
		for (w = 0; w <= (int)(h * 3) && w < 9; w++) {
			char pid[16], st[24];

			snprintf(pid, sizeof(pid), "%d", 300 + w);
			add_proc(s, "memwatch_process_private_bytes", "forker", pid, "started",
				 started_at(st, sizeof(st), T0 + w * 1200000LL), ts,
				 10e6 + noise_from(&rng_late, 30e3));
			add_proc(s, "memwatch_workingset_bytes", "forker", pid, "category", "heap",
				 ts, 8e6 + noise_from(&rng_late, 30e3));
			add_proc(s, "memwatch_workingset_bytes", "forker", pid, "category",
				 "private_data", ts, 2e6 + noise_from(&rng_late, 30e3));
		}
		/* pool4: four workers of one name, each leaking 3 MB/h: the
		 * group grows 12 MB/h, the line drawn over the one series
		 * named rises at that series' own 3 */
		for (w = 0; w < 4; w++) {
			char pid[16];

			snprintf(pid, sizeof(pid), "%d", 320 + w);
			add_proc(s, "memwatch_process_private_bytes", "pool4", pid, "started", STARTED,
				 ts, 20e6 + 3e6 * h + noise_from(&rng_late, 30e3));
		}
		/* jlate (a JVM under the parallel collector, as the recorded
		 * lk_javapar): its heap shrinking 256 -> 196 MB, so its
		 * private bytes fall; its old generation after collections
		 * published only from its first old-generation collection,
		 * 20 minutes before the end, rising 10 MB/h */
		add_proc(s, "memwatch_process_private_bytes", "jlate", "199", "started", STARTED, ts,
			 300e6 - 20e6 * h + noise_from(&rng_late, 50e3));
		add_proc(s, "memwatch_jvm_heap_committed_bytes", "jlate", "199", "started", STARTED, ts,
			 256e6 - 20e6 * h);
		add_proc(s, "memwatch_jvm_heap_max_bytes", "jlate", "199", "started", STARTED, ts,
			 268435456);
		if (h >= HOURS - 1.0 / 3)
			add_proc(s, "memwatch_jvm_old_after_gc_bytes", "jlate", "199", "started", STARTED,
				 ts, 40e6 + 10e6 * (h - (HOURS - 1.0 / 3)) + noise_from(&rng_late, 50e3));
		/* jshrink (a JVM under the parallel collector): its heap
		 * shrinking 256 -> 112 MB, then down to 90 and up again to 100
		 * in its last 8 minutes; its old generation after collections
		 * rising 6 MB/h throughout */
		{
			double left = HOURS - h, hc = left < 4.0 / 60 ? 100e6 :
						      left < 8.0 / 60 ? 90e6 : 256e6 - 50e6 * h;

			add_proc(s, "memwatch_process_private_bytes", "jshrink", "189", "started",
				 STARTED, ts, 60e6 + hc + noise_from(&rng_late, 50e3));
			add_proc(s, "memwatch_jvm_heap_committed_bytes", "jshrink", "189", "started",
				 STARTED, ts, hc);
			add_proc(s, "memwatch_jvm_heap_max_bytes", "jshrink", "189", "started", STARTED,
				 ts, 268435456);
			add_proc(s, "memwatch_jvm_old_after_gc_bytes", "jshrink", "189", "started",
				 STARTED, ts, 40e6 + 6e6 * h + noise_from(&rng_late, 50e3));
		}
		/* kthreadd: no memory at all */
		add_proc(s, "memwatch_process_private_bytes", "kthreadd", "2", "started", "1", ts, 0);
		/* sleep: a build agent's, 14 new ones every 10 s, each seen twice */
		for (w = 0; w < 14; w++) {
			char pid[16], st[24];

			snprintf(pid, sizeof(pid), "%d", (int)(100000 + i * 14 + w));
			add_proc(s, "memwatch_process_private_bytes", "sleep", pid, "started",
				 started_at(st, sizeof(st), ts), ts, 100e3);
			if (i > 0) {
				snprintf(pid, sizeof(pid), "%d", (int)(100000 + (i - 1) * 14 + w));
				add_proc(s, "memwatch_process_private_bytes", "sleep", pid, "started",
					 started_at(st, sizeof(st), ts - STEP), ts, 100e3);
			}
		}
		/* sh: shells living an hour, one every 10 minutes, then one a
		 * minute for the last hour: more of them alive at the end */
		for (w = 0; w < 200; w++) {
			double start = w < 12 ? w / 6.0 : 2.0 + (w - 12) / 60.0;
			char pid[16], st[24];

			if (h < start || h >= start + 1.0)
				continue;
			snprintf(pid, sizeof(pid), "%d", 5000 + w);
			add_proc(s, "memwatch_process_private_bytes", "sh", pid, "started",
				 started_at(st, sizeof(st), T0 + (int64_t)(start * 3600000.0)), ts,
				 5e6 + noise(20e3));
		}
		/* pgpool: PostgreSQL's shape; 200 filled a 100 MB pool, 201
		 * comes to map 20 MB/h of it: 201's resident shared memory
		 * climbs, the pages and the group's summed PSS do not */
		for (w = 0; w < 3; w++) {
			double mapped = w == 0 ? 100e6 : w == 1 ? 20e6 * h : 5e6;
			double pss = w == 0 ? 100e6 - 10e6 * h : w == 1 ? 10e6 * h : 5e6;
			char pid[16];

			snprintf(pid, sizeof(pid), "%d", 200 + w);
			add_proc(s, "memwatch_process_private_bytes", "pgpool", pid, "started", STARTED, ts,
				 10e6 + noise(30e3));
			add_proc(s, "memwatch_process_resident_bytes", "pgpool", pid, "kind", "shmem",
				 ts, mapped + noise(20e3));
			add_proc(s, "memwatch_process_pss_bytes", "pgpool", pid, "started", STARTED, ts,
				 10e6 + pss + noise(30e3));
		}
		/* sqlsvc.exe (Windows, watched): the same shape in the
		 * shareable working set, told by the working set's PSS */
		for (w = 0; w < 2; w++) {
			char pid[16];

			snprintf(pid, sizeof(pid), "%d", 220 + w);
			add_proc(s, "memwatch_process_private_bytes", "sqlsvc.exe", pid, "started",
				 STARTED, ts, 30e6 + noise(30e3));
			add_proc(s, "memwatch_process_shareable_working_set_bytes", "sqlsvc.exe", pid,
				 "started", STARTED, ts, (w ? 20e6 * h : 100e6) + noise(20e3));
			add_proc(s, "memwatch_workingset_pss_bytes", "sqlsvc.exe", pid, NULL, NULL,
				 ts, 30e6 + (w ? 10e6 * h : 100e6 - 10e6 * h) + noise(30e3));
		}
		/* shmpair: two processes map a memfd that grows 5 MB/h: the
		 * summed PSS grows with it */
		for (w = 0; w < 2; w++) {
			char pid[16];

			snprintf(pid, sizeof(pid), "%d", 210 + w);
			add_proc(s, "memwatch_process_private_bytes", "shmpair", pid, "started", STARTED, ts,
				 10e6 + noise(30e3));
			add_proc(s, "memwatch_process_resident_bytes", "shmpair", pid, "kind", "shmem",
				 ts, 1e6 + 5e6 * h + noise(20e3));
			add_proc(s, "memwatch_process_pss_bytes", "shmpair", pid, "started", STARTED, ts,
				 10e6 + (1e6 + 5e6 * h) / 2 + noise(30e3));
		}
		/* short.exe: the first five minutes only */
		if (i * STEP < 300000)
			add_proc(s, "memwatch_process_private_bytes", "short.exe", "40", "started", STARTED,
				 ts, 10e6 + noise(10e3));
		if (i % 60 == 59 && mw_store_flush(s, &err)) {
			fprintf(stderr, "%s\n", err.msg);
			return -1;
		}
	}
	mw_store_free(s);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	mw_test_db_remove(DB);
	return 0;
}

/* The report over [T0, to] as its JSON text parsed (as `check` and
 * clients read it), or NULL with the error in err_out. */
static cJSON *report_range(const char *match, const char *process, size_t limit, int64_t from,
			   int64_t to, char *err_out)
{
	struct mw_reader *r;
	struct mw_leak_query q;
	struct mw_err err;
	struct mw_jbuf text;
	cJSON *rep = NULL;

	assert_int_equal(mw_reader_open(&r, DB, &err), 0);
	mw_leak_query_init(&q);
	q.match = match ? strdup(match) : NULL;
	q.process = process ? strdup(process) : NULL;
	q.limit = limit;
	q.from_ms = from;
	q.to_ms = to;
	mw_jbuf_init(&text);
	if (mw_leak_report(r, &q, &text, NULL, &err)) {
		if (!err_out)
			fail_msg("report: %s", err.msg);
		strcpy(err_out, err.msg);
	} else {
		rep = cJSON_Parse(text.p);
		assert_non_null(rep);
	}
	mw_jbuf_release(&text);
	mw_leak_query_release(&q);
	mw_reader_free(r);
	return rep;
}

static cJSON *report_until(const char *match, const char *process, size_t limit, int64_t to,
			   char *err_out)
{
	return report_range(match, process, limit, T0, to, err_out);
}

/* The report over [from, to]. */
static cJSON *report_between(const char *process, int64_t from, int64_t to)
{
	return report_range(NULL, process, 0, from, to, NULL);
}

static cJSON *report_for(const char *match, size_t limit)
{
	return report_until(match, NULL, limit, T0 + (int64_t)HOURS * 3600000, NULL);
}

static const cJSON *group(const cJSON *rep, const char *process)
{
	const cJSON *g;

	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(rep, "groups"))
		if (!strcmp(cJSON_GetObjectItemCaseSensitive(g, "process")->valuestring, process))
			return g;
	fail_msg("no group %s", process);
	return NULL;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* The group passes, and so does its shared part, whose reason (returned)
 * says the group held the pages already. */
static const char *held_by_group(const cJSON *rep, const char *process)
{
	const cJSON *g = group(rep, process), *shared;

	assert_string_equal(str(g, "verdict"), "pass");
	shared = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(g, "aspects"),
						  "shared");
	assert_string_equal(str(shared, "verdict"), "pass");
	assert_non_null(strstr(str(shared, "reason"), "its group held the shared pages"));
	return str(shared, "reason");
}

static void verdicts_per_group(void **state)
{
	cJSON *rep = report_for(NULL, 0);
	const cJSON *g, *first;

	(void)state;
	assert_string_equal(str(rep, "verdict"), "fail");
	/* kthreadd has no memory: left out, and counted */
	assert_int_equal((int)num(rep, "groups_total"), 30);
	assert_int_equal((int)num(cJSON_GetObjectItemCaseSensitive(rep, "counts"), "excluded"), 1);
	/* ranked: the failing groups first, the watched ones (with a working
	 * set or heap bar) first among them */
	first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rep, "groups"), 0);
	assert_string_equal(str(first, "verdict"), "fail");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(first, "watched")));

	g = group(rep, "leaky.exe");
	assert_string_equal(str(g, "verdict"), "fail");
	/* 10 MB/h within 20 % */
	assert_true(fabs(num(g, "slope_bytes_per_hour") - 10e6) < 2e6);
	assert_string_equal(str(g, "kind"), "heap");
	assert_string_equal(str(g, "kind_source"), "memwatch_heap_breakdown_bytes");
	assert_non_null(strstr(str(g, "series"), "pid=\"10\""));
	assert_true(num(g, "onset_ms") >= T0);

	g = group(rep, "flat.exe");
	assert_string_equal(str(g, "verdict"), "pass");

	/* a JVM's leak inside its committed heap: private memory flat, the
	 * old generation's floors rise; its healthy twin passes */
	g = group(rep, "jsvc");
	assert_string_equal(str(g, "verdict"), "fail");
	assert_string_equal(str(g, "aspect"), "java_heap");
	assert_string_equal(str(g, "kind"), "java_heap");
	assert_true(fabs(num(g, "slope_bytes_per_hour") - 6e6) < 1.5e6);
	assert_string_equal(str(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(g, "aspects"), "private"), "verdict"), "pass");
	assert_string_equal(str(group(rep, "jok"), "verdict"), "pass");
	/* a JVM touching the heap it committed: its private bytes pass */
	g = group(rep, "jtouch");
	assert_string_equal(str(g, "verdict"), "pass");
	assert_non_null(strstr(str(g, "reason"), "growing inside its Java heap"));
	/* two of one name touching theirs at once: each passes on its own */
	g = group(rep, "jtouchers");
	if (strcmp(str(g, "verdict"), "pass"))
		fail_msg("jtouchers: %s: %s", str(g, "verdict"), str(g, "reason"));
	{
		const cJSON *inc;
		int n = 0;

		cJSON_ArrayForEach(inc, cJSON_GetObjectItemCaseSensitive(g, "incarnations")) {
			assert_string_equal(str(inc, "verdict"), "pass");
			assert_non_null(strstr(str(inc, "reason"), "growing inside its Java heap"));
			n++;
		}
		assert_int_equal(n, 2);
	}
	/* one that grows its heap toward -Xmx: too */
	g = group(rep, "jgrow");
	assert_string_equal(str(g, "verdict"), "pass");
	assert_non_null(strstr(str(g, "reason"), "growing inside its Java heap"));
	/* memory committed around the heap: a native leak fails */
	g = group(rep, "jnative");
	assert_string_equal(str(g, "verdict"), "fail");
	assert_string_equal(str(g, "aspect"), "private");

	g = group(rep, "worker.exe");
	assert_string_equal(str(g, "verdict"), "fail");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "total_growing")));
	assert_int_equal((int)num(g, "incarnations_total"), 9);
	/* each worker alone is flat */
	{
		const cJSON *inc;
		cJSON_ArrayForEach(inc, cJSON_GetObjectItemCaseSensitive(g, "incarnations"))
			assert_string_not_equal(str(inc, "verdict"), "fail");
	}

	/* a fail the total decided names the kind every incarnation's
	 * working set summed grew in */
	g = group(rep, "forker");
	assert_string_equal(str(g, "verdict"), "fail");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "total_growing")));
	assert_int_equal((int)num(g, "incarnations_failing"), 0);
	assert_string_equal(str(g, "kind"), "heap");
	assert_string_equal(str(g, "kind_source"), "memwatch_workingset_bytes");

	/* a pool whose workers all leak: their rates add up, the fit is the
	 * named series' own */
	g = group(rep, "pool4");
	assert_string_equal(str(g, "verdict"), "fail");
	assert_int_equal((int)num(g, "incarnations_failing"), 4);
	assert_true(fabs(num(g, "slope_bytes_per_hour") - 12e6) < 1e6);
	assert_true(fabs(num(cJSON_GetObjectItemCaseSensitive(g, "fit"), "slope_bytes_per_hour") -
			 3e6) < 0.5e6);

	g = group(rep, "short.exe");
	assert_string_equal(str(g, "verdict"), "inconclusive");
	assert_true(strlen(str(g, "reason")) > 0);

	/* shared memory grows, private bytes stay: the group fails on it */
	g = group(rep, "shm.exe");
	assert_string_equal(str(g, "verdict"), "fail");
	assert_string_equal(str(g, "aspect"), "shared");
	assert_string_equal(str(g, "kind"), "shared");
	assert_true(fabs(num(g, "slope_bytes_per_hour") - 5e6) < 1e6);
	assert_string_equal(str(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(g, "aspects"), "private"), "verdict"), "pass");

	/* one member maps more of the pages its group held: no leak, and
	 * the shared part's pass says why */
	assert_non_null(strstr(held_by_group(rep, "pgpool"), "its 3 processes"));
	/* ... on Windows too, from a watched group's working-set PSS */
	held_by_group(rep, "sqlsvc.exe");
	/* ... while a memfd that grows under two of them is a leak */
	g = group(rep, "shmpair");
	assert_string_equal(str(g, "verdict"), "fail");
	assert_string_equal(str(g, "aspect"), "shared");
	assert_string_equal(str(g, "kind"), "shared");

	/* Windows: a pagefile-backed section's growth is shared memory */
	g = group(rep, "section.exe");
	assert_string_equal(str(g, "verdict"), "fail");
	assert_string_equal(str(g, "kind"), "shared");
	assert_true(fabs(num(g, "slope_bytes_per_hour") - 4e6) < 1e6);
	/* ... and a watched one's working-set categories tell a mapped
	 * file's views from a pagefile-backed section */
	g = group(rep, "mapview.exe");
	assert_string_equal(str(g, "verdict"), "fail");
	assert_string_equal(str(g, "aspect"), "shared");
	assert_string_equal(str(g, "kind"), "mapped");
	assert_string_equal(str(g, "kind_source"), "memwatch_workingset_bytes");
	g = group(rep, "sectionw.exe");
	assert_string_equal(str(g, "verdict"), "fail");
	assert_string_equal(str(g, "kind"), "shared");
	assert_string_equal(str(g, "kind_source"), "memwatch_workingset_bytes");

	/* handles are counted, with their own budget (10/h) */
	g = group(rep, "fdleak");
	assert_string_equal(str(g, "verdict"), "fail");
	assert_string_equal(str(g, "kind"), "handles");
	assert_string_equal(str(g, "unit"), "handles");
	assert_true(fabs(num(g, "slope_bytes_per_hour") - 100) < 10);
	assert_non_null(strstr(str(g, "reason"), "handles/h"));

	/* the heap named from resident pages, not the heap mapping's size */
	g = group(rep, "lheap");
	assert_string_equal(str(g, "verdict"), "fail");
	assert_string_equal(str(g, "kind"), "heap");
	assert_string_equal(str(g, "kind_source"), "memwatch_workingset_bytes");

	/* 15,000 short-lived incarnations: judged, counted, none read */
	g = group(rep, "sleep");
	assert_string_not_equal(str(g, "verdict"), "fail");
	assert_true(num(g, "incarnations_total") > 15000);
	assert_true(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(g, "incarnations")) <= 50);

	/* more shells alive at the end is no leak */
	g = group(rep, "sh");
	assert_string_equal(str(g, "verdict"), "pass");
	assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "total_growing")));

	/* one verdict, and its reason is that of an aspect with it: a pass
	 * on handles does not read "data mostly missing" */
	g = group(rep, "gappy");
	assert_string_equal(str(g, "verdict"), "pass");
	assert_string_equal(str(g, "aspect"), "handles");
	assert_null(strstr(str(g, "reason"), "missing"));

	/* a pass carries no projection */
	g = group(rep, "flat.exe");
	assert_true(num(g, "projected_bytes") == 0);
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(g, "growth_bytes")));
	cJSON_Delete(rep);
}

static void warm_up_says_when(void **state)
{
	cJSON *rep = report_until(NULL, NULL, 0, T0 + 15 * 60000, NULL);

	(void)state;
	assert_string_equal(str(rep, "verdict"), "inconclusive");
	/* processes seen from T0: warm-up 10 min + 20 min judged */
	assert_true(num(rep, "first_verdicts_ms") == (double)(T0 + 30 * 60000));
	cJSON_Delete(rep);
}

/* The report as the table prints it, into buf. */
static void print_table(const cJSON *rep, char *buf, size_t size)
{
	FILE *f = tmpfile();
	size_t n;

	assert_non_null(f);
	mw_leak_report_print(rep, f);
	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* A range that begins an hour into a process's life (a CI gate's
 * `--from -1h` on a service that has run for long): the process is
 * warm, so the whole range is judged, and a leak under way from the
 * range's first point was under way before it, which the fail says
 * ("since before ..., its first data, 1h 00m after the process
 * started"), its JSON says (onset_before_data) and the table marks
 * ("<").  Until session 34 the warm-up counted from the range's first
 * point (10 minutes of the hour not judged, and nothing of a range of
 * 25 minutes: "too little data after warm-up: 15 min"), and the fail read
 * "since the start, <the range's first point>", as if the leak began
 * there. */
static void a_range_after_the_start(void **state)
{
	/* an hour: a step of 10 s, the samples' (a shorter range's step of
	 * 5 s would leave half its buckets empty) */
	int64_t from = T0 + 60 * 60000, to = T0 + 120 * 60000;
	cJSON *rep = report_between("leaky.exe", from, to);
	const cJSON *g = group(rep, "leaky.exe");
	char buf[4096];

	(void)state;
	if (strcmp(str(g, "verdict"), "fail"))
		fail_msg("leaky.exe over an hour, an hour in: %s", str(g, "reason"));
	assert_true(fabs(num(g, "slope_bytes_per_hour") - 10e6) < 2e6);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "onset_before_data")));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(g, "aspects"),
						 "private"), "onset_before_data")));
	assert_true(num(g, "onset_ms") == num(g, "first_ms"));
	assert_true(num(g, "judged_from_ms") == num(g, "first_ms"));
	assert_non_null(strstr(str(g, "reason"), "rising "));
	assert_non_null(strstr(str(g, "reason"),
			       "/h since before 2025-11-21 01:00:00 UTC (its first data, 1h 00m "
			       "after the process started)"));
	print_table(rep, buf, sizeof(buf));
	assert_non_null(strstr(buf, "<2025-11-21 01:00 "));
	cJSON_Delete(rep);

	/* ten minutes of it: its first verdict after the minimum duration,
	 * no warm-up before */
	rep = report_between("leaky.exe", from, T0 + 70 * 60000);
	assert_string_equal(str(rep, "verdict"), "inconclusive");
	assert_true(num(rep, "first_verdicts_ms") == (double)(from + 20 * 60000));
	cJSON_Delete(rep);

	/* a churning group (shells, ended and alive, more than eight):
	 * the incarnations warm before the range are read and judged on
	 * its 25 minutes, not counted as too short for a warm-up they had
	 * long done (analysis/leak_report_read.c count_the_short; until
	 * session 34: "58 incarnations, none lived long enough to judge
	 * (warm-up 10 min + 20 min)") */
	rep = report_between("sh", T0 + 150 * 60000, T0 + 175 * 60000);
	g = group(rep, "sh");
	if (strcmp(str(g, "verdict"), "pass") || !strstr(str(g, "reason"), "none growing"))
		fail_msg("sh over 25 minutes: %s: %s", str(g, "verdict"), str(g, "reason"));
	cJSON_Delete(rep);

	/* the same range of a process seen from its start: warm-up first */
	rep = report_between("leaky.exe", T0, T0 + 25 * 60000);
	g = group(rep, "leaky.exe");
	assert_string_equal(str(g, "verdict"), "inconclusive");
	assert_non_null(strstr(str(g, "reason"), "too little data after warm-up"));
	cJSON_Delete(rep);
	/* and over its whole life it grew from its start: no "before" */
	rep = report_between("leaky.exe", T0, to);
	g = group(rep, "leaky.exe");
	assert_string_equal(str(g, "verdict"), "fail");
	assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(g, "onset_before_data")));
	assert_non_null(strstr(str(g, "reason"), "since the start, 2025-11-21 00:00:00 UTC"));
	cJSON_Delete(rep);
}

/* A JVM's old generation after collections rises while G1 sizes its heap
 * (jsized): judged from a while after the heap reached its size, the fail
 * is the leak's own rate, and before there is enough of that the process
 * is inconclusive, not failed at the sizing's rate nor passed. */
/* A JVM whose old generation's series began long after the process and
 * is still too short to judge (jlate, 15 minutes of it) is not passed on
 * its falling private bytes: its heap is not judged yet.  It passed ("no
 * rise over ...: falling") before analysis/leak_report_jvm.c
 * heap_behind_process.  With 20 minutes of it, the minimum duration, it
 * is judged with no warm-up (the JVM has run for hours: analysis/leak.c
 * warmup_left) and fails at its rate; until session 34 the warm-up
 * counted from the series' first point and it was still "not judged
 * yet", ten minutes more. */
static void a_jvm_heap_not_judged_yet(void **state)
{
	cJSON *rep = report_until(NULL, "jlate", 0, T0 + (int64_t)HOURS * 3600000 - 5 * 60000, NULL);
	const cJSON *g = group(rep, "jlate");

	(void)state;
	assert_string_equal(str(g, "verdict"), "inconclusive");
	assert_non_null(strstr(str(g, "reason"), "its Java heap not judged yet: too little data"));
	assert_string_equal(str(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(g, "aspects"), "private"), "verdict"), "pass");
	cJSON_Delete(rep);

	rep = report_until(NULL, "jlate", 0, T0 + (int64_t)HOURS * 3600000, NULL);
	g = group(rep, "jlate");
	assert_string_equal(str(g, "verdict"), "fail");
	assert_string_equal(str(g, "aspect"), "java_heap");
	assert_true(fabs(num(g, "slope_bytes_per_hour") - 10e6) < 2e6);
	cJSON_Delete(rep);
}

/* A heap that shrank and grew a little again at the end (jshrink) is
 * not judged from that regrowth: its old generation's leak fails over the
 * range.  Judged from 5 minutes after the regrowth, it was "too little
 * data" before analysis/leak_report_jvm.c shrank_since. */
static void a_jvm_heap_shrinking(void **state)
{
	cJSON *rep = report_until(NULL, "jshrink", 0, T0 + (int64_t)HOURS * 3600000, NULL);
	const cJSON *g = group(rep, "jshrink");

	(void)state;
	assert_string_equal(str(g, "verdict"), "fail");
	assert_string_equal(str(g, "aspect"), "java_heap");
	assert_true(fabs(num(g, "slope_bytes_per_hour") - 6e6) < 1e6);
	cJSON_Delete(rep);
}

static void a_jvm_sizing_its_heap(void **state)
{
	cJSON *rep = report_until(NULL, "jsized", 0, T0 + (int64_t)HOURS * 3600000, NULL);
	const cJSON *g = group(rep, "jsized"), *jh;

	(void)state;
	assert_string_equal(str(g, "verdict"), "fail");
	assert_string_equal(str(g, "aspect"), "java_heap");
	assert_true(fabs(num(g, "slope_bytes_per_hour") - 6e6) < 1e6);
	assert_non_null(strstr(str(g, "reason"), "judged from 5 min after its heap reached 238 MiB"));
	/* when it began the sizing hid: no onset dated, the span said */
	assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(g, "onset_ms")));
	assert_non_null(strstr(str(g, "reason"), "judged, steady to the end"));
	/* its private bytes: the heap's sizing, no leak */
	assert_string_equal(str(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(g, "aspects"), "private"), "verdict"), "pass");
	cJSON_Delete(rep);

	/* without the leak, 14 minutes after the sizing judged with a
	 * minimum duration of 10 minutes: the whole range is not passed
	 * (held after its rise), and what follows the sizing, shorter, does
	 * not pass it either */
	{
		struct mw_reader *r;
		struct mw_leak_query q;
		struct mw_err err;
		struct mw_jbuf text;

		assert_int_equal(mw_reader_open(&r, DB, &err), 0);
		mw_leak_query_init(&q);
		q.process = strdup("jsizedq");
		q.from_ms = T0;
		q.to_ms = T0 + 88 * 60000;
		q.params.min_duration_ms = 10 * 60000;
		mw_jbuf_init(&text);
		assert_int_equal(mw_leak_report(r, &q, &text, NULL, &err), 0);
		rep = cJSON_Parse(text.p);
		mw_jbuf_release(&text);
		mw_leak_query_release(&q);
		mw_reader_free(r);
	}
	g = group(rep, "jsizedq");
	assert_string_not_equal(str(g, "verdict"), "pass");
	jh = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(g, "aspects"),
					      "java_heap");
	if (strcmp(str(jh, "verdict"), "inconclusive") ||
	    !strstr(str(jh, "reason"), "not a pass: the whole range did not pass"))
		fail_msg("jsizedq: %s: %s", str(jh, "verdict"), str(jh, "reason"));
	cJSON_Delete(rep);

	/* 12 minutes after the sizing: too little since */
	rep = report_until(NULL, "jsized", 0, T0 + 82 * 60000, NULL);
	g = group(rep, "jsized");
	assert_string_equal(str(g, "verdict"), "inconclusive");
	jh = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(g, "aspects"),
					      "java_heap");
	assert_string_equal(str(jh, "verdict"), "inconclusive");
	assert_non_null(strstr(str(jh, "reason"), "too little data"));
	cJSON_Delete(rep);
}

/* Several JVMs of one name (jmulti, jpair): each is judged from a while
 * after its own heap reached its size, so the one that leaks decides its
 * group at its own rate and the healthy ones, whose old generation rose
 * only with their heaps, fail at no end time. */
static void jvms_of_one_name_sizing_their_heaps(void **state)
{
	int64_t end;

	(void)state;
	for (end = 75; end <= HOURS * 60; end += 5) {
		cJSON *rep = report_until(NULL, "jpair", 0, T0 + end * 60000, NULL);
		const cJSON *g = group(rep, "jpair");

		if (!strcmp(str(g, "verdict"), "fail"))
			fail_msg("jpair at %lld min: %s", (long long)end, str(g, "reason"));
		cJSON_Delete(rep);
		rep = report_until(NULL, "jmulti", 0, T0 + end * 60000, NULL);
		g = group(rep, "jmulti");
		if (!strcmp(str(g, "verdict"), "fail") &&
		    (strcmp(str(g, "aspect"), "java_heap") ||
		     !strstr(str(g, "reason"), "incarnation 1 of 2") ||
		     fabs(num(g, "slope_bytes_per_hour") - 6e6) > 2e6))
			fail_msg("jmulti at %lld min: %s", (long long)end, str(g, "reason"));
		if (end == HOURS * 60) {
			assert_string_equal(str(g, "verdict"), "fail");
			assert_non_null(strstr(str(g, "reason"), "judged from 5 min after its heap"));
		}
		cJSON_Delete(rep);
	}
}

static void limit_and_match(void **state)
{
	cJSON *rep = report_for(NULL, 1);
	struct mw_reader *r;
	struct mw_leak_query q;
	struct mw_err err;
	struct mw_jbuf none;
	enum mw_verdict overall = MW_VERDICT_PASS;

	(void)state;
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rep, "groups")), 1);
	assert_int_equal((int)num(rep, "groups_total"), 30);
	/* 17 since session 34: jlate's heap, 20 minutes of a JVM hours old,
	 * is judged (a_jvm_heap_not_judged_yet) */
	assert_int_equal((int)num(cJSON_GetObjectItemCaseSensitive(rep, "counts"), "fail"), 17);
	cJSON_Delete(rep);

	rep = report_for("memwatch_process_private_bytes{process=\"flat.exe\"}", 0);
	assert_string_equal(str(rep, "verdict"), "pass");
	assert_int_equal(mw_leak_report_verdict(rep, false), MW_VERDICT_PASS);
	cJSON_Delete(rep);

	rep = report_for("memwatch_process_private_bytes{process=\"short.exe\"}", 0);
	assert_int_equal(mw_leak_report_verdict(rep, false), MW_VERDICT_INCONCLUSIVE);
	assert_int_equal(mw_leak_report_verdict(rep, true), MW_VERDICT_PASS);
	cJSON_Delete(rep);

	/* a gate that selects nothing is an error, not an empty pass */
	{
		char msg[sizeof(((struct mw_err *)0)->msg)] = "";

		assert_null(report_until("no_such_metric", NULL, 0, T0 + 3600000, msg));
		assert_string_equal(msg, "match: no series match 'no_such_metric'");
		assert_null(report_until(NULL, "leaky.ex", 0, T0 + 3600000, msg));
		assert_memory_equal(msg, "process: ", 9);
		rep = report_until(NULL, "LEAKY*", 0, T0 + 3 * 3600000, msg);
		assert_int_equal((int)num(rep, "groups_total"), 1);
		cJSON_Delete(rep);
		/* the series of one process are not its incarnations: every
		 * metric of it, or a metric's series per kind, is an error that
		 * says what the selector picked */
		assert_null(report_until("{process=\"leaky.exe\"}", NULL, 0, T0 + 3600000, msg));
		assert_non_null(strstr(msg, "series of one process (leaky.exe, pid 10)"));
		/* and says how to choose processes instead */
		assert_non_null(strstr(msg, "choose processes by name with process, --process NAME"));
		assert_null(report_until("memwatch_process_resident_bytes{process=\"shm.exe\"}", NULL, 0,
					 T0 + 3600000, msg));
		assert_non_null(strstr(msg, "selects 2 series of one process (shm.exe, pid 50)"));
		/* one kind of it is one series a process: judged */
		rep = report_until("memwatch_process_resident_bytes{process=\"shm.exe\",kind=\"shmem\"}",
				   NULL, 0, T0 + 3600000, msg);
		assert_non_null(rep);
		assert_int_equal((int)num(rep, "groups_total"), 1);
		cJSON_Delete(rep);
	}

	assert_int_equal(mw_reader_open(&r, DB, &err), 0);
	mw_leak_query_init(&q);
	q.match = strdup("x{");
	mw_jbuf_init(&none);
	assert_int_equal(mw_leak_report(r, &q, &none, NULL, &err), -1);
	assert_int_equal(none.len, 0);
	assert_memory_equal(err.msg, "match: ", 7);
	mw_leak_query_release(&q);

	/* the overall verdict as a value (what /api/v1/check answers with) is
	 * the JSON's "verdict"; the gate makes inconclusive pass on request */
	mw_leak_query_init(&q);
	q.match = strdup("memwatch_process_private_bytes{process=\"short.exe\"}");
	q.from_ms = T0;
	q.to_ms = T0 + (int64_t)HOURS * 3600000;
	assert_int_equal(mw_leak_report(r, &q, &none, &overall, &err), 0);
	assert_int_equal(overall, MW_VERDICT_INCONCLUSIVE);
	assert_memory_equal(none.p, "{\"verdict\":\"inconclusive\",", 26);
	assert_int_equal(mw_leak_verdict_gate(overall, true), MW_VERDICT_PASS);
	assert_int_equal(mw_leak_verdict_gate(MW_VERDICT_FAIL, true), MW_VERDICT_FAIL);
	mw_jbuf_release(&none);
	mw_leak_query_release(&q);
	mw_reader_free(r);
}

static void options(void **state)
{
	struct mw_leak_query q;
	struct mw_err err;

	(void)state;
	mw_leak_query_init(&q);
	assert_int_equal(mw_leak_query_set(&q, "warmup", "5m", 0, &err), 0);
	assert_int_equal(q.params.warmup_ms, 300000);
	assert_int_equal(mw_leak_query_set(&q, "max_growth", "1MB/h,2%/h", 0, &err), 0);
	assert_true(q.params.budget_bytes_per_hour == 1048576.0 && q.params.budget_rel_per_hour == 0.02);
	assert_int_equal(mw_leak_query_set(&q, "from", "-1h", T0, &err), 0);
	assert_int_equal(q.from_ms, T0 - 3600000);
	assert_int_equal(mw_leak_query_set(&q, "inconclusive", "pass", 0, &err), 0);
	assert_true(q.inconclusive_passes);
	assert_int_equal(mw_leak_query_set(&q, "warmup", "soon", 0, &err), -1);
	assert_int_equal(mw_leak_query_set(&q, "horizon", "0s", 0, &err), -1);
	assert_int_equal(mw_leak_query_set(&q, "inconclusive", "maybe", 0, &err), -1);
	assert_int_equal(mw_leak_query_set(&q, "limit", "-1", 0, &err), -1);
	assert_int_equal(mw_leak_query_set(&q, "colour", "red", 0, &err), 1);
	/* check --db --exit-max-bytes (it had only the default, 0) */
	assert_int_equal(mw_leak_query_set(&q, "exit_max_bytes", "4KB", 0, &err), 0);
	assert_true(q.params.exit_max_bytes == 4096);
	assert_int_equal(mw_leak_query_set(&q, "exit_max_bytes", "lots", 0, &err), -1);
	mw_leak_query_release(&q);
}

static void table(void **state)
{
	cJSON *rep = report_for(NULL, 0);
	char buf[8192];

	(void)state;
	print_table(rep, buf, sizeof(buf));
	assert_memory_equal(buf, "fail: every process from 2025-11-21 00:00:00 to", 47);
	assert_non_null(strstr(buf, "leaky.exe"));
	assert_non_null(strstr(buf, "heap"));
	/* every line fits 120 columns */
	{
		const char *l = buf, *nl;

		for (; *l; l = nl + 1) {
			nl = strchr(l, '\n');
			assert_non_null(nl);
			assert_true(nl - l <= 120);
		}
	}
	cJSON_Delete(rep);
}

/* The verdicts the judge service publishes are the report's groups, in
 * its order, with the same verdict and kind (one model: both come from
 * the same judged group, the kind from one lookup). */
static void published_verdicts_match_json(void **state)
{
	struct mw_reader *r;
	struct mw_leak_query q;
	struct mw_leak_status st;
	struct mw_err err;
	struct mw_jbuf text;
	const cJSON *g;
	cJSON *rep;
	size_t i = 0, nkind = 0;

	(void)state;
	assert_int_equal(mw_reader_open(&r, DB, &err), 0);
	mw_leak_query_init(&q);
	q.from_ms = T0;
	q.to_ms = T0 + (int64_t)HOURS * 3600000;
	mw_jbuf_init(&text);
	assert_int_equal(mw_leak_report_verdicts(r, &q, &text, &st, &err), 0);
	rep = cJSON_Parse(text.p);
	assert_non_null(rep);
	assert_int_equal(st.n, (size_t)num(rep, "groups_total"));
	assert_int_equal(st.counts[MW_VERDICT_FAIL],
			 (size_t)num(cJSON_GetObjectItemCaseSensitive(rep, "counts"), "fail"));
	cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(rep, "groups")) {
		const char *kind = str(g, "kind");

		assert_true(i < st.n);
		assert_string_equal(st.v[i].process, str(g, "process"));
		assert_string_equal(mw_verdict_name((enum mw_verdict)st.v[i].verdict), str(g, "verdict"));
		assert_string_equal(st.v[i].kind, kind ? kind : "");
		nkind += kind != NULL;
		i++;
	}
	assert_int_equal(i, st.n);
	assert_true(nkind >= 3);	/* heap, handles, shared at least */
	cJSON_Delete(rep);
	mw_jbuf_release(&text);
	mw_leak_status_release(&st);
	mw_leak_query_release(&q);
	mw_reader_free(r);
}

/* The text of the report over the whole fixture judged on threads
 * threads (owned). */
static char *report_text(const char *match, const char *process, size_t threads)
{
	struct mw_reader *r;
	struct mw_leak_query q;
	struct mw_err err;
	struct mw_jbuf text;
	size_t len;
	char *out;

	assert_int_equal(mw_reader_open(&r, DB, &err), 0);
	mw_leak_query_init(&q);
	q.match = match ? strdup(match) : NULL;
	q.process = process ? strdup(process) : NULL;
	q.from_ms = T0;
	q.to_ms = T0 + (int64_t)HOURS * 3600000;
	q.threads = threads;
	mw_jbuf_init(&text);
	if (mw_leak_report(r, &q, &text, NULL, &err))
		fail_msg("report on %zu threads: %s", threads, err.msg);
	out = mw_jbuf_detach(&text, &len);
	mw_jbuf_release(&text);
	mw_leak_query_release(&q);
	mw_reader_free(r);
	return out;
}

/* Groups judged side by side (leak_report_parallel.c) give the report a
 * single thread gives, byte for byte: the same verdicts in the same
 * order, whatever thread judged which group. */
static void threads_give_the_same_report(void **state)
{
	static const struct {
		const char *match, *process;
	} cases[] = {
		{ NULL, NULL },
		{ NULL, "*" },
		{ "memwatch_process_private_bytes", NULL },
	};
	size_t c, t;

	(void)state;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char *one = report_text(cases[c].match, cases[c].process, 1);
		cJSON *rep = cJSON_Parse(one);

		/* enough groups that more than one thread takes part (a
		 * thread per 8 groups at most) */
		assert_non_null(rep);
		assert_true(num(rep, "groups_total") >= 21);
		cJSON_Delete(rep);
		for (t = 2; t <= MW_LEAK_MAX_THREADS + 1; t++) {
			char *many = report_text(cases[c].match, cases[c].process, t);

			assert_string_equal(many, one);
			free(many);
		}
		free(one);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(verdicts_per_group),
		cmocka_unit_test(a_jvm_heap_not_judged_yet),
		cmocka_unit_test(a_jvm_heap_shrinking),
		cmocka_unit_test(a_jvm_sizing_its_heap),
		cmocka_unit_test(jvms_of_one_name_sizing_their_heaps),
		cmocka_unit_test(limit_and_match),
		cmocka_unit_test(options),
		cmocka_unit_test(warm_up_says_when),
		cmocka_unit_test(a_range_after_the_start),
		cmocka_unit_test(table),
		cmocka_unit_test(published_verdicts_match_json),
		cmocka_unit_test(threads_give_the_same_report),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
