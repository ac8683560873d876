/*
 * system.h - the system collector: machine-wide memory figures.
 *
 * Portable logic in system.c; the OS read in system_win32.c
 * (GetPerformanceInfo, falling back to GlobalMemoryStatusEx) and
 * system_linux.c (/proc/meminfo).
 */
#ifndef MW_COLLECTORS_SYSTEM_H
#define MW_COLLECTORS_SYSTEM_H

#include <stddef.h>
#include <stdint.h>
#include "base/mwerr.h"

struct mw_system_memory {
	uint64_t physical_bytes;	/* installed RAM the OS manages */
	uint64_t available_bytes;	/* can be given to processes without paging */
	uint64_t commit_bytes;		/* committed virtual memory (Committed_AS) */
	uint64_t commit_limit_bytes;	/* most that can be committed (CommitLimit) */
};

/* Platform: read the current figures.  -1 and err on failure. */
int mw_system_read(struct mw_system_memory *out, struct mw_err *err);

/* Pure: parse /proc/meminfo text.  -1 naming the missing field. */
int mw_meminfo_parse(const char *text, struct mw_system_memory *out, struct mw_err *err);

#endif
