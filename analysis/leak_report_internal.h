/*
 * leak_report_internal.h - what the files of the leak report share: the
 * aspects of a process that are judged, the series selected for judging,
 * the result of one aspect of one group and of one group, and the JSON
 * pieces they are written with.  Not for use outside analysis/leak_*.c;
 * the public API is leak_report.h.
 *
 *   leak_query.c         the query: options by name, [leak] defaults;
 *   leak_aspects.c       what is judged: the default aspects, a selector's;
 *   leak_report_read.c   one aspect of one group: its series read in
 *                        chunks, each incarnation judged, the best listed;
 *   leak_report_kind.c   which kind of memory a failing process grew in;
 *   leak_report_bound.c  a private fail that only fills committed memory;
 *   leak_report_held.c   shared pages a group held already;
 *   leak_report_jvm.c    a JVM's heap: its size, and judging after sizing;
 *   leak_report_group.c  one group: its aspects' verdicts combined, its JSON;
 *   leak_json.c          a result's figures and a kind as JSON;
 *   leak_report.c        the report: selection, grouping, ranking, counts;
 *   leak_table.c         the report as a table for people.
 */
#ifndef MW_ANALYSIS_LEAK_REPORT_INTERNAL_H
#define MW_ANALYSIS_LEAK_REPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/json_out.h"
#include "base/mwerr.h"
#include "core/status.h"
#include "leak_report.h"
#include "storage/query.h"

/* Incarnations listed per group; the rest are counted. */
#define MW_LEAK_MAX_LISTED 50

/* ---- what is judged (leak_aspects.c) ---- */

/* A second look at one incarnation's result *r (judged with p on tr, its
 * floors on the axis from, to, step), which it may change before the
 * group counts it (struct mw_leak_aspect's look). */
typedef void (*mw_leak_incarnation_look)(struct mw_reader *reader, const struct mw_series_info *s,
					 const struct mw_trace *tr, const struct mw_leak_params *p,
					 int64_t from, int64_t to, int64_t step,
					 struct mw_leak_result *r);

/* One aspect of a process: a per-process series judged on its own; a
 * group's verdict is the worst of its aspects'. */
struct mw_leak_aspect {
	const char *name;	/* JSON key */
	const char *selector;
	const char *unit;	/* NULL: bytes, else what is counted */
	bool refine;		/* a fail looks for the finer kind (leak_report_kind.c) */
	const char *kind;	/* the kind a fail names otherwise; NULL: none */
	/* Windows' shareable working set: a fail names image, mapped (a
	 * mapped file) or shared (a pagefile-backed section) from the
	 * watched process's working-set categories, where it has them */
	bool refine_shareable;
	/* pages other processes may hold too (shared memory, mapped files):
	 * a fail of one of a group of several is judged again on the group's
	 * summed proportional set (leak_report_held.c) */
	bool held_by_group;
	/* a second look at each incarnation's result before its group
	 * counts it (java_heap: leak_report_jvm.c); NULL: none */
	mw_leak_incarnation_look look;
};

/* The number of default aspects: the most a report judges. */
#define MW_LEAK_NASPECTS 7

/* The aspects q judges: the defaults, or the one of q's selector (built
 * in *user, which must outlive the result).  Returns their count. */
size_t mw_leak_aspects_for(const struct mw_leak_query *q, struct mw_leak_aspect *user,
			   const struct mw_leak_aspect **aspects);

/* One series selected for judging: its group (process name), aspect. */
struct mw_leak_entry {
	const char *group;
	unsigned aspect;
	struct mw_series_info *s;
	int64_t started_ms;		/* its `started` label, read before s gave up
					 * its labels; INT64_MIN: none */
};

/* qsort order: by group, then aspect, then series id. */
int mw_leak_cmp_entry(const void *a, const void *b);

/* ---- one aspect of one group (leak_report_read.c) ---- */

struct mw_leak_listed {
	const struct mw_series_info *s;
	struct mw_leak_result r;
	int rank;
};

