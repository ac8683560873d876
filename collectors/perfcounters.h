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
 * Series memwatch_perf_value{object,counter,instance}.  The raw inputs of
 * each value are not kept (storage stored no detail record but the
 * working set's); `memwatchd perfdata dump` records a machine's blocks
 * and `perfdata decode` shows every value with its raw inputs.
 */
#ifndef MW_COLLECTORS_PERFCOUNTERS_H
#define MW_COLLECTORS_PERFCOUNTERS_H

#include "core/collector.h"

extern const struct mw_collector mw_collector_perfcounters;

#endif
