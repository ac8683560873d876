/*
 * leak.h - leak verdicts: pure judgement of memory series, no I/O.
 *
 * Input is what storage returns for a time range: per incarnation of a
 * process (pid + start time), a series of per-bucket FLOORS (the minimum
 * of the raw samples in each bucket, as a range query with agg=min
 * returns), on a regular time axis, NaN where the bucket holds no data.
 * Output is a verdict (pass, fail, inconclusive) with the figures a soak
 * test wants: the growth rate and its confidence interval, the growth,
 * since when it grows (onset), the projection over a horizon, and a
 * reason in plain words.
 *
 * Method (see analysis/leak.c for why each step is there):
 *   1. warm-up: the first warmup_ms of each incarnation is not judged;
 *   2. coverage: less than min_coverage of the judged buckets present,
 *      or less than min_duration_ms judged: inconclusive;
 *   3. trend: Theil-Sen slope of the floors with a distribution-free
 *      confidence interval, and a Mann-Kendall test whose variance is
 *      corrected for autocorrelation (effective sample size), so random
 *      wander is not called a trend;
 *   4. shape: the tail must still be climbing (a warm-up that plateaus, a
 *      single step up that stays, a cache that filled are not leaks);
 *   5. onset: the change point where the floors start to climb;
 *   6. budget: the slope must exceed the user's growth budget, absolute
 *      (bytes per hour) and relative (fraction of the level per hour).
 *
 * Details (analysis/leak.c): a deep sawtooth (6+ drops beyond 6 sd of the
 * first differences) is judged on one floor per cycle; beyond 300 points
 * the floors are reduced to block medians before Theil-Sen; a fail needs
 * the corrected trend at p < 0.001 with Sen's lower bound above zero, the
 * last third (at least 30 min) still climbing at half the slope or more,
 * and the slope over the budget.  The onset of a fail is the change point
 * over the whole trace, warm-up included; times in reasons are UTC
 * "2026-11-25 22:55:07 UTC".
 *
 * Defaults (mw_leak_params_init): warm-up 10 min, minimum judged duration
 * 20 min, coverage 0.8, budget 64 KiB/h absolute, relative off, horizon
 * 24 h; the reasons are in leak.c and leak_onset.c.
 *
 * Owner: the detector work (analysis/leak*.[ch] and robust_stats.[ch],
 * see analysis/README.md; tests/test_leak*.c, tests/leak_corpus.h).
 * Callers: the leak report (the check command, the web API, the judge
 * service), the process table (mw_theil_sen).
 *
 * Everything here is deterministic and allocation-bounded by the input
 * size; functions may be called from any thread.
 */
#ifndef MW_LEAK_H
#define MW_LEAK_H

#include <stddef.h>
#include <stdint.h>

/* The numeric values are memwatchd check's exit statuses. */
enum mw_verdict {
	MW_VERDICT_PASS = 0,
	MW_VERDICT_FAIL = 1,
	MW_VERDICT_INCONCLUSIVE = 3,
};
/* "pass", "fail", "inconclusive". */
const char *mw_verdict_name(enum mw_verdict v);
/* Order for ranking and combining: fail > inconclusive > pass. */
int mw_verdict_rank(enum mw_verdict v);

struct mw_leak_params {
	int64_t warmup_ms;		/* not judged at the start of each incarnation (10m) */
	int64_t min_duration_ms;	/* judged span needed for a verdict (20m) */
	double min_coverage;		/* fraction of judged buckets with data (0.8) */
	double budget_bytes_per_hour;	/* absolute growth budget (64 KiB/h) */
	double budget_rel_per_hour;	/* relative to the level, 0.01 = 1 %/h (0: none) */
	int64_t horizon_ms;		/* projection horizon (24h) */
	/* What the trace counts: NULL for bytes, else the plural name of
	 * the things counted ("handles", "threads"): the reasons say
	 * "rising 360 handles/h" and the budget is budget_count_per_hour. */
	const char *count_unit;
	double budget_count_per_hour;	/* budget of a count (10 /h) */
	uint64_t exit_max_bytes;	/* [exit_leaks] max_bytes (analysis/exit_check.c, 0) */
	/* Holes in the time axis a step of the wall clock forward left
	 * (analysis/leak_steps.c): a bucket without data inside one is not
	 * missing data, and the judged span closes over it.  The caller's,
	 * NULL/0 for none. */
	const struct mw_time_hole *holes;
	size_t nholes;
	/* What came before the trace is not comparable with it (a JVM's
	 * heap before its collector sized it: leak_report_jvm.c): no change
	 * point is searched, the fit is the whole judged span's and a fail
	 * dates no onset ("over the 25 min judged").  0 by default. */
	int onset_unknown;
	/* When the process began (its `started` label), INT64_MIN when
	 * unknown (a group's total, a trace of no one process).  A process
	 * first seen more than MW_LEAK_SEEN_LATE_MS after it began (memwatch
	 * started later, or the range begins later) has warmed up for that
	 * long already: the warm-up counts from its start, not from the
	 * trace's first point, and a growth under way from that first point
	 * was under way before it (onset_before_data). */
	int64_t process_start_ms;
};

