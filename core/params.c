/* params.c - see params.h. */
#include "core/params.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/json_out.h"
#include "base/units.h"

int mw_param_check(const char *s, size_t n, size_t max, struct mw_err *err)
{
	if (n > max)
		return mw_error(err, "too long (%zu bytes, at most %zu)", n, max);
	if (memchr(s, '\0', n))
		return mw_error(err, "contains a NUL byte");
	if (mw_utf8_valid_prefix(s, n) != n)
		return mw_error(err, "is not valid UTF-8");
	return 0;
}

/* Parse digits at *p into *out; at most 18 of them so nothing overflows. */
static int digits(const char **p, int64_t *out)
{
	const char *s = *p;
	int64_t v = 0;
	int n = 0;

	while (isdigit((unsigned char)*s)) {
		if (++n > 18)
			return -1;
		v = v * 10 + (*s++ - '0');
	}
	if (!n)
		return -1;
	*p = s;
	*out = v;
	return 0;
}

int mw_param_duration(const char *s, int64_t *out, struct mw_err *err)
{
	int64_t v;

	/* The one rule of base/units.h: a unit is required. */
	if (mw_parse_duration_ms(s, &v, err))
		return -1;
	if (v <= 0)
		return mw_error(err, "must be positive");
	*out = v;
	return 0;
}

int mw_param_int(const char *s, int64_t min, int64_t max, int64_t *out, struct mw_err *err)
{
	const char *p = s;
	int neg = 0;
	int64_t v;

	if (*p == '-') {
		neg = 1;
		p++;
	}
	if (digits(&p, &v) || *p)
		return mw_error(err, "is not an integer");
	if (neg)
		v = -v;
	if (v < min || v > max)
		return mw_error(err, "must be between %lld and %lld",
				(long long)min, (long long)max);
	*out = v;
	return 0;
}

int64_t mw_days_from_civil(int64_t y, unsigned m, unsigned d)
{
	/* Howard Hinnant's days_from_civil algorithm. */
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* The UTC calendar date of ms since the epoch, and the ms into that day. */
static void civil_from_ms(int64_t ms, int64_t *year, unsigned *month, unsigned *day,
			  int64_t *rem_ms)
{
	int64_t z, days = ms >= 0 ? ms / 86400000 : -((-ms + 86399999) / 86400000);
	int64_t era, y;
	unsigned doe, yoe, doy, mp, d, m;

	*rem_ms = ms - days * 86400000;
	z = days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = (int64_t)yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = doy - (153 * mp + 2) / 5 + 1;
	m = mp < 10 ? mp + 3 : mp - 9;
	*year = y + (m <= 2);
	*month = m;
	*day = d;
}

size_t mw_fmt_time_utc(char *buf, int64_t ms)
{
	int64_t y, rem;
	unsigned m, d;

	civil_from_ms(ms, &y, &m, &d, &rem);
	return (size_t)snprintf(buf, 32, "%02u/%02u/%04lld %02u:%02u:%02u.%03u",
				m, d, (long long)y, (unsigned)(rem / 3600000),
				(unsigned)(rem / 60000 % 60), (unsigned)(rem / 1000 % 60),
				(unsigned)(rem % 1000));
}

size_t mw_fmt_time_human(char *buf, size_t size, int64_t ms)
{
	int64_t y, rem;
	unsigned m, d;
	int n;

	civil_from_ms(ms, &y, &m, &d, &rem);
	n = snprintf(buf, size, "%04lld-%02u-%02u %02u:%02u:%02u UTC", (long long)y, m, d,
		     (unsigned)(rem / 3600000), (unsigned)(rem / 60000 % 60),
		     (unsigned)(rem / 1000 % 60));
	return n < 0 ? 0 : (size_t)n;
}

/* Exactly n digits at *p. */
static int fixed(const char **p, int n, unsigned *out)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return -1;
		v = v * 10 + (unsigned)((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return 0;
}

static int rfc3339(const char *s, int64_t *out)
{
	static const unsigned mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	unsigned y, mo, d, h, mi, sec, oh, om, frac = 0;
	int64_t ms;
	const char *p = s;
	int fd = 0, sign;

	if (fixed(&p, 4, &y) || *p++ != '-' || fixed(&p, 2, &mo) || *p++ != '-' ||
	    fixed(&p, 2, &d))
		return -1;
	if (*p != 'T' && *p != 't' && *p != ' ')
		return -1;
	p++;
	if (fixed(&p, 2, &h) || *p++ != ':' || fixed(&p, 2, &mi) || *p++ != ':' ||
	    fixed(&p, 2, &sec))
		return -1;
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
		while (isdigit((unsigned char)*p)) {
			if (fd < 3)
				frac = frac * 10 + (unsigned)(*p - '0');
			fd++;
			p++;
		}
		for (; fd < 3; fd++)
			frac *= 10;
	}
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || sec > 60)
		return -1;
	if (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return -1;
	if (sec == 60)
		sec = 59;	/* leap second: clamp */
	ms = ((mw_days_from_civil(y, mo, d) * 24 + h) * 60 + mi) * 60000 + sec * 1000 + frac;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (!strcmp(p, " UTC")) {
		p += 4;	/* as mw_fmt_time_human prints it: a shown time pastes back */
	} else if (*p == '+' || *p == '-') {
		sign = *p++ == '-' ? -1 : 1;
		if (fixed(&p, 2, &oh) || *p++ != ':' || fixed(&p, 2, &om) || oh > 23 || om > 59)
			return -1;
		ms -= sign * (int64_t)(oh * 60 + om) * 60000;
	} else {
		return -1;
	}
	if (*p)
		return -1;
	*out = ms;
	return 0;
}

int mw_param_time(const char *s, int64_t now_ms, int64_t *out, struct mw_err *err)
{
	const char *p = s;
	int64_t v;
	int sign;

	if (!strncmp(p, "now", 3)) {
		p += 3;
		if (!*p) {
			*out = now_ms;
			return 0;
		}
	}
	if (*p == '-' || (*p == '+' && p != s)) {
		sign = *p == '-' ? -1 : 1;
		/* Bounded (~3,000 years) so now +- v cannot overflow. */
		if (!isdigit((unsigned char)p[1]) || mw_parse_duration_ms(p + 1, &v, NULL) ||
		    v > 100000000000000LL)
			goto bad;
		*out = now_ms + sign * v;
		return 0;
	}
	if (p != s)
		goto bad;
	if (isdigit((unsigned char)*p) && strlen(p) > 4 && p[4] == '-') {
		if (rfc3339(p, out))
			goto bad;
		return 0;
	}
	if (!digits(&p, &v) && !*p && v <= 100000000000000LL) {
		*out = v;
		return 0;
	}
bad:
	return mw_error(err, "is not a time (ms since the epoch, RFC 3339, "
			"YYYY-MM-DD HH:MM:SS UTC, now, -1h, now-15m)");
}
