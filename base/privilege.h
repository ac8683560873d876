/*
 * privilege.h - ask for the rights that let us read other processes.
 *
 * Windows: enable SeDebugPrivilege in our token when the account holds it
 * (Administrators, LocalSystem), so the watched-process collectors can open
 * processes of other users and services.  Protected processes still refuse
 * and are reported as inaccessible.  Linux: nothing to do (reading another
 * user's /proc entries needs root or CAP_SYS_PTRACE, granted from outside).
 */
#ifndef MW_BASE_PRIVILEGE_H
#define MW_BASE_PRIVILEGE_H

#include "mwerr.h"

/* 0 when enabled (or nothing is needed), -1 with why otherwise; never
 * fatal: the daemon runs on with what it can read. */
int mw_enable_debug_privilege(struct mw_err *why);

#endif
