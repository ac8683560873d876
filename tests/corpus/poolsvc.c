/* poolsvc.c - the pools set of the real-process leak corpus (record.sh,
 * CORPUS_SET=pools): prefork services, a master and the workers it
 * forks, all under one executable name, which memwatch groups by.  What
 * the pool does is chosen by the basename of argv[0] (the binary is
 * copied to each name):
 *
 *   lk_poolone     4 workers; worker 0 keeps 6 MiB/h of heap
 *   lk_poolall     4 workers, each keeping 1.5 MiB/h (6 MiB/h in all)
 *   lk_poolspread  4 workers, each keeping 0.4 MiB/h (1.6 MiB/h in all:
 *                  each under the smallest leak the defaults must fail)
 *   lk_poolshm     4 workers writing new pages of the master's memfd,
 *                  1 MiB/h each (4 MiB/h of shared memory in all)
 *   lk_poolforks   4 workers, and a helper forked every 2 minutes that
 *                  keeps 1 MiB and never exits (orphaned children)
 *   ok_poolchurn   4 workers serving a churn of heap blocks
 *   ok_poolrecycle 4 workers, each exiting after 3-6 minutes and replaced
 *   ok_poolshared  4 workers reading a 64 MiB shared mapping of the
 *                  master's, which each has touched whole by 12 minutes
 *   ok_poolcgi     a short-lived child every 2 s (6-12 s, 2-8 MiB each:
 *                  older than the process collector's min_age of 5 s)
 *   ok_poolidle    4 workers asleep
 *
 * Every process but the idle ones serves a churn of 3,000 heap blocks of
 * 64 B-4 KiB, 1 % replaced a second.  The leaks add what they kept to a
 * counter shared by the pool, which the master logs once a minute to
 * $CORPUS_LOG/<name>.log as "elapsed_ms leaked".  Children die with the
 * master (PR_SET_PDEATHSIG); the master stops its children by pid on
 * SIGTERM. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MiB (1024.0 * 1024.0)
#define WORKERS 4
#define MAX_KIDS 256
#define TICK_S 0.1

static const char *g_name;
static double g_t0;
static uint64_t *g_leaked;	/* shared by the pool */
static unsigned char *g_shared;	/* lk_poolshm's memfd, ok_poolshared's mapping */
static size_t g_shared_len;
static volatile sig_atomic_t g_stop;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double elapsed(void)
{
	return now_s() - g_t0;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };

	while (nanosleep(&ts, &ts) && errno == EINTR && !g_stop) {
	}
}

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t rnd_range(size_t lo, size_t hi)
{
	return lo + (size_t)(rnd() % (hi - lo + 1));
}

static void *touch_alloc(size_t n)
{
	unsigned char *p = malloc(n);

	if (!p) {
		perror("malloc");
		exit(1);
	}
	memset(p, (int)(rnd() & 0xff) | 1, n);
	return p;
}

/* a steady working set: n blocks, some replaced every tick */
struct churn {
	void **slot;
	size_t n;
};

static void churn_init(struct churn *c, size_t n)
{
	c->slot = calloc(n, sizeof(void *));
	c->n = n;
	for (size_t i = 0; i < n; i++)
		c->slot[i] = touch_alloc(rnd_range(64, 4096));
}

static void churn_step(struct churn *c)
{
	/* 1 % a second at 10 ticks a second */
	for (size_t k = 0; k < c->n / 1000; k++) {
		size_t i = rnd() % c->n;

		free(c->slot[i]);
		c->slot[i] = touch_alloc(rnd_range(64, 4096));
	}
}

/* heap kept at rate_bph from the worker's start, in blocks of 64 B-1 KiB
 * among the churn's (never freed: the list holding them is leaked too) */
struct keeper {
	double rate_bph, kept;
	void **v;
	size_t n, cap;
};

static void keep_up(struct keeper *k, double age_s)
{
	while (k->kept < k->rate_bph * age_s / 3600.0) {
		size_t sz = rnd_range(64, 1024);

		if (k->n == k->cap) {
			k->cap = k->cap ? 2 * k->cap : 4096;
			k->v = realloc(k->v, k->cap * sizeof(void *));
		}
		k->v[k->n++] = touch_alloc(sz);
		k->kept += (double)sz;
		__atomic_add_fetch(g_leaked, (uint64_t)sz, __ATOMIC_RELAXED);
	}
}

static int is(const char *name)
{
	return !strcmp(g_name, name);
}

