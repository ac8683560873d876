/* test_process_parse.c - the pure parsers behind the system and process
 * collectors, on constructed /proc text and SYSTEM_PROCESS_INFORMATION
 * buffers built to the documented x64 layout. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/process.h"
#include "collectors/procfs_field.h"
#include "base/utf16.h"
#include "collectors/system.h"
#include "tests/support/test_main.h"

static void meminfo(void **state)
{
	struct mw_system_memory m;
	struct mw_err err;
	const char *text =
		"MemTotal:       24683312 kB\n"
		"MemFree:        20000000 kB\n"
		"MemAvailable:   23000000 kB\n"
		"CommitLimit:    12341656 kB\n"
		"Committed_AS:    3000000 kB\n";

	(void)state;
	assert_int_equal(mw_meminfo_parse(text, &m, &err), 0);
	assert_true(m.physical_bytes == 24683312ULL * 1024);
	assert_true(m.available_bytes == 23000000ULL * 1024);
	assert_true(m.commit_limit_bytes == 12341656ULL * 1024);
	assert_true(m.commit_bytes == 3000000ULL * 1024);
	assert_int_equal(mw_meminfo_parse("MemTotal: 1 kB\n", &m, &err), -1);
	assert_non_null(strstr(err.msg, "MemAvailable"));
	assert_int_equal(mw_meminfo_parse("", &m, &err), -1);
}

static void proc_stat_with_awkward_comm(void **state)
{
	struct mw_process_info p;
	struct mw_err err;
	uint64_t start = 0;
	/* comm with spaces and a ')' inside: must end at the last ')' */
	const char *stat = "4242 (my (odd) prog) S 1 4242 4242 0 -1 4194304 "
			   "1000 0 20 0 5 6 0 0 20 0 7 0 123456 987654321 2500 "
			   "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";

	(void)state;
	memset(&p, 0, sizeof(p));
	assert_int_equal(mw_proc_parse_stat(stat, &p, &start, &err), 0);
	assert_int_equal(p.pid, 4242);
	assert_string_equal(p.name, "my (odd) prog");
	assert_int_equal(p.ppid, 1);
	assert_int_equal(p.page_faults, 1000 + 20);
	assert_int_equal(p.threads, 7);
	assert_int_equal(start, 123456);
	assert_int_equal(p.virtual_bytes, 987654321);
}

static void proc_statm_and_its_split(void **state)
{
	struct mw_process_info p;
	struct mw_err err;
	uint64_t size = 0, res = 0, shared = 0, data = 0;

	(void)state;
	assert_int_equal(mw_proc_parse_statm("1000 50 20 10 0 300 0\n", &size, &res, &shared,
					     &data, &err), 0);
	assert_true(size == 1000 && res == 50 && shared == 20 && data == 300);
	/* a line that stops before data: the data figure is unknown (0) */
	assert_int_equal(mw_proc_parse_statm("1000 50 20\n", &size, &res, &shared, &data, &err), 0);
	assert_true(res == 50 && data == 0);
	assert_int_equal(mw_proc_parse_statm("1000 50\n", &size, &res, &shared, &data, &err), -1);
	assert_non_null(strstr(err.msg, "statm"));
	assert_int_equal(mw_proc_parse_statm("", &size, &res, &shared, &data, &err), -1);
	/* the last status read: hwm 300, anon 120, file 60, shmem 20, swap 4 */
	memset(&p, 0, sizeof(p));
	assert_int_equal(mw_proc_parse_status("Name:\tx\nVmHWM:\t 300 kB\nVmRSS:\t 200 kB\n"
					      "RssAnon:\t 120 kB\nRssFile:\t 60 kB\n"
					      "RssShmem:\t 20 kB\nVmSwap:\t 4 kB\n", &p, &err), 0);
	/* statm now: resident 400 kB, shared 100 kB */
	mw_proc_apply_statm(&p, 400 * 1024, 100 * 1024, 600 * 1024);
	assert_true(p.has_data && p.data_bytes == 600 * 1024);
	assert_true(p.working_set_bytes == 400 * 1024);
	assert_true(p.working_set_peak_bytes == 400 * 1024);	/* above VmHWM */
	assert_true(p.rss_anon_bytes == 300 * 1024 && p.private_ws_bytes == 300 * 1024);
	assert_true(p.rss_shmem_bytes == 20 * 1024 && p.rss_file_bytes == 80 * 1024);
	assert_true(p.private_bytes == 304 * 1024);
	/* shared below the last shmem figure: shmem is cut to it */
	mw_proc_apply_statm(&p, 100 * 1024, 10 * 1024, 0);
	assert_true(p.working_set_peak_bytes == 400 * 1024);
	assert_true(p.rss_shmem_bytes == 10 * 1024 && p.rss_file_bytes == 0);
	assert_true(p.rss_anon_bytes == 90 * 1024);
	/* shared above resident (never from the kernel): no underflow */
	mw_proc_apply_statm(&p, 10 * 1024, 20 * 1024, 0);
	assert_true(p.rss_anon_bytes == 0 && p.rss_file_bytes + p.rss_shmem_bytes == 10 * 1024);
	/* an old kernel's status (no kinds): only the totals move */
	memset(&p, 0, sizeof(p));
	assert_int_equal(mw_proc_parse_status("Name:\told\nVmHWM:\t 8 kB\nVmRSS:\t 8 kB\n", &p,
					      &err), 0);
	mw_proc_apply_statm(&p, 16 * 1024, 4 * 1024, 0);
	assert_true(p.working_set_bytes == 16 * 1024 && !p.has_kinds && !p.has_private_ws);
	assert_true(p.private_bytes == 12 * 1024);
}

