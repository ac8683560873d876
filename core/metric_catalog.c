/*
 * metric_catalog.c - the entries of the metric catalogue (see
 * metric_catalog.h), indexed by identifier so an entry cannot drift from
 * its name.  README's "## Metrics" tables say the same in more words;
 * tests/test_metric_catalog.c keeps the two in step.
 */
#include "metric_catalog.h"

#include <string.h>

/* Label sets (an entry's label names). */
#define NO_LABELS { NULL }
#define PROC_L { "pid", "process", "started", NULL }
#define RESIDENT_L { "pid", "process", "started", "kind", NULL }
#define JVM_SPACE_L { "pid", "process", "started", "space", NULL }
#define JVM_KIND_L { "pid", "process", "started", "kind", NULL }
#define WATCHED_L { "pid", "process", NULL }
#define WS_L { "pid", "process", "category", "sharing", NULL }
#define HEAP_KIND_L { "pid", "process", "heap", "kind", NULL }
#define HEAP_L { "pid", "process", "heap", NULL }
#define BREAKDOWN_L { "pid", "process", "kind", NULL }
#define VM_L { "pid", "process", "state", "type", NULL }
#define PERF_L { "object", "counter", "instance", NULL }
#define QUERY_L { "query", NULL }
#define COLLECTOR_L { "collector", NULL }
#define CODE_L { "code", NULL }
#define DEST_L { "destination", NULL }
#define PROCESS_L { "process", NULL }
#define PROCESS_UNIT_L { "process", "unit", NULL }
#define KIND_L { "kind", "process", NULL }
#define VERDICT_L { "verdict", NULL }
#define VERSION_L { "version", NULL }

/* The rest of an entry, short. */
#define GAUGE MW_METRIC_GAUGE
#define COUNTER MW_METRIC_COUNTER
#define STORED MW_METRIC_STORED
#define SCRAPED MW_METRIC_SCRAPED
#define BOTH (MW_METRIC_STORED | MW_METRIC_SCRAPED)
#define FWD_NONE MW_METRIC_FWD_NONE
#define FWD_WATCHED MW_METRIC_FWD_WATCHED
#define FWD_ALWAYS MW_METRIC_FWD_ALWAYS

/* Each entry: name, type, unit, labels, where it is written, what a
 * forwarder sends of it by default, help. */
