/*
 * leak.c - leak verdicts over traces of per-bucket floors (see leak.h).
 *
 * Owner: the detector work (analysis/leak.c, analysis/leak.h and their
 * tests).  Pure: libc, libm and the base library's time format
 * (core/params.h), no globals with state, allocation bounded by the
 * input size, deterministic (no clock, no locale, no time zone).
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
 *     grows enough to matter".
 */
#include "analysis/leak.h"
#include "core/params.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOUR_MS 3600000.0
#define MIN_MS 60000.0
/* Reduced series size: 300 points are 44,850 pairwise slopes; with the
 * O(n^2) model searches this keeps 1000 buckets near 1 ms. */
#define MAX_POINTS 300
/* Beyond this, mw_theil_sen thins its input (memory for the pairs). */
#define TS_MAX_POINTS 2000
#define Z95 1.959963984540054
/* Trend must be this significant (two-sided p < 0.001): the corpus has
 * strongly autocorrelated not-leaks whose factor is only estimated. */
#define TREND_Z 3.29
/* The tail must climb at least this share of the slope, and its own
 * interval (at TAIL_Z) must stay above zero. */
#define TAIL_RATIO 0.5
#define TAIL_Z 2.33
#define TAIL_FRAC (1.0 / 3.0)
#define TAIL_MIN_MS (30 * 60000.0)
/* Values beyond 2^60 bytes are not memory sizes. */
#define MAX_VALUE 1152921504606846976.0
/* A sawtooth needs this many deep drops to be reduced to cycle floors. */
#define SAW_MIN_DROPS 6
/* A rise this many times the spread of the floors around the fitted line
 * is a trend whatever the rank test says: with residuals that look
 * autocorrelated (a steady allocator beating against the sampling
 * interval) the corrected Mann-Kendall cannot pass p < 0.001 on a short
 * run however steep the leak, while a wander or a cycle never rises ten
 * times its own spread around a line. */
#define DOMINANT_RATIO 10.0
#define DOMINANT_MIN_POINTS 10
#define SAW_DROP_SIGMA 6.0

const char *mw_verdict_name(enum mw_verdict v)
{
	switch (v) {
	case MW_VERDICT_PASS:
		return "pass";
	case MW_VERDICT_FAIL:
		return "fail";
	case MW_VERDICT_INCONCLUSIVE:
		return "inconclusive";
	}
	return "inconclusive";
}

int mw_verdict_rank(enum mw_verdict v)
{
	switch (v) {
	case MW_VERDICT_PASS:
		return 0;
	case MW_VERDICT_INCONCLUSIVE:
		return 1;
	case MW_VERDICT_FAIL:
		return 2;
	}
	return 1;
}

/*
 * Defaults, and why:
 *   warm-up 10 min: JIT, pools and caches of most services settle in it
 *     (questdb uses 600 s); longer warm-ups are the user's to set;
 *   minimum judged duration 20 min: the tail check needs a tail of at
 *     least a few points and a quarter of the span;
 *   coverage 0.8: Coroot's completeness gate;
 *   64 KiB/h absolute: 1.5 MiB a day, below what anyone sizes for, yet
 *     above what allocator noise makes of a flat process over hours;
 *   relative off: a percentage punishes small processes (Coroot notes);
 *   horizon 24 h: the usual soak length, "+X MiB per day".
 */
void mw_leak_params_init(struct mw_leak_params *p)
{
	if (!p)
		return;
	p->warmup_ms = 10 * 60000;
	p->min_duration_ms = 20 * 60000;
	p->min_coverage = 0.8;
	p->budget_bytes_per_hour = 64.0 * 1024.0;
	p->budget_rel_per_hour = 0.0;
	p->horizon_ms = 24 * 3600000LL;
	p->count_unit = NULL;
	p->budget_count_per_hour = 10.0;
}

/* ---- small helpers ------------------------------------------------------ */

static int valid_value(double v)
{
	return isfinite(v) && v >= 0.0 && v <= MAX_VALUE;
}

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

/* Puts the r[0] < r[1] < ... (nr of them, 0-based, within lo..hi)
 * smallest of a[lo..hi] at those places, a partition at each: every
 * element before a rank's place is <= it, every one after >= it.  One
 * pass serves ranks on the same side of a pivot: a Theil-Sen fit's
 * median and interval bounds (a few percent of the pairs apart) cost
 * about one selection, not three. */
