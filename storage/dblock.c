/*
 * dblock.c - the words of the database file check (dblock.h), shared by
 * dblock_linux.c and dblock_win32.c so a deleted or replaced file reads
 * the same on every OS, and of a lock that could not be taken (a read-only
 * folder is not "another memwatchd").
 */
#include "dblock.h"

#include <stdio.h>
#include <string.h>

/* The folder of path, for "cannot write in FOLDER". */
static void folder_of(const char *path, char *out, size_t size)
{
	const char *slash = strrchr(path, '/'), *back = strrchr(path, '\\');

	if (back && (!slash || back > slash))
		slash = back;
	if (!slash)
		snprintf(out, size, ".");
	else
		snprintf(out, size, "%.*s", (int)(slash - path), path);
}

int mw_dblock_lock_error(struct mw_err *err, enum mw_dblock_failure why, const char *db_path,
			 const char *lock_path, const char *os_text)
{
	/* each with the lock file, the database, then the folder or the
	 * system's words where it says them */
	static const char *const says[] = {
		[MW_DBLOCK_HELD] = "the lock file '%s' is open in another process: database '%s' "
				   "is in use by another memwatchd; stop it or give this one "
				   "another --db",
		[MW_DBLOCK_DELETE_PENDING] = "the lock file '%s' of database '%s' is being deleted "
					     "(a memwatchd that is stopping, or a program still "
					     "holding it open): start again once it is gone",
		[MW_DBLOCK_READ_ONLY] = "the lock file '%s' of database '%s' is marked read-only: "
					"delete it (no memwatchd holds it: one would have it "
					"open) or clear its read-only attribute",
		[MW_DBLOCK_FOLDER] = "the lock file '%s' of database '%s' is a folder: remove or "
				     "rename that folder",
		[MW_DBLOCK_DENIED] = "access denied creating the lock file '%s' of database '%s': "
				     "this account cannot write in '%s' (a read-only folder, or no "
				     "permission); give --db a folder it can write in, or grant it "
				     "write access",
		[MW_DBLOCK_OTHER] = "cannot create the lock file '%s' of database '%s': %s",
	};
	char third[1024];

	if ((unsigned)why >= MW_ARRAY_SIZE(says) || !says[why])
		why = MW_DBLOCK_OTHER;
	if (why == MW_DBLOCK_DENIED)
		folder_of(lock_path, third, sizeof(third));
	else
		snprintf(third, sizeof(third), "%s", os_text && *os_text ? os_text : "unknown error");
	return mw_error(err, says[why], lock_path, db_path, third);
}

int mw_dblock_deleted_error(struct mw_err *err, const char *db_path)
{
	return mw_error(err, "the database file '%s' was deleted while memwatchd had it open: "
			"nothing more can be stored; restart memwatchd to start a new database "
			"there", db_path);
}

int mw_dblock_replaced_error(struct mw_err *err, const char *db_path)
{
	return mw_error(err, "the database file '%s' was replaced by another file while "
			"memwatchd had it open: nothing more can be stored; restart memwatchd "
			"to use the new file", db_path);
}
