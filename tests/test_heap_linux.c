/* test_heap_linux.c - the heap bar on live processes: this one (its bar
 * and vmmap's committed total agree exactly for one shared read; the
 * per-tick cache serves heap, vmmap and workingset one read and gives a
 * user asking again a new one; an 8 MiB anonymous mapping and a thread
 * land in the right kinds), and a process that has gone. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "collectors/heap.h"
#include "collectors/procmaps.h"
#include "collectors/vmmap.h"
#include "collectors/workingset.h"
#include "tests/support/heap_sums.h"
#include "tests/support/test_main.h"

static void cache_shared(void **state)
{
	struct mw_heap_breakdown bd;
	struct mw_vm_regions v = { 0 };
	struct mw_ws_snapshot ws;
	struct mw_err err = { "" };
	uint64_t r0, h0, r, h;
	uint32_t self = (uint32_t)getpid();

	(void)state;
	memset(&ws, 0, sizeof(ws));
	assert_int_equal(mw_heap_supported(&err), 0);
	mw_procmaps_flush();
	mw_procmaps_stats(&r0, &h0);
	if (mw_heap_bar_read(self, &bd, &err))
		fail_msg("%s", err.msg);
	if (mw_vm_walk(self, true, &v, &err))
		fail_msg("%s", err.msg);
	if (mw_ws_read(self, true, &ws, &err))
		fail_msg("%s", err.msg);
	mw_procmaps_stats(&r, &h);
	assert_int_equal(r - r0, 1);	/* one read ... */
	assert_int_equal(h - h0, 2);	/* ... served to vmmap and workingset */
	/* one snapshot: the bar and vmmap agree to the byte */
	assert_int_equal(mw_test_heap_committed(&bd), mw_test_vm_committed(&v));
	assert_true(bd.heap_whole);
	assert_true(bd.bytes[MW_HK_IMAGE] > 0);
	assert_true(bd.bytes[MW_HK_STACK_COMMITTED] > 0);
	assert_true(bd.bytes[MW_HK_STATIC_DATA] > 0);
	/* the heap bar asking again: its next tick, a new read */
	if (mw_heap_bar_read(self, &bd, &err))
		fail_msg("%s", err.msg);
	mw_procmaps_stats(&r, &h);
	assert_int_equal(r - r0, 2);
	assert_int_equal(h - h0, 2);
	mw_vm_regions_release(&v);
	mw_ws_snapshot_release(&ws);
}

static sem_t started, done;

static void *thread_main(void *arg)
{
	(void)arg;
	sem_post(&started);
	sem_wait(&done);
	return NULL;
}

static void kinds_grow(void **state)
{
	struct mw_heap_breakdown a, b;
	struct mw_err err = { "" };
	uint32_t self = (uint32_t)getpid();
	pthread_attr_t attr;
	pthread_t th;
	unsigned char *p;

	(void)state;
	if (mw_heap_bar_read(self, &a, &err))
		fail_msg("%s", err.msg);
	p = mmap(NULL, 8 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	sem_init(&started, 0, 0);
	sem_init(&done, 0, 0);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 4 << 20);
	pthread_attr_setguardsize(&attr, 64 << 10);
	assert_int_equal(pthread_create(&th, &attr, thread_main, NULL), 0);
	sem_wait(&started);
	if (mw_heap_bar_read(self, &b, &err))
		fail_msg("%s", err.msg);
	/* the 8 MiB mapping (ASan's own mappings may come and go besides) */
	assert_true(b.bytes[MW_HK_PRIVATE_OTHER] >= a.bytes[MW_HK_PRIVATE_OTHER] + (8 << 20) - (1 << 20));
	/* a 4 MiB stack less its guard, and the 64 KiB guard */
	assert_true(b.bytes[MW_HK_STACK_COMMITTED] >= a.bytes[MW_HK_STACK_COMMITTED] + (4 << 20) - (64 << 10));
	assert_true(b.bytes[MW_HK_STACK_RESERVED] >= a.bytes[MW_HK_STACK_RESERVED] + (64 << 10));
	sem_post(&done);
	pthread_join(th, NULL);
	pthread_attr_destroy(&attr);
	munmap(p, 8 << 20);
}

static void gone(void **state)
{
	struct mw_heap_breakdown bd;
	struct mw_err err = { "" };
	pid_t pid = fork();

	(void)state;
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	assert_int_equal(mw_heap_bar_read((uint32_t)pid, &bd, &err), 1);
	assert_true(err.msg[0] != '\0');
}

MW_TEST_MAIN(
	cmocka_unit_test(cache_shared),
	cmocka_unit_test(kinds_grow),
	cmocka_unit_test(gone),
)
