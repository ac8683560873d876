/*
 * metric_catalog.c - the entries of the metric catalogue (see
 * metric_catalog.h), indexed by identifier so an entry cannot drift from
 * its name.  README's "## Metrics" tables say the same in more words;
 * tests/test_metric_catalog.c keeps the two in step.
 */
#include "metric_catalog.h"

#include <string.h>

/* Label sets shared by whole families of series (braced: an entry's labels). */
#define NO_LABELS { NULL }
#define PROC_L { "pid", "process", "started", NULL }
#define COLLECTOR_L { "collector", NULL }
#define DEST_L { "destination", NULL }
#define CODE_L { "code", NULL }
#define PROCESS_L { "process", NULL }
#define PROCESS_UNIT_L { "process", "unit", NULL }
#define KIND_L { "kind", "process", NULL }
#define VERDICT_L { "verdict", NULL }
#define VERSION_L { "version", NULL }
/* for DETAIL: the labels of a watched process's own series */
#define WATCHED_L "pid", "process"

/* Type, unit, labels, where and forwarding, in the combinations that
 * occur: the system figures and the process table (stored; every system
 * series forwarded, a process's when it is watched); DETAIL, a watched
 * process's series of the detail collectors; HEALTH, the daemon's own
 * figures, forwarded by default when stored; SCRAPE_ONLY, written by
 * /metrics from live state, never stored so never forwarded. */
#define SYS_GAUGE MW_METRIC_GAUGE, "bytes", NO_LABELS, MW_METRIC_STORED, MW_METRIC_FWD_ALWAYS
#define PROC_BYTES MW_METRIC_GAUGE, "bytes", PROC_L, MW_METRIC_STORED, MW_METRIC_FWD_WATCHED
#define PROC_COUNT(type) type, "1", PROC_L, MW_METRIC_STORED, MW_METRIC_FWD_WATCHED
#define DETAIL(unit, ...) MW_METRIC_GAUGE, unit, { __VA_ARGS__, NULL }, MW_METRIC_STORED, \
	MW_METRIC_FWD_WATCHED
#define BOTH (MW_METRIC_STORED | MW_METRIC_SCRAPED)
#define HEALTH(type, unit, labels, where) type, unit, labels, where, MW_METRIC_FWD_ALWAYS
#define SCRAPE_ONLY(type, unit, labels) type, unit, labels, MW_METRIC_SCRAPED, MW_METRIC_FWD_NONE

