/*
 * process_linux.c - the process table from /proc.
 *
 * Reading stat and status by path for every process every tick cost
 * ~65 us per process (issue 14): the kernel formats all of status (~50
 * lines) when we need six, and each open walks /proc/PID/... again.  So:
 *
 *   - Each process known by pid + start time keeps descriptors open
 *     across ticks, on /proc/PID/stat, /proc/PID/statm and (from its first
 *     status read) /proc/PID/status, re-read with
 *     pread(fd, ..., 0) (procfs formats the file anew on a read at offset
 *     0).  Such a descriptor is bound to the process, not to the number: a
 *     dead process's reads fail (ESRCH) or give 0 bytes, so a new process
 *     that reuses the pid is never read through the old one's descriptors
 *     (tests/test_process_fds_linux.c checks it); its start time differs
 *     too, which is checked on every read.
 *   - Every tick: statm (size, resident, shared).  statm's shared is
 *     RssFile + RssShmem and resident = shared + RssAnon, so the working
 *     set, RssAnon, the private working set, the virtual size and the
 *     file+shmem sum are exact every tick.
 *   - stat (ppid, page faults, threads, start time) in the same tick
 *     whenever statm's text changed, else at least every stat_ms (default
 *     10 s, spread by pid), its figures carried forward in between.  The
 *     kernel building stat (it sums every thread's counters under a lock)
 *     was the largest single cost of a tick; most processes' memory stays
 *     put from one second to the next, and a fault that maps a page
 *     changes resident.  What can lag by up to stat_ms is what moves
 *     without it: faults on pages already counted (copy-on-write,
 *     refaults after a reclaim seen earlier), threads started on cached
 *     stacks, a new parent.  Only with kept descriptors (a kept statm can
 *     only ever read its own process; a path could be a new one's).
 *   - status on its own cadence (status_ms, default 10 s; spread over the
 *     ticks by pid): VmHWM, VmSwap and the split of shared between file
 *     and shmem are carried forward between its reads (mw_proc_apply_statm).
 *     Through its kept descriptor it costs one pread, not a path walk, an
 *     open and a close.  A process whose statm text is what it was at its
 *     last status read is still: its status is read again only after
 *     STATUS_STILL_EVERY intervals (the kernel building status costs ~12 us,
 *     four statm reads; most processes sit still).  What can lag: a peak
 *     reached and given back between two reads that ends where it began,
 *     swap freed by unmapping swapped-out pages.
 *   - The open-fd count (handles) on its own cadence (handles_ms, default
 *     30 s, spread likewise): st_size of /proc/PID/fd (Linux 6.2+ puts the
 *     count there) once a directory read proved we may look, else the
 *     directory read.
 *   - A process seen for the first time gets everything read at once.
 *   - New processes are found by a readdir of /proc - unless no pid was
 *     handed out since the last tick (the last field of /proc/loadavg, the
 *     pid namespace's last pid, unchanged; only where /proc is our own
 *     namespace's), when the known processes are simply read again.  A
 *     full readdir happens at least every RESCAN_NS regardless, and the
 *     inaccessible count of the last readdir is carried in between.
 *   - Where only a few pids were handed out (at most PROBE_MAX, the last
 *     pid moved up without wrapping; the real /proc only), the known
 *     processes are read again and just those pids are tried
 *     (/proc/N/stat opened directly): the kernel hands pids out in
 *     ascending order, so a process new since the last tick has one of
 *     them.  Listing /proc on a busy machine (a pid handed out every
 *     tick) cost a third more than the reads themselves (bench_process,
 *     "a new pid every tick").  Threads take ids from the same range and
 *     /proc/TID opens though it is not listed: an id whose status says
 *     Tgid is another is left out.
 *   - Where statm is missing (a constructed tree) status is read every
 *     tick, the old way.
 *   - At most fd_cap processes keep descriptors (three each, in half the
 *     descriptor limit less 256; the soft limit is raised toward the hard
 *     one, to 262144 at most, on the real /proc); beyond that, or once an
 *     open fails with EMFILE, processes are read by path (open, read,
 *     close), so the web server and SQLite always have descriptors.
 *
 * A process can vanish between readdir() and a read: ENOENT/ESRCH skips
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/xalloc.h"

#define STATUS_MS_DEFAULT 10000
#define STAT_MS_DEFAULT 10000
#define HANDLES_MS_DEFAULT 30000
#define FD_CAP_MAX 65536	/* processes keeping descriptors, at most */
#define FDS_PER_PROC 3		/* stat, statm, status */
#define RESPREAD INT64_MIN	/* a due time to spread anew (cadence changed) */
#define RESCAN_NS (10 * 1000000000LL)	/* a readdir of /proc at least this often */
#define STATUS_STILL_EVERY 6	/* status intervals between reads of a still process */
#define PROBE_MAX 256		/* new pids tried one by one instead of a readdir */
#define FRESH_KEEP 64		/* room for new processes kept between ticks */