static void proc_stat_rejects_garbage(void **state)
{
	struct mw_process_info p;
	struct mw_err err;
	uint64_t start;
	static const char *const bad[] = {
		"", "12 no parens S 1", "12 (x", "12 (x)", "12 (x) S 1 2 3",
		"12 (x) S 1 2 zz 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		assert_int_equal(mw_proc_parse_stat(bad[i], &p, &start, &err), -1);
		assert_true(strlen(err.msg) > 0);
	}
}

static void proc_status(void **state)
{
	struct mw_process_info p;
	struct mw_err err;
	const char *status = "Name:\tx\nVmHWM:\t  2000 kB\nVmRSS:\t  1500 kB\n"
			     "RssAnon:\t  1000 kB\nRssFile:\t 500 kB\nVmSwap:\t  24 kB\n";

	(void)state;
	memset(&p, 0, sizeof(p));
	assert_int_equal(mw_proc_parse_status(status, &p, &err), 0);
	assert_int_equal(p.working_set_bytes, 1500 * 1024);
	assert_int_equal(p.working_set_peak_bytes, 2000 * 1024);
	assert_int_equal(p.private_bytes, (1000 + 24) * 1024);
	/* Kernel threads have no Vm lines: zeros, not an error. */
	assert_int_equal(mw_proc_parse_status("Name:\tkthreadd\nState:\tS\n", &p, &err), 0);
	assert_int_equal(p.working_set_bytes, 0);
	assert_int_equal(mw_proc_parse_status("garbage", &p, &err), -1);
}

