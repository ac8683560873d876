/* test_heap.c - HeapWalk entry accounting on constructed entries. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/heap.h"

static void accounting(void **state)
{
	struct mw_heap_totals t;

	(void)state;
	memset(&t, 0, sizeof(t));
	mw_heap_account(&t, MW_HEAP_REGION, 0, 0, 65536, 1 << 20);
	mw_heap_account(&t, MW_HEAP_ENTRY_BUSY, 100, 16, 0, 0);
	mw_heap_account(&t, MW_HEAP_ENTRY_BUSY, 200, 16, 0, 0);
	mw_heap_account(&t, 0, 4000, 8, 0, 0);
	mw_heap_account(&t, MW_HEAP_UNCOMMITTED_RANGE, 1 << 20, 0, 0, 0);
	assert_int_equal(t.committed, 65536);
	assert_int_equal(t.uncommitted, 1 << 20);
	assert_int_equal(t.busy, 300);
	assert_int_equal(t.blocks, 2);
	assert_int_equal(t.free, 4000);
	assert_int_equal(t.free_blocks, 1);
	assert_int_equal(t.overhead, 40);
	assert_int_equal(t.regions, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(accounting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