/* One process known by pid + start time, carried between ticks. */
struct proc_entry {
	uint32_t pid;
	uint64_t start_ticks;
	int stat_fd, statm_fd, status_fd;	/* -1: not kept (read by path) */
	bool no_statm;		/* statm missing: status every tick */
	bool has_mm;		/* status had VmRSS (not a kernel thread, zombie) */
	bool fd_readable;	/* a directory read of fd/ worked once */
	bool taken;		/* read again this tick: kept for the next */
	bool probed;		/* tried by number (not listed): may be a thread */
	int64_t status_due_ns, handles_due_ns, stat_due_ns;
	char statm_text[72];	/* statm as last read ("" : none) */
	uint8_t statm_len;
	uint64_t statm_at_status;	/* hash of statm at the last status read; 0: none */
	int64_t status_read_ns;	/* when that was */
	struct mw_process_info last;	/* the figures as of the last tick */
};

struct mw_process_reader {
	int64_t boot_ms;	/* wall-clock boot time, from /proc/stat btime */
	long ticks_per_s;
	uint64_t page_size;
	char root[256];		/* "/proc" */
	bool real;		/* root is the real /proc */
	bool fd_size;		/* stat(/proc/PID/fd).st_size is the fd count */
	int64_t status_ns, handles_ns, stat_ns;	/* cadences; 0: every read */
	size_t fd_cap, kept;	/* processes that may / do keep descriptors */
	/* The known processes, by pid, read in place each tick (one array,
	 * not last tick's and this tick's: ~480 bytes a process, issue 26) */
	struct proc_entry *ents;
	size_t nents, ents_cap;
	struct proc_entry *fresh;	/* processes new this tick, merged in at its end */
	size_t nfresh, fresh_cap;
	struct mw_process_read_stats stats;
	/* skipping the readdir when no pid was handed out (see above) */
	int loadavg_fd;		/* /proc/loadavg, or -1: always readdir */
	bool probe;		/* new pids may be tried one by one (real /proc) */
	bool probing;		/* visiting such a pid now */
	uint64_t last_pid;
	bool have_last_pid;
	int64_t last_scan_ns;
	uint64_t scan_inaccessible;	/* the last readdir's */
};

/* root/PID/name into buf (a path under the /proc tree read). */
static const char *proc_path(const struct mw_process_reader *r, const char *pid,
			     const char *name, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s/%s", r->root, pid, name);
	return buf;
}

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
		total += n;
		if (n == 0 || (size_t)total < size - 1)
			break;	/* short read: the end (see pread_file) */
	}
	close(fd);
	buf[total] = '\0';
	return total;
}

/* Re-read a kept descriptor from offset 0.  0 bytes: the process is gone
 * (procfs gives nothing for a dead task); reported as ESRCH. */
static ssize_t pread_file(int fd, char *buf, size_t size)
{
	ssize_t n, total = 0;

	/* procfs hands a small file over whole in one read: a short read is
	 * the end (asking again would cost another system call per file) */
	while ((size_t)total < size - 1) {
		n = pread(fd, buf + total, size - 1 - (size_t)total, total);
		if (n < 0)
			return -1;
		total += n;
		if (n == 0 || (size_t)total < size - 1)
			break;
	}
	if (total == 0) {
		errno = ESRCH;
		return -1;
	}
	buf[total] = '\0';
	return total;
}

/* Raise the soft descriptor limit toward the hard one: the kept
 * descriptors need room beside the web server's and SQLite's. */
