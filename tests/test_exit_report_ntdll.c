/*
 * test_exit_report_ntdll.c - the parser of ntdll's exit leak report
 * (core/exit_report_ntdll.c) on constructed and hostile text: the report
 * as ntdll prints it (64-bit and 32-bit widths), CRLF logs, no leaks,
 * truncated, a second report starting inside the first, absurd and
 * wrong counts, very long lines, rows beyond the kept limit, names that
 * are not UTF-8.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/exit_report.h"
#include "tests/support/known_report.h"
#include "tests/support/test_main.h"

#define MAX_REPORTS 8

struct results {
	struct mw_exit_report r[MAX_REPORTS];
	size_t n;
};

static void results_free(struct results *res)
{
	for (size_t i = 0; i < res->n; i++)
		mw_exit_report_release(&res->r[i]);
	res->n = 0;
}

/* Feed text line by line (lines end at '\n', kept in the line as a
 * debugger log has them), then the end of the stream when `end`. */
static void feed(struct mw_ntdll_leak_parser *p, const char *text, bool end,
		 struct results *res)
{
	const char *s = text;

	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) + 1 : strlen(s);

		assert_true(res->n < MAX_REPORTS);
		if (mw_ntdll_parser_line(p, s, n, &res->r[res->n]) == 1)
			res->n++;
		s += n;
	}
	if (end) {
		assert_true(res->n < MAX_REPORTS);
		if (mw_ntdll_parser_end(p, &res->r[res->n]) == 1)
			res->n++;
	}
}

static void parse_all(const char *text, bool end, struct results *res)
{
	struct mw_ntdll_leak_parser p;

	mw_ntdll_parser_init(&p);
	feed(&p, text, end, res);
	mw_ntdll_parser_release(&p);
}

/* The report as ntdll's format strings print it on x64, with the known
 * report's blocks (tests/support/known_report.c). */
static const char REPORT64[] =
	"ModLoad: 00007ff8`12340000 00007ff8`12350000   C:\\app\\x.dll\n"
	"HEAP[app.exe]: Inspecting leaks at process shutdown ...\n"
	"Below is a list of potentially leaked heap entries \n"
	"use !heap -i Entry -h Heap for more information\n"
	"\n"
	"Entry     Heap              Size       \n"
	"---------------------------------------\n"
	"000001F2A3B40010  1f2a3b00000       100\n"
	"000001F2A3B40200  1f2a3b00000       4096\n"
	"000001F2A3C00050  1f2a3c00000       200\n"
	"HEAP[app.exe]: 3 leaks detected.\n";

static void parses_a_report(void **state)
{
	struct results res = { 0 };

	(void)state;
	parse_all(REPORT64, true, &res);
	assert_int_equal(res.n, 1);
	mw_test_assert_known_report(&res.r[0], "app.exe");
	assert_int_equal(res.r[0].pid, 0);
	results_free(&res);
}

/* A 32-bit process: 8-digit entries, the heap padded to 16 columns;
 * a WinDbg log saved on Windows (CRLF). */
static void parses_32_bit_crlf(void **state)
{
	struct results res = { 0 };

	(void)state;
	parse_all("HEAP[old32.exe]: Inspecting leaks at process shutdown ...\r\n"
		  "Below is a list of potentially leaked heap entries \r\n"
		  "use !heap -i Entry -h Heap for more information\r\n\r\n"
		  "Entry     Heap              Size       \r\n"
		  "---------------------------------------\r\n"
		  "00A81F40  a80000            24\r\n"
		  "00A82000  a80000            8\r\n"
		  "HEAP[old32.exe]: 2 leaks detected.\r\n",
		  true, &res);
	assert_int_equal(res.n, 1);
	assert_string_equal(res.r[0].process, "old32.exe");
	mw_test_assert_exit_totals(&res.r[0], true, 2, 32);
	assert_int_equal(res.r[0].blocks[0].entry, 0x00A81F40);
	assert_int_equal(res.r[0].blocks[0].heap, 0xa80000);
	results_free(&res);
}

static void no_leaks(void **state)
{
	struct results res = { 0 };

	(void)state;
	parse_all("HEAP[app.exe]: Inspecting leaks at process shutdown ...\n"
		  "HEAP[app.exe]: No leaks detected.\n",
		  true, &res);
	assert_int_equal(res.n, 1);
	mw_test_assert_exit_totals(&res.r[0], true, 0, 0);
	assert_int_equal(res.r[0].nblocks, 0);
	assert_null(res.r[0].blocks);
	results_free(&res);
}

