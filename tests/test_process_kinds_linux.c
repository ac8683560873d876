/* test_process_kinds_linux.c - the Linux process table read from a
 * constructed /proc-like tree (names from the exe link, from cmdline when
 * the link is gone, comm when argv was rewritten; a process whose status
 * vanished mid-read is left out; an old kernel's status has no figures by
 * kind - absent, not 0), and the collector's PSS time budget on the real
 * /proc (a tiny budget reads few processes per tick, round-robin; figures
 * are kept between reads; 0 turns it off; bad values are refused). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "collectors/process.h"
#include "core/batch.h"
#include "base/clock.h"
#include "core/collector.h"
#include "core/config.h"
#include "tests/support/process_find.h"
#include "tests/support/test_file.h"
#include "tests/support/test_main.h"

extern const struct mw_collector mw_collector_process;

static char root[256];

static void put(const char *pid, const char *file, const char *text, size_t len)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", root, pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s", root, pid, file);
	mw_test_write_file(path, text, len);
}

#define PUT(pid, file, lit) put(pid, file, lit, sizeof(lit) - 1)

static void stat_of(const char *pid, const char *comm)
{
	char text[512];

	snprintf(text, sizeof(text), "%s (%s) S 1 1 1 0 -1 0 10 0 2 0 1 1 0 0 20 0 1 0 500 "
		 "1048576 100 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0\n", pid, comm);
	put(pid, "stat", text, strlen(text));
}

static const char status_new[] = "Name:\tx\nVmHWM:\t 300 kB\nVmRSS:\t 200 kB\n"
				 "RssAnon:\t 120 kB\nRssFile:\t 60 kB\nRssShmem:\t 20 kB\n"
				 "VmSwap:\t 4 kB\n";

static int setup_tree(void **state)
{
	char path[512];

	(void)state;
	snprintf(root, sizeof(root), "%s/mwproc.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(root));
	PUT("", "stat", "cpu 1 2 3\nbtime 1700000000\n");
	/* 10: exe link to a long name */
	stat_of("10", "verylongprocess");
	PUT("10", "status", status_new);
	snprintf(path, sizeof(path), "%s/10/exe", root);
	assert_int_equal(symlink("/opt/app/verylongprocessname-leaky", path), 0);
	PUT("10", "smaps_rollup", "Rss: 200 kB\nPss: 150 kB\nPrivate_Clean: 10 kB\n"
	    "Private_Dirty: 90 kB\n");
	/* 20: no exe link (another user's), argv[0] agrees with comm */
	stat_of("20", "my leaky prog w");
	PUT("20", "status", status_new);
	PUT("20", "cmdline", "/srv/my leaky prog with spaces\0--x\0");
	/* 30: rewritten argv: comm */
	stat_of("30", "sshd");
	PUT("30", "status", status_new);
	PUT("30", "cmdline", "sshd: alice@pts/0\0");
	/* 40: old kernel: no Rss* lines */
	stat_of("40", "old");
	PUT("40", "status", "Name:\told\nVmHWM:\t 8 kB\nVmRSS:\t 8 kB\n");
	/* 50: gone between stat and status */
	stat_of("50", "ghost");
	/* 60: kernel thread */
	stat_of("60", "kworker/0:1");
	PUT("60", "status", "Name:\tkworker/0:1\nState:\tI\n");
	/* 70: exe of a binary deleted since */
	stat_of("70", "upgraded");
	PUT("70", "status", status_new);
	snprintf(path, sizeof(path), "%s/70/exe", root);
	assert_int_equal(symlink("/usr/sbin/upgraded-daemon (deleted)", path), 0);
	return 0;
}

