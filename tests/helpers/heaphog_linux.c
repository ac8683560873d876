/* heaphog_linux.c - a process whose heap bar grows one kind at a time, on
 * command: each line read from stdin is a step, and a line on stdout says
 * what it did (the caller reads that line before it looks: no sleeps).
 * Used by tests/e2e/heap_linux.sh.
 *
 *   heaphog_linux DIR   prints "ready PID"; the mapped file goes in DIR
 *   brk       16 MiB of malloc(4000) blocks from the main thread, written:
 *             the brk heap ([heap]) grows        -> "brk BYTES"
 *   arena     a thread mallocs 16 MiB of 4000-byte blocks, writes them and
 *             waits: its malloc arena grows      -> "arena BYTES"
 *   threads   4 threads with 1 MiB stacks and one-page guards, waiting
 *                                                -> "threads 4 STACK GUARD"
 *   mmap      DIR/heaphog.dat (8 MiB) mapped read-only, every page read
 *                                                -> "mmap PATH BYTES"
 *   dlopen    load libz.so.1 and call into it    -> "dlopen libz.so.1 ADDR"
 *   quit      exit 0
 * Threads wait for stdin's end or quit.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stepper_linux.h"

#define HEAP_BYTES (16 << 20)
#define BLOCK 4000
#define NTHREADS 4
#define STACK (1 << 20)
#define FILE_BYTES (8 << 20)

/* malloc(BLOCK) blocks up to bytes, written; kept (never freed). */
static size_t grow(size_t bytes)
{
	size_t n = 0;

	while (n < bytes) {
		unsigned char *p = malloc(BLOCK);

		if (!p)
			die("malloc");
		memset(p, 0x5a, BLOCK);
		n += BLOCK;
	}
	return n;
}

static size_t arena_bytes;

static void *arena_main(void *arg)
{
	(void)arg;
	arena_bytes = grow(HEAP_BYTES);
	sem_post(&started);
	wait_quit();
	return NULL;
}

static void *idle_main(void *arg)
{
	(void)arg;
	sem_post(&started);
	wait_quit();
	return NULL;
}

static pthread_t th[NTHREADS + 1];
static int nthreads;

static void start(void *(*fn)(void *), size_t stack, size_t guard)
{
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	if (stack)
		pthread_attr_setstacksize(&attr, stack);
	if (guard)
		pthread_attr_setguardsize(&attr, guard);
	errno = pthread_create(&th[nthreads], &attr, fn, NULL);
	if (errno)
		die("pthread_create");
	pthread_attr_destroy(&attr);
	nthreads++;
	sem_wait(&started);
}

int main(int argc, char **argv)
{
	char line[256];
	long page = sysconf(_SC_PAGESIZE);
	int i;

	if (argc != 2) {
		fprintf(stderr, "usage: heaphog_linux DIR\n");
		return 2;
	}
	sem_init(&started, 0, 0);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %ld\n", (long)getpid());
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!strcmp(line, "brk")) {
			printf("brk %zu\n", grow(HEAP_BYTES));
		} else if (!strcmp(line, "arena")) {
			if (nthreads) {
				printf("error arena: must come before threads\n");
				continue;
			}
			start(arena_main, 0, 0);
			printf("arena %zu\n", arena_bytes);
		} else if (!strcmp(line, "threads")) {
			if (nthreads + NTHREADS > (int)(sizeof(th) / sizeof(th[0]))) {
				printf("error threads: already started\n");
				continue;
			}
			for (i = 0; i < NTHREADS; i++)
				start(idle_main, STACK, (size_t)page);
			printf("threads %d %d %ld\n", NTHREADS, STACK, page);
		} else if (!strcmp(line, "mmap")) {
			char path[4096];
			unsigned char *p;
			int fd;
			size_t k;

			snprintf(path, sizeof(path), "%s/heaphog.dat", argv[1]);
			fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
			if (fd < 0 || ftruncate(fd, FILE_BYTES))
				die("heaphog.dat");
			p = mmap(NULL, FILE_BYTES, PROT_READ, MAP_PRIVATE, fd, 0);
			if (p == MAP_FAILED)
				die("mmap");
			close(fd);
			for (k = 0; k < FILE_BYTES; k += (size_t)page)
				sink = p[k];
			printf("mmap %s %d\n", path, FILE_BYTES);
		} else if (!strcmp(line, "dlopen")) {
			char why[256];
			zlib_version_fn ver = stepper_dlopen_zlib(why, sizeof(why));

			if (!ver) {
				printf("error %s\n", why);
				continue;
			}
			printf("dlopen libz.so.1 %p\n", (void *)ver);
		} else if (!strcmp(line, "quit")) {
			break;
		} else {
			printf("unknown %s\n", line);
		}
	}
	stepper_quit();
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	return 0;
}