static size_t raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 1024;
	if (rl.rlim_cur != RLIM_INFINITY && (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > rl.rlim_cur)) {
		/* enough for FD_CAP_MAX processes, no more: children and
		 * libraries that walk every possible descriptor inherit it */
		rlim_t want = rl.rlim_max == RLIM_INFINITY ||
					      rl.rlim_max > 2 * FDS_PER_PROC * FD_CAP_MAX
				      ? 2 * FDS_PER_PROC * FD_CAP_MAX : rl.rlim_max;
		struct rlimit nl = { want, rl.rlim_max };

		if (want > rl.rlim_cur && setrlimit(RLIMIT_NOFILE, &nl) == 0)
			rl.rlim_cur = want;
	}
	return rl.rlim_cur == RLIM_INFINITY ? 2 * FDS_PER_PROC * FD_CAP_MAX : (size_t)rl.rlim_cur;
}

struct mw_process_reader *mw_process_reader_new_at(const char *proc_root)
{
	struct mw_process_reader *r = mw_xcalloc(1, sizeof(*r));
	char buf[16384], path[300];
	const char *bt;
	size_t limit;
	long ps = sysconf(_SC_PAGESIZE);
	struct stat sb;

	snprintf(r->root, sizeof(r->root), "%s", proc_root ? proc_root : "/proc");
	r->real = !strcmp(r->root, "/proc");
	r->ticks_per_s = sysconf(_SC_CLK_TCK);
	if (r->ticks_per_s <= 0)
		r->ticks_per_s = 100;
	r->page_size = ps > 0 ? (uint64_t)ps : 4096;
	r->status_ns = STATUS_MS_DEFAULT * 1000000LL;
	r->handles_ns = HANDLES_MS_DEFAULT * 1000000LL;
	r->stat_ns = STAT_MS_DEFAULT * 1000000LL;
	/* Three descriptors per process, in at most half the limit; the rest
	 * stays for sockets, the database and everything else. */
	limit = r->real ? raise_fd_limit() : 1024;
	r->fd_cap = limit > 512 ? (limit / 2 - 128) / FDS_PER_PROC : 0;
	if (r->fd_cap > FD_CAP_MAX)
		r->fd_cap = FD_CAP_MAX;
	/* Linux 6.2+ reports a process's open descriptors as the size of
	 * /proc/PID/fd; we have at least stdin..stderr and this one open. */
	r->fd_size = r->real && stat("/proc/self/fd", &sb) == 0 && sb.st_size > 0;
	/* /proc/loadavg's last pid is of our pid namespace: use it only if
	 * /proc shows that namespace (it calls us what getpid() does) */
	r->loadavg_fd = -1;
	if (!r->real) {	/* a constructed tree may have one (tests) */
		snprintf(path, sizeof(path), "%s/loadavg", r->root);
		r->loadavg_fd = open(path, O_RDONLY | O_CLOEXEC);
	} else {
		char self[32];
		ssize_t n = readlink("/proc/self", self, sizeof(self) - 1);

		if (n > 0) {
			self[n] = '\0';
			if (strtol(self, NULL, 10) == (long)getpid()) {
				r->loadavg_fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
				r->probe = true;
			}
		}
	}
	snprintf(path, sizeof(path), "%s/stat", r->root);
	if (read_file(path, buf, sizeof(buf)) > 0 && (bt = strstr(buf, "\nbtime ")))
		r->boot_ms = strtoll(bt + 7, NULL, 10) * 1000;
	return r;
}

struct mw_process_reader *mw_process_reader_new(void)
{
	return mw_process_reader_new_at(NULL);
}

void mw_process_reader_set_cadence(struct mw_process_reader *r, int64_t status_ms,
				   int64_t handles_ms, int64_t stat_ms)
{
	size_t i;

	r->status_ns = status_ms > 0 ? status_ms * 1000000LL : 0;
	r->handles_ns = handles_ms > 0 ? handles_ms * 1000000LL : 0;
	r->stat_ns = stat_ms > 0 ? stat_ms * 1000000LL : 0;
	for (i = 0; i < r->nents; i++)	/* due again, spread anew */
		r->ents[i].status_due_ns = r->ents[i].handles_due_ns =
			r->ents[i].stat_due_ns = RESPREAD;
}

