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

/* How much of [from_ms, to_ms] the holes cover (they do not overlap: each
 * step leaves its own). */
static int64_t covered(const struct mw_time_hole *h, size_t n, int64_t from_ms, int64_t to_ms)
{
	int64_t sum = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		int64_t a = h[i].from_ms > from_ms ? h[i].from_ms : from_ms;
		int64_t b = h[i].to_ms < to_ms ? h[i].to_ms : to_ms;

		if (b > a)
			sum += b - a;
	}
	return sum;
}

int64_t mw_leak_window_from(struct mw_reader *r, int64_t to_ms, int64_t window_ms)
{
	struct mw_time_hole holes[MW_LEAK_MAX_HOLES];
	int64_t from, wider = to_ms - window_ms;
	int i;

	if (window_ms <= 0 || to_ms < INT64_MIN / 2 + window_ms)
		return to_ms;
	/* each pass takes in the holes of the part it added */
	for (i = 0; i < 4; i++) {
		size_t n;

		from = wider;
		n = mw_leak_read_holes(r, from, to_ms, holes, MW_LEAK_MAX_HOLES);
		wider = to_ms - window_ms - covered(holes, n, from, to_ms);
		if (wider >= from)
			break;
	}
	return wider < from ? wider : from;
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
