/*
 * process_find.h - a process collector test's look-up of one process in
 * a table it read (the Linux /proc tests and the Wine NT one).
 */
#ifndef MW_TESTS_SUPPORT_PROCESS_FIND_H
#define MW_TESTS_SUPPORT_PROCESS_FIND_H

#include <stdint.h>

#include "collectors/process.h"

/* The row of pid in t, or NULL when t has none. */
const struct mw_process_info *mw_test_process_find(const struct mw_process_table *t,
						   uint32_t pid);

#endif
