/*
 * dblock.c - the words of the database file check (dblock.h), shared by
 * dblock_linux.c and dblock_win32.c so a deleted or replaced file reads
 * the same on every OS.
 */
#include "dblock.h"

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
