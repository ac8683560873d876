/* test_heap_wow64_win32.c - the heap reader never runs the remote summary
 * in a WOW64 target (heap_win32.c's mw_heap_read through mw_heap_how),
 * even with remote_summary on: it reads the target's PEB heap lists
 * instead and the notes (the mode) say so.  Wine 8 here has no 32-bit
 * side, so the target's bitness comes from the reader's wow64_of hook and
 * the target is this process read as another one (self = false). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <windows.h>

#include "collectors/heap.h"
#include "tests/support/test_main.h"

static volatile LONG remote_calls;

/* A remote summary that says where it ran: one heap at 0x1234. */
static int fake_remote(uint32_t pid, struct mw_heap_list *out, struct mw_err *err, void *arg)
{
	(void)pid;
	(void)err;
	(void)arg;
	InterlockedIncrement(&remote_calls);
	out->h = calloc(1, sizeof(*out->h));
	out->cap = out->n = 1;
	out->h[0].summary = true;
	out->h[0].base = 0x1234;
	return 0;
}

static int bitness;	/* what wow64_of answers */

static int fake_wow64(uint32_t pid, void *arg)
{
	(void)pid;
	(void)arg;
	return bitness;
}

/* Read this process as another one with remote_summary on, its bitness
 * as given; returns the read's notes. */
static struct mw_heap_notes read_as(int wow64, struct mw_heap_list *h, int *rc)
{
	struct mw_heap_reader_opts o;
	struct mw_heap_reader *r;
	struct mw_heap_breakdown bar;
	struct mw_heap_target_read got;
	struct mw_err why = { "" };

	memset(&o, 0, sizeof(o));
	o.remote = fake_remote;
	o.wow64_of = fake_wow64;
	bitness = wow64;
	r = mw_heap_reader_new(&o);
	*rc = mw_heap_read_target(r, GetCurrentProcessId(), false, h, &bar, &got, &why);
	print_message("wow64 %d: rc %d, %zu heaps, notes %u/%u/%u, %s\n", wow64, *rc, h->n,
		      got.notes.wow64_no_remote, got.notes.segment_partial,
		      got.notes.segment_header_only, why.msg);
	mw_heap_reader_free(r);
	return got.notes;
}

static void wow64_target_gets_no_remote_thread(void **state)
{
	struct mw_heap_list h = { 0 };
	struct mw_heap_notes n;
	int rc;

	(void)state;
	remote_calls = 0;
	/* a 64-bit target: the remote summary runs, as opted in */
	n = read_as(0, &h, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(remote_calls, 1);
	assert_int_equal(n.wow64_no_remote, 0);
	assert_int_equal(h.n, 1);
	assert_true(h.h[0].summary);
	/* a WOW64 target: no remote thread; its PEB heap list instead */
	n = read_as(1, &h, &rc);
	assert_int_equal(rc, 0);
	assert_int_equal(remote_calls, 1);
	assert_int_equal(n.wow64_no_remote, 1);
	assert_true(h.n >= 1);
	assert_true(h.h[0].segments && !h.h[0].summary);
	assert_true(h.h[0].committed > 0);
	/* bitness unknown: nothing runs in it either */
	n = read_as(-1, &h, &rc);
	assert_int_equal(remote_calls, 1);
	assert_int_equal(n.wow64_no_remote, 1);
	free(h.h);
}

MW_TEST_MAIN(
	cmocka_unit_test(wow64_target_gets_no_remote_thread),
)
