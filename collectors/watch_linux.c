/* watch_linux.c - watched processes from /proc/PID/comm. */
#include "watch.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint32_t mw_self_pid(void)
{
	return (uint32_t)getpid();
}

int mw_watch_targets(const struct mw_watch *w, struct mw_targets *out, struct mw_err *err)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	uint32_t self = mw_self_pid();

	out->n = 0;
	if (!d)
		return mw_error(err, "cannot open /proc: %s", strerror(errno));
	while ((e = readdir(d))) {
		char path[64], name[128] = "";
		unsigned long pid;
		char *end;
		FILE *f;

		pid = strtoul(e->d_name, &end, 10);
		if (*end || end == e->d_name)
			continue;
		snprintf(path, sizeof(path), "/proc/%lu/comm", pid);
		f = fopen(path, "r");
		if (f) {	/* gone already: matched by pid only */
			if (fgets(name, sizeof(name), f))
				name[strcspn(name, "\n")] = '\0';
			fclose(f);
		}
		if (mw_watch_match(w, (uint32_t)pid, name, self))
			mw_targets_add(out, (uint32_t)pid, name, pid == self);
	}
	closedir(d);
	return 0;
}