struct mw_leak_aspect_result {
	bool present;
	struct mw_leak_group_result g;
	const struct mw_series_info *deciding;	/* the failing incarnation's series */
	struct mw_leak_listed *list;		/* the top MW_LEAK_MAX_LISTED */
	size_t nlisted, ninc;
	double max_value;			/* largest floor read; -1: none */
	struct mw_series_list full;		/* mw_leak_aspect_restore's, owned */
};

/* The value of a series' label, NULL when it has none. */
const char *mw_leak_label_of(const struct mw_series_info *s, const char *name);
/* When the process of series s began (its `started` label, seconds) in
 * ms; INT64_MIN when the label is missing or not a time. */
int64_t mw_leak_started_ms(const struct mw_series_info *s);
/* s with its labels: s itself when it has them, else *id read again by
 * its id (the report keeps a series' id only; release *id with
 * mw_series_info_release, zeroed here either way); NULL when it cannot
 * be read. */
const struct mw_series_info *mw_leak_labelled(struct mw_reader *reader,
					      const struct mw_series_info *s,
					      struct mw_series_info *id);
/* The matcher ",started=\"N\"" of an incarnation into inc (empty when
 * started is not a number): `started` tells two processes that had the
 * same pid apart; only a number is put in a selector. */
void mw_leak_incarnation_matcher(char *inc, size_t size, const char *started);
/* Every series of sel summed per bucket into *sum (owned, NaN where one
 * has no floor) on the axis from, to, step, and *tr over it; 0, or -1
 * when none. */
int mw_leak_read_sum(struct mw_reader *reader, const char *sel, int64_t from, int64_t to,
		     int64_t step, struct mw_trace *tr, double **sum);

/* Judge one aspect of one group, the series sel[0..n) on the axis from,
 * to, step, into *ar (release it with mw_leak_aspect_result_release,
 * even on failure), each incarnation's result through look (may be
 * NULL).  0, or -1 with err when storage cannot be read. */
int mw_leak_judge_aspect(struct mw_reader *reader, struct mw_leak_entry *sel, size_t n,
			 const struct mw_leak_params *params, int64_t from, int64_t to, int64_t step,
			 mw_leak_incarnation_look look, struct mw_leak_aspect_result *ar,
			 struct mw_err *err);
void mw_leak_aspect_result_release(struct mw_leak_aspect_result *ar);
/* The listed incarnations that failed take the group's result (ar->g.r),
 * once a later look turned the group's fail into something else. */
void mw_leak_aspect_relist_fails(struct mw_leak_aspect_result *ar);
/* The report keeps only each series' id and time span (leak_report.c):
 * the identity (key, labels) of the listed incarnations and the deciding
 * one read again by id, before the result is written or its kind found.
 * One that cannot be read keeps its id only (written as nulls). */
void mw_leak_aspect_restore(struct mw_reader *reader, struct mw_leak_aspect_result *ar);

/* ---- shared pages the group held already (leak_report_held.c) ---- */

/* When ar (an aspect of pages others may hold) fails for a group of
 * several incarnations of process, and the PSS of the group's
 * incarnations summed bucket by bucket does not fail under p, ar takes
 * the sum's verdict and figures, its reason saying the group held the
 * pages already.  The PSS is the process collector's (Linux), else the
 * working set's of watched processes (Windows); groups with neither are
 * left alone. */
void mw_leak_bound_by_group(struct mw_reader *reader, struct mw_leak_aspect_result *ar,
			    const char *process, const struct mw_leak_params *p, int64_t from,
			    int64_t to, int64_t step);

/* ---- which kind of memory (leak_report_kind.c) ---- */

/* At most this many kinds per source. */
#define MW_LEAK_MAX_KINDS 16

/* The kind carrying a growth and the source that says so. */
struct mw_leak_kind_found {
	const char *kind;	/* NULL: none carries it (static strings) */
	const char *source;	/* the metric read; NULL: no source has series */
	size_t nk;		/* the source's kinds and their slopes */
	const char *names[MW_LEAK_MAX_KINDS];
	double shares[MW_LEAK_MAX_KINDS];	/* bytes per hour; NaN: unknown */
};

