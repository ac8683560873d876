/*
 * params.h - parsing and validating query-string and command-line values
 * (times, durations, integers), shared by web/ and the commands.
 *
 * Pure functions (no MHD), so tests drive them directly.  Each returns 0
 * on success and -1 on bad input after writing a short reason into err
 * (the caller prefixes the parameter's name).  Thread-safe.
 */
#ifndef MW_CORE_PARAMS_H
#define MW_CORE_PARAMS_H

#include <stdint.h>
#include "base/mwerr.h"

/* A time: milliseconds since the epoch ("1700000000000"), RFC 3339
 * ("2026-11-21T23:40:00Z", fractional seconds and +hh:mm offsets too),
 * or relative to now_ms: "now", "-1h", "now-15m" (a duration as
 * base/units.h reads it). */
int mw_param_time(const char *s, int64_t now_ms, int64_t *out, struct mw_err *err);

/* A positive duration, by the one rule of base/units.h (mw_parse_duration_ms):
 * "500ms", "10s", "5m", "1h", "1d", "1w"; a number needs its unit. */
int mw_param_duration(const char *s, int64_t *out, struct mw_err *err);

/* A decimal integer within [min, max]. */
int mw_param_int(const char *s, int64_t min, int64_t max, int64_t *out, struct mw_err *err);

/* Check a raw value of n bytes: no NUL byte, valid UTF-8, at most max
 * bytes.  -1 with the reason otherwise. */
int mw_param_check(const char *s, size_t n, size_t max, struct mw_err *err);

#endif
