/*
 * robust_stats.c - the robust statistics the leak verdict is built on:
 * pure maths on arrays of doubles (see robust_stats.h for what each
 * function computes and why it is robust).
 *
 * Owner: the detector work.  Callers: analysis/leak*.c (the verdict, its
 * onset, the kind of memory) and, through mw_theil_sen (leak.h), the
 * process table's growth rates.  No I/O, no globals with state; the only
 * allocations are mw_theil_sen's, bounded by its input.
 */
#include "robust_stats.h"

#include "leak.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Beyond this, mw_theil_sen thins its input (memory for the pairs). */
#define TS_MAX_POINTS 2000

/* ---- order statistics ---------------------------------------------------- */

static void swapd(double *a, double *b)
{
	double t = *a;
	*a = *b;
	*b = t;
}

/* One Hoare partition of a[lo..hi] (hi > lo) around a median of three;
 * returns j with a[lo..j] <= pivot <= a[j+1..hi], lo <= j < hi.  Equal
 * keys split evenly, so all-equal input is not quadratic. */
static size_t partition(double *a, size_t lo, size_t hi)
{
	size_t mid = lo + (hi - lo) / 2, i = lo, j = hi;
	double pivot;

	if (a[mid] < a[lo])
		swapd(&a[mid], &a[lo]);
	if (a[hi] < a[lo])
		swapd(&a[hi], &a[lo]);
	if (a[hi] < a[mid])
		swapd(&a[hi], &a[mid]);
	pivot = a[mid];
	for (;;) {
		while (a[i] < pivot)
			i++;
		while (a[j] > pivot)
			j--;
		if (i >= j)
			return j;
		swapd(&a[i], &a[j]);
		i++;
		j--;
	}
}

/* Sort a[0..n) ascending: quicksort on partition(), the smaller side
 * first, insertion sort below 16.  Inline comparisons: qsort's calls to
 * a comparison function were 7 % of a report's judging (perf). */
static void sort_doubles(double *a, size_t n)
{
	size_t i, j;

	while (n > 16) {
		j = partition(a, 0, n - 1) + 1;	/* a[0..j) <= a[j..n), both non-empty */
		if (j < n - j) {
			sort_doubles(a, j);
			a += j;
			n -= j;
		} else {
			sort_doubles(a + j, n - j);
			n = j;
		}
	}
	for (i = 1; i < n; i++) {
		double v = a[i];

		for (j = i; j > 0 && a[j - 1] > v; j--)
			a[j] = a[j - 1];
		a[j] = v;
	}
}

/* Below this many elements a range is split by partition() (Hoare):
 * the branchless three-way split's two passes cost more than its
 * mispredictions save. */
#define SPLIT3_FROM 64

/* The median of three values (NaN: any order). */
static double median3(double x, double y, double z)
{
	if (x > y) {
		double t = x;

		x = y;
		y = t;
	}
	if (y > z)
		y = z;
	return x > y ? x : y;
}

/* A three-way split of a[lo..hi] around p, without a branch per element
 * (two branchless Lomuto passes; a stays a permutation of itself):
 * a[lo, *lt) < p, a[*lt, *gt) == p, a[*gt, hi] > p.  Hoare's partition
 * mispredicts about every other element on the pair slopes of a fit, a
 * third of a report's judging (perf); and the equal ones (the many zero
 * slopes of a series that moves in pages) are settled at once. */
static void split3(double *a, size_t lo, size_t hi, double p, size_t *lt, size_t *gt)
{
	size_t i, k = lo;

	for (i = lo; i <= hi; i++) {
		double v = a[i];

		a[i] = a[k];
		a[k] = v;
		k += (size_t)(v < p);
	}
	*lt = k;
	for (i = k; i <= hi; i++) {
		double v = a[i];

		a[i] = a[k];
		a[k] = v;
		k += (size_t)(v == p);
	}
	*gt = k;
}

/* Puts the r[0] < r[1] < ... (nr of them, 0-based, within lo..hi)
 * smallest of a[lo..hi] at those places, a partition at each: every
 * element before a rank's place is <= it, every one after >= it.  One
 * pass serves ranks on the same side of a pivot: a Theil-Sen fit's
 * median and interval bounds (a few percent of the pairs apart) cost
 * about one selection, not three.  Large ranges are split three ways
 * (split3), small ones and any holding a NaN pivot by partition(). */
