/* calendar.c - see calendar.h. */
#include "calendar.h"

#include <stdio.h>

bool mw_leap_year(int64_t year)
{
	return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

unsigned mw_month_days(int64_t year, unsigned month)
{
	static const unsigned days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	if (month < 1 || month > 12)
		return 0;
	return days[month - 1] + (month == 2 && mw_leap_year(year));
}

bool mw_date_valid(int64_t year, unsigned month, unsigned day)
{
	return day >= 1 && day <= mw_month_days(year, month);
}

int64_t mw_days_from_date(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	/* The year starts in March, so the leap day comes last. */
	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

void mw_utc_from_ms(int64_t ms, struct mw_utc *t)
{
	/* floor division: -1 ms is the last millisecond of 1969-12-31 */
	int64_t days = ms >= 0 ? ms / MW_MS_PER_DAY : -((-ms + MW_MS_PER_DAY - 1) / MW_MS_PER_DAY);
	int64_t rem = ms - days * MW_MS_PER_DAY, z = days + 719468, era;
	unsigned doe, yoe, doy, mp;

	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	t->day = doy - (153 * mp + 2) / 5 + 1;
	t->month = mp < 10 ? mp + 3 : mp - 9;
	t->year = (int64_t)yoe + era * 400 + (t->month <= 2);
	t->hour = (unsigned)(rem / 3600000);
	t->min = (unsigned)(rem / 60000 % 60);
	t->sec = (unsigned)(rem / 1000 % 60);
	t->ms = (unsigned)(rem % 1000);
}

int64_t mw_utc_to_ms(const struct mw_utc *t)
{
	return mw_days_from_date(t->year, t->month, t->day) * MW_MS_PER_DAY +
	       ((int64_t)t->hour * 3600 + t->min * 60 + t->sec) * 1000 + t->ms;
}

/* snprintf's count as a size (0 on an encoding error, which cannot happen
 * with these formats). */
static size_t needed(int n)
{
	return n < 0 ? 0 : (size_t)n;
}

size_t mw_time_human(char *buf, size_t size, int64_t ms)
{
	struct mw_utc t;

	mw_utc_from_ms(ms, &t);
	return needed(snprintf(buf, size, "%04lld-%02u-%02u %02u:%02u:%02u UTC",
			       (long long)t.year, t.month, t.day, t.hour, t.min, t.sec));
}

size_t mw_time_typeperf(char *buf, size_t size, int64_t ms)
{
	struct mw_utc t;

	mw_utc_from_ms(ms, &t);
	return needed(snprintf(buf, size, "%02u/%02u/%04lld %02u:%02u:%02u.%03u", t.month,
			       t.day, (long long)t.year, t.hour, t.min, t.sec, t.ms));
}

size_t mw_time_rfc3339(char *buf, size_t size, int64_t ms)
{
	struct mw_utc t;

	mw_utc_from_ms(ms, &t);
	return needed(snprintf(buf, size, "%04lld-%02u-%02uT%02u:%02u:%02u.%03uZ",
			       (long long)t.year, t.month, t.day, t.hour, t.min, t.sec, t.ms));
}

size_t mw_time_compact(char *buf, size_t size, int64_t ms)
{
	struct mw_utc t;

	mw_utc_from_ms(ms, &t);
	return needed(snprintf(buf, size, "%04lld%02u%02uT%02u%02u%02u", (long long)t.year,
			       t.month, t.day, t.hour, t.min, t.sec));
}
