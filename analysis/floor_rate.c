/*
 * floor_rate.c - the growth rate of a series' floors (floor_rate.h).
 *
 * Uses leak.c's Theil-Sen slope.  Used by web/handlers_data.c (through
 * storage's processes view).
 */
#include <math.h>

#include "floor_rate.h"
#include "leak.h"

double mw_floor_rate(const double *t_ms, const double *v, size_t n)
{
	double slope, lo, hi;

	if (n < MW_FLOOR_RATE_MIN || mw_theil_sen(t_ms, v, n, (double)n, &slope, &lo, &hi))
		return NAN;
	return slope * 3600000.0;
}
