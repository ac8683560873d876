/* test_jvm_linux.c - the jvm collector end to end on Linux: a performance-
 * data file (the recorded JDK 17 one, its VM start set to this test's own
 * start) put in a /tmp/hsperfdata_* folder under this process's pid is
 * found, read and written as this process's series, labelled as the
 * process collector labels it; the same file unpatched (a JVM that began
 * before this process: a dead JVM's file, its pid reused), a symbolic
 * link and a FIFO in the folder are skipped, none read, none waited on;
 * run as root, the file given to another uid is skipped too (another user
 * could plant a file under the JVM's pid and make up its heap). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/watch.h"
#include "tests/support/hsperf_file.h"
#include "tests/support/test_main.h"


static char dir[64];


static void put_file(const char *name, const uint8_t *b, size_t len)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "wb"));
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
}

static void found_read_and_labelled(void **state)
{
	uint8_t *buf;
	size_t len;
	char self[32], link_path[128], fifo[128], file[128], name[256];
	struct mw_test_jvm_seen seen;
	int64_t start_ms = 0;

	(void)state;
	buf = mw_test_hsperf_load(&len);
	snprintf(dir, sizeof(dir), "/tmp/hsperfdata_mwtest%ld", (long)getpid());
	assert_int_equal(mkdir(dir, 0700), 0);
	snprintf(self, sizeof(self), "%ld", (long)getpid());
	assert_int_equal(mw_proc_image_name((uint32_t)getpid(), name, sizeof(name)), 0);

	/* as recorded: its VM began in 2026 before this process did */
	put_file(self, buf, len);
	mw_test_jvm_sample(self, name, &seen);
	assert_int_equal(seen.mine, 0);
	assert_true(seen.skipped >= 1);

	/* its VM start now this process's own (read as the collector does:
	 * /proc/self/stat, in whole clock ticks) */
	{
		char st[1024];
		FILE *s = fopen("/proc/self/stat", "r");
		FILE *ps = fopen("/proc/stat", "r");
		unsigned long long ticks = 0, btime = 0;
		char line[256];
		const char *p;
		int field = 2;

		assert_non_null(s);
		assert_non_null(ps);
		assert_non_null(fgets(st, sizeof(st), s));
		fclose(s);
		while (fgets(line, sizeof(line), ps))
			if (!strncmp(line, "btime ", 6))
				btime = strtoull(line + 6, NULL, 10);
		fclose(ps);
		for (p = strrchr(st, ')') + 1; *p && field < 22; p++)
			if (*p == ' ')
				field++;
		ticks = strtoull(p, NULL, 10);
		start_ms = (int64_t)(btime * 1000 + ticks * 1000 / (unsigned long long)sysconf(_SC_CLK_TCK));
	}
	mw_test_hsperf_set_vm_start(buf, start_ms + 250);
	put_file(self, buf, len);

	/* beside it: a link to it under pid 1's name, a FIFO under our
	 * parent's */
	snprintf(file, sizeof(file), "%s/%s", dir, self);
	snprintf(link_path, sizeof(link_path), "%s/1", dir);
	assert_int_equal(symlink(file, link_path), 0);
	snprintf(fifo, sizeof(fifo), "%s/%ld", dir, (long)getppid());
	assert_int_equal(mkfifo(fifo, 0600), 0);

	mw_test_jvm_sample(self, name, &seen);
	assert_true(seen.old == MW_TEST_HSPERF_OLD_USED);
	/* old, young, committed, max, metaspace, young and old collections
	 * (no old generation after its collections from one sample) */
	assert_int_equal(seen.mine, 7);
	assert_int_equal(seen.named, seen.mine);	/* the image's name on each */
	assert_true(seen.skipped >= 2);	/* the link and the FIFO */
	assert_non_null(strstr(seen.mode, "hsperfdata: "));

	unlink(fifo);
	unlink(link_path);
	/* another user's file under our pid: not ours to read */
	if (geteuid() == 0) {
		struct mw_test_jvm_seen other;

		assert_int_equal(chown(file, 65534, 65534), 0);
		mw_test_jvm_sample(self, name, &other);
		assert_int_equal(other.mine, 0);
		assert_true(other.skipped >= 1);
		assert_int_equal(chown(file, 0, 0), 0);
		mw_test_jvm_sample(self, name, &other);
		assert_int_equal(other.mine, 7);	/* ours again: read */
	} else {
		printf("not root: the file of another uid not tried\n");
	}
	unlink(file);
	rmdir(dir);
	free(buf);
}

/* The folder and whatever a failed assertion left in it: a file left
 * owned by another uid would be another test's inaccessible JVM. */
static int remove_dir(void **state)
{
	DIR *d;
	struct dirent *e;
	char path[512];

	(void)state;
	if (!dir[0] || !(d = opendir(dir)))
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			unlink(path);
		}
	closedir(d);
	rmdir(dir);
	return 0;
}

MW_TEST_MAIN(
	cmocka_unit_test_teardown(found_read_and_labelled, remove_dir),
)
