/*
 * query.h - the read side of the time-series store (used by web/,
 * analysis/, forward/ and the CLI).  Its files, one concept each, are
 * listed in storage/README.md and query_impl.h.
 *
 * Threads: any.  Each thread (or each HTTP request) uses its own
 * struct mw_reader, which owns one read-only SQLite connection and its
 * prepared statements (kept across calls, so pool readers rather than
 * opening one per request); no copy of the series catalogue is kept, so a
 * reader's memory does not grow with the series the file holds.  A
 * reader must not be used by two threads at once.  The database is in WAL mode,
 * so readers never block the writer thread and the writer never blocks
 * readers (a read sees the last committed flush).
 *
 * Ownership: every result struct is filled by the call and owned by the
 * caller, who releases it with the matching _release function (never
 * free() its members by hand).  Strings in results stay valid until then.
 * On failure a function returns -1, writes a lower-case one-line message
 * into err (may be NULL) and leaves the result empty but releasable.
 *
 * Data model (see storage/SCHEMA.md): a series is a metric name plus a
 * label set; its canonical key is the Prometheus exposition form
 * `name{a="x",b="y"}` (labels sorted, values escaped, as
 * mw_series_key_format() in core/batch.h writes it).  A series has an
 * integer id, stable for the life of the database.  Points are
 * (ts_ms, double value); ts_ms is wall-clock milliseconds since the epoch.
 * Four tiers hold them: raw points, 1-minute, 10-minute and 1-hour rollups
 * (min, max, avg, last, count per bucket).
 *
 * Selectors (mw_reader_find and friends) are Prometheus instant-vector
 * selectors without offsets or ranges:
 *     name
 *     name{label="v", other!="w"}
 *     {__name__=~"memwatch_process_.*", pid="42"}
 * Operators: = != =~ !~.  Regular expressions are fully anchored (as in
 * Prometheus) and use memwatch's own small matcher, identical on Linux and
 * Windows: literals, `.`, `[...]` / `[^...]` classes with ranges, `*`, `+`,
 * `?`, `|` alternation, `( )` groups, and `\` escapes (`\d`, `\w`, `\s`
 * and escaped metacharacters).  No backreferences, no counted repetition.
 * Label values in selectors use Prometheus string escapes (\" \\ \n).
 */
#ifndef MW_QUERY_H
#define MW_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/batch.h"
#include "base/mwerr.h"

struct mw_reader;

/* Open a read-only connection to the database at db_path (as written by
 * the daemon's writer; cfg->db_path).  The file must exist.  -1 with a
 * message naming the path on failure. */
int mw_reader_open(struct mw_reader **out, const char *db_path, struct mw_err *err);
/* Another reader on r's file with r's deadline: a second thread's, for
 * work shared out (the leak report's groups judged side by side).  -1
 * with a message as mw_reader_open. */
int mw_reader_open_like(struct mw_reader **out, const struct mw_reader *r, struct mw_err *err);
/* The page cache of readers opened from now on (0: SQLite's default,
 * 2 MB).  Process-wide; call once at start, before reader threads run. */
void mw_reader_set_default_cache(uint64_t bytes);
/* This reader's page cache (and that of the readers opened like it),
 * whatever the default: the background judge's, small (app/leak_judge.c). */
void mw_reader_set_cache(struct mw_reader *r, uint64_t bytes);
/* Close the connection and free the reader.  NULL is allowed. */
void mw_reader_free(struct mw_reader *r);
/* A reader kept for later (a pool's idle one, the judge's between runs)
 * gives its page cache back: the writer commits every few seconds, and
 * SQLite drops a WAL reader's whole cache at its next read after a
 * commit anyway, so keeping it only held memory (up to 2 MB a reader);
 * its map of the chunk tails goes too, for the same reason.  Returns
 * about how many bytes were freed (SQLite's figures are process-wide:
 * other threads' work blurs them), so the caller can hand large amounts
 * back to the system (base/heap_tune.h). */
int64_t mw_reader_idle(struct mw_reader *r);
/* Hold one read transaction over many calls: each call otherwise runs in
 * a transaction of its own (a consistent snapshot per call), and a
 * judgement's thousands of small reads paid a BEGIN and COMMIT each.
 * Between begin and end every call sees the same snapshot; pairs nest.
 * Keep it short (a report, not a daemon's lifetime): a held snapshot
 * keeps the writer's WAL from being checkpointed past it.  begin: -1
 * (deadline passed, storage error) and then no end. */
