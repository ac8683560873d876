/* dblock_linux.c - see dblock.h. */
#include "dblock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/xalloc.h"

struct mw_dblock {
	int fd;
};

int mw_dblock_acquire(struct mw_dblock **out, const char *db_path, struct mw_err *err)
{
	size_t n = strlen(db_path) + 6;
	char *path = mw_xmalloc(n), pid[32] = "";
	int fd;
	ssize_t got;

	*out = NULL;
	snprintf(path, n, "%s.lock", db_path);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		mw_error(err, "cannot create the lock file '%s': %s", path, strerror(errno));
		free(path);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;

		got = pread(fd, pid, sizeof(pid) - 1, 0);
		pid[got > 0 ? got : 0] = '\0';
		pid[strcspn(pid, "\n")] = '\0';
		close(fd);
		if (e == EWOULDBLOCK)
			mw_error(err, "database '%s' is in use by another memwatchd%s%s%s (lock '%s'); "
				 "stop it or give this one another --db", db_path,
				 pid[0] ? " (pid " : "", pid, pid[0] ? ")" : "", path);
		else
			mw_error(err, "cannot lock '%s': %s", path, strerror(e));
		free(path);
		return -1;
	}
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) == 0 && pwrite(fd, pid, strlen(pid), 0) < 0) {
		/* the pid is only for the message; the lock is what counts */
	}
	free(path);
	*out = mw_xmalloc(sizeof(**out));
	(*out)->fd = fd;
	return 0;
}

void mw_dblock_release(struct mw_dblock *l)
{
	if (!l)
		return;
	close(l->fd);	/* drops the flock */
	free(l);
}