/* Before the loader is up ntdll prints "HEAP: " with no name. */
static void unnamed(void **state)
{
	struct results res = { 0 };

	(void)state;
	parse_all("HEAP: Inspecting leaks at process shutdown ...\n"
		  "0000000000A00010  a00000  16\n"
		  "HEAP: 1 leaks detected.\n",
		  false, &res);
	assert_int_equal(res.n, 1);
	assert_null(res.r[0].process);
	assert_int_equal(res.r[0].leaks, 1);
	assert_int_equal(res.r[0].bytes, 16);
	results_free(&res);
}

/* The stream ends inside the report: what was read, marked incomplete. */
static void truncated(void **state)
{
	struct results res = { 0 };

	(void)state;
	parse_all("HEAP[app.exe]: Inspecting leaks at process shutdown ...\n"
		  "Entry     Heap              Size       \n"
		  "000001F2A3B40010  1f2a3b00000       100\n"
		  "000001F2A3B40200  1f2a3b00000       40",
		  false, &res);
	assert_int_equal(res.n, 0);	/* not closed, not ended: nothing yet */
	parse_all("HEAP[app.exe]: Inspecting leaks at process shutdown ...\n"
		  "Entry     Heap              Size       \n"
		  "000001F2A3B40010  1f2a3b00000       100\n"
		  "000001F2A3B40200  1f2a3b00000       40",
		  true, &res);
	assert_int_equal(res.n, 1);
	mw_test_assert_exit_totals(&res.r[0], false, 2, 140);
	assert_int_equal(res.r[0].nblocks, 2);
	results_free(&res);
	/* cut in the middle of a row: that row is not a row */
	parse_all("HEAP[app.exe]: Inspecting leaks at process shutdown ...\n"
		  "000001F2A3B40010  1f2a3b00000       100\n"
		  "000001F2A3B40200  1f2a3b", true, &res);
	assert_int_equal(res.n, 1);
	assert_int_equal(res.r[0].leaks, 1);
	assert_int_equal(res.r[0].bytes, 100);
	results_free(&res);
	/* ended outside a report: nothing */
	parse_all("HEAP[app.exe]: No leaks detected.\nhello\n", true, &res);
	assert_int_equal(res.n, 0);
}

/* A second report starts inside the first: the first comes out
 * incomplete with what it had, the second is read whole. */
static void second_report_inside_first(void **state)
{
	struct results res = { 0 };

	(void)state;
	parse_all("HEAP[a.exe]: Inspecting leaks at process shutdown ...\n"
		  "0000000000A00010  a00000  16\n"
		  "HEAP[b.exe]: Inspecting leaks at process shutdown ...\n"
		  "0000000000B00010  b00000  32\n"
		  "0000000000B00080  b00000  64\n"
		  "HEAP[b.exe]: 2 leaks detected.\n",
		  true, &res);
	assert_int_equal(res.n, 2);
	assert_string_equal(res.r[0].process, "a.exe");
	mw_test_assert_exit_totals(&res.r[0], false, 1, 16);
	assert_string_equal(res.r[1].process, "b.exe");
	mw_test_assert_exit_totals(&res.r[1], true, 2, 96);
	results_free(&res);
}

/* Another process's closing line inside a report (a log of several
 * processes) does not close it. */
static void other_process_does_not_close(void **state)
{
	struct results res = { 0 };

	(void)state;
	parse_all("HEAP[a.exe]: Inspecting leaks at process shutdown ...\n"
		  "HEAP[b.exe]: 7 leaks detected.\n"
		  "0000000000A00010  a00000  16\n"
		  "HEAP[a.exe]: 1 leaks detected.\n",
		  true, &res);
	assert_int_equal(res.n, 1);
	assert_string_equal(res.r[0].process, "a.exe");
	assert_int_equal(res.r[0].leaks, 1);
	assert_true(res.r[0].complete);
	results_free(&res);
}

/* Counts that no %ld holds, negative or not numbers: the report closes
 * incomplete with the rows' count; a count different from the rows (a
 * leak callback takes the listing) is ntdll's word and kept. */
