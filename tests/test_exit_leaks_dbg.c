/*
 * test_exit_leaks_dbg.c - the pure parts of the Windows exit leak capture
 * (collectors/exit_leaks_dbg.c): image names, ntdll's DbgPrint calls as a debugger receives them made into a report,
 * the target table across scans, the report queue, the saved IFEO value.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/exit_leaks_dbg.h"
#include "tests/support/known_report.h"
#include "tests/support/test_main.h"

static void image_names(void **state)
{
	char a[] = "App.exe", b[] = "other.exe";
	char *images[] = { a, b };
	char long_name[MW_IMAGE_NAME_MAX + 2];

	/* names, not paths; UTF-8 without control bytes */
	static const struct {
		const char *name;
		bool valid;
	} names[] = {
		{ "app.exe", true }, { "caf\xc3\xa9 [1].exe", true }, { "", false },
		{ "C:\\bin\\app.exe", false }, { "bin/app.exe", false }, { "app\x01.exe", false },
		{ "caf\xe9.exe", false }, { "..", false },
	};

	(void)state;
	for (size_t i = 0; i < MW_ARRAY_SIZE(names); i++)
		if (mw_image_name_valid(names[i].name) != names[i].valid)
			fail_msg("mw_image_name_valid(\"%s\") is not %d", names[i].name, names[i].valid);
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_false(mw_image_name_valid(long_name));
	long_name[MW_IMAGE_NAME_MAX] = '\0';
	assert_true(mw_image_name_valid(long_name));

	assert_true(mw_image_matches(images, 2, "app.exe"));
	assert_true(mw_image_matches(images, 2, "APP.EXE"));
	assert_true(mw_image_matches(images, 2, "other.exe"));
	assert_false(mw_image_matches(images, 2, "app.ex"));
	assert_false(mw_image_matches(images, 2, "app.exe2"));
	assert_false(mw_image_matches(images, 0, "app.exe"));
}

/* A new capture fed these debug strings, one call each. */
static void capture_calls(struct mw_dbg_capture *c, const char *const *strings, size_t n)
{
	mw_dbg_capture_init(c);
	for (size_t i = 0; i < n; i++)
		mw_dbg_capture_string(c, strings[i], strlen(strings[i]));
}

/* Frees the report taken and the capture (ASan checks nothing is left). */
static void capture_done(struct mw_dbg_capture *c, struct mw_exit_report *r)
{
	mw_dbg_report_free(r);
	mw_dbg_capture_release(c);
}

/* The DbgPrint calls of RtlDetectHeapLeaks, one debug string each. */
static const char *const NTDLL_CALLS[] = {
	"some other output\n",
	"HEAP[app.exe]: ",
	"Inspecting leaks at process shutdown ...\n",
	"Below is a list of potentially leaked heap entries \n"
	"use !heap -i Entry -h Heap for more information\n\n",
	"Entry     Heap              Size       \n",
	"---------------------------------------\n",
	"000001F2A3B40010  1f2a3b00000       100",
	"\n",
	"000001F2A3B40200  1f2a3b00000       4096",
	"\n",
	"HEAP[app.exe]: ",
	"2 leaks detected.\n",
};

static void ntdll_calls_make_a_report(void **state)
{
	struct mw_dbg_capture c;
	struct mw_exit_report r;

	(void)state;
	capture_calls(&c, NTDLL_CALLS, MW_ARRAY_SIZE(NTDLL_CALLS));
	/* held until the process exits */
	assert_int_equal(c.held.n, 1);
	mw_dbg_capture_end(&c);
	assert_true(mw_dbg_capture_take(&c, &r));
	assert_int_equal(c.held.n, 0);
	assert_string_equal(r.process, "app.exe");
	mw_test_assert_exit_totals(&r, true, 2, 4196);
	assert_int_equal(r.nblocks, 2);
	capture_done(&c, &r);
}

/* A program that sends each line without '\n' (OutputDebugString per
 * line): each string is a line; a prefix still joins its message. */