static void select_ranks(double *a, size_t lo, size_t hi, const size_t *r, size_t nr)
{
	while (nr > 0 && hi > lo) {
		size_t j, left = 0, done = 0, lt, gt;
		double p;

		if (hi - lo >= SPLIT3_FROM) {
			p = median3(a[lo], a[lo + (hi - lo) / 2], a[hi]);
			if (p == p) {
				split3(a, lo, hi, p, &lt, &gt);
				while (left < nr && r[left] < lt)
					left++;
				if (left == nr) {	/* all below p: on in that part */
					hi = lt - 1;
					continue;
				}
				for (done = left; done < nr && r[done] < gt; done++)
					;	/* ranks among the equal ones: settled */
				if (left > 0)
					select_ranks(a, lo, lt - 1, r, left);
				r += done;
				nr -= done;
				lo = gt;
				continue;
			}
		}
		j = partition(a, lo, hi);
		while (left < nr && r[left] <= j)
			left++;
		if (left > 0 && left < nr)
			select_ranks(a, lo, j, r, left);
		if (left == nr) {
			hi = j;
		} else {
			r += left;
			nr -= left;
			lo = j + 1;
		}
	}
}

/*
 * select_ranks for ranks close together in a large array (a Theil-Sen
 * fit's median and interval ends): the order statistics of an evenly
 * spread sample bracket the ranks, one three-way pass leaves below the
 * bracket exactly the elements smaller than its low value and above it
 * those larger than its high one, and the selection runs on the middle
 * alone (after Floyd and Rivest): a fifth of the array for a trace with
 * little autocorrelation, most of it when the variance factor widens the
 * interval to most of the pairs.  When
 * the sample misjudged the bracket, the whole array is selected as
 * before.  The values at the ranks are the same either way: they are the
 * array's order statistics.  Unlike select_ranks, only a[r[i]] are
 * promised afterwards (the rest is some permutation of the pairs and
 * copies), which is all a fit reads.
 */
#define MAX_CLOSE_RANKS 4	/* a fit's interval ends and its two middle ranks */
#define BRACKET_SAMPLE 256
#define BRACKET_PAD 12		/* sample ranks of slack each side, ~2.5 sd */

static void select_close_ranks(double *a, size_t m, const size_t *r, size_t nr)
{
	double sample[BRACKET_SAMPLE], p1, p2;
	size_t i, k, lt, lo_k, hi_k, ks[2], stride = m / BRACKET_SAMPLE;

	if (nr == 0 || m < 16 * BRACKET_SAMPLE) {
		if (nr && m > 1)
			select_ranks(a, 0, m - 1, r, nr);
		return;
	}
	for (i = 0; i < BRACKET_SAMPLE; i++)
		sample[i] = a[i * stride + stride / 2];
	lo_k = r[0] / stride;
	hi_k = r[nr - 1] / stride + BRACKET_PAD;
	lo_k = lo_k > BRACKET_PAD ? lo_k - BRACKET_PAD : 0;
	if (hi_k >= BRACKET_SAMPLE)
		hi_k = BRACKET_SAMPLE - 1;
	/* the two order statistics of the sample, not a sort of it: qsort
	 * with its comparison calls was 7 % of a report's judging (perf) */
	ks[0] = lo_k;
	ks[1] = hi_k;
	select_ranks(sample, 0, BRACKET_SAMPLE - 1, ks, lo_k < hi_k ? 2 : 1);
	p1 = sample[lo_k];
	p2 = sample[hi_k];
	if (!(p1 <= p2)) {
		select_ranks(a, 0, m - 1, r, nr);
		return;
	}
	/* the elements within [p1, p2] to the front, a[0..k), without a
	 * branch (a branchless Lomuto pass: the array stays a permutation
	 * of itself), and lt counts those below p1: the three-way pass with
	 * a branch on each element was a third of the selection (perf) */
	k = lt = 0;
	for (i = 0; i < m; i++) {
		double v = a[i];

		a[i] = a[k];
		a[k] = v;
		k += (size_t)((v >= p1) & (v <= p2));
		lt += (size_t)(v < p1);
	}
	if (nr <= MAX_CLOSE_RANKS && lt <= r[0] && r[nr - 1] < lt + k) {
		size_t rr[MAX_CLOSE_RANKS];
		double val[MAX_CLOSE_RANKS];

		for (i = 0; i < nr; i++)
			rr[i] = r[i] - lt;
		if (k > 1)
			select_ranks(a, 0, k - 1, rr, nr);
		for (i = 0; i < nr; i++)
			val[i] = a[rr[i]];
		for (i = 0; i < nr; i++)
			a[r[i]] = val[i];
	} else {
		select_ranks(a, 0, m - 1, r, nr);
	}
}