static void proc_status_kinds_and_swap(void **state)
{
	struct mw_process_info p;
	struct mw_err err;
	/* the kernel's layout (tabs, padding), a shared-memory heavy process */
	const char *status =
		"Name:\tverylongprocess\nUmask:\t0022\nState:\tS (sleeping)\n"
		"VmPeak:\t  300000 kB\nVmSize:\t  290000 kB\nVmLck:\t       0 kB\n"
		"VmHWM:\t   90000 kB\nVmRSS:\t   80000 kB\nRssAnon:\t   10000 kB\n"
		"RssFile:\t    4000 kB\nRssShmem:\t   66000 kB\nVmData:\t   12000 kB\n"
		"VmStk:\t     132 kB\nVmSwap:\t     512 kB\nThreads:\t3\n";
	const char *old_kernel = "Name:\tx\nVmHWM:\t 8 kB\nVmRSS:\t 8 kB\n";

	(void)state;
	memset(&p, 0, sizeof(p));
	assert_int_equal(mw_proc_parse_status(status, &p, &err), 0);
	assert_true(p.has_kinds);
	assert_true(p.rss_anon_bytes == 10000ULL * 1024);
	assert_true(p.rss_file_bytes == 4000ULL * 1024);
	assert_true(p.rss_shmem_bytes == 66000ULL * 1024);
	assert_true(p.rss_anon_bytes + p.rss_file_bytes + p.rss_shmem_bytes == p.working_set_bytes);
	assert_true(p.has_swap);
	assert_true(p.swap_bytes == 512ULL * 1024);
	assert_true(p.has_private_ws);
	assert_true(p.private_ws_bytes == 10000ULL * 1024);
	/* statm's data figure: VmData + VmStk */
	assert_true(p.has_data && p.data_bytes == (12000ULL + 132) * 1024);
	/* a zero line is a zero, a missing line is absent */
	assert_int_equal(mw_proc_parse_status("Name:\tz\nVmRSS:\t 0 kB\nRssAnon:\t 0 kB\n"
					      "RssFile:\t 0 kB\nRssShmem:\t 0 kB\nVmSwap:\t 0 kB\n",
					      &p, &err), 0);
	assert_true(p.has_kinds && p.has_swap && p.has_private_ws);
	assert_int_equal(p.swap_bytes, 0);
	assert_int_equal(mw_proc_parse_status(old_kernel, &p, &err), 0);
	assert_false(p.has_kinds);
	assert_false(p.has_swap);
	assert_false(p.has_private_ws);
	assert_int_equal(p.working_set_bytes, 8 * 1024);
	/* kernel thread: nothing by kind */
	assert_int_equal(mw_proc_parse_status("Name:\tkworker/0:1\nState:\tI\n", &p, &err), 0);
	assert_false(p.has_kinds);
	assert_false(p.has_swap);
}

static void smaps_rollup(void **state)
{
	uint64_t pss = 0, uss = 0;
	struct mw_err err;
	const char *text =
		"55d0c0a3e000-7ffd5b3f2000 ---p 00000000 00:00 0                          [rollup]\n"
		"Rss:                3952 kB\nPss:                1234 kB\nPss_Dirty:           800 kB\n"
		"Pss_Anon:            700 kB\nPss_File:            434 kB\nPss_Shmem:           100 kB\n"
		"Shared_Clean:       2400 kB\nShared_Dirty:          0 kB\nPrivate_Clean:       352 kB\n"
		"Private_Dirty:      1200 kB\nReferenced:         3952 kB\nAnonymous:          1200 kB\n"
		"Swap:                  0 kB\nSwapPss:               0 kB\nLocked:                0 kB\n";

	(void)state;
	assert_int_equal(mw_proc_parse_smaps_rollup(text, &pss, &uss, &err), 0);
	assert_true(pss == 1234ULL * 1024);
	assert_true(uss == (352ULL + 1200) * 1024);
	/* Pss_Dirty etc. must not be taken for Pss */
	assert_int_equal(mw_proc_parse_smaps_rollup("Pss_Dirty: 5 kB\nRss: 9 kB\n", &pss, &uss,
						    &err), -1);
	assert_non_null(strstr(err.msg, "Pss"));
	assert_int_equal(mw_proc_parse_smaps_rollup("", &pss, &uss, &err), -1);
}