static void worker(int index)
{
	struct churn c;
	struct keeper k = { 0 };
	double start = now_s(), life = 0, shm_done = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	rng ^= (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
	if (is("ok_poolidle")) {
		for (;;)
			sleep_s(1.0);
	}
	churn_init(&c, 3000);
	if (is("lk_poolone") && index == 0)
		k.rate_bph = 6 * MiB;
	if (is("lk_poolall"))
		k.rate_bph = 1.5 * MiB;
	if (is("lk_poolspread"))
		k.rate_bph = 0.4 * MiB;
	if (is("ok_poolrecycle"))
		life = (double)rnd_range(180, 360);
	for (;;) {
		double age = now_s() - start;

		churn_step(&c);
		if (k.rate_bph > 0)
			keep_up(&k, age);
		if (is("lk_poolshm")) {
			/* its own quarter of the memfd, a page at a time */
			size_t base = (size_t)index * (g_shared_len / WORKERS);

			while (shm_done < 1.0 * MiB * age / 3600.0 &&
			       shm_done + 4096 <= (double)(g_shared_len / WORKERS)) {
				memset(g_shared + base + (size_t)shm_done, 0x5a, 4096);
				shm_done += 4096;
				__atomic_add_fetch(g_leaked, 4096, __ATOMIC_RELAXED);
			}
		}
		if (is("ok_poolshared")) {
			/* all of it touched by 12 minutes (of the pool), then read */
			double want = (double)g_shared_len * (elapsed() / 720.0);
			volatile unsigned char sink = 0;

			while (shm_done < want && shm_done < (double)g_shared_len) {
				sink = g_shared[(size_t)shm_done];
				shm_done += 4096;
			}
			for (int i = 0; i < 64; i++)
				sink = g_shared[(rnd() % (g_shared_len / 4096)) * 4096];
			(void)sink;
		}
		if (life > 0 && age > life)
			_exit(0);
		sleep_s(TICK_S);
	}
}

/* lk_poolforks' helper: keeps 1 MiB and waits */
static void orphan(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	for (int i = 0; i < 64; i++)
		(void)touch_alloc(16384);
	__atomic_add_fetch(g_leaked, 1048576, __ATOMIC_RELAXED);
	for (;;)
		sleep_s(1.0);
}

/* ok_poolcgi's child: a request served and gone */
static void cgi(void)
{
	size_t n = rnd_range(2, 8) * 1048576;
	void *p;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	rng ^= (uint64_t)getpid() * 0x9e3779b97f4a7c15ull;
	p = touch_alloc(n);
	sleep_s((double)rnd_range(6000, 12000) / 1000.0);
	free(p);
	_exit(0);
}

static pid_t kids[MAX_KIDS];
static int kid_index[MAX_KIDS];

static void add_kid(pid_t pid, int index)
{
	for (int i = 0; i < MAX_KIDS; i++)
		if (!kids[i]) {
			kids[i] = pid;
			kid_index[i] = index;
			return;
		}
}

static pid_t spawn(void (*fn)(int), int index)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("fork");
		return -1;
	}
	if (pid == 0) {
		fn(index);
		_exit(0);
	}
	add_kid(pid, index);
	return pid;
}

static void orphan_fn(int index)
{
	(void)index;
	orphan();
}

static void cgi_fn(int index)
{
	(void)index;
	cgi();
}

static void on_term(int sig)
{
	(void)sig;
	g_stop = 1;
}

int main(int argc, char **argv)
{
	const char *slash = strrchr(argv[0], '/'), *dir = getenv("CORPUS_LOG");
	struct churn c;
	double next_log = 0, next_orphan = 120, next_cgi = 0;
	FILE *log = NULL;
	char path[512];

	(void)argc;
	g_name = slash ? slash + 1 : argv[0];
	g_t0 = now_s();
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	g_leaked = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (g_leaked == MAP_FAILED)
		return 1;
	if (is("lk_poolshm")) {
		int fd = memfd_create("lk_poolshm", 0);

		g_shared_len = 256 << 20;
		if (fd < 0 || ftruncate(fd, (off_t)g_shared_len))
			return 1;
		g_shared = mmap(NULL, g_shared_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	} else if (is("ok_poolshared")) {
		g_shared_len = 64 << 20;
		g_shared = mmap(NULL, g_shared_len, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (g_shared != MAP_FAILED)
			memset(g_shared, 0x3c, g_shared_len);	/* the master loads it */
	}
	if (g_shared == MAP_FAILED)
		return 1;
	if (dir && !strncmp(g_name, "lk_", 3)) {
		snprintf(path, sizeof(path), "%s/%s.log", dir, g_name);
		log = fopen(path, "w");
	}
	if (!is("ok_poolcgi"))
		for (int i = 0; i < WORKERS; i++)
			spawn(worker, i);
	churn_init(&c, 1000);
	while (!g_stop) {
		double e = elapsed();
		pid_t pid;
		int status;

		churn_step(&c);
		/* reap; ok_poolrecycle replaces a worker that exited */
		while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
			for (int i = 0; i < MAX_KIDS; i++)
				if (kids[i] == pid) {
					kids[i] = 0;
					if (is("ok_poolrecycle"))
						spawn(worker, kid_index[i]);
				}
		if (is("lk_poolforks") && e >= next_orphan) {
			spawn(orphan_fn, -1);
			next_orphan += 120;
		}
		if (is("ok_poolcgi"))
			for (; next_cgi <= e; next_cgi += 2.0)
				spawn(cgi_fn, -1);
		if (log && e >= next_log) {
			fprintf(log, "%.0f %llu\n", e * 1000.0,
				(unsigned long long)__atomic_load_n(g_leaked, __ATOMIC_RELAXED));
			fflush(log);
			next_log += 60;
		}
		sleep_s(TICK_S);
	}
	for (int i = 0; i < MAX_KIDS; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGKILL);
	while (wait(NULL) > 0) {
	}
	return 0;
}