/* The selector of metric's series of the process pid (and image name
 * process, may be NULL), with the extra matchers extra (",a=\"b\"" or ""). */
void mw_leak_process_selector(char *sel, size_t size, const char *metric, const char *extra,
			      const char *pid, const char *process);
/* The selector of metric's series of every process named process. */
void mw_leak_group_selector(char *sel, size_t size, const char *metric, const char *process);
/* Name the kind carrying r's growth for the process with this pid (may
 * be NULL: none) and image name (may be NULL), from the first source that
 * names one; the figures are that source's, else those of the first
 * source with series for the process. */
void mw_leak_find_kind(struct mw_leak_kind_found *out, struct mw_reader *reader,
		       const char *pid, const char *process, const struct mw_leak_result *r,
		       int64_t from, int64_t to, int64_t step);
/* The same for a growth of Windows' shareable working set: only the
 * shareable categories of the working set (image, mapped_file, shareable)
 * are asked, so a private heap growing beside it is not named. */
void mw_leak_find_shareable_kind(struct mw_leak_kind_found *out, struct mw_reader *reader,
				 const char *pid, const char *process,
				 const struct mw_leak_result *r, int64_t from, int64_t to,
				 int64_t step);

/* The same for a fail decided by a group's total (leak_group.c): every
 * incarnation named process, each kind summed across them (an incarnation
 * adds nothing before its first point); shareable: only the shareable
 * categories, as mw_leak_find_shareable_kind. */
void mw_leak_find_group_kind(struct mw_leak_kind_found *out, struct mw_reader *reader,
			     const char *process, bool shareable, const struct mw_leak_result *r,
			     int64_t from, int64_t to, int64_t step);

/* ---- a resident fail bounded by committed memory (leak_report_bound.c) ---- */
/* The private aspect's look at each incarnation (mw_leak_incarnation_look):
 * a fail whose growth only fills private memory the incarnation committed
 * before (leak.h, mw_leak_commit_bound: Linux statm's data against private
 * bytes, else a watched process's committed private address space against
 * the resident pages of its private working-set categories; a JVM's heap
 * counted whole up to -Xmx) becomes a pass whose reason names the
 * headroom left.  Every failing incarnation of a group, each on its own
 * (a machine's JVMs are all `java`).  Processes without either pair of
 * series (Windows' unwatched ones: their private bytes are committed
 * memory already) are left alone. */
void mw_leak_private_within_commit(struct mw_reader *reader, const struct mw_series_info *s,
				   const struct mw_trace *tr, const struct mw_leak_params *p,
				   int64_t from, int64_t to, int64_t step, struct mw_leak_result *r);
/* ---- a resident mapped fail bounded by what is mapped (leak_report_mapped.c) ---- */
/* The mapped files aspect's look at each incarnation
 * (mw_leak_incarnation_look): a fail whose resident file pages only fill
 * files the incarnation had mapped before (leak.h, mw_leak_mapped_bound:
 * statm's size less its data, against RssFile) becomes a pass naming
 * what is mapped.  Every failing incarnation of a group, each on its own;
 * a process without both series is left alone. */
void mw_leak_mapped_within_maps(struct mw_reader *reader, const struct mw_series_info *s,
				const struct mw_trace *tr, const struct mw_leak_params *p,
				int64_t from, int64_t to, int64_t step, struct mw_leak_result *r);
/* The same for Windows' shared aspect (the shareable working set): its
 * virtual size less its private bytes is what is mapped; a watched
 * process is bounded only when its working-set categories put the growth
 * in views of files (not a pagefile-backed section's or an image's). */
void mw_leak_shareable_within_views(struct mw_reader *reader, const struct mw_series_info *s,
				    const struct mw_trace *tr, const struct mw_leak_params *p,
				    int64_t from, int64_t to, int64_t step,
				    struct mw_leak_result *r);
/* ---- a JVM's heap (leak_report_jvm.c) ---- */

