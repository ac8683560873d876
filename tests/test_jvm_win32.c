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

#include "collectors/process.h"
#include "tests/support/hsperf_file.h"
#include "tests/support/test_main.h"



/* This process's old generation as the collector wrote it (-1: none),
 * every series of it named after its image. */
static double sample_old(const char *image)
{
	struct mw_test_jvm_seen seen;
	char pid[16];

	snprintf(pid, sizeof(pid), "%lu", (unsigned long)GetCurrentProcessId());
	mw_test_jvm_sample(pid, image, &seen);
	assert_int_equal(seen.named, seen.mine);
	return seen.old;
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
