/*
 * fuzz_os_text.c - libFuzzer target for the pure readers of what the
 * operating system hands the collectors: on Linux the text of /proc
 * files (stat, status, statm, smaps_rollup, smaps, maps, meminfo), which
 * a process that exits mid-read leaves truncated or empty; on Windows
 * the buffers of NtQuerySystemInformation(SystemProcessInformation) and
 * RtlQueryProcessDebugInformation, whose offsets and counts the readers
 * must check; and two config values (a counter path, a listen address).
 * Each must give a value or an error that says why.
 *
 * Byte 0 picks the reader, the rest is its input.  Built by
 * scripts/fuzz.sh.
 */
#include "fuzz/fuzz_input.h"

#include "collectors/heap.h"
#include "collectors/process.h"
#include "collectors/smaps.h"
#include "collectors/system.h"
#include "collectors/vmmap.h"
#include "core/counter_path.h"
#include "core/listen_addr.h"

#define BUF_ADDR 0x7ff000000000ULL

/* -1 must come with a message */
static void said_why(int rc, const struct mw_err *err)
{
	if (rc < 0 && !err->msg[0])
		abort();
}

static void text_reader(uint8_t which, const char *s, size_t n)
{
	struct mw_err err = { "" };
	struct mw_process_info p;
	uint64_t a, b, c, d;

	memset(&p, 0, sizeof(p));
	switch (which % 8) {
	case 0:
		said_why(mw_proc_parse_stat(s, &p, &a, &err), &err);
		break;
	case 1:
		said_why(mw_proc_parse_status(s, &p, &err), &err);
		break;
	case 2:
		said_why(mw_proc_parse_statm(s, &a, &b, &c, &d, &err), &err);
		break;
	case 3:
		said_why(mw_proc_parse_smaps_rollup(s, &a, &b, &err), &err);
		break;
	case 4: {
		struct mw_smaps sm;

		memset(&sm, 0, sizeof(sm));
		said_why(mw_smaps_parse(s, n, &sm, &err), &err);
		mw_smaps_release(&sm);
		(void)mw_smaps_syscall_sp(s, &a);
		break;
	}
	case 5: {
		struct mw_vm_regions v;

		memset(&v, 0, sizeof(v));
		said_why(mw_vm_parse_maps(s, &v, &err), &err);
		mw_vm_regions_release(&v);
		break;
	}
	case 6: {
		struct mw_system_memory m;

		said_why(mw_meminfo_parse(s, &m, &err), &err);
		break;
	}
	default: {
		struct mw_perf_path pp;
		struct mw_listen_addr la;

		said_why(mw_perf_path_parse(s, &pp, &err), &err);
		err.msg[0] = '\0';
		said_why(mw_listen_addr_parse(s, &la, &err), &err);
		break;
	}
	}
}

static void buffer_reader(uint8_t which, const uint8_t *buf, size_t n)
{
	struct mw_err err = { "" };

	switch (which % 3) {
	case 0: {
		struct mw_process_table t;

		memset(&t, 0, sizeof(t));
		said_why(mw_spi_parse(buf, n, BUF_ADDR, &t, &err), &err);
		mw_process_table_release(&t);
		break;
	}
	case 1: {
		struct mw_heap_list l;

		memset(&l, 0, sizeof(l));
		said_why(mw_heap_parse_debug_info(buf, n, BUF_ADDR,
						  which & 4 ? MW_RHI_SIZE_V2 : mw_heap_info_stride(7601),
						  &l, &err), &err);
		free(l.h);
		break;
	}
	default: {
		struct mw_heap_proc_state st;

		memset(&st, 0, sizeof(st));
		said_why(mw_heap_spi_find(buf, n, 4, &st, &err), &err);
		break;
	}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;
	char *s;

	if (size < 1)
		return 0;
	/* private copies of exactly the input, so ASan sees any overread */
	copy = malloc(size);
	memcpy(copy, data + 1, size - 1);
	s = fuzz_string(data + 1, size - 1);
	if (data[0] & 0x80)
		buffer_reader(data[0], copy, size - 1);
	else if (s)
		text_reader(data[0], s, strlen(s));
	free(s);
	free(copy);
	return 0;
}
