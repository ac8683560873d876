/*
 * leak_hole.c - whether a bucket of a trace lies in a hole of the time
 * axis left by a step of the wall clock (mw_leak_params.holes): used by
 * leak.c (the judged span, missing data) and leak_onset.c (the change
 * point on the process's own time).  Its own file so that neither calls
 * the other for it.
 */
#include <math.h>

#include "leak_internal.h"

/* Bucket i is empty because the wall clock was stepped forward over it
 * (p->holes): no time passed there for the process, so it is no missing
 * data and no part of the judged span. */
bool mw_leak_in_hole(const struct mw_trace *tr, size_t i, const struct mw_leak_params *p)
{
	int64_t t = tr->t0_ms + (int64_t)i * tr->step_ms;
	size_t h;

	if (!isnan(tr->v[i]))
		return false;
	for (h = 0; h < p->nholes; h++)	/* the bucket [t, t + step) overlaps it */
		if (t < p->holes[h].to_ms && t + tr->step_ms > p->holes[h].from_ms)
			return true;
	return false;
}
