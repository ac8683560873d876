/*
 * peerload - workload and meter of the peer benchmark (bench/peers/run.sh).
 *
 * Owns two small jobs, nothing else:
 *
 *   peerload work N RATE READY_FILE
 *	Starts N idle processes, each with its own name (mwpeer000 ...
 *	mwpeerNNN, set with PR_SET_NAME), so that every tool of the benchmark,
 *	even those that group processes by name, reports each one on its
 *	own.  Their memory moves as real processes' does: one in ten grows
 *	by a page a second (a slow leak, bounded), one in ten swings by
 *	64 KB every two seconds, the rest stay flat.  With RATE > 0 it also
 *	starts RATE short-lived processes a second (mwchurn00 ... mwchurn99),
 *	living 0.2 to 8 s.  It writes READY_FILE once the N are running and
 *	stops them all (by pid) on SIGTERM or SIGINT.  Every child dies with
 *	its parent (PR_SET_PDEATHSIG), so nothing outlives the benchmark.
 *
 *   peerload tree PID...
 *	For each PID, the process and all its descendants: CPU seconds
 *	(utime + stime, plus cutime + cstime for reaped children), the sum
 *	of their resident sets (VmRSS) and of their peaks (VmHWM), and the
 *	CPU seconds of the descendant named apps.plugin (Netdata's collector)
 *	on its own.  One line per PID:
 *	    PID CPU_S RSS_KB HWM_KB NPROCS APPS_PLUGIN_CPU_S
 *
 * Built by run.sh with the system cc into its temp dir: it is a tool of the
 * benchmark, not part of memwatchd.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE		4096
#define LEAK_CAP	256	/* pages a leaking child grows to at most (1 MB) */
#define SWING_PAGES	16	/* 64 KB */
#define CHURN_NAMES	100
#define MAX_PROCS	65536

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Dies with the parent; gives up if the parent is already gone. */
static void child_setup(const char *name, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	prctl(PR_SET_NAME, name);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
}

static void touch(unsigned char *p, size_t pages)
{
	for (size_t i = 0; i < pages; i++)
		p[i * PAGE] = 1;
}

/* Child i of the idle set: a fixed base, then flat, leaking or swinging. */
static void idle_child(int i)
{
	size_t base = 16 + (size_t)(i % 8) * 16;
	size_t len = (base + LEAK_CAP + SWING_PAGES) * PAGE;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	size_t grown = 0;
	int tick = 0;

	if (p == MAP_FAILED)
		_exit(1);
	touch(p, base);
	for (;;) {
		sleep_ms(1000);
		tick++;
		if (i % 10 == 0 && grown < LEAK_CAP) {
			p[(base + grown) * PAGE] = 1;
			grown++;
		} else if (i % 10 == 1 && tick % 2 == 0) {
			unsigned char *s = p + (base + LEAK_CAP) * PAGE;

			if (tick % 4 == 0)
				touch(s, SWING_PAGES);
			else
				madvise(s, SWING_PAGES * PAGE, MADV_DONTNEED);
		}
	}
}

static void churn_child(unsigned seed)
{
	/* mostly brief, a few past memwatch's 5 s min_age */
	long ms = 200 + (long)(seed % 2800);

	if (seed % 10 == 0)
		ms = 6000 + (long)(seed % 2000);
	unsigned char *p = malloc(64 * PAGE);

	if (p)
		touch(p, 64);
	sleep_ms(ms);
	_exit(0);
}

