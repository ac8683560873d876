/* cpu_count_linux.c - cpu_count.h with sched_getaffinity (a container's or
 * taskset's limit counts), else sysconf. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "base/cpu_count.h"

#include <sched.h>
#include <unistd.h>

size_t mw_cpu_count(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (size_t)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (size_t)n : 1;
}
