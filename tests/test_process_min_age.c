/* test_process_min_age.c - [collector.process] min_age: a process younger
 * than it gets no series, and what is skipped is counted (a child this
 * test starts is young); memwatch itself is never skipped. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#ifdef _WIN32
#include <windows.h>
#define own_pid() ((unsigned long)GetCurrentProcessId())
#else
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#define own_pid() ((unsigned long)getpid())
#endif

#include "core/batch.h"
#include "base/clock.h"
#include "core/collector.h"
#include "core/config.h"

extern const struct mw_collector mw_collector_process;

/* A young child process, stopped by its pid (it also ends by itself). */
#ifdef _WIN32
static PROCESS_INFORMATION child;

static unsigned long child_start(void)
{
	char path[MAX_PATH], cmd[MAX_PATH + 16];
	STARTUPINFOA si;

	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	GetModuleFileNameA(NULL, path, sizeof(path));
	snprintf(cmd, sizeof(cmd), "\"%s\" child", path);
	if (!CreateProcessA(path, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &child))
		fail_msg("CreateProcess failed: %lu", (unsigned long)GetLastError());
	return (unsigned long)child.dwProcessId;
}

static void child_stop(void)
{
	TerminateProcess(child.hProcess, 0);
	WaitForSingleObject(child.hProcess, 10000);
	CloseHandle(child.hProcess);
	CloseHandle(child.hThread);
}
#else
static pid_t child;

static unsigned long child_start(void)
{
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		alarm(60);
		for (;;)
			pause();
	}
	return (unsigned long)child;
}

static void child_stop(void)
{
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}
#endif

/* Sample once with min_age; *own: samples of process `pid`, *skipped:
 * the skipped counter's value (-1: not reported). */
static void sample_with(const char *min_age, unsigned long who, size_t *own, double *skipped)
{
	struct mw_config cfg;
	struct mw_collector_env env;
	struct mw_sample_ctx ctx;
	struct mw_batch b;
	struct mw_err err = { "" };
	char pid[24];
	void *st = NULL;
	size_t i, j;

	mw_config_init(&cfg);
	if (min_age && mw_config_set(&cfg, "collector.process", "min_age", min_age, "test",
				     &err))
		fail_msg("%s", err.msg);
	env.config = &cfg;
	env.self = mw_config_collector(&cfg, "process");
	if (mw_collector_process.init(&st, &env, &err) != MW_COLLECTOR_OK)
		fail_msg("init: %s", err.msg);
	mw_batch_init(&b);
	memset(&ctx, 0, sizeof(ctx));
	ctx.ts_ms = mw_clock_wall_ms();
	ctx.batch = &b;
	assert_int_equal(mw_collector_process.sample(st, &ctx), MW_COLLECTOR_OK);
	snprintf(pid, sizeof(pid), "%lu", who);
	*own = 0;
	*skipped = -1;
	for (i = 0; i < b.nsamples; i++) {
		const struct mw_sample *s = &b.samples[i];

		if (!strcmp(s->metric, "memwatch_collector_young_skipped_total"))
			*skipped = s->value;
		for (j = 0; j < s->nlabels; j++)
			if (!strcmp(s->labels[j].name, "pid") && !strcmp(s->labels[j].value, pid))
				(*own)++;
	}
	mw_batch_release(&b);
	mw_collector_process.fini(st);
	mw_config_release(&cfg);
}

static void young_process_skipped_and_counted(void **state)
{
	unsigned long young = child_start();
	size_t own;
	double skipped;

	(void)state;
	sample_with("1h", young, &own, &skipped);
	assert_int_equal(own, 0);
	assert_true(skipped >= 1);
	sample_with("1h", own_pid(), &own, &skipped);	/* memwatch itself: never */
	assert_true(own >= 5);
	sample_with("0", young, &own, &skipped);
	assert_true(own >= 5);
	assert_true(skipped == 0);
	child_stop();
}

static void default_is_5s_and_bad_value_refused(void **state)
{
	struct mw_config cfg;
	struct mw_err err = { "" };
	const struct mw_option *o;

	(void)state;
	o = mw_option_find(mw_collector_process.options, mw_collector_process.noptions, NULL,
			   "min_age");
	assert_non_null(o);
	assert_string_equal(o->def, "5s");
	/* a bad value is refused when set, naming the key */
	mw_config_init(&cfg);
	assert_int_equal(mw_config_set(&cfg, "collector.process", "min_age", "soon", "test",
				       &err), -1);
	assert_non_null(strstr(err.msg, "min_age"));
	mw_config_release(&cfg);
}

int main(int argc, char **argv)
{
#ifdef _WIN32
	if (argc > 1 && !strcmp(argv[1], "child")) {
		Sleep(60000);
		return 0;
	}
#else
	(void)argc;
	(void)argv;
#endif
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(young_process_skipped_and_counted),
		cmocka_unit_test(default_is_5s_and_bad_value_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
