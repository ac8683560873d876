/* bench_process.c - the process collector's CPU per process per tick
 * (issue 14: target <= 15 us for the Linux collector) with ~1,000
 * processes: this benchmark forks 1,000 idle children and stops them by
 * pid at the end.  CPU time of this process (user + system: the kernel
 * formatting /proc files is most of it), per tick divided by the
 * processes in the table, over TICKS ticks 1 s apart on the collector's
 * clock (run back to back; the cadences see 1 s ticks):
 *
 *   old way       the baseline, in the same run over the same processes:
 *                 what the reader did before - per process open, read,
 *                 close stat and status, parse both, opendir fd/ and
 *                 count (names were cached then too)
 *   reader        mw_process_table_read: kept stat/statm descriptors,
 *                 status every 10 s, fd count every 30 s, spread; /proc
 *                 listed only when a pid was handed out (rare here: the
 *                 ticks run back to back) or every 10 s
 *   ... new pid   the same with a child forked and reaped between ticks
 *                 (outside the timed part): /proc listed every tick, as
 *                 on a busy machine
 *   reader, 1st   the first read: every process new (all files)
 *   collector     the collector's tick (reader + cached keys + batch),
 *                 pss_budget 0
 *   whole path    collector + the real storage writer (mw_store_add_batch,
 *                 a flush every 5 ticks as flush_interval 5s does) into a
 *                 temporary database; its flushes' part is printed on the
 *                 floor line (issue 26: the open chunks' rewrite)
 *   shared part   what Windows runs after its one NtQuerySystemInformation:
 *                 samples from a given table + batch + storage
 *   old emission  the same table through mw_batch_add per sample (what
 *                 process.c did before: labels sorted, copied, key
 *                 formatted per sample), batch only
 *   new emission  the same with the keys cached, batch only
 *
 *   floor         the cheapest possible read of the same figures (issue 26):
 *                 every process's stat and statm kept open, pread and
 *                 parsed every tick, nothing else (no listing, no status,
 *                 no names, no batch, no storage)
 *
 * Also the PSS budget's first and next tick (pss_budget 5%).  Ratios are
 * against "old way"; the floor ratios are printed on their own lines.
 * MW_BENCH_PROCS=N forks N children instead of 1,000 (issue 26 measures
 * at 300 and 1,000); MW_BENCH_FLUSH_EVERY=K flushes every K ticks instead
 * of 5 (what writing open chunks less often would save). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collectors/process.h"
#include "core/batch.h"
#include "base/clock.h"
#include "core/collector.h"
#include "core/config.h"
#include "base/xalloc.h"
#include "storage/store.h"
#include "tests/support/test_db.h"
#include "tests/support/bench_store.h"

extern const struct mw_collector mw_collector_process;

#define CHILDREN_MAX 4000
#define TICKS 30
#define SEC 1000000000LL

static size_t CHILDREN = 1000;
static pid_t children[CHILDREN_MAX];
static size_t nchildren;

static double cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void spawn(size_t n)
{
	pid_t parent = getpid();

	while (nchildren < n) {
		pid_t p = fork();

		if (p < 0) {
			perror("fork");
			exit(1);
		}
		if (p == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(0);
			alarm(600);
			for (;;)
				pause();
		}
		children[nchildren++] = p;
	}
}

static void stop_children(void)
{
	size_t i;

	for (i = 0; i < nchildren; i++)
		kill(children[i], SIGKILL);
	for (i = 0; i < nchildren; i++)
		waitpid(children[i], NULL, 0);
	nchildren = 0;
}

static ssize_t slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, total = 0;

	if (fd < 0)
		return -1;
	while ((size_t)total < size - 1 && (n = read(fd, buf + total, size - 1 - (size_t)total)) > 0)
		total += n;
	close(fd);
	buf[total] = '\0';
	return total;
}

/* The reader before issue 14: stat + status + fd/ by path, every process. */
static size_t old_way(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;
	char path[300], buf[8192];

	while ((de = readdir(d))) {
		struct mw_process_info p;
		struct mw_err err;
		uint64_t st;
		DIR *fd;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if (slurp(path, buf, sizeof(buf)) < 0 || mw_proc_parse_stat(buf, &p, &st, &err))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/status", de->d_name);
		if (slurp(path, buf, sizeof(buf)) < 0 || mw_proc_parse_status(buf, &p, &err))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", de->d_name);
		if ((fd = opendir(path))) {
			struct dirent *e;

			while ((e = readdir(fd)))
				p.handles += e->d_name[0] != '.';
			closedir(fd);
		}
		n++;
	}
	closedir(d);
	return n;
}

