/* watch_linux.c - watched processes from /proc, by their full image name
 * (mw_proc_image_name), not the 15-character comm. */
#include "watch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char deleted_suffix[] = " (deleted)";

/* Copy the base name of s[0..n) into buf; false when it is empty. */
static bool put_base(const char *s, size_t n, char *buf, size_t size)
{
	size_t b = n, len;

	while (b > 0 && s[b - 1] != '/')
		b--;
	len = n - b;
	if (!len || !size)
		return false;
	if (len >= size)
		len = size - 1;
	memcpy(buf, s + b, len);
	buf[len] = '\0';
	return true;
}

int mw_proc_image_name_from(const char *exe, const char *cmdline, size_t cmdline_len,
			    const char *comm, char *buf, size_t size)
{
	if (exe) {
		size_t n = strlen(exe), d = sizeof(deleted_suffix) - 1;

		/* the file was replaced or removed: the name is still the image's */
		if (n > d && !strcmp(exe + n - d, deleted_suffix))
			n -= d;
		if (put_base(exe, n, buf, size))
			return 0;
	}
	if (cmdline && cmdline_len) {
		size_t n = strnlen(cmdline, cmdline_len);	/* argv[0] */
		size_t clen = comm ? strcspn(comm, "\n") : 0;

		/* argv[0] only when it agrees with comm (the kernel's first 15
		 * bytes of the name): a rewritten title such as "sshd:
		 * alice@pts/0" would otherwise name the process "0".  The same
		 * rule as the process collector's label (process_linux.c). */
		if (put_base(cmdline, n, buf, size) && (!clen || !strncmp(buf, comm, clen)))
			return 0;
	}
	if (comm) {
		size_t n = strcspn(comm, "\n");

		if (n && size) {
			if (n >= size)
				n = size - 1;
			memcpy(buf, comm, n);
			buf[n] = '\0';
			return 0;
		}
	}
	return -1;
}

/* Read at most size-1 bytes of path; the count, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -1;
	while ((size_t)got + 1 < size) {
		n = read(fd, buf + got, size - 1 - (size_t)got);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		got += n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

int mw_proc_image_name_in(const char *proc, uint32_t pid, char *buf, size_t size)
{
	char path[4096 + 64], exe[4096], cmd[4096], comm[64];
	ssize_t n;
	const char *e = NULL, *c = NULL, *m = NULL;
	size_t clen = 0;

	if (size)
		buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%" PRIu32 "/exe", proc, pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		e = exe;
	}
	if (!e || !*mw_path_basename(e)) {
		/* argv[0]: the first 4 KB hold it (a longer one is cut) */
		snprintf(path, sizeof(path), "%s/%" PRIu32 "/cmdline", proc, pid);
		n = read_small(path, cmd, sizeof(cmd));
		if (n > 0) {
			c = cmd;
			clen = (size_t)n;
		}
		if (!c || !cmd[0]) {
			snprintf(path, sizeof(path), "%s/%" PRIu32 "/comm", proc, pid);
			if (read_small(path, comm, sizeof(comm)) > 0)
				m = comm;
		}
	}
	return mw_proc_image_name_from(e, c, clen, m, buf, size);
}

int mw_proc_image_name(uint32_t pid, char *buf, size_t size)
{
	return mw_proc_image_name_in("/proc", pid, buf, size);
}

int mw_watch_targets(const struct mw_watch *w, struct mw_targets *out, struct mw_err *err)
{
	DIR *d;
	struct dirent *e;
	uint32_t self = mw_self_pid();
	bool by_name = mw_watch_by_name(w);

	out->n = 0;
	/* an empty list selects nothing: no /proc walk (it read every
	 * process's exe link every tick: 2.5 % of the daemon's CPU at 1,000
	 * processes with nothing watched) */
	if (!w->n)
		return 0;
	d = opendir("/proc");
	if (!d)
		return mw_error(err, "cannot open /proc: %s", strerror(errno));
	while ((e = readdir(d))) {
		char name[256];
		unsigned long pid;
		char *end;

		pid = strtoul(e->d_name, &end, 10);
		if (*end || end == e->d_name || pid > UINT32_MAX)
			continue;
		/* pids and self only: the name is read for the selected ones */
		if (!by_name && !mw_watch_match(w, (uint32_t)pid, "", self))
			continue;
		/* gone already: matched by pid only */
		if (mw_proc_image_name((uint32_t)pid, name, sizeof(name)))
			name[0] = '\0';
		if (mw_watch_match(w, (uint32_t)pid, name, self))
			mw_targets_add(out, (uint32_t)pid, name, pid == self);
	}
	closedir(d);
	return 0;
}
