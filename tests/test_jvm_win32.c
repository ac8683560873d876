/* test_jvm_win32.c - the jvm collector end to end on Windows (and Wine):
 * the recorded JDK 17 performance-data file, its VM start set to this
 * test's own creation time, put in %TEMP%\hsperfdata_mwtestPID\ under
 * this process's id, is found, read and written as this process's series
 * named after its image; unpatched (a VM that began before the process:
 * a dead JVM's file, its pid reused) it is skipped. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <cmocka.h>

#include "base/clock.h"
#include "core/batch.h"
#include "core/collector.h"
#include "collectors/jvm.h"
#include "collectors/process.h"
#include "tests/support/hsperf_file.h"
#include "tests/support/test_main.h"



/* This process's old generation as the collector wrote it (-1: none). */
static double sample_old(const char *image)
{
	struct mw_collector_env env = { 0 };
	struct mw_sample_ctx ctx;
	struct mw_batch b;
	struct mw_err err = { "" };
	char pid[16];
	void *st = NULL;
	double old = -1;
	size_t i, j;

	snprintf(pid, sizeof(pid), "%lu", (unsigned long)GetCurrentProcessId());
	assert_int_equal(mw_collector_jvm.init(&st, &env, &err), MW_COLLECTOR_OK);
	mw_batch_init(&b);
	memset(&ctx, 0, sizeof(ctx));
	ctx.ts_ms = mw_clock_wall_ms();
	ctx.batch = &b;
	assert_int_equal(mw_collector_jvm.sample(st, &ctx), MW_COLLECTOR_OK);
	for (i = 0; i < b.nsamples; i++) {
		const struct mw_sample *s = &b.samples[i];
		bool mine = false, is_old = false, named = false;

		for (j = 0; j < s->nlabels; j++) {
			mine |= !strcmp(s->labels[j].name, "pid") && !strcmp(s->labels[j].value, pid);
			is_old |= !strcmp(s->labels[j].name, "space") && !strcmp(s->labels[j].value, "old");
			named |= !strcmp(s->labels[j].name, "process") &&
				 !_stricmp(s->labels[j].value, image);
		}
		if (mine && is_old && !strcmp(s->metric, "memwatch_jvm_heap_used_bytes")) {
			assert_true(named);
			old = s->value;
		}
	}
	mw_batch_release(&b);
	mw_collector_jvm.fini(st);
	return old;
}

static void found_in_temp_and_read(void **state)
{
	uint8_t *buf;
	char temp[MAX_PATH + 1], dir[MAX_PATH + 64], file[MAX_PATH + 96], image[MAX_PATH];
	const char *base;
	FILETIME created, ex, k, u;
	int64_t start_ms;
	size_t len;
	FILE *out;

	(void)state;
	buf = mw_test_hsperf_load(&len);
	assert_true(GetTempPathA(sizeof(temp), temp) > 0);
	snprintf(dir, sizeof(dir), "%shsperfdata_mwtest%lu", temp,
		 (unsigned long)GetCurrentProcessId());
	assert_true(CreateDirectoryA(dir, NULL));
	snprintf(file, sizeof(file), "%s\\%lu", dir, (unsigned long)GetCurrentProcessId());
	assert_true(GetModuleFileNameA(NULL, image, sizeof(image)) > 0);
	base = strrchr(image, '\\') ? strrchr(image, '\\') + 1 : image;

	assert_non_null(out = fopen(file, "wb"));
	assert_int_equal(fwrite(buf, 1, len, out), len);
	fclose(out);
	assert_true(sample_old(base) == -1);	/* its VM began before us */

	assert_true(GetProcessTimes(GetCurrentProcess(), &created, &ex, &k, &u));
	start_ms = mw_filetime_to_unix_ms((uint64_t)created.dwHighDateTime << 32 |
					  created.dwLowDateTime) + 250;
	mw_test_hsperf_set_vm_start(buf, start_ms);
	assert_non_null(out = fopen(file, "wb"));
	assert_int_equal(fwrite(buf, 1, len, out), len);
	fclose(out);
	assert_true(sample_old(base) == MW_TEST_HSPERF_OLD_USED);

	DeleteFileA(file);
	RemoveDirectoryA(dir);
	free(buf);
}

MW_TEST_MAIN(
	cmocka_unit_test(found_in_temp_and_read),
)
