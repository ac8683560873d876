/*
 * export.h - every raw point of the series a selector matches, written as
 * CSV or JSON in pieces of bounded size (constant memory: it grows with
 * the number of series, never with the points).  The one writer of
 * GET /api/v1/export (web/export.c streams its pieces) and of
 * `memwatchd export` (app/export_cmd.c writes them to stdout);
 * `memwatchd import` reads both formats back (import/import.h).
 *
 * CSV is typeperf's shape, so it opens in a spreadsheet like a perfmon
 * log: a quoted header row whose first cell names the time column
 * ("(PDH-CSV 4.0) (UTC)(0)") and then one quoted series key per column;
 * each row is a quoted "MM/DD/YYYY hh:mm:ss.mmm" UTC time and one quoted
 * value per series, "" where that series has no point at that time.  The
 * series' iterators are merged by timestamp, so samples of one tick (which
 * share a timestamp) land in one row.
 *
 * JSON: {"complete_to_ms":…,"series":[{"id":…,"name":…,"labels":{…},
 * "points":[[ts,v],…]},…]}, one series after another; complete_to_ms
 * only when the database says how far it is complete (below).
 *
 * Completeness: a running daemon holds the points of its last
 * flush_interval in memory.  Its writer records, with every flush, the
 * time up to which everything it had been handed is committed
 * (mw_store_mark_complete, store.h); mw_export_complete_to() is that mark
 * as of the export's start (later reads only see more).  INT64_MIN when
 * the file has no mark (written by import or tests only: then it is
 * complete).  A daemon that stopped made its last flush at its stop, so
 * its mark is then.
 *
 * Threads: one export is used by one thread; it borrows a reader (query.h)
 * for its whole life, which must outlive it.
 */
#ifndef MW_EXPORT_H
#define MW_EXPORT_H

#include <stddef.h>
#include <stdint.h>
#include "base/mwerr.h"
#include "query.h"

enum mw_export_format {
	MW_EXPORT_CSV = 0,
	MW_EXPORT_JSON,
};

/* "csv" or "json"; -1 and "must be csv or json" otherwise. */
int mw_export_format_parse(const char *text, enum mw_export_format *out, struct mw_err *err);

struct mw_export;

/* Find the series matching selector (more than max_series is an
 * MW_QERR_LIMIT error; 0: no bound) and get ready to write their points
 * with from_ms <= ts <= to_ms.  On failure -1, the message in err and the
 * reason in mw_reader_error_kind(r) (a selector that does not parse is
 * MW_QERR_BAD).  Matching no series is not an error: see
 * mw_export_nseries(). */
int mw_export_open(struct mw_export **out, struct mw_reader *r, const char *selector,
		   size_t max_series, int64_t from_ms, int64_t to_ms,
		   enum mw_export_format fmt, struct mw_err *err);
/* The number of series selected. */
size_t mw_export_nseries(const struct mw_export *e);
/* The database's completeness mark (see above); INT64_MIN: none. */
int64_t mw_export_complete_to(const struct mw_export *e);
/* The next piece of output, about `budget` bytes (at least one row or
 * point): 1 with *p and *n set (valid until the next call), 0 at the end,
 * -1 on a storage error or the reader's deadline (message in err). */
int mw_export_next(struct mw_export *e, size_t budget, const char **p, size_t *n,
		   struct mw_err *err);
/* NULL is allowed.  The reader is not freed. */
void mw_export_free(struct mw_export *e);

/* {"id":…,"name":…,"labels":{…}  (the object left open), as the export
 * and the series and query bodies of the web API write a series. */
struct mw_jbuf;
void mw_j_series_head(struct mw_jbuf *b, const struct mw_series_info *s);

/* The completeness mark of the database behind r: 0 and *out (INT64_MIN
 * when the file has none), -1 on a storage error. */
int mw_reader_complete_to(struct mw_reader *r, int64_t *out, struct mw_err *err);

#endif
