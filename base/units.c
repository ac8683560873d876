/* units.c - see units.h. */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unit {
	const char *suffix;
	double factor;
};

static const struct unit duration_units[] = {
	{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
	{ "d", 86400000.0 }, { "w", 604800000.0 }, { "y", 31536000000.0 },
};

static const struct unit size_units[] = {
	{ "B", 1 },
	{ "KB", 1024.0 }, { "MB", 1048576.0 }, { "GB", 1073741824.0 }, { "TB", 1099511627776.0 },
	{ "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 }, { "TiB", 1099511627776.0 },
	{ "K", 1024.0 }, { "M", 1048576.0 }, { "G", 1073741824.0 }, { "T", 1099511627776.0 },
};

/* Split "12.5ms" into 12.5 and "ms"; reject signs, blanks and junk. */
static int parse_number_unit(const char *text, double *num, const char **unit,
			     const char *what, struct mw_err *err)
{
	char *end;

	if (!text || !*text)
		return mw_error(err, "empty %s", what);
	if (!isdigit((unsigned char)text[0]))
		return mw_error(err, "'%s' is not a %s (expected e.g. %s)", text, what,
				strcmp(what, "size") ? "100ms, 1s, 5m, 2h" : "512MB, 2GB");
	errno = 0;
	*num = strtod(text, &end);
	if (errno || !isfinite(*num))
		return mw_error(err, "'%s' is out of range for a %s", text, what);
	*unit = end;
	return 0;
}

static int find_unit(const struct unit *units, size_t n, const char *suffix, double *factor)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(units[i].suffix, suffix)) {
			*factor = units[i].factor;
			return 0;
		}
	return -1;
}

int mw_parse_duration_ms(const char *text, int64_t *out_ms, struct mw_err *err)
{
	double num, factor, ms;
	const char *unit;

	if (text && !strcmp(text, "0")) {	/* zero in any unit */
		*out_ms = 0;
		return 0;
	}
	if (parse_number_unit(text, &num, &unit, "duration", err))
		return -1;
	if (!*unit)
		return mw_error(err, "'%s' needs a unit (ms, s, m, h, d, w)", text);
	if (find_unit(duration_units, MW_ARRAY_SIZE(duration_units), unit, &factor))
		return mw_error(err, "'%s' has an unknown duration unit '%s' (ms, s, m, h, d, w)",
				text, unit);
	ms = num * factor;
	if (ms > 9.2e18)
		return mw_error(err, "'%s' is too long a duration", text);
	if (ms != floor(ms))
		return mw_error(err, "'%s' is not a whole number of milliseconds", text);
	*out_ms = (int64_t)ms;
	return 0;
}

int mw_parse_size(const char *text, uint64_t *out_bytes, struct mw_err *err)
{
	double num, factor, bytes;
	const char *unit;

	if (parse_number_unit(text, &num, &unit, "size", err))
		return -1;
	if (!*unit)
		return mw_error(err, "'%s' needs a unit (B, KB, MB, GB, TB)", text);
	if (find_unit(size_units, MW_ARRAY_SIZE(size_units), unit, &factor))
		return mw_error(err, "'%s' has an unknown size unit '%s' (B, KB, MB, GB, TB)",
				text, unit);
	bytes = num * factor;
	if (bytes >= 1.8e19)
		return mw_error(err, "'%s' is too large a size", text);
	if (bytes != floor(bytes))
		return mw_error(err, "'%s' is not a whole number of bytes", text);
	*out_bytes = (uint64_t)bytes;
	return 0;
}

/* sign and v in the largest of order's units (largest first) that holds
 * it a whole number of times, else in base_suffix: "2h", "1500ms". */
static void format_whole(char *buf, size_t size, const char *sign, uint64_t v,
			 const struct unit *order, size_t n, const char *base_suffix)
{
	size_t i;

	for (i = 0; i < n; i++) {
		uint64_t f = (uint64_t)order[i].factor;
		if (v && v % f == 0) {
			snprintf(buf, size, "%s%" PRIu64 "%s", sign, v / f, order[i].suffix);
			return;
		}
	}
	snprintf(buf, size, "%s%" PRIu64 "%s", sign, v, base_suffix);
}

void mw_format_duration(char *buf, size_t size, int64_t ms)
{
	static const struct unit order[] = {
		{ "w", 604800000.0 }, { "d", 86400000.0 }, { "h", 3600000 },
		{ "m", 60000 }, { "s", 1000 },
	};

	format_whole(buf, size, ms < 0 ? "-" : "", ms < 0 ? -(uint64_t)ms : (uint64_t)ms, order,
		     MW_ARRAY_SIZE(order), "ms");
}

void mw_format_size(char *buf, size_t size, uint64_t bytes)
{
	static const struct unit order[] = {
		{ "TB", 1099511627776.0 }, { "GB", 1073741824.0 }, { "MB", 1048576.0 }, { "KB", 1024.0 },
	};

	format_whole(buf, size, "", bytes, order, MW_ARRAY_SIZE(order), "B");
}

