/* params.c - see params.h. */
#include "core/params.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "base/units.h"
#include "base/calendar.h"
#include "base/utf8.h"

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
	if (!mw_date_valid(y, mo, d) || h > 23 || mi > 59 || sec > 60)
		return -1;
	if (sec == 60)
		sec = 59;	/* leap second: clamp */
	ms = ((mw_days_from_date(y, mo, d) * 24 + h) * 60 + mi) * 60000 + sec * 1000 + frac;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (!strcmp(p, " UTC")) {
		p += 4;	/* as mw_time_human prints it: a shown time pastes back */
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
