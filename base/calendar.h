/*
 * calendar.h - UTC calendar arithmetic and the time formats, the one copy
 * (no timegm on Windows, no gmtime_r on MinGW: done here instead, the
 * same on every system and for every year, before 1970 too).
 *
 * Used by the parsers of dates (request times in core/params.c, typeperf
 * and relog stamps in import/), the log's stamps (log.c), the store's
 * aside names (storage/schema.c), the exports (storage/export.c) and every
 * time shown to people (mw_time_human: the commands, analysis/).
 * Proleptic Gregorian calendar, days counted from 1970-01-01 (Howard
 * Hinnant's civil-date algorithms).  Pure and thread-safe.
 */
#ifndef MW_BASE_CALENDAR_H
#define MW_BASE_CALENDAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MW_MS_PER_DAY 86400000LL

bool mw_leap_year(int64_t year);

/* Days in month (1..12) of year; 0 for a month out of range. */
unsigned mw_month_days(int64_t year, unsigned month);

/* Whether year-month-day names a day of the calendar. */
bool mw_date_valid(int64_t year, unsigned month, unsigned day);

/* Days since 1970-01-01 of a date (negative before it). */
int64_t mw_days_from_date(int64_t year, unsigned month, unsigned day);

/* A moment split into its UTC calendar fields. */
struct mw_utc {
	int64_t year;
	unsigned month, day;		/* 1..12, 1..31 */
	unsigned hour, min, sec, ms;	/* 0..23, 0..59, 0..59, 0..999 */
};

/* The UTC fields of ms since the epoch (negative: before 1970). */
void mw_utc_from_ms(int64_t ms, struct mw_utc *t);

/* Milliseconds since the epoch of the UTC fields (the inverse). */
int64_t mw_utc_to_ms(const struct mw_utc *t);

/* The formats.  Each writes into buf of size bytes (cut to fit, always
 * NUL-terminated when size > 0) and returns the length it needed, as
 * snprintf does.  MW_TIME_TEXT_MAX bytes hold any of them for any moment
 * within +-2^62 ms (146 million years; beyond that the arithmetic would
 * overflow). */
#define MW_TIME_TEXT_MAX 32

/* As times are shown to people everywhere (the page, the CLI, reasons):
 * "YYYY-MM-DD HH:MM:SS UTC", seconds truncated. */
size_t mw_time_human(char *buf, size_t size, int64_t ms);

/* As typeperf writes its stamps: "MM/DD/YYYY hh:mm:ss.mmm". */
size_t mw_time_typeperf(char *buf, size_t size, int64_t ms);

/* RFC 3339 with milliseconds: "YYYY-MM-DDTHH:MM:SS.mmmZ" (the log). */
size_t mw_time_rfc3339(char *buf, size_t size, int64_t ms);

/* Compact, for file names: "YYYYMMDDTHHMMSS". */
size_t mw_time_compact(char *buf, size_t size, int64_t ms);

#endif
