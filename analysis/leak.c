/*
 * leak.c - the verdict of one trace of per-bucket floors (mw_leak_judge,
 * see leak.h): is there enough data after the warm-up, then the rules a
 * leak must pass, each a step below.  The statistics are robust_stats.c's;
 * the onset and words of a fail, leak_onset.c's; groups of incarnations,
 * leak_group.c's.
 *
 * Owner: the detector work (analysis/leak*.c, analysis/leak.h and their
 * tests).  Pure: libc, libm, no globals with state, allocation bounded by
 * the input size, deterministic (no clock, no locale, no time zone).
 *
 * Why the steps are what they are:
 *   - floors, not raw samples: a floor ignores short spikes and the upper
 *     part of a GC sawtooth;
 *   - a deep sawtooth (many drops far beyond the noise of the first
 *     differences) is reduced to one floor per cycle, starting at a
 *     release, as questdb's soak oracle does: within a cycle the floors
 *     still ramp, and that ramp is not growth;
 *   - beyond MAX_POINTS the series is reduced to block medians: Theil-Sen
 *     stays exact on the reduced points, the cost stays O(MAX_POINTS^2),
 *     and block medians are themselves robust;
 *   - Theil-Sen, not least squares: its breakdown point (~29 %) survives
 *     outliers and partial releases;
 *   - Mann-Kendall's variance and Sen's interval are inflated by an
 *     effective-sample-size factor estimated from the autocorrelation of
 *     the residual ranks (Hamed-Rao/Yue-Wang idea), with Geyer's initial
 *     positive sequence so a slow wander or a daily cycle is not summed
 *     away; the residuals are those of the best of four small models
 *     (line, hinge, rise-then-flat, quadratic) so a genuine curved trend is not taken for
 *     autocorrelation, while a random wander that none of them can follow
 *     keeps its large factor;
 *   - a tail check (Coroot): the last third must still climb at a good
 *     share of the slope and significantly, which a warm-up plateau, a
 *     single step that stays or a filled cache do not;
 *   - onset: a hinge (flat, then linear) fitted by least squares on
 *     winsorized points; kept only when the part before it is flat;
 *   - budget last: significance says "it grows", the budget says "it
 *     grows enough to matter";
 *   - no trend is a pass only when a trend could have been seen: points
 *     that scatter from one to the next so much that a growth of a tenth
 *     of the process an hour stays below the test's threshold (a Node
 *     process under a GC sawtooth a gigabyte deep) are inconclusive, with
 *     the growth that cannot be seen yet;
 *   - the time axis closes over the holes steps of the wall clock forward
 *     left (no time passed there for the process), and what is dated on
 *     it (onset, fit) is put back on the wall clock after them.
 */
#include "leak_internal.h"
#include "robust_stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Trend must be this significant (two-sided p < 0.001): the corpus has
 * strongly autocorrelated not-leaks whose factor is only estimated. */
#define TREND_Z 3.29
/* Below the trend test's bar but rising at p < 0.01 (z > 2.576) with Sen's
 * upper bound at the smallest leak the defaults must fail (settled_rate)
 * or more: not a pass, the next minutes decide.  A Python leak of 4 MiB/h
 * under a churn of temporary objects read p 0.0027 at 32 minutes, and
 * passed. */
#define HINT_Z 2.576
/* A pass must bound the rate under a settled rate at this one-sided 95 %
 * (unbounded_without_trend, upper_bound_from). */
#define ONE_SIDED_Z95 1.6448536269514722
/* The tail must climb at least this share of the slope, and its own
 * interval (at TAIL_Z) must stay above zero. */
#define TAIL_RATIO 0.5
#define TAIL_Z 2.33
#define TAIL_FRAC (1.0 / 3.0)
#define TAIL_MIN_MS (30 * 60000.0)
/* One step up that stays is a one-time load once it has held this long;
 * before, it may be the first of a staircase (rises_in_steps). */
#define ONE_STEP_HOLD_MS (30 * 60000.0)
/* A rise that has stopped for this long, its points since within this
 * share of the rise, is no fail "steady to the end" (held_after_rise):
 * longer than the quiet between a bursty leak's bursts (6-9 minutes in
 * the corpus). */
#define HELD_MIN_MS (12 * 60000.0)
#define HELD_FLAT_SHARE 0.1
/* Shorter than HELD_MIN_MS or than the rise took, a flat at least twice
 * as long as the longest quiet during the rise (longest_quiet), whose last
 * PAUSE_MIN_MS (at least PAUSE_MIN_POINTS points, not sawtooth floors)
 * moved by under PAUSE_SHARE of what the fitted rate would have added
 * over them, is no fail "steady to the end" either, only inconclusive: a
 * Go cache that filled for 14 minutes to its cap (the Go set's first
 * recording, ok_gocache) failed at 34 minutes, 10 minutes flat at 162
 * MiB/h.  Still longer than a bursty leak's quiet in the corpus (6-9
 * minutes). */
#define PAUSE_MIN_MS (10 * 60000.0)
#define PAUSE_SHARE 0.05
#define PAUSE_MIN_POINTS 8
/* A sawtooth needs this many deep drops (beyond SAW_DROP_SIGMA robust
 * standard deviations of the first differences) to be reduced to cycle
 * floors. */
#define SAW_MIN_DROPS 6
#define SAW_DROP_SIGMA 6.0
/* A rise this many times the spread of the floors around the fitted line
 * is a trend whatever the rank test says: with residuals that look
 * autocorrelated (a steady allocator beating against the sampling
 * interval) the corrected Mann-Kendall cannot pass p < 0.001 on a short
 * run however steep the leak, while a wander or a cycle never rises ten
 * times its own spread around a line. */
#define DOMINANT_RATIO 10.0
#define DOMINANT_MIN_POINTS 10


/* ---- reading the points ------------------------------------------------------ */

/* Where y[from..to) is lowest (the first such point; from < to): a
 * cycle's floor. */
static size_t lowest_at(const double *y, size_t from, size_t to)
{
	size_t i, at = from;

	for (i = from + 1; i < to; i++)
		if (y[i] < y[at])
			at = i;
	return at;
}

/* Reduce a deep sawtooth to one floor per cycle (each starting at a
 * release); returns the number of cycle floors written to rx/ry, or 0
 * when the series is not a deep sawtooth. */
static size_t cycle_floors(const double *x, const double *y, size_t n, double *scratch,
			   double *rx, double *ry, size_t cap)
{
	size_t i, nd = 0, m = 0, start = 0;
	double med, sd;
	int in_cycle = 0;

	if (n < 3 * SAW_MIN_DROPS)
		return 0;
	for (i = 1; i < n; i++)
		scratch[i - 1] = y[i] - y[i - 1];
	med = mw_median_inplace(scratch, n - 1);
	for (i = 1; i < n; i++)
		scratch[i - 1] = fabs(y[i] - y[i - 1] - med);
	sd = 1.4826 * mw_median_inplace(scratch, n - 1);
	if (!(sd > 0.0))
		return 0;
	for (i = 1; i < n; i++)
		if (y[i - 1] - y[i] > SAW_DROP_SIGMA * sd)
			nd++;
	if (nd < SAW_MIN_DROPS)
		return 0;
	for (i = 1; i <= n; i++) {
		int drop = i < n && y[i - 1] - y[i] > SAW_DROP_SIGMA * sd;

		if (drop || i == n) {
			if (in_cycle && m < cap) {
				size_t arg = lowest_at(y, start, i);

				rx[m] = x[arg];
				ry[m] = y[arg];
				m++;
			}
			/* before the first release the minima are mid-ramp */
			in_cycle = 1;
			start = i;
		}
	}
	return m;
}


/*
 * The shape shortcuts (a rise ten times its spread around a monotone fit
 * or a climbing parabola) decide where the autocorrelation-corrected test
 * needs more time; they are kept for spans of 15 minutes or more and
 * growth fast against the process's own size, SHORTCUT_REL_PER_HOUR of
 * its level an hour or more: an allocator's creep (fragmentation of a
 * capped cache, arenas settling: a few % an hour, slowing) is monotone too,
 * and must wait for the full test.
 */
#define SHORTCUT_REL_PER_HOUR 0.10
/* ... and over a judged span this long at least: over a few minutes an
 * allocator settling after start-up is as monotone as a leak. */
#define SHORTCUT_MIN_SPAN_MS (15 * 60000.0)
/* Settling: the last third's rate under this share of the first third's. */
#define SETTLING_RATIO 0.5
static int fast_relative(double rise, double level, double span_ms)
{
	if (!(span_ms > 0) || !(rise > 0))
		return 0;
	if (!(level > 0))
		return 1;
	return rise / level / (span_ms / HOUR_MS) >= SHORTCUT_REL_PER_HOUR;
}

static int shortcut_allowed(double rise, double level, double span_ms)
{
	return span_ms >= SHORTCUT_MIN_SPAN_MS && fast_relative(rise, level, span_ms);
}

/* A pass that does not rise carries no leak-like figure: no rate, growth,
 * projection or onset (a build agent reading the JSON, a dashboard summing
 * rates, must not see one beside a pass); a rise within the budget keeps
 * its rate, that is its point. */
void mw_leak_no_rate(struct mw_leak_result *out)
{
	out->slope_bph = out->slope_lo_bph = out->slope_hi_bph = NAN;
	out->onset_ms = INT64_MIN;
	out->growth_bytes = NAN;
	out->projected_bytes = 0.0;
}

/* ---- one judgement's steps ------------------------------------------------ */

/* What the steps of one judgement share: the reduced points and what each
 * step found, in the order the rules below use them. */
struct judging {
	struct mw_leak_work *w;
	const struct mw_leak_params *p;
	double span_ms;			/* the judged span */
	size_t m;			/* reduced points in w->rx, w->ry */
	int saw;			/* 1: the points are sawtooth cycle floors; 2: a fail
				 * judged on the floors after releases */
	double *wy;			/* ry winsorized (w->c) */
	double f;			/* variance factor of the best-fitting model */
	double f_hinge;			/* ... and of the hinge */
	size_t k_on;			/* the best hinge's point */
	struct mw_ts_fit full;		/* Theil-Sen over every point */
	double z;			/* the corrected Mann-Kendall z */
	bool trend;			/* significant with Sen's lower bound above 0 */
	bool dominant;			/* a rise far beyond its own spread */
	bool has_onset;
	double x_onset;			/* the onset's x; 0 without one */
	struct mw_ts_fit seg;		/* the fit from the onset (full without one) */
	double tail_from;		/* x where the tail starts */
	size_t tail_i;			/* its first point */
	size_t k_plat;			/* where the best "rise, then flat" turns flat */
	struct mw_ts_fit tail;		/* the tail's own fit (ok 0: too short) */
	double budget;			/* the growth budget, in what is counted */
	double pre_level;		/* the warm-up's end (NaN: unknown), rises_in_steps */
	size_t n;			/* judged points in w->x, w->y (before reduction) */
	int64_t judged_from;		/* wall clock of x = 0 */
};

/* The points judged: a deep sawtooth's cycle floors (within a cycle the
 * floors still ramp, and that ramp is not growth), else block medians down
 * to MW_LEAK_MAX_POINTS (Theil-Sen stays exact on them, the pairwise cost
 * bounded).  false with the reason when too few remain for a fit. */