static int teardown_tree(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void constructed_tree(void **state)
{
	struct mw_process_reader *r = mw_process_reader_new_at(root);
	struct mw_process_table t;
	struct mw_err err = { "" };
	const struct mw_process_info *p;
	uint64_t pss = 0, uss = 0;
	int round;

	(void)state;
	memset(&t, 0, sizeof(t));
	for (round = 0; round < 2; round++) {	/* the second from the name cache */
		if (mw_process_table_read(r, &t, &err))
			fail_msg("%s", err.msg);
		assert_int_equal(t.nprocs, 6);
		assert_null(mw_test_process_find(&t, 50));
		p = mw_test_process_find(&t, 10);
		assert_non_null(p);
		assert_string_equal(p->name, "verylongprocessname-leaky");
		assert_true(p->has_kinds);
		assert_true(p->rss_anon_bytes == 120 * 1024 && p->rss_file_bytes == 60 * 1024 &&
			    p->rss_shmem_bytes == 20 * 1024);
		assert_true(p->has_swap && p->swap_bytes == 4 * 1024);
		assert_true(p->has_private_ws && p->private_ws_bytes == 120 * 1024);
		assert_true(p->start_ms == 1700000000000LL + 500 * 1000 / sysconf(_SC_CLK_TCK));
		assert_false(p->has_handles);	/* no fd directory */
		assert_string_equal(mw_test_process_find(&t, 20)->name, "my leaky prog with spaces");
		assert_string_equal(mw_test_process_find(&t, 30)->name, "sshd");
		assert_string_equal(mw_test_process_find(&t, 70)->name, "upgraded-daemon");
		p = mw_test_process_find(&t, 40);
		assert_false(p->has_kinds);
		assert_false(p->has_swap);
		assert_false(p->has_private_ws);
		assert_true(p->working_set_bytes == 8 * 1024);
		p = mw_test_process_find(&t, 60);
		assert_string_equal(p->name, "kworker/0:1");
		assert_false(p->has_kinds);
	}
	assert_int_equal(mw_process_pss_read(r, 10, &pss, &uss), 0);
	assert_true(pss == 150 * 1024 && uss == 100 * 1024);
	assert_int_equal(mw_process_pss_read(r, 20, &pss, &uss), 1);	/* none: absent */
	/* a pid reused by another process: its name is looked up again */
	stat_of("10", "other");
	{
		char path[512];

		snprintf(path, sizeof(path), "%s/10/stat", root);
		put("10", "stat", "10 (other) S 1 1 1 0 -1 0 10 0 2 0 1 1 0 0 20 0 1 0 900 "
		    "1048576 100 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0\n", 94);
		snprintf(path, sizeof(path), "%s/10/exe", root);
		unlink(path);
		assert_int_equal(symlink("/bin/other", path), 0);
	}
	if (mw_process_table_read(r, &t, &err))
		fail_msg("%s", err.msg);
	assert_string_equal(mw_test_process_find(&t, 10)->name, "other");
	mw_process_table_release(&t);
	mw_process_reader_free(r);
	/* no such root: an error naming it */
	r = mw_process_reader_new_at("/nonexistent/proc");
	assert_int_equal(mw_process_table_read(r, &t, &err), -1);
	assert_non_null(strstr(err.msg, "/nonexistent/proc"));
	mw_process_table_release(&t);
	mw_process_reader_free(r);
}

/* --- the PSS budget, on the real /proc ----------------------------------- */

struct run {
	size_t pss_series, kind_series;
	char mode[96];
	char pids[8192];	/* " 1 2 3 ": the processes listed */
};

static void *collector_new(struct mw_config *cfg, const char *budget, const char *every)
{
	struct mw_collector_env env;
	struct mw_err err = { "" };
	void *st = NULL;

	mw_config_init(cfg);
	if (mw_config_set(cfg, "collector.process", "min_age", "0", "test", &err) ||
	    (budget && mw_config_set(cfg, "collector.process", "pss_budget", budget, "test", &err)) ||
	    (every && mw_config_set(cfg, "collector.process", "pss_interval", every, "test", &err)))
		fail_msg("%s", err.msg);
	env.config = cfg;
	env.self = mw_config_collector(cfg, "process");
	if (mw_collector_process.init(&st, &env, &err) != MW_COLLECTOR_OK)
		fail_msg("init: %s", err.msg);
	return st;
}

/* A tick now, or at monotonic time at_ns (> 0). */
static void tick_at(void *st, struct run *out, int64_t at_ns)
{
	struct mw_sample_ctx ctx;
	struct mw_batch b;
	size_t i;

	mw_batch_init(&b);
	memset(&ctx, 0, sizeof(ctx));
	ctx.ts_ms = mw_clock_wall_ms();
	ctx.batch = &b;
	assert_int_equal(at_ns > 0 ? mw_process_sample_at(st, &ctx, at_ns)
				   : mw_collector_process.sample(st, &ctx), MW_COLLECTOR_OK);
	memset(out, 0, sizeof(*out));
	for (i = 0; i < b.nsamples; i++) {
		out->pss_series += !strcmp(b.samples[i].metric, "memwatch_process_pss_bytes");
		out->kind_series += !strcmp(b.samples[i].metric, "memwatch_process_resident_bytes");
		if (!strcmp(b.samples[i].metric, "memwatch_process_threads")) {
			size_t j, len = strlen(out->pids);

			for (j = 0; j < b.samples[i].nlabels; j++)
				if (!strcmp(b.samples[i].labels[j].name, "pid") &&
				    len + 24 < sizeof(out->pids))
					snprintf(out->pids + len, sizeof(out->pids) - len, "%s%s ",
						 len ? "" : " ", b.samples[i].labels[j].value);
		}
	}
	memcpy(out->mode, ctx.mode, sizeof(out->mode));
	mw_batch_release(&b);
}

static void tick(void *st, struct run *out)
{
	tick_at(st, out, 0);
}

static size_t mode_read(const struct run *r)
{
	const char *p = strstr(r->mode, "%: ");

	return p ? (size_t)strtoul(p + 3, NULL, 10) : (size_t)-1;
}

/* The figure before " unchanged" in the mode line. */
static size_t mode_unchanged(const struct run *r)
{
	const char *p = strstr(r->mode, " unchanged");

	while (p && p > r->mode && p[-1] >= '0' && p[-1] <= '9')
		p--;
	return p ? (size_t)strtoul(p, NULL, 10) : 0;
}

/* processes listed in b but not in a (started in between) */
static size_t new_pids(const struct run *a, const struct run *b)
{
	const char *p = b->pids;
	size_t n = 0;
	char key[32];
	int len;

	while (sscanf(p, " %20[0-9]%n", key + 1, &len) == 1) {
		key[0] = ' ';
		strcat(key, " ");
		n += strstr(a->pids, key) == NULL;
		p += len;
	}
	return n;
}

static void pss_budget(void **state)
{
	static struct run a, b;
	struct mw_config cfg;
	void *st;

	(void)state;
	/* generous: everything read on the first tick; the second reads
	 * nothing (not due for 60 s) yet reports the same figures */
	st = collector_new(&cfg, "100%", NULL);
	tick(st, &a);
	print_message("# %s\n", a.mode);
	assert_true(a.pss_series >= 1);
	assert_true(a.kind_series >= 3);
	assert_true(mode_read(&a) >= a.pss_series);
	tick(st, &b);
	print_message("# %s\n", b.mode);
	assert_true(mode_read(&b) <= new_pids(&a, &b));
	assert_true(b.pss_series + 2 >= a.pss_series);	/* some may have exited */
	mw_collector_process.fini(st);
	mw_config_release(&cfg);
	/* tiny: a first tick's credit of 1e-7 x 10 s = 1 us buys one read,
	 * then the credit is spent; reads continue round-robin */
	st = collector_new(&cfg, "0.00001%", "0");
	tick(st, &a);
	print_message("# %s\n", a.mode);
	assert_true(mode_read(&a) <= 1);
	assert_non_null(strstr(a.mode, "waiting"));
	tick(st, &b);
	assert_true(mode_read(&b) <= 1);
	mw_collector_process.fini(st);
	mw_config_release(&cfg);
	/* off */
	st = collector_new(&cfg, "0", NULL);
	tick(st, &a);
	assert_int_equal(a.pss_series, 0);
	assert_null(strstr(a.mode, "pss"));
	assert_true(a.kind_series >= 3);
	mw_collector_process.fini(st);
	mw_config_release(&cfg);
}

/* A process whose resident set sits still is read at most every fifth
 * interval; one that moved, every interval. */
static void pss_of_still_process_read_less_often(void **state)
{
	static struct run a, b, c;
	struct mw_config cfg;
	const int64_t sec = 1000000000LL;
	int ready[2], status;
	pid_t parent, kid;
	void *st;
	char c1;

	(void)state;
	assert_int_equal(pipe(ready), 0);
	parent = getpid();
	kid = fork();
	assert_true(kid >= 0);
	if (kid == 0) {		/* still: a sleeping child */
		/* it dies with the test, even one that failed before killing
		 * it, and holds no pipe of the test runner's open */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		dup2(ready[1], STDOUT_FILENO);
		dup2(ready[1], STDERR_FILENO);
		c1 = 1;
		if (write(ready[1], &c1, 1) == 1)
			pause();
		_exit(0);
	}
	assert_int_equal(read(ready[0], &c1, 1), 1);	/* it runs; what it maps is mapped */
	close(ready[0]);
	close(ready[1]);
	st = collector_new(&cfg, "100%", "1s");
	tick_at(st, &a, 100 * sec);	/* everything read */
	/* 1.5 intervals later, all due: the child (at least) sat still */
	tick_at(st, &b, 100 * sec + 3 * sec / 2);
	print_message("# %s\n# %s\n", a.mode, b.mode);
	assert_true(mode_read(&a) >= 2);
	assert_true(mode_unchanged(&b) >= 1);
	assert_true(b.pss_series + 2 >= a.pss_series);	/* figures still reported */
	/* 6.5 intervals after the first read: nothing read then is skipped
	 * any more, only what was read at the second tick can be */
	tick_at(st, &c, 100 * sec + 13 * sec / 2);
	print_message("# %s\n", c.mode);
	assert_true(mode_unchanged(&c) <= mode_read(&b));
	assert_true(mode_read(&c) + mode_unchanged(&c) >= mode_unchanged(&b));
	mw_collector_process.fini(st);
	mw_config_release(&cfg);
	kill(kid, SIGKILL);
	assert_int_equal(waitpid(kid, &status, 0), kid);
}

static void pss_options_declared_and_checked(void **state)
{
	static const char *const bad[] = { "5", "-1%", "101%", "lots", "5%%" };
	struct mw_config cfg;
	struct mw_err err = { "" };
	const struct mw_option *o;
	size_t i;

	(void)state;
	o = mw_option_find(mw_collector_process.options, mw_collector_process.noptions, NULL,
			   "pss_budget");
	assert_non_null(o);
	assert_string_equal(o->def, "5%");
	assert_non_null(mw_option_find(mw_collector_process.options,
				       mw_collector_process.noptions, NULL, "pss_interval"));
	/* a bad value is refused when set, naming the key */
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mw_config_init(&cfg);
		assert_int_equal(mw_config_set(&cfg, "collector.process", "pss_budget", bad[i],
					       "test", &err), -1);
		assert_non_null(strstr(err.msg, "pss_budget"));
		mw_config_release(&cfg);
	}
}

MW_TEST_MAIN(
	cmocka_unit_test_setup_teardown(constructed_tree, setup_tree, teardown_tree),
	cmocka_unit_test(pss_budget),
	cmocka_unit_test(pss_of_still_process_read_less_often),
	cmocka_unit_test(pss_options_declared_and_checked),
)
