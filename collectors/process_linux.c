/*
 * process_linux.c - the process table from /proc.
 *
 * A process can vanish between readdir() and open(): ENOENT/ESRCH skips
 * it silently; EACCES counts it as inaccessible.  Open fds are counted
 * only where /proc/PID/fd is readable (own user, or root).
 */
#include "process.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/xalloc.h"

struct mw_process_reader {
	int64_t boot_ms;	/* wall-clock boot time, from /proc/stat btime */
	long ticks_per_s;
};

/* Read a small /proc file whole.  Returns bytes read or -1 (errno set). */
static ssize_t read_file(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, total = 0;

	if (fd < 0)
		return -1;
	while ((size_t)total < size - 1) {
		n = read(fd, buf + total, size - 1 - (size_t)total);
		if (n < 0) {
			int e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		total += n;
	}
	close(fd);
	buf[total] = '\0';
	return total;
}

struct mw_process_reader *mw_process_reader_new(void)
{
	struct mw_process_reader *r = mw_xcalloc(1, sizeof(*r));
	char buf[16384];
	const char *bt;

	r->ticks_per_s = sysconf(_SC_CLK_TCK);
	if (r->ticks_per_s <= 0)
		r->ticks_per_s = 100;
	if (read_file("/proc/stat", buf, sizeof(buf)) > 0 && (bt = strstr(buf, "\nbtime ")))
		r->boot_ms = strtoll(bt + 7, NULL, 10) * 1000;
	return r;
}

void mw_process_reader_free(struct mw_process_reader *r)
{
	free(r);
}

static uint32_t count_fds(const char *pid, bool *ok)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	uint32_t n = 0;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	d = opendir(path);
	*ok = d != NULL;
	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

int mw_process_table_read(struct mw_process_reader *r, struct mw_process_table *t,
			  struct mw_err *err)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;
	char path[64], buf[8192];

	if (!proc)
		return mw_error(err, "cannot open /proc: %s", strerror(errno));
	t->nprocs = 0;
	t->inaccessible = 0;
	while ((de = readdir(proc))) {
		struct mw_process_info *p;
		uint64_t start_ticks = 0;
		struct mw_err perr;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if (read_file(path, buf, sizeof(buf)) < 0) {
			if (errno == EACCES || errno == EPERM)
				t->inaccessible++;
			continue;	/* gone already: not an error */
		}
		p = mw_process_table_add(t);
		if (mw_proc_parse_stat(buf, p, &start_ticks, &perr)) {
			t->nprocs--;
			t->inaccessible++;
			continue;
		}
		p->start_ms = r->boot_ms + (int64_t)(start_ticks * 1000 / (uint64_t)r->ticks_per_s);
		snprintf(path, sizeof(path), "/proc/%s/status", de->d_name);
		if (read_file(path, buf, sizeof(buf)) < 0 || mw_proc_parse_status(buf, p, &perr)) {
			t->nprocs--;	/* exited between the two reads */
			continue;
		}
		p->handles = count_fds(de->d_name, &p->has_handles);
	}
	closedir(proc);
	return 0;
}
