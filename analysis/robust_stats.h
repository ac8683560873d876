/*
 * robust_stats.h - robust statistics on arrays of doubles: order
 * statistics, Theil-Sen slopes with Sen's interval, Mann-Kendall with a
 * variance corrected for autocorrelation, small least-squares models
 * (line on one regressor, hinge, plateau, quadratic), block medians,
 * winsorizing and the monotone (isotonic) fit.
 *
 * Pure maths, no I/O, no state: the leak verdict (analysis/leak*.c) is
 * built on these; nothing outside analysis/ includes this header (the
 * process table uses mw_theil_sen from leak.h).  Functions that take a
 * scratch or work array use it as said and allocate nothing; arrays are
 * NaN-free and x is ascending unless said otherwise.
 */
#ifndef MW_ANALYSIS_ROBUST_STATS_H
#define MW_ANALYSIS_ROBUST_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* z for a two-sided 95 % interval. */
#define MW_Z95 1.959963984540054
/* mw_ts_fit's z for a fit whose interval nobody reads: the slope alone
 * (lo = hi = slope), one rank selected where the interval's ends are
 * selected too (up to a third of a report's judging, perf). */
#define MW_TS_SLOPE_ONLY 0.0

/* ---- order statistics: these reorder a ---- */

/* The k-th smallest of a[0..n) (0-based), partially ordering a so that
 * a[0..k-1] <= a[k] <= a[k+1..n-1]. */
double mw_select_kth(double *a, size_t n, size_t k);
/* The median of a[0..n) (the mean of the two middle ones for even n);
 * NaN for n = 0. */
double mw_median_inplace(double *a, size_t n);
/* The median of y[from .. from + n), y left as it is (scratch holds n). */
double mw_window_median(const double *y, size_t from, size_t n, double *scratch);
/* The 90th percentile minus the 10th of a[0..n): a spread that one dip
 * or spike cannot widen. */
double mw_spread_10_90(double *a, size_t n);

/* ---- Theil-Sen ---- */

/* A Theil-Sen fit: the median pair slope and its interval; ok 0 when it
 * could not be computed (slope, lo, hi then NaN). */
struct mw_ts_fit {
	double slope, lo, hi;
	int ok;
};

/* mw_ts_fit of n points can succeed: three of them, two distinct times. */
bool mw_ts_fit_possible(const double *x, size_t n);
/* Theil-Sen slope of (x[i], y[i]) with Sen's distribution-free interval
 * at z, its variance inflated by f (n / n_eff, at least 1); work holds
 * n(n-1)/2 doubles. */
void mw_ts_fit(const double *x, const double *y, size_t n, double f, double z, double *work,
	       struct mw_ts_fit *out);

/* ---- Mann-Kendall and the effective sample size ---- */

/* The variance inflation n / n_eff (>= 1) of a rank test from the
 * autocorrelation of the ranks of the residuals r[0..n) in time order;
 * work holds 2n doubles. */
double mw_rank_inflation(const double *r, size_t n, double *work);
/* Mann-Kendall's z for y[0..n) in time order, ties corrected, its
 * variance inflated by f; work holds n doubles. */
double mw_mann_kendall_z(const double *y, size_t n, double f, double *work);

/* The ranks (0-based, among m pair slopes of n points) of Sen's interval
 * ends for variance factor f (below 1 taken as 1) and normal quantile z:
 * the median's rank m / 2 at the innermost. */
void mw_ts_interval_ranks(size_t m, size_t n, double f, double z, size_t *ilo, size_t *ihi);

/* ---- least-squares models ---- */

/* Least squares of y on one regressor h (with an intercept): the
 * residuals into res (may be NULL), returns the sum of their squares. */
double mw_ls_fit1(const double *h, const double *y, size_t n, double *res);
/* Residuals of the least-squares parabola through (x, y) into res. */
void mw_quad_residuals(const double *x, const double *y, size_t n, double *res);
/* The regressor of a hinge at x[k], max(0, x - x[k]) (flat, then a
 * line), and of a plateau at x[k], min(x, x[k]) (a line, then flat),
 * into h[0..n). */
void mw_hinge_regressor(const double *x, size_t n, size_t k, double *h);
void mw_plateau_regressor(const double *x, size_t n, size_t k, double *h);
/* The best hinge over k in [0, kmax] (0 is the plain line), the best
 * plateau over k in [kmin, n): returns k and its SSE in *sse_out; h is
 * n doubles of scratch. */
size_t mw_hinge_search(const double *x, const double *y, size_t n, size_t kmax, double *h,
		       double *sse_out);
size_t mw_plateau_search(const double *x, const double *y, size_t n, size_t kmin, double *h,
			 double *sse_out);
/* The median of y - slope * (x - x0): the intercept at x0 of a line of
 * that slope; scratch holds n doubles. */
double mw_intercept_at(const double *x, const double *y, size_t n, double slope, double x0,
		       double *scratch);

/* ---- reducing and cleaning a series ---- */

/* Block medians of (x, y) down to at most max_points points into rx, ry
 * (a copy when n <= max_points); returns their count.  scratch holds
 * n / max_points + 1 doubles. */
size_t mw_block_medians(const double *x, const double *y, size_t n, size_t max_points,
			double *scratch, double *rx, double *ry);
/* y clipped to 5 MADs around a running median of five, into out;
 * scratch holds 2n doubles. */
void mw_winsorize(const double *y, size_t n, double *out, double *scratch);
/* The least-squares non-decreasing fit of y[0..n) into fit (pool
 * adjacent violators); val and cnt hold n each. */
void mw_isotonic(const double *y, size_t n, double *fit, double *val, size_t *cnt);

#endif