static bool reduce_points(struct judging *j, size_t n, struct mw_leak_result *out)
{
	struct mw_leak_work *w = j->w;
	size_t m = cycle_floors(w->x, w->y, n, w->a, w->rx, w->ry, n);

	if (m > 0) {
		j->saw = 1;
		if (m > MW_LEAK_MAX_POINTS) {
			memcpy(w->x, w->rx, m * sizeof(double));
			memcpy(w->y, w->ry, m * sizeof(double));
			m = mw_block_medians(w->x, w->y, m, MW_LEAK_MAX_POINTS, w->a, w->rx, w->ry);
		}
		if (m < 5) {
			snprintf(out->reason, sizeof(out->reason),
				 "too few sawtooth cycles after warm-up: %zu", m);
			return false;
		}
	} else {
		m = mw_block_medians(w->x, w->y, n, MW_LEAK_MAX_POINTS, w->a, w->rx, w->ry);
	}
	j->m = m;
	/* Only what the fit needs to be possible, three points at two
	 * times: a preliminary Theil-Sen fit here, thrown away, was a third
	 * of the judging. */
	if (!mw_ts_fit_possible(w->rx, m)) {
		snprintf(out->reason, sizeof(out->reason), "too little data after warm-up: %zu points", m);
		return false;
	}
	return true;
}

/* The inflation of the residuals of the winsorized points regressed on h
 * (h may be w->b, which the inflation then reuses). */
static double model_inflation(const struct judging *j, const double *h)
{
	mw_ls_fit1(h, j->wy, j->m, j->w->a);
	return mw_rank_inflation(j->w->a, j->m, j->w->b);
}

/*
 * The variance factor of the trend test: the smallest inflation of the
 * residuals of four small models, so a genuine curved trend is not taken
 * for autocorrelation while a random wander, which none of them follows,
 * keeps its large factor:
 *   - the line;
 *   - the hinge (flat, then a line), its break leaving a tenth of the
 *     points (at least 8) after it, enough for a slope of its own;
 *   - the parabola;
 *   - rise then flat (a cap reached before an OOM kill): its residuals are
 *     white, so the rise before it is not mistaken for a wander; the tail
 *     rule still passes a warm-up plateau or a step.
 */
static void choose_variance_factor(struct judging *j)
{
	const double *rx = j->w->rx;
	double *h = j->w->b, sse, f_line, f_quad, f_plat;
	size_t m = j->m, kmax = m - (m / 10 > 8 ? m / 10 : 8), k;

	f_line = model_inflation(j, rx);
	j->k_on = mw_hinge_search(rx, j->wy, m, kmax, h, &sse);
	mw_hinge_regressor(rx, m, j->k_on, h);
	j->f_hinge = model_inflation(j, h);
	mw_quad_residuals(rx, j->wy, m, j->w->a);
	f_quad = mw_rank_inflation(j->w->a, m, h);
	k = mw_plateau_search(rx, j->wy, m, m / 10, h, &sse);
	j->k_plat = k;
	mw_plateau_regressor(rx, m, k, h);
	f_plat = model_inflation(j, h);
	j->f = f_line;
	if (j->f_hinge < j->f)
		j->f = j->f_hinge;
	if (f_quad < j->f)
		j->f = f_quad;
	if (f_plat < j->f)
		j->f = f_plat;
}

/* The trend: Theil-Sen over every point, Mann-Kendall with the variance
 * factor; a trend needs p < 0.001 (TREND_Z) and Sen's lower bound above
 * zero, as the corpus has strongly autocorrelated not-leaks whose factor
 * is only estimated. */
static void test_trend(struct judging *j, struct mw_leak_result *out)
{
	struct mw_leak_work *w = j->w;

	mw_ts_fit(w->rx, w->ry, j->m, j->f, MW_Z95, w->pairs, &j->full);
	j->z = mw_mann_kendall_z(w->ry, j->m, j->f, w->a);
	out->p_value = erfc(fabs(j->z) / sqrt(2.0));
	j->trend = j->z > TREND_Z && j->full.lo > 0;
}

/* The points' residuals around the Theil-Sen line over the span, into
 * j->w->a (the scratch buffer). */
static double *line_residuals(const struct judging *j)
{
	const double *rx = j->w->rx, *ry = j->w->ry;
	double *a = j->w->a, slope = j->full.slope, b0;
	size_t i, m = j->m;

	b0 = mw_intercept_at(rx, ry, m, slope, 0.0, a);
	for (i = 0; i < m; i++)
		a[i] = ry[i] - (b0 + slope * rx[i]);
	return a;
}

/* The rise over the span against the spread between the 10th and 90th
 * percentile of the residuals around the Theil-Sen line: one dip (a
 * process torn down in its last sample) or spike must not hide a leak a
 * hundred times its size. */
static bool rises_beyond_line(const struct judging *j)
{
	const double *rx = j->w->rx;
	size_t m = j->m;

	return j->full.slope * (rx[m - 1] - rx[0]) >
	       DOMINANT_RATIO * mw_spread_10_90(line_residuals(j), m);
}

/* The same around the best non-decreasing fit: growth that slows but never
 * stops, in steps or smoothly, with a hash table doubling now and then (an
 * interning table, a cache without a cap), is far from a line and from a
 * parabola, yet rises ten times beyond its spread around its own monotone
 * shape; noise and a wander go down as often as up and do not.  The tail
 * rule still passes one that stopped. */
static bool rises_beyond_monotone_fit(const struct judging *j)
{
	const double *rx = j->w->rx, *wy = j->wy;
	double *a = j->w->a, *fit = j->w->b, rise;
	size_t i, m = j->m, *cnt = malloc(m * sizeof(*cnt));
	double *val = malloc(m * sizeof(*val));
	bool dominant = false;

	if (cnt && val) {
		mw_isotonic(wy, m, fit, val, cnt);
		for (i = 0; i < m; i++)
			a[i] = wy[i] - fit[i];
		rise = fit[m - 1] - fit[0];
		dominant = rise > DOMINANT_RATIO * mw_spread_10_90(a, m) &&
			   j->full.slope * (rx[m - 1] - rx[0]) > 0.5 * rise &&
			   shortcut_allowed(rise, fit[0], rx[m - 1] - rx[0]);
	}
	free(cnt);
	free(val);
	return dominant;
}

/* The same around a curve: growth that slows but never stops is far from a
 * line yet rises ten times beyond its spread around a parabola that climbs
 * over the whole span; a wander does neither. */
static bool rises_beyond_parabola(const struct judging *j)
{
	const double *rx = j->w->rx, *wy = j->wy;
	double *a = j->w->a, q0, q1, q2;
	size_t m = j->m;

	mw_quad_residuals(rx, wy, m, a);
	q0 = wy[0] - a[0];
	q1 = wy[m - 2] - a[m - 2];
	q2 = wy[m - 1] - a[m - 1];
	if (!(q2 > q1 && q1 > q0 && wy[m / 2] - a[m / 2] > q0))
		return false;
	return q2 - q0 > DOMINANT_RATIO * mw_spread_10_90(a, m) &&
	       shortcut_allowed(q2 - q0, q0, rx[m - 1] - rx[0]);
}

/* A rise ten times its spread around a line, a monotone fit or a climbing
 * parabola is a trend whatever the rank test says (see DOMINANT_RATIO);
 * only for a rising fit over enough points. */
static void find_dominant_rise(struct judging *j)
{
	j->dominant = false;
	if (!(j->full.ok && j->full.lo > 0 && j->m >= DOMINANT_MIN_POINTS))
		return;
	j->dominant = rises_beyond_line(j) || rises_beyond_monotone_fit(j) ||
		      rises_beyond_parabola(j);
}

/* The onset: the best hinge is kept when it is not in the first tenth of
 * the span, has four points before it, the part before it is flat (under
 * a quarter of the slope after) and the part after climbs faster than the
 * whole; the figures are then those of the part after. */
static void find_onset(struct judging *j)
{
	const double *rx = j->w->rx, *ry = j->w->ry;
	size_t k = j->k_on, m = j->m;
	struct mw_ts_fit pre, post;

	j->seg = j->full;
	if (j->p->onset_unknown || !(k > 0 && rx[k] - rx[0] >= 0.1 * j->span_ms && k >= 4))
		return;
	mw_ts_fit(rx, ry, k + 1, 1.0, MW_TS_SLOPE_ONLY, j->w->pairs, &pre);
	mw_ts_fit(rx + k, ry + k, m - k, j->f_hinge, MW_Z95, j->w->pairs, &post);
	if (pre.ok && post.ok && post.slope > 0 && pre.slope < MW_ONSET_FLAT_SHARE * post.slope &&
	    post.slope > j->full.slope) {
		j->has_onset = true;
		j->seg = post;
		j->x_onset = rx[k];
	}
}

/* The tail: the last third of the judged span (at least 30 min), fitted
 * on its own; a tail of few points (cycle floors) is extended to five. */
static void fit_tail(struct judging *j)
{
	const double *rx = j->w->rx, *ry = j->w->ry;
	size_t m = j->m, ti = 0;

	j->tail_from = rx[m - 1] - (TAIL_FRAC * j->span_ms > TAIL_MIN_MS ? TAIL_FRAC * j->span_ms
									  : TAIL_MIN_MS);
	while (ti < m && rx[ti] < j->tail_from)
		ti++;
	if (m - ti < 5 && m >= 10)
		ti = m - 5;
	j->tail_i = ti;
	if (m - ti >= 5)
		mw_ts_fit(rx + ti, ry + ti, m - ti, 1.0, TAIL_Z, j->w->pairs, &j->tail);
	else
		j->tail.ok = 0;
}

/* The figures of the fit from the onset (or the judged start): slope and
 * interval, the fitted line for drawing, level, growth and projection;
 * and the budget, relative to that level when the user asked for one. */
/* A fit's figures into out: its rate and interval, its line through
 * (x0, value0) for drawing, the level it reaches at x_end, the growth from
 * x0 to the span's end and the projection over the horizon.  Shared by the
 * fit over the points (fill_figures) and over the floors after releases
 * (judged_on_release_floors). */
static void put_fit(const struct judging *j, const struct mw_ts_fit *fit, double x0, double value0,
		    double x_end, struct mw_leak_result *out)
{
	out->slope_bph = fit->slope * HOUR_MS;
	out->slope_lo_bph = fit->lo * HOUR_MS;
	out->slope_hi_bph = fit->hi * HOUR_MS;
	out->fit_t0_ms = j->judged_from + (int64_t)x0;
	out->fit_value0 = value0;
	out->level_bytes = value0 + fit->slope * (x_end - x0);
	out->growth_bytes = fit->slope * (j->span_ms - x0);
	out->projected_bytes = fit->slope > 0 ? fit->slope * (double)j->p->horizon_ms : 0.0;
}

static void fill_figures(struct judging *j, struct mw_leak_result *out)
{
	const struct mw_leak_params *p = j->p;
	const double *rx = j->w->rx, *ry = j->w->ry;
	size_t t0i = j->has_onset ? j->k_on : 0, m = j->m;
	double level;

	put_fit(j, &j->seg, j->x_onset,
		mw_intercept_at(rx + t0i, ry + t0i, m - t0i, j->seg.slope, j->x_onset, j->w->a),
		rx[m - 1], out);
	level = out->level_bytes;
	if (j->has_onset)
		out->onset_ms = out->fit_t0_ms;

	j->budget = p->count_unit ? p->budget_count_per_hour : p->budget_bytes_per_hour;
	if (!p->count_unit && p->budget_rel_per_hour > 0 && isfinite(level) &&
	    level * p->budget_rel_per_hour > j->budget)
		j->budget = level * p->budget_rel_per_hour;
}

