/*
 * metric_catalog.h - the one definition of every series memwatch writes:
 * its name, Prometheus type, unit, label names and help text.
 *
 * Code names a metric by its identifier (MW_M_...), never by a string:
 * the collectors pass mw_metric_name(MW_M_...) to the batch, /metrics
 * (web/metrics.c) takes each family's HELP and TYPE from here, the leak
 * gauges (core/leak_gauges.c) and the forwarder's default selection come
 * from here, and tests/test_metric_catalog.c checks README's metric
 * tables against this list.  Adding a metric: an identifier below, its
 * entry in metric_catalog.c, a row in README's "## Metrics".
 *
 * Pure constant data; any thread.
 */
#ifndef MW_CORE_METRIC_CATALOG_H
#define MW_CORE_METRIC_CATALOG_H

#include <stddef.h>

enum mw_metric_id {
	/* collectors/system.c */
	MW_M_SYSTEM_PHYSICAL_BYTES,
	MW_M_SYSTEM_AVAILABLE_BYTES,
	MW_M_SYSTEM_COMMIT_BYTES,
	MW_M_SYSTEM_COMMIT_LIMIT_BYTES,
	/* collectors/process*.c */
	MW_M_PROCESS_WORKING_SET_BYTES,
	MW_M_PROCESS_WORKING_SET_PEAK_BYTES,
	MW_M_PROCESS_PRIVATE_BYTES,
	MW_M_PROCESS_VIRTUAL_BYTES,
	MW_M_PROCESS_HANDLES,
	MW_M_PROCESS_THREADS,
	MW_M_PROCESS_PAGE_FAULTS_TOTAL,
	MW_M_PROCESS_PRIVATE_WORKING_SET_BYTES,
	MW_M_PROCESS_SHAREABLE_WORKING_SET_BYTES,
	MW_M_PROCESS_RESIDENT_BYTES,
	MW_M_PROCESS_SWAP_BYTES,
	MW_M_PROCESS_PSS_BYTES,
	MW_M_PROCESS_USS_BYTES,
	MW_M_PROCESS_DATA_BYTES,
	MW_M_COLLECTOR_YOUNG_SKIPPED_TOTAL,
	/* collectors/workingset.c */
	MW_M_WORKINGSET_BYTES,
	MW_M_WORKINGSET_PSS_BYTES,
	MW_M_WORKINGSET_USS_BYTES,
	/* collectors/heap.c */
	MW_M_HEAP_BYTES,
	MW_M_HEAP_BLOCKS,
	MW_M_HEAP_COUNT,
	MW_M_HEAP_BREAKDOWN_BYTES,
	/* collectors/vmmap.c */
	MW_M_VM_BYTES,
	MW_M_VM_LARGEST_FREE_BYTES,
	MW_M_VM_FREE_BLOCKS,
	MW_M_VM_REGIONS,
	/* collectors/jvm.c */
	MW_M_JVM_HEAP_USED_BYTES,
	MW_M_JVM_HEAP_COMMITTED_BYTES,
	MW_M_JVM_HEAP_MAX_BYTES,
	MW_M_JVM_METASPACE_USED_BYTES,
	MW_M_JVM_OLD_AFTER_GC_BYTES,
	MW_M_JVM_COLLECTIONS_TOTAL,
	/* collectors/exit_leaks.c: the last exit leak report of each image */
	MW_M_EXIT_LEAK_BYTES,
	MW_M_EXIT_LEAK_ALLOCATIONS,
	MW_M_EXIT_LEAK_REPORT_TIMESTAMP_SECONDS,
	/* collectors/perfcounters.c */
	MW_M_PERF_VALUE,
	MW_M_PERF_OBJECTS_SKIPPED,
	/* the scheduler (core/scheduler.c) and the status table (/metrics);
	 * web/metrics.c walks these six as a range */
	MW_M_COLLECTOR_UP,
	MW_M_COLLECTOR_DURATION_SECONDS,
	MW_M_COLLECTOR_RUNS_TOTAL,
	MW_M_COLLECTOR_SAMPLES_TOTAL,
	MW_M_COLLECTOR_ERRORS_TOTAL,
	MW_M_COLLECTOR_SKIPPED_TICKS_TOTAL,
	/* storage: the writer's own series (storage/store.c) and /metrics */
	MW_M_STORAGE_UP,
	MW_M_STORAGE_LIVE_SERIES,
	MW_M_STORAGE_DB_BYTES,
	MW_M_STORAGE_QUERIES_TOTAL,
	MW_M_STORAGE_QUERY_SECONDS_TOTAL,
	MW_M_STORAGE_WRITER_UP,
	MW_M_STORAGE_POINTS_TOTAL,
	MW_M_STORAGE_DROPPED_POINTS_TOTAL,
	MW_M_STORAGE_PENDING_POINTS,
	MW_M_STORAGE_FLUSHES_TOTAL,
	MW_M_STORAGE_FAILED_FLUSHES_TOTAL,
	MW_M_STORAGE_LAST_FLUSH_TIMESTAMP_SECONDS,
	MW_M_STORAGE_SERIES,
	MW_M_STORAGE_SERIES_EVICTED_TOTAL,
	MW_M_STORAGE_FLUSH_SECONDS,
	MW_M_CLOCK_STEP_SECONDS,
	/* what [storage] max_size removed (storage/size_cut.c, /metrics) */
	MW_M_STORAGE_SIZE_CUT_POINTS_TOTAL,
	MW_M_STORAGE_SIZE_CUT_CHUNKS_TOTAL,
	MW_M_STORAGE_SIZE_CUT_ROLLUP_ROWS_TOTAL,
	MW_M_STORAGE_SIZE_CUT_REGION_SNAPSHOTS_TOTAL,
	MW_M_STORAGE_SIZE_CUT_SERIES_TOTAL,
	MW_M_STORAGE_SIZE_CUT_BYTES_TOTAL,
	/* the web server (/metrics) */
	MW_M_WEB_REQUESTS_TOTAL,
	MW_M_WEB_SLOW_CLIENTS_CLOSED_TOTAL,
	/* the forwarders ([remote_write.NAME], /metrics; walked as a range) */
	MW_M_REMOTE_WRITE_UP,
	MW_M_REMOTE_WRITE_LAG_SECONDS,
	MW_M_REMOTE_WRITE_POINTS_SENT_TOTAL,
	MW_M_REMOTE_WRITE_BATCHES_SENT_TOTAL,
	MW_M_REMOTE_WRITE_RETRIES_TOTAL,
	MW_M_REMOTE_WRITE_BATCHES_SKIPPED_TOTAL,
	MW_M_REMOTE_WRITE_POINTS_SKIPPED_TOTAL,
	MW_M_REMOTE_WRITE_PENDING_SERIES,
	MW_M_REMOTE_WRITE_LAST_SENT_TIMESTAMP_SECONDS,
	/* the background leak judgement (core/leak_gauges.c) */
	MW_M_LEAK_VERDICT,
	MW_M_LEAK_SLOPE_BYTES_PER_HOUR,
	MW_M_LEAK_GROWTH_BYTES,
	MW_M_LEAK_PROJECTED_BYTES,
	MW_M_LEAK_COUNT_SLOPE_PER_HOUR,
	MW_M_LEAK_ONSET_TIMESTAMP_SECONDS,
	MW_M_LEAK_KIND,
	MW_M_LEAK_GROUPS,
	MW_M_LEAK_CHECKS_TOTAL,
	MW_M_LEAK_CHECK_FAILURES_TOTAL,
	MW_M_LEAK_CHECK_DURATION_SECONDS,
	MW_M_LEAK_CHECK_INTERVAL_SECONDS,
	/* the daemon (/metrics) */
	MW_M_UPTIME_SECONDS,
	MW_M_BUILD_INFO,
	MW_M_COUNT
};

