/* self_pid_win32.c - self_pid.h with GetCurrentProcessId. */
#include "base/self_pid.h"

#include <windows.h>

uint32_t mw_self_pid(void)
{
	return (uint32_t)GetCurrentProcessId();
}
