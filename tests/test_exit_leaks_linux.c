/* test_exit_leaks_linux.c - the exit_leaks collector on Linux with its
 * hook (collectors/exit_leaks_linux.c) over a scratch lsan_dir: a finished
 * report becomes one detail record (process from the file name, pid,
 * exit time from the file) and moves into done/; a report whose writer
 * still runs waits; a file that is not a report is moved aside, not
 * delivered; other names are left alone; a huge report is cut and marked
 * incomplete; nothing configured is idle. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "base/clock.h"
#include "collectors/exit_leaks.h"
#include "core/collector.h"
#include "core/config.h"
#include "core/exit_report.h"
#include "tests/support/test_main.h"

#define DIR "test_exit_leaks_linux.tmp.d"

static const char report[] =
	"==77==ERROR: LeakSanitizer: detected memory leaks\n\n"
	"Direct leak of 64 byte(s) in 2 object(s) allocated from:\n"
	"    #0 0x1 in f a.c:1\n\n"
	"SUMMARY: AddressSanitizer: 64 byte(s) leaked in 2 allocation(s).\n";

static void put(const char *name, const char *text, size_t n)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), DIR "/%s", name);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, n, f), n);
	fclose(f);
}

static bool exists(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), DIR "/%s", rel);
	return access(path, F_OK) == 0;
}

static void clean(void)
{
	if (system("rm -rf " DIR) != 0)
		fail_msg("cannot remove " DIR);
}

struct run {
	struct mw_config cfg;
	void *st;
	struct mw_batch b;
};

static void start(struct run *r, const char *lsan_dir)
{
	struct mw_collector_env env;
	struct mw_err err = { "" };

	mw_config_init(&r->cfg);
	if (lsan_dir)
		assert_int_equal(mw_config_set(&r->cfg, "exit_leaks", "lsan_dir", lsan_dir, "test", &err), 0);
	env.config = &r->cfg;
	env.self = mw_config_collector(&r->cfg, "exit_leaks");
	assert_int_equal(mw_collector_exit_leaks.init(&r->st, &env, &err), MW_COLLECTOR_OK);
	mw_batch_init(&r->b);
}

static void tick(struct run *r)
{
	struct mw_sample_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	mw_batch_reset(&r->b);
	ctx.batch = &r->b;
	ctx.ts_ms = mw_clock_wall_ms();
	assert_int_equal(mw_collector_exit_leaks.sample(r->st, &ctx), MW_COLLECTOR_OK);
}

static void stop(struct run *r)
{
	mw_collector_exit_leaks.fini(r->st);
	mw_batch_release(&r->b);
	mw_config_release(&r->cfg);
}

/* The detail records of the last tick, decoded. */
static size_t reports(struct run *r, struct mw_exit_report *out, size_t max)
{
	size_t i, n = 0;
	struct mw_err err;

	for (i = 0; i < r->b.ndetails && n < max; i++)
		if (!strcmp(r->b.details[i].kind, MW_EXIT_REPORT_DETAIL)) {
			assert_true(mw_exit_report_decode(r->b.details[i].data, r->b.details[i].len,
							  &out[n], &err));
			n++;
		}
	return n;
}

static void picks_up_reports(void **state)
{
	struct run r;
	struct mw_exit_report got[4];
	struct stat sb;
	char own[64];
	size_t n, i;
	char *huge;

	(void)state;
	clean();
	start(&r, DIR);
	assert_true(exists("done"));
	put("app.4194401", report, sizeof(report) - 1);		/* above PID_MAX_LIMIT: no such process */
	put("notes.txt", "hello\n", 6);				/* not NAME.PID */
	put("broken.4194402", "Direct leak of x byte(s)\n", 25);	/* not a report */
	snprintf(own, sizeof(own), "self.%d", (int)getpid());	/* its writer runs */
	put(own, report, sizeof(report) - 1);
	huge = malloc(9u << 20);
	assert_non_null(huge);
	memset(huge, ' ', 9u << 20);
	memcpy(huge, report, sizeof(report) - 1);	/* the summary is kept, the rest is blanks */
	memcpy(huge + 200, "\n    #1 0x2 in g b.c:2\n", 23);
	put("big.4194403", huge, 9u << 20);
	free(huge);
	stat(DIR "/app.4194401", &sb);

	tick(&r);
	n = reports(&r, got, 4);
	assert_int_equal(n, 2);
	for (i = 0; i < n; i++) {
		if (!strcmp(got[i].process, "app")) {
			assert_int_equal(got[i].pid, 4194401);
			assert_int_equal(got[i].bytes, 64);
			assert_int_equal(got[i].leaks, 2);
			assert_true(got[i].complete);
			assert_true(got[i].exited_ms == (int64_t)sb.st_mtime * 1000);
			assert_int_equal(got[i].started_ms, 0);
		} else {
			assert_string_equal(got[i].process, "big");
			assert_false(got[i].complete);	/* cut at 8 MB */
		}
		mw_exit_report_release(&got[i]);
	}
	assert_true(exists("done/app.4194401") && !exists("app.4194401"));
	assert_true(exists("done/broken.4194402") && !exists("broken.4194402"));
	assert_true(exists("notes.txt"));
	assert_true(exists(own));	/* this process is alive: its report waits */

	tick(&r);	/* nothing new: nothing again */
	assert_int_equal(reports(&r, got, 4), 0);
	stop(&r);
	clean();
}

static void idle_without_settings(void **state)
{
	struct run r;
	struct mw_exit_report got[1];

	(void)state;
	start(&r, NULL);
	tick(&r);
	assert_int_equal(reports(&r, got, 1), 0);
	assert_int_equal(r.b.nsamples, 0);
	stop(&r);
}

MW_TEST_MAIN(
	cmocka_unit_test(picks_up_reports),
	cmocka_unit_test(idle_without_settings),
)