const struct mw_metric mw_metric_catalog[MW_M_COUNT] = {
	/* the system collector: stored, every series forwarded */
	[MW_M_SYSTEM_PHYSICAL_BYTES] = {
		"memwatch_system_physical_bytes", GAUGE, "bytes", NO_LABELS, STORED, FWD_ALWAYS,
		"Installed memory the operating system manages." },
	[MW_M_SYSTEM_AVAILABLE_BYTES] = {
		"memwatch_system_available_bytes", GAUGE, "bytes", NO_LABELS, STORED, FWD_ALWAYS,
		"Memory available without paging (Linux: MemAvailable)." },
	[MW_M_SYSTEM_COMMIT_BYTES] = {
		"memwatch_system_commit_bytes", GAUGE, "bytes", NO_LABELS, STORED, FWD_ALWAYS,
		"System commit charge (Linux: Committed_AS)." },
	[MW_M_SYSTEM_COMMIT_LIMIT_BYTES] = {
		"memwatch_system_commit_limit_bytes", GAUGE, "bytes", NO_LABELS, STORED, FWD_ALWAYS,
		"System commit limit (Linux: CommitLimit)." },

	/* the process collector: stored, a process's series forwarded when it is watched */
	[MW_M_PROCESS_WORKING_SET_BYTES] = {
		"memwatch_process_working_set_bytes", GAUGE, "bytes", PROC_L, STORED, FWD_WATCHED,
		"Resident set (working set) of the process." },
	[MW_M_PROCESS_WORKING_SET_PEAK_BYTES] = {
		"memwatch_process_working_set_peak_bytes", GAUGE, "bytes", PROC_L, STORED, FWD_WATCHED,
		"Peak resident set of the process (Linux: VmHWM)." },
	[MW_M_PROCESS_PRIVATE_BYTES] = {
		"memwatch_process_private_bytes", GAUGE, "bytes", PROC_L, STORED, FWD_WATCHED,
		"Commit charge (private bytes) of the process; Linux: RssAnon plus VmSwap." },
	[MW_M_PROCESS_VIRTUAL_BYTES] = {
		"memwatch_process_virtual_bytes", GAUGE, "bytes", PROC_L, STORED, FWD_WATCHED,
		"Virtual size of the process." },
	[MW_M_PROCESS_HANDLES] = {
		"memwatch_process_handles", GAUGE, "1", PROC_L, STORED, FWD_WATCHED,
		"Open handles (Linux: open file descriptors) of the process." },
	[MW_M_PROCESS_THREADS] = {
		"memwatch_process_threads", GAUGE, "1", PROC_L, STORED, FWD_WATCHED,
		"Threads of the process." },
	[MW_M_PROCESS_PAGE_FAULTS_TOTAL] = {
		"memwatch_process_page_faults_total", COUNTER, "1", PROC_L, STORED, FWD_WATCHED,
		"Page faults of the process (Linux: minor plus major)." },
	[MW_M_PROCESS_PRIVATE_WORKING_SET_BYTES] = {
		"memwatch_process_private_working_set_bytes", GAUGE, "bytes", PROC_L, STORED, FWD_WATCHED,
		"Private part of the process's working set (Linux: RssAnon)." },
	[MW_M_PROCESS_SHAREABLE_WORKING_SET_BYTES] = {
		"memwatch_process_shareable_working_set_bytes", GAUGE, "bytes", PROC_L, STORED, FWD_WATCHED,
		"Shareable pages resident in the process's working set (Windows)." },
	[MW_M_PROCESS_RESIDENT_BYTES] = {
		"memwatch_process_resident_bytes", GAUGE, "bytes", RESIDENT_L, STORED, FWD_WATCHED,
		"Resident memory of the process by kind: anon, file, shmem (Linux)." },
	[MW_M_PROCESS_SWAP_BYTES] = {
		"memwatch_process_swap_bytes", GAUGE, "bytes", PROC_L, STORED, FWD_WATCHED,
		"Swapped-out memory of the process (Linux: VmSwap)." },
	[MW_M_PROCESS_PSS_BYTES] = {
		"memwatch_process_pss_bytes", GAUGE, "bytes", PROC_L, STORED, FWD_WATCHED,
		"Proportional set size of the process, read on a time budget (Linux: smaps_rollup; Windows: working-set share counts)." },
	[MW_M_PROCESS_USS_BYTES] = {
		"memwatch_process_uss_bytes", GAUGE, "bytes", PROC_L, STORED, FWD_WATCHED,
		"Unique set size of the process, read on a time budget (Linux: smaps_rollup; Windows: working-set share counts)." },
	[MW_M_PROCESS_DATA_BYTES] = {
		"memwatch_process_data_bytes", GAUGE, "bytes", PROC_L, STORED, FWD_WATCHED,
		"Private writable address space of the process: data, heap, anonymous mappings, stacks (Linux: statm data)." },
	[MW_M_COLLECTOR_YOUNG_SKIPPED_TOTAL] = {
		"memwatch_collector_young_skipped_total", COUNTER, "1", COLLECTOR_L, STORED, FWD_ALWAYS,
		"Processes left out because they were younger than [collector.process] min_age." },

	/* the detail collectors (workingset, heap, vmmap): watched processes only */
	[MW_M_WORKINGSET_BYTES] = {
		"memwatch_workingset_bytes", GAUGE, "bytes", WS_L, STORED, FWD_WATCHED,
		"Resident pages of a watched process by category and sharing." },
	[MW_M_WORKINGSET_PSS_BYTES] = {
		"memwatch_workingset_pss_bytes", GAUGE, "bytes", WATCHED_L, STORED, FWD_WATCHED,
		"Proportional set size of a watched process (Linux: smaps; Windows: working-set share counts)." },
	[MW_M_WORKINGSET_USS_BYTES] = {
		"memwatch_workingset_uss_bytes", GAUGE, "bytes", WATCHED_L, STORED, FWD_WATCHED,
		"Unique set size of a watched process (Linux: smaps; Windows: working-set share counts)." },
	[MW_M_HEAP_BYTES] = {
		"memwatch_heap_bytes", GAUGE, "bytes", HEAP_KIND_L, STORED, FWD_WATCHED,
		"Bytes of one heap of a watched process by kind (committed, allocated, free ...). " },
	[MW_M_HEAP_BLOCKS] = {
		"memwatch_heap_blocks", GAUGE, "1", HEAP_L, STORED, FWD_WATCHED,
		"Blocks in one heap of a watched process." },
	[MW_M_HEAP_COUNT] = {
		"memwatch_heap_count", GAUGE, "1", WATCHED_L, STORED, FWD_WATCHED,
		"Heaps of a watched process." },
	[MW_M_HEAP_BREAKDOWN_BYTES] = {
		"memwatch_heap_breakdown_bytes", GAUGE, "bytes", BREAKDOWN_L, STORED, FWD_WATCHED,
		"Committed memory of a watched process by kind (heap, stack, image, mapped ...)." },
	[MW_M_VM_BYTES] = {
		"memwatch_vm_bytes", GAUGE, "bytes", VM_L, STORED, FWD_WATCHED,
		"Address space of a watched process by state and type." },
	[MW_M_VM_LARGEST_FREE_BYTES] = {
		"memwatch_vm_largest_free_bytes", GAUGE, "bytes", WATCHED_L, STORED, FWD_WATCHED,
		"Largest free block of a watched process's address space." },
	[MW_M_VM_FREE_BLOCKS] = {
		"memwatch_vm_free_blocks", GAUGE, "1", WATCHED_L, STORED, FWD_WATCHED,
		"Free blocks in a watched process's address space." },
	[MW_M_VM_REGIONS] = {
		"memwatch_vm_regions", GAUGE, "1", WATCHED_L, STORED, FWD_WATCHED,
		"Regions in a watched process's address space." },

	/* the jvm collector: every JVM's heap, forwarded when it is watched */
	[MW_M_JVM_HEAP_USED_BYTES] = {
		"memwatch_jvm_heap_used_bytes", GAUGE, "bytes", JVM_SPACE_L, STORED, FWD_WATCHED,
		"A JVM's heap in use by generation (space old or young), from its hsperfdata file." },
	[MW_M_JVM_HEAP_COMMITTED_BYTES] = {
		"memwatch_jvm_heap_committed_bytes", GAUGE, "bytes", PROC_L, STORED, FWD_WATCHED,
		"A JVM's heap committed, both generations." },
	[MW_M_JVM_HEAP_MAX_BYTES] = {
		"memwatch_jvm_heap_max_bytes", GAUGE, "bytes", PROC_L, STORED, FWD_WATCHED,
		"The most a JVM's heap may grow to (-Xmx)." },
	[MW_M_JVM_METASPACE_USED_BYTES] = {
		"memwatch_jvm_metaspace_used_bytes", GAUGE, "bytes", PROC_L, STORED, FWD_WATCHED,
		"A JVM's metaspace in use (class metadata)." },
	[MW_M_JVM_OLD_AFTER_GC_BYTES] = {
		"memwatch_jvm_old_after_gc_bytes", GAUGE, "bytes", PROC_L, STORED, FWD_WATCHED,
		"A JVM's old generation after its last old-generation collection: its lowest in use between that collection and the next." },
	[MW_M_JVM_COLLECTIONS_TOTAL] = {
		"memwatch_jvm_collections_total", COUNTER, "1", JVM_KIND_L, STORED, FWD_WATCHED,
		"Garbage collections a JVM has run: kind young (collector 0) or old (the others)." },

	/* the exit_leaks collector: the last report per image, written again every 15 s;
	 * forwarded when a selector names them */
	[MW_M_EXIT_LEAK_BYTES] = {
		"memwatch_exit_leak_bytes", GAUGE, "bytes", PROCESS_L, STORED, FWD_NONE,
		"Bytes the last run of an image left leaked at exit (ntdll's heap leak check, LeakSanitizer)." },
	[MW_M_EXIT_LEAK_ALLOCATIONS] = {
		"memwatch_exit_leak_allocations", GAUGE, "1", PROCESS_L, STORED, FWD_NONE,
		"Allocations the last run of an image left leaked at exit." },
	[MW_M_EXIT_LEAK_REPORT_TIMESTAMP_SECONDS] = {
		"memwatch_exit_leak_report_timestamp_seconds", GAUGE, "seconds", PROCESS_L, STORED,
		FWD_NONE, "When the last run of an image with an exit leak report exited (Unix time)." },

	/* the performance counters: forwarded only when a selector names them */
	[MW_M_PERF_VALUE] = {
		"memwatch_perf_value", GAUGE, "varies", PERF_L, STORED, FWD_NONE,
		"An NT performance counter ([collector.perfcounters] counters), computed as perfmon does." },
	[MW_M_PERF_OBJECTS_SKIPPED] = {
		"memwatch_perf_objects_skipped", GAUGE, "1", QUERY_L, STORED, FWD_NONE,
		"Malformed objects skipped in the last performance data snapshot." },

	/* the daemon's health: SCRAPED ones from its live state on /metrics, never stored so
	 * never forwarded; stored ones forwarded by default */
	[MW_M_COLLECTOR_UP] = {
		"memwatch_collector_up", GAUGE, "1", COLLECTOR_L, SCRAPED, FWD_NONE,
		"1 when the collector is enabled, supported and its last run succeeded." },
	[MW_M_COLLECTOR_DURATION_SECONDS] = {
		"memwatch_collector_duration_seconds", GAUGE, "seconds", COLLECTOR_L, BOTH, FWD_ALWAYS,
		"Time the collector's last run took." },
	[MW_M_COLLECTOR_RUNS_TOTAL] = {
		"memwatch_collector_runs_total", COUNTER, "1", COLLECTOR_L, SCRAPED, FWD_NONE,
		"Runs of the collector." },
	[MW_M_COLLECTOR_SAMPLES_TOTAL] = {
		"memwatch_collector_samples_total", COUNTER, "1", COLLECTOR_L, SCRAPED, FWD_NONE,
		"Samples the collector produced." },
	[MW_M_COLLECTOR_ERRORS_TOTAL] = {
		"memwatch_collector_errors_total", COUNTER, "1", COLLECTOR_L, BOTH, FWD_ALWAYS,
		"Failed runs of the collector." },
	[MW_M_COLLECTOR_SKIPPED_TICKS_TOTAL] = {
		"memwatch_collector_skipped_ticks_total", COUNTER, "1", COLLECTOR_L, BOTH, FWD_ALWAYS,
		"Ticks skipped because the collector fell behind." },
	[MW_M_STORAGE_UP] = {
		"memwatch_storage_up", GAUGE, "1", NO_LABELS, SCRAPED, FWD_NONE,
		"1 when the database can be read." },
	[MW_M_STORAGE_LIVE_SERIES] = {
		"memwatch_storage_live_series", GAUGE, "1", NO_LABELS, SCRAPED, FWD_NONE,
		"Series with a value in the live window, exported on /metrics." },
	[MW_M_STORAGE_DB_BYTES] = {
		"memwatch_storage_db_bytes", GAUGE, "bytes", NO_LABELS, BOTH, FWD_ALWAYS,
		"Size of the database file and its write-ahead log." },
	[MW_M_STORAGE_QUERIES_TOTAL] = {
		"memwatch_storage_queries_total", COUNTER, "1", NO_LABELS, BOTH, FWD_ALWAYS,
		"Read queries run." },
	[MW_M_STORAGE_QUERY_SECONDS_TOTAL] = {
		"memwatch_storage_query_seconds_total", COUNTER, "seconds", NO_LABELS, BOTH, FWD_ALWAYS,
		"Time spent in read queries." },
	[MW_M_STORAGE_WRITER_UP] = {
		"memwatch_storage_writer_up", GAUGE, "1", NO_LABELS, SCRAPED, FWD_NONE,
		"1 when the writer's last flush committed." },
	[MW_M_STORAGE_POINTS_TOTAL] = {
		"memwatch_storage_points_total", COUNTER, "1", NO_LABELS, BOTH, FWD_ALWAYS,
		"Points committed to the database." },
	[MW_M_STORAGE_DROPPED_POINTS_TOTAL] = {
		"memwatch_storage_dropped_points_total", COUNTER, "1", NO_LABELS, BOTH, FWD_ALWAYS,
		"Points given up: queue full, or writes failing past the pending limit." },
	[MW_M_STORAGE_PENDING_POINTS] = {
		"memwatch_storage_pending_points", GAUGE, "1", NO_LABELS, SCRAPED, FWD_NONE,
		"Points accepted and not yet committed." },
	[MW_M_STORAGE_FLUSHES_TOTAL] = {
		"memwatch_storage_flushes_total", COUNTER, "1", NO_LABELS, SCRAPED, FWD_NONE,
		"Flushes attempted." },
	[MW_M_STORAGE_FAILED_FLUSHES_TOTAL] = {
		"memwatch_storage_failed_flushes_total", COUNTER, "1", NO_LABELS, SCRAPED, FWD_NONE,
		"Flushes the database refused (disk full, I/O error, locked)." },
	[MW_M_STORAGE_LAST_FLUSH_TIMESTAMP_SECONDS] = {
		"memwatch_storage_last_flush_timestamp_seconds", GAUGE, "seconds", NO_LABELS, SCRAPED, FWD_NONE,
		"When the last successful flush committed." },
	[MW_M_STORAGE_SERIES] = {
		"memwatch_storage_series", GAUGE, "1", NO_LABELS, STORED, FWD_ALWAYS,
		"Series the writer keeps in memory." },
	[MW_M_STORAGE_SERIES_EVICTED_TOTAL] = {
		"memwatch_storage_series_evicted_total", COUNTER, "1", NO_LABELS, STORED, FWD_ALWAYS,
		"Idle series the writer dropped from memory." },
	[MW_M_STORAGE_FLUSH_SECONDS] = {
		"memwatch_storage_flush_seconds", GAUGE, "seconds", NO_LABELS, STORED, FWD_ALWAYS,
		"Time the writer's last flush took." },
	[MW_M_CLOCK_STEP_SECONDS] = {
		"memwatch_clock_step_seconds", GAUGE, "seconds", NO_LABELS, STORED, FWD_NONE,
		"A step of the wall clock the daemon noticed (+ forward, - back), one point\n"
		"stamped when noticed: the leak judge does not count the hole a step\n"
		"forward leaves in every series as missing data." },
	[MW_M_STORAGE_SIZE_CUT_POINTS_TOTAL] = {
		"memwatch_storage_size_cut_points_total", COUNTER, "1", NO_LABELS, SCRAPED, FWD_NONE,
		"Raw points removed to hold [storage] max_size." },
	[MW_M_STORAGE_SIZE_CUT_CHUNKS_TOTAL] = {
		"memwatch_storage_size_cut_chunks_total", COUNTER, "1", NO_LABELS, SCRAPED, FWD_NONE,
		"Raw chunks removed to hold [storage] max_size." },
	[MW_M_STORAGE_SIZE_CUT_ROLLUP_ROWS_TOTAL] = {
		"memwatch_storage_size_cut_rollup_rows_total", COUNTER, "1", NO_LABELS, SCRAPED, FWD_NONE,
		"1-minute and 1-hour rollup rows removed to hold [storage] max_size." },
	[MW_M_STORAGE_SIZE_CUT_REGION_SNAPSHOTS_TOTAL] = {
		"memwatch_storage_size_cut_region_snapshots_total", COUNTER, "1", NO_LABELS, SCRAPED,
		FWD_NONE, "Region snapshots removed (whole keyframe groups) to hold [storage] max_size." },
	[MW_M_STORAGE_SIZE_CUT_SERIES_TOTAL] = {
		"memwatch_storage_size_cut_series_total", COUNTER, "1", NO_LABELS, SCRAPED, FWD_NONE,
		"Series removed from the catalogue after max_size took their last data." },
	[MW_M_STORAGE_SIZE_CUT_BYTES_TOTAL] = {
		"memwatch_storage_size_cut_bytes_total", COUNTER, "bytes", NO_LABELS, SCRAPED, FWD_NONE,
		"Database pages freed by the max_size cut, in bytes." },
	[MW_M_WEB_REQUESTS_TOTAL] = {
		"memwatch_web_requests_total", COUNTER, "1", CODE_L, SCRAPED, FWD_NONE,
		"HTTP requests answered, by status code." },
	[MW_M_WEB_SLOW_CLIENTS_CLOSED_TOTAL] = {
		"memwatch_web_slow_clients_closed_total", COUNTER, "1", NO_LABELS, SCRAPED, FWD_NONE,
		"Connections closed because their request head took longer than [web] header_timeout." },
	[MW_M_REMOTE_WRITE_UP] = {
		"memwatch_remote_write_up", GAUGE, "1", DEST_L, SCRAPED, FWD_NONE,
		"1 unless the last request to the destination failed (no answer, 5xx, 429, 401 ...)." },
	[MW_M_REMOTE_WRITE_LAG_SECONDS] = {
		"memwatch_remote_write_lag_seconds", GAUGE, "seconds", DEST_L, SCRAPED, FWD_NONE,
		"Age of the oldest stored point not yet accepted by the destination; 0 when caught up." },
	[MW_M_REMOTE_WRITE_POINTS_SENT_TOTAL] = {
		"memwatch_remote_write_points_sent_total", COUNTER, "1", DEST_L, SCRAPED, FWD_NONE,
		"Points the destination accepted." },
	[MW_M_REMOTE_WRITE_BATCHES_SENT_TOTAL] = {
		"memwatch_remote_write_batches_sent_total", COUNTER, "1", DEST_L, SCRAPED, FWD_NONE,
		"Requests the destination accepted." },
	[MW_M_REMOTE_WRITE_RETRIES_TOTAL] = {
		"memwatch_remote_write_retries_total", COUNTER, "1", DEST_L, SCRAPED, FWD_NONE,
		"Requests repeated after a failure (no answer, 5xx, 429, 401 ...)." },
	[MW_M_REMOTE_WRITE_BATCHES_SKIPPED_TOTAL] = {
		"memwatch_remote_write_batches_skipped_total", COUNTER, "1", DEST_L, SCRAPED, FWD_NONE,
		"Requests the destination refused for good (4xx: too old, out of order ...); not resent." },
	[MW_M_REMOTE_WRITE_POINTS_SKIPPED_TOTAL] = {
		"memwatch_remote_write_points_skipped_total", COUNTER, "1", DEST_L, SCRAPED, FWD_NONE,
		"Points in those requests." },
	[MW_M_REMOTE_WRITE_PENDING_SERIES] = {
		"memwatch_remote_write_pending_series", GAUGE, "1", DEST_L, SCRAPED, FWD_NONE,
		"Series with points waiting to be sent at the last scan." },
	[MW_M_REMOTE_WRITE_LAST_SENT_TIMESTAMP_SECONDS] = {
		"memwatch_remote_write_last_sent_timestamp_seconds", GAUGE, "seconds", DEST_L, SCRAPED, FWD_NONE,
		"When the destination last accepted a request (0: never)." },

	/* the background leak judgement (core/leak_gauges.c) */
	[MW_M_LEAK_VERDICT] = {
		"memwatch_leak_verdict", GAUGE, "1", PROCESS_L, BOTH, FWD_ALWAYS,
		"Leak verdict of the process group: 0 pass, 1 fail, 3 inconclusive." },
	[MW_M_LEAK_SLOPE_BYTES_PER_HOUR] = {
		"memwatch_leak_slope_bytes_per_hour", GAUGE, "bytes/hour", PROCESS_L, BOTH, FWD_ALWAYS,
		"Growth rate of the process group's floor (Theil-Sen), bytes per hour." },
	[MW_M_LEAK_GROWTH_BYTES] = {
		"memwatch_leak_growth_bytes", GAUGE, "bytes", PROCESS_L, BOTH, FWD_ALWAYS,
		"Growth since the onset, bytes." },
	[MW_M_LEAK_PROJECTED_BYTES] = {
		"memwatch_leak_projected_bytes", GAUGE, "bytes", PROCESS_L, BOTH, FWD_ALWAYS,
		"Growth projected over the [leak] horizon, bytes (0 unless failing)." },
	[MW_M_LEAK_COUNT_SLOPE_PER_HOUR] = {
		"memwatch_leak_count_slope_per_hour", GAUGE, "1/hour", PROCESS_UNIT_L, BOTH, FWD_ALWAYS,
		"Growth rate of a group decided by a count (label unit: handles, threads), per hour." },
	[MW_M_LEAK_ONSET_TIMESTAMP_SECONDS] = {
		"memwatch_leak_onset_timestamp_seconds", GAUGE, "seconds", PROCESS_L, BOTH, FWD_ALWAYS,
		"Since when the process group grows (absent when it does not)." },
	[MW_M_LEAK_KIND] = {
		"memwatch_leak_kind", GAUGE, "1", KIND_L, BOTH, FWD_ALWAYS,
		"1 for each failing group, with the kind of memory (or count) that grows." },
	[MW_M_LEAK_GROUPS] = {
		"memwatch_leak_groups", GAUGE, "1", VERDICT_L, BOTH, FWD_ALWAYS,
		"Process groups judged in the last background run, by verdict." },
	[MW_M_LEAK_CHECKS_TOTAL] = {
		"memwatch_leak_checks_total", COUNTER, "1", NO_LABELS, SCRAPED, FWD_NONE,
		"Background leak judgements run (for the memwatch_leak_* gauges)." },
	[MW_M_LEAK_CHECK_FAILURES_TOTAL] = {
		"memwatch_leak_check_failures_total", COUNTER, "1", NO_LABELS, SCRAPED, FWD_NONE,
		"Background leak judgements that could not read the database." },
	[MW_M_LEAK_CHECK_DURATION_SECONDS] = {
		"memwatch_leak_check_duration_seconds", GAUGE, "seconds", NO_LABELS, SCRAPED, FWD_NONE,
		"Time the last background leak judgement took." },
	[MW_M_LEAK_CHECK_INTERVAL_SECONDS] = {
		"memwatch_leak_check_interval_seconds", GAUGE, "seconds", NO_LABELS, SCRAPED, FWD_NONE,
		"Pause before the next background leak judgement ([leak] refresh, cpu_budget)." },
	[MW_M_UPTIME_SECONDS] = {
		"memwatch_uptime_seconds", GAUGE, "seconds", NO_LABELS, SCRAPED, FWD_NONE,
		"Seconds since the daemon started." },
	[MW_M_BUILD_INFO] = {
		"memwatch_build_info", GAUGE, "1", VERSION_L, SCRAPED, FWD_NONE,
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