/* A process first seen this long after its start, or longer, was running
 * before its data: a minute, the longest sampling interval. */
#define MW_LEAK_SEEN_LATE_MS 60000

/* [from_ms, to_ms): no time passed there for the process, only for the
 * wall clock (it was stepped forward by to_ms - from_ms). */
struct mw_time_hole {
	int64_t from_ms, to_ms;
};

/* A process whose first point (first_ms, step_ms its bucket) came
 * MW_LEAK_SEEN_LATE_MS or more after its start, one bucket more: it ran
 * before its data.  0 for an unknown start (INT64_MIN). */
int mw_leak_seen_late(int64_t process_start_ms, int64_t first_ms, int64_t step_ms);
/* The warm-up still to come at first_ms, a process's first point (step_ms
 * its bucket): all of p->warmup_ms for a process seen within
 * MW_LEAK_SEEN_LATE_MS of its start (one bucket more) or of no known
 * start (INT64_MIN), what is left of it since the process began for one
 * seen later (0 once it is over). */
int64_t mw_leak_warmup_left(const struct mw_leak_params *p, int64_t process_start_ms,
			    int64_t first_ms, int64_t step_ms);

/* The documented defaults (README, config/memwatch.ini). */
void mw_leak_params_init(struct mw_leak_params *p);

/* One regular trace of floors.  t[i] = t0_ms + i * step_ms is the start
 * of bucket i; v[i] is its floor or NaN for no data. */
struct mw_trace {
	int64_t t0_ms;
	int64_t step_ms;
	const double *v;
	size_t n;
};

#define MW_LEAK_REASON_MAX 256

struct mw_leak_result {
	enum mw_verdict verdict;
	/* Theil-Sen slope over the judged span and its 95 % interval, bytes
	 * per hour; NaN when too little data to compute one. */
	double slope_bph;
	double slope_lo_bph;
	double slope_hi_bph;
	/* Growth of the fitted trend over the judged span (slope x span from
	 * the onset, or from the judged start when no onset), bytes. */
	double growth_bytes;
	double projected_bytes;		/* slope x horizon (0 when not growing) */
	double level_bytes;		/* fitted floor at the end of the judged span */
	int64_t onset_ms;		/* since when it grows; INT64_MIN: none */
	/* The growth was already under way at the first point of the trace
	 * (onset_ms is then that point): "rising since the start". */
	int onset_at_start;
	/* ... and the process had run for a while before that point (see
	 * process_start_ms): the growth began before the data, not at it,
	 * "rising since before <first point>". */
	int onset_before_data;
	int64_t first_ms, last_ms;	/* first and last bucket with data */
	int64_t judged_from_ms;		/* after the warm-up; INT64_MIN: nothing judged */
	double coverage;		/* fraction of judged buckets with data */
	double p_value;			/* trend test, corrected; NaN if not run */
	/* The fitted trend for drawing: value(t) = fit_value0 + slope_bph *
	 * (t - fit_t0_ms) / 3600000 for t >= fit_t0_ms. */
	int64_t fit_t0_ms;
	double fit_value0;
	/* Inconclusive because the points wander too much to see a growth
	 * that matters: the smallest growth per hour the trend test would see
	 * over this span; NaN otherwise.  A group with such an aspect is not
	 * passed on a quiet one. */
	double detectable_bph;
	/* Judged, and the data cannot exclude a leak: too noisy (above), or
	 * a significant rise in too few steps to fit a rate yet.  A group
	 * with such an aspect or incarnation is not passed on a quiet one. */
	int undecided;
	/* A fail turned into a pass by a bound (leak_bound.c): its reason
	 * explains a growth the process shows, so a group's pass names it
	 * before a plain one. */
	int bounded;
	int trended;			/* its own trend test called it rising (p < 0.001),
					 * whatever rule then decided */
	/* Inconclusive only because the data cannot rule out a leak that
	 * matters yet (leak.c unbounded_rise: no steady trend, or flat or
	 * settling after a rise): a pool's total is judged over such
	 * incarnations as over passes, unless their own trend test saw a rise
	 * (trended). */
	int unbounded;
	char reason[MW_LEAK_REASON_MAX];	/* plain words, no trailing full stop */
};