static void absurd_counts(void **state)
{
	static const char *const bad[] = {
		"HEAP[app.exe]: 99999999999999999999999999 leaks detected.\n",
		"HEAP[app.exe]: 18446744073709551616 leaks detected.\n",
		"HEAP[app.exe]: 4294967296 leaks detected.\n",
		"HEAP[app.exe]: -3 leaks detected.\n",
		"HEAP[app.exe]: three leaks detected.\n",
		"HEAP[app.exe]:  leaks detected.\n",
		"HEAP[app.exe]: 3  leaks detected.\n",
	};
	struct results res = { 0 };
	char text[512];

	(void)state;
	for (size_t i = 0; i < MW_ARRAY_SIZE(bad); i++) {
		snprintf(text, sizeof(text),
			 "HEAP[app.exe]: Inspecting leaks at process shutdown ...\n"
			 "0000000000A00010  a00000  16\n%s", bad[i]);
		parse_all(text, false, &res);
		assert_int_equal(res.n, 1);
		mw_test_assert_exit_totals(&res.r[0], false, 1, 16);
		results_free(&res);
	}
	parse_all("HEAP[app.exe]: Inspecting leaks at process shutdown ...\n"
		  "HEAP[app.exe]: 2147483647 leaks detected.\n", false, &res);
	assert_int_equal(res.n, 1);
	mw_test_assert_exit_totals(&res.r[0], true, 2147483647, 0);
	results_free(&res);
}

/* Rows that are not rows are ignored: extra columns, a size no address
 * space holds, more than 16 hex digits, a WinDbg address with a tick. */
static void hostile_rows(void **state)
{
	struct results res = { 0 };

	(void)state;
	parse_all("HEAP[app.exe]: Inspecting leaks at process shutdown ...\n"
		  "0000000000A00010  a00000  16  7\n"
		  "0000000000A00010  a00000  99999999999999999999\n"
		  "0000000000A00010  a00000  9223372036854775808\n"
		  "00000000000A000100  a00000  16\n"
		  "00000000`00A00010  a00000  16\n"
		  "0000000000A00010  a00000  -16\n"
		  "0000000000A00010  a00000\n"
		  "0x0000000000A00010  0xa00000  1\n"
		  "FFFFFFFFFFFFFFFF  ffffffffffffffff  9223372036854775807\n"
		  "FFFFFFFFFFFFFFF0  ffffffffffffffff  9223372036854775807\n"
		  "FFFFFFFFFFFFFFE0  ffffffffffffffff  9223372036854775807\n"
		  "HEAP[app.exe]: 4 leaks detected.\n",
		  false, &res);
	assert_int_equal(res.n, 1);
	assert_int_equal(res.r[0].nblocks, 4);
	assert_true(res.r[0].blocks[0].entry == 0xA00010);
	assert_true(res.r[0].blocks[1].entry == UINT64_MAX);
	/* the sum saturates rather than wrapping */
	assert_true(res.r[0].bytes == UINT64_MAX);
	results_free(&res);
}

/* Very long lines: a huge name is no name, a huge row no row, and a
 * megabyte of junk costs nothing. */
static void very_long_lines(void **state)
{
	struct results res = { 0 };
	size_t big = 1 << 20;
	char *text = malloc(big + 256);

	(void)state;
	assert_non_null(text);
	strcpy(text, "HEAP[");
	memset(text + 5, 'n', big);
	strcpy(text + 5 + big, "]: Inspecting leaks at process shutdown ...\n");
	parse_all(text, true, &res);
	assert_int_equal(res.n, 0);

	memset(text, '0', big);
	strcpy(text + big, "  a00000  16\n");
	{
		struct mw_ntdll_leak_parser p;

		mw_ntdll_parser_init(&p);
		feed(&p, "HEAP[app.exe]: Inspecting leaks at process shutdown ...\n", false, &res);
		feed(&p, text, false, &res);
		feed(&p, "HEAP[app.exe]: 1 leaks detected.\n", false, &res);
		mw_ntdll_parser_release(&p);
	}
	assert_int_equal(res.n, 1);
	assert_int_equal(res.r[0].nblocks, 0);
	assert_int_equal(res.r[0].leaks, 1);
	assert_true(res.r[0].complete);
	results_free(&res);
	free(text);
}

/* More rows than are kept: the first MW_EXIT_MAX_BLOCKS kept, all summed. */
static void rows_beyond_the_limit(void **state)
{
	size_t rows = MW_EXIT_MAX_BLOCKS + 100;
	struct mw_ntdll_leak_parser p;
	struct mw_exit_report r;
	char line[96];

	(void)state;
	mw_ntdll_parser_init(&p);
	snprintf(line, sizeof(line), "HEAP[big.exe]: Inspecting leaks at process shutdown ...\n");
	assert_int_equal(mw_ntdll_parser_line(&p, line, strlen(line), &r), 0);
	for (size_t i = 0; i < rows; i++) {
		snprintf(line, sizeof(line), "%016zX  %-16zx  %zu", 0x10000 + i * 16, (size_t)0x10000,
			 i + 1);
		assert_int_equal(mw_ntdll_parser_line(&p, line, strlen(line), &r), 0);
	}
	snprintf(line, sizeof(line), "HEAP[big.exe]: %zu leaks detected.\n", rows);
	assert_int_equal(mw_ntdll_parser_line(&p, line, strlen(line), &r), 1);
	mw_ntdll_parser_release(&p);
	assert_true(r.complete);
	assert_int_equal(r.leaks, rows);
	assert_int_equal(r.nblocks, MW_EXIT_MAX_BLOCKS);
	assert_int_equal(r.bytes, rows * (rows + 1) / 2);
	assert_int_equal(r.blocks[MW_EXIT_MAX_BLOCKS - 1].size, MW_EXIT_MAX_BLOCKS);
	mw_exit_report_release(&r);
}

