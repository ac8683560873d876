/*
 * query_impl.h - what the files of the read side (query.h) lend each
 * other.  Not for use outside storage/.
 *
 *   reader.c         the reader: connection, statements, read
 *                    transactions, deadline, error kinds, statistics
 *   label_cache.c    label sets and labels resolved during one call
 *   query_series.c   series selection (selectors, ids, keys) and their
 *                    first/last timestamps; uses reader.c, label_cache.c
 *   query_range.c    range reads (tiers, buckets, raw); uses
 *                    query_series.c, query_plan.c, query_top.c
 *   query_plan.c     a range read's step, tier and size checks
 *   query_top.c      the top-N series by growth of a range result
 *   raw_iter.c       the raw point iterator of exports
 *   query_latest.c   newest values of live series, and past values for
 *                    the processes view; uses query_series.c
 *   export.c, regions_query.c, processes.c use these from above.
 * Calls go down this list, never back up.
 */
#ifndef MW_QUERY_IMPL_H
#define MW_QUERY_IMPL_H

#include <sqlite3.h>
#include "query.h"
#include "catalog.h"
#include "chunk_tail.h"
#include "core/selector.h"

/* ---- reader.c ------------------------------------------------------------ */

/*
 * Statement slots of mw_reader_stmt: each slot belongs to one file, which
 * always prepares it with the same sql.  Slots 0-4: regions_query.c; 5-6:
 * export.c (their own enums); then these.
 */
enum {
	MW_SLOT_BEGIN = 8, MW_SLOT_COMMIT, MW_SLOT_ROLLBACK,	/* reader.c */
	/* query_series.c (mw_reader_tier_first / _last lend the tier ones) */
	MW_SLOT_FIRST_RAW, MW_SLOT_FIRST_1M, MW_SLOT_FIRST_10M, MW_SLOT_FIRST_1H,
	MW_SLOT_LAST_RAW, MW_SLOT_LAST_1M, MW_SLOT_LAST_10M, MW_SLOT_LAST_1H,
	MW_SLOT_FIRST_RECORDED,
	MW_SLOT_FIND_NAME, MW_SLOT_FIND_LABEL, MW_SLOT_FIND_ALL, MW_SLOT_NAMES,
	MW_SLOT_BY_ID, MW_SLOT_BY_KEY, MW_SLOT_LATEST_LIVE, MW_SLOT_LATEST_LIVE_NAMED,
	MW_SLOT_LABEL,		/* label_cache.c */
	/* query_range.c: a rollup read per tier and aggregation (4 each, in
	 * enum mw_agg order), reading only the column the aggregation needs */
	MW_SLOT_CHUNK_RANGE, MW_SLOT_ROLLUP_1M, MW_SLOT_ROLLUP_10M = MW_SLOT_ROLLUP_1M + 4,
	MW_SLOT_ROLLUP_1H = MW_SLOT_ROLLUP_10M + 4,
	MW_SLOT_RAW_COUNT = MW_SLOT_ROLLUP_1H + 4,
	/* query_latest.c */
	MW_SLOT_PAST, MW_SLOT_FIRST_CHUNK,
	MW_READER_SLOTS
};

/* The chunks of series ?1 that may hold points of [?2, ?3], oldest first
 * (query_range.c and the export iterator, raw_iter.c). */
#define MW_SQL_CHUNK_RANGE \
	"SELECT data, id FROM chunk WHERE series_id = ?1 AND max_ts >= ?2 AND min_ts <= ?3 " \
	"ORDER BY min_ts"

sqlite3 *mw_reader_sqlite(struct mw_reader *r);
/*
 * The chunk blob in column data_col of st's row (its id in id_col) with
 * the bits chunk_tail holds for it laid over (chunk_tail.h): in sc (NULL:
 * the reader's own, valid until the next call) when any apply, else
 * SQLite's (valid until st steps).  -1 with a message when chunk_tail
 * cannot be read.
 */
int mw_reader_chunk_blob(struct mw_reader *r, sqlite3_stmt *st, int data_col, int id_col,
			 struct mw_tail_scratch *sc, const uint8_t **blob, size_t *len,
			 struct mw_err *err);
/* Forget the loaded chunk_tail: the next chunk read loads it again (an
 * iterator opened outside a read transaction reads a newer snapshot). */
void mw_reader_drop_tails(struct mw_reader *r);
/* The newest point of chunk chunk_id when chunk_tail holds points past the
 * npoints of its row: 1 with them (*n its point count), 0 if none, -1
 * with a message. */
int mw_reader_chunk_newest(struct mw_reader *r, int64_t chunk_id, int64_t npoints,
			   int64_t *ts, double *value, int64_t *n, struct mw_err *err);
const char *mw_reader_path(const struct mw_reader *r);
/* The reader's catalogue (catalog.h): series ids by key. */
struct mw_catalog *mw_reader_catalog(struct mw_reader *r);
/* Open / close the call's read transaction (and reset the error kind). */
int mw_reader_begin(struct mw_reader *r, struct mw_err *err);
void mw_reader_end(struct mw_reader *r);
/* Parse a selector (a bad one: MW_QERR_BAD) and open the read
 * transaction it will be used in; on failure nothing is left to release. */
int mw_reader_begin_selected(struct mw_reader *r, const char *selector,
			     struct mw_selector *sel, struct mw_err *err);
