/* test_units.c - durations and sizes as users write them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/units.h"
#include "tests/support/test_main.h"

static void durations_parse(void **state)
{
	int64_t ms;
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_parse_duration_ms("100ms", &ms, &err), 0);
	assert_int_equal(ms, 100);
	assert_int_equal(mw_parse_duration_ms("1s", &ms, &err), 0);
	assert_int_equal(ms, 1000);
	assert_int_equal(mw_parse_duration_ms("5m", &ms, &err), 0);
	assert_int_equal(ms, 300000);
	assert_int_equal(mw_parse_duration_ms("2h", &ms, &err), 0);
	assert_int_equal(ms, 7200000);
	assert_int_equal(mw_parse_duration_ms("7d", &ms, &err), 0);
	assert_int_equal(ms, 604800000);
	assert_int_equal(mw_parse_duration_ms("1.5s", &ms, &err), 0);
	assert_int_equal(ms, 1500);
	assert_int_equal(mw_parse_duration_ms("0s", &ms, &err), 0);
	assert_int_equal(ms, 0);
	/* zero is zero in any unit: the one number that needs none */
	ms = 42;
	assert_int_equal(mw_parse_duration_ms("0", &ms, &err), 0);
	assert_int_equal(ms, 0);
	assert_int_equal(mw_parse_duration_ms("1y", &ms, &err), 0);
	assert_true(ms == 31536000000LL);
}

static void durations_reject(void **state)
{
	static const char *const bad[] = { "", "1", "s", "-1s", "1 s", "1x", "1sec", "1.0001ms",
					   " 1s", "1e400s", "abc", "00", "300000", "0x" };
	int64_t ms = 42;
	struct mw_err err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		assert_int_equal(mw_parse_duration_ms(bad[i], &ms, &err), -1);
		assert_true(strlen(err.msg) > 0);
		assert_int_equal(ms, 42);	/* untouched on error */
	}
	mw_parse_duration_ms("1", &ms, &err);
	assert_non_null(strstr(err.msg, "needs a unit"));
	mw_parse_duration_ms("3parsecs", &ms, &err);
	assert_non_null(strstr(err.msg, "parsecs"));
}

static void sizes_parse(void **state)
{
	uint64_t b;
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_parse_size("512MB", &b, &err), 0);
	assert_int_equal(b, 512ULL << 20);
	assert_int_equal(mw_parse_size("2GB", &b, &err), 0);
	assert_int_equal(b, 2ULL << 30);
	assert_int_equal(mw_parse_size("2GiB", &b, &err), 0);
	assert_int_equal(b, 2ULL << 30);
	assert_int_equal(mw_parse_size("16KB", &b, &err), 0);
	assert_int_equal(b, 16384);
	assert_int_equal(mw_parse_size("0B", &b, &err), 0);
	assert_int_equal(b, 0);
	assert_int_equal(mw_parse_size("512", &b, &err), -1);
	assert_non_null(strstr(err.msg, "needs a unit"));
	assert_int_equal(mw_parse_size("5PB", &b, &err), -1);
	assert_int_equal(mw_parse_size("0.5B", &b, &err), -1);
	assert_int_equal(mw_parse_size("99999999TB", &b, &err), -1);
}

static void formats_round_trip(void **state)
{
	char buf[32];
	int64_t ms;
	uint64_t b;
	static const int64_t durations[] = { 1, 100, 1000, 90000, 60000, 3600000, 86400000,
					     604800000, 1500 };
	static const uint64_t sizes[] = { 1, 1024, 1536, 512ULL << 20, 2ULL << 30, 5ULL << 40 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
		mw_format_duration(buf, sizeof(buf), durations[i]);
		assert_int_equal(mw_parse_duration_ms(buf, &ms, NULL), 0);
		assert_int_equal(ms, durations[i]);
	}
	mw_format_duration(buf, sizeof(buf), 60000);
	assert_string_equal(buf, "1m");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		mw_format_size(buf, sizeof(buf), sizes[i]);
		assert_int_equal(mw_parse_size(buf, &b, NULL), 0);
		assert_true(b == sizes[i]);
	}
	mw_format_size(buf, sizeof(buf), 512ULL << 20);
	assert_string_equal(buf, "512MB");
}

static void growth_budgets(void **state)
{
	static const char *const bad[] = { "", "1MB", "MB/h", "1MB/fortnight", "5XB/h", "-1MB/h",
					   "1MB/h,2%/h,3%/h", "%/h", "abc%/h", "1MB/h,", "1MB/0s",
					   /* no amount: read the character before the
					    * string until session 24 (fuzz_params) */
					   "/w", "/h", "1MB/h,/d",
					   /* beyond what formats back to accepted
					    * text: 2.4e8 %/h, an infinite rate */
					   "66268%/s", "1e308TB/s" };
	double bph = -1, rel = -1;
	struct mw_err err;
	char buf[64];
	size_t i;

	(void)state;
	assert_int_equal(mw_parse_growth_budget("1MB/h", &bph, &rel, &err), 0);
	assert_true(bph == 1048576.0 && rel == 0);
	assert_int_equal(mw_parse_growth_budget("24MB/d", &bph, &rel, &err), 0);
	assert_true(bph == 1048576.0);
	assert_int_equal(mw_parse_growth_budget("2%/h", &bph, &rel, &err), 0);
	assert_true(bph == 0 && rel == 0.02);
	assert_int_equal(mw_parse_growth_budget("64KB/h,2%/h", &bph, &rel, &err), 0);
	assert_true(bph == 65536.0 && rel == 0.02);
	assert_int_equal(mw_parse_growth_budget("0.5MB/30m", &bph, &rel, &err), 0);
	assert_true(bph == 1048576.0);
	mw_format_growth_budget(buf, sizeof(buf), 65536.0, 0.02);
	assert_string_equal(buf, "64KB/h,2%/h");
	mw_format_growth_budget(buf, sizeof(buf), 1048576.0, 0);
	assert_string_equal(buf, "1MB/h");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		if (mw_parse_growth_budget(bad[i], &bph, &rel, &err) == 0)
			fail_msg("'%s' was accepted", bad[i]);
		assert_true(err.msg[0] != '\0');
	}
}

static void shares(void **state)
{
	static const char *const bad[] = { "", "5", "0.25", "%", "abc%", "-1%", "101%", "5%%",
					   "5 %", "nan%" };
	double v = -1;
	struct mw_err err;
	char buf[32];
	size_t i;

	(void)state;
	assert_int_equal(mw_parse_share("5%", &v, &err), 0);
	assert_true(v == 0.05);
	assert_int_equal(mw_parse_share("0.25%", &v, &err), 0);
	assert_true(v == 0.0025);
	assert_int_equal(mw_parse_share("0", &v, &err), 0);
	assert_true(v == 0);
	assert_int_equal(mw_parse_share("100%", &v, &err), 0);
	assert_true(v == 1);
	mw_format_share(buf, sizeof(buf), 0.0025);
	assert_string_equal(buf, "0.25%");
	mw_format_share(buf, sizeof(buf), 0);
	assert_string_equal(buf, "0");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		if (mw_parse_share(bad[i], &v, &err) == 0)
			fail_msg("'%s' was accepted", bad[i]);
		assert_non_null(strstr(err.msg, "share of a core"));
	}
}

MW_TEST_MAIN(
	cmocka_unit_test(durations_parse),
	cmocka_unit_test(durations_reject),
	cmocka_unit_test(sizes_parse),
	cmocka_unit_test(formats_round_trip),
	cmocka_unit_test(growth_budgets),
	cmocka_unit_test(shares),
)
