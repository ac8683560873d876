/*
 * store.h - the write side of the time-series store, without a thread.
 *
 * struct mw_store owns the write connection and, per series, the open
 * chunk (a codec encoder), the 1-minute and 1-hour rollup accumulators and
 * the database ids.  Points are added in memory; mw_store_flush() writes,
 * in one transaction, every new series, every chunk closed since the last
 * flush, the open chunk of every series that received points (rewritten
 * in place, so a crash loses at most what arrived since the last flush)
 * and the completed rollup buckets.  The writer thread (storage.h) wraps a
 * store; tests drive a store directly so they are deterministic.
 *
 * Faults: a flush that fails (disk full, I/O error, SQLITE_BUSY beyond the
 * busy timeout) is rolled back and everything stays in memory to be
 * retried next flush; only when more than max_pending_points are waiting
 * are the oldest closed chunks dropped and counted in
 * dropped_points_total.  The first failure is logged as a warning, the
 * recovery as info; nothing in between.
 *
 * Threads: one thread at a time per store.
 */
#ifndef MW_STORE_H
#define MW_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>
#include "core/batch.h"
#include "core/config.h"
#include "core/status.h"
#include "base/mwerr.h"

struct mw_store_options {
	const char *db_path;
	int64_t chunk_points;	/* close a chunk after this many points */
	int64_t chunk_duration_ms;	/* ... or when it spans this long */
	int64_t retention_raw_ms;	/* 0: keep forever */
	int64_t retention_1m_ms;
	int64_t retention_1h_ms;
	uint64_t max_db_bytes;	/* 0: no limit */
	uint64_t max_pending_points;	/* held in memory while writes fail */
	uint64_t cache_bytes;	/* the write connection's page cache (256 KB) */
	bool self_metrics;	/* add memwatch_storage_* series each flush */
	/* A series without a point for this long (by point timestamps) is
	 * written out (open chunk, rollup buckets in progress) and dropped
	 * from memory at the next flush; its next point finds it again in
	 * the database by key.  Default MW_STORE_SERIES_IDLE_MS. */
	int64_t series_idle_ms;
	/* Working-set region snapshots (regions.h): a keyframe every this
	 * many snapshots per process (default MW_RG_KEYFRAME_EVERY), and the
	 * encoded bytes held in memory while writes fail (default 64 MB);
	 * beyond that the oldest pending snapshots are dropped and counted. */
	int64_t regions_keyframe_every;
	uint64_t max_pending_region_bytes;
	/* Imports: a point whose series has a point at that timestamp
	 * already (stored, or added before) is not added again, and counted
	 * in skipped_points_total; importing a recording twice, or one that
	 * overlaps what is stored, stores each point once (the first value
	 * wins).  Costs a look at the stored chunks only where the points
	 * overlap them (storage/dedupe.c).  Off for sampling: after a clock
	 * step back, a new sample may well repeat a stored timestamp. */
	bool skip_stored;
	/* The start-up's full read of the file (PRAGMA quick_check) is
	 * skipped after a clean stop that left the file unchanged, unless the
	 * last full check is older than this; 0: at every start-up.  Default
	 * MW_FULL_CHECK_EVERY_MS (clean_stop.h). */
	int64_t full_check_every_ms;
	/* A file at least this big whose full check is due is read whole
	 * in the background while the store runs (bg_check.h): start-up
	 * does not wait for it.  Default MW_FULL_CHECK_BACKGROUND_FROM;
	 * INT64_MAX: never. */
	int64_t full_check_background_from;
};

#define MW_FULL_CHECK_BACKGROUND_FROM (256LL << 20)

#define MW_STORE_SERIES_IDLE_MS (10 * 60000)

/* Defaults (as config.c's) for everything; db_path "memwatch.db". */
void mw_store_options_init(struct mw_store_options *o);
/* Take the [storage] settings of cfg (db_path is borrowed, not copied). */
void mw_store_options_from_config(struct mw_store_options *o, const struct mw_config *cfg);

