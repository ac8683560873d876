/*
 * dblock_linux.c - see dblock.h.
 *
 * Two locks, both dropped by the kernel when the process ends:
 * - the database file itself, flock(2)ed through a descriptor of our own
 *   (a second daemon reaching the same file by another name is refused);
 * - its path: an abstract Unix socket named after the absolute path, which
 *   nothing in the file system can delete.  It used to be the lock file
 *   DB.lock: with it (or the database) deleted, a second daemon started
 *   on the same path beside the first.  The holder listens on it, so the
 *   refused one learns its pid (SO_PEERCRED).
 * flock and SQLite's fcntl locks do not interact; but closing any
 * descriptor of a file drops the process's fcntl locks on it, so ours is
 * closed only once the store's connection is (mw_dblock_release).
 */
#include "dblock.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/xalloc.h"

struct mw_dblock {
	int fd;		/* the database file, flock()ed */
	int sock;	/* bound to the path's abstract name */
	dev_t dev;	/* the file fd opened */
	ino_t ino;
};

/* The abstract socket name of db_path: its absolute path (the directory
 * resolved, the name as given), hashed to fit sun_path. */
static void path_name(struct sockaddr_un *sa, socklen_t *len, const char *db_path)
{
	char *copy_dir = mw_xstrdup(db_path), *copy_base = mw_xstrdup(db_path);
	char dir[PATH_MAX], *abs;
	uint64_t h = 1469598103934665603ULL;
	const char *p;
	int n;

	p = dirname(copy_dir);
	abs = realpath(p, dir);
	for (p = abs ? abs : p; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	h = (h ^ '/') * 1099511628211ULL;
	for (p = basename(copy_base); *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	free(copy_dir);
	free(copy_base);
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	n = snprintf(sa->sun_path + 1, sizeof(sa->sun_path) - 1, "memwatch-db-%016llx",
		     (unsigned long long)h);
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

/* The pid holding the path's name, 0 when it cannot be told. */
static long holder_pid(const struct sockaddr_un *sa, socklen_t len)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	long pid = 0;

	if (fd < 0)
		return 0;
	if (connect(fd, (const struct sockaddr *)sa, len) == 0 &&
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) == 0)
		pid = (long)cred.pid;
	close(fd);
	return pid;
}

static int in_use(struct mw_err *err, const char *db_path, long pid)
{
	char who[40] = "";

	if (pid > 0)
		snprintf(who, sizeof(who), " (pid %ld)", pid);
	return mw_error(err, "database '%s' is in use by another memwatchd%s; stop it or give "
			"this one another --db", db_path, who);
}

/* Open and flock the file at db_path (created when missing) into l. */
static int lock_file(struct mw_dblock *l, const char *db_path, struct mw_err *err)
{
	struct stat st;
	int fd = open(db_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		return mw_error(err, "cannot open '%s': %s", db_path, strerror(errno));
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		int e = errno;

		close(fd);
		if (e == EWOULDBLOCK)
			return in_use(err, db_path, 0);
		return mw_error(err, "cannot lock '%s': %s", db_path, strerror(e));
	}
	if (fstat(fd, &st)) {
		mw_error(err, "cannot stat '%s': %s", db_path, strerror(errno));
		close(fd);
		return -1;
	}
	l->fd = fd;
	l->dev = st.st_dev;
	l->ino = st.st_ino;
	return 0;
}

int mw_dblock_acquire(struct mw_dblock **out, const char *db_path, struct mw_err *err)
{
	struct mw_dblock *l = mw_xcalloc(1, sizeof(*l));
	struct sockaddr_un sa;
	socklen_t len;

	*out = NULL;
	l->fd = -1;
	path_name(&sa, &len, db_path);
	l->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l->sock < 0) {
		mw_error(err, "cannot lock '%s': socket: %s", db_path, strerror(errno));
		free(l);
		return -1;
	}
	if (bind(l->sock, (const struct sockaddr *)&sa, len) || listen(l->sock, 16)) {
		int e = errno;

		close(l->sock);
		free(l);
		if (e == EADDRINUSE)
			return in_use(err, db_path, holder_pid(&sa, len));
		return mw_error(err, "cannot lock '%s': %s", db_path, strerror(e));
	}
	if (lock_file(l, db_path, err)) {
		close(l->sock);
		free(l);
		return -1;
	}
	*out = l;
	return 0;
}

int mw_dblock_follow(struct mw_dblock *l, const char *db_path, struct mw_err *err)
{
	struct stat st;
	int old = l->fd;

	if (stat(db_path, &st) == 0 && st.st_dev == l->dev && st.st_ino == l->ino)
		return 0;
	if (lock_file(l, db_path, err))
		return -1;
	close(old);	/* the file moved aside: no connection of ours has it open */
	return 0;
}

int mw_dblock_check(struct mw_dblock *l, const char *db_path, struct mw_err *err)
{
	struct stat st;

	if (stat(db_path, &st)) {
		if (errno == ENOENT)
			return mw_dblock_deleted_error(err, db_path);
		return mw_error(err, "cannot check the database file '%s': %s", db_path,
				strerror(errno));
	}
	if (st.st_dev != l->dev || st.st_ino != l->ino)
		return mw_dblock_replaced_error(err, db_path);
	return 0;
}

void mw_dblock_release(struct mw_dblock *l)
{
	if (!l)
		return;
	if (l->fd >= 0)
		close(l->fd);	/* drops the flock */
	close(l->sock);
	free(l);
}
