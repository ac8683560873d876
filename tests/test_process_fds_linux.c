/* test_process_fds_linux.c - the Linux process reader's kept descriptors
 * and cadences (process_linux.c):
 *
 *   - a descriptor on /proc/PID/stat of a process that died reads nothing
 *     (ESRCH or 0 bytes), even once a new process has the same pid (made
 *     with clone3's set_tid where we may; skipped otherwise), and the
 *     reader opens new ones for the new process;
 *   - a process that exits has its descriptors closed;
 *   - with no room for descriptors everything is read by path, the same;
 *   - our own figures: statm's resident is split exactly (anon + file +
 *     shmem = working set);
 *   - on a constructed tree with statm: working set and RssAnon follow
 *     statm every read, swap and the peak from status only when its
 *     cadence comes round, the open-fd count on its own cadence;
 *   - /proc is listed again only when a pid was handed out (loadavg's
 *     last pid moved) or 10 s passed; a child forked between two reads
 *     of the real /proc is always found;
 *   - a few new pids are tried by number instead of a listing, and a
 *     thread's id among them (its /proc/TID opens) is not taken for a
 *     process.
 *
 * The child processes are this test's own, stopped by pid. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "collectors/process.h"
#include "tests/support/process_find.h"
#include "tests/support/test_main.h"

#define SEC 1000000000LL

/* A child that waits to be killed; ready once it wrote to the pipe. */
static void child_body(int wfd)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	alarm(120);
	if (write(wfd, "x", 1) != 1)
		_exit(1);
	for (;;)
		pause();
}

