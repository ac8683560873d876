/* test_exit_report.c - the exit leak report: the detail record's encoding
 * (round trip, every truncation, hostile bytes) and the LeakSanitizer and
 * UMDH parsers on constructed and hostile reports. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/exit_report.h"
#include "base/xalloc.h"
#include "tests/support/known_report.h"
#include "tests/support/test_main.h"

/* mw_lsan_parse and mw_umdh_parse: the tests below run on either. */
typedef int (*parse_fn)(const char *text, size_t n, struct mw_exit_report *out,
			struct mw_err *err);

/* Each text is refused with a message. */
static void refuses_each(parse_fn parse, const char *const *bad, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct mw_exit_report r;
		struct mw_err err = { "" };

		if (parse(bad[i], strlen(bad[i]), &r, &err) == 0)
			fail_msg("accepted: %s", bad[i]);
		assert_true(err.msg[0] != '\0');
	}
}

/* Every prefix of text, each in a buffer of exactly its length (ASan sees
 * overreads), parses or is refused with a message; check sees each
 * report parsed and the prefix's length. */
static void each_prefix(parse_fn parse, const char *text,
			void (*check)(const struct mw_exit_report *r, size_t cut))
{
	size_t len = strlen(text), cut;

	for (cut = 0; cut <= len; cut++) {
		struct mw_exit_report r;
		struct mw_err err = { "" };
		char *copy = mw_xmalloc(cut ? cut : 1);

		memcpy(copy, text, cut);
		if (parse(copy, cut, &r, &err) == 0) {
			check(&r, cut);
			mw_exit_report_release(&r);
		} else {
			assert_true(err.msg[0] != '\0');
		}
		free(copy);
	}
}

/* text parses (fails the test with the parser's message if not). */
static void parses(parse_fn parse, const char *text, size_t n, struct mw_exit_report *r)
{
	struct mw_err err = { "" };

	if (parse(text, n, r, &err) != 0)
		fail_msg("refused: %s", err.msg);
}

/* One stack's bytes and allocation count. */
static void assert_stack(const struct mw_exit_stack *st, uint64_t bytes, uint64_t count)
{
	assert_int_equal(st->bytes, bytes);
	assert_int_equal(st->count, count);
}

static const char lsan_report[] =
	"=================================================================\n"
	"==4242==ERROR: LeakSanitizer: detected memory leaks\n"
	"\n"
	"Direct leak of 4096 byte(s) in 1 object(s) allocated from:\n"
	"    #0 0x7f1c2a8b in malloc (/lib/x86_64-linux-gnu/libasan.so.8+0xd9a57)\n"
	"    #1 0x55d1e4a1 in main /src/leaky.c:12\n"
	"\n"
	"Indirect leak of 300 byte(s) in 2 object(s) allocated from:\n"
	"    #0 0x7f1c2a8b in malloc (/lib/x86_64-linux-gnu/libasan.so.8+0xd9a57)\n"
	"    #1 0x55d1e4c0 in make_node /src/leaky.c:7\n"
	"\n"
	"SUMMARY: AddressSanitizer: 4396 byte(s) leaked in 3 allocation(s).\n";

static void lsan_parses_report(void **state)
{
	struct mw_exit_report r;

	(void)state;
	parses(mw_lsan_parse, lsan_report, strlen(lsan_report), &r);
	assert_int_equal(r.source, MW_EXIT_LSAN);
	assert_int_equal(r.pid, 4242);
	mw_test_assert_exit_totals(&r, true, 3, 4396);
	assert_int_equal(r.nstacks, 2);
	assert_stack(&r.stacks[0], 4096, 1);
	assert_false(r.stacks[0].indirect);
	assert_non_null(strstr(r.stacks[0].frames, "#1 0x55d1e4a1 in main /src/leaky.c:12\n"));
	assert_stack(&r.stacks[1], 300, 2);
	assert_true(r.stacks[1].indirect);
	assert_non_null(strstr(r.stacks[1].frames, "make_node"));
	mw_exit_report_release(&r);
}

/* Every prefix of the report parses or is refused cleanly; the prefixes
 * without the summary are incomplete with the listed leaks' totals. */