/* The k-th smallest of a[0..n-1] (0-based), partially ordering a so that
 * a[0..k-1] <= a[k] <= a[k+1..n-1]. */
double mw_select_kth(double *a, size_t n, size_t k)
{
	select_ranks(a, 0, n - 1, &k, 1);
	return a[k];
}

/* The spread between the 10th and 90th percentile of a[0..n) (reorders a). */
double mw_spread_10_90(double *a, size_t n)
{
	double lo = mw_select_kth(a, n, n / 10), hi = mw_select_kth(a, n, n - 1 - n / 10);

	return hi - lo;
}

double mw_median_inplace(double *a, size_t n)
{
	double m, lo;
	size_t i;

	if (n == 0)
		return NAN;
	m = mw_select_kth(a, n, n / 2);
	if (n % 2)
		return m;
	lo = a[0];
	for (i = 1; i < n / 2; i++)
		if (a[i] > lo)
			lo = a[i];
	return (lo + m) / 2.0;
}

double mw_window_median(const double *y, size_t from, size_t n, double *scratch)
{
	memcpy(scratch, y + from, n * sizeof(double));
	return mw_median_inplace(scratch, n);
}

/* ---- Theil-Sen ---------------------------------------------------------- */

/* Pairwise slopes of n points into work (n(n-1)/2 room); returns the
 * count (pairs with equal x are skipped). */
static size_t pair_slopes(const double *x, const double *y, size_t n, double *work)
{
	size_t i, j, m = 0;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++) {
			double dx = x[j] - x[i];

			if (dx != 0.0)
				work[m++] = (y[j] - y[i]) / dx;
		}
	return m;
}

void mw_ts_interval_ranks(size_t m, size_t n, double f, double z, size_t *ilo, size_t *ihi)
{
	size_t mid = m / 2;
	double varS, c, bound;

	if (!(f >= 1.0))
		f = 1.0;
	varS = (double)n * (double)(n - 1) * (2.0 * (double)n + 5.0) / 18.0 * f;
	c = z * sqrt(varS);
	bound = floor(((double)m - c) / 2.0);
	*ilo = bound <= 0.0 ? 0 : (size_t)bound;
	if (*ilo > mid)
		*ilo = mid;
	bound = ceil(((double)m + c) / 2.0);
	*ihi = bound >= (double)(m - 1) ? m - 1 : (size_t)bound;
	if (*ihi < mid)
		*ihi = mid;
}

/* Median of the pair slopes and the interval for variance factor f
 * (n / n_eff), Sen's distribution-free ranks. */
static void ts_from_pairs(double *s, size_t m, size_t n, double f, double z,
			  struct mw_ts_fit *out)
{
	size_t mid = m / 2, ilo, ihi, r[4], nr = 0;
	double med;

	out->ok = 0;
	if (m == 0)
		return;
	if (z > 0.0)
		mw_ts_interval_ranks(m, n, f, z, &ilo, &ihi);
	else
		ilo = ihi = mid;	/* MW_TS_SLOPE_ONLY: the median alone */
	/* the ranks wanted, ascending: the interval's ends and the median
	 * (the two middle ones of an even count), selected together */
	if (ilo < mid && !(m % 2 == 0 && ilo == mid - 1))
		r[nr++] = ilo;
	if (m % 2 == 0)
		r[nr++] = mid - 1;
	r[nr++] = mid;
	if (ihi > mid)
		r[nr++] = ihi;
	select_close_ranks(s, m, r, nr);
	med = s[mid];
	out->slope = m % 2 == 0 ? (s[mid - 1] + med) / 2.0 : med;
	out->lo = s[ilo];
	out->hi = s[ihi];
	if (out->lo > out->slope)
		out->lo = out->slope;
	if (out->hi < out->slope)
		out->hi = out->slope;
	out->ok = 1;
}