static void strings_without_line_ends(void **state)
{
	static const char *const calls[] = {
		"HEAP[app.exe]: Inspecting leaks at process shutdown ...",
		"Entry     Heap              Size",
		"0000000000A00010  a00000  16",
		"0000000000A00020  a00000  32",
		"HEAP[app.exe]: ",
		"2 leaks detected.",
	};
	struct mw_dbg_capture c;
	struct mw_exit_report r;

	(void)state;
	capture_calls(&c, calls, MW_ARRAY_SIZE(calls));
	assert_int_equal(c.held.n, 0);	/* the last line ends at the exit */
	mw_dbg_capture_end(&c);
	assert_true(mw_dbg_capture_take(&c, &r));
	mw_test_assert_exit_totals(&r, true, 2, 48);
	capture_done(&c, &r);
}

/* CRLF line ends, several lines in one string, a row's "\r\n" sent apart. */
static void crlf_and_many_lines_per_string(void **state)
{
	static const char *const calls[] = {
		"HEAP[app.exe]: Inspecting leaks at process shutdown ...\r\n"
		"0000000000A00010  a00000  16\r\n0000000000A00020  a00000",
		"  32",
		"\r\nHEAP[app.exe]: 2 leaks detected.\r\n",
	};
	struct mw_dbg_capture c;
	struct mw_exit_report r;

	(void)state;
	capture_calls(&c, calls, MW_ARRAY_SIZE(calls));
	assert_int_equal(c.held.n, 1);
	assert_true(mw_dbg_capture_take(&c, &r));
	/* "0000000000A00020  a00000" and "  32" were two strings: two lines,
	 * neither a row (a row is one DbgPrint call) */
	assert_int_equal(r.nblocks, 1);
	assert_int_equal(r.leaks, 2);
	assert_true(r.complete);
	capture_done(&c, &r);
}

/* The process exits in the middle: an incomplete report; an overlong
 * line is dropped whole and costs no more than the line buffer. */
static void exit_inside_and_overlong(void **state)
{
	struct mw_dbg_capture c;
	struct mw_exit_report r;
	char *junk = malloc(100000);

	(void)state;
	assert_non_null(junk);
	memset(junk, '1', 99999);
	junk[99999] = '\0';
	mw_dbg_capture_init(&c);
	mw_dbg_capture_string(&c, "HEAP[app.exe]: Inspecting leaks at process shutdown ...\n", 57);
	mw_dbg_capture_string(&c, junk, strlen(junk));
	/* a new string after an overlong one is a new line, not a row */
	mw_dbg_capture_string(&c, "  a00000  16", 12);
	mw_dbg_capture_string(&c, junk, strlen(junk));
	mw_dbg_capture_string(&c, "\n", 1);
	mw_dbg_capture_string(&c, "0000000000A00010  a00000  16", 28);
	mw_dbg_capture_end(&c);
	assert_true(mw_dbg_capture_take(&c, &r));
	mw_test_assert_exit_totals(&r, false, 1, 16);
	capture_done(&c, &r);
	free(junk);
}

/* More reports than are held before the exit: the oldest go, counted;
 * release frees what is held (ASan checks). */
static void held_reports_bounded(void **state)
{
	struct mw_dbg_capture c;
	struct mw_exit_report r;

	(void)state;
	mw_dbg_capture_init(&c);
	for (int i = 0; i < MW_DBG_HELD_MAX + 2; i++) {
		char line[256];

		snprintf(line, sizeof(line),
			 "HEAP[app.exe]: Inspecting leaks at process shutdown ...\n"
			 "0000000000A00010  a00000  %d\nHEAP[app.exe]: 1 leaks detected.\n", i + 1);
		mw_dbg_capture_string(&c, line, strlen(line));
	}
	assert_int_equal(c.held.n, MW_DBG_HELD_MAX);
	assert_int_equal(c.held.dropped, 2);
	assert_true(mw_dbg_capture_take(&c, &r));
	assert_int_equal(r.bytes, 3);
	capture_done(&c, &r);
}