static void names_from_exe_and_cmdline(void **state)
{
	char out[MW_PROCESS_NAME_MAX], tiny[8];
	static const char cl[] = "/opt/app/verylongprocessname-leaky\0--flag\0";
	static const char spaced[] = "/tmp/my prog dir/my leaky prog\0arg\0";
	static const char sshd[] = "sshd: alice@pts/0\0\0\0";
	static const char memfd_cl[] = "line_io_tools/binary_backend\0--uid\0" "0\0";
	static const char runc_cl[] = "runc\0init\0";

	(void)state;
	assert_true(mw_proc_exe_name("/usr/bin/verylongprocessname-leaky", out, sizeof(out)));
	assert_string_equal(out, "verylongprocessname-leaky");
	assert_true(mw_proc_exe_name("/tmp/my prog (deleted)", out, sizeof(out)));
	assert_string_equal(out, "my prog");
	assert_true(mw_proc_exe_name("/x/a (deleted) b", out, sizeof(out)));
	assert_string_equal(out, "a (deleted) b");
	assert_false(mw_proc_exe_name("", out, sizeof(out)));
	assert_false(mw_proc_exe_name("/usr/bin/", out, sizeof(out)));
	assert_false(mw_proc_exe_name("socket:[123]", out, sizeof(out)));
	assert_true(mw_proc_exe_name("/a/b/0123456789abcdef", tiny, sizeof(tiny)));
	assert_string_equal(tiny, "0123456");
	/* argv[0] agrees with comm (its first 15 bytes): the full name */
	assert_true(mw_proc_cmdline_name(cl, sizeof(cl) - 1, "verylongprocess", out, sizeof(out)));
	assert_string_equal(out, "verylongprocessname-leaky");
	assert_true(mw_proc_cmdline_name(spaced, sizeof(spaced) - 1, "my leaky prog", out,
					 sizeof(out)));
	assert_string_equal(out, "my leaky prog");
	/* rewritten argv (setproctitle), empty cmdline (zombie): comm */
	assert_false(mw_proc_cmdline_name(sshd, sizeof(sshd) - 1, "sshd", out, sizeof(out)));
	assert_string_equal(out, "sshd");
	assert_false(mw_proc_cmdline_name("", 0, "kworker/0:1", out, sizeof(out)));
	assert_string_equal(out, "kworker/0:1");
	/* not NUL-terminated within len: stops at len */
	assert_true(mw_proc_cmdline_name("/bin/catalog", 8, "cat", out, sizeof(out)));
	assert_string_equal(out, "cat");
	assert_false(mw_proc_cmdline_name("/bin/other", 10, "cat", out, sizeof(out)));
	assert_string_equal(out, "cat");
	/* run from a memfd (seen on a CI host; runc clones itself into one):
	 * the exe's label and comm say "memfd:...", argv[0] the program */
	assert_false(mw_proc_exe_name("/memfd:sealed-91173221a7ea (deleted)", out, sizeof(out)));
	assert_false(mw_proc_exe_name("/memfd:runc_cloned:/proc/self/exe (deleted)", out,
				      sizeof(out)));
	assert_true(mw_proc_cmdline_name(memfd_cl, sizeof(memfd_cl) - 1, "memfd:sealed-91", out,
					 sizeof(out)));
	assert_string_equal(out, "binary_backend");
	assert_true(mw_proc_cmdline_name(runc_cl, sizeof(runc_cl) - 1, "memfd:runc_clon", out,
					 sizeof(out)));
	assert_string_equal(out, "runc");
	assert_false(mw_proc_cmdline_name("", 0, "memfd:runc_clon", out, sizeof(out)));
	assert_string_equal(out, "memfd:runc_clon");
}

/* --- SYSTEM_PROCESS_INFORMATION ------------------------------------------ */

#define BASE 0x10000000ULL

static void wr32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static void wr64(unsigned char *p, uint64_t v)
{
	wr32(p, (uint32_t)v);
	wr32(p + 4, (uint32_t)(v >> 32));
}

/* Write one entry at off with its name stored right after it (plus room
 * for a thread record); returns the entry's total size. */
static size_t put_entry(unsigned char *buf, size_t off, uint32_t pid, uint32_t threads,
			const char *name, uint64_t ws)
{
	unsigned char *e = buf + off;
	size_t nlen = strlen(name), i, size;

	memset(e, 0, MW_SPI_SIZE + 64 + 2 * nlen + 2);
	wr32(e + MW_SPI_THREADS, threads);
	wr64(e + MW_SPI_CREATE_TIME, 116444736000000000ULL + 17000000000000000ULL);
	wr64(e + MW_SPI_PID, pid);
	wr64(e + MW_SPI_PPID, 4);
	wr32(e + MW_SPI_HANDLES, 77);
	wr64(e + MW_SPI_VIRTUAL, 1ULL << 40);
	wr32(e + MW_SPI_PAGE_FAULTS, 555);
	wr64(e + MW_SPI_PEAK_WS, ws * 2);
	wr64(e + MW_SPI_WS, ws);
	wr64(e + MW_SPI_PAGEFILE, ws / 2);
	wr64(e + MW_SPI_PRIVATE_WS, ws / 4);
	if (nlen) {
		size_t name_off = off + MW_SPI_SIZE + 64;
		e[MW_SPI_NAME_LEN] = (unsigned char)(2 * nlen);
		e[MW_SPI_NAME_LEN + 2] = (unsigned char)(2 * nlen + 2);
		wr64(e + MW_SPI_NAME_BUF, BASE + name_off);
		for (i = 0; i < nlen; i++) {
			buf[name_off + 2 * i] = (unsigned char)name[i];
			buf[name_off + 2 * i + 1] = 0;
		}
	}
	size = MW_SPI_SIZE + 64 + 2 * nlen + 2;
	return (size + 7) & ~(size_t)7;
}