/* After an onset the rise is tested on its own segment too: the flat hours
 * before it make the one-line residuals look autocorrelated.  The whole
 * span must still lean upwards (z > 2), as a guard against the hinge
 * having picked the last upward excursion of a wander (and see
 * within_earlier_wander). */
static void retest_after_onset(struct judging *j, struct mw_leak_result *out)
{
	double z2;

	if (!(j->has_onset && !j->trend && j->z > 2.0))
		return;
	z2 = mw_mann_kendall_z(j->w->ry + j->k_on, j->m - j->k_on, j->f_hinge, j->w->a);
	if (z2 > TREND_Z && j->seg.lo > 0) {
		j->z = z2;
		j->trend = true;
		out->p_value = erfc(fabs(j->z) / sqrt(2.0));
	}
}

/* The scatter of y[0..n) from one to the next, as a standard deviation
 * (the median absolute deviation of the first differences from their
 * median, over sqrt 2): a step or a slow wander hardly moves it, a GC
 * sawtooth's floors do.  a (n - 1 doubles) is overwritten. */
static double sample_scatter(const double *y, size_t n, double *a)
{
	double med;
	size_t i;

	for (i = 1; i < n; i++)
		a[i - 1] = y[i] - y[i - 1];
	med = mw_median_inplace(a, n - 1);
	for (i = 1; i < n; i++)
		a[i - 1] = fabs(y[i] - y[i - 1] - med);
	return 1.4826 * mw_median_inplace(a, n - 1) / sqrt(2.0);
}

/* The reduced points' scatter (sample_scatter). */
static double point_scatter(const struct judging *j)
{
	return sample_scatter(j->w->ry, j->m, j->w->a);
}

/* A move between neighbouring points that is a jump (a step, a burst, an
 * allocator taking memory at once), not scatter: four times the points'
 * scatter. */
static double jump_threshold(const struct judging *j)
{
	return 4.0 * point_scatter(j);
}

/* The smallest slope (per ms) a line fitted through points scattered by
 * sd would show at the trend test's threshold (TREND_Z standard errors),
 * were the scatter white: a lower bound, autocorrelation only raises it. */
static double detectable_slope(const struct judging *j, double sd)
{
	const double *rx = j->w->rx;
	double mean = 0.0, sxx = 0.0;
	size_t i, m = j->m;

	for (i = 0; i < m; i++)
		mean += rx[i];
	mean /= (double)m;
	for (i = 0; i < m; i++)
		sxx += (rx[i] - mean) * (rx[i] - mean);
	return sxx > 0.0 ? TREND_Z * sd / sqrt(sxx) : INFINITY;
}

/* No trend, but none could have been seen: the points scatter so much from
 * one to the next that a growth of a tenth of the process an hour
 * (SHORTCUT_REL_PER_HOUR, fast against its size: it doubles it within the
 * horizon) would still look like noise over this span - a Node process
 * under a GC sawtooth of a gigabyte whose floors vary by hundreds of MB.
 * Not a pass: inconclusive, with what the data cannot see yet.  The
 * detectable growth shrinks as the span's 1.5th power, so a longer run
 * decides; a quiet process (an allocator's jitter, an idle server), a
 * one-time load (a step) and a slow wander see a tenth of themselves an
 * hour within minutes and are not touched. */
static bool inconclusive_by_noise(const struct judging *j, struct mw_leak_result *out)
{
	double *a = j->w->a, level, mds, sd;
	size_t m = j->m;
	char d[32], sp[32], rate[32];

	if (m < DOMINANT_MIN_POINTS)
		return false;
	sd = point_scatter(j);
	mds = detectable_slope(j, sd) * HOUR_MS;
	memcpy(a, j->w->ry, m * sizeof(double));
	level = mw_median_inplace(a, m);
	if (!isfinite(mds) || !(mds > j->budget) || !(mds > SHORTCUT_REL_PER_HOUR * level))
		return false;
	out->verdict = MW_VERDICT_INCONCLUSIVE;
	mw_leak_no_rate(out);
	out->detectable_bph = mds;
	out->undecided = 1;
	mw_leak_fmt_duration(d, sizeof(d), j->span_ms);
	mw_leak_fmt_amount(sp, sizeof(sp), sd, j->p);
	mw_leak_fmt_amount(rate, sizeof(rate), mds, j->p);
	snprintf(out->reason, sizeof(out->reason),
		 "too noisy to judge yet: the %s scatter by %s (sd), so over %s a growth "
		 "below %s/h (%.0f %% of the level an hour) cannot be seen",
		 j->saw ? "sawtooth floors" : "floors", sp, d, rate,
		 level > 0 ? 100.0 * mds / level : 0.0);
	return true;
}

static double settled_rate(const struct judging *j);
static bool pass_when_settling(const struct judging *j, struct mw_leak_result *out);
static double moved_lately(const struct judging *j, double span_ms);

/* Inconclusive where a pass would claim no rise the data cannot bound:
 * what was seen ("no steady trend over 20 min (p 0.67)"), yet a growth
 * up to hi_bph, at or above a settled rate, cannot be ruled out. */
static void unbounded_rise(const struct judging *j, struct mw_leak_result *out, double hi_bph,
			   const char *seen)
{
	char rate[32];

	out->verdict = MW_VERDICT_INCONCLUSIVE;
	mw_leak_no_rate(out);
	out->undecided = 1;
	out->unbounded = 1;
	mw_leak_fmt_amount(rate, sizeof(rate), hi_bph, j->p);
	snprintf(out->reason, sizeof(out->reason), "%s, yet a growth up to %s/h cannot be ruled out",
		 seen, rate);
}

/* No rise seen is a pass only where the data rules out the smallest leak
 * the defaults must fail: Sen's upper bound, one-sided at 95 %, under a
 * settled rate (1 MB/h by default).  Where the floors wander more than
 * that over the span, a leak that size hides in them: inconclusive,
 * saying how much could, and a longer run (the bound narrows as the
 * span's 1.5th power) decides.  Recorded (the Go sets): lk_goscav,
 * keeping 1.5 MiB/h under Go's heap goal's wander of +-2 MiB, passed at
 * 30-32 minutes as "no steady trend over 20 min (p 0.67)"; lk_goslice
 * (2 MiB/h) at 30-38 minutes.  Counts keep their pass: a handle or
 * thread count moves in steps a rank interval reads as wide, and their
 * budget is the smallest leak itself. */
static bool unbounded_without_trend(const struct judging *j, struct mw_leak_result *out)
{
	char d[32], seen[96];
	double hi = j->full.slope + (j->full.hi - j->full.slope) * (ONE_SIDED_Z95 / MW_Z95);

	if (j->p->count_unit || !j->full.ok || !(hi * HOUR_MS >= settled_rate(j)) ||
	    j->z < -HINT_Z)
		return false;
	if (pass_when_settling(j, out))
		return true;
	mw_leak_fmt_duration(d, sizeof(d), j->span_ms);
	snprintf(seen, sizeof(seen), "no steady trend over %s%s (p %.2g)", d,
		 j->saw ? " of sawtooth floors" : "", out->p_value);
	unbounded_rise(j, out, hi * HOUR_MS, seen);
	return true;
}

/* The points a window at either edge of the span takes: a sixteenth,
 * three at least. */
static size_t edge_window(size_t m)
{
	return m / 16 < 3 ? 3 : m / 16;
}

/* The rise from the span's first edge window to its last (their medians). */
static double edge_rise(const struct judging *j)
{
	size_t m = j->m, w = edge_window(m);

	return mw_window_median(j->w->ry, m - w, w, j->w->a) -
	       mw_window_median(j->w->ry, 0, w, j->w->a);
}

/* A rise in a few steps that stay: two or more level shifts up over the
 * judged span, none down, ending above where it began by more than the
 * budget allows over the horizon.  A runtime whose heap grows by a chunk
 * every 20 minutes (Ruby's, recorded: 24.9, 31.2, 36.2 MiB) is a
 * staircase the trend test cannot see (its residuals are two long blocks,
 * so the autocorrelation correction leaves two points' worth of data),
 * yet it is no flat process.  One step is a one-time load and passes
 * once it has held ONE_STEP_HOLD_MS; a younger one (Ruby's first step at
 * 30 minutes, 20 minutes old, its second due at 32) may be the first of a
 * staircase, so *held_ms says how long it has held and it is not a pass
 * yet.  A shift is the median of a window after a point against the window
 * before it, over half that budget and four times the points' own
 * scatter, so an allocator's jitter is no step; the last one in the
 * second half of the span, so the rise has not stopped.  A step as the
 * warm-up ends (Ruby's first, at 10.5 minutes of 10) counts when the
 * first window stands above the warm-up's last stretch (pre_level) as
 * a step would: the points before it are too few in the span to be a
 * window of their own.  Counts too (their budget over the horizon: 240
 * handles a day by default): Wine reports a handle count as its table's
 * size, which doubles (128, 256, 512 for 360 events an hour kept), and
 * such a staircase passed while counts were left out. */
static bool rises_in_steps(const struct judging *j, double *rise, double *held_ms)
{
	const double *rx = j->w->rx, *ry = j->w->ry;
	size_t m = j->m, w = edge_window(m), i, up = 0, down = 0, last_up = 0;
	double most = j->budget * (double)j->p->horizon_ms / HOUR_MS, thr, first, *scratch;
	bool pre_step;

	*held_ms = NAN;
	if (m < 4 * w || !(most > 0))
		return false;
	thr = jump_threshold(j);
	if (thr < most / 2)
		thr = most / 2;
	scratch = j->w->a;
	first = mw_window_median(ry, 0, w, scratch);
	/* a step as the span begins: the rise counted from before it */
	pre_step = isfinite(j->pre_level) && first - j->pre_level > thr;
	*rise = mw_window_median(ry, m - w, w, scratch) - (pre_step ? j->pre_level : first);
	if (!(*rise > most))
		return false;
	/* then from half a window in, so a step early in the span is seen */
	i = w / 2;
	if (pre_step) {
		up++;
		i = 2 * w;
	}
	for (; i + w <= m && !down;) {
		size_t left = i < w ? i : w;
		double shift = mw_window_median(ry, i, w, scratch) -
			       mw_window_median(ry, i - left, left, scratch);

		if (shift > thr) {
			/* past the step: the next left window must not hold it */
			up++;
			last_up = i;
			i += 2 * w;
		} else if (-shift > thr) {
			down++;
		} else {
			i++;
		}
	}
	/* one step, not held long enough yet to be a one-time load */
	if (up == 1 && !down && rx[m - 1] - rx[last_up] < ONE_STEP_HOLD_MS)
		*held_ms = rx[m - 1] - rx[last_up];
	/* still rising: a curve that climbed early and flattens (a pool
	 * filling ever more slowly) is judged by its shape, not as steps */
	return up >= 2 && !down && last_up >= m / 2;
}

