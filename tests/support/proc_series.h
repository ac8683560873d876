/*
 * proc_series.h - the process collector's series on Linux
 * (collectors/process.c) as the benches write them (bench_storage's live
 * hour and week, bench_page's crowd): metric names, and the kind label of
 * the three memwatch_process_resident_bytes series (NULL for the others).
 * Every series also has the labels pid, process and started.
 */
#ifndef MW_TESTS_SUPPORT_PROC_SERIES_H
#define MW_TESTS_SUPPORT_PROC_SERIES_H

#define MW_PROC_SERIES 12

extern const char *const mw_proc_series_metric[MW_PROC_SERIES];
extern const char *const mw_proc_series_kind[MW_PROC_SERIES];

#endif
