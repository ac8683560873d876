/* leak_corpus.h - seeded synthetic traces of floors for the leak tests.
 *
 * How a trace is made: every bucket's floor is the minimum of RAW_PER_BUCKET
 * raw values spread over the bucket, each the shape at that instant (level,
 * leak, warm-up, sawtooth, cycle, step...) plus a wander shared by the bucket
 * (AR(1), correlation time ar_tau_ms) plus white noise N(0, sd).  So a floor's
 * noise is the minimum of four normals (sd about 0.70 x sd, mean about
 * -1.03 x sd) and a sawtooth faster than a bucket is flattened as the real
 * agg=min flattens it.  One-sample outliers are then applied to the floors
 * themselves (a glitch reading), and gaps are NaN.
 *
 * Only splitmix64 and Box-Muller (libm log, sqrt, cos): the same corpus on
 * Linux and under Wine. */
#ifndef LEAK_CORPUS_H
#define LEAK_CORPUS_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LC_MIB (1024.0 * 1024.0)
#define LC_MIN 60000LL
#define LC_HOUR 3600000LL
#define LC_DAY 86400000LL
#define RAW_PER_BUCKET 4

struct lc_rng {
	uint64_t s;
};

static inline uint64_t lc_next(struct lc_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline double lc_unif(struct lc_rng *r)
{
	return (double)(lc_next(r) >> 11) * (1.0 / 9007199254740992.0);
}

static inline double lc_range(struct lc_rng *r, double a, double b)
{
	return a + (b - a) * lc_unif(r);
}

static inline double lc_normal(struct lc_rng *r)
{
	double u1 = lc_unif(r), u2 = lc_unif(r);

	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* The shape of one incarnation; times are ms since its start. */
struct lc_shape {
	double level, sd;		/* bytes */
	double ar_sd, ar_tau_ms;	/* wander */
	double leak_bph;		/* linear leak from onset */
	double accel_bph2;		/* + accel * h^2 (h: hours since onset) */
	int64_t onset_ms;
	double warm_amp, warm_tau_ms;	/* warm-up growth then plateau */
	double saw_amp, saw_period_ms, saw_phase;
	double stair_h, stair_period_ms;	/* staircase never released */
	double step_h;
	int64_t step_at_ms;
	double cyc_amp, cyc_period_ms, cyc_phase;
	int nbursts;
	int64_t burst_at[8], burst_len[8];
	double burst_amp;
	double outlier_p, outlier_mag;
	int ngaps;
	int64_t gap_at[6], gap_len[6];
	double cap;			/* > 0: the leak stops growing there */
};

static inline double lc_leak_at(const struct lc_shape *s, double t)
{
	double v = 0.0;

	if (t > (double)s->onset_ms) {
		double h = (t - (double)s->onset_ms) / (double)LC_HOUR;

		v += s->leak_bph * h + s->accel_bph2 * h * h;
	}
	if (s->stair_period_ms > 0)
		v += s->stair_h * floor(t / s->stair_period_ms);
	if (s->cap > 0 && v > s->cap)
		v = s->cap;
	return v;
}

static inline double lc_base(const struct lc_shape *s, double t)
{
	double v = s->level + lc_leak_at(s, t);
	int i;

	if (s->warm_amp > 0)
		v += s->warm_amp * (1.0 - exp(-t / s->warm_tau_ms));
	if (s->saw_amp > 0) {
		double ph = t / s->saw_period_ms + s->saw_phase;

		v += s->saw_amp * (ph - floor(ph));
	}
	if (s->step_h != 0 && t >= (double)s->step_at_ms)
		v += s->step_h;
	if (s->cyc_amp > 0)
		v += s->cyc_amp * sin(6.283185307179586 * t / s->cyc_period_ms + s->cyc_phase);
	for (i = 0; i < s->nbursts; i++)
		if (t >= (double)s->burst_at[i] && t < (double)(s->burst_at[i] + s->burst_len[i]))
			v += s->burst_amp;
	return v;
}

/* Fills v[0..n-1] with floors of buckets of step_ms. */
static inline void lc_generate(const struct lc_shape *s, struct lc_rng *r, int64_t step_ms,
			       double *v, size_t n)
{
	double ar = 0.0, phi = 0.0, innov = 0.0;
	size_t i;
	int j;

	if (s->ar_sd > 0 && s->ar_tau_ms > 0) {
		phi = exp(-(double)step_ms / s->ar_tau_ms);
		innov = s->ar_sd * sqrt(1.0 - phi * phi);
		ar = s->ar_sd * lc_normal(r);
	}
	for (i = 0; i < n; i++) {
		double t = (double)i * (double)step_ms, fl = INFINITY;

		for (j = 0; j < RAW_PER_BUCKET; j++) {
			double raw = lc_base(s, t + (double)j * (double)step_ms / RAW_PER_BUCKET) + ar +
				     s->sd * lc_normal(r);

			if (raw < fl)
				fl = raw;
		}
		if (s->outlier_p > 0 && lc_unif(r) < s->outlier_p)
			fl += (lc_unif(r) < 0.5 ? -1.0 : 1.0) * s->outlier_mag;
		if (fl < 0)
			fl = 0;
		v[i] = fl;
		if (phi > 0)
			ar = phi * ar + innov * lc_normal(r);
	}
	for (j = 0; j < s->ngaps; j++) {
		int64_t a = s->gap_at[j] / step_ms, b = (s->gap_at[j] + s->gap_len[j]) / step_ms, k;

		for (k = a; k < b && k < (int64_t)n; k++)
			if (k >= 0)
				v[k] = NAN;
	}
}

/* A step of about range / 700, rounded to whole minutes (5 or 10 for days). */
static inline int64_t lc_step_for(int64_t range_ms)
{
	int64_t st = range_ms / 700;

	if (range_ms > 3 * LC_DAY)
		return st > 7 * LC_MIN ? 10 * LC_MIN : 5 * LC_MIN;
	st = (st + LC_MIN / 2) / LC_MIN * LC_MIN;
	return st < LC_MIN ? LC_MIN : st;
}

#endif