/* Pass: a rise in steps that stopped, small against the budget.  The rank
 * test sees any step up as a rise (it stays significant however long the
 * values stand after it), and the rule below keeps such a rise
 * inconclusive until more steps come; but one that added less than the
 * budget allows over the horizon and has not moved for the last half of
 * the span or more is no leak that matters.  Recorded (the pools set,
 * session 26): each prefork master's heap stepped up 53 KiB between 10
 * and 14 minutes (glibc extending its top under a churn of 1,000 blocks),
 * then stood to the KiB; "rising in steps over 20 min (p 0.001), too few
 * yet to fit a steady rate" kept every pool inconclusive, the healthy
 * ones too, and would have for as long as they ran; at other end times
 * the same trace passed as "no steady trend over 21 min: a slight rise
 * (p 0.001) of at most 0 B/h". */
static bool stepped_within_budget(const struct judging *j, struct mw_leak_result *out)
{
	const double *rx = j->w->rx, *ry = j->w->ry;
	size_t m = j->m, w = edge_window(m), i, last_move = 0;
	double most = j->budget * (double)j->p->horizon_ms / HOUR_MS, rise, thr;
	char amount[32], quiet[32], allowed[32], horizon[32];

	if (j->saw || m < 4 * w || !(most > 0))
		return false;
	rise = edge_rise(j);
	if (!(rise > 0) || rise > most)
		return false;
	/* still: the last half of the span within the points' own jitter
	 * (to the byte for a quiet process), not merely without a jump */
	thr = jump_threshold(j);
	if (!(moved_lately(j, 0.5 * (rx[m - 1] - rx[0])) <= thr))
		return false;
	for (i = 1; i < m; i++)
		if (fabs(ry[i] - ry[i - 1]) > thr)
			last_move = i;
	if (rx[m - 1] - rx[last_move] < 0.5 * (rx[m - 1] - rx[0]))
		return false;
	out->verdict = MW_VERDICT_PASS;
	mw_leak_no_rate(out);
	mw_leak_fmt_amount(amount, sizeof(amount), rise, j->p);
	mw_leak_fmt_amount(allowed, sizeof(allowed), most, j->p);
	mw_leak_fmt_duration(quiet, sizeof(quiet), rx[m - 1] - rx[last_move]);
	mw_leak_fmt_duration(horizon, sizeof(horizon), (double)j->p->horizon_ms);
	snprintf(out->reason, sizeof(out->reason),
		 "stepped up +%s, then still for the last %s (the budget allows %s over %s)",
		 amount, quiet, allowed, horizon);
	return true;
}

/*
 * The floors after a runtime's releases.  A process that hands memory
 * back to the system again and again (Go's debug.FreeOSMemory or its
 * scavenger after a forced collection; a batch that frees) drops to what
 * it holds at each release and climbs back to its working level between
 * them.  Between releases its floors are its collector's sawtooth, whose
 * wander (the heap goal's) hides a leak of a MiB or two an hour from the
 * trend test over every point; the lowest point after each release is
 * what the process keeps.  Recorded: lk_goscav (1.5 MiB/h, a release of
 * 15 MiB every 3 minutes) passed as "no steady trend over 30 min (p
 * 0.32)" while its floors after the releases rose 24.0 -> 25.8 MiB,
 * nearly every one above the one before.
 *
 * A release is a fall within RELEASE_POINTS points deeper than half the
 * way from the points' median down to their lowest and than a jump of
 * their scatter; each release starts a cycle whose lowest point is its
 * floor.  The floors are judged when there are SAW_MIN_DROPS releases or
 * more (a sawtooth deep from one point to the next is reduced to such
 * floors before anything is judged: reduce_points).
 */
#define RELEASE_POINTS 3
#define RELEASE_LEVEL_SHARE 0.5
/* A release's depth against the scatter of every point from one to the
 * next (sample_scatter), as a sawtooth's drops are (SAW_DROP_SIGMA): under
 * white scatter of a second's samples, a fall of half the way from their
 * median to their lowest within RELEASE_POINTS points is common (their
 * lowest lies three standard deviations down), and the lowest points
 * between such falls follow any wander.  A constructed Node service
 * wandering 0.7 MiB under 100 KiB of white scatter failed so ("rising 2.6
 * MiB/h ..., floors after releases"; test_leak
 * wander_back_is_not_a_leak).  A runtime that releases holds its level
 * between releases: Go's resident set moves in steps, most seconds not
 * at all. */
#define RELEASE_NOISE_SIGMA 6.0

static size_t release_floors(const struct judging *j, double *fx, double *fy, size_t cap)
{
	const double *x = j->w->x, *y = j->w->y;
	double *a = j->w->a, depth, lo = y[0];
	size_t i, k, n = j->n, r = 0, start = 0;

	if (j->saw || n < 3 * SAW_MIN_DROPS)
		return 0;
	/* the level and the lowest from every point: the reduced points'
	 * median differs from theirs by up to a block's spread, enough to
	 * count a release more or less on a step that stays (the synthetic
	 * corpus: one of 12 "step up, stays" inconclusive) */
	for (i = 1; i < n; i++)
		lo = fmin(lo, y[i]);
	memcpy(a, y, n * sizeof(*a));
	depth = RELEASE_LEVEL_SHARE * (mw_median_inplace(a, n) - lo);
	if (!(depth > 0.0))
		return 0;
	for (i = 1; i <= n; i++) {
		bool release = false;

		/* one release spread over neighbouring points is one */
		for (k = 1; i < n && k <= RELEASE_POINTS && k <= i; k++)
			if (y[i - k] - y[i] > depth && (r == 0 || i - k >= start))
				release = true;
		if (!release && i < n)
			continue;
		if (r > 0 && r <= cap) {
			/* the cycle since the last release: its lowest point */
			size_t at = lowest_at(y, start, i);

			fx[r - 1] = x[at];
			fy[r - 1] = y[at];
		}
		r++;
		start = i;
	}
	r = r - 1 < cap ? r - 1 : cap;	/* the end closed the last cycle */
	/* last, as they cost most: a release is a jump, not scatter, of the
	 * reduced points and of every point */
	if (r < SAW_MIN_DROPS || !(depth > jump_threshold(j)) ||
	    !(depth > RELEASE_NOISE_SIGMA * sample_scatter(y, n, a)))
		return 0;
	return r;
}

/* A verdict from the floors after releases (release_floors) where the
 * trend over every point saw none: a fail when they rise significantly
 * (p < 0.001) by more than the budget and their second half still at half
 * their rate or more; inconclusive on a hint (p < 0.01) of such a rise.
 * false: no releases, or no such rise. */
static bool judged_on_release_floors(struct judging *j, struct mw_leak_result *out)
{
	struct mw_leak_work *w = j->w;
	size_t c, cap = j->n / 2 < MW_LEAK_MAX_POINTS ? j->n / 2 : MW_LEAK_MAX_POINTS;
	double *fx = w->b, *fy = w->b + cap, z, budget_per_ms = j->budget / HOUR_MS;
	struct mw_ts_fit fit, late;
	char d[32], rate[32];

	c = release_floors(j, fx, fy, cap);
	if (c == 0)
		return false;
	mw_ts_fit(fx, fy, c, 1.0, MW_Z95, w->pairs, &fit);
	z = mw_mann_kendall_z(fy, c, 1.0, w->a);
	if (!fit.ok || !(z > HINT_Z) || !(fit.slope > budget_per_ms))
		return false;
	mw_ts_fit(fx + c / 2, fy + c / 2, c - c / 2, 1.0, MW_TS_SLOPE_ONLY, w->pairs, &late);
	out->p_value = erfc(fabs(z) / sqrt(2.0));
	mw_leak_fmt_duration(d, sizeof(d), j->span_ms);
	mw_leak_fmt_amount(rate, sizeof(rate), fit.slope * HOUR_MS, j->p);
	if (!(z > TREND_Z) || !(fit.lo > budget_per_ms) || !late.ok ||
	    !(late.slope >= SETTLING_RATIO * fit.slope)) {
		out->verdict = MW_VERDICT_INCONCLUSIVE;
		mw_leak_no_rate(out);
		out->undecided = 1;
		snprintf(out->reason, sizeof(out->reason),
			 "rising about %s/h over %s in its floors after %zu releases (p %.2g)%s, "
			 "not yet sure enough to call a leak", rate, d, c, out->p_value,
			 z > TREND_Z && fit.lo > budget_per_ms ? ", slower in the later half" : "");
		return true;
	}
	j->saw = 2;
	out->verdict = MW_VERDICT_FAIL;
	out->trended = 1;
	put_fit(j, &fit, 0.0, mw_intercept_at(fx, fy, c, fit.slope, 0.0, w->a), w->x[j->n - 1],
		out);
	out->onset_ms = INT64_MIN;
	return true;
}

/* Pass: no significant trend and no dominant rise (random wander, noise). */
static bool pass_without_trend(struct judging *j, struct mw_leak_result *out)
{
	char d[32], rate[32];
	double rise = 0.0, held_ms = NAN;

	if (j->dominant || j->trend)
		return false;
	if (judged_on_release_floors(j, out))
		return true;
	/* a step or two that stopped, small against the budget: whether the
	 * rank test calls it a rise in steps (below) or a hint (further
	 * below: "a slight rise (p 0.001) of at most 0 B/h", its words
	 * contradicting themselves), say what it is */
	if (j->z > HINT_Z && stepped_within_budget(j, out))
		return true;
	if (j->z > TREND_Z || rises_in_steps(j, &rise, &held_ms)) {
		/* The values rise significantly, but the slopes between pairs
		 * are mostly zero: growth in a few steps (memcached's 1 MB
		 * slab pages, a pool that doubles, Ruby's heap pages), too few
		 * yet to fit a rate.  Not a pass: the next steps decide. */
		out->verdict = MW_VERDICT_INCONCLUSIVE;
		mw_leak_no_rate(out);
		out->undecided = 1;
		mw_leak_fmt_duration(d, sizeof(d), j->span_ms);
		if (j->z > TREND_Z) {
			snprintf(out->reason, sizeof(out->reason),
				 "rising in steps over %s (p %.2g), too few yet to fit a steady rate",
				 d, out->p_value);
		} else {
			mw_leak_fmt_amount(rate, sizeof(rate), rise, j->p);
			snprintf(out->reason, sizeof(out->reason),
				 "rising in steps over %s (+%s), too few yet to fit a steady rate",
				 d, rate);
		}
		return true;
	}
	if (isfinite(held_ms)) {
		/* a one-time load, or the first step of a staircase: the
		 * next half hour tells */
		char hold[32];

		out->verdict = MW_VERDICT_INCONCLUSIVE;
		mw_leak_no_rate(out);
		out->undecided = 1;
		mw_leak_fmt_amount(rate, sizeof(rate), rise, j->p);
		mw_leak_fmt_duration(d, sizeof(d), held_ms);
		mw_leak_fmt_duration(hold, sizeof(hold), ONE_STEP_HOLD_MS);
		snprintf(out->reason, sizeof(out->reason),
			 "one step up (+%s), held %s: a one-time load once it holds %s, "
			 "unless another step comes", rate, d, hold);
		return true;
	}
	/* A hint of a rise (p < 0.01) whose rate could be one that matters
	 * (Sen's upper bound at a settled rate or more) is no pass: "no
	 * steady trend" is for a rise the data can bound below that.  Until
	 * session 24 the lower bound had to be there, and a Go service
	 * keeping 1.2 MiB every 7 minutes under forced collections passed
	 * at 30 minutes, "no steady trend over 20 min (p 0.0089)", its
	 * slope 22 MiB/h (interval 0.8-31.9). */
	if (j->z > HINT_Z && j->full.ok && j->full.hi * HOUR_MS >= settled_rate(j)) {
		/* a rise that has settled says so (a pool that filled to its
		 * size by the middle of the span: PostgreSQL's buffers) */
		if (pass_when_settling(j, out))
			return true;
		out->verdict = MW_VERDICT_INCONCLUSIVE;
		mw_leak_no_rate(out);
		out->undecided = 1;
		mw_leak_fmt_duration(d, sizeof(d), j->span_ms);
		mw_leak_fmt_amount(rate, sizeof(rate), j->full.slope * HOUR_MS, j->p);
		snprintf(out->reason, sizeof(out->reason),
			 "rising about %s/h over %s%s (p %.2g), not yet sure enough to call a "
			 "leak", rate, d, j->saw ? " of sawtooth floors" : "", out->p_value);
		return true;
	}
	if (inconclusive_by_noise(j, out) || unbounded_without_trend(j, out))
		return true;
	out->verdict = MW_VERDICT_PASS;
	mw_leak_no_rate(out);
	mw_leak_fmt_duration(d, sizeof(d), j->span_ms);
	if (j->z > HINT_Z && j->full.ok) {
		/* a rise the rank test sees (p < 0.01) that the interval bounds
		 * under a settled rate (above): say so, or "no steady trend
		 * (p 0.0019)" reads as its own contradiction */
		mw_leak_fmt_amount(rate, sizeof(rate), j->full.hi * HOUR_MS, j->p);
		snprintf(out->reason, sizeof(out->reason),
			 "no steady trend over %s%s: a slight rise (p %.2g) of at most %s/h", d,
			 j->saw ? " of sawtooth floors" : "", out->p_value, rate);
		return true;
	}
	if (j->z < -HINT_Z) {
		/* a significant fall is no trend of a leak; "no steady trend
		 * (p 1.1e-09)" alone read as if it were */
		snprintf(out->reason, sizeof(out->reason), "no rise over %s%s: falling (p %.2g)",
			 d, j->saw ? " of sawtooth floors" : "", out->p_value);
		return true;
	}
	snprintf(out->reason, sizeof(out->reason), "no steady trend over %s%s (p %.2g)", d,
		 j->saw ? " of sawtooth floors" : "", out->p_value);
	return true;
}

