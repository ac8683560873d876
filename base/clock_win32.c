/* clock_win32.c - clock.h on Windows. */
#include "clock.h"

#include <windows.h>

/* FILETIME counts 100 ns since 1601-01-01; the Unix epoch is this many
 * of those later. */
#define EPOCH_DIFF_100NS 116444736000000000LL

int64_t mw_clock_wall_ms(void)
{
	FILETIME ft;
	ULARGE_INTEGER u;

	GetSystemTimePreciseAsFileTime(&ft);
	u.LowPart = ft.dwLowDateTime;
	u.HighPart = ft.dwHighDateTime;
	return ((int64_t)u.QuadPart - EPOCH_DIFF_100NS) / 10000;
}

int64_t mw_clock_mono_ns(void)
{
	static LARGE_INTEGER freq;
	LARGE_INTEGER now;

	if (!freq.QuadPart)
		QueryPerformanceFrequency(&freq);
	QueryPerformanceCounter(&now);
	/* Split to avoid overflow of now * 1e9. */
	return (int64_t)(now.QuadPart / freq.QuadPart) * 1000000000LL +
	       (int64_t)(now.QuadPart % freq.QuadPart) * 1000000000LL / freq.QuadPart;
}

int64_t mw_clock_elapsed_ns(void)
{
	/* ticks since boot, sleep included */
	return (int64_t)GetTickCount64() * 1000000;
}

void mw_sleep_ms(int64_t ms)
{
	if (ms > 0)
		Sleep((DWORD)ms);
}
