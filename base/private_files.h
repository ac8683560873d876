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
 *            install limits the data folder (app/service_win32.c).
 */
#ifndef MW_BASE_PRIVATE_FILES_H
#define MW_BASE_PRIVATE_FILES_H

void mw_files_private(void);

#endif