/*
 * Judge one incarnation's trace.  Always fills out (never fails): too
 * little data is an inconclusive verdict with a reason naming what is
 * missing ("too little data after warm-up: 2 min").
 */
void mw_leak_judge(const struct mw_trace *tr, const struct mw_leak_params *p,
		   struct mw_leak_result *out);

/*
 * A group: every incarnation of one image name in the range.  inc[i] is
 * incarnation i's trace, all on the same step (their t0 may differ).
 * Fills inc_out[i] for each and group_out for the group:
 *   - fail when any incarnation fails, or when the group's total (the sum
 *     of the incarnations alive in each bucket, judged without a per-
 *     incarnation warm-up) keeps growing while none of them ended (a
 *     worker added every 20 minutes that never exits); a total that
 *     follows how many instances come and go (shells, compilers) is not
 *     judged;
 *   - else inconclusive when an incarnation was too noisy to judge
 *     (detectable_bph), or when every incarnation is inconclusive and the
 *     total is too, or not judged; else pass.
 * The group's figures are those of the failing incarnation with the
 * steepest slope (the failing ones alive at the end summed, or a pool's
 * total when it is surely half as much again: leak_group.c), else those
 * of the total.
 */
struct mw_leak_group_result {
	struct mw_leak_result r;
	int deciding_incarnation;	/* index into inc, -1: the total */
	int total_failed;		/* the total alone would fail */
	size_t nfail;			/* incarnations failing */
	size_t nfail_alive;		/* of them, alive at the end: their rates add */
	struct mw_leak_result steepest;	/* with nfail_alive >= 2 or pool_total:
					 * the deciding incarnation's own figures
					 * (r sums them) */
	int pool_total;			/* r's rate is the pool's total, beyond
					 * what its failing incarnations add up to */
};

void mw_leak_judge_group(const struct mw_trace *inc, size_t ninc,
			 const struct mw_leak_params *p,
			 struct mw_leak_result *inc_out,
			 struct mw_leak_group_result *group_out);

/*
 * The same, one incarnation at a time, so a group of tens of thousands of
 * incarnations (a build agent's `sleep`) is judged in memory bounded by
 * one trace and the axis: begin with the common axis (t0, step, nb
 * buckets), add each incarnation (judged into out, may be NULL) or count
 * one that was not read (too short to judge; ended: it ended before the
 * axis did; out, may be NULL, gets its inconclusive result, seen from
 * first_ms to last_ms), end into the group's result (frees what begin
 * took).
 */
struct mw_leak_group {
	struct mw_leak_params params;
	int64_t t0_ms, step_ms;
	size_t nb;
	double *sum;			/* the total per bucket */
	uint32_t *alive, *valid;	/* incarnations alive / with a floor */
	size_t ninc, nfail, ninconclusive, nended;
	int axis_bad;
	long best;			/* steepest failing incarnation, -1: none */
	struct mw_leak_result best_r;
	struct mw_leak_result first_r;	/* the first one added (a group of one) */
	struct mw_leak_result longest_r;	/* the inconclusive one with most data */
	int have_longest;
	size_t nnoisy;			/* judged, too noisy to see a leak (leak.c) */
	struct mw_leak_result noisy_r;	/* the first of them */
	size_t counted_only;		/* counted, not read */
	/* the failing incarnations alive at the end, their figures summed:
	 * a pool whose workers all leak grows by their rates together */
	size_t nfail_alive;
	struct mw_leak_result alive_sum;
	int total_same;			/* the total judged was of the same ones throughout */
	size_t nbounded;		/* passed by a bound (leak_bound.c), not by their shape */
	size_t nrose_unfailed;		/* not failing, yet called rising by their own
					 * trend test (a pass: stopped, settling) */
	size_t nunbounded;		/* inconclusive only for want of a bound */
};

void mw_leak_group_begin(struct mw_leak_group *g, const struct mw_leak_params *p, int64_t t0_ms,
			 int64_t step_ms, size_t nb);
void mw_leak_group_add(struct mw_leak_group *g, const struct mw_trace *tr,
		       struct mw_leak_result *out);
/* The same with the incarnation judged already (r: mw_leak_judge's result
 * for tr, or one a later look changed: leak_report_jvm.c). */
void mw_leak_group_add_judged(struct mw_leak_group *g, const struct mw_trace *tr,
			      const struct mw_leak_result *r);
void mw_leak_group_count(struct mw_leak_group *g, int64_t first_ms, int64_t last_ms, int ended,
			 struct mw_leak_result *out);