/* The upper bound, one-sided at 95 %, of the Theil-Sen slope of the
 * points from index from on, its variance inflated by the autocorrelation
 * of their own residuals.  The tail's test takes none (TAIL_Z instead)
 * and the thirds' fits none either, and a wander's long runs make such an
 * interval too narrow to bound a leak (recorded: lk_goslow's 1 MiB/h read
 * "stopped rising: flat over the last 30 min" at 63-65 minutes of a
 * second recording of the Go set, that interval's bound under 1 MiB/h). */
static double upper_bound_from(const struct judging *j, size_t from)
{
	const double *rx = j->w->rx, *ry = j->w->ry;
	size_t n = j->m - from, i;
	struct mw_ts_fit fit;
	double f;

	if (from >= j->m || n < 3)
		return INFINITY;
	mw_ts_fit(rx + from, ry + from, n, 1.0, MW_TS_SLOPE_ONLY, j->w->pairs, &fit);
	if (!fit.ok)
		return INFINITY;
	for (i = 0; i < n; i++)
		j->w->a[i] = ry[from + i] - fit.slope * rx[from + i];
	f = mw_rank_inflation(j->w->a, n, j->w->b);
	mw_ts_fit(rx + from, ry + from, n, f, ONE_SIDED_Z95, j->w->pairs, &fit);
	return fit.ok ? fit.hi : INFINITY;
}

/* Pass: the tail no longer climbs at half the slope or more, significantly
 * (Coroot): a warm-up plateau, a single step that stays or a filled cache
 * are not leaks. */
static bool pass_when_stopped(const struct judging *j, struct mw_leak_result *out)
{
	const double *rx = j->w->rx, *ry = j->w->ry;
	size_t m = j->m;
	double tail_ms, hi;
	char d[32], rise[32];

	if (j->tail.ok && j->tail.lo > 0 && j->tail.slope >= TAIL_RATIO * j->seg.slope)
		return false;
	tail_ms = rx[m - 1] - (j->tail_from > rx[0] ? j->tail_from : rx[0]);
	mw_leak_fmt_duration(d, sizeof(d), tail_ms);
	mw_leak_fmt_amount(rise, sizeof(rise), ry[m - 1] - ry[0], j->p);
	/* flat by the tail's own test, yet a leak that matters could hide
	 * in it (unbounded_rise): recorded (the Go set), lk_goslow's
	 * 1 MiB/h under +-1.5 MiB of wander read "stopped rising: flat over
	 * the last 30 min" at 40 minutes.  Bounded over the tail, or from
	 * where the best "rise, then flat" turns flat when that is earlier: a
	 * cache filled in its first 20 minutes is bounded over all the time
	 * it has been flat, not over the last 30 minutes only (recorded: a Go
	 * cache under its heap goal's wander, 3.8 MiB/h over those at 77
	 * minutes, 3.0 over the flat) */
	if (!j->p->count_unit && j->tail.ok &&
	    (hi = upper_bound_from(j, j->k_plat < j->tail_i ? j->k_plat : j->tail_i)) * HOUR_MS >=
		    settled_rate(j)) {
		char seen[96];

		if (ry[m - 1] > ry[0])
			snprintf(seen, sizeof(seen), "rose %s, then no steady rise over the last %s",
				 rise, d);
		else
			snprintf(seen, sizeof(seen), "no steady rise over the last %s", d);
		unbounded_rise(j, out, hi * HOUR_MS, seen);
		return true;
	}
	out->verdict = MW_VERDICT_PASS;
	mw_leak_no_rate(out);
	if (rx[0] <= 0 && j->tail_from > 0)
		snprintf(out->reason, sizeof(out->reason),
			 "stopped rising: flat over the last %s after %s", d, rise);
	else
		snprintf(out->reason, sizeof(out->reason), "stopped rising: flat over the last %s", d);
	return true;
}

/* The rate a settling growth must be under to pass: MW_LEAK_SETTLED_BUDGETS times
 * the budget in bytes (64 KB/h by default: 1 MB/h, the smallest leak the
 * defaults must fail), the budget itself for counts. */
static double settled_rate(const struct judging *j)
{
	return j->p->count_unit ? j->budget : MW_LEAK_SETTLED_BUDGETS * j->budget;
}

/* Growth fast against the process over the span that has slowed smoothly
 * to a creep: each third rising, each slower than the one before (within
 * SMOOTH_SLACK), and the last third's rate under SHORTCUT_REL_PER_HOUR of
 * the level an hour.  A Perl service replacing cache strings of random
 * sizes (recorded: 7.7, 4.7, 2.2 MiB/h in the thirds of 10-30 minutes, a
 * 31 MiB process) creeps so after its warm-up, and settles; an interning
 * table that never stops still climbs fast against its size in its last
 * third (lk_slowing: 20 MiB/h on 25 MiB), a leak beside such a creep too
 * (lk_perl: 5 MiB/h on 31 MiB), and a leak in bursts has thirds that do
 * not rise (Theil-Sen over one step is about flat). */
#define SMOOTH_SLACK 1.25
static bool slowed_to_creep(const struct judging *j, const struct mw_ts_fit *head,
			    const struct mw_ts_fit *mid, const struct mw_ts_fit *last, size_t third)
{
	const double *rx = j->w->rx, *ry = j->w->ry;
	size_t m = j->m;
	double last_ms = rx[m - 1] - rx[m - third];

	if (!(mid->ok && mid->slope > 0 && last->slope > 0 && mid->slope < head->slope &&
	      last->slope <= SMOOTH_SLACK * mid->slope))
		return false;
	return !fast_relative(last->slope * last_ms, ry[m - 1], last_ms);
}

/* The last third of a staircase: Theil-Sen over a third holding one step
 * near its edge is about flat (most pairs lie on one side of it), so a
 * leak in bursts (1.5 MiB every 8 minutes) read "settling: slowed to 48
 * KiB/h" at 40 minutes.  The rise of the third's last points over its
 * first (window medians) tells, when it moved by steps up and hardly
 * down: at half the fitted slope or more it still
 * climbs (FAIL: no pass); over a settled rate and four times the points'
 * scatter, inconclusive (INCONCLUSIVE, the reason written); else PASS. */
static enum mw_verdict steps_in_last_third(const struct judging *j, size_t third,
					   struct mw_leak_result *out)
{
	const double *rx = j->w->rx, *ry = j->w->ry;
	size_t m = j->m, w = third / 8 < 3 ? 3 : third / 8, from = m - third, i;
	double rise, last_ms = rx[m - 1] - rx[from], thr = jump_threshold(j), up = 0, down = 0;
	char amount[32];

	if (third < 2 * w)
		return MW_VERDICT_PASS;
	rise = mw_window_median(ry, m - w, w, j->w->a) - mw_window_median(ry, from, w, j->w->a);
	/* steps only up: a wander (a level held a while, then another) moves
	 * down about as much as up */
	for (i = from + 1; i < m; i++) {
		double d = ry[i] - ry[i - 1];

		if (d > thr)
			up += d;
		else if (-d > thr)
			down -= d;
	}
	if (!(rise > settled_rate(j) * last_ms / HOUR_MS) || !(rise > thr) || !(down < 0.25 * up))
		return MW_VERDICT_PASS;
	if (rise >= TAIL_RATIO * j->seg.slope * last_ms)
		return MW_VERDICT_FAIL;
	out->verdict = MW_VERDICT_INCONCLUSIVE;
	out->undecided = 1;
	mw_leak_fmt_amount(amount, sizeof(amount), rise, j->p);
	snprintf(out->reason, sizeof(out->reason),
		 "slowing, not settled yet: +%s in the last third, in steps", amount);
	return MW_VERDICT_INCONCLUSIVE;
}

/* A release in the last third: a fall within RELEASE_POINTS points deeper
 * than RELEASE_RISE_SHARE of the span's rise and RELEASE_IQR_RATIO times
 * the interquartile range of the points around the span's line (and a
 * jump, not scatter).  A runtime that hands freed pages back to the
 * system now and then (Go's scavenger after a forced collection:
 * recorded, lk_goburst, 47 -> 32 MiB for a minute every 7 minutes, its
 * plateaus and its dips both climbing) has a last third whose slope says
 * nothing of settling, with the dip at its end or in its middle: it
 * passed as "settling: slowed to 480 KiB/h" at 35 and 38 minutes, and
 * lk_goslow (1 MiB/h, dips of 2 MiB) as "settling" from 44 to 48.  A
 * wander between levels falls no deeper than its own spread. */
#define RELEASE_RISE_SHARE 0.5
#define RELEASE_IQR_RATIO 3.0
static bool release_in_last_third(const struct judging *j, size_t third)
{
	const double *ry = j->w->ry;
	double deepest = 0.0, *a;
	size_t m = j->m, i, k;

	for (i = m - third; i < m; i++)
		for (k = 1; k <= RELEASE_POINTS && k <= i; k++)
			if (ry[i - k] - ry[i] > deepest)
				deepest = ry[i - k] - ry[i];
	if (!(deepest > jump_threshold(j)) || !(deepest > RELEASE_RISE_SHARE * fabs(edge_rise(j))))
		return false;
	a = line_residuals(j);
	return deepest > RELEASE_IQR_RATIO * (mw_select_kth(a, m, 3 * m / 4) -
					      mw_select_kth(a, m, m / 4));
}

