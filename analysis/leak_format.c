/*
 * leak_format.c - the numbers in a verdict's reason: sizes, counts and
 * durations in the short forms the reasons use ("rising 1.2 MiB/h",
 * "over 21 min", "360 handles").  The leak tests compare reasons exactly,
 * so these forms are part of the verdict's contract.
 *
 * Owner: the detector work.  Callers: analysis/leak*.c through
 * leak_internal.h.  Deterministic: no locale, no time zone (times are
 * written by base/calendar.h's mw_time_human).
 */
#include "leak_internal.h"

#include <math.h>
#include <stdio.h>

void mw_leak_fmt_bytes(char *buf, size_t len, double b)
{
	double a = fabs(b);
	const char *sign = b < 0 ? "-" : "";

	if (!isfinite(b))
		snprintf(buf, len, "?");
	else if (a >= 1024.0 * 1024.0 * 1024.0)
		snprintf(buf, len, "%s%.2f GiB", sign, a / (1024.0 * 1024.0 * 1024.0));
	else if (a >= 1024.0 * 1024.0)
		snprintf(buf, len, "%s%.1f MiB", sign, a / (1024.0 * 1024.0));
	else if (a >= 1024.0)
		snprintf(buf, len, "%s%.0f KiB", sign, a / 1024.0);
	else
		snprintf(buf, len, "%s%.0f B", sign, a);
}

void mw_leak_fmt_duration(char *buf, size_t len, double ms)
{
	long long min = ms > 0 ? (long long)(ms / MIN_MS + 0.5) : 0;

	if (min < 60)
		snprintf(buf, len, "%lld min", min);
	else if (min < 48 * 60)
		snprintf(buf, len, "%lldh %02lldm", min / 60, min % 60);
	else
		snprintf(buf, len, "%lldd %lldh", min / 1440, (min % 1440) / 60);
}

/* An amount of what the trace counts: bytes, or "360 handles". */
void mw_leak_fmt_amount(char *buf, size_t len, double v, const struct mw_leak_params *p)
{
	if (!p->count_unit)
		mw_leak_fmt_bytes(buf, len, v);
	else if (!isfinite(v))
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%.*f %s", fabs(v) < 10 && v != floor(v) ? 1 : 0, v, p->count_unit);
}