/* mw_ts_fit of n points would be ok: three of them, and a pair with
 * distinct times. */
bool mw_ts_fit_possible(const double *x, size_t n)
{
	size_t i;

	if (n < 3)
		return false;
	for (i = 1; i < n; i++)
		if (x[i] != x[0])
			return true;
	return false;
}

/* Theil-Sen with a caller's work array of n(n-1)/2 doubles. */
void mw_ts_fit(const double *x, const double *y, size_t n, double f, double z,
			double *work, struct mw_ts_fit *out)
{
	size_t m;

	out->ok = 0;
	out->slope = out->lo = out->hi = NAN;
	if (n < 3)
		return;
	m = pair_slopes(x, y, n, work);
	ts_from_pairs(work, m, n, f, z, out);
}

int mw_theil_sen(const double *x, const double *y, size_t n, double n_eff,
		 double *slope, double *lo, double *hi)
{
	double *xs = NULL, *ys = NULL, *work;
	const double *px = x, *py = y;
	size_t i, step = 1, np = n;
	struct mw_ts_fit fit;
	double f;

	if (!x || !y || n < 3)
		return -1;
	for (i = 0; i < n; i++)
		if (!isfinite(x[i]) || !isfinite(y[i]))
			return -1;
	if (n > TS_MAX_POINTS) {
		/* Deterministic thinning keeps the pair array bounded. */
		step = (n + TS_MAX_POINTS - 1) / TS_MAX_POINTS;
		np = (n + step - 1) / step;
		xs = malloc(np * sizeof(*xs));
		ys = malloc(np * sizeof(*ys));
		if (!xs || !ys) {
			free(xs);
			free(ys);
			return -1;
		}
		for (i = 0; i < np; i++) {
			xs[i] = x[i * step];
			ys[i] = y[i * step];
		}
		px = xs;
		py = ys;
		if (isfinite(n_eff))
			n_eff /= (double)step;
	}
	f = (isfinite(n_eff) && n_eff > 0.0) ? (double)np / n_eff : 1.0;
	work = malloc((np * (np - 1) / 2) * sizeof(*work));
	if (!work) {
		free(xs);
		free(ys);
		return -1;
	}
	mw_ts_fit(px, py, np, f, MW_Z95, work, &fit);
	free(work);
	free(xs);
	free(ys);
	if (!fit.ok || !isfinite(fit.slope))
		return -1;
	if (slope)
		*slope = fit.slope;
	if (lo)
		*lo = fit.lo;
	if (hi)
		*hi = fit.hi;
	return 0;
}

/* ---- Mann-Kendall and the effective sample size ------------------------ */

/* Variance inflation n / n_eff from the autocorrelation of the ranks of
 * the residuals r[0..n-1] (in time order).  The larger of an AR(1)
 * reading of lag 1 and Geyer's initial positive sequence of the sum: the
 * first misses a wander under white noise, the second can stop early on
 * a short series. */
