/* test_workingset_linux.c - mw_ws_read on live processes: this one (its
 * own heap, stack, executable and libraries found; 8 MiB written into the
 * heap and 4 MiB of MAP_SHARED memory show up in the right category; PSS
 * and USS), and a process that has gone (inaccessible, not an error). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "collectors/workingset.h"
#include "tests/support/test_main.h"

static uint64_t cat_bytes(const struct mw_ws_snapshot *s, int c)
{
	uint64_t n = 0;

	for (int k = 0; k < MW_WS_NSHARING; k++)
		n += s->classified.pages[c][k];
	return n * s->page_size;
}

static void read_self(void **state)
{
	struct mw_ws_snapshot s;
	struct mw_err err = { "" };
	uint64_t heap0, sh0, sum = 0;
	unsigned char *shm;
	char *big;
	size_t i;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(mw_ws_supported(&err), 0);
	if (mw_ws_read((uint32_t)getpid(), true, &s, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(s.mode, MW_WS_MODE_SMAPS);
	assert_true(cat_bytes(&s, MW_WS_IMAGE) > 0);
	assert_true(cat_bytes(&s, MW_WS_STACK) > 0);
	for (int c = 0; c < MW_WS_NCATEGORIES; c++)
		sum += cat_bytes(&s, c);
	assert_int_equal(sum, s.total_bytes);
	assert_true(s.pss_bytes > 0 && s.pss_bytes <= s.total_bytes);
	assert_true(s.uss_bytes > 0 && s.uss_bytes <= s.total_bytes);
	heap0 = cat_bytes(&s, MW_WS_HEAP) + cat_bytes(&s, MW_WS_PRIVATE);
	sh0 = cat_bytes(&s, MW_WS_SHAREABLE);
	/* 8 MiB of malloc (mmap'ed under ASan or past the threshold: heap or
	 * private data) and 4 MiB of shared anonymous memory */
	big = malloc(8 << 20);
	assert_non_null(big);
	memset(big, 1, 8 << 20);
	shm = mmap(NULL, 4 << 20, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(shm != MAP_FAILED);
	for (i = 0; i < (4u << 20); i += 4096)
		shm[i] = 1;
	if (mw_ws_read((uint32_t)getpid(), true, &s, &err))
		fail_msg("%s", err.msg);
	assert_true(cat_bytes(&s, MW_WS_HEAP) + cat_bytes(&s, MW_WS_PRIVATE) >= heap0 + (8 << 20));
	assert_true(cat_bytes(&s, MW_WS_SHAREABLE) >= sh0 + (4 << 20));
	munmap(shm, 4 << 20);
	free(big);
	mw_ws_snapshot_release(&s);
}

static void read_gone(void **state)
{
	struct mw_ws_snapshot s;
	struct mw_err err = { "" };
	pid_t pid = fork();

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	/* a zombie first: no address space */
	while (1) {
		siginfo_t si;

		memset(&si, 0, sizeof(si));
		assert_int_equal(waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT), 0);
		if (si.si_pid == pid)
			break;
	}
	assert_int_equal(mw_ws_read((uint32_t)pid, false, &s, &err), 1);
	assert_non_null(strstr(err.msg, "smaps"));
	/* then reaped: gone */
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(mw_ws_read((uint32_t)pid, false, &s, &err), 1);
	assert_non_null(strstr(err.msg, "No such"));
	mw_ws_snapshot_release(&s);
}

MW_TEST_MAIN(
	cmocka_unit_test(read_self),
	cmocka_unit_test(read_gone),
)
