/*
 * units.h - durations and sizes as users write them.
 *
 * Durations: an integer (or decimal) followed by ms, s, m, h, d, w or y:
 * "100ms", "1s", "5m", "2h", "7d", "1.5s"; a bare "0" is zero.  Sizes: an
 * integer followed by B, KB, MB, GB, TB (powers of 1024; KiB, MiB, GiB, TiB
 * are accepted as synonyms): "512MB", "2GB".  Any other number without a
 * unit is an error, because "interval = 1" could mean a second or a
 * millisecond and "window=300" a second to a Prometheus user.
 *
 * This is the one duration parser: config options, collector options,
 * every HTTP parameter (core/params.c) and every command-line flag use it.
 */
#ifndef MW_BASE_UNITS_H
#define MW_BASE_UNITS_H

#include <stdint.h>
#include <stddef.h>
#include "mwerr.h"

/* Parse a duration into milliseconds (>= 0).  -1 and an error on bad input. */
int mw_parse_duration_ms(const char *text, int64_t *out_ms, struct mw_err *err);
/* Parse a size into bytes.  -1 and an error on bad input. */
int mw_parse_size(const char *text, uint64_t *out_bytes, struct mw_err *err);
/* A growth budget: one or two comma-separated rates, absolute
 * ("1MB/h", "64KB/h", "10MB/d") and/or relative to the current size
 * ("2%/h", "5%/d"): "1MB/h,2%/h".  A rate not given is 0 (no budget of
 * that kind).  -1 and an error naming the text on bad input. */
int mw_parse_growth_budget(const char *text, double *bytes_per_hour,
			   double *rel_per_hour, struct mw_err *err);
/* Format a budget back ("64KB/h", "64KB/h,2%/h", "0B/h"). */
void mw_format_growth_budget(char *buf, size_t size, double bytes_per_hour,
			     double rel_per_hour);

/* A share of one core: "5%", "0.25%", or "0" (none); into [0, 1].  -1
 * and an error naming the text on bad input. */
int mw_parse_share(const char *text, double *out, struct mw_err *err);
/* Format a share back ("0.25%", "0"). */
void mw_format_share(char *buf, size_t size, double share);

/* Format ms back in the largest exact unit ("90s" -> "90s", 60000 -> "1m"). */
void mw_format_duration(char *buf, size_t size, int64_t ms);
/* Format bytes in the largest exact unit ("512MB"). */
void mw_format_size(char *buf, size_t size, uint64_t bytes);

#endif