static void lsan_prefix_checked(const struct mw_exit_report *r, size_t cut)
{
	const char *summary = strstr(lsan_report, "SUMMARY");

	assert_true(r->bytes <= 4396);
	if (cut < (size_t)(summary - lsan_report) + 60)
		assert_false(r->complete);
	if (!r->complete)
		assert_int_equal(r->bytes, r->nstacks == 2 ? 4396 : 4096);
}

static void lsan_truncated(void **state)
{
	(void)state;
	each_prefix(mw_lsan_parse, lsan_report, lsan_prefix_checked);
}

static void lsan_hostile(void **state)
{
	static const char *const bad[] = {
		/* the leaks add up to more than the summary says */
		"Direct leak of 4096 byte(s) in 1 object(s) allocated from:\n"
		"SUMMARY: AddressSanitizer: 100 byte(s) leaked in 1 allocation(s).\n",
		/* a number beyond 64 bits */
		"Direct leak of 99999999999999999999999 byte(s) in 1 object(s) allocated from:\n",
		"Direct leak of 16 byte(s) in 0 object(s) allocated from:\n",
		"Direct leak of 2 byte(s) in 5 object(s) allocated from:\n",
		"Direct leak of many byte(s) in 1 object(s) allocated from:\n",
		"SUMMARY: AddressSanitizer: 18446744073709551616 byte(s) leaked in 1 allocation(s).\n",
		"==77==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020\n",
		"",
		"hello\n",
	};

	(void)state;
	refuses_each(mw_lsan_parse, bad, MW_ARRAY_SIZE(bad));
	{
		struct mw_exit_report r;
		struct mw_err err = { "" };

		assert_int_equal(mw_lsan_parse(bad[0], strlen(bad[0]), &r, &err), -1);
		assert_non_null(strstr(err.msg, "line 2"));
		assert_int_equal(mw_lsan_parse(bad[6], strlen(bad[6]), &r, &err), -1);
		assert_non_null(strstr(err.msg, "not a leak report"));
	}
}

/* A NUL inside, no final newline, CR LF: read as far as they make sense. */
static void lsan_nul_and_no_newline(void **state)
{
	static const char text[] =
		"Direct leak of 64 byte(s) in 2 object(s) allocated from:\r\n"
		"    #0 0x1 in f\0ghost a.c:1\r\n"
		"SUMMARY: AddressSanitizer: 64 byte(s) leaked in 2 allocation(s).";
	struct mw_exit_report r;

	(void)state;
	parses(mw_lsan_parse, text, sizeof(text) - 1, &r);
	mw_test_assert_exit_totals(&r, true, 2, 64);
	assert_int_equal(r.nstacks, 1);
	assert_string_equal(r.stacks[0].frames, "#0 0x1 in f\n");
	mw_exit_report_release(&r);
}

/* 1,000 leaks: the 64 largest stacks are kept, largest first, and every
 * one counts in the totals; a stack's frames stop at the bound. */
static void lsan_huge(void **state)
{
	size_t cap = 1 << 20, n = 0, i;
	char *t = mw_xmalloc(cap);
	struct mw_exit_report r;
	uint64_t sum = 0;

	(void)state;
	for (i = 1; i <= 1000; i++) {
		n += (size_t)snprintf(t + n, cap - n,
				      "Direct leak of %zu byte(s) in 1 object(s) allocated from:\n", i);
		if (i == 1000)
			for (int f = 0; f < 500; f++)
				n += (size_t)snprintf(t + n, cap - n,
						      "    #%d 0xdeadbeef in frame_%d /x.c:1\n", f, f);
		sum += i;
	}
	parses(mw_lsan_parse, t, n, &r);
	mw_test_assert_exit_totals(&r, false, 1000, sum);
	assert_int_equal(r.nstacks, MW_EXIT_MAX_STACKS);
	assert_int_equal(r.stacks[0].bytes, 1000);
	assert_int_equal(r.stacks[MW_EXIT_MAX_STACKS - 1].bytes, 1000 - MW_EXIT_MAX_STACKS + 1);
	assert_true(strlen(r.stacks[0].frames) <= MW_EXIT_MAX_FRAMES_BYTES);
	assert_non_null(strstr(r.stacks[0].frames, "#0 0xdeadbeef in frame_0"));
	mw_exit_report_release(&r);
	free(t);
}

