/*
 * private_files.h - what memwatch creates is readable by its owner only.
 *
 * The database holds what /proc hides from other users (their processes'
 * mapped-file paths, command names, sizes), so the daemon, the import and
 * every other command create files, the SQLite WAL/SHM, the lock and the
 * log as 0600 (directories 0700).  Called first thing in main() (app/).
 *   Linux:   umask(077); files that exist keep their mode (SQLite gives
 *            the WAL and SHM the mode and owner of the database file, so a
 *            database created beforehand with a group keeps it).
 *   Windows: nothing here: files inherit the folder's ACL; the service's
 *            install limits the data folder (app/service_win32.c) with
 *            mw_folder_private.
 */
#ifndef MW_BASE_PRIVATE_FILES_H
#define MW_BASE_PRIVATE_FILES_H

#include "mwerr.h"

void mw_files_private(void);

/* Only the administrators and SYSTEM (the service's account) may open the
 * folder path and what it holds, now and what is created in it later: a
 * protected ACL (nothing inherited from above), inherited by its files.
 * Linux: mode 0700.  -1 with a message naming the folder. */
int mw_folder_private(const char *path, struct mw_err *err);

#endif
