/*
 * processes.h - the processes view (/api/v1/processes): one row per live
 * process with the newest value of each memwatch_process_* metric, its
 * growth over a window and the growth rates of its private bytes and
 * working set, filtered, sorted and paged.
 *
 * Threads: any, with a reader of its own (query.h).
 *
 * The rates are slopes of the floors (per-bucket minima) of the two
 * series over the window; the slope itself is fitted by the caller's
 * function (analysis/floor_rate.h: a robust statistic, which lives above
 * storage), so this file only reads, pivots, sorts and pages.
 */
#ifndef MW_PROCESSES_H
#define MW_PROCESSES_H

#include <stddef.h>
#include <stdint.h>
#include "query.h"

/* The columns of a row: the newest value of one metric each. */
enum mw_proc_col {
	MW_PROC_WS, MW_PROC_WS_PEAK, MW_PROC_PRIVATE, MW_PROC_VIRTUAL,
	MW_PROC_HANDLES, MW_PROC_THREADS, MW_PROC_FAULTS, MW_PROC_NCOLS
};
/* The metric of each column. */
extern const char *const mw_proc_col_metric[MW_PROC_NCOLS];

/* Sort orders besides a column (enum mw_proc_col, largest first). */
enum {
	MW_PROC_SORT_PRIVATE_RATE = -1,	/* private bytes rate, largest first */
	MW_PROC_SORT_WS_RATE = -2,	/* working set rate, largest first */
	MW_PROC_SORT_NAME = -3,		/* process name, then pid */
};

/* At most this many floors per series: a longer window reads wider
 * buckets (still floors), so the O(n^2) slope stays cheap. */
#define MW_PROC_RATE_MAX_FLOORS 180

struct mw_proc_row {
	const char *process, *pid, *started;	/* labels; owned by the table */
	int64_t ts;		/* its newest sample */
	double v[MW_PROC_NCOLS];	/* NaN: no such series */
	double private_growth, ws_growth;	/* value minus the window's start */
	int64_t growth_window_ms;	/* what private_growth spans, 0: none */
	int64_t id_private, id_ws;	/* series ids, -1: none */
	double private_rate, ws_rate;	/* bytes per hour, NaN: not enough floors */
	int64_t rate_span_ms;		/* span the floors cover, 0: none */
	int rate_floors;		/* floors behind the private rate */
	double key;		/* the sort column's value */
};

/* Bytes per hour fitted to n floors (t_ms[i] from the window's first
 * bucket, v[i]); NaN when they cannot give a rate. */
typedef double (*mw_floor_rate_fn)(const double *t_ms, const double *v, size_t n);

struct mw_proc_query {
	int64_t window_ms;	/* growth and rate window (> 0) */
	const char *filter;	/* a pid, or part of a process name (any case);
				 * NULL: every process */
	int sort;		/* enum mw_proc_col or MW_PROC_SORT_* */
	size_t offset, limit;	/* the page */
	int64_t interval_ms;	/* the process collector's; a process not sampled
				 * within three of them of the newest sample has
				 * exited and is left out */
	int64_t now_ms;		/* the window never ends after it */
	mw_floor_rate_fn rate;	/* fits the rates */
};

struct mw_proc_view {
	struct mw_proc_row *rows;	/* the page: n rows, sorted */
	size_t n;
	size_t total;		/* live processes */
	size_t matched;		/* of those, matching the filter */
	int64_t newest;		/* newest sample of any (INT64_MIN: none) */
	int64_t rate_step_ms;	/* bucket width the floors were read with */
	/* private */
	struct mw_latest_list list;	/* the strings the rows point to */
	struct mw_proc_row *all;
};

/*
 * The page of processes q asks for.  Rates are read for the page's rows
 * only, or for every matched row when sorting by a rate.  0; -1 when the
 * latest values cannot be read, -2 when the rates cannot (the reader's
 * error kind says why), each with a message; out is then empty.  Release
 * out with mw_proc_view_release either way.
 */
int mw_reader_proc_view(struct mw_reader *r, const struct mw_proc_query *q,
			struct mw_proc_view *out, struct mw_err *err);
void mw_proc_view_release(struct mw_proc_view *t);

#endif
