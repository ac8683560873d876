/* workingset_linux.c - the working set of a process from /proc/PID/smaps.
 *
 * The OS part only: read /proc/PID/smaps into a buffer, /proc/PID/exe's
 * target (which file is the main executable) and each thread's stack
 * pointer from /proc/PID/task/TID/syscall (kstkesp in task/TID/stat reads
 * 0 on current kernels); smaps.c interprets them.  PSS and USS come from
 * the same smaps text (the sums of Pss and of Private_*), so no second
 * walk of the address space through smaps_rollup.
 *
 * A process that is gone (ENOENT, ESRCH), that we may not read (EACCES,
 * EPERM) or that has no address space (a kernel thread, a zombie: empty
 * smaps) is inaccessible (1), not an error. */
#include "workingset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/xalloc.h"
#include "smaps.h"

#define MAX_THREADS 4096	/* stack pointers read per process, at most */

static bool gone(int e)
{
	return e == ENOENT || e == ESRCH || e == EACCES || e == EPERM;
}

/* Read a whole file into *buf (NUL-terminated).  0, or -errno. */
static int slurp(const char *path, char **buf, size_t *cap, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0;

	if (fd < 0)
		return -errno;
	for (;;) {
		ssize_t got;

		if (*cap - n < 65536 + 1)
			MW_GROW(*buf, *cap, n + 65536 + 1);
		got = read(fd, *buf + n, *cap - n - 1);
		if (got < 0) {
			int e = errno;

			if (e == EINTR)
				continue;
			close(fd);
			return -e;
		}
		if (got == 0)
			break;
		n += (size_t)got;
	}
	close(fd);
	(*buf)[n] = '\0';
	*len = n;
	return 0;
}

static size_t read_threads(uint32_t pid, struct mw_smaps_thread **t, size_t *cap)
{
	char path[96], text[256];
	struct dirent *d;
	size_t n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%lu/task", (unsigned long)pid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)) && n < MAX_THREADS) {
		unsigned long tid;
		char *e;
		ssize_t got;
		uint64_t sp;
		int fd;

		tid = strtoul(d->d_name, &e, 10);
		if (*e || e == d->d_name || tid > UINT32_MAX)
			continue;
		snprintf(path, sizeof(path), "/proc/%lu/task/%lu/syscall", (unsigned long)pid, tid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		got = read(fd, text, sizeof(text) - 1);
		close(fd);
		if (got <= 0)
			continue;
		text[got] = '\0';
		if (mw_smaps_syscall_sp(text, &sp))
			continue;
		MW_GROW(*t, *cap, n + 1);
		(*t)[n].tid = (uint32_t)tid;
		(*t)[n++].sp = sp;
	}
	closedir(dir);
	return n;
}

int mw_ws_read(uint32_t pid, bool self, struct mw_ws_snapshot *s, struct mw_err *err)
{
	struct mw_smaps maps = { 0 };
	struct mw_smaps_thread *threads = NULL;
	struct mw_smaps_totals tot;
	struct mw_smaps_facts f;
	char path[64], exe[PATH_MAX];
	size_t len = 0, tcap = 0;
	ssize_t el;
	long ps = sysconf(_SC_PAGESIZE);
	int rc;

	(void)self;
	s->npages = s->nnames = s->nheaps = s->nstacks = 0;
	s->why[0] = '\0';
	s->mode = MW_WS_MODE_SMAPS;
	s->page_size = ps > 0 ? (uint32_t)ps : 4096;
	snprintf(path, sizeof(path), "/proc/%lu/smaps", (unsigned long)pid);
	rc = slurp(path, &s->text, &s->text_cap, &len);
	if (rc < 0) {
		mw_error(err, "%s: %s", path, strerror(-rc));
		return gone(-rc) ? 1 : -1;
	}
	if (len == 0)
		return mw_error(err, "%s: empty (a kernel thread or an exited process)", path), 1;
	snprintf(path, sizeof(path), "/proc/%lu/exe", (unsigned long)pid);
	el = readlink(path, exe, sizeof(exe) - 1);
	exe[el > 0 ? el : 0] = '\0';
	if (mw_smaps_parse(s->text, len, &maps, err)) {
		mw_error_prefix(err, "/proc/%lu/smaps", (unsigned long)pid);
		mw_smaps_release(&maps);
		return -1;
	}
	f.pid = pid;
	f.page_size = s->page_size;
	f.exe = el > 0 ? exe : NULL;
	f.nthreads = read_threads(pid, &threads, &tcap);
	f.threads = threads;
	mw_smaps_classify(&maps, &f, &s->classified, &tot);
	free(threads);
	mw_smaps_release(&maps);
	s->total_bytes = tot.rss;
	s->pss_bytes = tot.pss;
	s->uss_bytes = tot.uss;
	return 0;
}

int mw_ws_supported(struct mw_err *why)
{
	if (access("/proc/self/smaps", R_OK))
		return mw_error(why, "/proc/self/smaps: %s", strerror(errno));
	return 0;
}
