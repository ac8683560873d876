/*
 * test_main.h - a cmocka program's main, written once: the tests given,
 * in order, run as one group with no group fixtures (a test that needs a
 * fixture names it in its own entry: MW_FIXTURE_TEST, or
 * cmocka_unit_test_setup_teardown for other fixtures).
 *
 *     MW_TEST_MAIN(
 *             cmocka_unit_test(parses),
 *             MW_FIXTURE_TEST(stores),
 *     )
 *
 * Include after <cmocka.h>.  Entries may not hold #if (they are macro
 * arguments): a program that picks its tests by platform keeps its own
 * main.
 */
#ifndef MW_TESTS_SUPPORT_TEST_MAIN_H
#define MW_TESTS_SUPPORT_TEST_MAIN_H

/* An entry run between the file's own setup and teardown (most often the
 * scratch database's, MW_TEST_DB_FIXTURES in test_db.h). */
#define MW_FIXTURE_TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

#define MW_TEST_MAIN(...)                                                  \
	int main(void)                                                     \
	{                                                                  \
		const struct CMUnitTest tests[] = { __VA_ARGS__ };         \
		return cmocka_run_group_tests(tests, NULL, NULL);          \
	}

#endif
