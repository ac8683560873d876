/*
 * test_collectors_wine_win32.c - the Windows collectors end to end against
 * real processes: under Wine (and on Windows) from the repository root.
 *
 * - vmmap against build/win64/helpers/leaky_win32.exe: private committed
 *   bytes grow by at least what it leaked between two walks;
 * - heap on self (HeapWalk) reports real, nonzero values;
 * - workingset on self works (QueryWorkingSet, or QueryWorkingSetEx when
 *   refused as under Wine) and finds this test's code pages as image;
 * - perfcounters either works or says it cannot, with the Win32 detail.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>
#include <cmocka.h>

#include "collectors/heap.h"
#include "collectors/perfcounters.h"
#include "collectors/vmmap.h"
#include "collectors/watch.h"
#include "collectors/workingset.h"

#define LEAK_MIB 4

struct child {
	PROCESS_INFORMATION pi;
	HANDLE in_w, out_r;
};

static void read_line(struct child *c, char *buf, size_t size)
{
	size_t n = 0;
	DWORD got;
	char ch;

	while (n + 1 < size && ReadFile(c->out_r, &ch, 1, &got, NULL) && got == 1 && ch != '\n')
		buf[n++] = ch;
	buf[n] = '\0';
}

static void start_leaky(struct child *c)
{
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, TRUE };
	HANDLE in_r, out_w;
	STARTUPINFOA si;
	char cmd[] = "build\\win64\\helpers\\leaky_win32.exe 4";

	assert_true(CreatePipe(&in_r, &c->in_w, &sa, 0));
	assert_true(CreatePipe(&c->out_r, &out_w, &sa, 0));
	SetHandleInformation(c->in_w, HANDLE_FLAG_INHERIT, 0);
	SetHandleInformation(c->out_r, HANDLE_FLAG_INHERIT, 0);
	memset(&si, 0, sizeof(si));
	si.cb = sizeof(si);
	si.dwFlags = STARTF_USESTDHANDLES;
	si.hStdInput = in_r;
	si.hStdOutput = out_w;
	si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
	if (!CreateProcessA(NULL, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &c->pi))
		fail_msg("cannot start %s: Win32 error %lu (build the helpers first)", cmd,
			 GetLastError());
	CloseHandle(in_r);
	CloseHandle(out_w);
}

static void stop_leaky(struct child *c)
{
	CloseHandle(c->in_w);	/* end of input: it exits */
	WaitForSingleObject(c->pi.hProcess, 10000);
	CloseHandle(c->out_r);
	CloseHandle(c->pi.hProcess);
	CloseHandle(c->pi.hThread);
}

static void vmmap_sees_the_leak(void **state)
{
	struct child c;
	struct mw_vm_regions v = { 0 };
	struct mw_vm_summary a, b;
	struct mw_err err;
	char line[64];
	DWORD w;
	unsigned long pid = 0;

	(void)state;
	start_leaky(&c);
	read_line(&c, line, sizeof(line));
	assert_int_equal(sscanf(line, "ready %lu", &pid), 1);
	assert_int_equal(pid, c.pi.dwProcessId);
	assert_int_equal(mw_vm_walk((uint32_t)pid, false, &v, &err), 0);
	mw_vm_summarize(&v, &a);
	assert_true(WriteFile(c.in_w, "\n", 1, &w, NULL));
	read_line(&c, line, sizeof(line));
	assert_non_null(strstr(line, "leaked"));
	assert_int_equal(mw_vm_walk((uint32_t)pid, false, &v, &err), 0);
	mw_vm_summarize(&v, &b);
	print_message("vmmap: private committed %llu -> %llu bytes, %llu regions\n",
		      (unsigned long long)a.bytes[MW_VM_COMMIT][MW_VM_PRIVATE],
		      (unsigned long long)b.bytes[MW_VM_COMMIT][MW_VM_PRIVATE],
		      (unsigned long long)b.regions);
	assert_true(b.bytes[MW_VM_COMMIT][MW_VM_PRIVATE] >=
		    a.bytes[MW_VM_COMMIT][MW_VM_PRIVATE] + ((uint64_t)LEAK_MIB << 20));
	assert_true(b.bytes[MW_VM_COMMIT][MW_VM_IMAGE] > 0);
	/* a pid that does not exist is inaccessible, not an error */
	assert_int_equal(mw_vm_walk(0xfffffff0u, false, &v, &err), 1);
	stop_leaky(&c);
	mw_vm_regions_release(&v);
}

