/* proc_start_linux.c - see proc_start.h. */
#include "proc_start.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "process.h"

static int64_t boot_ms;
static pthread_once_t boot_once = PTHREAD_ONCE_INIT;

static void read_boot(void)
{
	FILE *f = fopen("/proc/stat", "r");
	char line[256];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "btime ", 6))
			boot_ms = strtoll(line + 6, NULL, 10) * 1000;
	fclose(f);
}

int64_t mw_proc_boot_ms(void)
{
	pthread_once(&boot_once, read_boot);
	return boot_ms;
}

int mw_proc_start_ms(uint32_t pid, int64_t *start_ms)
{
	char path[64], buf[1024];
	struct mw_process_info info;
	struct mw_err err;
	uint64_t ticks;
	long hz = sysconf(_SC_CLK_TCK);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || hz <= 0 || !mw_proc_boot_ms())
		return -1;
	buf[n] = '\0';
	memset(&info, 0, sizeof(info));
	if (mw_proc_parse_stat(buf, &info, &ticks, &err))
		return -1;
	*start_ms = mw_proc_boot_ms() + (int64_t)(ticks * 1000 / (uint64_t)hz);
	return 0;
}
