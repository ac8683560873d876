/* test_calendar.c - base/calendar.c, the one copy of the calendar: leap
 * years, dates to days and back (before 1970 too), and the time formats
 * (the one shown to people, typeperf's, the log's, file names'). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "base/calendar.h"
#include "tests/support/test_main.h"

static void leap_years_and_months(void **state)
{
	(void)state;
	assert_true(mw_leap_year(2024));
	assert_true(mw_leap_year(2000));
	assert_false(mw_leap_year(1900));
	assert_false(mw_leap_year(2025));
	assert_int_equal(mw_month_days(2024, 2), 29);
	assert_int_equal(mw_month_days(2100, 2), 28);
	assert_int_equal(mw_month_days(2025, 12), 31);
	assert_int_equal(mw_month_days(2025, 13), 0);
	assert_true(mw_date_valid(2000, 2, 29));
	assert_false(mw_date_valid(2025, 2, 29));
	assert_false(mw_date_valid(2025, 4, 31));
	assert_false(mw_date_valid(2025, 0, 1));
	assert_false(mw_date_valid(2025, 1, 0));
}

static void days_both_ways(void **state)
{
	struct mw_utc t;

	(void)state;
	assert_int_equal(mw_days_from_date(1970, 1, 1), 0);
	assert_int_equal(mw_days_from_date(1969, 12, 31), -1);
	assert_int_equal(mw_days_from_date(2000, 3, 1), 11017);
	assert_int_equal(mw_days_from_date(2024, 2, 29) * MW_MS_PER_DAY, 1709164800000LL);
	assert_int_equal(mw_days_from_date(1600, 1, 1), -135140);
	/* every day of four centuries round-trips, and days follow each other */
	for (int64_t d = mw_days_from_date(1800, 1, 1); d < mw_days_from_date(2200, 1, 1); d++) {
		mw_utc_from_ms(d * MW_MS_PER_DAY + 3723004, &t);
		assert_true(mw_date_valid(t.year, t.month, t.day));
		assert_int_equal(mw_days_from_date(t.year, t.month, t.day), d);
		assert_int_equal(t.hour * 10000 + t.min * 100 + t.sec, 10203);
		assert_int_equal(t.ms, 4);
		assert_int_equal(mw_utc_to_ms(&t), d * MW_MS_PER_DAY + 3723004);
	}
	/* the millisecond before the epoch is in 1969 */
	mw_utc_from_ms(-1, &t);
	assert_int_equal(t.year, 1969);
	assert_int_equal(t.month * 100 + t.day, 1231);
	assert_int_equal(t.hour * 10000 + t.min * 100 + t.sec, 235959);
	assert_int_equal(t.ms, 999);
}

static void human_format(void **state)
{
	static const struct {
		int64_t ms;
		const char *text;
	} shown[] = {
		{ 1763768400999LL, "2025-11-21 23:40:00 UTC" },	/* seconds truncated */
		{ 0, "1970-01-01 00:00:00 UTC" },
		{ 1709164800000LL + 86399000, "2024-02-29 23:59:59 UTC" },
		{ -1000, "1969-12-31 23:59:59 UTC" },
	};
	char buf[MW_TIME_TEXT_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(shown) / sizeof(shown[0]); i++) {
		assert_int_equal((int)mw_time_human(buf, sizeof(buf), shown[i].ms), 23);
		assert_string_equal(buf, shown[i].text);
	}
	/* cut to the buffer, with the length it needed */
	assert_int_equal((int)mw_time_human(buf, 11, shown[0].ms), 23);
	assert_string_equal(buf, "2025-11-21");
}

static void other_formats(void **state)
{
	char buf[MW_TIME_TEXT_MAX];

	(void)state;
	mw_time_typeperf(buf, sizeof(buf), 1763768400123);
	assert_string_equal(buf, "11/21/2025 23:40:00.123");
	mw_time_typeperf(buf, sizeof(buf), 0);
	assert_string_equal(buf, "01/01/1970 00:00:00.000");
	assert_int_equal((int)mw_time_typeperf(buf, sizeof(buf), 951782400000), 23);
	assert_string_equal(buf, "02/29/2000 00:00:00.000");
	mw_time_rfc3339(buf, sizeof(buf), 1763768400123);
	assert_string_equal(buf, "2025-11-21T23:40:00.123Z");
	mw_time_compact(buf, sizeof(buf), 1763768405999);
	assert_string_equal(buf, "20251121T234005");
	/* years of nine digits still fit */
	assert_true(mw_time_human(buf, sizeof(buf), INT64_MAX / 2) < sizeof(buf));
	assert_true(mw_time_typeperf(buf, sizeof(buf), INT64_MIN / 2) < sizeof(buf));
	assert_true(mw_time_rfc3339(buf, sizeof(buf), INT64_MIN / 2) < sizeof(buf));
}

MW_TEST_MAIN(
	cmocka_unit_test(leap_years_and_months),
	cmocka_unit_test(days_both_ways),
	cmocka_unit_test(human_format),
	cmocka_unit_test(other_formats),
)
