/* self_pid_linux.c - self_pid.h with getpid. */
#include "base/self_pid.h"

#include <unistd.h>

uint32_t mw_self_pid(void)
{
	return (uint32_t)getpid();
}
