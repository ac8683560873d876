/*
 * proc_start.h - Linux only: when a process started, as wall-clock ms
 * (the process collector's `started` label x 1000): /proc/PID/stat's
 * starttime, in clock ticks since boot, plus the boot time (/proc/stat
 * btime).  For the collectors that name a process by pid and start
 * outside the process collector's own reader (jvm_linux.c,
 * exit_leaks_linux.c).  Nothing on Windows includes it.
 */
#ifndef MW_COLLECTORS_PROC_START_H
#define MW_COLLECTORS_PROC_START_H

#include <stdint.h>

/* The boot time in wall-clock ms, read once (it does not change); 0 when
 * /proc/stat cannot be read. */
int64_t mw_proc_boot_ms(void);
/* The pid's start in wall-clock ms.  0, or -1 when it is gone. */
int mw_proc_start_ms(uint32_t pid, int64_t *start_ms);

#endif
