/*
 * process_linux.c - the process table from /proc.
 *
 * A process can vanish between readdir() and open(): ENOENT/ESRCH skips
 * it silently; EACCES counts it as inaccessible.  Open fds are counted
 * only where /proc/PID/fd is readable (own user, or root).
 *
 * Names: the basename of /proc/PID/exe's target; where that link cannot
 * be read (another user's process, a kernel thread) argv[0]'s basename
 * from /proc/PID/cmdline when it agrees with comm, else comm (15 chars at
 * most).  A name is looked up once per process (pid + start time) and
 * kept between ticks.
 */
#include "process.h"

#include <ctype.h>
#include <inttypes.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/xalloc.h"

struct name_entry {
	uint32_t pid;
	uint64_t start_ticks;
	char name[MW_PROCESS_NAME_MAX];
};

struct mw_process_reader {
	int64_t boot_ms;	/* wall-clock boot time, from /proc/stat btime */
	long ticks_per_s;
	char root[256];		/* "/proc" */
	struct name_entry *names;	/* last tick's names, by pid */
	size_t nnames, names_cap;
	struct name_entry *next;	/* this tick's, built while reading */
	size_t nnext, next_cap;
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

struct mw_process_reader *mw_process_reader_new_at(const char *proc_root)
{
	struct mw_process_reader *r = mw_xcalloc(1, sizeof(*r));
	char buf[16384], path[300];
	const char *bt;

	snprintf(r->root, sizeof(r->root), "%s", proc_root ? proc_root : "/proc");
	r->ticks_per_s = sysconf(_SC_CLK_TCK);
	if (r->ticks_per_s <= 0)
		r->ticks_per_s = 100;
	snprintf(path, sizeof(path), "%s/stat", r->root);
	if (read_file(path, buf, sizeof(buf)) > 0 && (bt = strstr(buf, "\nbtime ")))
		r->boot_ms = strtoll(bt + 7, NULL, 10) * 1000;
	return r;
}

struct mw_process_reader *mw_process_reader_new(void)
{
	return mw_process_reader_new_at(NULL);
}

void mw_process_reader_free(struct mw_process_reader *r)
{
	if (!r)
		return;
	free(r->names);
	free(r->next);
	free(r);
}

/* Last tick's name of this process, by binary search (pids ascending). */
static const char *cached_name(const struct mw_process_reader *r, uint32_t pid,
			       uint64_t start_ticks)
{
	size_t lo = 0, hi = r->nnames;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->names[mid].pid < pid)
			lo = mid + 1;
		else if (r->names[mid].pid > pid)
			hi = mid;
		else
			return r->names[mid].start_ticks == start_ticks ? r->names[mid].name : NULL;
	}
	return NULL;
}

static int name_cmp(const void *a, const void *b)
{
	const struct name_entry *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The image name of a process not seen before (p->name holds comm). */
static void look_up_name(const struct mw_process_reader *r, const char *pid,
			 struct mw_process_info *p)
{
	char path[300], target[4096], comm[sizeof(p->name)];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s/exe", r->root, pid);
	n = readlink(path, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		if (mw_proc_exe_name(target, p->name, sizeof(p->name)))
			return;
	}
	snprintf(comm, sizeof(comm), "%s", p->name);
	snprintf(path, sizeof(path), "%s/%s/cmdline", r->root, pid);
	n = read_file(path, target, sizeof(target));
	if (n > 0)
		mw_proc_cmdline_name(target, (size_t)n, comm, p->name, sizeof(p->name));
}

static uint32_t count_fds(const struct mw_process_reader *r, const char *pid, bool *ok)
{
	char path[300];
	DIR *d;
	struct dirent *de;
	uint32_t n = 0;

	snprintf(path, sizeof(path), "%s/%s/fd", r->root, pid);
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
	DIR *proc = opendir(r->root);
	struct dirent *de;
	char path[300], buf[8192];
	bool sorted = true;
	uint32_t last_pid = 0;

	if (!proc)
		return mw_error(err, "cannot open %s: %s", r->root, strerror(errno));
	t->nprocs = 0;
	t->inaccessible = 0;
	r->nnext = 0;
	while ((de = readdir(proc))) {
		struct mw_process_info *p;
		struct name_entry *ne;
		uint64_t start_ticks = 0;
		struct mw_err perr;
		const char *known;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "%s/%s/stat", r->root, de->d_name);
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
		p->start_ticks = start_ticks;
		p->start_ms = r->boot_ms + (int64_t)(start_ticks * 1000 / (uint64_t)r->ticks_per_s);
		snprintf(path, sizeof(path), "%s/%s/status", r->root, de->d_name);
		if (read_file(path, buf, sizeof(buf)) < 0) {
			if (errno == EACCES || errno == EPERM)
				t->inaccessible++;
			t->nprocs--;	/* exited between the two reads */
			continue;
		}
		if (mw_proc_parse_status(buf, p, &perr)) {
			t->nprocs--;
			continue;
		}
		known = cached_name(r, p->pid, start_ticks);
		if (known)
			snprintf(p->name, sizeof(p->name), "%s", known);
		else
			look_up_name(r, de->d_name, p);
		MW_GROW(r->next, r->next_cap, r->nnext + 1);
		ne = &r->next[r->nnext++];
		ne->pid = p->pid;
		ne->start_ticks = start_ticks;
		memcpy(ne->name, p->name, sizeof(ne->name));
		if (p->pid < last_pid)
			sorted = false;
		last_pid = p->pid;
		p->handles = count_fds(r, de->d_name, &p->has_handles);
	}
	closedir(proc);
	if (!sorted)
		qsort(r->next, r->nnext, sizeof(*r->next), name_cmp);
	{	/* this tick's names become the cache */
		struct name_entry *tmp = r->names;
		size_t cap = r->names_cap;

		r->names = r->next;
		r->nnames = r->nnext;
		r->names_cap = r->next_cap;
		r->next = tmp;
		r->next_cap = cap;
		r->nnext = 0;
	}
	return 0;
}

int mw_process_pss_read(struct mw_process_reader *r, uint32_t pid, uint64_t *pss,
			uint64_t *uss)
{
	char path[300], buf[4096];
	struct mw_err err;

	snprintf(path, sizeof(path), "%s/%" PRIu32 "/smaps_rollup", r->root, pid);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return 1;
	return mw_proc_parse_smaps_rollup(buf, pss, uss, &err) ? 1 : 0;
}