static size_t build_table(unsigned char *buf)
{
	size_t off = 0, sizes[4];

	sizes[0] = put_entry(buf, off, 0, 2, "", 8192);
	wr32(buf + off, (uint32_t)sizes[0]);
	off += sizes[0];
	sizes[1] = put_entry(buf, off, 4, 100, "", 100000);
	wr32(buf + off, (uint32_t)sizes[1]);
	off += sizes[1];
	sizes[2] = put_entry(buf, off, 0, 0, "", 0);	/* ghost */
	wr32(buf + off, (uint32_t)sizes[2]);
	off += sizes[2];
	sizes[3] = put_entry(buf, off, 1234, 3, "leaky.exe", 5u << 20);
	wr32(buf + off, 0);
	off += sizes[3];
	return off;
}

/* FILETIME to Unix ms: exact for real times, defined for any 64 bits */
static void filetime_conversion(void **state)
{
	(void)state;
	assert_true(mw_filetime_to_unix_ms(0) == 0);
	assert_true(mw_filetime_to_unix_ms(116444736000000000ULL) == 0);
	/* 2023-11-14 22:13:20 UTC */
	assert_true(mw_filetime_to_unix_ms(116444736000000000ULL + 17000000000000000ULL) ==
		    1700000000000LL);
	/* undefined behaviour (signed overflow) until session 24 */
	assert_true(mw_filetime_to_unix_ms(UINT64_MAX) == 1844674407370955LL - 11644473600000LL);
	assert_true(mw_filetime_to_unix_ms(1ULL << 63) > 0);
}

static void spi_parses_a_constructed_table(void **state)
{
	unsigned char buf[4096];
	size_t len = build_table(buf);
	struct mw_process_table t;
	struct mw_err err;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(mw_spi_parse(buf, len, BASE, &t, &err), 0);
	assert_int_equal(t.nprocs, 3);	/* the ghost is dropped */
	assert_string_equal(t.procs[0].name, "Idle");
	assert_string_equal(t.procs[1].name, "System");
	assert_string_equal(t.procs[2].name, "leaky.exe");
	assert_int_equal(t.procs[2].pid, 1234);
	assert_int_equal(t.procs[2].ppid, 4);
	assert_int_equal(t.procs[2].threads, 3);
	assert_int_equal(t.procs[2].handles, 77);
	assert_true(t.procs[2].has_handles);
	assert_int_equal(t.procs[2].working_set_bytes, 5u << 20);
	assert_int_equal(t.procs[2].working_set_peak_bytes, 10u << 20);
	assert_int_equal(t.procs[2].private_bytes, 5u << 19);
	assert_true(t.procs[2].virtual_bytes == 1ULL << 40);
	assert_int_equal(t.procs[2].page_faults, 555);
	assert_int_equal(t.procs[2].start_ms, 1700000000000LL);
	/* WorkingSetPrivateSize (Task Manager's private working set) */
	assert_true(t.procs[2].has_private_ws);
	assert_int_equal(t.procs[2].private_ws_bytes, 5u << 18);
	/* the shareable rest of the working set (shared memory shows there) */
	assert_true(t.procs[2].has_shareable_ws);
	assert_int_equal(t.procs[2].shareable_ws_bytes, (5u << 20) - (5u << 18));
	/* a kernel that leaves it 0 beside a working set (Wine): absent */
	{
		size_t off = len - ((MW_SPI_SIZE + 64 + 2 * 9 + 2 + 7) & ~(size_t)7);

		wr64(buf + off + MW_SPI_PRIVATE_WS, 0);
		assert_int_equal(mw_spi_parse(buf, len, BASE, &t, &err), 0);
		assert_false(t.procs[2].has_private_ws);
		assert_false(t.procs[2].has_shareable_ws);
		/* no figures by kind, swap or PSS on Windows */
		assert_false(t.procs[2].has_kinds);
		assert_false(t.procs[2].has_swap);
		assert_false(t.procs[2].has_pss);
	}
	mw_process_table_release(&t);
}

