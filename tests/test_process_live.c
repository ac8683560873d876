/* test_process_live.c - the real process table and system figures of the
 * machine the test runs on (Linux /proc; Windows or Wine
 * NtQuerySystemInformation).  Checks relationships, not exact values. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#ifdef _WIN32
#include <windows.h>
#define own_pid() ((uint32_t)GetCurrentProcessId())
#else
#include <unistd.h>
#define own_pid() ((uint32_t)getpid())
#endif

#include "collectors/process.h"
#include "collectors/system.h"
#include "tests/support/test_main.h"

static void system_figures_are_sane(void **state)
{
	struct mw_system_memory m;
	struct mw_err err = { "" };

	(void)state;
	if (mw_system_read(&m, &err))
		fail_msg("%s", err.msg);
	assert_true(m.physical_bytes > 0);
	assert_true(m.available_bytes <= m.physical_bytes);
	assert_true(m.commit_limit_bytes > 0);
}

static void own_process_is_listed_and_grows(void **state)
{
	struct mw_process_reader *r = mw_process_reader_new();
	struct mw_process_table t;
	struct mw_err err = { "" };
	uint64_t before = 0, after = 0, anon_before = 0, anon_after = 0;
	size_t i;
	int found = 0;
	char *big;

	(void)state;
	memset(&t, 0, sizeof(t));
	if (mw_process_table_read(r, &t, &err))
		fail_msg("%s", err.msg);
	assert_true(t.nprocs >= 1);
	for (i = 0; i < t.nprocs; i++) {
		if (t.procs[i].pid != own_pid())
			continue;
		found = 1;
		before = t.procs[i].private_bytes + t.procs[i].working_set_bytes;
		assert_true(t.procs[i].working_set_bytes > 0);
		assert_true(t.procs[i].working_set_peak_bytes >= t.procs[i].working_set_bytes);
		assert_true(t.procs[i].virtual_bytes >= t.procs[i].working_set_bytes);
		assert_true(t.procs[i].threads >= 1);
		assert_true(t.procs[i].start_ms > 1000000000000LL);
		assert_non_null(strstr(t.procs[i].name, "process_li"));
		/* the full image name, not the 15-char comm */
#ifdef _WIN32
		assert_string_equal(t.procs[i].name, "test_process_live.exe");
		/* Wine leaves WorkingSetPrivateSize 0: then it is absent */
		if (t.procs[i].has_private_ws)
			assert_true(t.procs[i].private_ws_bytes <= t.procs[i].working_set_bytes);
		assert_false(t.procs[i].has_kinds);
#else
		assert_string_equal(t.procs[i].name, "test_process_live");
		assert_true(t.procs[i].has_kinds);
		assert_true(t.procs[i].has_swap);
		assert_true(t.procs[i].has_private_ws);
		assert_true(t.procs[i].rss_anon_bytes + t.procs[i].rss_file_bytes +
			    t.procs[i].rss_shmem_bytes <= t.procs[i].working_set_bytes + 4096);
		anon_before = t.procs[i].rss_anon_bytes;
		/* PSS/USS of ourselves, read on demand: at most the resident
		 * set, taken again after the read (this process grows between
		 * the two reads: the table's buffers, ASan's quarantine) */
		{
			uint64_t pss = 0, uss = 0, ws = t.procs[i].working_set_bytes;
			struct mw_process_table t2;
			size_t k;

			assert_int_equal(mw_process_pss_read(r, own_pid(), &pss, &uss), 0);
			memset(&t2, 0, sizeof(t2));
			if (mw_process_table_read(r, &t2, &err))
				fail_msg("%s", err.msg);
			for (k = 0; k < t2.nprocs; k++)
				if (t2.procs[k].pid == own_pid() && t2.procs[k].working_set_bytes > ws)
					ws = t2.procs[k].working_set_bytes;
			mw_process_table_release(&t2);
			assert_true(uss > 0 && uss <= pss && pss <= ws + (1u << 20));
			assert_int_equal(mw_process_pss_read(r, 0x7ffffff0u, &pss, &uss), 1);
		}
#endif
	}
	assert_true(found);
	/* Touch 64 MB: the working set (and private bytes) must grow. */
	big = malloc(64 << 20);
	assert_non_null(big);
	memset(big, 1, 64 << 20);
	if (mw_process_table_read(r, &t, &err))
		fail_msg("%s", err.msg);
	for (i = 0; i < t.nprocs; i++)
		if (t.procs[i].pid == own_pid()) {
			after = t.procs[i].private_bytes + t.procs[i].working_set_bytes;
			anon_after = t.procs[i].rss_anon_bytes;
		}
	assert_true(after >= before + (32u << 20));
#ifndef _WIN32
	assert_true(anon_after >= anon_before + (60u << 20));
#else
	(void)anon_before;
	(void)anon_after;
#endif
	free(big);
	mw_process_table_release(&t);
	mw_process_reader_free(r);
}

MW_TEST_MAIN(
	cmocka_unit_test(system_figures_are_sane),
	cmocka_unit_test(own_process_is_listed_and_grows),
)
