/*
 * test_main.h - a cmocka program's main, written once: the tests given,
 * in order, run as one group with no group fixtures (a test that needs a
 * fixture names it in its own entry, cmocka_unit_test_setup_teardown).
 *
 *     MW_TEST_MAIN(
 *             cmocka_unit_test(parses),
 *             cmocka_unit_test_setup_teardown(stores, setup, teardown),
 *     )
 *
 * Include after <cmocka.h>.  Entries may not hold #if (they are macro
 * arguments): a program that picks its tests by platform keeps its own
 * main.
 */
#ifndef MW_TESTS_SUPPORT_TEST_MAIN_H
#define MW_TESTS_SUPPORT_TEST_MAIN_H

#define MW_TEST_MAIN(...)                                                  \
	int main(void)                                                     \
	{                                                                  \
		const struct CMUnitTest tests[] = { __VA_ARGS__ };         \
		return cmocka_run_group_tests(tests, NULL, NULL);          \
	}

#endif
