/*
 * floor_rate.h - the growth rate of a series' floors (per-bucket minima),
 * as the processes view shows it: the Theil-Sen slope of the leak
 * statistics (leak.h), so a rate in the table and a leak verdict measure
 * growth the same robust way.
 *
 * Threads: any (pure).  Used by web/handlers_data.c, which hands it to
 * storage's processes view (storage/processes.h, mw_floor_rate_fn).
 */
#ifndef MW_FLOOR_RATE_H
#define MW_FLOOR_RATE_H

#include <stddef.h>

/* Fewer floors than this give no rate. */
#define MW_FLOOR_RATE_MIN 5

/* Bytes per hour of the floors (t_ms[i], v[i]), i < n; NaN with fewer
 * than MW_FLOOR_RATE_MIN floors or when no slope can be fitted. */
double mw_floor_rate(const double *t_ms, const double *v, size_t n);

#endif