static void targets_across_scans(void **state)
{
	struct mw_dbg_targets ts = { 0 };
	struct mw_dbg_target *t, *u;

	(void)state;
	mw_dbg_scan_begin(&ts);
	t = mw_dbg_scan_see(&ts, 100, 5000, "app.exe");
	assert_non_null(t);
	assert_int_equal(t->state, MW_DBG_NEW);
	assert_string_equal(t->image, "app.exe");
	t->state = MW_DBG_ATTACHED;
	u = mw_dbg_scan_see(&ts, 200, 6000, "app.exe");
	assert_non_null(u);
	u->state = MW_DBG_REFUSED;
	mw_dbg_scan_end(&ts);
	assert_int_equal(ts.n, 2);

	/* seen again: nothing new */
	mw_dbg_scan_begin(&ts);
	assert_null(mw_dbg_scan_see(&ts, 100, 5000, "app.exe"));
	assert_null(mw_dbg_scan_see(&ts, 200, 6000, "app.exe"));
	mw_dbg_scan_end(&ts);
	assert_int_equal(ts.n, 2);

	/* 200 reused by a new process: new again; 100 gone from the list
	 * stays while attached (its exit event removes it) */
	mw_dbg_scan_begin(&ts);
	u = mw_dbg_scan_see(&ts, 200, 9000, "app.exe");
	assert_non_null(u);
	assert_int_equal(u->start_ms, 9000);
	u->state = MW_DBG_REFUSED;
	mw_dbg_scan_end(&ts);
	assert_int_equal(ts.n, 2);
	assert_non_null(mw_dbg_targets_find(&ts, 100));

	/* a refused one no longer listed is forgotten */
	mw_dbg_scan_begin(&ts);
	mw_dbg_scan_end(&ts);
	assert_int_equal(ts.n, 1);
	assert_null(mw_dbg_targets_find(&ts, 200));
	mw_dbg_targets_remove(&ts, mw_dbg_targets_find(&ts, 100));
	assert_int_equal(ts.n, 0);
	mw_dbg_targets_release(&ts);
}

static void queue_fifo_bounded(void **state)
{
	struct mw_report_queue q = { 0 };
	struct mw_exit_report r;

	(void)state;
	for (size_t i = 0; i < MW_REPORT_QUEUE_MAX + 3; i++) {
		memset(&r, 0, sizeof(r));
		r.pid = (int64_t)i;
		r.process = strdup("app.exe");
		mw_report_queue_push(&q, &r);
		assert_null(r.process);	/* the queue took it */
	}
	assert_int_equal(q.n, MW_REPORT_QUEUE_MAX);
	assert_int_equal(q.dropped, 3);
	assert_true(mw_report_queue_pop(&q, &r));
	assert_int_equal(r.pid, 3);
	mw_dbg_report_free(&r);
	assert_true(mw_report_queue_pop(&q, &r));
	assert_int_equal(r.pid, 4);
	mw_dbg_report_free(&r);
	mw_report_queue_release(&q);
	assert_false(mw_report_queue_pop(&q, &r));
}

static void ifeo_saved_value(void **state)
{
	struct mw_ifeo_saved s = { true, 0x80000003u, true }, back;
	char text[64];

	(void)state;
	mw_ifeo_saved_format(&s, text, sizeof(text));
	assert_string_equal(text, "previous=0x80000003;created");
	assert_true(mw_ifeo_saved_parse(text, &back));
	assert_true(back.had_value && back.value == 0x80000003u && back.created_key);
	s.had_value = false;
	s.created_key = false;
	mw_ifeo_saved_format(&s, text, sizeof(text));
	assert_string_equal(text, "previous=none");
	assert_true(mw_ifeo_saved_parse(text, &back));
	assert_false(back.had_value || back.created_key);
	assert_false(mw_ifeo_saved_parse("", &back));
	assert_false(mw_ifeo_saved_parse("previous=0x1", &back));
	assert_false(mw_ifeo_saved_parse("previous=0x0000000G", &back));
	assert_false(mw_ifeo_saved_parse("previous=none;", &back));
	assert_false(mw_ifeo_saved_parse("previous=0x00000001;created;x", &back));
}

MW_TEST_MAIN(
	cmocka_unit_test(image_names),
	cmocka_unit_test(ntdll_calls_make_a_report),
	cmocka_unit_test(strings_without_line_ends),
	cmocka_unit_test(crlf_and_many_lines_per_string),
	cmocka_unit_test(exit_inside_and_overlong),
	cmocka_unit_test(held_reports_bounded),
	cmocka_unit_test(targets_across_scans),
	cmocka_unit_test(queue_fifo_bounded),
	cmocka_unit_test(ifeo_saved_value),
)
