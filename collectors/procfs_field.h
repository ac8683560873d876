/*
 * procfs_field.h - one "Key:   123 kB" line of a Linux /proc text file
 * (status, smaps_rollup, meminfo).  Pure: the parsers of the process
 * collector (process_procfs.c) and the system collector (system.c) use it
 * on text they were given, so it runs on every platform.
 */
#ifndef MW_COLLECTORS_PROCFS_FIELD_H
#define MW_COLLECTORS_PROCFS_FIELD_H

#include <stdbool.h>
#include <stdint.h>

/* The number on the first line that starts with key and a colon, into
 * *value, and whether "kB" follows it into *kb.  -1 (nothing set) when no
 * line has the key. */
int mw_procfs_field(const char *text, const char *key, uint64_t *value, bool *kb);

#endif