static void spi_rejects_lies(void **state)
{
	unsigned char buf[4096], bad[4096];
	size_t len = build_table(buf), last;
	struct mw_process_table t;
	struct mw_err err;

	(void)state;
	memset(&t, 0, sizeof(t));
	/* truncated anywhere inside the last entry */
	last = len - 100;
	assert_int_equal(mw_spi_parse(buf, last, BASE, &t, &err), -1);
	assert_non_null(strstr(err.msg, "runs past"));
	/* empty buffer */
	assert_int_equal(mw_spi_parse(buf, 0, BASE, &t, &err), -1);
	/* next offset smaller than an entry (would loop or overlap) */
	memcpy(bad, buf, len);
	wr32(bad, 8);
	assert_int_equal(mw_spi_parse(bad, len, BASE, &t, &err), -1);
	assert_non_null(strstr(err.msg, "next offset"));
	/* next offset past the end */
	memcpy(bad, buf, len);
	wr32(bad, 0x7fffffff);
	assert_int_equal(mw_spi_parse(bad, len, BASE, &t, &err), -1);
	/* name pointer outside the buffer, or below it */
	{
		size_t off = len - ((MW_SPI_SIZE + 64 + 2 * 9 + 2 + 7) & ~(size_t)7);
		memcpy(bad, buf, len);
		wr64(bad + off + MW_SPI_NAME_BUF, BASE + len);
		assert_int_equal(mw_spi_parse(bad, len, BASE, &t, &err), -1);
		assert_non_null(strstr(err.msg, "outside"));
		wr64(bad + off + MW_SPI_NAME_BUF, BASE - 2);
		assert_int_equal(mw_spi_parse(bad, len, BASE, &t, &err), -1);
		wr64(bad + off + MW_SPI_NAME_BUF, 0xffffffffffffffffULL);
		assert_int_equal(mw_spi_parse(bad, len, BASE, &t, &err), -1);
	}
	mw_process_table_release(&t);
}

static void utf16_conversion(void **state)
{
	/* "aé€😀" + lone high surrogate + "z" */
	const unsigned char in[] = { 'a', 0, 0xE9, 0, 0xAC, 0x20, 0x3D, 0xD8, 0x00, 0xDE,
				     0x3D, 0xD8, 'z', 0 };
	char out[32], tiny[4];

	(void)state;
	mw_utf16le_decode(in, sizeof(in) / 2, out, sizeof(out));
	assert_string_equal(out, "a\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xEF\xBF\xBDz");
	/* Never splits a multi-byte character when cut short. */
	mw_utf16le_decode(in, sizeof(in) / 2, tiny, sizeof(tiny));
	assert_string_equal(tiny, "a\xC3\xA9");
}

/* One "Key: value kB" line of /proc text: the key must be the whole word
 * before the colon; kB says the unit, its absence is said too. */
static void procfs_fields(void **state)
{
	const char *text = "VmRSSx:\t9 kB\nVmRSS:\t  1234 kB\nHugePages_Total:    7\n";
	uint64_t v = 0;
	bool kb = false;

	(void)state;
	assert_int_equal(mw_procfs_field(text, "VmRSS", &v, &kb), 0);
	assert_int_equal(v, 1234);
	assert_true(kb);
	assert_int_equal(mw_procfs_field(text, "HugePages_Total", &v, &kb), 0);
	assert_int_equal(v, 7);
	assert_false(kb);
	assert_int_equal(mw_procfs_field(text, "VmSwap", &v, &kb), -1);
	assert_int_equal(v, 7);
}

MW_TEST_MAIN(
	cmocka_unit_test(meminfo),
	cmocka_unit_test(proc_stat_with_awkward_comm),
	cmocka_unit_test(proc_stat_rejects_garbage),
	cmocka_unit_test(proc_statm_and_its_split),
	cmocka_unit_test(proc_status),
	cmocka_unit_test(proc_status_kinds_and_swap),
	cmocka_unit_test(smaps_rollup),
	cmocka_unit_test(names_from_exe_and_cmdline),
	cmocka_unit_test(filetime_conversion),
	cmocka_unit_test(spi_parses_a_constructed_table),
	cmocka_unit_test(spi_rejects_lies),
	cmocka_unit_test(utf16_conversion),
	cmocka_unit_test(procfs_fields),
)