int mw_reader_snapshot_begin(struct mw_reader *r, struct mw_err *err);
void mw_reader_snapshot_end(struct mw_reader *r);

/* ---- deadlines and error kinds ------------------------------------ */

/*
 * A deadline for every call made on the reader from now on, on the
 * monotonic clock (mw_clock_mono_ns(), base/clock.h); 0: none (the
 * default).  A call still running at the deadline stops (SQLite's
 * progress handler interrupts the statement; the reader's own loops over
 * series, buckets and points check it too), releases its read transaction
 * and fails with MW_QERR_DEADLINE and the message "query stopped at its
 * deadline".  Set it per request: mw_reader_set_deadline(r,
 * mw_clock_mono_ns() + timeout_ns) before, mw_reader_set_deadline(r, 0)
 * after (web/readers.c does both when a reader leaves and returns to the
 * pool).  Iterators (mw_raw_iter) are bounded by it too.
 */
void mw_reader_set_deadline(struct mw_reader *r, int64_t deadline_ns);
int64_t mw_reader_deadline(const struct mw_reader *r);

/* What made the last failed call on this reader fail. */
enum mw_query_error {
	MW_QERR_NONE = 0,	/* the last call succeeded */
	MW_QERR_STORAGE,	/* the database (I/O, corrupt, busy ...) */
	MW_QERR_BAD,		/* the request: selector syntax, range, step */
	MW_QERR_LIMIT,		/* over a size limit (series x points, series) */
	MW_QERR_DEADLINE,	/* stopped at the reader's deadline */
};
enum mw_query_error mw_reader_error_kind(const struct mw_reader *r);
/* Set it: work shared out to readers opened like this one hands over
 * what made a failed call on one of them fail. */
void mw_reader_set_kind(struct mw_reader *r, enum mw_query_error kind);

/* ---- series -------------------------------------------------------- */

struct mw_series_info {
	int64_t id;
	char *key;		/* canonical key, name{labels} */
	char *name;		/* metric name */
	struct mw_label *labels;	/* sorted by name */
	size_t nlabels;
	/* Earliest and latest timestamp stored in any tier; INT64_MIN and
	 * INT64_MIN when the series has no data (yet). */
	int64_t first_ts;
	int64_t last_ts;
};

struct mw_series_list {
	struct mw_series_info *items;	/* sorted by key */
	size_t n;
};

void mw_series_list_release(struct mw_series_list *list);

/* Every series matching `selector` (NULL or "" for all series).  A
 * selector that does not parse is an error whose message quotes it. */
int mw_reader_find(struct mw_reader *r, const char *selector,
		   struct mw_series_list *out, struct mw_err *err);
/* The same with a bound: more than max_series matching series (0: no
 * bound) is an MW_QERR_LIMIT error, found before first/last timestamps
 * are read: "N series is over the limit of M ...". */
int mw_reader_find_max(struct mw_reader *r, const char *selector, size_t max_series,
		       struct mw_series_list *out, struct mw_err *err);

/* The first points (first_ts) of n series whose ids, labels and newest
 * points are known already (from mw_reader_latest, say), read as
 * mw_reader_series_by_id reads them but without reading the series
 * again (the judge's live series took a catalogue read each); last_ts is
 * left INT64_MIN: the caller has the newest point. */
int mw_reader_fill_spans(struct mw_reader *r, struct mw_series_info *info, size_t n,
			 struct mw_err *err);

/* One series by its id or its canonical key; returns 0 and fills out, 1
 * when there is no such series (out left empty), -1 on error.  Release
 * with mw_series_info_release(). */
int mw_reader_series_by_id(struct mw_reader *r, int64_t id,
			   struct mw_series_info *out, struct mw_err *err);
int mw_reader_series_by_key(struct mw_reader *r, const char *key,
			    struct mw_series_info *out, struct mw_err *err);
/* mw_reader_series_by_id without the span: first_ts and last_ts are
 * INT64_MIN (the span's index seeks, up to nine, are not made: for a
 * caller that knows them). */
int mw_reader_series_identity(struct mw_reader *r, int64_t id, struct mw_series_info *out,
			      struct mw_err *err);