void mw_leak_group_end(struct mw_leak_group *g, struct mw_leak_group_result *out);

/*
 * Which kind of memory carries the growth: given the floors of each kind
 * (heap, private data, stacks, mapped, image ...) of one process over the
 * same span as a judged result r, the index of the kind whose own slope
 * from r->onset_ms (or r->judged_from_ms) explains the most of r's slope,
 * or -1 when none carries at least a third of it.  shares_out (nkinds
 * entries, may be NULL) receives each kind's slope in bytes per hour.
 */
int mw_leak_kind(const struct mw_trace *kinds, size_t nkinds,
		 const struct mw_leak_result *r, double *shares_out);

/*
 * A fail r of resident memory (Linux private bytes: resident anonymous
 * pages) that only fills memory the process committed before it
 * (leak_bound.c): the committed trace (its private mappings' size),
 * judged alone by these rules, passes and rose over r's judged span by
 * no more than budget x horizon; the resident part of those mappings
 * (resident) carried at least half of r's growth over the last half of
 * the span; and what is left to fill at the end is at most budget x
 * horizon.  Then r becomes a pass without a rate or projection (a pass
 * reads like no leak), its reason naming the headroom, and 1 is
 * returned; a fail rising as fast as a leak that matters
 * (MW_LEAK_SETTLED_BUDGETS budgets an hour or more, by_design 0) becomes
 * inconclusive instead, with the same headroom; else r is left alone and
 * 0 is returned.  Both traces on r's
 * time axis, NaN for buckets without data.  by_design: bytes the program
 * grows into and fills by design, whose contents are judged on their own
 * (a JVM's heap up to -Xmx, counted in committed from the start: it
 * commits the heap as its collector sizes it and touches it region by
 * region; its old generation after collections is the java_heap aspect):
 * what is left to fill may be that much more, with the share its
 * collector commits beside the heap.  0 for none.
 */
int mw_leak_commit_bound(const struct mw_trace *committed, const struct mw_trace *resident,
			 const struct mw_leak_params *p, double by_design, struct mw_leak_result *r);
/* What the pages of a mapped bound lie in, for its reason: Linux file
 * pages (RssFile), Windows shareable pages a watched process's working
 * set puts in views of files, or an unwatched one's shareable pages, in
 * views of files or of pagefile-backed sections (nothing tells which). */
enum mw_leak_mapped_what {
	MW_LEAK_MAPPED_FILES,
	MW_LEAK_MAPPED_FILE_VIEWS,
	MW_LEAK_MAPPED_VIEWS,
};
/*
 * A fail r of resident file-backed memory (Linux RssFile; Windows: the
 * shareable working set, see what) that only fills
 * files the process had mapped before it (leak_bound.c): the size of its
 * mappings that can hold such pages (mapped: statm's size less its data,
 * so file mappings, images, shared memory and reservations; Windows:
 * the virtual size less private bytes), judged alone
 * by these rules, passes and rose over r's judged span by no more than
 * budget x horizon; and the resident pages at the end lie within it.  Then
 * r becomes a pass without a rate or projection, its reason naming what
 * is mapped and what is left to fill, and 1 is returned; else r is left
 * alone and 0 is returned.  Unlike private memory no headroom bound: the
 * pages of a file mapping are the file's, kept in the page cache, and the
 * kernel takes them back under pressure; a leak of mappings grows what is
 * mapped.  Both traces on r's time axis, NaN for buckets without data.
 */
int mw_leak_mapped_bound(const struct mw_trace *mapped, const struct mw_trace *resident,
			 const struct mw_leak_params *p, enum mw_leak_mapped_what what,
			 struct mw_leak_result *r);
/* What a JVM's collector commits beside each byte of heap, counted with
 * the heap (by_design above): G1's mark bitmap is 1/64 of the heap, its
 * card, offset and card-count tables 1/512 each, its remembered sets a
 * few percent more.  ok_java, whose G1 grew its heap from 145 to 234 MiB
 * on a loaded machine, committed 4.5 % more beside it (one recording). */
#define MW_LEAK_JVM_SIDE_PER_HEAP (1.0 / 16)

/* Robust statistics (analysis/robust_stats.c), exposed for the tests and
 * the process table. */

/* Theil-Sen slope (per ms) of the points (x[i], y[i]), NaN-free, with
 * the 95 % confidence interval for an effective sample size n_eff (pass
 * n for independent points).  Returns 0, or -1 when n < 3. */
int mw_theil_sen(const double *x, const double *y, size_t n, double n_eff,
		 double *slope, double *lo, double *hi);

#endif
