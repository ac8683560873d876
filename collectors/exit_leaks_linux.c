/*
 * exit_leaks_linux.c - the exit_leaks hook on Linux (exit_leaks.h):
 * LeakSanitizer report files in [exit_leaks] lsan_dir.
 *
 * A program run with ASAN_OPTIONS=log_path=DIR/NAME writes DIR/NAME.PID
 * during its exit (LeakSanitizer's check runs at exit, before the process
 * is gone).  Each poll lists DIR: a file whose writer still runs (pid
 * alive, not a zombie, started before the file was last written) is left
 * for a later tick - its name and start time remembered, so the report is
 * attributed to that incarnation - unless the file has not changed for
 * QUIET_MS (a pid reused, or a program hung after its report).  Otherwise
 * the file is read (at most MAX_FILE bytes: a larger one is cut, the
 * report marked incomplete), parsed (core/exit_report_lsan.c), delivered
 * and moved into DIR/done/ so it is read once; a file that cannot be moved
 * is remembered (name, size, time) and not read again while the daemon
 * runs.  The process name is the one seen alive, else the file's prefix
 * NAME; the exit time is the file's last write, to the second.
 */
#include "exit_leaks.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fsutf8.h"
#include "base/log.h"
#include "base/xalloc.h"
#include "proc_start.h"

#define MAX_FILE (8u << 20)	/* a report's text read at most */
#define QUIET_MS 30000		/* a file unchanged this long is read whatever runs */
#define FILES_PER_POLL 64	/* the rest wait for the next tick */
#define SEEN_MAX 1024		/* runs remembered (alive writers, unmovable files) */

struct seen {
	char *file;		/* the entry name NAME.PID */
	int64_t pid;
	char process[256];	/* "" not seen alive */
	int64_t started_ms;
	bool done;		/* read already (could not be moved) */
	int64_t mtime_ms;
	int64_t size;
};

struct lsan_os {
	char *dir, *done_dir;
	int64_t boot_ms;	/* /proc/stat btime */
	long ticks;		/* clock ticks per second */
	struct seen *seen;
	size_t nseen;
	bool warned_move;
};

int mw_exit_leaks_os_init(void **os, const struct mw_exit_leaks_options *o, struct mw_err *err)
{
	struct lsan_os *s;
	size_t n;
	DIR *d;

	*os = NULL;
	if (o->nimages)
		mw_log_warn("exit_leaks: [exit_leaks] images is for Windows (ntdll's exit check); "
			    "on Linux run the program with ASAN_OPTIONS=log_path=LSAN_DIR/NAME");
	if (!o->lsan_dir) {
		mw_error(err, "no lsan_dir set (images is Windows only)");
		return 1;
	}
	if (mw_mkdir(o->lsan_dir))
		return mw_error(err, "[exit_leaks] lsan_dir '%s': cannot make it: %s", o->lsan_dir,
				strerror(errno));
	s = mw_xcalloc(1, sizeof(*s));
	s->dir = mw_xstrdup(o->lsan_dir);
	n = strlen(s->dir) + sizeof("/done");
	s->done_dir = mw_xmalloc(n);
	snprintf(s->done_dir, n, "%s/done", s->dir);
	if (mw_mkdir(s->done_dir) || !(d = opendir(s->dir))) {
		mw_error(err, "[exit_leaks] lsan_dir '%s': %s", s->dir, strerror(errno));
		mw_exit_leaks_os_fini(s);
		return -1;
	}
	closedir(d);
	s->boot_ms = mw_proc_boot_ms();
	s->ticks = sysconf(_SC_CLK_TCK);
	if (s->ticks <= 0)
		s->ticks = 100;
	*os = s;
	return 0;
}

void mw_exit_leaks_os_describe(void *os, char *buf, size_t n)
{
	(void)os;
	if (n)
		buf[0] = '\0';	/* files are picked up: nothing more to say */
}

void mw_exit_leaks_os_fini(void *os)
{
	struct lsan_os *s = os;
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nseen; i++)
		free(s->seen[i].file);
	free(s->seen);
	free(s->dir);
	free(s->done_dir);
	free(s);
}