double mw_rank_inflation(const double *r, size_t n, double *work)
{
	double *rk = work, *tmp = work + n;
	double mean, var = 0.0, rho1, sum = 0.0, f1, f2;
	size_t i, k, maxlag;

	if (n < 6)
		return 1.0;
	/* Ranks (average for ties). */
	for (i = 0; i < n; i++)
		tmp[i] = r[i];
	sort_doubles(tmp, n);
	for (i = 0; i < n; i++) {
		/* binary search the first and last position of r[i] */
		size_t a = 0, b = n;

		while (a < b) {
			size_t m = a + (b - a) / 2;

			if (tmp[m] < r[i])
				a = m + 1;
			else
				b = m;
		}
		k = a;
		b = n;
		while (a < b) {
			size_t m = a + (b - a) / 2;

			if (tmp[m] <= r[i])
				a = m + 1;
			else
				b = m;
		}
		rk[i] = ((double)k + (double)(a - 1)) / 2.0;
	}
	mean = ((double)n - 1.0) / 2.0;
	for (i = 0; i < n; i++)
		var += (rk[i] - mean) * (rk[i] - mean);
	if (var <= 0.0)
		return 1.0;
	maxlag = n / 2;
	{
		double prev_pair = 1e300;

		rho1 = 0.0;
		for (k = 1; k + 1 <= maxlag; k += 2) {
			double a = 0.0, b = 0.0, pair;

			for (i = 0; i + k < n; i++)
				a += (rk[i] - mean) * (rk[i + k] - mean);
			for (i = 0; i + k + 1 < n; i++)
				b += (rk[i] - mean) * (rk[i + k + 1] - mean);
			a /= var;
			b /= var;
			if (k == 1)
				rho1 = a;
			pair = a + b;
			if (pair <= 0.0)
				break;
			/* Geyer's monotone sequence: pairs may not increase. */
			if (pair > prev_pair)
				pair = prev_pair;
			prev_pair = pair;
			sum += pair * (1.0 - (double)k / (double)n);
		}
	}
	f2 = 1.0 + 2.0 * sum;
	if (rho1 > 0.99)
		rho1 = 0.99;
	f1 = rho1 > 0.0 ? (1.0 + rho1) / (1.0 - rho1) : 1.0;
	if (f1 < f2)
		f1 = f2;
	if (f1 > (double)n / 2.0)
		f1 = (double)n / 2.0;
	return f1 < 1.0 ? 1.0 : f1;
}

/* Mann-Kendall S and its variance (ties corrected). */
static void mw_mann_kendall(const double *y, size_t n, double *work, double *S, double *varS)
{
	size_t i, j;
	long long s = 0;
	double v, ties = 0.0;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			s += (y[j] > y[i]) - (y[j] < y[i]);
	for (i = 0; i < n; i++)
		work[i] = y[i];
	sort_doubles(work, n);
	for (i = 0; i < n;) {
		double t;

		j = i + 1;
		while (j < n && work[j] == work[i])
			j++;
		t = (double)(j - i);
		ties += t * (t - 1.0) * (2.0 * t + 5.0);
		i = j;
	}
	v = ((double)n * (double)(n - 1) * (2.0 * (double)n + 5.0) - ties) / 18.0;
	*S = (double)s;
	*varS = v;
}

/* The corrected z of the trend: S with a continuity correction over the
 * square root of its variance inflated by f. */
double mw_mann_kendall_z(const double *y, size_t n, double f, double *work)
{
	double S, varS;

	mw_mann_kendall(y, n, work, &S, &varS);
	varS *= f;
	return varS > 0 ? (S - (S > 0) + (S < 0)) / sqrt(varS) : 0.0;
}

/* ---- models for residuals and onset ------------------------------------ */

/* Least squares of y on one regressor h: fills residuals, returns SSE. */
double mw_ls_fit1(const double *h, const double *y, size_t n, double *res)
{
	double mh = 0, my = 0, shh = 0, shy = 0, b, a, sse = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		mh += h[i];
		my += y[i];
	}
	mh /= (double)n;
	my /= (double)n;
	for (i = 0; i < n; i++) {
		shh += (h[i] - mh) * (h[i] - mh);
		shy += (h[i] - mh) * (y[i] - my);
	}
	b = shh > 0 ? shy / shh : 0.0;
	a = my - b * mh;
	for (i = 0; i < n; i++) {
		double e = y[i] - a - b * h[i];

		if (res)
			res[i] = e;
		sse += e * e;
	}
	return sse;
}