/* Pass: settling.  Growth that slows to under half its rate within the span
 * while small against the process (an allocator's creep after a cache
 * reached its cap, arenas settling) is not a leak; growth fast against the
 * process is one however it slows (an interning table that never stops),
 * unless it slowed smoothly to a creep small against the process
 * (slowed_to_creep). */
/* Settling is judged on thirds of SETTLING_MIN_POINTS points or more;
 * sawtooth floors, one a cycle, are fewer for a long while (a cycle of 3
 * minutes: 7 to 10 floors at 30 to 40 minutes).  From FEW_FLOORS_MIN of
 * them a fill slowing to its cap shows as well: a Go cache (recorded,
 * ok_gocachefree: floors rising 10 MiB a cycle, then 4.7, 2.2, 0.6 as it
 * reached its cap, its resident set handed back every 3 minutes) failed
 * at 33-38 minutes at 162 MiB/h "steady to the end", flat from 30
 * minutes on (slowing_on_few_floors). */
#define SETTLING_MIN_POINTS 15
#define FEW_FLOORS_MIN 8	/* three, two, three */
#define FEW_FLOORS_RATIO 0.25

/* The slope of floors from .. from + n: Theil-Sen from three, the two
 * floors' own slope from two (ok 0 below). */
static void floors_slope(const double *x, const double *y, size_t n, double *work,
			 struct mw_ts_fit *fit)
{
	if (n != 2) {
		mw_ts_fit(x, y, n, 1.0, MW_TS_SLOPE_ONLY, work, fit);
		return;
	}
	fit->lo = fit->hi = NAN;
	fit->ok = x[1] > x[0];
	fit->slope = fit->ok ? (y[1] - y[0]) / (x[1] - x[0]) : NAN;
}

/* Inconclusive: few sawtooth floors slowing all along.  The first and
 * last thirds are three floors at least (a floor that did not rise for
 * one cycle, as a leak's may not, is no slowing: the median of the last
 * three's slopes is still half the rate); the last third rises under
 * FEW_FLOORS_RATIO of the first's rate and under SETTLING_RATIO of the
 * middle's, so a heap that grew fast at first and then leaks steadily
 * (its middle and last third alike) still fails.  Never a pass: with no
 * interval to settle on, slowing this much is worth waiting for, no
 * more. */
static bool slowing_on_few_floors(const struct judging *j, struct mw_leak_result *out)
{
	const double *rx = j->w->rx, *ry = j->w->ry;
	size_t m = j->m, k = m / 3 < 3 ? 3 : m / 3;
	struct mw_ts_fit head, mid, last;
	char rate[32];

	floors_slope(rx, ry, k, j->w->pairs, &head);
	floors_slope(rx + k, ry + k, m - 2 * k, j->w->pairs, &mid);
	floors_slope(rx + m - k, ry + m - k, k, j->w->pairs, &last);
	if (!(head.ok && mid.ok && last.ok && head.slope > 0 &&
	      last.slope < FEW_FLOORS_RATIO * head.slope && last.slope < SETTLING_RATIO * mid.slope))
		return false;
	mw_leak_fmt_amount(rate, sizeof(rate), fmax(last.slope, 0.0) * HOUR_MS, j->p);
	mw_leak_no_rate(out);
	out->verdict = MW_VERDICT_INCONCLUSIVE;
	out->undecided = 1;
	snprintf(out->reason, sizeof(out->reason),
		 "slowing, not settled yet: %s/h over its last %zu sawtooth floors, %.0f %% of its "
		 "rate over the first %zu", rate, k, 100.0 * fmax(last.slope, 0.0) / head.slope, k);
	return true;
}

static bool pass_when_settling(const struct judging *j, struct mw_leak_result *out)
{
	const double *rx = j->w->rx, *ry = j->w->ry;
	size_t m = j->m, third = m / 3;
	struct mw_ts_fit head, mid, last;
	char rate[32];
	bool fast;

	if (m < SETTLING_MIN_POINTS)
		return j->saw && m >= FEW_FLOORS_MIN && slowing_on_few_floors(j, out);
	fast = fast_relative(out->slope_bph * j->span_ms / HOUR_MS, ry[0], j->span_ms);
	mw_ts_fit(rx, ry, third, 1.0, MW_TS_SLOPE_ONLY, j->w->pairs, &head);
	mw_ts_fit(rx + m - third, ry + m - third, third, 1.0, MW_Z95, j->w->pairs, &last);
	if (!(head.ok && last.ok && head.slope > 0 && last.slope < SETTLING_RATIO * head.slope))
		return false;
	if (j->saw && !(last.hi < SETTLING_RATIO * head.slope))
		return false;
	if (fast) {
		mw_ts_fit(rx + third, ry + third, m - 2 * third, 1.0, MW_TS_SLOPE_ONLY, j->w->pairs,
			  &mid);
		if (!slowed_to_creep(j, &head, &mid, &last, third))
			return false;
	}
	/* a release in the last third: its slope is no settling */
	if (release_in_last_third(j, third))
		return false;
	/* settled by its slope, but a staircase's last third may still step */
	if (last.slope * HOUR_MS <= settled_rate(j)) {
		enum mw_verdict steps = steps_in_last_third(j, third, out);

		if (steps == MW_VERDICT_FAIL)
			return false;
		if (steps == MW_VERDICT_INCONCLUSIVE) {
			mw_leak_no_rate(out);
			return true;
		}
	}
	mw_leak_fmt_amount(rate, sizeof(rate), last.slope * HOUR_MS, j->p);
	mw_leak_no_rate(out);
	if (last.slope * HOUR_MS > settled_rate(j)) {
		/* Slowing, but still faster than a leak that matters: a JVM
		 * that grew its heap and leaks inside it slows like one that
		 * settles.  Not a pass until it has settled. */
		out->verdict = MW_VERDICT_INCONCLUSIVE;
		out->undecided = 1;
		snprintf(out->reason, sizeof(out->reason),
			 "slowing, not settled yet: %s/h, %.0f %% of its rate in the first third",
			 rate, 100.0 * last.slope / head.slope);
		return true;
	}
	/* slowed, but a leak that matters could go on under it (the last
	 * third's own bound): constructed, a cache filled by 20 MiB, then
	 * 1 MiB/h under a wander (AR(0.9) at 5 s, 0.05-1.1 MiB innovations),
	 * read "settling: slowed to 994 KiB/h" at 70 minutes in 100 of 312
	 * seeds */
	if (!j->p->count_unit) {
		double hi = upper_bound_from(j, m - third);

		if (hi * HOUR_MS >= settled_rate(j)) {
			char seen[96];

			if (last.slope > 0)
				snprintf(seen, sizeof(seen), "slowing to %s/h in the last third",
					 rate);
			else
				snprintf(seen, sizeof(seen), "no rise in the last third");
			unbounded_rise(j, out, hi * HOUR_MS, seen);
			return true;
		}
	}
	out->verdict = MW_VERDICT_PASS;
	if (last.slope <= 0)	/* no negative rate in a pass's words */
		snprintf(out->reason, sizeof(out->reason),
			 "settled: rose in the first third, no longer in the last");
	else
		snprintf(out->reason, sizeof(out->reason),
			 "settling: slowed to %s/h, %.0f %% of its rate in the first third", rate,
			 100.0 * last.slope / head.slope);
	return true;
}

/* Pass: it grows, but not enough to matter (significance says "it grows",
 * the budget says "enough to matter"); the rate stays, that is the point,
 * without an onset or a projection. */
static bool pass_within_budget(const struct judging *j, struct mw_leak_result *out)
{
	char rate[32], budget[32];

	if (out->slope_bph > j->budget)
		return false;
	mw_leak_fmt_amount(rate, sizeof(rate), out->slope_bph, j->p);
	mw_leak_fmt_amount(budget, sizeof(budget), j->budget, j->p);
	out->verdict = MW_VERDICT_PASS;
	out->onset_ms = INT64_MIN;
	out->projected_bytes = 0.0;
	snprintf(out->reason, sizeof(out->reason), "rising %s/h, within the budget of %s/h", rate,
		 budget);
	return true;
}

/* How long the rise before point s took: from where the points last
 * stood under a tenth of the way from base (the span's first points) to
 * ry[s] to where they first stood nine tenths of it.  A staircase's rise
 * spans its steps, so the quiet after its last is shorter than the rise. */
static double rise_duration(const struct judging *j, size_t s, double base)
{
	const double *rx = j->w->rx, *ry = j->w->ry;
	double rise = ry[s] - base;
	size_t i, i10 = s, i90 = s;

	if (!(rise > 0))
		return INFINITY;
	for (i = s + 1; i-- > 0;) {
		if (ry[i] < base + 0.1 * rise)
			break;
		i10 = i;
	}
	for (i = 0; i <= s; i++)
		if (ry[i] >= base + 0.9 * rise) {
			i90 = i;
			break;
		}
	return i90 > i10 ? rx[i90] - rx[i10] : 0.0;
}

/* How far the points of the last span_ms moved (highest less lowest);
 * INFINITY over sawtooth floors or fewer than PAUSE_MIN_POINTS points
 * (a cycle or two of floors is no flat). */
static double moved_lately(const struct judging *j, double span_ms)
{
	const double *rx = j->w->rx, *ry = j->w->ry;
	size_t m = j->m, i = m - 1, n = 1;
	double lo = ry[i], hi = ry[i];

	if (j->saw)
		return INFINITY;
	while (i-- > 0 && rx[m - 1] - rx[i] <= span_ms) {
		lo = fmin(lo, ry[i]);
		hi = fmax(hi, ry[i]);
		n++;
	}
	return n < PAUSE_MIN_POINTS ? INFINITY : hi - lo;
}

/* The longest stretch between moves up during the rise (points from ..
 * to): a move is a rise between neighbours beyond jump_threshold.  A
 * staircase's is its gap between steps (a worker added every 20 minutes:
 * 20); a cache filling by the Go heap's growth, a minute or two; a smooth
 * rise has no moves: the whole stretch. */
static double longest_quiet(const struct judging *j, size_t from, size_t to)
{
	const double *rx = j->w->rx, *ry = j->w->ry;
	double thr = jump_threshold(j), last = rx[from], longest = 0.0;
	size_t i;

	for (i = from + 1; i <= to; i++)
		if (ry[i] - ry[i - 1] > thr) {
			longest = fmax(longest, rx[i] - last);
			last = rx[i];
		}
	return last == rx[from] ? rx[to] - rx[from] : longest;
}

/* Inconclusive: a rise that stopped before the end.  Without this a ramp
 * followed by a flat shorter than the tail (a third of the span, at least
 * 30 min: pass_when_stopped) fails as "rising ... steady to the end": a
 * JVM sizing its heap (recorded: 170 MiB of private bytes between 11 and
 * 18 minutes, 0.4 MiB in the 13 minutes after) failed at 31 minutes at
 * 301 MiB/h.  The flat is the longest stretch before the end whose points
 * all lie within HELD_FLAT_SHARE of the rise before it (from the span's
 * first points), held at least HELD_MIN_MS and as long as the rise took
 * (rise_duration): a steady leak rises as much in a stretch as long as
 * its rise before, a bursty one's quiet is shorter, a staircase's shorter
 * than its steps took; or, shorter, a pause (PAUSE_MIN_MS) that outlasts
 * twice every quiet of the rise before it.  Held ONE_STEP_HOLD_MS (not a
 * pause) it passes as stopped (the tail rule mostly has by then, unless a
 * step in the tail makes its fit lean); until then the next minutes tell
 * a load from a pause. */