int mw_parse_share(const char *text, double *out, struct mw_err *err)
{
	char *end;
	double v = strtod(text, &end);

	if (end == text || (*end && strcmp(end, "%")) || !(v >= 0 && v <= 100) ||
	    (*end != '%' && v != 0))
		return mw_error(err, "'%s' is not a share of a core (expected e.g. 5%%, or 0)", text);
	*out = v / 100.0;
	return 0;
}

void mw_format_share(char *buf, size_t size, double share)
{
	if (share == 0)
		snprintf(buf, size, "0");
	else
		snprintf(buf, size, "%g%%", share * 100.0);
}

/* One rate of a budget: "<size>/<period>" or "<percent>%/<period>". */
static int parse_one_rate(const char *text, size_t len, double *bph, double *rel,
			  struct mw_err *err)
{
	char buf[64], *slash, *end;
	double per_h, num;
	int64_t period_ms;

	if (len == 0 || len >= sizeof(buf))
		return mw_error(err, "'%.*s' is not a growth rate (expected e.g. 1MB/h or 2%%/h)",
				(int)len, text);
	memcpy(buf, text, len);
	buf[len] = '\0';
	slash = strchr(buf, '/');
	if (!slash)
		return mw_error(err, "'%s' needs a period (e.g. 1MB/h, 2%%/h, 10MB/d)", buf);
	*slash = '\0';
	/* "/h" is one hour; "/30m" is accepted too. */
	if (isdigit((unsigned char)slash[1])) {
		if (mw_parse_duration_ms(slash + 1, &period_ms, err))
			return -1;
	} else {
		char one[16];
		snprintf(one, sizeof(one), "1%s", slash + 1);
		if (mw_parse_duration_ms(one, &period_ms, NULL))
			return mw_error(err, "'%s/%s' has an unknown period '%s' (s, m, h, d, w)",
					buf, slash + 1, slash + 1);
	}
	if (period_ms <= 0)
		return mw_error(err, "'%s/%s' has an empty period", buf, slash + 1);
	/* "/h" alone: no amount (and no last character to look at below) */
	if (!buf[0])
		return mw_error(err, "'/%s' has no amount before the period (e.g. 1MB/h, 2%%/h)",
				slash + 1);
	per_h = 3600000.0 / (double)period_ms;
	if (buf[strlen(buf) - 1] == '%') {
		buf[strlen(buf) - 1] = '\0';
		if (!isdigit((unsigned char)buf[0]))
			return mw_error(err, "'%s%%' is not a percentage", buf);
		errno = 0;
		num = strtod(buf, &end);
		/* at most a million % an hour, after the period: what is
		 * accepted formats back ("%.10g%%/h") to text accepted again */
		if (errno || *end || !isfinite(num) || num / 100.0 * per_h > 1e4)
			return mw_error(err, "'%s%%' is not a percentage of at most 1000000%%/h", buf);
		*rel = num / 100.0 * per_h;
		return 0;
	}
	{
		double dnum, factor;
		const char *unit;

		/* Sizes may be fractional here ("0.5MB/h"). */
		if (parse_number_unit(buf, &dnum, &unit, "size", err))
			return -1;
		if (!*unit)
			return mw_error(err, "'%s' needs a unit (B, KB, MB, GB)", buf);
		if (find_unit(size_units, MW_ARRAY_SIZE(size_units), unit, &factor))
			return mw_error(err, "'%s' has an unknown size unit '%s' (B, KB, MB, GB, TB)",
					buf, unit);
		if (!isfinite(dnum * factor * per_h))
			return mw_error(err, "'%s/%s' is out of range for a growth rate", buf,
					slash + 1);
		*bph = dnum * factor * per_h;
	}
	return 0;
}

int mw_parse_growth_budget(const char *text, double *bytes_per_hour,
			   double *rel_per_hour, struct mw_err *err)
{
	double bph = 0, rel = 0;
	const char *p = text, *comma;
	int n = 0;

	if (!text || !*text)
		return mw_error(err, "empty growth budget (expected e.g. 1MB/h or 2%%/h)");
	for (;;) {
		comma = strchr(p, ',');
		if (++n > 2)
			return mw_error(err, "'%s': at most one absolute and one relative rate", text);
		if (parse_one_rate(p, comma ? (size_t)(comma - p) : strlen(p), &bph, &rel, err))
			return -1;
		if (!comma)
			break;
		p = comma + 1;
	}
	*bytes_per_hour = bph;
	*rel_per_hour = rel;
	return 0;
}

void mw_format_growth_budget(char *buf, size_t size, double bytes_per_hour,
			     double rel_per_hour)
{
	static const char *const units[] = { "B", "KB", "MB", "GB", "TB" };
	double v = bytes_per_hour;
	size_t u = 0;
	int n;

	while (v >= 1024 && u + 1 < MW_ARRAY_SIZE(units) && fmod(v, 1024) == 0) {
		v /= 1024;
		u++;
	}
	n = snprintf(buf, size, "%.10g%s/h", v, units[u]);
	if (rel_per_hour > 0 && n > 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, ",%.10g%%/h", rel_per_hour * 100);
}