void mw_series_info_release(struct mw_series_info *info);

/* ---- range queries --------------------------------------------------- */

enum mw_agg {
	MW_AGG_AVG = 0,
	MW_AGG_MIN,
	MW_AGG_MAX,
	MW_AGG_LAST,
};
/* "avg", "min", "max", "last" -> enum; -1 with a message otherwise. */
int mw_agg_parse(const char *text, enum mw_agg *out, struct mw_err *err);

enum mw_tier {
	MW_TIER_AUTO = -1,
	MW_TIER_RAW = 0,
	MW_TIER_1M = 1,
	MW_TIER_10M = 2,
	MW_TIER_1H = 3,
};
const char *mw_tier_name(enum mw_tier tier);	/* "raw", "1m", "10m", "1h" */

/* step_ms values with a special meaning. */
#define MW_STEP_AUTO 0		/* choose from the range and max_points */
#define MW_STEP_RAW (-1)	/* raw points, no bucketing (see below) */

#define MW_QUERY_DEFAULT_POINTS 1000
#define MW_QUERY_MAX_POINTS 100000
/* Series x points one range query may return (values held in memory). */
#define MW_QUERY_MAX_VALUES 5000000
/* Times and steps beyond these are bad requests (years 1 to 9999). */
#define MW_TIME_MIN (-62135596800000LL)
#define MW_TIME_MAX 253402300799999LL

struct mw_range_query {
	int64_t from_ms;	/* inclusive */
	int64_t to_ms;		/* inclusive */
	int64_t step_ms;	/* bucket width, MW_STEP_AUTO or MW_STEP_RAW */
	enum mw_agg agg;	/* per-bucket aggregate */
	size_t max_points;	/* length limit of the time axis; 0: not given
				 * (MW_QUERY_DEFAULT_POINTS for MW_STEP_AUTO and
				 * MW_STEP_RAW, MW_QUERY_MAX_POINTS for an
				 * explicit step) */
	enum mw_tier tier;	/* MW_TIER_AUTO unless forcing a tier */
	size_t max_values;	/* series x points limit; 0: MW_QUERY_MAX_VALUES */
	size_t top;		/* keep only the `top` series of largest growth;
				 * 0: every series */
	/* A bucketed read of many series (MW_RANGE_SHARE_FROM or more, top
	 * 0) shared out to this many threads, each with a reader of its own
	 * (0, 1: the caller's thread only): the same values, each series
	 * read in a snapshot of its thread's (a flush apart at most). */
	size_t threads;
};

#define MW_RANGE_SHARE_FROM 64
#define MW_RANGE_MAX_THREADS 4

/* Fill q with: from/to as given, step auto, avg, max_points 0, auto tier. */
void mw_range_query_init(struct mw_range_query *q, int64_t from_ms, int64_t to_ms);

/* The checks mw_reader_range() makes before reading, for callers that
 * want to tell a bad request apart from a storage failure: to before
 * from, from or to outside [MW_TIME_MIN, MW_TIME_MAX], unknown tier or
 * step, a step longer than MW_TIME_MAX, an explicit step that is not a
 * multiple of a forced tier's resolution, an explicit step giving more
 * buckets than max_points.  0 if fine; -1 and a message starting "step: "
 * or "bad ". */
int mw_range_query_check(const struct mw_range_query *q, struct mw_err *err);