void mw_process_reader_set_fd_cap(struct mw_process_reader *r, size_t max_procs)
{
	r->fd_cap = max_procs;
}

void mw_process_reader_stats(const struct mw_process_reader *r, struct mw_process_read_stats *out)
{
	*out = r->stats;
	out->kept = r->kept;
}

static void drop_fds(struct mw_process_reader *r, struct proc_entry *e)
{
	if (e->stat_fd >= 0 || e->statm_fd >= 0 || e->status_fd >= 0)
		r->kept--;
	if (e->stat_fd >= 0)
		close(e->stat_fd);
	if (e->statm_fd >= 0)
		close(e->statm_fd);
	if (e->status_fd >= 0)
		close(e->status_fd);
	e->stat_fd = e->statm_fd = e->status_fd = -1;
}

void mw_process_reader_free(struct mw_process_reader *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nents; i++)
		drop_fds(r, &r->ents[i]);
	if (r->loadavg_fd >= 0)
		close(r->loadavg_fd);
	free(r->ents);
	free(r->fresh);
	free(r);
}

/* Last tick's entry of this pid, by binary search (pids ascending). */
static struct proc_entry *find_entry(struct mw_process_reader *r, uint32_t pid)
{
	size_t lo = 0, hi = r->nents;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->ents[mid].pid < pid)
			lo = mid + 1;
		else if (r->ents[mid].pid > pid)
			hi = mid;
		else
			return &r->ents[mid];
	}
	return NULL;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct proc_entry *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The image name of a process not seen before (p->name holds comm). */
static void look_up_name(const struct mw_process_reader *r, const char *pid,
			 struct mw_process_info *p)
{
	char path[300], target[4096], comm[sizeof(p->name)];
	ssize_t n;

	proc_path(r, pid, "exe", path, sizeof(path));
	n = readlink(path, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		if (mw_proc_exe_name(target, p->name, sizeof(p->name)))
			return;
	}
	snprintf(comm, sizeof(comm), "%s", p->name);
	proc_path(r, pid, "cmdline", path, sizeof(path));
	n = read_file(path, target, sizeof(target));
	if (n > 0)
		mw_proc_cmdline_name(target, (size_t)n, comm, p->name, sizeof(p->name));
}

/* Open fds of a process: st_size of fd/ where the kernel puts the count
 * there and a directory read proved we may look, else the directory. */
static void count_fds(struct mw_process_reader *r, struct proc_entry *e, const char *pid)
{
	char path[300];
	DIR *d;
	struct dirent *de;
	uint32_t n = 0;
	struct stat sb;

	r->stats.handle_counts++;
	proc_path(r, pid, "fd", path, sizeof(path));
	if (e->fd_readable && r->fd_size) {
		if (stat(path, &sb) == 0 && sb.st_size > 0) {
			e->last.handles = (uint32_t)sb.st_size;
			e->last.has_handles = true;
			return;
		}
	}
	d = opendir(path);
	e->last.has_handles = e->fd_readable = d != NULL;
	e->last.handles = 0;
	if (!d)
		return;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	e->last.handles = n;
}

/* The first due time of a cadence: somewhere in the next interval, by
 * pid, so that processes found together are not all read together. */
static int64_t first_due(int64_t now, int64_t every, uint32_t pid)
{
	uint32_t h = pid * 2654435761u;

	if (every <= 0)
		return now;
	return now + (int64_t)((uint64_t)every * (h >> 16) / 65536u) + 1;
}

static int64_t next_due(int64_t due, int64_t now, int64_t every)
{
	due += every;
	return due > now ? due : now + every;	/* after a stall: no burst */
}

/* status of one process into e->last's carried fields.  0; -1 (errno)
 * when it could not be read; 1 when it made no sense. */
static int read_status(struct mw_process_reader *r, struct proc_entry *e, const char *pid,
		       char *buf, size_t size)
{
	char path[300];
	struct mw_err perr;

	r->stats.status_reads++;
	if (e->status_fd < 0 && e->stat_fd >= 0) {
		/* a process that keeps descriptors keeps this one too */
		proc_path(r, pid, "status", path, sizeof(path));
		e->status_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (e->status_fd < 0 && (errno == EMFILE || errno == ENFILE))
			r->fd_cap = r->kept;	/* none for the processes to come */
		else if (e->status_fd < 0)
			return -1;
	}
	if (e->status_fd >= 0 ? pread_file(e->status_fd, buf, size) < 0
			      : read_file(proc_path(r, pid, "status", path, sizeof(path)), buf,
					  size) < 0)
		return -1;
	if (mw_proc_parse_status(buf, &e->last, &perr))
		return 1;
	/* kernel threads and zombies have no VmRSS: statm is all zeros */
	e->has_mm = strstr(buf, "\nVmRSS:") != NULL;
	return 0;
}