static int work(int n, int rate, const char *ready)
{
	pid_t self = getpid();
	pid_t *kids = calloc((size_t)n, sizeof(*kids));
	struct sigaction sa;
	unsigned seed = (unsigned)self;
	int churn_no = 0;
	FILE *f;

	if (!kids)
		return 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	prctl(PR_SET_NAME, "mwpeerload");
	for (int i = 0; i < n && !stop_flag; i++) {
		char name[32];

		kids[i] = fork();
		if (kids[i] < 0) {
			perror("peerload: fork");
			stop_flag = 1;
			break;
		}
		if (kids[i] == 0) {
			snprintf(name, sizeof(name), "mwpeer%03d", i);
			child_setup(name, self);
			idle_child(i);
		}
	}
	f = fopen(ready, "w");
	if (f)
		fclose(f);
	while (!stop_flag) {
		if (rate > 0) {
			char name[32];
			pid_t c;

			seed = seed * 1103515245u + 12345u;
			c = fork();
			if (c == 0) {
				snprintf(name, sizeof(name), "mwchurn%02d",
					 churn_no % CHURN_NAMES);
				child_setup(name, self);
				churn_child(seed >> 8);
			}
			churn_no++;
			sleep_ms(1000 / rate);
		} else {
			sleep_ms(200);
		}
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	for (int i = 0; i < n; i++)
		if (kids[i] > 0)
			kill(kids[i], SIGKILL);
	for (int i = 0; i < n; i++)
		while (kids[i] > 0 && waitpid(kids[i], NULL, 0) < 0 && errno == EINTR)
			;
	/* churn children still running die with us (PR_SET_PDEATHSIG) */
	free(kids);
	return 0;
}

struct proc {
	int pid, ppid;
	double cpu_s;	/* own utime + stime + reaped children's */
	long rss_kb, hwm_kb;
	int apps_plugin;
};

static int read_proc(int pid, struct proc *p, long ticks)
{
	char path[64], buf[1024], *s;
	unsigned long ut, st;
	long cut, cst;
	FILE *f;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[len] = '\0';
	p->pid = pid;
	p->apps_plugin = strstr(buf, "(apps.plugin)") != NULL;
	/* the name may hold spaces and parentheses: fields follow the last ')' */
	s = strrchr(buf, ')');
	if (!s || sscanf(s + 2, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu %ld %ld",
			 &p->ppid, &ut, &st, &cut, &cst) != 5)
		return -1;
	p->cpu_s = (double)(ut + st + (unsigned long)cut + (unsigned long)cst) / (double)ticks;
	p->rss_kb = p->hwm_kb = 0;
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (f) {
		while (fgets(buf, sizeof(buf), f)) {
			if (!strncmp(buf, "VmRSS:", 6))
				p->rss_kb = atol(buf + 6);
			else if (!strncmp(buf, "VmHWM:", 6))
				p->hwm_kb = atol(buf + 6);
		}
		fclose(f);
	}
	return 0;
}

static int in_tree(const struct proc *all, int n, int idx, int root)
{
	/* walk up the parents; depth bounded against pid-reuse loops */
	for (int depth = 0; depth < 64; depth++) {
		int ppid;

		if (all[idx].pid == root)
			return 1;
		ppid = all[idx].ppid;
		if (ppid <= 1)
			return 0;
		idx = -1;
		for (int j = 0; j < n; j++)
			if (all[j].pid == ppid) {
				idx = j;
				break;
			}
		if (idx < 0)
			return 0;
	}
	return 0;
}

static int tree(int argc, char **argv)
{
	long ticks = sysconf(_SC_CLK_TCK);
	struct proc *all = calloc(MAX_PROCS, sizeof(*all));
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	if (!all || !d)
		return 1;
	while ((e = readdir(d)) && n < MAX_PROCS) {
		int pid = atoi(e->d_name);

		if (pid > 0 && read_proc(pid, &all[n], ticks) == 0)
			n++;
	}
	closedir(d);
	for (int a = 0; a < argc; a++) {
		int root = atoi(argv[a]), count = 0;
		double cpu = 0, apps = 0;
		long rss = 0, hwm = 0;

		for (int i = 0; i < n; i++) {
			if (!in_tree(all, n, i, root))
				continue;
			cpu += all[i].cpu_s;
			rss += all[i].rss_kb;
			hwm += all[i].hwm_kb;
			if (all[i].apps_plugin)
				apps += all[i].cpu_s;
			count++;
		}
		printf("%d %.2f %ld %ld %d %.2f\n", root, cpu, rss, hwm, count, apps);
	}
	free(all);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "work")) {
		int n = atoi(argv[2]), rate = atoi(argv[3]);

		if (n < 0 || n > 5000 || rate < 0 || rate > 100) {
			fprintf(stderr, "peerload: N must be 0-5000 and RATE 0-100\n");
			return 2;
		}
		return work(n, rate, argv[4]);
	}
	if (argc >= 3 && !strcmp(argv[1], "tree"))
		return tree(argc - 2, argv + 2);
	fprintf(stderr, "usage: peerload work N RATE READY_FILE | peerload tree PID...\n");
	return 2;
}