static void vmmap_walk_cost(void **state)
{
	struct mw_vm_regions v = { 0 };
	struct mw_err err;
	LARGE_INTEGER f, t0, t1;
	int i;

	(void)state;
	QueryPerformanceFrequency(&f);
	QueryPerformanceCounter(&t0);
	for (i = 0; i < 20; i++)
		assert_int_equal(mw_vm_walk(mw_self_pid(), true, &v, &err), 0);
	QueryPerformanceCounter(&t1);
	print_message("vmmap: full VirtualQueryEx walk of self, %zu regions: %.3f ms\n", v.n,
		      (double)(t1.QuadPart - t0.QuadPart) * 1000.0 / (double)f.QuadPart / 20);
	assert_true(v.n > 10);
	mw_vm_regions_release(&v);
}

static void heap_self(void **state)
{
	struct mw_heap_list h = { 0 };
	struct mw_err err;
	void *p[64];
	uint64_t busy0 = 0, busy1 = 0;
	size_t i;

	(void)state;
	assert_int_equal(mw_heap_read(mw_self_pid(), true, &h, &err), 0);
	assert_true(h.n >= 1);
	for (i = 0; i < h.n; i++)
		busy0 += h.h[i].busy;
	for (i = 0; i < 64; i++)
		p[i] = HeapAlloc(GetProcessHeap(), 0, 10000);
	assert_int_equal(mw_heap_read(mw_self_pid(), true, &h, &err), 0);
	for (i = 0; i < h.n; i++)
		busy1 += h.h[i].busy;
	print_message("heap: %zu heaps, allocated %llu -> %llu bytes\n", h.n,
		      (unsigned long long)busy0, (unsigned long long)busy1);
	assert_true(busy1 >= busy0 + 64 * 10000);
	assert_true(h.h[0].blocks > 0);
	for (i = 0; i < 64; i++)
		HeapFree(GetProcessHeap(), 0, p[i]);
	/* another process: reported as not readable, with the reason */
	assert_int_equal(mw_heap_read(4, false, &h, &err), 1);
	free(h.h);
}

static void workingset_self(void **state)
{
	struct mw_ws_snapshot s;
	struct mw_ws_result r = { 0 };
	struct mw_err err;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(mw_ws_read(mw_self_pid(), true, &s, &err), 0);
	print_message("workingset: mode %d (%s), %zu pages, %zu names, %zu heaps, %zu stacks\n",
		      s.mode, s.why, s.npages, s.nnames, s.nheaps, s.nstacks);
	assert_true(s.mode == MW_WS_MODE_FULL || s.mode == MW_WS_MODE_EX);
	assert_true(s.npages > 0);
	{
		struct mw_ws_input in = { &s.regions, s.names, s.nnames, s.heaps, s.stacks,
					  s.nheaps, s.nstacks, s.page_size };

		mw_ws_classify(&in, s.pages, s.npages, &r);
	}
	/* this code runs, so its image pages are resident */
	assert_true(r.pages[MW_WS_IMAGE][MW_WS_PRIV] + r.pages[MW_WS_IMAGE][MW_WS_SHAREABLE_PAGE] +
		    r.pages[MW_WS_IMAGE][MW_WS_SHARED] > 0);
	assert_true(r.pages[MW_WS_STACK][MW_WS_PRIV] > 0 || s.nstacks == 0);
	mw_ws_result_release(&r);
	mw_ws_snapshot_release(&s);
}

static void perfcounters_or_why_not(void **state)
{
	struct mw_config cfg;
	struct mw_collector_config cc;
	struct mw_collector_env env = { &cfg, &cc };
	struct mw_err why = { "" };
	void *st = NULL;
	int rc;

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	memset(&cc, 0, sizeof(cc));
	rc = mw_collector_perfcounters.init(&st, &env, &why);
	print_message("perfcounters init: %d %s\n", rc, why.msg);
	if (rc == MW_COLLECTOR_UNSUPPORTED) {
		/* Wine: the message says what the registry gave */
		assert_non_null(strstr(why.msg, "perfcounters"));
		assert_non_null(strstr(why.msg, "Counter 009"));
		assert_non_null(strstr(why.msg, "PERF_DATA_BLOCK"));
		return;
	}
	assert_int_equal(rc, MW_COLLECTOR_OK);
	mw_collector_perfcounters.fini(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(vmmap_sees_the_leak),
		cmocka_unit_test(vmmap_walk_cost),
		cmocka_unit_test(heap_self),
		cmocka_unit_test(workingset_self),
		cmocka_unit_test(perfcounters_or_why_not),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