/* "NAME.PID": the pid and the length of NAME; false for other names. */
static bool report_name(const char *e, int64_t *pid, size_t *prefix)
{
	const char *dot = strrchr(e, '.'), *p;
	int64_t v = 0;

	if (!dot || dot == e || !dot[1])
		return false;
	for (p = dot + 1; *p; p++) {
		if (*p < '0' || *p > '9' || v > 999999999)
			return false;
		v = v * 10 + (*p - '0');
	}
	if (v <= 0)
		return false;
	*pid = v;
	*prefix = (size_t)(dot - e);
	return true;
}

/* The pid's process when it is alive and not a zombie: 1 and its name
 * and start time, else 0. */
static int alive(const struct lsan_os *s, int64_t pid, char *name, size_t size, int64_t *start_ms)
{
	char path[64], buf[1024], link[4096];
	FILE *f;
	size_t n;
	ssize_t k;
	char *open_paren, *close_paren, *p;
	int field;
	unsigned long long start = 0;

	snprintf(path, sizeof(path), "/proc/%" PRId64 "/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren < open_paren)
		return 0;
	p = close_paren + 1;
	while (*p == ' ')
		p++;
	if (*p == 'Z' || *p == 'X')
		return 0;	/* exited, not yet reaped */
	/* starttime is field 22; the state (field 3) is where p is */
	for (field = 3; field < 22 && p; field++) {
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	if (!p || sscanf(p, "%llu", &start) != 1)
		return 0;
	*start_ms = s->boot_ms + (int64_t)(start * 1000 / (unsigned long long)s->ticks);
	snprintf(name, size, "%.*s", (int)(close_paren - open_paren - 1), open_paren + 1);
	snprintf(path, sizeof(path), "/proc/%" PRId64 "/exe", pid);
	k = readlink(path, link, sizeof(link) - 1);
	if (k > 0) {
		const char *base;
		char *del;

		link[k] = '\0';
		del = strstr(link, " (deleted)");
		if (del && !del[10])
			*del = '\0';
		base = strrchr(link, '/');
		base = base ? base + 1 : link;
		if (*base && !strncmp(base, name, strlen(name)))
			snprintf(name, size, "%s", base);	/* comm is cut at 15 bytes */
	}
	return 1;
}

static struct seen *seen_get(struct lsan_os *s, const char *file, int64_t pid)
{
	size_t i;
	struct seen *e;

	for (i = 0; i < s->nseen; i++)
		if (!strcmp(s->seen[i].file, file))
			return &s->seen[i];
	if (s->nseen == SEEN_MAX) {	/* forget the oldest */
		free(s->seen[0].file);
		memmove(s->seen, s->seen + 1, (s->nseen - 1) * sizeof(*s->seen));
		s->nseen--;
	}
	s->seen = mw_xrealloc(s->seen, (s->nseen + 1) * sizeof(*s->seen));
	e = &s->seen[s->nseen++];
	memset(e, 0, sizeof(*e));
	e->file = mw_xstrdup(file);
	e->pid = pid;
	return e;
}

static void seen_drop(struct lsan_os *s, struct seen *e)
{
	size_t i = (size_t)(e - s->seen);

	free(e->file);
	memmove(e, e + 1, (s->nseen - i - 1) * sizeof(*e));
	s->nseen--;
}

/* Read a file, at most MAX_FILE bytes: the text (malloc'd) and *n, and
 * *cut when there was more. */
static char *read_report(const char *path, size_t *n, bool *cut)
{
	FILE *f = mw_fopen(path, "rb");
	char *buf;

	*n = 0;
	*cut = false;
	if (!f)
		return NULL;
	buf = mw_xmalloc(MAX_FILE + 1);
	*n = fread(buf, 1, MAX_FILE + 1, f);
	fclose(f);
	if (*n > MAX_FILE) {
		*n = MAX_FILE;
		*cut = true;
	}
	return buf;
}

static void take(struct lsan_os *s, const char *file, int64_t pid, size_t prefix,
		 const struct stat *sb, struct seen *e,
		 void (*deliver)(void *ctx, struct mw_exit_report *r), void *ctx)
{
	size_t plen = strlen(s->dir) + strlen(file) + 2, n;
	char *path = mw_xmalloc(plen), *moved, *text;
	struct mw_exit_report r;
	struct mw_err err = { "" };
	bool cut;

	snprintf(path, plen, "%s/%s", s->dir, file);
	text = read_report(path, &n, &cut);
	if (!text) {
		mw_log_warn("exit_leaks: %s: cannot read: %s", path, strerror(errno));
	} else if (mw_lsan_parse(text, n, &r, &err)) {
		mw_log_warn("exit_leaks: %s: not stored: %s", path, err.msg);
	} else {
		free(r.process);
		r.process = e && e->process[0] ? mw_xstrdup(e->process) : mw_xstrndup(file, prefix);
		r.pid = pid;
		r.started_ms = e ? e->started_ms : 0;
		/* to the second, as `memwatchd import` of the same file takes it */
		r.exited_ms = (int64_t)sb->st_mtime * 1000;
		if (cut)
			r.complete = false;
		deliver(ctx, &r);
		mw_exit_report_release(&r);
	}
	free(text);
	plen = strlen(s->done_dir) + strlen(file) + 2;
	moved = mw_xmalloc(plen);
	snprintf(moved, plen, "%s/%s", s->done_dir, file);
	if (rename(path, moved)) {
		if (!s->warned_move)
			mw_log_warn("exit_leaks: cannot move %s into %s: %s (read once, left in place)",
				    path, s->done_dir, strerror(errno));
		s->warned_move = true;
		if (!e)
			e = seen_get(s, file, pid);
		e->done = true;
		e->size = (int64_t)sb->st_size;
		e->mtime_ms = (int64_t)sb->st_mtim.tv_sec * 1000 + sb->st_mtim.tv_nsec / 1000000;
	} else if (e) {
		seen_drop(s, e);
	}
	free(moved);
	free(path);
}

void mw_exit_leaks_os_poll(void *os, int64_t now_ms,
			   void (*deliver)(void *ctx, struct mw_exit_report *r), void *ctx)
{
	struct lsan_os *s = os;
	struct dirent *de;
	unsigned taken = 0;
	DIR *d;

	if (!s)
		return;
	d = opendir(s->dir);
	if (!d)
		return;
	while ((de = readdir(d)) && taken < FILES_PER_POLL) {
		size_t plen = strlen(s->dir) + strlen(de->d_name) + 2, prefix;
		char *path, name[256];
		struct stat sb;
		struct seen *e = NULL;
		int64_t pid, mtime_ms, start_ms = 0;
		size_t i;

		if (de->d_name[0] == '.' || !report_name(de->d_name, &pid, &prefix))
			continue;
		path = mw_xmalloc(plen);
		snprintf(path, plen, "%s/%s", s->dir, de->d_name);
		if (stat(path, &sb) || !S_ISREG(sb.st_mode)) {
			free(path);
			continue;
		}
		free(path);
		mtime_ms = (int64_t)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000;
		for (i = 0; i < s->nseen; i++)
			if (!strcmp(s->seen[i].file, de->d_name))
				e = &s->seen[i];
		if (e && e->done) {
			if (e->size == (int64_t)sb.st_size && e->mtime_ms == mtime_ms)
				continue;	/* read already, could not be moved */
			e->done = false;	/* a new run with the same pid wrote it */
			e->process[0] = '\0';
		}
		/* its writer still running: come back when it is gone */
		if (alive(s, pid, name, sizeof(name), &start_ms) && start_ms <= mtime_ms + 1000 &&
		    now_ms - mtime_ms < QUIET_MS) {
			e = seen_get(s, de->d_name, pid);
			snprintf(e->process, sizeof(e->process), "%s", name);
			e->started_ms = start_ms;
			continue;
		}
		take(s, de->d_name, pid, prefix, &sb, e, deliver, ctx);
		taken++;
	}
	closedir(d);
}
