/*
 * cpu_count.h - how many processors this process may run on, from the OS
 * (cpu_count_linux.c: its affinity mask; cpu_count_win32.c: the system's
 * active processors): how many threads a parallel judgement may use.
 *
 * Owned by base/ (the compat layer).
 */
#ifndef MW_BASE_CPU_COUNT_H
#define MW_BASE_CPU_COUNT_H

#include <stddef.h>

/* At least 1. */
size_t mw_cpu_count(void);

#endif