/*
 * Result: columnar, one shared time axis and one value array per series.
 *   t[j]            bucket start (bucketed) or point timestamp (raw), ascending
 *   values[i][j]    series i at t[j]; NaN where the series has no point
 *                   (web writes null).  A stored NaN reads as a gap too.
 *
 * Bucketed (step > 0): buckets are [t, t + step) with t a multiple of
 * step; the axis runs from the bucket holding from_ms to the one holding
 * to_ms, and buckets are whole (the first and last aggregate their full
 * width, also points just outside [from_ms, to_ms]).
 *
 * An explicit step (step_ms > 0) is always honoured: the result has
 * exactly that step_ms, read from the coarsest tier whose resolution is
 * at most the step (raw below a minute; the 10-minute tier only for a
 * multiple of 10 minutes below an hour, so 15 min reads minute rows; or
 * the forced tier, which must divide it).  When the step is not a
 * multiple of that resolution (90 s
 * from 1-minute rows), each stored bucket goes whole into the step bucket
 * holding its start: a step bucket then aggregates the points of the
 * tier buckets starting in it (two minutes, then one, for 90 s), and
 * min, max, sum and count are exact over those points; avg is sum / count
 * over them and last the last point of the latest of them.  The part not
 * yet rolled up is read raw, each point into the bucket holding it.
 * Buckets whose data that tier no longer holds (retention) are NaN;
 * the tier is never switched to a coarser one.  max_points never changes
 * an explicit step: a step giving more than max_points buckets (default
 * for an explicit step: MW_QUERY_MAX_POINTS) is an error, which the web
 * answers with 400.
 *
 * MW_STEP_AUTO picks step = range / max_points rounded up to a whole
 * second, minute (up to 10), 10 minutes (up to an hour) or hour (widened
 * until the axis fits max_points), and
 * the coarsest tier whose resolution divides the step; when that tier has
 * expired at from_ms (a coarser tier reaches further back than its oldest
 * data, floored to the coarser bucket) the next coarser tier and its
 * resolution are used.  Rollups are exact; the newest part not yet rolled
 * up is computed from raw points.
 *
 * Raw (MW_STEP_RAW, or AUTO when the raw points in range of every series
 * fit in max_points): the axis is the sorted union of the series' raw
 * timestamps.  If the union is longer than max_points, the axis keeps the
 * first max_points timestamps and `truncated` is set (at most max_points
 * points of each series are read, in storage order).
 *
 * Hostile ranges: every query terminates after O(series x axis) work.  A
 * from_ms before 1970-01-01 starts the axis at the selection's first
 * stored point (no data is older; so from=1900 or from=-3000w mean "from
 * the beginning"), or at 1970 when nothing is stored.
 *
 * Size limit: series x axis length (the series kept: min(top, series)
 * when top is set and the result is bucketed) above max_values is an
 * MW_QERR_LIMIT error found before any point is read:
 * "N series x P points is over the limit of M values".  P is the axis
 * bound: max_points for raw, else the buckets the step allows.  AUTO
 * reads raw only when series x max_points fits the limit.
 *
 * top: each series' growth is its last value minus its first (non-NaN);
 * the result keeps the `top` largest (NaN last; ties in selector order),
 * ordered by growth, with growth[i] set and series_total the number
 * matched.  Bucketed, only `top` value arrays are held at once.
 */
struct mw_range_result {
	int64_t *t;
	size_t nt;
	int64_t step_ms;	/* the step used; MW_STEP_RAW for raw points */
	enum mw_tier tier;	/* the tier read */
	enum mw_agg agg;
	bool truncated;
	struct mw_series_info *series;	/* nseries entries, as selected */
	double **values;	/* values[i] has nt entries */
	size_t nseries;
	size_t series_total;	/* series matched (before top) */
	double *growth;		/* with top: growth of each series kept */
};

void mw_range_result_release(struct mw_range_result *res);

/* Range query for the series matching selector. */
int mw_reader_range(struct mw_reader *r, const char *selector,
		    const struct mw_range_query *q, struct mw_range_result *out,
		    struct mw_err *err);
/* Range query for the union of several selectors' series, in one read
 * on one time axis (a series matched twice is read once; order: by
 * selector, then as each selects).  nsel >= 1. */
int mw_reader_range_multi(struct mw_reader *r, const char *const *selectors, size_t nsel,
			  const struct mw_range_query *q, struct mw_range_result *out,
			  struct mw_err *err);
/* Same for explicit series ids (order kept; an unknown id is an error). */
int mw_reader_range_ids(struct mw_reader *r, const int64_t *ids, size_t nids,
			const struct mw_range_query *q, struct mw_range_result *out,
			struct mw_err *err);
/* Same for series the caller has found already (mw_reader_find: id,
 * first_ts and last_ts are used, nothing else): neither looked up nor
 * their span sought again, which is most of a bucketed read's cost for a
 * judge reading hundreds of series.  The result's series carry only the
 * id and span; an id that names no series reads as no data. */
int mw_reader_range_known(struct mw_reader *r, const struct mw_series_info *known, size_t n,
			  const struct mw_range_query *q, struct mw_range_result *out,
			  struct mw_err *err);

