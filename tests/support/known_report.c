/*
 * known_report.c - the known exit leak report and its check
 * (known_report.h), for test_exit_report_ntdll and test_exit_leaks_win32;
 * the totals check for every exit report parser test.
 */
#include "known_report.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

const struct mw_exit_block mw_known_blocks[MW_KNOWN_LEAKS] = {
	{ 0x000001F2A3B40010ull, 0x1f2a3b00000ull, 100 },
	{ 0x000001F2A3B40200ull, 0x1f2a3b00000ull, 4096 },
	{ 0x000001F2A3C00050ull, 0x1f2a3c00000ull, 200 },
};

void mw_test_assert_known_report(const struct mw_exit_report *r, const char *process)
{
	assert_string_equal(r->process, process);
	assert_int_equal(r->source, MW_EXIT_NTDLL);
	assert_true(r->complete);
	assert_int_equal(r->leaks, MW_KNOWN_LEAKS);
	assert_int_equal(r->bytes, MW_KNOWN_BYTES);
	assert_int_equal(r->nblocks, MW_KNOWN_LEAKS);
	for (size_t i = 0; i < MW_KNOWN_LEAKS; i++) {
		assert_true(r->blocks[i].entry == mw_known_blocks[i].entry);
		assert_true(r->blocks[i].heap == mw_known_blocks[i].heap);
		assert_true(r->blocks[i].size == mw_known_blocks[i].size);
	}
	assert_null(r->stacks);
}

void mw_test_assert_exit_totals(const struct mw_exit_report *r, bool complete, uint64_t leaks,
				uint64_t bytes)
{
	assert_int_equal(r->complete, complete);
	assert_int_equal(r->leaks, leaks);
	assert_int_equal(r->bytes, bytes);
}