static pid_t start_child(void)
{
	int p[2];
	char c;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		child_body(p[1]);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

static void stop_child(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* A thread that says its id on ready and waits until hold is closed. */
static int thread_ready[2], thread_hold[2];
static pid_t thread_tid;

static void *thread_body(void *arg)
{
	char c;

	(void)arg;
	__atomic_store_n(&thread_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	if (write(thread_ready[1], "x", 1) != 1)
		return NULL;
	while (read(thread_hold[0], &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void new_pids_tried_by_number(void **state)
{
	int64_t now = 1 * SEC;
	int attempt, probed = 0;
	struct mw_process_read_stats rs;
	struct mw_process_table t;
	struct mw_err err = { "" };
	struct mw_process_reader *r = mw_process_reader_new();

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(mw_process_table_read_at(r, &t, now, &err), 0);
	/* the machine hands out pids of its own meanwhile: more than the
	 * reader tries by number makes it list /proc; a few attempts */
	for (attempt = 0; attempt < 5 && !probed; attempt++) {
		pthread_t th;
		char c;
		pid_t kid;

		assert_int_equal(mw_process_table_read_at(r, &t, now += SEC, &err), 0);
		assert_int_equal(pipe(thread_ready), 0);
		assert_int_equal(pipe(thread_hold), 0);
		assert_int_equal(pthread_create(&th, NULL, thread_body, NULL), 0);
		assert_int_equal(read(thread_ready[0], &c, 1), 1);
		kid = start_child();
		assert_int_equal(mw_process_table_read_at(r, &t, now += SEC, &err), 0);
		mw_process_reader_stats(r, &rs);
		probed += !rs.scanned;
		assert_non_null(mw_test_process_find(&t, (uint32_t)kid));
		assert_true(thread_tid != getpid());
		assert_null(mw_test_process_find(&t, (uint32_t)thread_tid));
		assert_non_null(mw_test_process_find(&t, (uint32_t)getpid()));
		/* the child holds a copy of thread_hold's write end (forked
		 * after the pipe): it goes first, or the thread waits for the
		 * child's alarm (2 minutes) to see the end */
		stop_child(kid);
		close(thread_hold[1]);	/* the thread reads the end and returns */
		pthread_join(th, NULL);
		close(thread_hold[0]);
		close(thread_ready[0]);
		close(thread_ready[1]);
	}
	assert_true(probed > 0);
	mw_process_table_release(&t);
	mw_process_reader_free(r);
}

#ifdef SYS_clone3
struct clone_args_v1 {	/* the kernel's struct clone_args, CLONE_ARGS_SIZE_VER1 */
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
	uint64_t set_tid, set_tid_size;
};
#endif

/* A child with exactly this pid, or -1 (errno) where that is not allowed. */
static pid_t start_child_as(pid_t want)
{
#ifdef SYS_clone3
	struct clone_args_v1 a;
	pid_t tid = want;
	int p[2];
	long rc;
	char c;

	memset(&a, 0, sizeof(a));
	a.exit_signal = SIGCHLD;
	a.set_tid = (uint64_t)(uintptr_t)&tid;
	a.set_tid_size = 1;
	if (pipe(p))
		return -1;
	rc = syscall(SYS_clone3, &a, sizeof(a));
	if (rc == 0) {
		close(p[0]);
		child_body(p[1]);
	}
	close(p[1]);
	if (rc < 0) {
		int e = errno;

		close(p[0]);
		errno = e;
		return -1;
	}
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	return (pid_t)rc;
#else
	(void)want;
	errno = ENOSYS;
	return -1;
#endif
}

static uint64_t start_ticks_of(pid_t pid)
{
	char path[64], buf[1024];
	struct mw_process_info p;
	struct mw_err err;
	uint64_t st = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_int_equal(mw_proc_parse_stat(buf, &p, &st, &err), 0);
	return st;
}

static void dead_process_descriptor_reads_nothing(void **state)
{
	struct mw_process_reader *r = mw_process_reader_new();
	struct mw_process_table t;
	struct mw_process_read_stats rs;
	struct mw_err err = { "" };
	pid_t a = start_child(), b;
	char path[64], buf[1024];
	size_t kept;
	ssize_t n;
	int fd;

	(void)state;
	memset(&t, 0, sizeof(t));
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)a);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(mw_process_table_read_at(r, &t, 1 * SEC, &err), 0);
	assert_non_null(mw_test_process_find(&t, (uint32_t)a));
	mw_process_reader_stats(r, &rs);
	assert_true(rs.kept > 0);
	kept = rs.kept;
	stop_child(a);
	errno = 0;
	n = pread(fd, buf, sizeof(buf), 0);
	assert_true(n == 0 || (n < 0 && errno == ESRCH));
	/* the same pid for someone else */
	b = start_child_as(a);
	if (b < 0) {
		close(fd);
		/* without it: the dead one is left out, its descriptors closed */
		assert_int_equal(mw_process_table_read_at(r, &t, 2 * SEC, &err), 0);
		assert_null(mw_test_process_find(&t, (uint32_t)a));
		mw_process_reader_stats(r, &rs);
		assert_true(rs.kept < kept);
		mw_process_table_release(&t);
		mw_process_reader_free(r);
		print_message("clone3 set_tid refused (%s): pid reuse not constructed\n",
			      strerror(errno));
		skip();
	}
	assert_int_equal(b, a);
	errno = 0;
	n = pread(fd, buf, sizeof(buf), 0);
	assert_true(n == 0 || (n < 0 && errno == ESRCH));	/* never the new process */
	close(fd);
	assert_int_equal(mw_process_table_read_at(r, &t, 2 * SEC, &err), 0);
	assert_non_null(mw_test_process_find(&t, (uint32_t)b));
	assert_true(mw_test_process_find(&t, (uint32_t)b)->start_ticks == start_ticks_of(b));
	mw_process_reader_stats(r, &rs);
	assert_true(rs.opened >= 1);	/* new descriptors for the new process */
	stop_child(b);
	assert_int_equal(mw_process_table_read_at(r, &t, 3 * SEC, &err), 0);
	assert_null(mw_test_process_find(&t, (uint32_t)b));
	mw_process_table_release(&t);
	mw_process_reader_free(r);
}

static void child_forked_between_reads_is_found(void **state)
{
	struct mw_process_reader *r = mw_process_reader_new();
	struct mw_process_table t;
	struct mw_err err = { "" };
	pid_t kid;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(mw_process_table_read_at(r, &t, 1 * SEC, &err), 0);
	assert_int_equal(mw_process_table_read_at(r, &t, 2 * SEC, &err), 0);
	kid = start_child();
	assert_int_equal(mw_process_table_read_at(r, &t, 3 * SEC, &err), 0);
	assert_non_null(mw_test_process_find(&t, (uint32_t)kid));
	stop_child(kid);
	assert_int_equal(mw_process_table_read_at(r, &t, 4 * SEC, &err), 0);
	assert_null(mw_test_process_find(&t, (uint32_t)kid));
	mw_process_table_release(&t);
	mw_process_reader_free(r);
}

static void exited_process_descriptors_are_closed(void **state)
{
	struct mw_process_reader *r = mw_process_reader_new();
	struct mw_process_table t;
	struct mw_process_read_stats rs;
	struct mw_err err = { "" };
	pid_t kids[8];
	size_t i, before;

	(void)state;
	memset(&t, 0, sizeof(t));
	for (i = 0; i < 8; i++)
		kids[i] = start_child();
	assert_int_equal(mw_process_table_read_at(r, &t, 1 * SEC, &err), 0);
	mw_process_reader_stats(r, &rs);
	before = rs.kept;
	for (i = 0; i < 8; i++) {
		assert_non_null(mw_test_process_find(&t, (uint32_t)kids[i]));
		stop_child(kids[i]);
	}
	assert_int_equal(mw_process_table_read_at(r, &t, 2 * SEC, &err), 0);
	for (i = 0; i < 8; i++)
		assert_null(mw_test_process_find(&t, (uint32_t)kids[i]));
	mw_process_reader_stats(r, &rs);
	/* other processes of the machine may come and go meanwhile */
	assert_true(rs.kept + 8 <= before + rs.opened);
	mw_process_table_release(&t);
	mw_process_reader_free(r);
}

static void no_room_reads_by_path(void **state)
{
	struct mw_process_reader *r = mw_process_reader_new();
	struct mw_process_table t;
	struct mw_process_read_stats rs;
	struct mw_err err = { "" };
	const struct mw_process_info *p;
	int round;

	(void)state;
	memset(&t, 0, sizeof(t));
	mw_process_reader_set_fd_cap(r, 0);
	for (round = 1; round <= 2; round++) {
		assert_int_equal(mw_process_table_read_at(r, &t, round * SEC, &err), 0);
		mw_process_reader_stats(r, &rs);
		assert_int_equal(rs.kept, 0);
		assert_int_equal(rs.opened, 0);
		p = mw_test_process_find(&t, (uint32_t)getpid());
		assert_non_null(p);
		assert_true(p->working_set_bytes > 0 && p->threads >= 1 && p->has_kinds);
		assert_true(p->has_handles && p->handles >= 3);
	}
	mw_process_table_release(&t);
	mw_process_reader_free(r);
}

static void own_resident_split_exactly(void **state)
{
	struct mw_process_reader *r = mw_process_reader_new();
	struct mw_process_table t;
	struct mw_err err = { "" };
	const struct mw_process_info *p;
	char *big;

	(void)state;
	memset(&t, 0, sizeof(t));
	assert_int_equal(mw_process_table_read_at(r, &t, 1 * SEC, &err), 0);
	big = malloc(32 << 20);
	assert_non_null(big);
	memset(big, 1, 32 << 20);
	/* 1 s later: status is not due (10 s), statm is read */
	assert_int_equal(mw_process_table_read_at(r, &t, 2 * SEC, &err), 0);
	p = mw_test_process_find(&t, (uint32_t)getpid());
	assert_non_null(p);
	assert_true(p->has_kinds);
	assert_true(p->rss_anon_bytes + p->rss_file_bytes + p->rss_shmem_bytes ==
		    p->working_set_bytes);
	assert_true(p->rss_anon_bytes >= 30u << 20);
	assert_true(p->private_ws_bytes == p->rss_anon_bytes);
	assert_true(p->working_set_peak_bytes >= p->working_set_bytes);
	assert_true(p->private_bytes >= p->rss_anon_bytes);
	free(big);
	mw_process_table_release(&t);
	mw_process_reader_free(r);
}

/* Descriptors of ours open on /proc/PID/status; the last one in *fd. */
static int status_fds_of(pid_t pid, int *fd)
{
	char want[64], path[64], target[128];
	int i, n = 0;
	ssize_t len;

	snprintf(want, sizeof(want), "/proc/%d/status", (int)pid);
	for (i = 0; i < 4096; i++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", i);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (!strcmp(target, want)) {
			n++;
			*fd = i;
		}
	}
	return n;
}

static void status_read_through_kept_descriptor(void **state)
{
	struct mw_process_reader *r = mw_process_reader_new();
	struct mw_process_table t;
	struct mw_err err = { "" };
	const struct mw_process_info *p;
	uint64_t resident;
	int fd = -1, again = -1;
	char *big;

	(void)state;
	memset(&t, 0, sizeof(t));
	mw_process_reader_set_cadence(r, 0, 30000, 10000);	/* status every tick */
	assert_int_equal(status_fds_of(getpid(), &fd), 0);
	assert_int_equal(mw_process_table_read_at(r, &t, 1 * SEC, &err), 0);
	p = mw_test_process_find(&t, (uint32_t)getpid());
	assert_non_null(p);
	resident = p->working_set_bytes;
	assert_int_equal(status_fds_of(getpid(), &fd), 1);	/* kept, once */
	/* a peak that only status shows: grown and given back before the tick */
	big = mmap(NULL, 64 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(big != MAP_FAILED);
	memset(big, 1, 64 << 20);
	assert_int_equal(munmap(big, 64 << 20), 0);
	assert_int_equal(mw_process_table_read_at(r, &t, 2 * SEC, &err), 0);
	p = mw_test_process_find(&t, (uint32_t)getpid());
	assert_non_null(p);
	assert_true(p->working_set_peak_bytes >= resident + (60u << 20));
	assert_int_equal(status_fds_of(getpid(), &again), 1);	/* the same one */
	assert_int_equal(again, fd);
	mw_process_table_release(&t);
	mw_process_reader_free(r);
	assert_int_equal(status_fds_of(getpid(), &fd), 0);	/* closed with the reader */
}

/* --- cadences on a constructed tree -------------------------------------- */

static char root[256];

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");	/* same file rewritten: a kept fd sees it */
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	fclose(f);
}

static void status_of(uint64_t hwm_kb, uint64_t shmem_kb, uint64_t swap_kb)
{
	char text[512];

	snprintf(text, sizeof(text), "Name:\tx\nVmHWM:\t %llu kB\nVmRSS:\t 200 kB\n"
		 "RssAnon:\t 120 kB\nRssFile:\t 60 kB\nRssShmem:\t %llu kB\nVmSwap:\t %llu kB\n",
		 (unsigned long long)hwm_kb, (unsigned long long)shmem_kb,
		 (unsigned long long)swap_kb);
	put("10/status", text);
}

static void statm_of(uint64_t resident_pages, uint64_t shared_pages)
{
	char text[128];

	snprintf(text, sizeof(text), "1000 %llu %llu 10 0 300 0\n",
		 (unsigned long long)resident_pages, (unsigned long long)shared_pages);
	put("10/statm", text);
}

/* stat of pid 10: minflt + majflt page faults, threads */
static void stat_of(unsigned minflt, unsigned majflt, unsigned threads)
{
	char text[256];

	snprintf(text, sizeof(text), "10 (x) S 1 1 1 0 -1 0 %u 0 %u 0 1 1 0 0 20 0 %u 0 500 "
		 "4096000 100 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0\n", minflt, majflt, threads);
	put("10/stat", text);
}

/* A tree in root with pid 10 (stat, statm, status, one fd). */
static void make_tree(void)
{
	char path[512];

	snprintf(root, sizeof(root), "%s/mwprocfd.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/10", root);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/10/fd", root);
	assert_int_equal(mkdir(path, 0755), 0);
	put("10/fd/0", "");
	put("stat", "cpu 1 2 3\nbtime 1700000000\n");
	stat_of(10, 2, 1);
	status_of(300, 20, 4);
	statm_of(50, 20);
}

static void remove_tree(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* stat is read when statm moved, else at least every stat_ms; in between
 * its figures (page faults, threads) are carried. */
/* A reader on a freshly made tree with these cadences (ms). */
static struct mw_process_reader *tree_reader(struct mw_process_table *t, int64_t status_ms,
					     int64_t handles_ms, int64_t stat_ms)
{
	struct mw_process_reader *r;

	make_tree();
	memset(t, 0, sizeof(*t));
	r = mw_process_reader_new_at(root);
	mw_process_reader_set_cadence(r, status_ms, handles_ms, stat_ms);
	return r;
}

/* One read of the constructed tree at time at, and its counts. */
static void read_tree(struct mw_process_reader *r, struct mw_process_table *t, int64_t at,
		      struct mw_process_read_stats *rs)
{
	struct mw_err err = { "" };

	if (mw_process_table_read_at(r, t, at, &err))
		fail_msg("%s", err.msg);
	mw_process_reader_stats(r, rs);
}

static void stat_follows_statm(void **state)
{
	struct mw_process_reader *r;
	struct mw_process_table t;
	struct mw_process_read_stats rs;
	const struct mw_process_info *p;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	int64_t now = 100 * SEC;

	(void)state;
	/* status and fd counts out of the way: an hour */
	r = tree_reader(&t, 3600000, 3600000, 10000);
	read_tree(r, &t, now, &rs);
	assert_int_equal(rs.stat_reads, 1);
	p = mw_test_process_find(&t, 10);
	assert_true(p->page_faults == 12 && p->threads == 1);
	/* stat moved, statm did not: carried */
	stat_of(50, 2, 3);
	read_tree(r, &t, now + SEC, &rs);
	assert_int_equal(rs.stat_reads, 0);
	assert_int_equal(rs.stat_skipped, 1);
	p = mw_test_process_find(&t, 10);
	assert_true(p->page_faults == 12 && p->threads == 1);
	assert_true(p->working_set_bytes == 50 * pg);
	/* statm moved: stat read in the same tick */
	statm_of(60, 20);
	read_tree(r, &t, now + 2 * SEC, &rs);
	assert_int_equal(rs.stat_reads, 1);
	p = mw_test_process_find(&t, 10);
	assert_true(p->page_faults == 52 && p->threads == 3);
	assert_true(p->working_set_bytes == 60 * pg);
	/* statm still: carried until the due time, which lies within the
	 * first interval (spread by pid), then one interval on from there */
	stat_of(90, 2, 4);
	read_tree(r, &t, now + 3 * SEC, &rs);
	p = mw_test_process_find(&t, 10);
	assert_true(p->page_faults == 52);
	read_tree(r, &t, now + 21 * SEC, &rs);
	assert_int_equal(rs.stat_reads, 1);
	p = mw_test_process_find(&t, 10);
	assert_true(p->page_faults == 92 && p->threads == 4);
	/* and then not before the next due time (pid 10's due times lie at
	 * 1.8 s past the 10 s grid from the first read: 21.8 s next) */
	stat_of(100, 2, 4);
	read_tree(r, &t, now + 21 * SEC + SEC / 2, &rs);
	assert_int_equal(rs.stat_reads, 0);
	assert_true(mw_test_process_find(&t, 10)->page_faults == 92);
	read_tree(r, &t, now + 22 * SEC, &rs);
	assert_int_equal(rs.stat_reads, 1);
	assert_true(mw_test_process_find(&t, 10)->page_faults == 102);
	stat_of(110, 2, 4);
	/* cadence 0: every tick */
	mw_process_reader_set_cadence(r, 3600000, 3600000, 0);
	read_tree(r, &t, now + 23 * SEC, &rs);
	assert_int_equal(rs.stat_reads, 1);
	assert_true(mw_test_process_find(&t, 10)->page_faults == 112);
	mw_process_table_release(&t);
	mw_process_reader_free(r);
	remove_tree();
}

/* status of a process whose statm sits still is put off, up to six
 * intervals; once statm moves it is read when due again. */
static void status_follows_statm(void **state)
{
	struct mw_process_reader *r;
	struct mw_process_table t;
	struct mw_process_read_stats rs;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	int64_t now = 100 * SEC;

	(void)state;
	r = tree_reader(&t, 10000, 3600000, 3600000);
	read_tree(r, &t, now, &rs);
	assert_int_equal(rs.status_reads, 1);
	assert_true(mw_test_process_find(&t, 10)->swap_bytes == 4096);
	/* status moved, statm did not: due (within 10 s) but put off */
	status_of(900, 20, 8);
	read_tree(r, &t, now + 11 * SEC, &rs);
	assert_int_equal(rs.status_reads, 0);
	assert_int_equal(rs.status_still, 1);
	assert_true(mw_test_process_find(&t, 10)->swap_bytes == 4096);	/* carried */
	/* six intervals after its read: read however still */
	read_tree(r, &t, now + 61 * SEC, &rs);
	assert_int_equal(rs.status_reads, 1);
	assert_int_equal(rs.status_still, 0);
	assert_true(mw_test_process_find(&t, 10)->swap_bytes == 8192);
	/* statm moved: read at its next due time, not put off */
	status_of(900, 20, 16);
	statm_of(80, 20);
	read_tree(r, &t, now + 72 * SEC, &rs);
	assert_int_equal(rs.status_reads, 1);
	assert_int_equal(rs.status_still, 0);
	assert_true(mw_test_process_find(&t, 10)->swap_bytes == 16384);
	assert_true(mw_test_process_find(&t, 10)->working_set_bytes == 80 * pg);
	/* cadence 0: every tick, still or not */
	mw_process_reader_set_cadence(r, 0, 3600000, 3600000);
	read_tree(r, &t, now + 73 * SEC, &rs);
	read_tree(r, &t, now + 74 * SEC, &rs);
	assert_int_equal(rs.status_reads, 1);
	assert_int_equal(rs.status_still, 0);
	mw_process_table_release(&t);
	mw_process_reader_free(r);
	remove_tree();
}

static void cadences_on_a_constructed_tree(void **state)
{
	struct mw_process_reader *r;
	struct mw_process_table t;
	struct mw_process_read_stats rs;
	const struct mw_process_info *p;
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	char path[512];
	int64_t now = 100 * SEC;

	(void)state;
	r = tree_reader(&t, 10000, 30000, 10000);
	/* first read: everything */
	read_tree(r, &t, now, &rs);
	assert_int_equal(rs.status_reads, 1);
	assert_int_equal(rs.handle_counts, 1);
	p = mw_test_process_find(&t, 10);
	assert_non_null(p);
	assert_true(p->working_set_bytes == 50 * pg);
	assert_true(p->rss_anon_bytes == 30 * pg);
	assert_true(p->rss_file_bytes + p->rss_shmem_bytes == 20 * pg);
	assert_true(p->swap_bytes == 4096 && p->private_bytes == 30 * pg + 4096);
	assert_true(p->has_handles && p->handles == 1);
	/* 1 s later: statm moved, status changed but is not due */
	statm_of(70, 20);
	status_of(900, 20, 8);
	put("10/fd/1", "");
	read_tree(r, &t, now + SEC, &rs);
	assert_int_equal(rs.status_reads, 0);
	assert_int_equal(rs.handle_counts, 0);
	p = mw_test_process_find(&t, 10);
	assert_true(p->working_set_bytes == 70 * pg);
	assert_true(p->rss_anon_bytes == 50 * pg);
	assert_true(p->private_ws_bytes == 50 * pg);
	assert_true(p->swap_bytes == 4096);		/* carried */
	assert_true(p->private_bytes == 50 * pg + 4096);
	assert_true(p->working_set_peak_bytes >= 70 * pg);
	assert_true(p->handles == 1);			/* carried */
	/* past both intervals (the first due time lies somewhere in the
	 * first interval, spread by pid): status and the fd count are read */
	read_tree(r, &t, now + 31 * SEC, &rs);
	assert_int_equal(rs.status_reads, 1);
	assert_int_equal(rs.handle_counts, 1);
	p = mw_test_process_find(&t, 10);
	assert_true(p->swap_bytes == 8192);
	assert_true(p->working_set_peak_bytes == (900 * 1024 > 70 * pg ? 900 * 1024 : 70 * pg));
	assert_true(p->working_set_bytes == 70 * pg);	/* still statm's */
	assert_true(p->handles == 2);
	/* and not again at the next tick */
	read_tree(r, &t, now + 32 * SEC, &rs);
	assert_int_equal(rs.status_reads, 0);
	assert_int_equal(rs.handle_counts, 0);
	/* cadence 0: every read */
	mw_process_reader_set_cadence(r, 0, 0, 0);
	read_tree(r, &t, now + 33 * SEC, &rs);
	assert_int_equal(rs.status_reads, 1);
	assert_int_equal(rs.handle_counts, 1);
	/* a new pid directory while loadavg's last pid stays: not listed
	 * (the known processes are read again) until the pid moves */
	put("loadavg", "0.00 0.00 0.00 1/1 100\n");
	mw_process_reader_free(r);
	r = mw_process_reader_new_at(root);
	read_tree(r, &t, now, &rs);
	assert_true(rs.scanned);
	snprintf(path, sizeof(path), "%s/20", root);
	assert_int_equal(mkdir(path, 0755), 0);
	put("20/stat", "20 (y) S 1 1 1 0 -1 0 10 0 2 0 1 1 0 0 20 0 1 0 600 "
	    "4096000 100 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0\n");
	put("20/status", "Name:\ty\nVmHWM:\t 8 kB\nVmRSS:\t 8 kB\n");
	read_tree(r, &t, now + SEC, &rs);
	assert_false(rs.scanned);
	assert_non_null(mw_test_process_find(&t, 10));
	assert_null(mw_test_process_find(&t, 20));
	put("loadavg", "0.00 0.00 0.00 1/2 101\n");
	read_tree(r, &t, now + 2 * SEC, &rs);
	assert_true(rs.scanned);
	assert_non_null(mw_test_process_find(&t, 20));
	/* and at least every 10 s regardless */
	read_tree(r, &t, now + 3 * SEC, &rs);
	assert_false(rs.scanned);
	read_tree(r, &t, now + 12 * SEC, &rs);
	assert_true(rs.scanned);
	mw_process_table_release(&t);
	mw_process_reader_free(r);
	remove_tree();
}

/* A process pid in the tree: its stat with pid page faults and pid % 7
 * threads, its statm with pid resident pages (each figure its own). */
static void add_pid(unsigned pid)
{
	char rel[64], text[256];

	snprintf(text, sizeof(text), "%s/%u", root, pid);
	assert_int_equal(mkdir(text, 0755), 0);
	snprintf(rel, sizeof(rel), "%u/stat", pid);
	snprintf(text, sizeof(text), "%u (p%u) S 1 1 1 0 -1 0 %u 0 0 0 1 1 0 0 20 0 %u 0 %u "
		 "4096000 100 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0\n", pid, pid, pid, pid % 7 + 1,
		 500 + pid);
	put(rel, text);
	snprintf(rel, sizeof(rel), "%u/statm", pid);
	snprintf(text, sizeof(text), "1000 %u 5 10 0 300 0\n", pid);
	put(rel, text);
	snprintf(rel, sizeof(rel), "%u/status", pid);
	put(rel, "Name:\tp\nVmHWM:\t 8 kB\nVmRSS:\t 8 kB\n");
}

/* Each of the n pids in t with its own figures. */
static void assert_pids(const struct mw_process_table *t, const unsigned *pids, size_t n)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	size_t i;

	assert_int_equal(t->nprocs, n);
	for (i = 0; i < n; i++) {
		const struct mw_process_info *p = mw_test_process_find(t, pids[i]);

		assert_non_null(p);
		assert_true(p->page_faults == pids[i]);
		assert_true(p->threads == pids[i] % 7 + 1);
		assert_true(p->working_set_bytes == pids[i] * pg);
	}
}

/* The known processes are read in place and the new ones merged in by
 * pid at the tick's end: new pids between, before and after the known
 * ones, one known gone; each keeps its own state (its kept descriptors,
 * its last statm, its carried stat figures) from then on. */
static void known_and_new_processes_keep_their_own_state(void **state)
{
	static const unsigned first[] = { 10, 30, 50 };
	static const unsigned later[] = { 5, 10, 20, 40, 50, 60 };
	struct mw_process_reader *r;
	struct mw_process_table t;
	struct mw_process_read_stats rs;
	char cmd[600];
	int64_t now = 100 * SEC;

	(void)state;
	/* status, fd counts and stat due only after minutes (spread by pid) */
	r = tree_reader(&t, 3600000, 3600000, 3600000);
	add_pid(30);
	add_pid(50);
	read_tree(r, &t, now, &rs);
	assert_int_equal(rs.stat_reads, 3);
	assert_int_equal(rs.kept, 3);
	/* pid 10's figures of make_tree, then its own like the others */
	stat_of(10, 0, 10 % 7 + 1);
	statm_of(10, 5);
	read_tree(r, &t, now + SEC, &rs);
	assert_int_equal(rs.stat_reads, 1);
	assert_pids(&t, first, 3);
	/* 30 ends; 5, 20, 40 and 60 start */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/30'", root);
	assert_int_equal(system(cmd), 0);
	add_pid(60);
	add_pid(20);
	add_pid(5);
	add_pid(40);
	read_tree(r, &t, now + 2 * SEC, &rs);
	assert_int_equal(rs.opened, 4);
	assert_int_equal(rs.stat_reads, 4);	/* the new ones */
	assert_int_equal(rs.stat_skipped, 2);	/* 10 and 50: statm as last read */
	assert_int_equal(rs.kept, 6);
	assert_pids(&t, later, 6);
	/* all known now: every statm as last read, stat carried, each
	 * process's figures its own */
	read_tree(r, &t, now + 3 * SEC, &rs);
	assert_int_equal(rs.opened, 0);
	assert_int_equal(rs.stat_reads, 0);
	assert_int_equal(rs.stat_skipped, 6);
	assert_int_equal(rs.kept, 6);
	assert_pids(&t, later, 6);
	mw_process_table_release(&t);
	mw_process_reader_free(r);
	remove_tree();
}

MW_TEST_MAIN(
	cmocka_unit_test(dead_process_descriptor_reads_nothing),
	cmocka_unit_test(child_forked_between_reads_is_found),
	cmocka_unit_test(new_pids_tried_by_number),
	cmocka_unit_test(exited_process_descriptors_are_closed),
	cmocka_unit_test(no_room_reads_by_path),
	cmocka_unit_test(own_resident_split_exactly),
	cmocka_unit_test(status_read_through_kept_descriptor),
	cmocka_unit_test(cadences_on_a_constructed_tree),
	cmocka_unit_test(stat_follows_statm),
	cmocka_unit_test(status_follows_statm),
	cmocka_unit_test(known_and_new_processes_keep_their_own_state),
)