/* The floor: stat and statm of every process, kept open. */
struct floor_fds {
	int *fd;	/* stat, statm, stat, statm, ... */
	size_t n;
};

static void floor_open(struct floor_fds *f)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	char path[300];
	size_t cap = 0;

	f->fd = NULL;
	f->n = 0;
	while ((de = readdir(d))) {
		int a, b;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		a = open(path, O_RDONLY | O_CLOEXEC);
		snprintf(path, sizeof(path), "/proc/%s/statm", de->d_name);
		b = open(path, O_RDONLY | O_CLOEXEC);
		if (a < 0 || b < 0) {
			if (a >= 0)
				close(a);
			if (b >= 0)
				close(b);
			continue;
		}
		MW_GROW(f->fd, cap, f->n + 2);
		f->fd[f->n++] = a;
		f->fd[f->n++] = b;
	}
	closedir(d);
}

/* One floor tick: pread and parse both files of every process. */
static size_t floor_tick(const struct floor_fds *f)
{
	char buf[1024];
	size_t i, n = 0;

	for (i = 0; i + 1 < f->n; i += 2) {
		struct mw_process_info p;
		struct mw_err err;
		uint64_t st, size, res, shr, data;
		ssize_t k = pread(f->fd[i], buf, sizeof(buf) - 1, 0);

		if (k <= 0)
			continue;
		buf[k] = '\0';
		if (mw_proc_parse_stat(buf, &p, &st, &err))
			continue;
		k = pread(f->fd[i + 1], buf, sizeof(buf) - 1, 0);
		if (k <= 0)
			continue;
		buf[k] = '\0';
		if (mw_proc_parse_statm(buf, &size, &res, &shr, &data, &err))
			continue;
		n++;
	}
	return n;
}

static void floor_close(struct floor_fds *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		close(f->fd[i]);
	free(f->fd);
}

static void *collector_new(struct mw_config *cfg, const char *budget)
{
	struct mw_collector_env env;
	struct mw_err err = { "" };
	void *st = NULL;

	mw_config_init(cfg);
	if (mw_config_set(cfg, "collector.process", "min_age", "0", "bench", &err) ||
	    mw_config_set(cfg, "collector.process", "pss_budget", budget, "bench", &err) ||
	    mw_config_set(cfg, "daemon", "interval", "1s", "bench", &err)) {
		fprintf(stderr, "%s\n", err.msg);
		exit(1);
	}
	env.config = cfg;
	env.self = mw_config_collector(cfg, "process");
	if (mw_collector_process.init(&st, &env, &err) != MW_COLLECTOR_OK) {
		fprintf(stderr, "init: %s\n", err.msg);
		exit(1);
	}
	return st;
}

static void check(int rc, const struct mw_sample_ctx *ctx)
{
	if (rc != MW_COLLECTOR_OK) {
		fprintf(stderr, "sample: %s\n", ctx->err.msg);
		exit(1);
	}
}

/* The old process.c emission: mw_batch_add per sample. */
/* One collector tick a second after the last: the clock and the sample
 * time move on together, as under the scheduler. */
static void tick(void *st, struct mw_sample_ctx *ctx, int64_t *now, int64_t *ts)
{
	*now += SEC;
	ctx->ts_ms = *ts += 1000;
	check(mw_process_sample_at(st, ctx, *now), ctx);
}

/* What the daemon does with a tick's batch: store it, flush every 5th. */
static int flush_every = 5;	/* MW_BENCH_FLUSH_EVERY: what the writer would save */
static double flush_us;	/* CPU of the flushes (inside the whole path's time) */