/* Quadratic least squares residuals (x scaled to [-1, 1]). */
void mw_quad_residuals(const double *x, const double *y, size_t n, double *res)
{
	double x0 = x[0], x1 = x[n - 1], c, h;
	double s[5] = { 0 }, t[3] = { 0 }, m[3][4], coef[3];
	size_t i;
	int r, q, k;

	c = (x0 + x1) / 2.0;
	h = (x1 - x0) / 2.0;
	if (!(h > 0))
		h = 1.0;
	for (i = 0; i < n; i++) {
		double u = (x[i] - c) / h, p = 1.0;

		for (k = 0; k < 5; k++) {
			s[k] += p;
			if (k < 3)
				t[k] += p * y[i];
			p *= u;
		}
	}
	for (r = 0; r < 3; r++) {
		for (q = 0; q < 3; q++)
			m[r][q] = s[r + q];
		m[r][3] = t[r];
	}
	/* Gaussian elimination with partial pivoting on a 3x3 system. */
	for (r = 0; r < 3; r++) {
		int piv = r;

		for (q = r + 1; q < 3; q++)
			if (fabs(m[q][r]) > fabs(m[piv][r]))
				piv = q;
		if (piv != r)
			for (k = 0; k < 4; k++)
				swapd(&m[r][k], &m[piv][k]);
		if (m[r][r] == 0.0) {
			for (i = 0; i < n; i++)
				res[i] = y[i];
			return;
		}
		for (q = r + 1; q < 3; q++) {
			double fct = m[q][r] / m[r][r];

			for (k = r; k < 4; k++)
				m[q][k] -= fct * m[r][k];
		}
	}
	for (r = 2; r >= 0; r--) {
		double acc = m[r][3];

		for (q = r + 1; q < 3; q++)
			acc -= m[r][q] * coef[q];
		coef[r] = acc / m[r][r];
	}
	for (i = 0; i < n; i++) {
		double u = (x[i] - c) / h;

		res[i] = y[i] - (coef[0] + coef[1] * u + coef[2] * u * u);
	}
}

void mw_hinge_regressor(const double *x, size_t n, size_t k, double *h)
{
	size_t i;

	for (i = 0; i < n; i++)
		h[i] = x[i] > x[k] ? x[i] - x[k] : 0.0;
}

void mw_plateau_regressor(const double *x, size_t n, size_t k, double *h)
{
	size_t i;

	for (i = 0; i < n; i++)
		h[i] = x[i] < x[k] ? x[i] : x[k];
}

/* mw_hinge_regressor's or mw_plateau_regressor's value at x for the
 * break at xk. */
static inline double regressor_at(double x, double xk, bool hinge)
{
	if (hinge)
		return x > xk ? x - xk : 0.0;
	return x < xk ? x : xk;
}

/*
 * mw_ls_fit1's SSE of y on the regressors of the breaks at xa and xb
 * (my: y's mean as mw_ls_fit1 sums it).  Each of the two does the same
 * operations in the same order as mw_ls_fit1 alone, so each SSE is the
 * same to the bit; side by side, their chains of dependent additions
 * (the search's whole cost) overlap.
 */
static void sse_of_two(const double *x, const double *y, size_t n, double xa, double xb, bool hinge,
		       double my, double *sa, double *sb)
{
	double ma = 0, mb = 0, haa = 0, hbb = 0, hay = 0, hby = 0, ea = 0, eb = 0;
	double ba, bb, aa, ab;
	size_t i;

	for (i = 0; i < n; i++) {
		ma += regressor_at(x[i], xa, hinge);
		mb += regressor_at(x[i], xb, hinge);
	}
	ma /= (double)n;
	mb /= (double)n;
	for (i = 0; i < n; i++) {
		double ca = regressor_at(x[i], xa, hinge) - ma, cb = regressor_at(x[i], xb, hinge) - mb;
		double dy = y[i] - my;

		haa += ca * ca;
		hay += ca * dy;
		hbb += cb * cb;
		hby += cb * dy;
	}
	ba = haa > 0 ? hay / haa : 0.0;
	bb = hbb > 0 ? hby / hbb : 0.0;
	aa = my - ba * ma;
	ab = my - bb * mb;
	for (i = 0; i < n; i++) {
		double da = y[i] - aa - ba * regressor_at(x[i], xa, hinge);
		double db = y[i] - ab - bb * regressor_at(x[i], xb, hinge);

		ea += da * da;
		eb += db * db;
	}
	*sa = ea;
	*sb = eb;
}