enum mw_metric_type { MW_METRIC_GAUGE = 1, MW_METRIC_COUNTER };

/* Where a series is written (bits). */
enum {
	MW_METRIC_STORED = 1,	/* into the database (a collector, the writer, the judge) */
	MW_METRIC_SCRAPED = 2,	/* on /metrics from the daemon's live state */
};

/* What a forwarder sends of it with the default `match`. */
enum mw_metric_forward {
	MW_METRIC_FWD_NONE,	/* not stored, or only when a selector names it */
	MW_METRIC_FWD_WATCHED,	/* the series of the watched processes ('watched') */
	MW_METRIC_FWD_ALWAYS,	/* every series (MW_METRIC_FORWARD_ALWAYS) */
};

#define MW_METRIC_MAX_LABELS 4

struct mw_metric {
	const char *name;
	enum mw_metric_type type;
	/* "bytes", "seconds", "bytes/hour", "1/hour", "1" (a count, a flag,
	 * a code: no unit) or "varies" (a performance counter's own) */
	const char *unit;
	const char *labels[MW_METRIC_MAX_LABELS + 1];	/* NULL-terminated */
	unsigned where;	/* MW_METRIC_STORED | MW_METRIC_SCRAPED */
	enum mw_metric_forward forward;
	const char *help;	/* one sentence, the HELP line of /metrics */
};

extern const struct mw_metric mw_metric_catalog[MW_M_COUNT];

static inline const char *mw_metric_name(enum mw_metric_id id)
{
	return mw_metric_catalog[id].name;
}

/* The entry called `name`, or NULL for a name memwatch does not write
 * (an imported or renamed series). */
const struct mw_metric *mw_metric_find(const char *name);
/* "gauge" or "counter", as Prometheus' TYPE line spells it. */
const char *mw_metric_type_name(enum mw_metric_type type);

/* The families every forwarder sends by default besides the watched
 * processes' series: those marked MW_METRIC_FWD_ALWAYS (the test checks
 * both agree).  The [remote_write.NAME] `match` default is
 * MW_METRIC_FORWARD_DEFAULT. */
#define MW_METRIC_FORWARD_ALWAYS "{__name__=~\"memwatch_(system|leak|storage|collector)_.*\"}"
#define MW_METRIC_FORWARD_DEFAULT "watched, " MW_METRIC_FORWARD_ALWAYS

#endif
