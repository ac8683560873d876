/*
 * dblock_win32.h - Windows only: why creating the database's lock file
 * failed, from what the system said (dblock_win32.c; pure, tested in
 * tests/test_dblock_win32.c, since Wine running as root cannot make a
 * read-only file or folder refuse it).
 */
#ifndef MW_STORAGE_DBLOCK_CAUSE_H
#define MW_STORAGE_DBLOCK_CAUSE_H

#include "dblock.h"

/* win32_error: GetLastError() after CreateFileW; nt_status: the NT status
 * behind it (RtlGetLastNtStatus: ERROR_ACCESS_DENIED is also what a
 * delete-pending file gives); attributes: GetFileAttributesW of the lock
 * path (INVALID_FILE_ATTRIBUTES when there is none). */
enum mw_dblock_failure mw_dblock_win32_failure(unsigned long win32_error, long nt_status,
					       unsigned long attributes);

#endif