/*
 * Each break's SSE in O(1) from running sums into a[k] (k in [kfrom,
 * last]), so the search is O(n), not O(n^2), unless many breaks tie near
 * the best (a constant trace: best_break fits those all).  With
 * xi = x[i] - x[0] and yi = y[i] - my, a hinge at k has h = xi - xk on the points after it (a
 * suffix: x is in time order), a plateau h = xi before it and xk from it
 * on, and the fit's SSE is Syy - Shy^2 / Shh over the centred sums.  The
 * sums lose what the direct sums keep when the fit is near perfect, so
 * these are only estimates (see best_break).  A break whose regressor is
 * (nearly) constant is NaN: estimated, its slope would be noise.  false
 * when x is not in order or the estimates are not finite.
 */
static bool estimate_sses(const double *x, const double *y, size_t n, size_t kfrom, size_t last,
			  bool hinge, double my, double *a, double *syy_out)
{
	double tx = 0, txx = 0, txy = 0, ty = 0, syy = 0, px = 0, pxx = 0, pxy = 0, py = 0;
	double nn = (double)n;
	size_t i, j = 0, k;

	for (i = 0; i < n; i++) {
		double xi = x[i] - x[0], yi = y[i] - my;

		if (i && !(x[i] >= x[i - 1]))
			return false;
		tx += xi;
		txx += xi * xi;
		txy += xi * yi;
		ty += yi;
		syy += yi * yi;
	}
	if (!isfinite(txx) || !isfinite(syy) || !isfinite(txy))
		return false;
	for (k = kfrom; k <= last; k++) {
		double xk = x[k] - x[0], cnt, sh, shh, shy, chh, chy;

		/* j: the first point after the hinge (x > x[k]), or the first
		 * from the plateau on (x >= x[k]) */
		while (j < n && (hinge ? x[j] <= x[k] : x[j] < x[k])) {
			double xi = x[j] - x[0], yi = y[j] - my;

			px += xi;
			pxx += xi * xi;
			pxy += xi * yi;
			py += yi;
			j++;
		}
		cnt = (double)(n - j);
		if (hinge) {
			sh = (tx - px) - cnt * xk;
			shh = (txx - pxx) - 2.0 * xk * (tx - px) + cnt * xk * xk;
			shy = (txy - pxy) - xk * (ty - py);
		} else {
			sh = px + cnt * xk;
			shh = pxx + cnt * xk * xk;
			shy = pxy + xk * (ty - py);
		}
		chh = shh - sh * sh / nn;
		chy = shy - sh * ty / nn;
		a[k] = chh > 1e-9 * (txx + 1e-300) ? syy - chy * chy / chh : NAN;
	}
	*syy_out = syy;
	return true;
}

/* The break k in [kfrom, kto] whose regressor fits y best by least
 * squares; a later k must beat the best so far by more than rounding, so
 * ties keep the earliest break.  0 when none fits (NaN SSEs).  The exact
 * SSEs (sse_of_two, two breaks at a time, in order) are computed only for
 * the breaks whose estimate (estimate_sses, into scratch) is within a
 * millionth of the data's variance of the best estimate, or that have no
 * estimate; the estimates' error is many orders below that, so every
 * other break is worse than the best by far more than the tie margin and
 * the answer is the one all of them give.  h: n doubles of scratch. */
static size_t best_break(const double *x, const double *y, size_t n, size_t kfrom, size_t kto,
			 bool hinge, double *h, double *sse_out)
{
	size_t k, best = 0, i, last = kto < n ? kto : n - 1, next;
	double best_sse = INFINITY, my = 0.0, sse[2], syy = 0, amin = INFINITY, tol;
	bool estimated;

	for (i = 0; i < n; i++)
		my += y[i];
	my /= (double)n;
	estimated = kfrom <= last && estimate_sses(x, y, n, kfrom, last, hinge, my, h, &syy);
	if (estimated) {
		for (k = kfrom; k <= last; k++)
			if (h[k] < amin)
				amin = h[k];
		estimated = isfinite(amin);
	}
	tol = 1e-6 * syy;
	/* the candidates in order, two at a time */
	for (k = kfrom; k <= last; k = next + 1) {
		size_t ka = k, kb;

		while (estimated && ka <= last && h[ka] > amin + tol)
			ka++;
		if (ka > last)
			break;
		kb = ka + 1;
		while (estimated && kb <= last && h[kb] > amin + tol)
			kb++;
		if (kb > last)
			kb = ka;
		next = kb;
		sse_of_two(x, y, n, x[ka], x[kb], hinge, my, &sse[0], &sse[1]);
		if (sse[0] < best_sse * (1.0 - 1e-12)) {
			best_sse = sse[0];
			best = ka;
		}
		if (kb != ka && sse[1] < best_sse * (1.0 - 1e-12)) {
			best_sse = sse[1];
			best = kb;
		}
	}
	*sse_out = best_sse;
	return best;
}