static ssize_t read_stat(struct mw_process_reader *r, struct proc_entry *e, const char *pid,
			 char *buf, size_t size)
{
	char path[300];

	if (e->stat_fd >= 0)
		return pread_file(e->stat_fd, buf, size);
	proc_path(r, pid, "stat", path, sizeof(path));
	return read_file(path, buf, size);
}

/* FNV-1a of a statm text, never 0. */
static uint64_t statm_hash(const char *text, size_t len)
{
	uint64_t h = 14695981039346656037ULL;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)text[i]) * 1099511628211ULL;
	return h | 1;
}

/* status is due for e, whose statm this tick is text: still as it was at
 * the last status read, and that not STATUS_STILL_EVERY intervals ago. */
static bool status_still(const struct mw_process_reader *r, const struct proc_entry *e,
			 const char *text, size_t len, int64_t now)
{
	return e->statm_at_status && now - e->status_read_ns < STATUS_STILL_EVERY * r->status_ns &&
	       statm_hash(text, len) == e->statm_at_status;
}

/* statm's resident and shared, in bytes; its text is kept in e.  pre:
 * the text already read this tick, or NULL.  0; -1 (errno) unreadable. */
static int read_statm(struct mw_process_reader *r, struct proc_entry *e, const char *pid,
		      const char *pre, uint64_t *resident, uint64_t *shared, uint64_t *data)
{
	char path[300], buf[256];
	uint64_t size;
	struct mw_err perr;
	ssize_t n;

	if (pre) {
		n = (ssize_t)strlen(pre);
		memcpy(buf, pre, (size_t)n + 1);
	} else if (e->statm_fd >= 0) {
		n = pread_file(e->statm_fd, buf, sizeof(buf));
	} else {
		proc_path(r, pid, "statm", path, sizeof(path));
		n = read_file(path, buf, sizeof(buf));
	}
	if (n < 0)
		return -1;
	if (mw_proc_parse_statm(buf, &size, resident, shared, data, &perr)) {
		errno = EINVAL;
		return -1;
	}
	e->statm_len = (size_t)n < sizeof(e->statm_text) ? (uint8_t)n : 0;
	memcpy(e->statm_text, buf, e->statm_len);
	*resident *= r->page_size;
	*shared *= r->page_size;
	*data *= r->page_size;
	return 0;
}

/* status text buf is of a process (Tgid is its own id), not a thread. */
static bool is_process(const char *buf, uint32_t id)
{
	const char *tg = strstr(buf, "\nTgid:");

	return !tg || strtoul(tg + 6, NULL, 10) == id;
}

/* A process seen for the first time (or its pid's new owner): keep
 * descriptors if there is room, read stat.  0, or -1 (errno). */
static int open_entry(struct mw_process_reader *r, struct proc_entry *e, const char *pid)
{
	char path[300];
	int fd;

	memset(e, 0, sizeof(*e));
	e->stat_fd = e->statm_fd = e->status_fd = -1;
	if (r->kept >= r->fd_cap)
		return 0;
	proc_path(r, pid, "stat", path, sizeof(path));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
		r->fd_cap = r->kept;	/* out of descriptors: by path from now on */
		return 0;
	}
	if (fd < 0)
		return -1;
	e->stat_fd = fd;
	proc_path(r, pid, "statm", path, sizeof(path));
	e->statm_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (e->statm_fd < 0 && errno == ENOENT)
		e->no_statm = true;	/* not procfs: status every tick */
	else if (e->statm_fd < 0 && (errno == EMFILE || errno == ENFILE))
		r->fd_cap = r->kept + 1;
	r->kept++;
	r->stats.opened++;
	return 0;
}