static bool held_after_rise(const struct judging *j, struct mw_leak_result *out)
{
	const double *rx = j->w->rx, *ry = j->w->ry;
	size_t m = j->m, w = edge_window(m), i, s = m;
	double base, lo, hi, moved_by = 0;
	char d[32], rise[32], moved[32];
	bool held;

	if (!(j->seg.slope > 0) || m < DOMINANT_MIN_POINTS)
		return false;
	base = mw_window_median(ry, 0, w, j->w->a);
	lo = hi = ry[m - 1];
	for (i = m - 1; i-- > w;) {
		lo = fmin(lo, ry[i]);
		hi = fmax(hi, ry[i]);
		if (hi - lo <= HELD_FLAT_SHARE * (ry[i] - base)) {
			s = i;
			moved_by = hi - lo;
		}
	}
	if (s >= m || rx[m - 1] - rx[s] < PAUSE_MIN_MS)
		return false;
	held = rx[m - 1] - rx[s] >= HELD_MIN_MS && rx[m - 1] - rx[s] >= rise_duration(j, s, base);
	if (!held && !(rx[m - 1] - rx[s] >= 2.0 * longest_quiet(j, w, s) &&
		       moved_lately(j, PAUSE_MIN_MS) < PAUSE_SHARE * j->seg.slope * PAUSE_MIN_MS))
		return false;
	out->verdict = MW_VERDICT_INCONCLUSIVE;
	mw_leak_no_rate(out);
	out->undecided = 1;
	mw_leak_fmt_amount(rise, sizeof(rise), ry[s] - base, j->p);
	mw_leak_fmt_amount(moved, sizeof(moved), moved_by, j->p);
	mw_leak_fmt_duration(d, sizeof(d), rx[m - 1] - rx[s]);
	if (held && rx[m - 1] - rx[s] >= ONE_STEP_HOLD_MS) {
		/* held as long as a one-time load must: stopped, though the
		 * tail's own fit still leans (a JVM committing a step of 1-2
		 * MiB now and then: ok_java at 100 minutes) */
		out->verdict = MW_VERDICT_PASS;
		out->undecided = 0;
		snprintf(out->reason, sizeof(out->reason),
			 "stopped rising: within %s for the last %s after +%s", moved, d, rise);
		return true;
	}
	snprintf(out->reason, sizeof(out->reason),
		 "rose +%s, then within %s for the last %s: not rising to the end, the next "
		 "minutes tell a load from a pause", rise, moved, d);
	return true;
}

/* A slow staircase's steps must be this many before its trend is trusted:
 * k steps up and none down are k + 1 levels in rising order, which a rank
 * test over the levels (the independent part of the data) finds
 * significant at TREND_Z's two-sided 0.001 from 7 levels on (2 / 7! =
 * 0.0004; 2 / 6! = 0.0028). */
#define STAIR_MIN_STEPS 6
/* A jump is at least this share of the span's rise (a smooth leak's
 * points move by a few hundredths of it at most), and the jumps carry at
 * least STAIR_SHARE of the rise. */
#define STAIR_JUMP_SHARE (1.0 / 20.0)
#define STAIR_SHARE 0.8
/* Jumps this close to the one before are the same step: an allocator
 * taking its spans in an episode of a minute or so (recorded: tcmalloc,
 * 300 KiB as two jumps 20 s apart, or 60 s). */
#define STAIR_MERGE_MS (2 * 60000.0)

/* The steps of a staircase: how many runs of jumps up carry the rise
 * (jumps within STAIR_MERGE_MS of the one before are one step: a step
 * spreads over the block medians it falls in, and an allocator may take
 * it in two goes); 0 when the rise is not carried by jumps, or the points
 * also fall by a quarter of it. */
static size_t staircase_steps(const struct judging *j, double *rise_out)
{
	const double *rx = j->w->rx, *ry = j->w->ry;
	size_t i, m = j->m, steps = 0, last_jump = 0;
	double up = 0.0, down = 0.0, jumps = 0.0, thr;

	for (i = 1; i < m; i++) {
		double d = ry[i] - ry[i - 1];

		if (d > 0)
			up += d;
		else
			down -= d;
	}
	*rise_out = up - down;
	if (!(up > 0) || down > 0.25 * up)
		return 0;
	thr = jump_threshold(j);
	if (thr < STAIR_JUMP_SHARE * up)
		thr = STAIR_JUMP_SHARE * up;
	for (i = 1; i < m; i++) {
		double d = ry[i] - ry[i - 1];

		if (!(d > thr))
			continue;
		jumps += d;
		if (!steps || rx[i] - rx[last_jump] > STAIR_MERGE_MS)
			steps++;
		last_jump = i;
	}
	return jumps >= STAIR_SHARE * up ? steps : 0;
}

/* Inconclusive: the trend test says "rising", but the rise is a few steps
 * slow against the process (under SHORTCUT_REL_PER_HOUR of its level an
 * hour, where the shape shortcuts do not apply) - fewer than
 * STAIR_MIN_STEPS of them.  The autocorrelation-corrected test over such
 * a trace crosses its bar and falls back as each step comes: tcmalloc
 * serving a churn (recorded: ok_tc, not leaking, its spans taken in steps
 * of ~300 KiB every few minutes, slowing) read pass at 30 minutes, fail at
 * 32 and 33, "not yet sure" at 34 and pass at 36.  Until enough steps
 * have come, the next ones decide; a fast staircase (a leak in bursts of
 * a tenth of the process) is decided by the shortcuts as before. */
static bool few_steps_to_fit(const struct judging *j, struct mw_leak_result *out)
{
	const double *rx = j->w->rx, *ry = j->w->ry;
	size_t m = j->m, steps;
	double rise;
	char d[32], amount[32];

	if (j->dominant || !j->trend || j->saw || j->p->count_unit || m < DOMINANT_MIN_POINTS)
		return false;
	steps = staircase_steps(j, &rise);
	if (!steps || steps >= STAIR_MIN_STEPS ||
	    fast_relative(rise, ry[0], rx[m - 1] - rx[0]))
		return false;
	out->verdict = MW_VERDICT_INCONCLUSIVE;
	mw_leak_no_rate(out);
	out->undecided = 1;
	mw_leak_fmt_duration(d, sizeof(d), j->span_ms);
	mw_leak_fmt_amount(amount, sizeof(amount), rise, j->p);
	snprintf(out->reason, sizeof(out->reason),
		 "rising in %zu steps over %s (+%s), too few yet to fit a steady rate", steps, d,
		 amount);
	return true;
}

/* Inconclusive: a rise since an onset that ends no higher yet than the
 * points before the onset went.  Where it ends (the median of the last
 * edge window after the onset) must stand above the highest point before
 * it by more than a jump (jump_threshold): a wander's last upward
 * excursion, which the hinge picks as readily as a leak's start and
 * whose points the hinge model follows well enough for the trend test,
 * climbs back to levels it held before; a leak goes beyond them (also
 * under releases, whose dips lie below: lk_goslice ends 1.3 MiB above its
 * highest before its onset at 50 minutes).  Recorded (the langs set,
 * ok_nodebuf: a Node service churning Buffers, its private bytes
 * wandering 0.7 MiB on 95 MiB): at 31 minutes the hinge sat at the
 * wander's low at 17 minutes, and it failed "rising 2.2 MiB/h since ...,
 * steady to the end" (+0.54 MiB, p 0.0002 over the span), ending no
 * higher than it had stood at 10 minutes.  A sawtooth's floors and a rise
 * far beyond its own spread (dominant) are left to the rules above. */
static bool within_earlier_wander(const struct judging *j, struct mw_leak_result *out)
{
	const double *rx = j->w->rx, *ry = j->w->ry;
	size_t i, k = j->k_on, m = j->m, w;
	double hi, jump, end;
	char rate[32], d[32], above[32], jumps[32];

	if (!j->has_onset || j->dominant || j->saw || k < 4 || k >= m)
		return false;
	hi = ry[0];
	for (i = 1; i < k; i++)
		hi = fmax(hi, ry[i]);
	w = edge_window(m - k);
	end = mw_window_median(ry, m - w, w, j->w->a);
	jump = jump_threshold(j);
	if (end - hi > jump)
		return false;
	mw_leak_fmt_amount(rate, sizeof(rate), j->seg.slope * HOUR_MS, j->p);
	mw_leak_fmt_duration(d, sizeof(d), rx[m - 1] - rx[k]);
	mw_leak_fmt_amount(above, sizeof(above), fmax(end - hi, 0.0), j->p);
	mw_leak_fmt_amount(jumps, sizeof(jumps), jump, j->p);
	out->verdict = MW_VERDICT_INCONCLUSIVE;
	mw_leak_no_rate(out);
	out->undecided = 1;
	snprintf(out->reason, sizeof(out->reason),
		 "rising about %s/h for the last %s, but no higher than it stood before that (%s "
		 "above, within the %s its points jump): not yet sure enough to call a leak", rate,
		 d, above, jumps);
	return true;
}

/* A slow rise (under half the smallest leak the defaults must fail: 512
 * KB/h by default) over a span shorter than SLOW_FAIL_MIN_SPAN_MS is no
 * fail yet: over the first hour an allocator settling under a steady
 * load creeps that fast, steadily enough for the trend test, and only a
 * longer look tells it from a leak (a leak that slow is none the
 * defaults must fail within half an hour).  Recorded (session 35, a
 * second recording of the first set): ok_redis, Debian's redis 7 under
 * keys expiring after 60 s, crept 19.23 -> 19.52 MiB from 3 to 43
 * minutes and failed "rising 305 KiB/h since the start" at 30-33 and
 * from 42 minutes. */
#define SLOW_FAIL_MIN_SPAN_MS (60 * 60000.0)
static bool slow_and_short(const struct judging *j, struct mw_leak_result *out)
{
	double slow = 0.5 * settled_rate(j), r = out->slope_bph;
	char rate[32], below[32], d[32], need[32];

	/* the judged span's own rate too: a fit from an onset at the start
	 * carries the warm-up's rise */
	if (j->full.ok && j->full.slope * HOUR_MS < r)
		r = j->full.slope * HOUR_MS;
	if (j->p->count_unit || !(r < slow) || !(j->span_ms < SLOW_FAIL_MIN_SPAN_MS))
		return false;
	mw_leak_fmt_amount(rate, sizeof(rate), r, j->p);
	mw_leak_fmt_amount(below, sizeof(below), slow, j->p);
	mw_leak_fmt_duration(d, sizeof(d), j->span_ms);
	mw_leak_fmt_duration(need, sizeof(need), SLOW_FAIL_MIN_SPAN_MS);
	out->verdict = MW_VERDICT_INCONCLUSIVE;
	mw_leak_no_rate(out);
	out->undecided = 1;
	snprintf(out->reason, sizeof(out->reason),
		 "rising slowly, %s/h over %s: too soon to tell from an allocator's creep (a "
		 "rise under %s/h is judged over %s)", rate, d, below, need);
	return true;
}

/*
 * Judge the n points in w->x, w->y (ms since judged_from, floors): reduce
 * them, measure, then apply the rules in order; a trace that none of them
 * passes fails (its onset and reason are dated by the caller).  *saw_out
 * and *budget_out say what the fail's reason needs.
 */