/* -1 with the message of a failed statement (deadline or storage). */
int mw_reader_fail(struct mw_reader *r, struct mw_err *err);
/* The deadline has passed (never while a transaction ends). */
bool mw_reader_expired(struct mw_reader *r);
/* -1 with "query stopped at its deadline" (MW_QERR_DEADLINE). */
int mw_reader_deadline_fail(struct mw_reader *r, struct mw_err *err);
/* mw_reader_deadline_fail once the deadline has passed, else 0. */
int mw_reader_check_deadline(struct mw_reader *r, struct mw_err *err);
/* The statement kept by the reader in slot (< MW_READER_SLOTS, see above),
 * reset and unbound; NULL with a message.  Freed with the reader: never
 * finalize it. */
sqlite3_stmt *mw_reader_stmt(struct mw_reader *r, int slot, const char *sql, struct mw_err *err);
/* Step st with id bound to ?1: its first column, or dflt (no row, NULL). */
int64_t mw_stmt_int(sqlite3_stmt *st, int64_t id, int64_t dflt);
/* Column col of st's row as a malloc'd string ("" for NULL). */
char *mw_column_dup(sqlite3_stmt *st, int col);
/* Count a finished query (started at t0, mw_clock_mono_ns). */
void mw_reader_count(int64_t t0);

/* Resolution of each tier (MW_TIER_RAW, _1M, _10M, _1H) in ms. */
#define MW_READ_TIERS 4
extern const int64_t mw_tier_res[MW_READ_TIERS];

/* Floor division (a / b rounded towards minus infinity), b > 0. */
static inline int64_t mw_floor_div(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b < 0) ? q - 1 : q;
}

/* ---- query_series.c ------------------------------------------------------ */

/* Selected series, growing; with the newest value when read from latest. */
struct mw_found {
	struct mw_latest *items;
	size_t n, cap;
};

void mw_found_release(struct mw_found *f);
/* Sort by key. */
void mw_found_sort(struct mw_found *f);
/*
 * Step st (columns id, set id, name, set text [, ts, value, chunk id,
 * chunk npoints], one row per
 * series) and append each series sel matches (NULL: every one) to f.
 */
int mw_reader_collect(struct mw_reader *r, sqlite3_stmt *st, const struct mw_selector *sel,
		      bool with_value, struct mw_found *f, struct mw_err *err);
/* Series matching sel (or the one with id/key when given), no ranges. */
int mw_reader_load_series(struct mw_reader *r, const struct mw_selector *sel,
			  const int64_t *id, const char *key, struct mw_series_list *out,
			  struct mw_err *err);
/* Fill first_ts / last_ts of info[0..n) from every tier. */
int mw_reader_fill_range(struct mw_reader *r, struct mw_series_info *info, size_t n,
			 struct mw_err *err);
/* Statements of one tier (0 raw, 1 1m, 2 10m, 3 1h) with series ?1: the start of
 * its oldest data, the end of its newest (NULL: none). */
sqlite3_stmt *mw_reader_tier_first(struct mw_reader *r, int tier, struct mw_err *err);
sqlite3_stmt *mw_reader_tier_last(struct mw_reader *r, int tier, struct mw_err *err);
/* The newest value of every live series (name NULL) or of the live
 * series of the metric name (bound here), rows as mw_reader_collect reads
 * them with_value (its SQL shares the series columns). */
sqlite3_stmt *mw_reader_live_stmt(struct mw_reader *r, const char *name, struct mw_err *err);

/* ---- query_plan.c -------------------------------------------------------- */

/* Buckets of width step from the one holding from to the one holding to. */
int64_t mw_nbuckets(int64_t from, int64_t to, int64_t step);
/* v rounded up to a multiple of m (v >= 0). */
int64_t mw_round_up(int64_t v, int64_t m);
/* Length limit of the query's time axis (max_points or its default). */
size_t mw_points_limit(const struct mw_range_query *q);
/* The automatic step for [from, to] in at most maxp buckets. */
int64_t mw_auto_step(int64_t from, int64_t to, size_t maxp);
/* The tier (0-3) an explicit step reads; step is q->step_ms > 0. */
int mw_explicit_tier(const struct mw_range_query *q);
/* The automatic tier and step (*step widened to it) for res's series;
 * -1 at the deadline. */
int mw_auto_tier(struct mw_reader *r, const struct mw_range_query *q,
		 const struct mw_range_result *res, int64_t *step, struct mw_err *err);
/* The size check before any point is read (query.h, "Size limit");
 * *raw_ok: AUTO may read raw points. */
int mw_range_check_size(struct mw_reader *r, const struct mw_range_query *q, size_t nseries,
			size_t maxp, bool *raw_ok, struct mw_err *err);

/* ---- query_top.c --------------------------------------------------------- */

/* A series of a range result and its growth, for ranking. */
struct mw_ranked {
	size_t i;
	double g;
};

/* Growth of a value column: last non-NaN minus the first; NaN if none. */
double mw_column_growth(const double *v, size_t nt);
/* Largest growth first, NaN last, then selector order (qsort order). */
int mw_ranked_cmp(const void *a, const void *b);
/* Keep only the series keep[0..n) (sorted here by rank); release the rest. */
void mw_range_keep(struct mw_range_result *res, struct mw_ranked *keep, size_t n);
/* top over a complete result (raw reads). */
void mw_range_top(struct mw_range_result *res, size_t top);

#endif
