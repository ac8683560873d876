/* system_linux.c - mw_system_read() from /proc/meminfo. */
#include "system.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int mw_system_read(struct mw_system_memory *out, struct mw_err *err)
{
	char buf[8192];
	FILE *f = fopen("/proc/meminfo", "r");
	size_t n;

	if (!f)
		return mw_error(err, "cannot open /proc/meminfo: %s", strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return mw_meminfo_parse(buf, out, err);
}