static const char umdh_compare[] =
	"// Debug library initialized ...\n"
	"DBGHELP: app - private symbols & lines\n"
	"//\n"
	"// Each log entry has the following syntax:\n"
	"//\n"
	"// + BYTES_DELTA (NEW_BYTES - OLD_BYTES) NEW_COUNT allocs BackTrace TRACEID\n"
	"\n"
	"+    5320 (  f110 -  9df0)     3a allocs\tBackTrace00B53\n"
	"+      1c (    3a -    1e)\tBackTrace00B53\tallocations\n"
	"\n"
	"\tntdll!RtlAllocateHeap+000000C7\n"
	"\tapp!grow_cache+00000042\n"
	"\n"
	"-     100 (   100 -   200)      1 allocs\tBackTrace00C01\n"
	"\n"
	"\tapp!shrinks+00000010\n"
	"\n"
	"+     200 (   300 -   100)      3 allocs\tBackTrace00D02\n"
	"\n"
	"\tapp!small+00000001\n"
	"\n"
	"Total increase ==   5420 requested +    1c0 overhead =   55e0\n";

static void umdh_parses_comparison(void **state)
{
	struct mw_exit_report r;

	(void)state;
	parses(mw_umdh_parse, umdh_compare, strlen(umdh_compare), &r);
	assert_int_equal(r.source, MW_EXIT_UMDH);
	mw_test_assert_exit_totals(&r, true, 0x1c + 3, 0x5520);
	assert_int_equal(r.nstacks, 2);
	assert_stack(&r.stacks[0], 0x5320, 0x1c);
	assert_string_equal(r.stacks[0].frames, "BackTrace00B53\nntdll!RtlAllocateHeap+000000C7\n"
			    "app!grow_cache+00000042\n");
	assert_stack(&r.stacks[1], 0x200, 3);
	assert_null(strstr(r.stacks[1].frames, "shrinks"));
	mw_exit_report_release(&r);
}

static void umdh_parses_log(void **state)
{
	static const char text[] =
		"00000038 bytes in 0x2 allocations (@ 0x0000001C + 0x00000018) by: BackTrace0001\n"
		"\tapp!main+12\n"
		"00001000 bytes in 0x1 allocations (@ 0x00001000 + 0x00000018) by: BackTrace0002\n"
		"\tapp!big+1";
	struct mw_exit_report r;

	(void)state;
	parses(mw_umdh_parse, text, sizeof(text) - 1, &r);
	assert_int_equal(r.nstacks, 2);
	assert_int_equal(r.stacks[0].bytes, 0x1000);
	assert_string_equal(r.stacks[0].frames, "BackTrace0002\napp!big+1\n");
	assert_int_equal(r.bytes, 0x1038);
	assert_int_equal(r.leaks, 3);
	mw_exit_report_release(&r);
}

static void umdh_prefix_checked(const struct mw_exit_report *r, size_t cut)
{
	(void)cut;
	assert_true(r->bytes <= 0x5520);
}

static void umdh_hostile(void **state)
{
	static const char *const bad[] = {
		"+    5320 (  f110 -  9df1)     3a allocs\tBackTrace00B53\n",	/* wrong delta */
		"+    ffffffffffffffffff (  1 -  0)     3a allocs\tBackTrace1\n",	/* > 64 bits */
		"+    10 (  10 -  0)     3a bananas\n",
		"+    10 (  10 \n",
		"nothing here\n",
		"",
	};

	(void)state;
	refuses_each(mw_umdh_parse, bad, MW_ARRAY_SIZE(bad));
	each_prefix(mw_umdh_parse, umdh_compare, umdh_prefix_checked);
}

