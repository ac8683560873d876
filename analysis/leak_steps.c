/*
 * leak_steps.c - holes in the time axis from the stored steps of the wall
 * clock (leak_steps.h).
 */
#include "leak_steps.h"

#include <math.h>
#include <string.h>

#include "core/metric_catalog.h"
#include "storage/query.h"

struct mw_time_hole mw_leak_hole_of_step(int64_t noticed_ms, double step_s)
{
	int64_t step_ms = (int64_t)llround(step_s * 1000.0);
	struct mw_time_hole h = { noticed_ms - step_ms - 1000, noticed_ms + 1000 };

	return h;
}

size_t mw_leak_read_holes(struct mw_reader *r, int64_t from_ms, int64_t to_ms,
			  struct mw_time_hole *out, size_t max)
{
	struct mw_series_list list;
	struct mw_raw_iter *it;
	struct mw_err err;
	int64_t ts;
	double v;
	size_t n = 0;

	memset(&list, 0, sizeof(list));
	if (!max || mw_reader_find(r, mw_metric_name(MW_M_CLOCK_STEP_SECONDS), &list, &err) ||
	    list.n != 1) {
		mw_series_list_release(&list);
		return 0;
	}
	/* a step noticed after to_ms can have left a hole before it */
	if (mw_raw_iter_open(&it, r, list.items[0].id, from_ms,
			     to_ms > INT64_MAX / 2 ? INT64_MAX : to_ms + 365LL * 86400000, &err) == 0) {
		while (mw_raw_iter_next(it, &ts, &v, &err) == 1) {
			if (!(v > 0) || !isfinite(v) || v > 100.0 * 365 * 86400)
				continue;	/* back, or nonsense */
			if (n == max) {	/* keep the newest */
				memmove(out, out + 1, (max - 1) * sizeof(*out));
				n--;
			}
			out[n++] = mw_leak_hole_of_step(ts, v);
		}
		mw_raw_iter_free(it);
	}
	mw_series_list_release(&list);
	return n;
}