/* ---- raw export (constant memory) ------------------------------------ */

struct mw_raw_iter;

/* Stream the raw points of one series with from_ms <= ts <= to_ms, in
 * storage order (time order unless the wall clock stepped back).  The
 * iterator holds a read transaction until freed; free it promptly. */
int mw_raw_iter_open(struct mw_raw_iter **out, struct mw_reader *r, int64_t series_id,
		     int64_t from_ms, int64_t to_ms, struct mw_err *err);
/* 1: a point in *ts, *value; 0: no more; -1: error (corrupt chunk ...). */
int mw_raw_iter_next(struct mw_raw_iter *it, int64_t *ts, double *value,
		     struct mw_err *err);
void mw_raw_iter_free(struct mw_raw_iter *it);

/* ---- latest values ---------------------------------------------------- */

struct mw_latest {
	struct mw_series_info info;
	int64_t ts_ms;		/* timestamp of the newest flushed point */
	double value;
	/* Filled by mw_reader_processes() only (else INT64_MIN / NaN): the
	 * value at the start of the growth window (the 1-minute rollup's last
	 * value at or before ts_ms - window, or the series' first point when
	 * it is younger than the window). */
	int64_t past_ts_ms;
	double past_value;
};

struct mw_latest_list {
	struct mw_latest *items;	/* sorted by key */
	size_t n;
};

void mw_latest_list_release(struct mw_latest_list *list);

/* The newest flushed value of every live series matching selector (NULL:
 * all), for a /metrics endpoint.  Live: held by the writer, i.e. written
 * within its series idle bound (10 minutes; table series_live); a series
 * that stopped (a process that exited) leaves this list then, but stays
 * in mw_reader_find() and range queries.  One pass over the live series:
 * the cost does not depend on how many dead series the file holds.  A
 * stored NaN reads as NaN.
 * The key is the exposition form, so `key value ts` is a valid
 * exposition line. */
int mw_reader_latest(struct mw_reader *r, const char *selector,
		     struct mw_latest_list *out, struct mw_err *err);

/* Latest values of every live `memwatch_process_*` series plus the value
 * window_ms earlier (0: one hour), for /api/v1/processes:
 * growth = value - past_value. */
int mw_reader_processes(struct mw_reader *r, int64_t window_ms,
			struct mw_latest_list *out, struct mw_err *err);

/* ---- working-set region snapshots (storage/regions.h) ----------------- */

struct mw_ws_result;	/* collectors/workingset.h */

/* A process (pid + image name: the labels region records carry; a pid
 * reused by another image is another process) with region snapshots. */
struct mw_ws_process {
	int64_t id;		/* ws_process.id */
	char *pid, *process;
	int64_t first_ts, last_ts;	/* its first and last stored snapshot */
	uint64_t count;		/* snapshots stored */
};

struct mw_ws_process_list {
	struct mw_ws_process *items;	/* newest last_ts first */
	size_t n;
};

void mw_ws_process_list_release(struct mw_ws_process_list *list);

/* The processes with at least one snapshot in [from_ms, to_ms], filtered
 * by pid and/or process name (NULL: any). */
int mw_reader_ws_processes(struct mw_reader *r, const char *pid, const char *process,
			   int64_t from_ms, int64_t to_ms, struct mw_ws_process_list *out,
			   struct mw_err *err);

/* Rebuild the snapshot of process `process_id` stored nearest to at_ms
 * among those in [lo_ms, hi_ms] (a tie goes to the earlier one): its
 * regions sorted by base, totals per category and sharing, page size.
 * *snapped_ms is its time.  0 found, 1 none in the range (out empty), -1
 * error.  out is replaced (release it with mw_ws_result_release). */
int mw_reader_ws_snapshot(struct mw_reader *r, int64_t process_id, int64_t at_ms,
			  int64_t lo_ms, int64_t hi_ms, int64_t *snapped_ms,
			  struct mw_ws_result *out, struct mw_err *err);

/* ---- statistics --------------------------------------------------------- */

/* Process-wide totals of reader queries (all readers), for the writer's
 * self metrics: number of range/latest queries and their summed duration. */
struct mw_query_stats {
	uint64_t queries;
	uint64_t total_ns;
	uint64_t last_ns;
};
void mw_query_stats_get(struct mw_query_stats *out);

#endif