/* A name that is not UTF-8 (the ANSI code page) comes out valid; control
 * bytes are replaced; an empty name is no report line. */
static void names_made_valid(void **state)
{
	struct results res = { 0 };

	(void)state;
	parse_all("HEAP[caf\xe9\x01.exe]: Inspecting leaks at process shutdown ...\n"
		  "HEAP[caf\xe9\x01.exe]: No leaks detected.\n",
		  false, &res);
	assert_int_equal(res.n, 1);
	assert_string_equal(res.r[0].process, "caf??.exe");
	results_free(&res);
	parse_all("HEAP[]: Inspecting leaks at process shutdown ...\nHEAP[]: No leaks detected.\n",
		  true, &res);
	assert_int_equal(res.n, 0);
	parse_all("HEAP[app.exe Inspecting leaks at process shutdown ...\n", true, &res);
	assert_int_equal(res.n, 0);
}

/* A log with each DbgPrint call on its own line (DebugView's "force
 * carriage returns"): the prefix alone, then its message; an empty line
 * after each row; a prefix whose message never came is dropped. */
static void prefix_on_its_own_line(void **state)
{
	struct results res = { 0 };

	(void)state;
	parse_all("HEAP[app.exe]: \r\n"
		  "Inspecting leaks at process shutdown ...\r\n"
		  "Entry     Heap              Size       \r\n"
		  "0000000000A00010  a00000  16\r\n"
		  "\r\n"
		  "HEAP[app.exe]: \r\n"
		  "\r\n"
		  "1 leaks detected.\r\n"
		  "HEAP: \n"
		  "HEAP[b.exe]: \n"
		  "Inspecting leaks at process shutdown ...\n"
		  "HEAP[b.exe]: \n"
		  "No leaks detected.\n",
		  true, &res);
	assert_int_equal(res.n, 2);
	assert_string_equal(res.r[0].process, "app.exe");
	mw_test_assert_exit_totals(&res.r[0], true, 1, 16);
	assert_string_equal(res.r[1].process, "b.exe");
	assert_true(res.r[1].complete);
	assert_int_equal(res.r[1].leaks, 0);
	results_free(&res);
	/* a prefix left waiting at the end is freed (ASan checks) */
	parse_all("HEAP[app.exe]: Inspecting leaks at process shutdown ...\nHEAP[app.exe]:\n",
		  true, &res);
	assert_int_equal(res.n, 1);
	assert_false(res.r[0].complete);
	results_free(&res);
}

/* The parser can be fed again after a report, and release frees a report
 * in progress (ASan checks). */
static void reuse_and_release(void **state)
{
	struct mw_ntdll_leak_parser p;
	struct results res = { 0 };

	(void)state;
	mw_ntdll_parser_init(&p);
	feed(&p, REPORT64, false, &res);
	feed(&p, REPORT64, false, &res);
	feed(&p, "HEAP[app.exe]: Inspecting leaks at process shutdown ...\n"
		 "000001F2A3B40010  1f2a3b00000       100\n", false, &res);
	mw_ntdll_parser_release(&p);
	assert_int_equal(res.n, 2);
	assert_int_equal(res.r[1].bytes, 4396);
	assert_true(res.r[1].complete);
	results_free(&res);
}

MW_TEST_MAIN(
	cmocka_unit_test(parses_a_report),
	cmocka_unit_test(parses_32_bit_crlf),
	cmocka_unit_test(no_leaks),
	cmocka_unit_test(unnamed),
	cmocka_unit_test(truncated),
	cmocka_unit_test(second_report_inside_first),
	cmocka_unit_test(other_process_does_not_close),
	cmocka_unit_test(absurd_counts),
	cmocka_unit_test(hostile_rows),
	cmocka_unit_test(very_long_lines),
	cmocka_unit_test(rows_beyond_the_limit),
	cmocka_unit_test(names_made_valid),
	cmocka_unit_test(prefix_on_its_own_line),
	cmocka_unit_test(reuse_and_release),
)
