/* thread_name_win32.c - thread_name.h with SetThreadDescription, found in
 * kernel32 at run time: MinGW-w64 declares it, but a binary importing it
 * would not start on Windows before 10 1607. */
#include "base/thread_name.h"

#include <windows.h>
#include <string.h>

typedef HRESULT(WINAPI *set_desc_fn)(HANDLE, PCWSTR);
typedef HRESULT(WINAPI *get_desc_fn)(HANDLE, PWSTR *);

static FARPROC kernel32_proc(const char *name)
{
	HMODULE k32 = GetModuleHandleW(L"kernel32.dll");

	return k32 ? GetProcAddress(k32, name) : NULL;
}

void mw_thread_set_name(const char *name)
{
	set_desc_fn set_desc;
	WCHAR wide[MW_THREAD_NAME_MAX + 1];

	set_desc = (set_desc_fn)(void (*)(void))kernel32_proc("SetThreadDescription");
	if (!set_desc)
		return;
	/* our names are ASCII: cut like Linux's, so both OSes show the same */
	if (!MultiByteToWideChar(CP_UTF8, 0, name, (int)strnlen(name, MW_THREAD_NAME_MAX),
				 wide, MW_THREAD_NAME_MAX) && name[0])
		return;
	wide[strnlen(name, MW_THREAD_NAME_MAX)] = L'\0';
	(void)set_desc(GetCurrentThread(), wide);
}

int mw_thread_get_name(char *buf, size_t size)
{
	get_desc_fn get_desc;
	PWSTR wide = NULL;
	int ok;

	get_desc = (get_desc_fn)(void (*)(void))kernel32_proc("GetThreadDescription");
	if (!size || !get_desc || FAILED(get_desc(GetCurrentThread(), &wide)) || !wide)
		return -1;
	ok = WideCharToMultiByte(CP_UTF8, 0, wide, -1, buf, (int)size, NULL, NULL) > 0;
	LocalFree(wide);
	return ok ? 0 : -1;
}
