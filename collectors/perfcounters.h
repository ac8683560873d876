/*
 * perfcounters.h - the perfcounters collector: configured NT performance
 * counter paths read from HKEY_PERFORMANCE_DATA with only the objects
 * they need, computed as perfmon does (perfdata.h).
 *
 * Options ([collector.perfcounters]):
 *   counters   comma-separated paths, default
 *              \Memory\Available Bytes,\Process(*)\Private Bytes,\Paging File(_Total)\% Usage
 *   close_key  true: RegCloseKey(HKEY_PERFORMANCE_DATA) after each sample
 *              (unloads the providers); default false
 *   query      the object list to ask for instead of the resolved one
 *              (e.g. "Global"); default empty
 * A malformed object in the answer is left out and counted (the mode
 * says which, memwatch_perf_objects_skipped{query} counts them); objects
 * that instances name as parents (Process for Thread) are added to the
 * query so "\Thread(notepad/0)\..." paths match.
 * Series memwatch_perf_value{object,counter,instance}; the inputs of every
 * value (type, raw A/B, time base) go in a "perfcounters.raw" detail
 * record per tick so values can be recomputed.
 */
#ifndef MW_COLLECTORS_PERFCOUNTERS_H
#define MW_COLLECTORS_PERFCOUNTERS_H

#include "core/collector.h"

extern const struct mw_collector mw_collector_perfcounters;

#endif
