/* test_mapped_name_win32.c - the real calls behind mapped_name.h (under
 * Wine on this machine): the mount manager's table names the system
 * drive, a loaded DLL's mapped name comes out as a DOS path, and a file
 * whose path is longer than MAX_PATH, mapped into this process, is named
 * whole (before: cut at 259 characters and stored as if whole). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <windows.h>

#include "collectors/mapped_name.h"
#include "tests/support/test_main.h"

static void mount_table_has_system_drive(void **state)
{
	struct mw_mount_table t = { 0 };
	bool c = false;

	(void)state;
	mw_mount_table_read(&t);
	for (size_t i = 0; i < t.n; i++) {
		print_message("mount %s -> %s\n", t.m[i].device, t.m[i].root);
		if (!strcmp(t.m[i].root, "C:\\") && !strncmp(t.m[i].device, "\\Device\\", 8))
			c = true;
	}
	assert_true(c);
	mw_mount_table_release(&t);
}

static void dll_name_is_dos_path(void **state)
{
	struct mw_mount_table t = { 0 };
	char *name;

	(void)state;
	mw_mount_table_read(&t);
	name = mw_mapped_file_name(GetCurrentProcess(),
				   (uint64_t)(uintptr_t)GetModuleHandleW(L"kernel32.dll"), &t);
	assert_non_null(name);
	print_message("kernel32: %s\n", name);
	assert_int_equal(_strnicmp(name, "C:\\windows\\system32\\kernel32.dll", 34), 0);
	free(name);
	mw_mount_table_release(&t);
}

/* A directory chain under the temp folder making a path of about 400
 * characters, a file in it mapped into this process. */
static void long_path_named_whole(void **state)
{
	WCHAR tmp[MAX_PATH], path[1024], seg[] = L"\\a-directory-name-of-some-length-0123456789";
	char expect[1024], *name;
	HANDLE f, m;
	void *view;
	struct mw_mount_table t = { 0 };
	int depth;

	(void)state;
	GetTempPathW(MAX_PATH, tmp);
	swprintf(path, 1024, L"\\\\?\\%lsmw-long-%lu", tmp, GetCurrentProcessId());
	for (size_t i = wcslen(path); i > 4 && path[i - 1] == L'\\'; i--)
		path[i - 1] = 0;
	CreateDirectoryW(path, NULL);
	for (depth = 0; depth < 9; depth++) {
		wcscat(path, seg);
		assert_true(CreateDirectoryW(path, NULL) || GetLastError() == ERROR_ALREADY_EXISTS);
	}
	wcscat(path, L"\\mapped.bin");
	assert_true(wcslen(path) > 400);
	f = CreateFileW(path, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
	assert_true(f != INVALID_HANDLE_VALUE);
	{
		char data[4096] = { 1 };
		DWORD w;

		assert_true(WriteFile(f, data, sizeof(data), &w, NULL));
	}
	m = CreateFileMappingW(f, NULL, PAGE_READONLY, 0, 0, NULL);
	assert_non_null(m);
	view = MapViewOfFile(m, FILE_MAP_READ, 0, 0, 0);
	assert_non_null(view);

	mw_mount_table_read(&t);
	name = mw_mapped_file_name(GetCurrentProcess(), (uint64_t)(uintptr_t)view, &t);
	assert_non_null(name);
	print_message("mapped (%zu bytes): %s\n", strlen(name), name);
	WideCharToMultiByte(CP_UTF8, 0, path + 4, -1, expect, sizeof(expect), NULL, NULL);
	assert_true(strlen(name) > MAX_PATH);
	assert_null(strstr(name, MW_NAME_TRUNCATED_MARK));
	assert_int_equal(_stricmp(name, expect), 0);
	free(name);
	mw_mount_table_release(&t);

	UnmapViewOfFile(view);
	CloseHandle(m);
	CloseHandle(f);
	DeleteFileW(path);
	for (depth = 9; depth >= 0; depth--) {
		*wcsrchr(path, L'\\') = 0;
		RemoveDirectoryW(path);
	}
}

MW_TEST_MAIN(
	cmocka_unit_test(mount_table_has_system_drive),
	cmocka_unit_test(dll_name_is_dos_path),
	cmocka_unit_test(long_path_named_whole),
)