/*
 * One process this tick into p.  e: its entry, known (read in place) or
 * fresh (a new one, opened here).  Returns 0 (p filled), 1 (gone or
 * unreadable: leave it out), 2 (left out and inaccessible).
 */
static int read_one(struct mw_process_reader *r, struct proc_entry *e, bool fresh,
		    const char *pid, struct mw_process_info *p, int64_t now)
{
	char buf[8192], mbuf[256];
	uint64_t start_ticks = 0, resident = 0, shared = 0, data = 0;
	struct mw_err perr;
	bool have_statm = false, status_read = false;
	int rc;

	if (fresh) {
		if (open_entry(r, e, pid))
			return errno == EACCES || errno == EPERM ? 2 : 1;
		e->probed = r->probing;
	}
	/* statm first: status of a still process put off; statm unchanged
	 * and nothing else due, the rest is carried */
	if (!fresh && e->stat_fd >= 0 && e->statm_fd >= 0 && e->has_mm && !e->no_statm) {
		ssize_t n = pread_file(e->statm_fd, mbuf, sizeof(mbuf));

		have_statm = n > 0;	/* used below, not read again */
		if (have_statm && now >= e->status_due_ns && e->status_due_ns != RESPREAD &&
		    status_still(r, e, mbuf, (size_t)n, now)) {
			e->status_due_ns = next_due(e->status_due_ns, now, r->status_ns);
			r->stats.status_still++;
		}
		if (have_statm && r->stat_ns > 0 && now < e->stat_due_ns &&
		    now < e->status_due_ns && now < e->handles_due_ns && e->statm_len &&
		    (size_t)n == e->statm_len && !memcmp(mbuf, e->statm_text, (size_t)n)) {
			r->stats.stat_skipped++;
			*p = e->last;
			return 0;
		}
	}
	r->stats.stat_reads++;
	for (;;) {
		if (read_stat(r, e, pid, buf, sizeof(buf)) < 0) {
			if (!fresh && (errno == ESRCH || errno == ENOENT)) {
				/* our process died; the pid listed is another's */
				drop_fds(r, e);
				fresh = true;
				if (open_entry(r, e, pid))
					return errno == EACCES || errno == EPERM ? 2 : 1;
				continue;
			}
			rc = errno == EACCES || errno == EPERM ? 2 : 1;
			drop_fds(r, e);
			return rc;
		}
		memset(p, 0, sizeof(*p));
		if (mw_proc_parse_stat(buf, p, &start_ticks, &perr)) {
			drop_fds(r, e);
			return 2;
		}
		if (!fresh && start_ticks != e->start_ticks) {
			/* a new process with the old one's pid (only a
			 * constructed tree can show this through a kept fd) */
			drop_fds(r, e);
			fresh = true;
			if (open_entry(r, e, pid))
				return errno == EACCES || errno == EPERM ? 2 : 1;
			continue;
		}
		break;
	}
	e->pid = p->pid;
	e->start_ticks = start_ticks;
	if (fresh) {
		/* everything, at once; cadences start spread by pid */
		e->last = *p;	/* comm as the name, until looked up */
		rc = read_status(r, e, pid, buf, sizeof(buf));
		if (rc) {
			drop_fds(r, e);
			return rc < 0 && (errno == EACCES || errno == EPERM) ? 2 : 1;
		}
		status_read = true;
		if (e->probed && !is_process(buf, e->pid)) {
			drop_fds(r, e);
			return 1;	/* a thread's id: its process is read on its own */
		}
		look_up_name(r, pid, &e->last);
		count_fds(r, e, pid);
		if (!e->has_mm && e->statm_fd >= 0) {
			close(e->statm_fd);	/* all zeros: not worth a descriptor */
			e->statm_fd = -1;
		}
		e->status_due_ns = first_due(now, r->status_ns, e->pid);
		e->handles_due_ns = first_due(now, r->handles_ns, e->pid);
		e->stat_due_ns = first_due(now, r->stat_ns, e->pid);
	} else {
		if (e->stat_due_ns == RESPREAD)
			e->stat_due_ns = first_due(now, r->stat_ns, e->pid) - 1;
		if (now >= e->stat_due_ns)
			e->stat_due_ns = next_due(e->stat_due_ns, now, r->stat_ns);
		if (e->status_due_ns == RESPREAD)
			e->status_due_ns = first_due(now, r->status_ns, e->pid) - 1;
		if (e->handles_due_ns == RESPREAD)
			e->handles_due_ns = first_due(now, r->handles_ns, e->pid) - 1;
		if (e->no_statm || now >= e->status_due_ns) {
			rc = read_status(r, e, pid, buf, sizeof(buf));
			if (rc) {
				drop_fds(r, e);
				return rc < 0 && (errno == EACCES || errno == EPERM) ? 2 : 1;
			}
			e->status_due_ns = next_due(e->status_due_ns, now, r->status_ns);
			status_read = true;
		}
		if (now >= e->handles_due_ns) {
			count_fds(r, e, pid);
			e->handles_due_ns = next_due(e->handles_due_ns, now, r->handles_ns);
		}
	}
	/* this tick's stat figures over the carried ones */
	e->last.pid = p->pid;
	e->last.ppid = p->ppid;
	e->last.page_faults = p->page_faults;
	e->last.threads = p->threads;
	e->last.virtual_bytes = p->virtual_bytes;
	e->last.start_ticks = start_ticks;
	e->last.start_ms = r->boot_ms + (int64_t)(start_ticks * 1000 / (uint64_t)r->ticks_per_s);
	if (e->has_mm && !e->no_statm) {
		if (read_statm(r, e, pid, have_statm && !fresh ? mbuf : NULL, &resident, &shared,
			       &data)) {
			if (errno == ENOENT && e->statm_fd < 0 && fresh) {
				e->no_statm = true;	/* a tree without statm */
			} else {
				drop_fds(r, e);
				return 1;	/* gone since stat */
			}
		} else {
			mw_proc_apply_statm(&e->last, resident, shared, data);
			if (status_read) {
				e->statm_at_status = e->statm_len ? statm_hash(e->statm_text,
									      e->statm_len) : 0;
				e->status_read_ns = now;
			}
		}
	}
	*p = e->last;
	return 0;
}

