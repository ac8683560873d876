/* cpu_count_win32.c - cpu_count.h with GetSystemInfo (the processors of
 * the calling thread's group). */
#include "base/cpu_count.h"

#include <windows.h>

size_t mw_cpu_count(void)
{
	SYSTEM_INFO si;

	GetSystemInfo(&si);
	return si.dwNumberOfProcessors ? (size_t)si.dwNumberOfProcessors : 1;
}