static void store_tick(struct mw_store *store, struct mw_batch *b, int k)
{
	mw_store_add_batch(store, b);
	if (k % flush_every == flush_every - 1) {
		double t0 = cpu_us();

		mw_bench_store_flush(store);
		flush_us += cpu_us() - t0;
	}
	mw_batch_reset(b);
}

static void old_emit(struct mw_batch *b, const struct mw_process_table *t, int64_t ts)
{
	size_t i;

	for (i = 0; i < t->nprocs; i++) {
		const struct mw_process_info *p = &t->procs[i];
		char pid[16], started[24];
		struct mw_label l[4] = {
			{ "process", p->name }, { "pid", pid }, { "started", started }, { "kind", NULL },
		};

		snprintf(pid, sizeof(pid), "%" PRIu32, p->pid);
		snprintf(started, sizeof(started), "%" PRId64, p->start_ms / 1000);
		mw_batch_add(b, "memwatch_process_working_set_bytes", l, 3, (double)p->working_set_bytes, ts);
		mw_batch_add(b, "memwatch_process_working_set_peak_bytes", l, 3,
			     (double)p->working_set_peak_bytes, ts);
		mw_batch_add(b, "memwatch_process_private_bytes", l, 3, (double)p->private_bytes, ts);
		mw_batch_add(b, "memwatch_process_virtual_bytes", l, 3, (double)p->virtual_bytes, ts);
		if (p->has_handles)
			mw_batch_add(b, "memwatch_process_handles", l, 3, (double)p->handles, ts);
		mw_batch_add(b, "memwatch_process_threads", l, 3, (double)p->threads, ts);
		mw_batch_add(b, "memwatch_process_page_faults_total", l, 3, (double)p->page_faults, ts);
		if (p->has_private_ws)
			mw_batch_add(b, "memwatch_process_private_working_set_bytes", l, 3,
				     (double)p->private_ws_bytes, ts);
		if (p->has_kinds) {
			l[3].value = "anon";
			mw_batch_add(b, "memwatch_process_resident_bytes", l, 4, (double)p->rss_anon_bytes, ts);
			l[3].value = "file";
			mw_batch_add(b, "memwatch_process_resident_bytes", l, 4, (double)p->rss_file_bytes, ts);
			l[3].value = "shmem";
			mw_batch_add(b, "memwatch_process_resident_bytes", l, 4, (double)p->rss_shmem_bytes, ts);
		}
		if (p->has_swap)
			mw_batch_add(b, "memwatch_process_swap_bytes", l, 3, (double)p->swap_bytes, ts);
	}
}

static void line(const char *what, double us, double base, const char *note)
{
	printf("  %-34s %7.2f us/process/tick  %5.2fx%s%s\n", what, us, us / base,
	       note ? "  " : "", note ? note : "");
}

