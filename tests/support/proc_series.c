/* proc_series.c - see proc_series.h. */
#include "proc_series.h"

#include <stddef.h>

const char *const mw_proc_series_metric[MW_PROC_SERIES] = {
	"memwatch_process_working_set_bytes", "memwatch_process_working_set_peak_bytes",
	"memwatch_process_private_bytes", "memwatch_process_virtual_bytes",
	"memwatch_process_threads", "memwatch_process_page_faults_total",
	"memwatch_process_resident_bytes", "memwatch_process_resident_bytes",
	"memwatch_process_resident_bytes", "memwatch_process_swap_bytes",
	"memwatch_process_pss_bytes", "memwatch_process_uss_bytes",
};

const char *const mw_proc_series_kind[MW_PROC_SERIES] = {
	NULL, NULL, NULL, NULL, NULL, NULL, "anon", "file", "shmem", NULL, NULL, NULL,
};