struct mw_store_stats {
	/* Why the start-up read the whole file (a static string), NULL when
	 * a clean stop let it skip that (clean_stop.h). */
	const char *full_check;
	/* Why a full check runs in the background (static), NULL: none. */
	const char *full_check_background;
	uint64_t points_total;	/* points committed to the database */
	uint64_t dropped_points_total;	/* points given up: queue full, disk */
	uint64_t skipped_points_total;	/* skip_stored: stored already, not added */
	uint64_t pending_points;	/* accepted, not yet committed */
	/* Bytes allocated for the closed chunks and rollup rows waiting for
	 * the next flush (the queues themselves, not the chunks' data). */
	uint64_t queue_bytes;
	uint64_t series;	/* series held in memory (live) */
	/* Bytes the live series' open chunks hold, as of the last flush
	 * (trimmed once written whole: codec.h) */
	uint64_t open_chunk_bytes;
	uint64_t series_evicted_total;	/* dropped from memory when idle */
	uint64_t series_reloaded_total;	/* found again in the database */
	/* Live series whose buckets in progress the start-up read from their
	 * rows after a clean stop (the others were rebuilt from raw points:
	 * storage/series_state.c mw_series_resume). */
	uint64_t series_resumed;
	uint64_t flushes;
	uint64_t failed_flushes;
	uint64_t checkpoints;	/* WAL checkpoints run (store.c: wal_committed) */
	int64_t db_bytes;	/* pages in use times page size */
	int64_t last_flush_ns;
	uint64_t region_snapshots_total;	/* region snapshots committed */
	uint64_t dropped_region_snapshots_total;	/* given up (disk, queue) */
	uint64_t pending_region_snapshots;	/* accepted, not yet committed */
	uint64_t region_bytes_total;	/* encoded bytes committed */
	struct mw_size_cut_counts size_cut;	/* what max_size removed (size_cut.c) */
};

struct mw_store;

/* Open (create, check, migrate) the database and load the live series
 * (table series_live: those held in memory when the store last ran, not
 * the whole catalogue); rebuilds their rollup state lost in a crash from
 * raw chunks, or after a clean stop reads it from the rows that stop
 * wrote. */
int mw_store_open(struct mw_store **out, const struct mw_store_options *o,
		  struct mw_err *err);
/* Flush everything, including partial rollup buckets, and close.  NULL ok. */
void mw_store_free(struct mw_store *s);

/* Add one point (in memory only).  key is the canonical series key;
 * metric and labels are used when the series is new. */
void mw_store_add(struct mw_store *s, const char *key, const char *metric,
		  const struct mw_label *labels, size_t nlabels,
		  int64_t ts_ms, double value);
/* Add every sample of a batch and its "workingset.regions" detail
 * records (the batch is not freed). */
void mw_store_add_batch(struct mw_store *s, const struct mw_batch *b);
/* Count points lost before they reached the store (full queue). */
void mw_store_count_dropped(struct mw_store *s, uint64_t npoints);
/* Add one "workingset.regions" detail record (v1 encoding, labels pid and
 * process) as a region snapshot of that process.  A malformed record is
 * logged (once) and counted as dropped. */
void mw_store_add_regions(struct mw_store *s, const struct mw_detail *d);
/* Count region snapshots lost before they reached the store. */
void mw_store_count_dropped_regions(struct mw_store *s, uint64_t nsnapshots);

/* Append the store's own metrics (memwatch_storage_*) stamped now_ms. */
void mw_store_add_self_metrics(struct mw_store *s, int64_t now_ms);

/* The store's present: the newest point it saw, but never more than a
 * minute past the wall clock of its last flush (a point stamped in the
 * future does not stop series from going idle); INT64_MIN before any. */
int64_t mw_store_now(const struct mw_store *s);

/* Everything handed to the store's owner up to wall-clock time ms has
 * been added: the next flush records ms in the file (table writer_mark),
 * which readers report as how far the file is complete (export.h).  The
 * writer thread calls it with the time it took its queue; a store whose
 * owner never calls it (import, tests) writes no mark.  A mark never
 * moves back. */
void mw_store_mark_complete(struct mw_store *s, int64_t ms);

/* Write what is pending.  0 on success; -1 when the database refused
 * (message in err; the store keeps running, see above). */
int mw_store_flush(struct mw_store *s, struct mw_err *err);

/* The writer's look at a full check running in the background
 * (bg_check.h): when it has ended, its outcome is recorded and logged.
 * Returns the message of a check the file failed (for /healthz), else
 * NULL.  Writer thread. */
const char *mw_store_poll_check(struct mw_store *s, int64_t now_ms);
/* Wait for that check to end, then poll it (tests, benchmarks). */
const char *mw_store_wait_check(struct mw_store *s);

/* One bounded step of retention and size enforcement (a few thousand rows
 * at most), its own transaction.  0, or -1 with a message. */
int mw_store_maintain(struct mw_store *s, int64_t now_ms, struct mw_err *err);

void mw_store_get_stats(struct mw_store *s, struct mw_store_stats *out);

/* The write connection, for tests and benchmarks (PRAGMA max_page_count). */
sqlite3 *mw_store_db(struct mw_store *s);

#endif