size_t mw_hinge_search(const double *x, const double *y, size_t n, size_t kmax, double *h,
		       double *sse_out)
{
	return best_break(x, y, n, 0, kmax, true, h, sse_out);
}

size_t mw_plateau_search(const double *x, const double *y, size_t n, size_t kmin, double *h,
			 double *sse_out)
{
	return best_break(x, y, n, kmin, n - 1, false, h, sse_out);
}

/* ---- reducing and cleaning a series ------------------------------------- */

/* Block medians down to at most max_points points. */
size_t mw_block_medians(const double *x, const double *y, size_t n, size_t max_points,
			double *scratch, double *rx, double *ry)
{
	size_t k = (n + max_points - 1) / max_points, i, m = 0;

	if (k <= 1) {
		memcpy(rx, x, n * sizeof(*x));
		memcpy(ry, y, n * sizeof(*y));
		return n;
	}
	for (i = 0; i < n; i += k) {
		size_t e = i + k < n ? i + k : n, j;

		for (j = i; j < e; j++)
			scratch[j - i] = x[j];
		rx[m] = mw_median_inplace(scratch, e - i);
		for (j = i; j < e; j++)
			scratch[j - i] = y[j];
		ry[m] = mw_median_inplace(scratch, e - i);
		m++;
	}
	return m;
}

/* Winsorize y around a running median of five so one outlier cannot
 * drive a least-squares model; a line would not do: it clips the genuine
 * late rise of a late onset. */
void mw_winsorize(const double *y, size_t n, double *out, double *scratch)
{
	double *loc = scratch + n, mad, win[5];
	size_t i, j;

	for (i = 0; i < n; i++) {
		size_t a = i >= 2 ? i - 2 : 0, b = i + 3 < n ? i + 3 : n, k = 0;

		for (j = a; j < b; j++)
			win[k++] = y[j];
		loc[i] = mw_median_inplace(win, k);
		scratch[i] = fabs(y[i] - loc[i]);
	}
	mad = 1.4826 * mw_median_inplace(scratch, n);
	for (i = 0; i < n; i++) {
		double r = y[i] - loc[i], lim = 5.0 * mad;

		if (mad > 0 && r > lim)
			r = lim;
		if (mad > 0 && r < -lim)
			r = -lim;
		out[i] = loc[i] + r;
	}
}

double mw_intercept_at(const double *x, const double *y, size_t n, double slope,
			   double x0, double *scratch)
{
	size_t i;

	for (i = 0; i < n; i++)
		scratch[i] = y[i] - slope * (x[i] - x0);
	return mw_median_inplace(scratch, n);
}
/* ---- monotone fit --------------------------------------------------------- */

/* The least-squares non-decreasing fit of y[0..n) (pool adjacent
 * violators): blocks of equal fitted value, merged while one is above the
 * next.  val and cnt are the caller's (n each). */
void mw_isotonic(const double *y, size_t n, double *fit, double *val, size_t *cnt)
{
	size_t nb = 0, i, j, k;

	for (i = 0; i < n; i++) {
		val[nb] = y[i];
		cnt[nb] = 1;
		nb++;
		while (nb > 1 && val[nb - 2] > val[nb - 1]) {
			double c = (double)cnt[nb - 2] + (double)cnt[nb - 1];

			val[nb - 2] = (val[nb - 2] * (double)cnt[nb - 2] +
				       val[nb - 1] * (double)cnt[nb - 1]) / c;
			cnt[nb - 2] += cnt[nb - 1];
			nb--;
		}
	}
	for (i = 0, k = 0; i < nb; i++)
		for (j = 0; j < cnt[i]; j++)
			fit[k++] = val[i];
}
