/* bench_process.c - the process collector's cost per tick with 100, 500
 * and 1,000 extra processes (sleeping children this benchmark forks and
 * stops by pid), on the real /proc:
 *
 *   ps-style      the baseline, in the same run over the same processes:
 *                 what `ps` reads per process (stat, status, cmdline) with
 *                 stdio and sscanf
 *   reader        mw_process_table_read (stat + status; names cached)
 *   tick, no PSS  the collector's sample (table + samples), pss_budget = 0
 *   tick, PSS 1st the first tick with pss_budget = 5% (credit 5% of a 10 s
 *                 interval: every process's smaps_rollup read)
 *   tick, PSS 2nd the next tick 1 s later: every process read already
 *                 (pss_interval 60s), figures reported from the cache
 *   smem-style    smaps_rollup of every process each tick (no budget)
 *
 * Median of ROUNDS; figures in ms per tick and as ratios to ps-style. */
#include <ctype.h>
#include <dirent.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collectors/process.h"
#include "daemon/batch.h"
#include "daemon/clock.h"
#include "daemon/collector.h"
#include "daemon/config.h"
#include "daemon/xalloc.h"

extern const struct mw_collector mw_collector_process;

#define ROUNDS 5
#define MAX_CHILDREN 1000

static pid_t children[MAX_CHILDREN];
static size_t nchildren;

static double now_ms(void)
{
	return (double)mw_clock_mono_ns() / 1e6;
}

static void spawn_to(size_t n)
{
	while (nchildren < n) {
		pid_t p = fork();

		if (p < 0) {
			perror("fork");
			exit(1);
		}
		if (p == 0) {
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

/* what ps reads: stat, status and cmdline of every process, with stdio */
static size_t ps_style(int with_smaps)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n = 0;
	char path[64], line[4096];

	while ((de = readdir(d))) {
		FILE *f;
		int pid, ppid;
		char comm[64], state;
		unsigned long long rss = 0, anon = 0, pss = 0;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if (!(f = fopen(path, "r")))
			continue;
		if (fgets(line, sizeof(line), f) &&
		    sscanf(line, "%d (%63[^)]) %c %d", &pid, comm, &state, &ppid) == 4)
			n++;
		fclose(f);
		snprintf(path, sizeof(path), "/proc/%s/status", de->d_name);
		if ((f = fopen(path, "r"))) {
			while (fgets(line, sizeof(line), f)) {
				sscanf(line, "VmRSS: %llu", &rss);
				sscanf(line, "RssAnon: %llu", &anon);
			}
			fclose(f);
		}
		snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
		if ((f = fopen(path, "r"))) {
			if (fread(line, 1, sizeof(line), f) == 0)
				line[0] = '\0';
			fclose(f);
		}
		if (with_smaps) {
			snprintf(path, sizeof(path), "/proc/%s/smaps_rollup", de->d_name);
			if ((f = fopen(path, "r"))) {
				while (fgets(line, sizeof(line), f))
					sscanf(line, "Pss: %llu", &pss);
				fclose(f);
			}
		}
	}
	closedir(d);
	return n;
}

static void *collector_new(struct mw_config *cfg, const char *budget)
{
	struct mw_collector_env env;
	struct mw_err err = { "" };
	void *st = NULL;

	mw_config_init(cfg);
	if (mw_config_set(cfg, "collector.process", "min_age", "0", "bench", &err) ||
	    mw_config_set(cfg, "collector.process", "pss_budget", budget, "bench", &err) ||
	    mw_config_set(cfg, "daemon", "interval", "10s", "bench", &err)) {
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

static double tick(void *st, char *mode, size_t *nsamples)
{
	struct mw_sample_ctx ctx;
	struct mw_batch b;
	double t0, t;

	mw_batch_init(&b);
	memset(&ctx, 0, sizeof(ctx));
	ctx.ts_ms = mw_clock_wall_ms();
	ctx.batch = &b;
	t0 = now_ms();
	if (mw_collector_process.sample(st, &ctx) != MW_COLLECTOR_OK) {
		fprintf(stderr, "sample: %s\n", ctx.err.msg);
		exit(1);
	}
	t = now_ms() - t0;
	if (mode)
		memcpy(mode, ctx.mode, sizeof(ctx.mode));
	if (nsamples)
		*nsamples = b.nsamples;
	mw_batch_release(&b);
	return t;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v)
{
	qsort(v, ROUNDS, sizeof(*v), dcmp);
	return v[ROUNDS / 2];
}

static void run(size_t extra)
{
	double ps[ROUNDS], smem[ROUNDS], rd[ROUNDS], nopss[ROUNDS], first[ROUNDS], second[ROUNDS];
	struct mw_process_reader *r = mw_process_reader_new();
	struct mw_process_table t;
	struct mw_err err;
	char mode1[96] = "", mode2[96] = "";
	size_t procs = 0, samples = 0;
	int i;

	memset(&t, 0, sizeof(t));
	spawn_to(extra);
	mw_process_table_read(r, &t, &err);	/* warm the name cache */
	for (i = 0; i < ROUNDS; i++) {
		struct mw_config c1, c2;
		void *s1, *s2;
		double t0 = now_ms();

		procs = ps_style(0);
		ps[i] = now_ms() - t0;
		t0 = now_ms();
		ps_style(1);
		smem[i] = now_ms() - t0;
		t0 = now_ms();
		mw_process_table_read(r, &t, &err);
		rd[i] = now_ms() - t0;
		s1 = collector_new(&c1, "0");
		tick(s1, NULL, NULL);	/* names cached, as in the daemon */
		nopss[i] = tick(s1, NULL, &samples);
		mw_collector_process.fini(s1);
		mw_config_release(&c1);
		s2 = collector_new(&c2, "5%");
		first[i] = tick(s2, mode1, NULL);
		sleep(1);
		second[i] = tick(s2, mode2, NULL);
		mw_collector_process.fini(s2);
		mw_config_release(&c2);
	}
	{
		double base = median(ps);
		double m[5] = { median(rd), median(nopss), median(first), median(second),
				median(smem) };
		static const char *const what[5] = {
			"reader (stat+status)", "tick, no PSS", "tick, PSS 5% first",
			"tick, PSS 5% next (1 s)", "smem-style (+smaps_rollup)",
		};
		int k;

		printf("%zu extra processes (%zu in all, %zu samples per tick):\n", extra, procs,
		       samples);
		printf("  %-28s %8.2f ms/tick  1.00x\n", "ps-style (baseline)", base);
		for (k = 0; k < 5; k++)
			printf("  %-28s %8.2f ms/tick  %.2fx\n", what[k], m[k], m[k] / base);
		printf("  status mode, first tick: %s\n", mode1);
		printf("  status mode, next tick:  %s\n", mode2);
	}
	mw_process_table_release(&t);
	mw_process_reader_free(r);
}

int main(void)
{
	static const size_t sizes[] = { 100, 500, 1000 };
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		run(sizes[i]);
	stop_children();
	return 0;
}
