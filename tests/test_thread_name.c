/* test_thread_name.c - naming threads (base/thread_name.h), read back
 * from the OS: natively (pthread_getname_np, the kernel's comm) and under
 * Wine (GetThreadDescription). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <pthread.h>
#include <string.h>
#include <cmocka.h>

#include "base/thread_name.h"
#include "tests/support/test_main.h"

struct named {
	const char *set;
	char got[64];
	int rc;
};

static void *name_and_read(void *arg)
{
	struct named *n = arg;

	mw_thread_set_name(n->set);
	n->rc = mw_thread_get_name(n->got, sizeof(n->got));
	return NULL;
}

static void run_named(struct named *n)
{
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, name_and_read, n), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(n->rc, 0);
}

static void a_thread_reads_back_its_name(void **state)
{
	struct named n = { .set = "mw-writer" };

	(void)state;
	run_named(&n);
	assert_string_equal(n.got, "mw-writer");
}

static void a_long_name_is_cut_to_fifteen_bytes(void **state)
{
	struct named n = { .set = "mw-a-name-longer-than-fifteen" };

	(void)state;
	run_named(&n);
	assert_int_equal(strlen(n.got), MW_THREAD_NAME_MAX);
	assert_memory_equal(n.got, "mw-a-name-longer-than-fifteen", MW_THREAD_NAME_MAX);
}

static void naming_a_thread_leaves_the_others_alone(void **state)
{
	struct named n = { .set = "mw-judge" };
	char before[64], after[64];

	(void)state;
	mw_thread_set_name("mw-test-main");
	assert_int_equal(mw_thread_get_name(before, sizeof(before)), 0);
	run_named(&n);
	assert_int_equal(mw_thread_get_name(after, sizeof(after)), 0);
	assert_string_equal(before, "mw-test-main");
	assert_string_equal(after, "mw-test-main");
	assert_string_equal(n.got, "mw-judge");
}

MW_TEST_MAIN(
	cmocka_unit_test(a_thread_reads_back_its_name),
	cmocka_unit_test(a_long_name_is_cut_to_fifteen_bytes),
	cmocka_unit_test(naming_a_thread_leaves_the_others_alone),
)
