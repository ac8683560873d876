/* procmaps_linux.c - the per-tick cache of /proc/PID/smaps reads (see
 * procmaps.h). */
#include "procmaps.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/xalloc.h"

struct entry {
	uint32_t pid;
	int64_t at_ns;		/* monotonic, when read */
	unsigned users;		/* who has had it */
	struct mw_procmaps r;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry cache[MW_PROCMAPS_MAX];
static size_t ncache;
static uint64_t nreads, nhits;

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
	while ((d = readdir(dir)) && n < MW_PROCMAPS_MAX_THREADS) {
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

/* Read pid now into r. */
static int read_now(uint32_t pid, struct mw_procmaps *r, struct mw_err *err)
{
	char path[64], exe[PATH_MAX];
	long ps = sysconf(_SC_PAGESIZE);
	ssize_t el;
	int rc;

	r->len = 0;
	r->nthreads = 0;
	r->page_size = ps > 0 ? (uint32_t)ps : 4096;
	snprintf(path, sizeof(path), "/proc/%lu/smaps", (unsigned long)pid);
	rc = slurp(path, &r->text, &r->cap, &r->len);
	if (rc < 0) {
		mw_error(err, "%s: %s", path, strerror(-rc));
		return gone(-rc) ? 1 : -1;
	}
	if (r->len == 0)
		return mw_error(err, "%s: empty (a kernel thread or an exited process)", path), 1;
	snprintf(path, sizeof(path), "/proc/%lu/exe", (unsigned long)pid);
	el = readlink(path, exe, sizeof(exe) - 1);
	if (el > 0) {
		MW_GROW(r->exe, r->exe_cap, (size_t)el + 1);
		memcpy(r->exe, exe, (size_t)el);
		r->exe[el] = '\0';
	} else if (r->exe) {
		r->exe[0] = '\0';
	}
	r->nthreads = read_threads(pid, &r->threads, &r->tcap);
	return 0;
}

static void copy(struct mw_procmaps *to, const struct mw_procmaps *from)
{
	MW_GROW(to->text, to->cap, from->len + 1);
	memcpy(to->text, from->text, from->len + 1);
	to->len = from->len;
	if (from->exe && from->exe[0]) {
		size_t n = strlen(from->exe) + 1;

		MW_GROW(to->exe, to->exe_cap, n);
		memcpy(to->exe, from->exe, n);
	} else if (to->exe) {
		to->exe[0] = '\0';
	}
	if (from->nthreads)
		MW_GROW(to->threads, to->tcap, from->nthreads);
	if (from->nthreads)
		memcpy(to->threads, from->threads, from->nthreads * sizeof(*from->threads));
	to->nthreads = from->nthreads;
	to->page_size = from->page_size;
}

int mw_procmaps_read(uint32_t pid, unsigned user, struct mw_procmaps *out, struct mw_err *err)
{
	int64_t now = mw_clock_mono_ns(), fresh = (int64_t)MW_PROCMAPS_FRESH_MS * 1000000;
	struct entry *e = NULL;
	size_t i;
	int rc;

	pthread_mutex_lock(&lock);
	for (i = 0; i < ncache; i++)
		if (cache[i].pid == pid && now - cache[i].at_ns <= fresh &&
		    !(cache[i].users & user)) {
			cache[i].users |= user;
			copy(out, &cache[i].r);
			out->cached = true;
			nhits++;
			pthread_mutex_unlock(&lock);
			return 0;
		}
	pthread_mutex_unlock(&lock);

	/* Read outside the lock, into the caller's buffers, then keep a copy. */
	rc = read_now(pid, out, err);
	out->cached = false;
	if (rc)
		return rc;
	pthread_mutex_lock(&lock);
	nreads++;
	now = mw_clock_mono_ns();
	for (i = 0; i < ncache && !e; i++)
		if (cache[i].pid == pid)
			e = &cache[i];	/* this pid's older read */
	for (i = 0; i < ncache && !e; i++)
		if (now - cache[i].at_ns > fresh)
			e = &cache[i];	/* any stale one */
	if (!e && ncache < MW_PROCMAPS_MAX)
		e = &cache[ncache++];
	if (!e) {
		e = &cache[0];	/* full of fresh reads: replace the oldest */
		for (i = 1; i < ncache; i++)
			if (cache[i].at_ns < e->at_ns)
				e = &cache[i];
	}
	e->pid = pid;
	e->at_ns = now;
	e->users = user;
	copy(&e->r, out);
	pthread_mutex_unlock(&lock);
	return 0;
}

int mw_procmaps_parse(uint32_t pid, unsigned user, struct mw_procmaps *pm,
		      struct mw_smaps *maps, struct mw_smaps_facts *f, struct mw_err *err)
{
	int rc = mw_procmaps_read(pid, user, pm, err);

	if (rc)
		return rc;
	if (mw_smaps_parse(pm->text, pm->len, maps, err))
		return mw_error_prefix(err, "/proc/%lu/smaps", (unsigned long)pid);
	mw_procmaps_facts(pm, pid, f);
	return 0;
}

int mw_procmaps_classified(uint32_t pid, unsigned user,
			   void (*use)(const struct mw_smaps *maps, const struct mw_smaps_use *u,
				       void *arg),
			   void *arg, struct mw_err *err)
{
	struct mw_procmaps pm = { 0 };
	struct mw_smaps maps = { 0 };
	struct mw_smaps_facts f;
	struct mw_smaps_use *u;
	int rc = mw_procmaps_parse(pid, user, &pm, &maps, &f, err);

	if (rc == 0) {
		u = mw_xcalloc(maps.n ? maps.n : 1, sizeof(*u));
		mw_smaps_uses(&maps, &f, u);
		use(&maps, u, arg);
		free(u);
	}
	mw_smaps_release(&maps);
	mw_procmaps_release(&pm);
	return rc;
}

void mw_procmaps_facts(const struct mw_procmaps *p, uint32_t pid, struct mw_smaps_facts *f)
{
	f->pid = pid;
	f->page_size = p->page_size;
	f->exe = p->exe && p->exe[0] ? p->exe : NULL;
	f->threads = p->threads;
	f->nthreads = p->nthreads;
}

void mw_procmaps_release(struct mw_procmaps *p)
{
	free(p->text);
	free(p->exe);
	free(p->threads);
	memset(p, 0, sizeof(*p));
}

void mw_procmaps_stats(uint64_t *reads, uint64_t *hits)
{
	pthread_mutex_lock(&lock);
	*reads = nreads;
	*hits = nhits;
	pthread_mutex_unlock(&lock);
}

void mw_procmaps_flush(void)
{
	size_t i;

	pthread_mutex_lock(&lock);
	for (i = 0; i < ncache; i++)
		mw_procmaps_release(&cache[i].r);
	ncache = 0;
	pthread_mutex_unlock(&lock);
}