static void sample_report(struct mw_exit_report *r)
{
	memset(r, 0, sizeof(*r));
	r->process = mw_xstrdup("app.exe");
	r->pid = 4242;
	r->started_ms = 1700000000000;
	r->exited_ms = 1700000060000;
	r->source = MW_EXIT_NTDLL;
	r->leaks = 2;
	r->bytes = 96;
	r->complete = true;
	r->nblocks = 2;
	r->blocks = mw_xcalloc(2, sizeof(*r->blocks));
	r->blocks[0] = (struct mw_exit_block){ 0x1000, 0x20000, 64 };
	r->blocks[1] = (struct mw_exit_block){ 0x2000, 0x20000, 32 };
	r->nstacks = 1;
	r->stacks = mw_xcalloc(1, sizeof(*r->stacks));
	r->stacks[0] = (struct mw_exit_stack){ 96, 2, true, mw_xstrdup("#0 f\n#1 g\n") };
}

static void record_round_trip(void **state)
{
	struct mw_exit_report r, d;
	struct mw_err err = { "" };
	size_t len;
	void *enc;

	(void)state;
	sample_report(&r);
	enc = mw_exit_report_encode(&r, &len);
	assert_true(mw_exit_report_decode(enc, len, &d, &err));
	assert_string_equal(d.process, "app.exe");
	assert_int_equal(d.pid, 4242);
	assert_true(d.started_ms == 1700000000000);
	assert_true(d.exited_ms == 1700000060000);
	assert_int_equal(d.source, MW_EXIT_NTDLL);
	assert_int_equal(d.leaks, 2);
	assert_int_equal(d.bytes, 96);
	assert_true(d.complete);
	assert_int_equal(d.nblocks, 2);
	assert_int_equal(d.blocks[1].entry, 0x2000);
	assert_int_equal(d.blocks[1].size, 32);
	assert_int_equal(d.nstacks, 1);
	assert_true(d.stacks[0].indirect);
	assert_string_equal(d.stacks[0].frames, "#0 f\n#1 g\n");
	mw_exit_report_release(&d);
	mw_exit_report_release(&r);
	free(enc);
}

/* Every truncation and every single-byte change is refused or decoded
 * within the limits, never read past the buffer (ASan build). */
static void record_hostile(void **state)
{
	struct mw_exit_report r, d;
	struct mw_err err = { "" };
	size_t len, cut, i;
	unsigned char *enc, *copy;

	(void)state;
	sample_report(&r);
	enc = mw_exit_report_encode(&r, &len);
	for (cut = 0; cut < len; cut++) {
		copy = mw_xmalloc(cut ? cut : 1);
		memcpy(copy, enc, cut);
		err.msg[0] = '\0';
		assert_false(mw_exit_report_decode(copy, cut, &d, &err));
		assert_non_null(strstr(err.msg, "exit report record"));
		free(copy);
	}
	copy = mw_xmalloc(len + 1);
	memcpy(copy, enc, len);
	copy[len] = 0;
	assert_false(mw_exit_report_decode(copy, len + 1, &d, &err));
	assert_non_null(strstr(err.msg, "after its end"));
	for (i = 0; i < len; i++) {
		unsigned char old = copy[i];

		copy[i] = 0xff;
		if (mw_exit_report_decode(copy, len, &d, &err)) {
			assert_true(d.nblocks <= MW_EXIT_MAX_BLOCKS);
			assert_true(d.nstacks <= MW_EXIT_MAX_STACKS);
			mw_exit_report_release(&d);
		}
		copy[i] = old;
	}
	copy[0] = 2;
	assert_false(mw_exit_report_decode(copy, len, &d, &err));
	assert_non_null(strstr(err.msg, "version 2"));
	copy[0] = 1;
	copy[1] = 9;
	assert_false(mw_exit_report_decode(copy, len, &d, &err));
	assert_non_null(strstr(err.msg, "unknown source 9"));
	free(copy);
	free(enc);
	mw_exit_report_release(&r);
}

MW_TEST_MAIN(
	cmocka_unit_test(lsan_parses_report),
	cmocka_unit_test(lsan_truncated),
	cmocka_unit_test(lsan_hostile),
	cmocka_unit_test(lsan_nul_and_no_newline),
	cmocka_unit_test(lsan_huge),
	cmocka_unit_test(umdh_parses_comparison),
	cmocka_unit_test(umdh_parses_log),
	cmocka_unit_test(umdh_hostile),
	cmocka_unit_test(record_round_trip),
	cmocka_unit_test(record_hostile),
)
