/*
 * units.h - durations and sizes as users write them.
 *
 * Durations: an integer (or decimal) followed by ms, s, m, h, d or w:
 * "100ms", "1s", "5m", "2h", "7d", "1.5s".  Sizes: an integer followed by
 * B, KB, MB, GB, TB (powers of 1024; KiB, MiB, GiB, TiB are accepted as
 * synonyms): "512MB", "2GB".  A number without a unit is an error, because
 * "interval = 1" could mean a second or a millisecond.
 */
#ifndef MW_UNITS_H
#define MW_UNITS_H

#include <stdint.h>
#include <stddef.h>
#include "mwerr.h"

/* Parse a duration into milliseconds (>= 0).  -1 and an error on bad input. */
int mw_parse_duration_ms(const char *text, int64_t *out_ms, struct mw_err *err);
/* Parse a size into bytes.  -1 and an error on bad input. */
int mw_parse_size(const char *text, uint64_t *out_bytes, struct mw_err *err);
/* Format ms back in the largest exact unit ("90s" -> "90s", 60000 -> "1m"). */
void mw_format_duration(char *buf, size_t size, int64_t ms);
/* Format bytes in the largest exact unit ("512MB"). */
void mw_format_size(char *buf, size_t size, uint64_t bytes);

#endif
