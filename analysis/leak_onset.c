/*
 * leak_onset.c - since when a failing trace grows, and the words of its
 * fail: the change point where the floors start to climb, searched over
 * the whole trace (warm-up included), the growth since then, and the
 * reason "rising 1.2 MiB/h since 2026-11-25 22:55:07 UTC, steady to the
 * end (...)".
 *
 * Owner: the detector work.  Caller: leak.c (mw_leak_judge, once a trace
 * fails).  Pure, like the rest of the verdict: the time is formatted by
 * core/params.h, in UTC.
 */
#include "base/calendar.h"
#include "leak_internal.h"
#include "robust_stats.h"
#include "core/params.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fail's reason, once the onset is known: none (INT64_MIN) says the
 * judged span instead (p->onset_unknown). */
static void fail_reason(struct mw_leak_result *out, const struct mw_leak_params *p, int saw,
			double budget)
{
	char s1[32], s2[112], s3[32], s4[32], d[32];

	mw_leak_fmt_amount(s1, sizeof(s1), out->slope_bph, p);
	mw_leak_fmt_amount(s3, sizeof(s3), budget, p);
	mw_leak_fmt_amount(s4, sizeof(s4), out->growth_bytes, p);
	if (out->onset_ms == INT64_MIN) {
		mw_leak_fmt_duration(d, sizeof(d), (double)(out->last_ms - out->judged_from_ms));
		snprintf(s2, sizeof(s2), "over the %s judged", d);
	} else if (out->onset_before_data) {
		char ran[32];

		mw_time_human(d, sizeof(d), out->onset_ms);
		mw_leak_fmt_duration(ran, sizeof(ran), (double)(out->first_ms - p->process_start_ms));
		snprintf(s2, sizeof(s2), "since before %s (its first data, %s after the process started)",
			 d, ran);
	} else {
		mw_time_human(d, sizeof(d), out->onset_ms);
		snprintf(s2, sizeof(s2), "since %s%s", out->onset_at_start ? "the start, " : "", d);
	}
	snprintf(out->reason, sizeof(out->reason), "rising %s/h %s, steady to the end (+%s, budget %s/h)%s",
		 s1, s2, s4, s3,
		 saw == 2 ? ", floors after releases" : saw ? ", sawtooth floors" : "");
}

/*
 * The change point where the floors start to climb, over the whole trace
 * including the warm-up (the warm-up is not judged, but growth that
 * starts in it or right after it is dated where it starts, not at the end
 * of the warm-up): a hinge (flat, then a line) by least squares on
 * winsorized block medians, kept when the part before it ends flat (the
 * Theil-Sen slope of its last half under MW_ONSET_FLAT_SHARE of the part
 * after's).  x is ms since the first point; returns the onset's x, or 0
 * with *at_start when the floors climbed from the start.
 */
static double change_point(const double *x, const double *y, size_t n, int *at_start)
{
	struct mw_leak_work w;
	size_t m, kmax, k;
	double sse, onset = 0.0;
	struct mw_ts_fit pre, post;

	*at_start = 1;
	if (n < 16)
		return 0.0;
	if (mw_leak_work_alloc(&w, n) < 0) {
		mw_leak_work_free(&w);
		return 0.0;
	}
	memcpy(w.x, x, n * sizeof(*x));
	memcpy(w.y, y, n * sizeof(*y));
	m = mw_block_medians(w.x, w.y, n, MW_LEAK_MAX_POINTS, w.a, w.rx, w.ry);
	mw_winsorize(w.ry, m, w.c, w.a);
	kmax = m - (m / 10 > 8 ? m / 10 : 8);
	if (m >= 16 && kmax >= 4) {
		k = mw_hinge_search(w.rx, w.c, m, kmax, w.b, &sse);
		if (k >= 8) {
			/* flat over the last half before it: a start-up ramp in
			 * the first minutes (a jemalloc service's floors, +2
			 * MiB over its first 6-8 minutes) does not lead into
			 * the leak, and judged over the whole stretch it made
			 * a leak starting at 12 minutes look under way from
			 * the start (lk_je, -11.9 min) */
			mw_ts_fit(w.rx + k / 2, w.c + k / 2, k - k / 2 + 1, 1.0, MW_TS_SLOPE_ONLY,
				  w.pairs, &pre);
			mw_ts_fit(w.rx + k, w.c + k, m - k, 1.0, MW_TS_SLOPE_ONLY, w.pairs, &post);
			/* a hinge in the first tenth is start-up, not an onset:
			 * "since the start" */
			if (pre.ok && post.ok && post.slope > 0 && pre.slope < MW_ONSET_FLAT_SHARE * post.slope &&
			    w.rx[k] - w.rx[0] >= 0.1 * (w.rx[m - 1] - w.rx[0])) {
				*at_start = 0;
				onset = w.rx[k];
			}
		}
	}
	mw_leak_work_free(&w);
	return onset;
}

/* The stretch before x_on ends flat: the Theil-Sen slope of the points
 * in its last half (eight at least) under MW_ONSET_FLAT_SHARE of slope
 * (per ms), as change_point asks of its own break, and so is its rise
 * from its first points to its last (window medians, an eighth of the
 * points, three at least).  Theil-Sen over a stretch holding one step
 * is about flat (most pairs lie on one level): a leak under way from the
 * start in small steps (the Wine set's lk_winslow.exe, 1 MiB/h showing
 * as Wine's heap commits 0.1-0.4 MiB at a time) was dated from a flat
 * tread 16 minutes in. */
