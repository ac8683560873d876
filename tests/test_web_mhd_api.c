/* test_web_mhd_api.c - web/mhd_api.c: a table filled from a library's
 * symbols takes every function by its MHD_ name, and a library lacking
 * one is refused naming it and the function, with nothing half-filled.
 * (Loading Debian's library and which servers map GnuTLS:
 * test_web_mhd_api_linux.c.) */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "web/mhd_api.h"
#include "tests/support/test_main.h"

/* A stand-in library: every MHD_ name resolves to a marker, but the one
 * named by lib (NULL: none) is missing.  Never called. */
static char marker;

static void *lookup(void *lib, const char *symbol)
{
	const char *missing = lib;

	assert_memory_equal(symbol, "MHD_", 4);
	return missing && !strcmp(symbol, missing) ? NULL : &marker;
}

static void every_function_by_its_name(void **state)
{
	struct mw_mhd_api api;
	struct mw_err err = { "" };
	void *p;

	(void)state;
	assert_int_equal(mw_mhd_fill(&api, "fake.so", lookup, NULL, &err), 0);
	assert_string_equal(api.name, "fake.so");
	memcpy(&p, &api.start_daemon, sizeof(p));
	assert_ptr_equal(p, &marker);
	memcpy(&p, &api.is_feature_supported, sizeof(p));
	assert_ptr_equal(p, &marker);
}

static void a_missing_function_is_named(void **state)
{
	struct mw_mhd_api api;
	struct mw_err err = { "" };

	(void)state;
	assert_int_equal(mw_mhd_fill(&api, "fake.so", lookup, (void *)"MHD_queue_response",
				     &err), -1);
	assert_string_equal(err.msg, "fake.so has no MHD_queue_response");
	assert_null(api.name);
	assert_null(api.start_daemon);	/* found before the missing one: cleared */
}

MW_TEST_MAIN(
	cmocka_unit_test(every_function_by_its_name),
	cmocka_unit_test(a_missing_function_is_named),
)