const struct mw_metric mw_metric_catalog[MW_M_COUNT] = {
	[MW_M_SYSTEM_PHYSICAL_BYTES] = { "memwatch_system_physical_bytes", SYS_GAUGE,
		"Installed memory the operating system manages." },
	[MW_M_SYSTEM_AVAILABLE_BYTES] = { "memwatch_system_available_bytes", SYS_GAUGE,
		"Memory available without paging (Linux: MemAvailable)." },
	[MW_M_SYSTEM_COMMIT_BYTES] = { "memwatch_system_commit_bytes", SYS_GAUGE,
		"System commit charge (Linux: Committed_AS)." },
	[MW_M_SYSTEM_COMMIT_LIMIT_BYTES] = { "memwatch_system_commit_limit_bytes", SYS_GAUGE,
		"System commit limit (Linux: CommitLimit)." },

	[MW_M_PROCESS_WORKING_SET_BYTES] = { "memwatch_process_working_set_bytes", PROC_BYTES,
		"Resident set (working set) of the process." },
	[MW_M_PROCESS_WORKING_SET_PEAK_BYTES] = { "memwatch_process_working_set_peak_bytes",
		PROC_BYTES, "Peak resident set of the process (Linux: VmHWM)." },
	[MW_M_PROCESS_PRIVATE_BYTES] = { "memwatch_process_private_bytes", PROC_BYTES,
		"Commit charge (private bytes) of the process; Linux: RssAnon plus VmSwap." },
	[MW_M_PROCESS_VIRTUAL_BYTES] = { "memwatch_process_virtual_bytes", PROC_BYTES,
		"Virtual size of the process." },
	[MW_M_PROCESS_HANDLES] = { "memwatch_process_handles", PROC_COUNT(MW_METRIC_GAUGE),
		"Open handles (Linux: open file descriptors) of the process." },
	[MW_M_PROCESS_THREADS] = { "memwatch_process_threads", PROC_COUNT(MW_METRIC_GAUGE),
		"Threads of the process." },
	[MW_M_PROCESS_PAGE_FAULTS_TOTAL] = { "memwatch_process_page_faults_total",
		PROC_COUNT(MW_METRIC_COUNTER),
		"Page faults of the process (Linux: minor plus major)." },
	[MW_M_PROCESS_PRIVATE_WORKING_SET_BYTES] = { "memwatch_process_private_working_set_bytes",
		PROC_BYTES, "Private part of the process's working set (Linux: RssAnon)." },
	[MW_M_PROCESS_SHAREABLE_WORKING_SET_BYTES] = {
		"memwatch_process_shareable_working_set_bytes", PROC_BYTES,
		"Shareable pages resident in the process's working set (Windows)." },
	[MW_M_PROCESS_RESIDENT_BYTES] = { "memwatch_process_resident_bytes", MW_METRIC_GAUGE,
		"bytes", { "pid", "process", "started", "kind", NULL }, MW_METRIC_STORED,
		MW_METRIC_FWD_WATCHED,
		"Resident memory of the process by kind: anon, file, shmem (Linux)." },
	[MW_M_PROCESS_SWAP_BYTES] = { "memwatch_process_swap_bytes", PROC_BYTES,
		"Swapped-out memory of the process (Linux: VmSwap)." },
	[MW_M_PROCESS_PSS_BYTES] = { "memwatch_process_pss_bytes", PROC_BYTES,
		"Proportional set size of the process, read on a time budget (Linux)." },
	[MW_M_PROCESS_USS_BYTES] = { "memwatch_process_uss_bytes", PROC_BYTES,
		"Unique set size of the process, read on a time budget (Linux)." },
	[MW_M_COLLECTOR_YOUNG_SKIPPED_TOTAL] = { "memwatch_collector_young_skipped_total",
		HEALTH(MW_METRIC_COUNTER, "1", COLLECTOR_L, MW_METRIC_STORED),
		"Processes left out because they were younger than [collector.process] min_age." },

	[MW_M_WORKINGSET_BYTES] = { "memwatch_workingset_bytes",
		DETAIL("bytes", "pid", "process", "category", "sharing"),
		"Resident pages of a watched process by category and sharing." },
	[MW_M_WORKINGSET_PSS_BYTES] = { "memwatch_workingset_pss_bytes",
		DETAIL("bytes", "pid", "process"),
		"Proportional set size of a watched process (Linux)." },
	[MW_M_WORKINGSET_USS_BYTES] = { "memwatch_workingset_uss_bytes",
		DETAIL("bytes", "pid", "process"),
		"Unique set size of a watched process (Linux)." },

	[MW_M_HEAP_BYTES] = { "memwatch_heap_bytes", DETAIL("bytes", "pid", "process", "heap", "kind"),
		"Bytes of one heap of a watched process by kind (committed, allocated, free ...)." },
	[MW_M_HEAP_BLOCKS] = { "memwatch_heap_blocks", DETAIL("1", "pid", "process", "heap"),
		"Blocks in one heap of a watched process." },
	[MW_M_HEAP_COUNT] = { "memwatch_heap_count", DETAIL("1", "pid", "process"),
		"Heaps of a watched process." },
	[MW_M_HEAP_BREAKDOWN_BYTES] = { "memwatch_heap_breakdown_bytes",
		DETAIL("bytes", "pid", "process", "kind"),
		"Committed memory of a watched process by kind (heap, stack, image, mapped ...)." },

	[MW_M_VM_BYTES] = { "memwatch_vm_bytes", DETAIL("bytes", "pid", "process", "state", "type"),
		"Address space of a watched process by state and type." },
	[MW_M_VM_LARGEST_FREE_BYTES] = { "memwatch_vm_largest_free_bytes", DETAIL("bytes", WATCHED_L),
		"Largest free block of a watched process's address space." },
	[MW_M_VM_FREE_BLOCKS] = { "memwatch_vm_free_blocks", DETAIL("1", WATCHED_L),
		"Free blocks in a watched process's address space." },
	[MW_M_VM_REGIONS] = { "memwatch_vm_regions", DETAIL("1", WATCHED_L),
		"Regions in a watched process's address space." },

	[MW_M_PERF_VALUE] = { "memwatch_perf_value", MW_METRIC_GAUGE, "varies",
		{ "object", "counter", "instance", NULL }, MW_METRIC_STORED, MW_METRIC_FWD_NONE,
		"An NT performance counter ([collector.perfcounters] counters), computed as perfmon does." },
	[MW_M_PERF_OBJECTS_SKIPPED] = { "memwatch_perf_objects_skipped", MW_METRIC_GAUGE, "1",
		{ "query", NULL }, MW_METRIC_STORED, MW_METRIC_FWD_NONE,
		"Malformed objects skipped in the last performance data snapshot." },

	[MW_M_COLLECTOR_UP] = { "memwatch_collector_up", SCRAPE_ONLY(MW_METRIC_GAUGE, "1", COLLECTOR_L),
		"1 when the collector is enabled, supported and its last run succeeded." },
	[MW_M_COLLECTOR_DURATION_SECONDS] = { "memwatch_collector_duration_seconds",
		HEALTH(MW_METRIC_GAUGE, "seconds", COLLECTOR_L, BOTH),
		"Time the collector's last run took." },
	[MW_M_COLLECTOR_RUNS_TOTAL] = { "memwatch_collector_runs_total",
		SCRAPE_ONLY(MW_METRIC_COUNTER, "1", COLLECTOR_L), "Runs of the collector." },
	[MW_M_COLLECTOR_SAMPLES_TOTAL] = { "memwatch_collector_samples_total",
		SCRAPE_ONLY(MW_METRIC_COUNTER, "1", COLLECTOR_L), "Samples the collector produced." },
	[MW_M_COLLECTOR_ERRORS_TOTAL] = { "memwatch_collector_errors_total",
		HEALTH(MW_METRIC_COUNTER, "1", COLLECTOR_L, BOTH), "Failed runs of the collector." },
	[MW_M_COLLECTOR_SKIPPED_TICKS_TOTAL] = { "memwatch_collector_skipped_ticks_total",
		HEALTH(MW_METRIC_COUNTER, "1", COLLECTOR_L, BOTH),
		"Ticks skipped because the collector fell behind." },

	[MW_M_STORAGE_UP] = { "memwatch_storage_up", SCRAPE_ONLY(MW_METRIC_GAUGE, "1", NO_LABELS),
		"1 when the database can be read." },
	[MW_M_STORAGE_LIVE_SERIES] = { "memwatch_storage_live_series",
		SCRAPE_ONLY(MW_METRIC_GAUGE, "1", NO_LABELS),
		"Series with a value in the live window, exported on /metrics." },
	[MW_M_STORAGE_DB_BYTES] = { "memwatch_storage_db_bytes",
		HEALTH(MW_METRIC_GAUGE, "bytes", NO_LABELS, BOTH),
		"Size of the database file and its write-ahead log." },
	[MW_M_STORAGE_QUERIES_TOTAL] = { "memwatch_storage_queries_total",
		HEALTH(MW_METRIC_COUNTER, "1", NO_LABELS, BOTH), "Read queries run." },
	[MW_M_STORAGE_QUERY_SECONDS_TOTAL] = { "memwatch_storage_query_seconds_total",
		HEALTH(MW_METRIC_COUNTER, "seconds", NO_LABELS, BOTH),
		"Time spent in read queries." },
	[MW_M_STORAGE_WRITER_UP] = { "memwatch_storage_writer_up",
		SCRAPE_ONLY(MW_METRIC_GAUGE, "1", NO_LABELS),
		"1 when the writer's last flush committed." },
	[MW_M_STORAGE_POINTS_TOTAL] = { "memwatch_storage_points_total",
		HEALTH(MW_METRIC_COUNTER, "1", NO_LABELS, BOTH), "Points committed to the database." },
	[MW_M_STORAGE_DROPPED_POINTS_TOTAL] = { "memwatch_storage_dropped_points_total",
		HEALTH(MW_METRIC_COUNTER, "1", NO_LABELS, BOTH),
		"Points given up: queue full, or writes failing past the pending limit." },
	[MW_M_STORAGE_PENDING_POINTS] = { "memwatch_storage_pending_points",
		SCRAPE_ONLY(MW_METRIC_GAUGE, "1", NO_LABELS), "Points accepted and not yet committed." },
	[MW_M_STORAGE_FLUSHES_TOTAL] = { "memwatch_storage_flushes_total",
		SCRAPE_ONLY(MW_METRIC_COUNTER, "1", NO_LABELS), "Flushes attempted." },
	[MW_M_STORAGE_FAILED_FLUSHES_TOTAL] = { "memwatch_storage_failed_flushes_total",
		SCRAPE_ONLY(MW_METRIC_COUNTER, "1", NO_LABELS),
		"Flushes the database refused (disk full, I/O error, locked)." },
	[MW_M_STORAGE_LAST_FLUSH_TIMESTAMP_SECONDS] = {
		"memwatch_storage_last_flush_timestamp_seconds",
		SCRAPE_ONLY(MW_METRIC_GAUGE, "seconds", NO_LABELS),
		"When the last successful flush committed." },
	[MW_M_STORAGE_SERIES] = { "memwatch_storage_series",
		HEALTH(MW_METRIC_GAUGE, "1", NO_LABELS, MW_METRIC_STORED),
		"Series the writer keeps in memory." },
	[MW_M_STORAGE_SERIES_EVICTED_TOTAL] = { "memwatch_storage_series_evicted_total",
		HEALTH(MW_METRIC_COUNTER, "1", NO_LABELS, MW_METRIC_STORED),
		"Idle series the writer dropped from memory." },
	[MW_M_STORAGE_FLUSH_SECONDS] = { "memwatch_storage_flush_seconds",
		HEALTH(MW_METRIC_GAUGE, "seconds", NO_LABELS, MW_METRIC_STORED),
		"Time the writer's last flush took." },

	[MW_M_WEB_REQUESTS_TOTAL] = { "memwatch_web_requests_total",
		SCRAPE_ONLY(MW_METRIC_COUNTER, "1", CODE_L), "HTTP requests answered, by status code." },
	[MW_M_WEB_SLOW_CLIENTS_CLOSED_TOTAL] = { "memwatch_web_slow_clients_closed_total",
		SCRAPE_ONLY(MW_METRIC_COUNTER, "1", NO_LABELS),
		"Connections closed because their request head took longer than [web] header_timeout." },

	[MW_M_REMOTE_WRITE_UP] = { "memwatch_remote_write_up",
		SCRAPE_ONLY(MW_METRIC_GAUGE, "1", DEST_L),
		"1 unless the last request to the destination failed (no answer, 5xx, 429, 401 ...)." },
	[MW_M_REMOTE_WRITE_LAG_SECONDS] = { "memwatch_remote_write_lag_seconds",
		SCRAPE_ONLY(MW_METRIC_GAUGE, "seconds", DEST_L),
		"Age of the oldest stored point not yet accepted by the destination; 0 when caught up." },
	[MW_M_REMOTE_WRITE_POINTS_SENT_TOTAL] = { "memwatch_remote_write_points_sent_total",
		SCRAPE_ONLY(MW_METRIC_COUNTER, "1", DEST_L), "Points the destination accepted." },
	[MW_M_REMOTE_WRITE_BATCHES_SENT_TOTAL] = { "memwatch_remote_write_batches_sent_total",
		SCRAPE_ONLY(MW_METRIC_COUNTER, "1", DEST_L), "Requests the destination accepted." },
	[MW_M_REMOTE_WRITE_RETRIES_TOTAL] = { "memwatch_remote_write_retries_total",
		SCRAPE_ONLY(MW_METRIC_COUNTER, "1", DEST_L),
		"Requests repeated after a failure (no answer, 5xx, 429, 401 ...)." },
	[MW_M_REMOTE_WRITE_BATCHES_SKIPPED_TOTAL] = { "memwatch_remote_write_batches_skipped_total",
		SCRAPE_ONLY(MW_METRIC_COUNTER, "1", DEST_L),
		"Requests the destination refused for good (4xx: too old, out of order ...); not resent." },
	[MW_M_REMOTE_WRITE_POINTS_SKIPPED_TOTAL] = { "memwatch_remote_write_points_skipped_total",
		SCRAPE_ONLY(MW_METRIC_COUNTER, "1", DEST_L), "Points in those requests." },
	[MW_M_REMOTE_WRITE_PENDING_SERIES] = { "memwatch_remote_write_pending_series",
		SCRAPE_ONLY(MW_METRIC_GAUGE, "1", DEST_L),
		"Series with points waiting to be sent at the last scan." },
	[MW_M_REMOTE_WRITE_LAST_SENT_TIMESTAMP_SECONDS] = {
		"memwatch_remote_write_last_sent_timestamp_seconds",
		SCRAPE_ONLY(MW_METRIC_GAUGE, "seconds", DEST_L),
		"When the destination last accepted a request (0: never)." },

	[MW_M_LEAK_VERDICT] = { "memwatch_leak_verdict",
		HEALTH(MW_METRIC_GAUGE, "1", PROCESS_L, BOTH),
		"Leak verdict of the process group: 0 pass, 1 fail, 3 inconclusive." },
	[MW_M_LEAK_SLOPE_BYTES_PER_HOUR] = { "memwatch_leak_slope_bytes_per_hour",
		HEALTH(MW_METRIC_GAUGE, "bytes/hour", PROCESS_L, BOTH),
		"Growth rate of the process group's floor (Theil-Sen), bytes per hour." },
	[MW_M_LEAK_GROWTH_BYTES] = { "memwatch_leak_growth_bytes",
		HEALTH(MW_METRIC_GAUGE, "bytes", PROCESS_L, BOTH), "Growth since the onset, bytes." },
	[MW_M_LEAK_PROJECTED_BYTES] = { "memwatch_leak_projected_bytes",
		HEALTH(MW_METRIC_GAUGE, "bytes", PROCESS_L, BOTH),
		"Growth projected over the [leak] horizon, bytes (0 unless failing)." },
	[MW_M_LEAK_COUNT_SLOPE_PER_HOUR] = { "memwatch_leak_count_slope_per_hour",
		HEALTH(MW_METRIC_GAUGE, "1/hour", PROCESS_UNIT_L, BOTH),
		"Growth rate of a group decided by a count (label unit: handles, threads), per hour." },
	[MW_M_LEAK_ONSET_TIMESTAMP_SECONDS] = { "memwatch_leak_onset_timestamp_seconds",
		HEALTH(MW_METRIC_GAUGE, "seconds", PROCESS_L, BOTH),
		"Since when the process group grows (absent when it does not)." },
	[MW_M_LEAK_KIND] = { "memwatch_leak_kind", HEALTH(MW_METRIC_GAUGE, "1", KIND_L, BOTH),
		"1 for each failing group, with the kind of memory (or count) that grows." },
	[MW_M_LEAK_GROUPS] = { "memwatch_leak_groups", HEALTH(MW_METRIC_GAUGE, "1", VERDICT_L, BOTH),
		"Process groups judged in the last background run, by verdict." },
	[MW_M_LEAK_CHECKS_TOTAL] = { "memwatch_leak_checks_total",
		SCRAPE_ONLY(MW_METRIC_COUNTER, "1", NO_LABELS),
		"Background leak judgements run (for the memwatch_leak_* gauges)." },
	[MW_M_LEAK_CHECK_FAILURES_TOTAL] = { "memwatch_leak_check_failures_total",
		SCRAPE_ONLY(MW_METRIC_COUNTER, "1", NO_LABELS),
		"Background leak judgements that could not read the database." },
	[MW_M_LEAK_CHECK_DURATION_SECONDS] = { "memwatch_leak_check_duration_seconds",
		SCRAPE_ONLY(MW_METRIC_GAUGE, "seconds", NO_LABELS),
		"Time the last background leak judgement took." },
	[MW_M_LEAK_CHECK_INTERVAL_SECONDS] = { "memwatch_leak_check_interval_seconds",
		SCRAPE_ONLY(MW_METRIC_GAUGE, "seconds", NO_LABELS),
		"Pause before the next background leak judgement: [leak] refresh, or longer to keep "
		"within [leak] cpu_budget." },

	[MW_M_UPTIME_SECONDS] = { "memwatch_uptime_seconds",
		SCRAPE_ONLY(MW_METRIC_GAUGE, "seconds", NO_LABELS), "Seconds since the daemon started." },
	[MW_M_BUILD_INFO] = { "memwatch_build_info",
		SCRAPE_ONLY(MW_METRIC_GAUGE, "1", VERSION_L),
		"Always 1; the version as a label." },
};

const struct mw_metric *mw_metric_find(const char *name)
{
	size_t i;

	for (i = 0; i < MW_M_COUNT; i++)
		if (!strcmp(mw_metric_catalog[i].name, name))
			return &mw_metric_catalog[i];
	return NULL;
}

const char *mw_metric_type_name(enum mw_metric_type type)
{
	return type == MW_METRIC_COUNTER ? "counter" : "gauge";
}