static int ends_flat_before(const double *x, const double *y, size_t n, double x_on, double slope)
{
	struct mw_leak_work w;
	struct mw_ts_fit fit;
	size_t i, k = 0, m, e;
	int flat = 0;

	if (mw_leak_work_alloc(&w, n) < 0) {
		mw_leak_work_free(&w);
		return 0;
	}
	for (i = 0; i < n && x[i] <= x_on; i++)
		if (x[i] >= x_on / 2) {
			w.x[k] = x[i];
			w.y[k] = y[i];
			k++;
		}
	if (k >= 8) {
		m = mw_block_medians(w.x, w.y, k, MW_LEAK_MAX_POINTS, w.a, w.rx, w.ry);
		mw_ts_fit(w.rx, w.ry, m, 1.0, MW_TS_SLOPE_ONLY, w.pairs, &fit);
		flat = fit.ok && fit.slope < MW_ONSET_FLAT_SHARE * slope;
		e = m / 8 < 3 ? 3 : m / 8;
		if (flat && m >= 2 * e) {
			double rise = mw_window_median(w.ry, m - e, e, w.a) -
				      mw_window_median(w.ry, 0, e, w.a);

			flat = rise < MW_ONSET_FLAT_SHARE * slope * (w.rx[m - 1] - w.rx[0]);
		}
	}
	mw_leak_work_free(&w);
	return flat;
}

/* A failing trace's onset from its change point over every point from
 * the first (warm-up included), its growth since then, and its reason.
 * The change point is searched on the process's own time: the holes a
 * step of the wall clock forward left (p->holes) are closed, as the
 * judgement closes them - on the wall clock a leak under way across a
 * step looks flat over the hole and is dated after it - and the onset is
 * then put back on the wall clock, after the holes before it. */
void mw_leak_date_onset(const struct mw_trace *tr, size_t first, size_t last,
		       const struct mw_leak_params *p, struct mw_leak_result *out, int saw,
		       double budget)
{
	size_t i, k, n = 0, holes = 0;
	double *x, *y;
	size_t *at;
	double on = 0.0, lived = (double)(out->last_ms - out->first_ms);
	int at_start = 1;
	/* the judged span's own change point (leak.c find_onset), if any */
	int64_t judged_onset = out->onset_ms != INT64_MIN ? out->fit_t0_ms : INT64_MIN;

	if (p->onset_unknown) {
		/* the fit of the whole judged span, no date */
		out->onset_ms = INT64_MIN;
		out->onset_at_start = 0;
		out->growth_bytes =
			out->slope_bph * (double)(out->last_ms - out->judged_from_ms) / HOUR_MS;
		fail_reason(out, p, saw, budget);
		return;
	}
	x = malloc((last - first + 1) * sizeof(*x));
	y = malloc((last - first + 1) * sizeof(*y));
	at = malloc((last - first + 1) * sizeof(*at));
	out->onset_ms = out->first_ms;
	if (x && y && at) {
		for (i = first; i <= last; i++)
			if (p->nholes && mw_leak_in_hole(tr, i, p)) {
				holes++;
			} else if (mw_leak_valid_value(tr->v[i])) {
				x[n] = (double)(i - first - holes) * (double)tr->step_ms;
				y[n] = tr->v[i];
				at[n] = i;
				n++;
			}
		on = change_point(x, y, n, &at_start);
		if (!at_start) {
			/* the holes before the first point at or after it */
			for (k = 0; k + 1 < n && x[k] < on; k++)
				;
			out->onset_ms = out->first_ms + (int64_t)on +
					((int64_t)(at[k] - first) * tr->step_ms - (int64_t)x[k]);
		}
		if (n > 0)
			lived = x[n - 1];
		if (at_start && judged_onset != INT64_MIN && judged_onset > out->first_ms &&
		    ends_flat_before(x, y, n, (double)(judged_onset - out->first_ms),
				     out->slope_bph / HOUR_MS)) {
			/* No change point over the whole trace, but the judged
			 * span has one, and the trace is flat before it: a
			 * start-up ramp before a flat stretch makes one line fit
			 * the whole trace better than any flat-then-rising hinge
			 * (vk_fraglate: +2.2 MiB in its first 5 minutes, flat
			 * until its leak at 14, was dated from the start, -14.0
			 * min).  A leak under way from the start is not flat
			 * there and keeps "since the start". */
			at_start = 0;
			out->onset_ms = judged_onset;
			on = (double)(judged_onset - out->first_ms);
		}
	}
	free(x);
	free(y);
	free(at);
	out->onset_at_start = at_start;
	/* under way from the first point of a process that ran before it:
	 * the data cannot say since when, only that it was before */
	out->onset_before_data = at_start &&
				 mw_leak_seen_late(p->process_start_ms, out->first_ms, tr->step_ms);
	out->growth_bytes = out->slope_bph * (lived - (at_start ? 0.0 : on)) / HOUR_MS;
	fail_reason(out, p, saw, budget);
}