int main(void)
{
	struct mw_process_reader *r;
	struct mw_process_table t;
	struct mw_process_read_stats rs;
	struct mw_err err = { "" };
	struct mw_batch b;
	struct mw_config cfg;
	struct mw_store *store;
	char dir[256], db[300], note[160];
	double t0, base, flr, rd, rdbusy, rd1, coll, whole, flushes, shared, oldem, newem;
	size_t procs, samples = 0, k, status_reads = 0, counts = 0, scans = 0, busy_scans = 0;
	int64_t now, ts = 1700000000000LL;
	void *st;
	struct floor_fds ff;

	if (getenv("MW_BENCH_PROCS")) {
		CHILDREN = strtoul(getenv("MW_BENCH_PROCS"), NULL, 10);
		if (CHILDREN > CHILDREN_MAX)
			CHILDREN = CHILDREN_MAX;
	}
	if (getenv("MW_BENCH_FLUSH_EVERY") && atoi(getenv("MW_BENCH_FLUSH_EVERY")) > 0)
		flush_every = atoi(getenv("MW_BENCH_FLUSH_EVERY"));
	spawn(CHILDREN);	/* first: children must not inherit our descriptors */
	memset(&t, 0, sizeof(t));
	mw_batch_init(&b);
	snprintf(dir, sizeof(dir), "%s/mwbench.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(db, sizeof(db), "%s/bench_process.db", dir);

	/* (a) the old way */
	old_way();
	t0 = cpu_us();
	for (k = 0; k < TICKS; k++)
		procs = old_way();
	base = (cpu_us() - t0) / TICKS / (double)procs;

	/* (a2) the floor: kept stat + statm, pread and parsed, nothing else */
	floor_open(&ff);
	floor_tick(&ff);
	t0 = cpu_us();
	for (k = 0; k < TICKS; k++)
		floor_tick(&ff);
	flr = (cpu_us() - t0) / TICKS / (double)(ff.n / 2);
	floor_close(&ff);

	/* (b) the reader */
	now = mw_clock_mono_ns();
	r = mw_process_reader_new();
	t0 = cpu_us();
	if (mw_process_table_read_at(r, &t, now, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	rd1 = (cpu_us() - t0) / (double)t.nprocs;
	t0 = cpu_us();
	for (k = 0; k < TICKS; k++) {
		now += SEC;
		mw_process_table_read_at(r, &t, now, &err);
		mw_process_reader_stats(r, &rs);
		status_reads += rs.status_reads;
		counts += rs.handle_counts;
		scans += rs.scanned;
	}
	rd = (cpu_us() - t0) / TICKS / (double)t.nprocs;
	mw_process_reader_stats(r, &rs);
	/* a busy machine: a pid handed out between every two ticks (a child
	 * forked and reaped outside the timed part), so /proc is listed */
	rdbusy = 0;
	for (k = 0; k < TICKS; k++) {
		pid_t c = fork();

		if (c == 0)
			_exit(0);
		waitpid(c, NULL, 0);
		now += SEC;
		t0 = cpu_us();
		mw_process_table_read_at(r, &t, now, &err);
		rdbusy += cpu_us() - t0;
		mw_process_reader_stats(r, &rs);
		busy_scans += rs.scanned;
	}
	rdbusy /= TICKS * (double)t.nprocs;

	/* emission only, old and new, from the same table */
	st = collector_new(&cfg, "0");
	if (now < mw_clock_mono_ns())
		now = mw_clock_mono_ns();	/* its first read was at the real time */
	{
		struct mw_sample_ctx ctx;

		memset(&ctx, 0, sizeof(ctx));
		ctx.batch = &b;
		ctx.ts_ms = ts;
		check(mw_process_sample_table(st, &ctx, &t), &ctx);	/* keys formatted */
		mw_batch_reset(&b);
		old_emit(&b, &t, ts);
		mw_batch_reset(&b);
		t0 = cpu_us();
		for (k = 0; k < TICKS; k++) {
			old_emit(&b, &t, ts + (int64_t)k * 1000);
			mw_batch_reset(&b);
		}
		oldem = (cpu_us() - t0) / TICKS / (double)t.nprocs;
		t0 = cpu_us();
		for (k = 0; k < TICKS; k++) {
			ctx.ts_ms = ts + (int64_t)k * 1000;
			check(mw_process_sample_table(st, &ctx, &t), &ctx);
			mw_batch_reset(&b);
		}
		newem = (cpu_us() - t0) / TICKS / (double)t.nprocs;
	}

	/* the collector's tick, then with the store; then the shared part */
	{
		struct mw_sample_ctx ctx;

		memset(&ctx, 0, sizeof(ctx));
		ctx.batch = &b;
		ctx.ts_ms = ts;
		check(mw_process_sample_at(st, &ctx, now), &ctx);	/* warm */
		mw_batch_reset(&b);
		t0 = cpu_us();
		for (k = 0; k < TICKS; k++) {
			tick(st, &ctx, &now, &ts);
			samples = b.nsamples;
			mw_batch_reset(&b);
		}
		coll = (cpu_us() - t0) / TICKS / (double)t.nprocs;

		store = mw_bench_store_open(db);
		tick(st, &ctx, &now, &ts);
		mw_store_add_batch(store, &b);	/* the series exist, as after a minute */
		mw_bench_store_flush(store);
		mw_batch_reset(&b);
		flush_us = 0;
		t0 = cpu_us();
		for (k = 0; k < TICKS; k++) {
			tick(st, &ctx, &now, &ts);
			store_tick(store, &b, k);
		}
		whole = (cpu_us() - t0) / TICKS / (double)t.nprocs;
		flushes = flush_us / TICKS / (double)t.nprocs;

		t0 = cpu_us();
		for (k = 0; k < TICKS; k++) {
			ctx.ts_ms = ts += 1000;
			check(mw_process_sample_table(st, &ctx, &t), &ctx);
			store_tick(store, &b, k);
		}
		shared = (cpu_us() - t0) / TICKS / (double)t.nprocs;
		mw_store_free(store);
		mw_test_db_remove(db);
	}
	mw_collector_process.fini(st);
	mw_config_release(&cfg);

	printf("%zu processes (%zu children of this benchmark), %zu samples per tick, "
	       "%d ticks 1 s apart, CPU time:\n", t.nprocs, (size_t)CHILDREN, samples, TICKS);
	line("old way (stat+status+fd/ by path)", base, base, NULL);
	snprintf(note, sizeof(note), "(%zu keep descriptors; per tick %.1f status reads, %.1f fd "
		 "counts; /proc listed %zu of %d ticks)", rs.kept, (double)status_reads / TICKS,
		 (double)counts / TICKS, scans, TICKS);
	line("reader", rd, base, note);
	snprintf(note, sizeof(note), "(/proc listed %zu of %d ticks; else the new pids tried)",
		 busy_scans, TICKS);
	line("reader, a new pid every tick", rdbusy, base, note);
	line("reader, first read (all new)", rd1, base, NULL);
	line("collector (reader+keys+batch)", coll, base, NULL);
	line("whole path (+ storage, temp db)", whole, base, NULL);
	line("shared part (table given)", shared, base, "what Windows runs after its one call");
	line("old emission (mw_batch_add)", oldem, base, NULL);
	line("new emission (cached keys)", newem, base, NULL);
	printf("  1,000 processes at a 1 s interval: collector %.2f%%, whole path %.2f%% of a core "
	       "(old way alone %.2f%%)\n", coll * 1000 / 1e4, whole * 1000 / 1e4, base * 1000 / 1e4);

	line("floor (kept stat+statm, pread)", flr, base, NULL);
	printf("  against the floor: reader %.2fx, collector %.2fx, whole path %.2fx "
	       "(its flushes %.2fx: %.2f us, a flush every %d ticks)\n",
	       rd / flr, coll / flr, whole / flr, flushes / flr, flushes, flush_every);

	/* the PSS budget: first tick reads every smaps_rollup the credit pays */
	{
		struct mw_config c2;
		struct mw_sample_ctx ctx;
		double first, next;
		void *s2 = collector_new(&c2, "5%");

		if (now < mw_clock_mono_ns())
			now = mw_clock_mono_ns();

		memset(&ctx, 0, sizeof(ctx));
		ctx.batch = &b;
		ctx.ts_ms = ts;
		t0 = cpu_us();
		check(mw_process_sample_at(s2, &ctx, now += SEC), &ctx);
		first = (cpu_us() - t0) / (double)t.nprocs;
		snprintf(note, sizeof(note), "(%s)", ctx.mode);
		mw_batch_reset(&b);
		line("collector, PSS 5% first tick", first, base, note);
		t0 = cpu_us();
		check(mw_process_sample_at(s2, &ctx, now += SEC), &ctx);
		next = (cpu_us() - t0) / (double)t.nprocs;
		snprintf(note, sizeof(note), "(%s)", ctx.mode);
		line("collector, PSS 5% next tick", next, base, note);
		mw_batch_reset(&b);
		mw_collector_process.fini(s2);
		mw_config_release(&c2);
	}
	mw_batch_release(&b);
	mw_process_table_release(&t);
	mw_process_reader_free(r);
	stop_children();
	rmdir(dir);
	return 0;
}