/* The incarnation's JVM heap (the jvm collector's series; started may be
 * NULL): its committed bytes on the axis from, to, step into *hc_tr (*hc
 * owned, NaN where unread) and the most it may grow to (-Xmx) returned;
 * 0 for a process that is no JVM (then *hc is NULL). */
double mw_leak_java_heap(struct mw_reader *reader, const char *pid, const char *process,
			 const char *started, int64_t from, int64_t to, int64_t step,
			 struct mw_trace *hc_tr, double **hc);
/* The java_heap aspect's look at each incarnation (mw_leak_incarnation_look):
 * a JVM whose old generation after collections did not pass, and whose
 * heap stood more than a sixteenth below its final size after the judged
 * range began, is judged again from a while after the heap reached that
 * size, its reason saying so; never a pass (inconclusive then is
 * undecided: it cannot let the group pass).  Every JVM of a group: a
 * machine's JVMs are most often all `java`. */
void mw_leak_java_heap_since_sized(struct mw_reader *reader, const struct mw_series_info *s,
				   const struct mw_trace *tr, const struct mw_leak_params *p,
				   int64_t from, int64_t to, int64_t step, struct mw_leak_result *r);

/* ---- one group (leak_report_group.c) ---- */

struct mw_exit_check;

struct mw_leak_judged_group {
	char *json;			/* the group's JSON object (owned) */
	size_t len;
	enum mw_verdict verdict;
	double slope;
	bool watched;
	struct mw_leak_verdict v;	/* the same, as a structure */
};

/* Judge one group (the entries e[0..n), all of one process name, sorted
 * by aspect) into *out, a failing exit leak report of the process (xc,
 * exit_check.h) failing it too; *excluded when it has no memory at all (a kernel
 * thread, a zombie) or nothing could be decided.  0, or -1 with err. */
int mw_leak_report_group(struct mw_reader *reader, struct mw_leak_entry *e, size_t n,
			 const struct mw_leak_aspect *aspects, size_t naspects,
			 const struct mw_leak_query *q, int64_t from, int64_t to, int64_t step,
			 bool watched, struct mw_exit_check *xc, struct mw_leak_judged_group *out,
			 bool *excluded, struct mw_err *err);
/* ---- the groups side by side (leak_report_parallel.c) ---- */

/* One group to judge: its entries e[0..n), and whether it is watched. */
struct mw_leak_span {
	struct mw_leak_entry *e;
	size_t n;
	bool watched;
};

/* Judge spans[k] into out[k] and excluded[k] for every k < nspans, as
 * mw_leak_report_group, on up to q->threads threads (reader on this one,
 * a reader of its own opened like it on each other): the same results
 * in the same places whatever the threads.  0, or -1 with the error of
 * the first failing span (by index); then out holds nothing to free. */
int mw_leak_judge_spans(struct mw_reader *reader, const struct mw_leak_span *spans, size_t nspans,
			const struct mw_leak_aspect *aspects, size_t naspects,
			const struct mw_leak_query *q, int64_t from, int64_t to, int64_t step,
			struct mw_exit_check *xc, struct mw_leak_judged_group *out, bool *excluded,
			struct mw_err *err);

/* qsort order of the report: failures first, then the watched processes,
 * then by verdict, then the steepest. */
int mw_leak_cmp_judged(const void *a, const void *b);

/* ---- JSON pieces (leak_json.c) ---- */

/* A time in ms, null for INT64_MIN or INT64_MAX (none, open). */
void mw_leak_json_ts(struct mw_jw *w, const char *key, int64_t ts);
/* The figures every result has (group and incarnation alike). */
void mw_leak_json_result(struct mw_jw *w, const struct mw_leak_result *r,
			 const struct mw_leak_params *p);
/* The fitted line for drawing ("fit"), null without one. */
void mw_leak_json_fit(struct mw_jw *w, const struct mw_leak_result *r);
/* "kind" (null for none), and with a source "kind_source" and
 * "kinds_bytes_per_hour" (each kind's slope). */
void mw_leak_json_kind(struct mw_jw *w, const struct mw_leak_kind_found *k);

#endif