/* pid in decimal, ending just before end (snprintf for every process of
 * every tick was a fortieth of the collector). */
static const char *pid_text(uint32_t pid, char *end)
{
	*--end = '\0';
	do {
		*--end = (char)('0' + pid % 10);
		pid /= 10;
	} while (pid);
	return end;
}

/* The last pid handed out in our namespace (/proc/loadavg's last
 * field).  0, or -1 where it cannot be had. */
static int last_pid(struct mw_process_reader *r, uint64_t *out)
{
	char buf[128], *sp;

	if (r->loadavg_fd < 0 || pread_file(r->loadavg_fd, buf, sizeof(buf)) < 0)
		return -1;
	sp = strrchr(buf, ' ');
	if (!sp || sp[1] < '0' || sp[1] > '9')
		return -1;
	*out = strtoull(sp + 1, NULL, 10);
	return 0;
}

/* One listed (or known) process into t: known (its entry, read in
 * place and kept) or NULL (a new one, into r->fresh). */
static void visit(struct mw_process_reader *r, struct mw_process_table *t,
		  struct proc_entry *known, const char *pid, int64_t now)
{
	struct mw_process_info *p;
	struct proc_entry *e = known;
	int rc;

	if (!e) {
		MW_GROW(r->fresh, r->fresh_cap, r->nfresh + 1);
		e = &r->fresh[r->nfresh];
	}
	p = mw_process_table_add(t);
	rc = read_one(r, e, !known, pid, p, now);
	if (rc) {
		t->nprocs--;
		if (rc == 2)
			t->inaccessible++;
		return;	/* a known one stays untaken: dropped at the tick's end */
	}
	if (known)
		known->taken = true;
	else
		r->nfresh++;
}

/* The tick's end: the known processes not read again go (with their
 * descriptors), the new ones are merged in by pid. */