static void judge_points(struct mw_leak_work *w, size_t n, const struct mw_leak_params *p,
			 int64_t judged_from, double span_ms, double pre_level,
			 struct mw_leak_result *out, int *saw_out, double *budget_out)
{
	struct judging j;

	memset(&j, 0, sizeof(j));
	j.pre_level = pre_level;
	j.w = w;
	j.p = p;
	j.span_ms = span_ms;
	j.n = n;
	j.judged_from = judged_from;
	j.wy = w->c;
	if (!reduce_points(&j, n, out))
		return;
	mw_winsorize(w->ry, j.m, j.wy, w->a);
	choose_variance_factor(&j);
	test_trend(&j, out);
	out->trended = j.trend;
	find_dominant_rise(&j);
	find_onset(&j);
	fit_tail(&j);
	fill_figures(&j, out);
	*budget_out = j.budget;
	retest_after_onset(&j, out);
	if (!(pass_without_trend(&j, out) || pass_when_stopped(&j, out) ||
	      pass_when_settling(&j, out) || pass_within_budget(&j, out) ||
	      held_after_rise(&j, out) || few_steps_to_fit(&j, out) ||
	      within_earlier_wander(&j, out) || slow_and_short(&j, out)))
		out->verdict = MW_VERDICT_FAIL;
	*saw_out = j.saw;
}

/* ---- the trace before the points ------------------------------------------ */

/* Where a trace's data lies: the first and last valid bucket, the first
 * judged one (after the warm-up), and how many are valid or out of range. */
struct judged_span {
	size_t first, last, js;
	size_t nv;		/* valid buckets from js to last */
	size_t nbad;		/* values that are not memory sizes */
	size_t nhole;		/* empty buckets from js to last in a clock step's hole */
};

/* A trace that can be read at all: data, a positive step, and a time
 * axis t0 + n * step that does not overflow. */
static bool trace_readable(const struct mw_trace *tr, struct mw_leak_result *out)
{
	int64_t step;

	if (!tr || !tr->v || tr->n == 0) {
		snprintf(out->reason, sizeof(out->reason), "no data");
		return false;
	}
	step = tr->step_ms;
	if (step <= 0) {
		snprintf(out->reason, sizeof(out->reason), "bad trace: bucket step %lld ms", (long long)step);
		return false;
	}
	if ((tr->t0_ms > 0 && (uint64_t)(INT64_MAX - tr->t0_ms) / (uint64_t)step < tr->n) ||
	    (tr->t0_ms <= 0 && (uint64_t)INT64_MAX / (uint64_t)step < tr->n)) {
		snprintf(out->reason, sizeof(out->reason), "bad trace: time axis overflows");
		return false;
	}
	return true;
}

/* The first and last valid bucket (first_ms, last_ms) and the values out
 * of range between them, which the coverage reason mentions. */
static bool find_data(const struct mw_trace *tr, struct judged_span *s, struct mw_leak_result *out)
{
	size_t i;

	for (s->first = 0; s->first < tr->n && !mw_leak_valid_value(tr->v[s->first]); s->first++)
		;
	if (s->first == tr->n) {
		snprintf(out->reason, sizeof(out->reason), "no usable data: %zu buckets, none valid", tr->n);
		return false;
	}
	for (s->last = tr->n - 1; !mw_leak_valid_value(tr->v[s->last]); s->last--)
		;
	s->nbad = 0;
	for (i = s->first; i <= s->last; i++)
		if (!isnan(tr->v[i]) && !mw_leak_valid_value(tr->v[i]))
			s->nbad++;
	out->first_ms = tr->t0_ms + (int64_t)s->first * tr->step_ms;
	out->last_ms = tr->t0_ms + (int64_t)s->last * tr->step_ms;
	return true;
}

/* The warm-up left at the trace's first bucket with data. */
static int64_t warmup_left(const struct mw_trace *tr, const struct judged_span *s,
			   const struct mw_leak_params *p)
{
	return mw_leak_warmup_left(p, p->process_start_ms,
				   tr->t0_ms + (int64_t)s->first * tr->step_ms, tr->step_ms);
}

/* Enough to judge after the warm-up (JIT, pools and caches settle in it):
 * a run longer than the warm-up, a judged span of min_duration_ms, the
 * buckets mostly present (min_coverage) and eight valid ones at least;
 * else inconclusive with what is missing. */
static bool enough_after_warmup(const struct mw_trace *tr, const struct mw_leak_params *p,
				struct judged_span *s, struct mw_leak_result *out)
{
	int64_t step = tr->step_ms, warmup = warmup_left(tr, s, p);
	int64_t skip = warmup / step + (warmup % step != 0);
	size_t i;
	char s1[32], s2[32];

	if ((uint64_t)skip > (uint64_t)(s->last - s->first)) {
		mw_leak_fmt_duration(s1, sizeof(s1), (double)(out->last_ms - out->first_ms + step));
		mw_leak_fmt_duration(s2, sizeof(s2), (double)warmup);
		snprintf(out->reason, sizeof(out->reason),
			 "too little data after warm-up: run of %s is shorter than the %s%s", s1, s2,
			 warmup < p->warmup_ms ? " left of its warm-up" : " warm-up");
		return false;
	}
	s->js = s->first + (size_t)skip;
	out->judged_from_ms = tr->t0_ms + (int64_t)s->js * step;
	s->nv = s->nhole = 0;
	for (i = s->js; i <= s->last; i++)
		if (mw_leak_valid_value(tr->v[i]))
			s->nv++;
		else if (p->nholes && mw_leak_in_hole(tr, i, p))
			s->nhole++;
	out->coverage = (double)s->nv / (double)(s->last - s->js + 1 - s->nhole);
	if ((double)(s->last - s->js + 1 - s->nhole) * (double)step < (double)p->min_duration_ms) {
		mw_leak_fmt_duration(s1, sizeof(s1),
				     (double)(s->last - s->js + 1 - s->nhole) * (double)step);
		snprintf(out->reason, sizeof(out->reason), "too little data after warm-up: %s", s1);
		return false;
	}
	if (out->coverage < p->min_coverage) {
		snprintf(out->reason, sizeof(out->reason),
			 "data mostly missing: %.0f %% of the buckets after warm-up%s",
			 out->coverage * 100.0, s->nbad ? " (some values out of range)" : "");
		return false;
	}
	if (s->nv < 8) {
		snprintf(out->reason, sizeof(out->reason), "too little data after warm-up: %zu buckets", s->nv);
		return false;
	}
	return true;
}

/* The level the warm-up ended at: the median of its valid buckets over
 * the last sixteenth of the judged span's length (three at least), NaN
 * when fewer than three are valid.  scratch holds that many. */
static double warmup_end_level(const struct mw_trace *tr, const struct judged_span *s,
			       double *scratch, size_t room)
{
	size_t k = (s->last - s->js + 1) / 16, i, n = 0, lo;

	if (k < 3)
		k = 3;
	lo = s->js > s->first + k ? s->js - k : s->first;
	for (i = s->js; i > lo && n < room; i--)
		if (mw_leak_valid_value(tr->v[i - 1]))
			scratch[n++] = tr->v[i - 1];
	return n >= 3 ? mw_median_inplace(scratch, n) : NAN;
}

/* The wall-clock time of x ms of the closed axis (holes left out) after
 * the judged start: the start of the first bucket at or after it, so a
 * fit dated after a step forward is not early by the step. */
static int64_t wall_of_closed(const struct mw_trace *tr, const struct judged_span *s,
			      const struct mw_leak_params *p, double x)
{
	size_t i, holes = 0;

	for (i = s->js; i <= s->last; i++)
		if (mw_leak_in_hole(tr, i, p))
			holes++;
		else if ((double)(i - s->js - holes) * (double)tr->step_ms >= x)
			break;
	return tr->t0_ms + (int64_t)(i <= s->last ? i : s->last) * tr->step_ms;
}

/* The judged points into w->x (ms since the judged start), w->y; a trace
 * that is one value throughout passes as flat, with its level and a zero
 * rate (nothing for the statistics to do). */
static bool collect_points(const struct mw_trace *tr, const struct judged_span *s,
			   const struct mw_leak_params *p, struct mw_leak_work *w,
			   struct mw_leak_result *out)
{
	size_t i, k = 0, holes = 0;
	double lo = INFINITY, hi = -INFINITY;
	char level[32];

	for (i = s->js; i <= s->last; i++)
		if (s->nhole && mw_leak_in_hole(tr, i, p)) {
			holes++;	/* the axis closes over it */
		} else if (mw_leak_valid_value(tr->v[i])) {
			w->x[k] = (double)(i - s->js - holes) * (double)tr->step_ms;
			w->y[k] = tr->v[i];
			if (w->y[k] < lo)
				lo = w->y[k];
			if (w->y[k] > hi)
				hi = w->y[k];
			k++;
		}
	if (lo != hi)
		return true;
	out->verdict = MW_VERDICT_PASS;
	out->slope_bph = out->slope_lo_bph = out->slope_hi_bph = 0.0;
	out->growth_bytes = 0.0;
	out->level_bytes = lo;
	out->fit_t0_ms = out->judged_from_ms;
	out->fit_value0 = lo;
	out->p_value = 1.0;
	mw_leak_fmt_amount(level, sizeof(level), lo, p);
	snprintf(out->reason, sizeof(out->reason), "flat: constant at %s", level);
	return false;
}

static void judge_trace(const struct mw_trace *tr, const struct mw_leak_params *pin,
			struct mw_leak_result *out)
{
	struct mw_leak_params p;
	struct judged_span s;
	struct mw_leak_work w;
	int saw = 0;
	double budget = 0.0;

	mw_leak_result_reset(out);
	mw_leak_params_sane(pin, &p);
	if (!trace_readable(tr, out) || !find_data(tr, &s, out) ||
	    !enough_after_warmup(tr, &p, &s, out))
		return;
	if (mw_leak_work_alloc(&w, s.nv) < 0) {
		mw_leak_work_free(&w);
		snprintf(out->reason, sizeof(out->reason), "out of memory");
		return;
	}
	if (collect_points(tr, &s, &p, &w, out)) {
		/* w->a is scratch until the points are judged */
		double pre = warmup_end_level(tr, &s, w.a, s.nv);

		judge_points(&w, s.nv, &p, out->judged_from_ms,
			     (double)(s.last - s.js - s.nhole) * (double)tr->step_ms, pre, out, &saw,
			     &budget);
		if (s.nhole && out->fit_t0_ms != INT64_MIN)
			out->fit_t0_ms = wall_of_closed(tr, &s, &p,
							(double)(out->fit_t0_ms - out->judged_from_ms));
	}
	mw_leak_work_free(&w);
	if (out->verdict == MW_VERDICT_FAIL)
		mw_leak_date_onset(tr, s.first, s.last, &p, out, saw, budget);
}

void mw_leak_judge(const struct mw_trace *tr, const struct mw_leak_params *pin,
		   struct mw_leak_result *out)
{
	struct mw_trace merged;
	double *v;

	if (!out)
		return;
	/* samples sparser than the buckets are spacing, not missing data
	 * (leak_sparse.c) */
	v = mw_leak_merge_sparse(tr, &merged);
	judge_trace(v ? &merged : tr, pin, out);
	free(v);
}
