/*
 * self_pid.h - the daemon's own process id, from the OS (self_pid_linux.c,
 * self_pid_win32.c): the watch list's "self" and the collectors' own row.
 *
 * Owned by base/ (the compat layer).
 */
#ifndef MW_BASE_SELF_PID_H
#define MW_BASE_SELF_PID_H

#include <stdint.h>

uint32_t mw_self_pid(void);

#endif
