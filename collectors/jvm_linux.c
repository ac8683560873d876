/*
 * jvm_linux.c - where HotSpot keeps its performance-data files on Linux
 * (/tmp/hsperfdata_USER/PID: the JVM takes /tmp itself, not $TMPDIR) and
 * reading one.  /tmp is anybody's: a file is read only when it is a
 * regular file (no symbolic link followed, no FIFO waited on) owned by
 * the user its process runs as, and its process is alive.
 *
 * A JVM in a container with a /tmp of its own is not found (its file is
 * under /proc/PID/root/tmp, named by its pid in that namespace).
 */
#include "jvm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/watch.h"
#include "proc_start.h"

#define TMP "/tmp"

void mw_jvm_find_dirs(struct mw_jvm_dirs *out)
{
	DIR *d = opendir(TMP);
	struct dirent *e;

	out->n = 0;
	if (!d)
		return;
	while ((e = readdir(d)) && out->n < MW_JVM_MAX_DIRS) {
		char *path = out->dir[out->n];
		struct stat st;
		int n;

		if (strncmp(e->d_name, "hsperfdata_", 11))
			continue;
		n = snprintf(path, sizeof(out->dir[0]), TMP "/%s", e->d_name);
		/* a real directory, not a link planted in /tmp */
		if (n > 0 && (size_t)n < sizeof(out->dir[0]) && !lstat(path, &st) &&
		    S_ISDIR(st.st_mode))
			out->n++;
	}
	closedir(d);
}

void mw_jvm_list_dir(const char *dir, struct mw_jvm_files *out)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		uint32_t pid = mw_jvm_pid_of_name(e->d_name);

		if (pid)
			mw_jvm_files_add(out, pid, dir, e->d_name);
	}
	closedir(d);
}

int mw_jvm_read(const struct mw_jvm_file *file, uint8_t *buf, size_t cap, size_t *len,
		struct mw_jvm_process *p, struct mw_err *err)
{
	char proc[32];
	struct stat fs, ps;
	size_t got = 0;
	int fd;

	snprintf(proc, sizeof(proc), "/proc/%u", file->pid);
	if (stat(proc, &ps))
		return mw_error(err, "%s: its process %u is gone", file->path, file->pid);
	fd = open(file->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return mw_error(err, "%s: %s", file->path, strerror(errno));
	if (fstat(fd, &fs) || !S_ISREG(fs.st_mode)) {
		close(fd);
		return mw_error(err, "%s: not a regular file", file->path);
	}
	if (fs.st_uid != ps.st_uid) {
		close(fd);
		return mw_error(err, "%s: owned by uid %u, its process runs as %u", file->path,
				(unsigned)fs.st_uid, (unsigned)ps.st_uid);
	}
	while (got < cap) {
		ssize_t n = read(fd, buf + got, cap - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	*len = got;
	if (mw_proc_image_name(file->pid, p->name, sizeof(p->name)) ||
	    mw_proc_start_ms(file->pid, &p->start_ms))
		return mw_error(err, "%s: its process %u is gone", file->path, file->pid);
	return 0;
}