static void select_ranks(double *a, size_t lo, size_t hi, const size_t *r, size_t nr)
{
	while (nr > 0 && hi > lo) {
		size_t j = partition(a, lo, hi), left = 0;

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

/* The k-th smallest of a[0..n-1] (0-based), partially ordering a so that
 * a[0..k-1] <= a[k] <= a[k+1..n-1]. */
static double select_kth(double *a, size_t n, size_t k)
{
	select_ranks(a, 0, n - 1, &k, 1);
	return a[k];
}

static double median_inplace(double *a, size_t n)
{
	double m, lo;
	size_t i;

	if (n == 0)
		return NAN;
	m = select_kth(a, n, n / 2);
	if (n % 2)
		return m;
	lo = a[0];
	for (i = 1; i < n / 2; i++)
		if (a[i] > lo)
			lo = a[i];
	return (lo + m) / 2.0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* ---- Theil-Sen ---------------------------------------------------------- */

struct ts_fit {
	double slope, lo, hi;
	int ok;
};

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

/* Median of the pair slopes and the interval for variance factor f
 * (n / n_eff), Sen's distribution-free ranks. */
static void ts_from_pairs(double *s, size_t m, size_t n, double f, double z,
			  struct ts_fit *out)
{
	size_t mid = m / 2, ilo, ihi, r[4], nr = 0;
	double varS, c, bound, med;

	out->ok = 0;
	if (m == 0)
		return;
	if (!(f >= 1.0))
		f = 1.0;
	varS = (double)n * (double)(n - 1) * (2.0 * (double)n + 5.0) / 18.0 * f;
	c = z * sqrt(varS);
	bound = floor(((double)m - c) / 2.0);
	ilo = bound <= 0.0 ? 0 : (size_t)bound;
	if (ilo > mid)
		ilo = mid;
	bound = ceil(((double)m + c) / 2.0);
	ihi = bound >= (double)(m - 1) ? m - 1 : (size_t)bound;
	if (ihi < mid)
		ihi = mid;
	/* the ranks wanted, ascending: the interval's ends and the median
	 * (the two middle ones of an even count), selected together */
	if (ilo < mid && !(m % 2 == 0 && ilo == mid - 1))
		r[nr++] = ilo;
	if (m % 2 == 0)
		r[nr++] = mid - 1;
	r[nr++] = mid;
	if (ihi > mid)
		r[nr++] = ihi;
	select_ranks(s, 0, m - 1, r, nr);
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

/* ts_fit_work of n points would be ok: three of them, and a pair with
 * distinct times. */
static bool fit_possible(const double *x, size_t n)
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
static void ts_fit_work(const double *x, const double *y, size_t n, double f, double z,
			double *work, struct ts_fit *out)
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
	struct ts_fit fit;
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
	ts_fit_work(px, py, np, f, Z95, work, &fit);
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
static double inflation(const double *r, size_t n, double *work)
{
	double *rk = work, *tmp = work + n;
	double mean, var = 0.0, rho1, sum = 0.0, f1, f2;
	size_t i, k, maxlag;

	if (n < 6)
		return 1.0;
	/* Ranks (average for ties). */
	for (i = 0; i < n; i++)
		tmp[i] = r[i];
	qsort(tmp, n, sizeof(*tmp), cmp_double);
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
static void mann_kendall(const double *y, size_t n, double *work, double *S, double *varS)
{
	size_t i, j;
	long long s = 0;
	double v, ties = 0.0;

	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			s += (y[j] > y[i]) - (y[j] < y[i]);
	for (i = 0; i < n; i++)
		work[i] = y[i];
	qsort(work, n, sizeof(*work), cmp_double);
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

/* ---- models for residuals and onset ------------------------------------ */

/* Least squares of y on one regressor h: fills residuals, returns SSE. */
static double ls1(const double *h, const double *y, size_t n, double *res)
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
static void quad_residuals(const double *x, const double *y, size_t n, double *res)
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

/* Best hinge y = a + b * max(0, x - x[k]) over k in [0, kmax]; returns k
 * (0 is the plain line) and its SSE in *sse. */
static size_t hinge_search(const double *x, const double *y, size_t n, size_t kmax,
			   double *h, double *sse_out)
{
	size_t k, i, best = 0;
	double best_sse = INFINITY;

	for (k = 0; k <= kmax && k < n; k++) {
		double sse;

		for (i = 0; i < n; i++)
			h[i] = x[i] > x[k] ? x[i] - x[k] : 0.0;
		sse = ls1(h, y, n, NULL);
		if (sse < best_sse * (1.0 - 1e-12)) {
			best_sse = sse;
			best = k;
		}
	}
	*sse_out = best_sse;
	return best;
}

/* ---- formatting --------------------------------------------------------- */

static void fmt_bytes(char *buf, size_t len, double b)
{
	double a = fabs(b);
	const char *sign = b < 0 ? "-" : "";

	if (!isfinite(b))
		snprintf(buf, len, "?");
	else if (a >= 1024.0 * 1024.0 * 1024.0)
		snprintf(buf, len, "%s%.2f GiB", sign, a / (1024.0 * 1024.0 * 1024.0));
	else if (a >= 1024.0 * 1024.0)
		snprintf(buf, len, "%s%.1f MiB", sign, a / (1024.0 * 1024.0));
	else if (a >= 1024.0)
		snprintf(buf, len, "%s%.0f KiB", sign, a / 1024.0);
	else
		snprintf(buf, len, "%s%.0f B", sign, a);
}

static void fmt_duration(char *buf, size_t len, double ms)
{
	long long min = ms > 0 ? (long long)(ms / MIN_MS + 0.5) : 0;

	if (min < 60)
		snprintf(buf, len, "%lld min", min);
	else if (min < 48 * 60)
		snprintf(buf, len, "%lldh %02lldm", min / 60, min % 60);
	else
		snprintf(buf, len, "%lldd %lldh", min / 1440, (min % 1440) / 60);
}

/* An amount of what the trace counts: bytes, or "360 handles". */
static void fmt_amount(char *buf, size_t len, double v, const struct mw_leak_params *p)
{
	if (!p->count_unit)
		fmt_bytes(buf, len, v);
	else if (!isfinite(v))
		snprintf(buf, len, "?");
	else
		snprintf(buf, len, "%.*f %s", fabs(v) < 10 && v != floor(v) ? 1 : 0, v, p->count_unit);
}

/* ---- the judgement ------------------------------------------------------ */

struct work {
	double *x, *y;		/* judged points (x: ms since judged_from) */
	double *rx, *ry;	/* reduced points */
	double *pairs;		/* MAX_POINTS^2 / 2 */
	double *a, *b, *c;	/* scratch, 2 * MAX_POINTS each */
};

static void result_reset(struct mw_leak_result *out)
{
	memset(out, 0, sizeof(*out));
	out->verdict = MW_VERDICT_INCONCLUSIVE;
	out->slope_bph = out->slope_lo_bph = out->slope_hi_bph = NAN;
	out->growth_bytes = NAN;
	out->projected_bytes = 0.0;
	out->level_bytes = NAN;
	out->onset_ms = INT64_MIN;
	out->first_ms = out->last_ms = INT64_MIN;
	out->judged_from_ms = INT64_MIN;
	out->coverage = 0.0;
	out->p_value = NAN;
	out->fit_t0_ms = INT64_MIN;
	out->fit_value0 = NAN;
}

static void params_sane(const struct mw_leak_params *in, struct mw_leak_params *p)
{
	mw_leak_params_init(p);
	if (!in)
		return;
	if (in->warmup_ms >= 0)
		p->warmup_ms = in->warmup_ms;
	if (in->min_duration_ms >= 0)
		p->min_duration_ms = in->min_duration_ms;
	if (in->min_coverage >= 0.0 && in->min_coverage <= 1.0)
		p->min_coverage = in->min_coverage;
	if (in->budget_bytes_per_hour >= 0.0 && isfinite(in->budget_bytes_per_hour))
		p->budget_bytes_per_hour = in->budget_bytes_per_hour;
	if (in->budget_rel_per_hour >= 0.0 && isfinite(in->budget_rel_per_hour))
		p->budget_rel_per_hour = in->budget_rel_per_hour;
	if (in->horizon_ms >= 0)
		p->horizon_ms = in->horizon_ms;
	p->count_unit = in->count_unit;
	if (in->budget_count_per_hour >= 0.0 && isfinite(in->budget_count_per_hour))
		p->budget_count_per_hour = in->budget_count_per_hour;
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
	med = median_inplace(scratch, n - 1);
	for (i = 1; i < n; i++)
		scratch[i - 1] = fabs(y[i] - y[i - 1] - med);
	sd = 1.4826 * median_inplace(scratch, n - 1);
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
				size_t j, arg = start;

				for (j = start; j < i; j++)
					if (y[j] < y[arg])
						arg = j;
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

/* Block medians down to at most MAX_POINTS points. */
static size_t reduce(const double *x, const double *y, size_t n, double *scratch,
		     double *rx, double *ry)
{
	size_t k = (n + MAX_POINTS - 1) / MAX_POINTS, i, m = 0;

	if (k <= 1) {
		memcpy(rx, x, n * sizeof(*x));
		memcpy(ry, y, n * sizeof(*y));
		return n;
	}
	for (i = 0; i < n; i += k) {
		size_t e = i + k < n ? i + k : n, j;

		for (j = i; j < e; j++)
			scratch[j - i] = x[j];
		rx[m] = median_inplace(scratch, e - i);
		for (j = i; j < e; j++)
			scratch[j - i] = y[j];
		ry[m] = median_inplace(scratch, e - i);
		m++;
	}
	return m;
}

/* Winsorize y around a running median of five so one outlier cannot
 * drive a least-squares model; a line would not do: it clips the genuine
 * late rise of a late onset. */
static void winsorize(const double *y, size_t n, double *out, double *scratch)
{
	double *loc = scratch + n, mad, win[5];
	size_t i, j;

	for (i = 0; i < n; i++) {
		size_t a = i >= 2 ? i - 2 : 0, b = i + 3 < n ? i + 3 : n, k = 0;

		for (j = a; j < b; j++)
			win[k++] = y[j];
		loc[i] = median_inplace(win, k);
		scratch[i] = fabs(y[i] - loc[i]);
	}
	mad = 1.4826 * median_inplace(scratch, n);
	for (i = 0; i < n; i++) {
		double r = y[i] - loc[i], lim = 5.0 * mad;

		if (mad > 0 && r > lim)
			r = lim;
		if (mad > 0 && r < -lim)
			r = -lim;
		out[i] = loc[i] + r;
	}
}

static double intercept_at(const double *x, const double *y, size_t n, double slope,
			   double x0, double *scratch)
{
	size_t i;

	for (i = 0; i < n; i++)
		scratch[i] = y[i] - slope * (x[i] - x0);
	return median_inplace(scratch, n);
}

static int work_alloc(struct work *w, size_t n)
{
	size_t cap = n > MAX_POINTS ? n : MAX_POINTS;

	memset(w, 0, sizeof(*w));
	w->x = malloc(n * sizeof(double));
	w->y = malloc(n * sizeof(double));
	w->rx = malloc(cap * sizeof(double));
	w->ry = malloc(cap * sizeof(double));
	w->pairs = malloc((size_t)MAX_POINTS * (MAX_POINTS - 1) / 2 * sizeof(double));
	w->a = malloc(2 * cap * sizeof(double));
	w->b = malloc(2 * cap * sizeof(double));
	w->c = malloc(2 * cap * sizeof(double));
	return (w->x && w->y && w->rx && w->ry && w->pairs && w->a && w->b && w->c) ? 0 : -1;
}

static void work_free(struct work *w)
{
	free(w->x);
	free(w->y);
	free(w->rx);
	free(w->ry);
	free(w->pairs);
	free(w->a);
	free(w->b);
	free(w->c);
}

/* The least-squares non-decreasing fit of y[0..n) (pool adjacent
 * violators): blocks of equal fitted value, merged while one is above the
 * next.  val and cnt are the caller's (n each). */
static void isotonic(const double *y, size_t n, double *fit, double *val, size_t *cnt)
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
static void no_rate(struct mw_leak_result *out)
{
	out->slope_bph = out->slope_lo_bph = out->slope_hi_bph = NAN;
	out->onset_ms = INT64_MIN;
	out->growth_bytes = NAN;
	out->projected_bytes = 0.0;
}

static void judge_points(struct work *w, size_t n, const struct mw_leak_params *p,
			 int64_t judged_from, double span_ms, struct mw_leak_result *out,
			 int *saw_out, double *budget_out)
{
	double *rx = w->rx, *ry = w->ry, *wy = w->c;
	size_t m, i, k_on = 0, t0i;
	int saw = 0, dominant = 0;
	struct ts_fit full, seg, tail;
	double f, f_line, f_hinge, f_quad, f_plat, S, varS, z, b_seg, hinge_sse;
	double level, budget, x_onset = 0.0, tail_from;
	char s1[32], s2[32], s3[32];
	int has_onset = 0;

	m = cycle_floors(w->x, w->y, n, w->a, rx, ry, n);
	if (m > 0) {
		saw = 1;
		if (m > MAX_POINTS) {
			memcpy(w->x, rx, m * sizeof(double));
			memcpy(w->y, ry, m * sizeof(double));
			m = reduce(w->x, w->y, m, w->a, rx, ry);
		}
		if (m < 5) {
			snprintf(out->reason, sizeof(out->reason),
				 "too few sawtooth cycles after warm-up: %zu", m);
			return;
		}
	} else {
		m = reduce(w->x, w->y, n, w->a, rx, ry);
	}

	/* The fit needs the factor the models below give; first only what
	 * it needs to be possible: three points, two times (a preliminary
	 * Theil-Sen fit here, thrown away, was a third of the judging) */
	if (!fit_possible(rx, m)) {
		snprintf(out->reason, sizeof(out->reason), "too little data after warm-up: %zu points", m);
		return;
	}
	winsorize(ry, m, wy, w->a);
	for (i = 0; i < m; i++)
		w->b[i] = rx[i];
	ls1(w->b, wy, m, w->a);
	f_line = inflation(w->a, m, w->b);
	/* hinge: onset candidates leave a tenth of the points (at least 8)
	 * after them, enough for a slope of its own */
	{
		size_t kmax = m - (m / 10 > 8 ? m / 10 : 8);

		k_on = hinge_search(rx, wy, m, kmax, w->b, &hinge_sse);
		for (i = 0; i < m; i++)
			w->b[i] = rx[i] > rx[k_on] ? rx[i] - rx[k_on] : 0.0;
		ls1(w->b, wy, m, w->a);
		f_hinge = inflation(w->a, m, w->b);
	}
	quad_residuals(rx, wy, m, w->a);
	f_quad = inflation(w->a, m, w->b);
	/* rise then flat (a cap reached before an OOM kill): its residuals
	 * are white, so the rise before it is not mistaken for a wander; the
	 * tail check still passes a warm-up plateau or a step */
	{
		size_t k, best = 0;
		double best_sse = INFINITY;

		for (k = m / 10; k < m; k++) {
			double sse;

			for (i = 0; i < m; i++)
				w->b[i] = rx[i] < rx[k] ? rx[i] : rx[k];
			sse = ls1(w->b, wy, m, NULL);
			if (sse < best_sse * (1.0 - 1e-12)) {
				best_sse = sse;
				best = k;
			}
		}
		for (i = 0; i < m; i++)
			w->b[i] = rx[i] < rx[best] ? rx[i] : rx[best];
		ls1(w->b, wy, m, w->a);
		f_plat = inflation(w->a, m, w->b);
	}
	f = f_line;
	if (f_hinge < f)
		f = f_hinge;
	if (f_quad < f)
		f = f_quad;
	if (f_plat < f)
		f = f_plat;

	ts_fit_work(rx, ry, m, f, Z95, w->pairs, &full);
	mann_kendall(ry, m, w->a, &S, &varS);
	varS *= f;
	z = varS > 0 ? (S - (S > 0) + (S < 0)) / sqrt(varS) : 0.0;
	out->p_value = erfc(fabs(z) / sqrt(2.0));
	if (full.ok && full.lo > 0 && m >= DOMINANT_MIN_POINTS) {
		double b0 = intercept_at(rx, ry, m, full.slope, 0.0, w->a), lo, hi;

		/* The spread between the 10th and 90th percentile of the
		 * residuals: one dip (a process torn down in its last sample)
		 * or spike must not hide a leak a hundred times its size. */
		for (i = 0; i < m; i++)
			w->a[i] = ry[i] - (b0 + full.slope * rx[i]);
		lo = select_kth(w->a, m, m / 10);
		hi = select_kth(w->a, m, m - 1 - m / 10);
		dominant = full.slope * (rx[m - 1] - rx[0]) > DOMINANT_RATIO * (hi - lo);
		/* The same around the best non-decreasing fit: growth that
		 * slows but never stops, in steps or smoothly, with a hash
		 * table doubling now and then (an interning table, a cache
		 * without a cap), is far from a line and from a parabola, yet
		 * rises ten times beyond its spread around its own monotone
		 * shape; noise and a wander go down as often as up and do
		 * not.  The tail check below still passes one that stopped. */
		if (!dominant) {
			size_t *cnt = malloc(m * sizeof(*cnt));
			double *val = malloc(m * sizeof(*val));

			if (cnt && val) {
				isotonic(wy, m, w->b, val, cnt);
				for (i = 0; i < m; i++)
					w->a[i] = wy[i] - w->b[i];
				lo = select_kth(w->a, m, m / 10);
				hi = select_kth(w->a, m, m - 1 - m / 10);
				dominant = w->b[m - 1] - w->b[0] > DOMINANT_RATIO * (hi - lo) &&
					   full.slope * (rx[m - 1] - rx[0]) > 0.5 * (w->b[m - 1] - w->b[0]) &&
					   shortcut_allowed(w->b[m - 1] - w->b[0], w->b[0], rx[m - 1] - rx[0]);
			}
			free(cnt);
			free(val);
		}
		/* The same around a curve: growth that slows but never stops
		 * (an interning table, a cache without a cap) is far from a
		 * line yet rises ten times beyond its spread around a parabola
		 * that climbs over the whole span; a wander does neither. */
		if (!dominant) {
			double q0, q1, q2;

			quad_residuals(rx, wy, m, w->a);
			q0 = wy[0] - w->a[0];
			q1 = wy[m - 2] - w->a[m - 2];
			q2 = wy[m - 1] - w->a[m - 1];
			if (q2 > q1 && q1 > q0 && wy[m / 2] - w->a[m / 2] > q0) {
				lo = select_kth(w->a, m, m / 10);
				hi = select_kth(w->a, m, m - 1 - m / 10);
				dominant = q2 - q0 > DOMINANT_RATIO * (hi - lo) &&
					   shortcut_allowed(q2 - q0, q0, rx[m - 1] - rx[0]);
			}
		}
	}

	/* Onset: the hinge is kept when the part before it is flat. */
	seg = full;
	if (k_on > 0 && rx[k_on] - rx[0] >= 0.1 * span_ms && k_on >= 4) {
		struct ts_fit pre, post;
		size_t npost = m - k_on;

		ts_fit_work(rx, ry, k_on + 1, 1.0, Z95, w->pairs, &pre);
		ts_fit_work(rx + k_on, ry + k_on, npost, f_hinge, Z95, w->pairs, &post);
		if (pre.ok && post.ok && post.slope > 0 && pre.slope < 0.25 * post.slope &&
		    post.slope > full.slope) {
			has_onset = 1;
			seg = post;
			x_onset = rx[k_on];
		}
	}
	t0i = has_onset ? k_on : 0;
	b_seg = seg.slope;

	/* Tail: the last third (at least 30 min, at least 5 points) of the judged span. */
	tail_from = rx[m - 1] - (TAIL_FRAC * span_ms > TAIL_MIN_MS ? TAIL_FRAC * span_ms : TAIL_MIN_MS);
	{
		size_t ti = 0;

		while (ti < m && rx[ti] < tail_from)
			ti++;
		/* a tail of few cycle floors is extended to five of them */
		if (m - ti < 5 && m >= 10)
			ti = m - 5;
		if (m - ti >= 5)
			ts_fit_work(rx + ti, ry + ti, m - ti, 1.0, TAIL_Z, w->pairs, &tail);
		else
			tail.ok = 0;
	}

	out->slope_bph = seg.slope * HOUR_MS;
	out->slope_lo_bph = seg.lo * HOUR_MS;
	out->slope_hi_bph = seg.hi * HOUR_MS;
	out->fit_t0_ms = judged_from + (int64_t)(has_onset ? x_onset : 0.0);
	out->fit_value0 = intercept_at(rx + t0i, ry + t0i, m - t0i, seg.slope, has_onset ? x_onset : 0.0, w->a);
	level = out->fit_value0 + seg.slope * (rx[m - 1] - (has_onset ? x_onset : 0.0));
	out->level_bytes = level;
	if (has_onset)
		out->onset_ms = out->fit_t0_ms;
	out->growth_bytes = seg.slope * (span_ms - (has_onset ? x_onset : 0.0));
	out->projected_bytes = seg.slope > 0 ? seg.slope * (double)p->horizon_ms : 0.0;

	budget = p->count_unit ? p->budget_count_per_hour : p->budget_bytes_per_hour;
	if (!p->count_unit && p->budget_rel_per_hour > 0 && isfinite(level) &&
	    level * p->budget_rel_per_hour > budget)
		budget = level * p->budget_rel_per_hour;
	*budget_out = budget;
	*saw_out = saw;

	fmt_amount(s1, sizeof(s1), out->slope_bph, p);
	/* After an onset the rise is tested on its own segment too: the flat
	 * hours before it make the one-line residuals look autocorrelated.
	 * The whole span must still lean upwards (z > 2), as a guard against
	 * the hinge having picked the last upward excursion of a wander. */
	if (has_onset && !(z > TREND_Z && full.lo > 0) && z > 2.0) {
		double S2, v2, z2;

		mann_kendall(ry + k_on, m - k_on, w->a, &S2, &v2);
		v2 *= f_hinge;
		z2 = v2 > 0 ? (S2 - (S2 > 0) + (S2 < 0)) / sqrt(v2) : 0.0;
		if (z2 > TREND_Z && seg.lo > 0) {
			z = z2;
			full.lo = seg.lo;
			out->p_value = erfc(fabs(z) / sqrt(2.0));
		}
	}
	if (!dominant && !(z > TREND_Z && full.lo > 0)) {
		out->verdict = MW_VERDICT_PASS;
		no_rate(out);
		snprintf(out->reason, sizeof(out->reason), "no steady trend over %s%s (p %.2g)",
			 (fmt_duration(s2, sizeof(s2), span_ms), s2), saw ? " of sawtooth floors" : "",
			 out->p_value);
		return;
	}
	if (!(tail.ok && tail.lo > 0 && tail.slope >= TAIL_RATIO * b_seg)) {
		double tail_ms = rx[m - 1] - (tail_from > rx[0] ? tail_from : rx[0]);

		out->verdict = MW_VERDICT_PASS;
		no_rate(out);
		fmt_amount(s3, sizeof(s3), ry[m - 1] - ry[0], p);
		fmt_duration(s2, sizeof(s2), tail_ms);
		if (rx[0] <= 0 && tail_from > 0)
			snprintf(out->reason, sizeof(out->reason),
				 "stopped rising: flat over the last %s after %s", s2, s3);
		else
			snprintf(out->reason, sizeof(out->reason), "stopped rising: flat over the last %s", s2);
		return;
	}
	/* Settling: growth that slows to under half its rate within the
	 * span while small against the process (an allocator's creep after a
	 * cache reached its cap, arenas settling) is not a leak; growth fast
	 * against the process is one however it slows (an interning table
	 * that never stops). */
	if (m >= 15 &&
	    !fast_relative(out->slope_bph * span_ms / HOUR_MS, ry[0], span_ms)) {
		struct ts_fit head, last;
		size_t third = m / 3;

		ts_fit_work(rx, ry, third, 1.0, Z95, w->pairs, &head);
		ts_fit_work(rx + m - third, ry + m - third, third, 1.0, Z95, w->pairs, &last);
		if (head.ok && last.ok && head.slope > 0 && last.slope < SETTLING_RATIO * head.slope) {
			out->verdict = MW_VERDICT_PASS;
			no_rate(out);
			fmt_amount(s2, sizeof(s2), last.slope * HOUR_MS, p);
			snprintf(out->reason, sizeof(out->reason),
				 "settling: slowed to %s/h, %.0f %% of its rate in the first third", s2,
				 100.0 * last.slope / head.slope);
			return;
		}
	}
	fmt_amount(s3, sizeof(s3), budget, p);
	if (!(out->slope_bph > budget)) {
		out->verdict = MW_VERDICT_PASS;
		out->onset_ms = INT64_MIN;
		out->projected_bytes = 0.0;
		snprintf(out->reason, sizeof(out->reason), "rising %s/h, within the budget of %s/h", s1, s3);
		return;
	}
	out->verdict = MW_VERDICT_FAIL;
}

/* The fail's reason, once the onset is known. */
static void fail_reason(struct mw_leak_result *out, const struct mw_leak_params *p, int saw,
			double budget)
{
	char s1[32], s2[40], s3[32], s4[32];

	fmt_amount(s1, sizeof(s1), out->slope_bph, p);
	fmt_amount(s3, sizeof(s3), budget, p);
	fmt_amount(s4, sizeof(s4), out->growth_bytes, p);
	mw_fmt_time_human(s2, sizeof(s2), out->onset_ms);
	snprintf(out->reason, sizeof(out->reason), "rising %s/h since %s%s, steady to the end (+%s, budget %s/h)%s",
		 s1, out->onset_at_start ? "the start, " : "", s2, s4, s3,
		 saw ? ", sawtooth floors" : "");
}

/*
 * The change point where the floors start to climb, over the whole trace
 * including the warm-up (the warm-up is not judged, but growth that
 * starts in it or right after it is dated where it starts, not at the end
 * of the warm-up): a hinge (flat, then a line) by least squares on
 * winsorized block medians, kept when the part before it is flat (its
 * Theil-Sen slope under a quarter of the part after).  x is ms since the
 * first point; returns the onset's x, or 0 with *at_start when the floors
 * climbed from the start.
 */
static double change_point(const double *x, const double *y, size_t n, int *at_start)
{
	struct work w;
	size_t m, kmax, k;
	double sse, onset = 0.0;
	struct ts_fit pre, post;

	*at_start = 1;
	if (n < 16)
		return 0.0;
	if (work_alloc(&w, n) < 0) {
		work_free(&w);
		return 0.0;
	}
	memcpy(w.x, x, n * sizeof(*x));
	memcpy(w.y, y, n * sizeof(*y));
	m = reduce(w.x, w.y, n, w.a, w.rx, w.ry);
	winsorize(w.ry, m, w.c, w.a);
	kmax = m - (m / 10 > 8 ? m / 10 : 8);
	if (m >= 16 && kmax >= 4) {
		k = hinge_search(w.rx, w.c, m, kmax, w.b, &sse);
		if (k >= 4) {
			ts_fit_work(w.rx, w.c, k + 1, 1.0, Z95, w.pairs, &pre);
			ts_fit_work(w.rx + k, w.c + k, m - k, 1.0, Z95, w.pairs, &post);
			/* a hinge in the first tenth is start-up, not an onset:
			 * "since the start" */
			if (pre.ok && post.ok && post.slope > 0 && pre.slope < 0.25 * post.slope &&
			    w.rx[k] - w.rx[0] >= 0.1 * (w.rx[m - 1] - w.rx[0])) {
				*at_start = 0;
				onset = w.rx[k];
			}
		}
	}
	work_free(&w);
	return onset;
}

/* A failing trace's onset from its change point over every point from
 * the first (warm-up included), its growth since then, and its reason. */
static void date_onset(const struct mw_trace *tr, size_t first, size_t last,
		       const struct mw_leak_params *p, struct mw_leak_result *out, int saw,
		       double budget)
{
	size_t i, n = 0;
	double *x = malloc((last - first + 1) * sizeof(*x));
	double *y = malloc((last - first + 1) * sizeof(*y));
	double on = 0.0;
	int at_start = 1;

	if (x && y) {
		for (i = first; i <= last; i++)
			if (valid_value(tr->v[i])) {
				x[n] = (double)(i - first) * (double)tr->step_ms;
				y[n] = tr->v[i];
				n++;
			}
		on = change_point(x, y, n, &at_start);
	}
	free(x);
	free(y);
	out->onset_at_start = at_start;
	out->onset_ms = out->first_ms + (at_start ? 0 : (int64_t)on);
	out->growth_bytes = out->slope_bph * (double)(out->last_ms - out->onset_ms) / HOUR_MS;
	fail_reason(out, p, saw, budget);
}

void mw_leak_judge(const struct mw_trace *tr, const struct mw_leak_params *pin,
		   struct mw_leak_result *out)
{
	struct mw_leak_params p;
	size_t i, first, last, js, nv = 0, nbad = 0;
	int64_t step, skip;
	double span_ms;
	struct work w;
	char s1[32], s2[32];
	int saw = 0;
	double budget = 0.0;

	if (!out)
		return;
	result_reset(out);
	params_sane(pin, &p);
	if (!tr || !tr->v || tr->n == 0) {
		snprintf(out->reason, sizeof(out->reason), "no data");
		return;
	}
	step = tr->step_ms;
	if (step <= 0) {
		snprintf(out->reason, sizeof(out->reason), "bad trace: bucket step %lld ms", (long long)step);
		return;
	}
	/* t0 + n * step must not overflow. */
	if ((tr->t0_ms > 0 && (uint64_t)(INT64_MAX - tr->t0_ms) / (uint64_t)step < tr->n) ||
	    (tr->t0_ms <= 0 && (uint64_t)INT64_MAX / (uint64_t)step < tr->n)) {
		snprintf(out->reason, sizeof(out->reason), "bad trace: time axis overflows");
		return;
	}
	for (first = 0; first < tr->n && !valid_value(tr->v[first]); first++)
		;
	if (first == tr->n) {
		snprintf(out->reason, sizeof(out->reason), "no usable data: %zu buckets, none valid", tr->n);
		return;
	}
	for (last = tr->n - 1; !valid_value(tr->v[last]); last--)
		;
	for (i = first; i <= last; i++)
		if (!isnan(tr->v[i]) && !valid_value(tr->v[i]))
			nbad++;
	out->first_ms = tr->t0_ms + (int64_t)first * step;
	out->last_ms = tr->t0_ms + (int64_t)last * step;
	skip = p.warmup_ms / step + (p.warmup_ms % step != 0);
	if ((uint64_t)skip > (uint64_t)(last - first)) {
		fmt_duration(s1, sizeof(s1), (double)(out->last_ms - out->first_ms + step));
		fmt_duration(s2, sizeof(s2), (double)p.warmup_ms);
		snprintf(out->reason, sizeof(out->reason),
			 "too little data after warm-up: run of %s is shorter than the %s warm-up", s1, s2);
		return;
	}
	js = first + (size_t)skip;
	out->judged_from_ms = tr->t0_ms + (int64_t)js * step;
	for (i = js; i <= last; i++)
		if (valid_value(tr->v[i]))
			nv++;
	out->coverage = (double)nv / (double)(last - js + 1);
	span_ms = (double)(last - js) * (double)step;
	if ((double)(last - js + 1) * (double)step < (double)p.min_duration_ms) {
		fmt_duration(s1, sizeof(s1), (double)(last - js + 1) * (double)step);
		snprintf(out->reason, sizeof(out->reason), "too little data after warm-up: %s", s1);
		return;
	}
	if (out->coverage < p.min_coverage) {
		snprintf(out->reason, sizeof(out->reason),
			 "data mostly missing: %.0f %% of the buckets after warm-up%s",
			 out->coverage * 100.0, nbad ? " (some values out of range)" : "");
		return;
	}
	if (nv < 8) {
		snprintf(out->reason, sizeof(out->reason), "too little data after warm-up: %zu buckets", nv);
		return;
	}
	if (work_alloc(&w, nv) < 0) {
		work_free(&w);
		snprintf(out->reason, sizeof(out->reason), "out of memory");
		return;
	}
	{
		size_t k = 0;
		double lo = INFINITY, hi = -INFINITY;

		for (i = js; i <= last; i++)
			if (valid_value(tr->v[i])) {
				w.x[k] = (double)(i - js) * (double)step;
				w.y[k] = tr->v[i];
				if (w.y[k] < lo)
					lo = w.y[k];
				if (w.y[k] > hi)
					hi = w.y[k];
				k++;
			}
		if (lo == hi) {
			out->verdict = MW_VERDICT_PASS;
			out->slope_bph = out->slope_lo_bph = out->slope_hi_bph = 0.0;
			out->growth_bytes = 0.0;
			out->level_bytes = lo;
			out->fit_t0_ms = out->judged_from_ms;
			out->fit_value0 = lo;
			out->p_value = 1.0;
			fmt_bytes(s1, sizeof(s1), lo);
			snprintf(out->reason, sizeof(out->reason), "flat: constant at %s", s1);
			work_free(&w);
			return;
		}
	}
	judge_points(&w, nv, &p, out->judged_from_ms, span_ms, out, &saw, &budget);
	work_free(&w);
	if (out->verdict == MW_VERDICT_FAIL)
		date_onset(tr, first, last, &p, out, saw, budget);
}

/* ---- groups ------------------------------------------------------------- */

/* The common axis must stay a small multiple of the data (a trace far in
 * the future must not make the total allocate gigabytes). */
#define GROUP_MAX_BUCKETS 10000000

void mw_leak_group_begin(struct mw_leak_group *g, const struct mw_leak_params *p, int64_t t0_ms,
			 int64_t step_ms, size_t nb)
{
	memset(g, 0, sizeof(*g));
	params_sane(p, &g->params);
	g->t0_ms = t0_ms;
	g->step_ms = step_ms;
	g->nb = nb;
	g->best = -1;
	if (step_ms > 0 && nb > 0 && nb <= GROUP_MAX_BUCKETS) {
		g->sum = calloc(nb, sizeof(*g->sum));
		g->alive = calloc(nb, sizeof(*g->alive));
		g->valid = calloc(nb, sizeof(*g->valid));
		if (!g->sum || !g->alive || !g->valid) {
			free(g->sum);
			free(g->alive);
			free(g->valid);
			g->sum = NULL;
			g->alive = g->valid = NULL;
		}
	}
}

void mw_leak_group_count(struct mw_leak_group *g, int64_t first_ms, int64_t last_ms, int ended,
			 struct mw_leak_result *out)
{
	char d[32];

	g->counted_only++;
	g->ninc++;
	g->ninconclusive++;
	if (ended)
		g->nended++;
	if (!out)
		return;
	result_reset(out);
	out->first_ms = first_ms;
	out->last_ms = last_ms;
	fmt_duration(d, sizeof(d), (double)(last_ms - first_ms));
	snprintf(out->reason, sizeof(out->reason), "too little data: lived %s in the range", d);
}

void mw_leak_group_add(struct mw_leak_group *g, const struct mw_trace *tr, struct mw_leak_result *out)
{
	struct mw_leak_result tmp, *r = out ? out : &tmp;
	size_t first, last, j;
	int64_t off, end;
	double lastv = NAN;

	mw_leak_judge(tr, &g->params, r);
	if (g->ninc == 0)
		g->first_r = *r;
	g->ninc++;
	if (r->verdict == MW_VERDICT_FAIL) {
		if (g->nfail == 0 || r->slope_bph > g->best_r.slope_bph) {
			g->best_r = *r;
			g->best = (long)(g->ninc - 1);
		}
		g->nfail++;
	} else if (r->verdict == MW_VERDICT_INCONCLUSIVE) {
		g->ninconclusive++;
		if (r->first_ms != INT64_MIN && r->last_ms != INT64_MIN &&
		    (!g->have_longest ||
		     r->last_ms - r->first_ms > g->longest_r.last_ms - g->longest_r.first_ms)) {
			g->longest_r = *r;
			g->have_longest = 1;
		}
	}
	if (!tr || !tr->v || tr->n == 0)
		return;
	if (tr->step_ms != g->step_ms) {
		g->axis_bad = 1;
		return;
	}
	for (first = 0; first < tr->n && !valid_value(tr->v[first]); first++)
		;
	if (first == tr->n)
		return;
	for (last = tr->n - 1; !valid_value(tr->v[last]); last--)
		;
	/* ended: its last point is more than a bucket before the axis ends */
	if (tr->t0_ms / tr->step_ms + (int64_t)last + 2 <
	    g->t0_ms / g->step_ms + (int64_t)g->nb)
		g->nended++;
	if (!g->sum)
		return;
	/* rounded to the common axis */
	if (tr->t0_ms < g->t0_ms - g->step_ms * (int64_t)GROUP_MAX_BUCKETS ||
	    tr->t0_ms > g->t0_ms + g->step_ms * (int64_t)GROUP_MAX_BUCKETS) {
		g->axis_bad = 1;
		return;
	}
	off = (tr->t0_ms - g->t0_ms + g->step_ms / 2) / g->step_ms;
	end = (int64_t)g->nb;
	for (j = first; j <= last; j++) {
		int64_t b = off + (int64_t)j;

		if (valid_value(tr->v[j]))
			lastv = tr->v[j];
		if (b < 0)
			continue;
		if (b >= end)
			break;
		if (valid_value(tr->v[j]))
			g->valid[b]++;
		/* a gap inside an incarnation keeps its last floor */
		if (isfinite(lastv)) {
			g->sum[b] += lastv;
			g->alive[b]++;
		}
	}
}

/* The total can only accumulate instances when more are alive at the
 * end than at the start: with the same ones throughout, each is judged on
 * its own (their sum is no more a leak than they are). */
static int more_alive_at_end(const struct mw_leak_group *g)
{
	size_t b, first = g->nb, last = g->nb;

	for (b = 0; b < g->nb; b++)
		if (g->alive[b]) {
			if (first == g->nb)
				first = b;
			last = b;
		}
	return first < g->nb && g->alive[last] > g->alive[first];
}

void mw_leak_group_end(struct mw_leak_group *g, struct mw_leak_group_result *out)
{
	struct mw_leak_result total;
	char tmp[MW_LEAK_REASON_MAX];
	size_t b;

	memset(out, 0, sizeof(*out));
	result_reset(&out->r);
	out->deciding_incarnation = -1;
	result_reset(&total);
	/* The total is judged only while no incarnation ended: workers added
	 * one by one that never exit accumulate, while a name whose
	 * instances come and go (shells, compilers, a build agent's sleep)
	 * has a total that follows how many happen to be alive, no leak. */
	if (g->ninc == 0)
		snprintf(total.reason, sizeof(total.reason), "no incarnations");
	else if (g->nended > 0)
		snprintf(total.reason, sizeof(total.reason), "%zu of them ended", g->nended);
	else if (g->axis_bad)
		snprintf(total.reason, sizeof(total.reason), "incarnations on different steps or times");
	else if (!g->sum)
		snprintf(total.reason, sizeof(total.reason), "no common time axis for the total");
	else if (!more_alive_at_end(g))
		snprintf(total.reason, sizeof(total.reason), "the same %zu throughout", g->ninc);
	else {
		struct mw_trace tt;

		for (b = 0; b < g->nb; b++)
			if (!g->alive[b] || !g->valid[b])
				g->sum[b] = NAN;
		tt.t0_ms = g->t0_ms;
		tt.step_ms = g->step_ms;
		tt.v = g->sum;
		tt.n = g->nb;
		mw_leak_judge(&tt, &g->params, &total);
	}
	out->total_failed = total.verdict == MW_VERDICT_FAIL;
	if (g->ninc == 1 && g->ninconclusive + g->nfail < 2 && !g->counted_only) {
		/* one incarnation: no group to speak of */
		out->r = g->first_r;
		out->deciding_incarnation = g->nfail ? 0 : -1;
	} else if (g->nfail > 0) {
		out->r = g->best_r;
		out->deciding_incarnation = (int)g->best;
		snprintf(tmp, sizeof(tmp), "incarnation %ld of %zu: %s", g->best + 1, g->ninc,
			 out->r.reason);
		memcpy(out->r.reason, tmp, sizeof(tmp));
	} else {
		out->r = total;
		if (total.verdict == MW_VERDICT_FAIL) {
			snprintf(tmp, sizeof(tmp), "group total of %zu incarnations, none ended: %s",
				 g->ninc, total.reason);
		} else if (g->ninconclusive == g->ninc &&
			   (g->nended > 0 || total.verdict == MW_VERDICT_INCONCLUSIVE)) {
			char w[32], d[32];

			out->r.verdict = MW_VERDICT_INCONCLUSIVE;
			fmt_duration(w, sizeof(w), (double)g->params.warmup_ms);
			fmt_duration(d, sizeof(d), (double)g->params.min_duration_ms);
			if (g->have_longest && g->longest_r.last_ms >= g->t0_ms + (int64_t)(g->nb - 2) * g->step_ms)
				/* the longest still runs: it says what is missing */
				snprintf(tmp, sizeof(tmp), "%zu incarnations, the longest: %s", g->ninc,
					 g->longest_r.reason);
			else if (g->nended > 0)
				snprintf(tmp, sizeof(tmp),
					 "%zu incarnations, none lived long enough to judge (warm-up %s + %s)",
					 g->ninc, w, d);
			else
				snprintf(tmp, sizeof(tmp), "%zu incarnations, none judged yet; total: %s",
					 g->ninc, total.reason);
		} else {
			/* no figure of a total that was not judged, or passed */
			out->r.verdict = MW_VERDICT_PASS;
			out->r.growth_bytes = NAN;
			out->r.projected_bytes = 0.0;
			if (g->nended > 0) {
				out->r.slope_bph = out->r.slope_lo_bph = out->r.slope_hi_bph = NAN;
				snprintf(tmp, sizeof(tmp), "%zu incarnations, none growing", g->ninc);
			} else {
				snprintf(tmp, sizeof(tmp), "%zu incarnations, none growing; total: %s",
					 g->ninc, total.reason);
			}
		}
		memcpy(out->r.reason, tmp, sizeof(tmp));
	}
	free(g->sum);
	free(g->alive);
	free(g->valid);
	g->sum = NULL;
	g->alive = g->valid = NULL;
}

void mw_leak_judge_group(const struct mw_trace *inc, size_t ninc,
			 const struct mw_leak_params *p,
			 struct mw_leak_result *inc_out,
			 struct mw_leak_group_result *group_out)
{
	struct mw_leak_group g;
	int64_t step = 0, tmin = INT64_MAX, tmax = INT64_MIN;
	size_t i, nb = 0;

	if (!group_out)
		return;
	for (i = 0; inc && i < ninc; i++) {
		if (!inc[i].v || inc[i].n == 0 || inc[i].step_ms <= 0)
			continue;
		if (!step)
			step = inc[i].step_ms;
		if (inc[i].t0_ms < tmin)
			tmin = inc[i].t0_ms;
		if (inc[i].n < (size_t)GROUP_MAX_BUCKETS && inc[i].t0_ms < INT64_MAX / 4 &&
		    inc[i].t0_ms > INT64_MIN / 4 &&
		    inc[i].t0_ms + (int64_t)inc[i].n * inc[i].step_ms > tmax)
			tmax = inc[i].t0_ms + (int64_t)inc[i].n * inc[i].step_ms;
	}
	if (step > 0 && tmax > tmin && (tmax - tmin) / step < GROUP_MAX_BUCKETS)
		nb = (size_t)((tmax - tmin + step - 1) / step);
	mw_leak_group_begin(&g, p, nb ? tmin : 0, step, nb);
	for (i = 0; inc && i < ninc; i++)
		mw_leak_group_add(&g, &inc[i], inc_out ? &inc_out[i] : NULL);
	mw_leak_group_end(&g, group_out);
	if (!inc || ninc == 0)
		snprintf(group_out->r.reason, sizeof(group_out->r.reason), "no incarnations");
}

/* ---- kinds -------------------------------------------------------------- */

/* Theil-Sen slope (bytes/h) of a trace's valid floors in [from, to]. */
static double trace_slope(const struct mw_trace *tr, int64_t from, int64_t to)
{
	struct work w;
	size_t i, n = 0;
	double slope = NAN;
	struct ts_fit fit;

	if (!tr || !tr->v || tr->n == 0 || tr->step_ms <= 0)
		return NAN;
	if (from == INT64_MIN)
		from = tr->t0_ms;
	if (work_alloc(&w, tr->n) < 0) {
		work_free(&w);
		return NAN;
	}
	for (i = 0; i < tr->n; i++) {
		double t = (double)tr->t0_ms + (double)i * (double)tr->step_ms;

		if (t < (double)from || t > (double)to || !valid_value(tr->v[i]))
			continue;
		w.x[n] = t - (double)from;
		w.y[n] = tr->v[i];
		n++;
	}
	if (n >= 3) {
		size_t m = reduce(w.x, w.y, n, w.a, w.rx, w.ry);

		ts_fit_work(w.rx, w.ry, m, 1.0, Z95, w.pairs, &fit);
		if (fit.ok)
			slope = fit.slope * HOUR_MS;
	}
	work_free(&w);
	return slope;
}

int mw_leak_kind(const struct mw_trace *kinds, size_t nkinds,
		 const struct mw_leak_result *r, double *shares_out)
{
	int64_t from = INT64_MIN, to = INT64_MAX;
	size_t k;
	int best = -1;
	double bs = -INFINITY;

	if (r) {
		if (r->onset_ms != INT64_MIN)
			from = r->onset_ms;
		else if (r->judged_from_ms != INT64_MIN)
			from = r->judged_from_ms;
		if (r->last_ms != INT64_MIN)
			to = r->last_ms;
	}
	for (k = 0; k < nkinds; k++) {
		double s = kinds ? trace_slope(&kinds[k], from, to) : NAN;

		if (shares_out)
			shares_out[k] = s;
		if (isfinite(s) && s > bs) {
			bs = s;
			best = (int)k;
		}
	}
	if (!r || !isfinite(r->slope_bph) || r->slope_bph <= 0)
		return -1;
	if (best < 0 || !(bs >= r->slope_bph / 3.0))
		return -1;
	return best;
}