static void settle_entries(struct mw_process_reader *r)
{
	size_t i, n = 0, k;

	for (i = 0; i < r->nents; i++) {
		if (!r->ents[i].taken) {
			drop_fds(r, &r->ents[i]);
			continue;
		}
		r->ents[i].taken = false;
		if (n != i)
			r->ents[n] = r->ents[i];
		n++;
	}
	r->nents = n;
	if (!r->nfresh)
		return;
	qsort(r->fresh, r->nfresh, sizeof(*r->fresh), entry_cmp);
	MW_GROW(r->ents, r->ents_cap, n + r->nfresh);
	/* from the back, so the known ones move at most once */
	i = n;
	k = r->nfresh;
	while (k) {
		if (i && r->ents[i - 1].pid > r->fresh[k - 1].pid) {
			r->ents[i + k - 1] = r->ents[i - 1];
			i--;
		} else {
			r->ents[i + k - 1] = r->fresh[k - 1];
			k--;
		}
	}
	r->nents = n + r->nfresh;
	r->nfresh = 0;
	/* the first tick (every process new) or a burst of new ones: the
	 * room goes, a few a tick come back */
	if (r->fresh_cap > FRESH_KEEP) {
		free(r->fresh);
		r->fresh = NULL;
		r->fresh_cap = 0;
	}
}

/* The pids from..to (none if from is 0), handed out since the last tick,
 * tried by number; known ones were read with the rest.  One that proves
 * inaccessible counts as the last readdir's did, until the next. */
static void probe_new(struct mw_process_reader *r, struct mw_process_table *t,
		      uint64_t from, uint64_t to, int64_t now)
{
	uint64_t id;

	if (!from)
		return;
	r->probing = true;
	for (id = from; id <= to && id <= UINT32_MAX; id++) {
		char pid[16];
		size_t before = t->inaccessible;

		if (find_entry(r, (uint32_t)id))
			continue;	/* its owner was read, reused or not */
		visit(r, t, NULL, pid_text((uint32_t)id, pid + sizeof(pid)), now);
		r->scan_inaccessible += t->inaccessible - before;
	}
	r->probing = false;
}

int mw_process_table_read_at(struct mw_process_reader *r, struct mw_process_table *t,
			     int64_t now_ns, struct mw_err *err)
{
	bool scan = true;
	uint64_t lp = 0, probe_from = 0, probe_to = 0;
	size_t i;

	/* before the readdir: a fork during it shows at the next tick */
	if (last_pid(r, &lp) == 0) {
		scan = !r->have_last_pid || lp != r->last_pid || now_ns < r->last_scan_ns ||
		       now_ns - r->last_scan_ns >= RESCAN_NS;
		if (scan && r->probe && r->have_last_pid && lp > r->last_pid &&
		    lp - r->last_pid <= PROBE_MAX && now_ns >= r->last_scan_ns &&
		    now_ns - r->last_scan_ns < RESCAN_NS) {
			probe_from = r->last_pid + 1;	/* a few new pids: try them */
			probe_to = lp;
			scan = false;
		}
		r->last_pid = lp;
		r->have_last_pid = true;
	}
	t->nprocs = 0;
	t->inaccessible = 0;
	r->nfresh = 0;
	memset(&r->stats, 0, sizeof(r->stats));
	if (scan) {
		DIR *proc = opendir(r->root);
		struct dirent *de;

		if (!proc) {
			r->have_last_pid = false;
			return mw_error(err, "cannot open %s: %s", r->root, strerror(errno));
		}
		while ((de = readdir(proc))) {
			unsigned long pid;
			char *end;

			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			pid = strtoul(de->d_name, &end, 10);
			if (*end || pid == 0 || pid > UINT32_MAX)
				continue;
			visit(r, t, find_entry(r, (uint32_t)pid), de->d_name, now_ns);
		}
		closedir(proc);
		r->last_scan_ns = now_ns;
		r->scan_inaccessible = t->inaccessible;
		r->stats.scanned = true;
	} else {
		/* no new pid since: the known processes are all there is */
		for (i = 0; i < r->nents; i++) {
			char pid[16];

			visit(r, t, &r->ents[i], pid_text(r->ents[i].pid, pid + sizeof(pid)), now_ns);
		}
		t->inaccessible += r->scan_inaccessible;
		probe_new(r, t, probe_from, probe_to, now_ns);
	}
	settle_entries(r);
	return 0;
}

int mw_process_table_read(struct mw_process_reader *r, struct mw_process_table *t,
			  struct mw_err *err)
{
	return mw_process_table_read_at(r, t, mw_clock_mono_ns(), err);
}

const char *mw_process_pss_source(void)
{
	return "smaps_rollup";
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
