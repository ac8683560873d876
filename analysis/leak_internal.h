/*
 * leak_internal.h - what the files of the leak verdict share: the
 * detector's sizes, the scratch arrays of a judgement, the parameter and
 * result helpers and the words of reasons.  Not for use outside
 * analysis/leak*.c; the public API is leak.h.
 *
 *   leak_params.c   verdict names, parameter defaults and their checks,
 *                   the warm-up a process has left,
 *                   the empty result;
 *   leak_format.c   amounts, sizes and durations in reasons;
 *   leak.c          the verdict of one trace;
 *   leak_sparse.c   a trace sparser than its buckets, merged to its
 *                   samples' spacing first;
 *   leak_onset.c    since when a failing trace grows, and its reason;
 *   leak_group.c    the verdict of every incarnation of a name;
 *   leak_kind.c     which kind of memory carries a growth;
 *   robust_stats.c  the statistics under all of them.
 */
#ifndef MW_ANALYSIS_LEAK_INTERNAL_H
#define MW_ANALYSIS_LEAK_INTERNAL_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "leak.h"

#define HOUR_MS 3600000.0
#define MIN_MS 60000.0
/* Reduced series size: 300 points are 44,850 pairwise slopes; with the
 * O(n^2) model searches this keeps 1000 buckets near 1 ms. */
#define MW_LEAK_MAX_POINTS 300
/* The smallest leak the defaults must fail, in budgets an hour (bytes:
 * 16 x 64 KB/h, 1 MB/h): no pass rises this fast (leak.c settled_rate,
 * leak_bound.c). */
#define MW_LEAK_SETTLED_BUDGETS 16.0
/* Values beyond 2^60 bytes are not memory sizes. */
#define MW_LEAK_MAX_VALUE 1152921504606846976.0

/* A floor that can be judged: finite, not negative, a possible size. */
static inline int mw_leak_valid_value(double v)
{
	return isfinite(v) && v >= 0.0 && v <= MW_LEAK_MAX_VALUE;
}

/* Before an onset the floors are flat: their Theil-Sen slope under this
 * share of the slope after it (leak.c find_onset, leak_onset.c). */
#define MW_ONSET_FLAT_SHARE 0.25

/* Add one incarnation's floors v[0..n) to a total over nb buckets, its
 * bucket 0 at the total's bucket off: from its first valid floor to its
 * last, a gap inside keeping its last floor, each bucket counted in alive
 * and, where the floor is its own, in valid (NULL: not counted).  The
 * group's total (leak_group.c) and a group's summed PSS
 * (leak_report_held.c). */
void mw_leak_sum_floors(double *sum, uint32_t *alive, uint32_t *valid, size_t nb,
			const double *v, size_t n, int64_t off);

/* The spacing of tr's samples in buckets: the mean gap between buckets
 * with a value, gaps over twice the median left out (missing data),
 * rounded up past a fifth; 1 when nearly every bucket has one, or too
 * few gaps to tell. */
size_t mw_leak_sample_spacing(const struct mw_trace *tr);
/* tr merged by its samples' spacing into *out (each bucket the lowest
 * valid value of the buckets it merges): the values, for the caller to
 * free; NULL, *out untouched, when tr is not sparse (spacing 1) or
 * cannot be merged. */
double *mw_leak_merge_sparse(const struct mw_trace *tr, struct mw_trace *out);

/* The scratch arrays of one judgement, sized by mw_leak_work_alloc for n
 * points. */
struct mw_leak_work {
	double *x, *y;		/* judged points (x: ms since judged_from) */
	double *rx, *ry;	/* reduced points */
	double *pairs;		/* m(m-1)/2, m = min(n, MW_LEAK_MAX_POINTS) */
	double *a, *b, *c;	/* scratch, 2 * max(n, MW_LEAK_MAX_POINTS) each */
};

/* One allocation for all of them: 0, or -1 when it failed
 * (mw_leak_work_free it anyway). */
int mw_leak_work_alloc(struct mw_leak_work *w, size_t n);
void mw_leak_work_free(struct mw_leak_work *w);

/* in's parameters with every out-of-range one replaced by its default
 * (in may be NULL: all defaults). */
void mw_leak_params_sane(const struct mw_leak_params *in, struct mw_leak_params *p);
/* An inconclusive result with no figures and no reason. */
void mw_leak_result_reset(struct mw_leak_result *out);

/* A pass that does not rise carries no leak-like figure: no rate,
 * growth, projection or onset (leak.c). */
void mw_leak_no_rate(struct mw_leak_result *out);

/* "1.5 MiB", "-512 KiB", "?" for NaN. */
void mw_leak_fmt_bytes(char *buf, size_t len, double b);
/* "12 min", "3h 05m", "2d 4h". */
void mw_leak_fmt_duration(char *buf, size_t len, double ms);
/* An amount of what the trace counts: bytes, or "360 handles". */
void mw_leak_fmt_amount(char *buf, size_t len, double v, const struct mw_leak_params *p);

/* Bucket i of tr is empty because the wall clock was stepped forward over
 * it (p->holes): no time passed there for the process (leak.c). */
bool mw_leak_in_hole(const struct mw_trace *tr, size_t i, const struct mw_leak_params *p);

/* Date a failing trace's onset from its change point over every point
 * from first to last (warm-up included), its growth since then, and
 * write its reason (leak_onset.c); saw: judged on sawtooth floors. */
void mw_leak_date_onset(const struct mw_trace *tr, size_t first, size_t last,
			const struct mw_leak_params *p, struct mw_leak_result *out, int saw,
			double budget);

#endif
