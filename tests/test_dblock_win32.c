/* test_dblock_win32.c - the database lock on Windows (storage/dblock_win32.c,
 * under Wine): a lock that cannot be taken says why - held by another
 * process, a folder at the lock's path, and (from the system's codes: Wine
 * running as root lets any file be written, and answers a delete-pending
 * file with a sharing violation) a lock file being deleted, a read-only
 * lock file or a folder this account cannot write - instead of calling
 * every access denied "another memwatchd". */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <windows.h>
#include <cmocka.h>

#include "storage/dblock.h"
#include "storage/dblock_win32.h"
#include "tests/support/test_main.h"

static char dir[MAX_PATH], db[MAX_PATH + 32], lock[MAX_PATH + 40];
static wchar_t wlock[MAX_PATH + 40];

/* whatever a test (or an earlier, failed run) left at the lock's path */
static void clear_lock_path(void)
{
	SetFileAttributesW(wlock, FILE_ATTRIBUTE_NORMAL);
	DeleteFileW(wlock);
	RemoveDirectoryW(wlock);
}

static int fresh_paths(void **state)
{
	char tmp[MAX_PATH];

	(void)state;
	GetTempPathA(sizeof(tmp), tmp);
	snprintf(dir, sizeof(dir), "%smw-dblock-%lu", tmp, (unsigned long)GetCurrentProcessId());
	CreateDirectoryA(dir, NULL);
	snprintf(db, sizeof(db), "%s\\m.db", dir);
	snprintf(lock, sizeof(lock), "%s.lock", db);
	MultiByteToWideChar(CP_UTF8, 0, lock, -1, wlock, MAX_PATH + 40);
	clear_lock_path();
	return 0;
}

static int remove_paths(void **state)
{
	(void)state;
	clear_lock_path();
	RemoveDirectoryA(dir);
	return 0;
}

static void expect_refused(const char *says)
{
	struct mw_dblock *l = NULL;
	struct mw_err err = { "" };

	assert_int_equal(mw_dblock_acquire(&l, db, &err), -1);
	assert_null(l);
	print_message("%s\n", err.msg);
	if (!strstr(err.msg, says))
		fail_msg("message: %s", err.msg);
}

static void held_by_another(void **state)
{
	struct mw_dblock *first = NULL;
	struct mw_err err = { "" };

	(void)state;
	assert_int_equal(mw_dblock_acquire(&first, db, &err), 0);
	expect_refused("is in use by another memwatchd");
	mw_dblock_release(first);
	/* released: the lock is free again */
	assert_int_equal(mw_dblock_acquire(&first, db, &err), 0);
	mw_dblock_release(first);
}

/* What the system's codes mean. */
static void failures_told_apart(void **state)
{
	const long denied = (long)0xC0000022L, pending = (long)0xC0000056L;

	(void)state;
	assert_int_equal(mw_dblock_win32_failure(ERROR_SHARING_VIOLATION, 0, FILE_ATTRIBUTE_NORMAL),
			 MW_DBLOCK_HELD);
	assert_int_equal(mw_dblock_win32_failure(ERROR_ACCESS_DENIED, pending,
						 FILE_ATTRIBUTE_NORMAL), MW_DBLOCK_DELETE_PENDING);
	assert_int_equal(mw_dblock_win32_failure(ERROR_DELETE_PENDING, 0, INVALID_FILE_ATTRIBUTES),
			 MW_DBLOCK_DELETE_PENDING);
	assert_int_equal(mw_dblock_win32_failure(ERROR_ACCESS_DENIED, denied,
						 FILE_ATTRIBUTE_READONLY | FILE_ATTRIBUTE_ARCHIVE),
			 MW_DBLOCK_READ_ONLY);
	/* no lock file yet: the folder refused its creation */
	assert_int_equal(mw_dblock_win32_failure(ERROR_ACCESS_DENIED, denied,
						 INVALID_FILE_ATTRIBUTES), MW_DBLOCK_DENIED);
	assert_int_equal(mw_dblock_win32_failure(ERROR_ACCESS_DENIED, denied,
						 FILE_ATTRIBUTE_NORMAL), MW_DBLOCK_DENIED);
	/* a folder named like the lock file is no read-only file */
	assert_int_equal(mw_dblock_win32_failure(ERROR_ACCESS_DENIED, denied,
						 FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_READONLY),
			 MW_DBLOCK_FOLDER);
	assert_int_equal(mw_dblock_win32_failure(ERROR_PATH_NOT_FOUND, 0, INVALID_FILE_ATTRIBUTES),
			 MW_DBLOCK_OTHER);
}

/* Each failure's message names what is wrong and what to do. */
static void messages(void **state)
{
	struct mw_err err = { "" };

	(void)state;
	mw_dblock_lock_error(&err, MW_DBLOCK_DENIED, "C:\\ro\\m.db", "C:\\ro\\m.db.lock", "x");
	print_message("%s\n", err.msg);
	assert_non_null(strstr(err.msg, "access denied creating the lock file 'C:\\ro\\m.db.lock'"));
	assert_non_null(strstr(err.msg, "cannot write in 'C:\\ro'"));
	assert_null(strstr(err.msg, "another memwatchd"));
	mw_dblock_lock_error(&err, MW_DBLOCK_READ_ONLY, "m.db", "m.db.lock", "x");
	assert_non_null(strstr(err.msg, "'m.db.lock' of database 'm.db' is marked read-only"));
	assert_null(strstr(err.msg, "another memwatchd"));
	mw_dblock_lock_error(&err, MW_DBLOCK_OTHER, "m.db", "m.db.lock", "The device is not ready");
	assert_non_null(strstr(err.msg, "cannot create the lock file 'm.db.lock' of database 'm.db': "
					"The device is not ready"));
}

/* A folder where the lock file should be: access denied, which was
 * reported as "in use by another memwatchd". */
static void folder_at_the_lock_path(void **state)
{
	(void)state;
	assert_true(CreateDirectoryW(wlock, NULL));
	expect_refused("is a folder: remove or rename that folder");
}

MW_TEST_MAIN(cmocka_unit_test_setup_teardown(held_by_another, fresh_paths, remove_paths),
	     cmocka_unit_test(failures_told_apart), cmocka_unit_test(messages),
	     cmocka_unit_test_setup_teardown(folder_at_the_lock_path, fresh_paths, remove_paths))
