/* wsdemo_linux.c - a process whose working set grows one category at a
 * time, on command: each line read from stdin is a step, and a line on
 * stdout says what it did (the caller reads that line before it looks, so
 * no sleeps are needed).  Used by tests/e2e/workingset_linux.sh.
 *
 *   wsdemo_linux DIR      prints "ready PID"; mapped files go in DIR
 *   dlopen    load libz.so.1 and call into it          -> "dlopen libz.so.1 ADDR"
 *   mmap      create DIR/wsdemo.dat (8 MiB), map it, read every page
 *                                                        -> "mmap PATH BYTES"
 *   threads   start 4 threads, each writes 512 KiB of its stack and then
 *             waits for stdin to close                   -> "threads 4 KIB"
 *   heap      8192 malloc(4000) blocks (31 MiB), written (main thread: [heap])
 *                                                        -> "heap BYTES"
 *   shm       4 MiB POSIX shared memory (/dev/shm) and 4 MiB memfd, written
 *                                                        -> "shm BYTES BYTES"
 *   quit      exit 0
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stepper_linux.h"

#define NTHREADS 4
#define STACK_TOUCH (512 * 1024)
#define FILE_BYTES (8 << 20)
#define HEAP_BYTES (32 << 20)
#define SHM_BYTES (4 << 20)

static void *thread_main(void *arg)
{
	volatile unsigned char buf[STACK_TOUCH];
	size_t i;

	(void)arg;
	for (i = 0; i < sizeof(buf); i += 512)
		buf[i] = (unsigned char)i;
	sink = buf[512];
	sem_post(&started);
	wait_quit();
	return NULL;
}

static void *fill(size_t n, int prot, int flags, int fd)
{
	unsigned char *p = mmap(NULL, n, prot, flags, fd, 0);
	size_t i;

	if (p == MAP_FAILED)
		die("mmap");
	for (i = 0; i < n; i += 4096) {
		if (prot & PROT_WRITE)
			p[i] = 1;
		else
			sink = p[i];
	}
	return p;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	pthread_t th[NTHREADS];
	int nthreads = 0;
	char line[64];

	setvbuf(stdout, NULL, _IOLBF, 0);
	sem_init(&started, 0, 0);
	printf("ready %ld\n", (long)getpid());
	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!strcmp(line, "dlopen")) {
			char why[256];
			zlib_version_fn ver = stepper_dlopen_zlib(why, sizeof(why));

			if (!ver)
				die(why);
			printf("dlopen libz.so.1 %p %s\n", (void *)ver, ver());
		} else if (!strcmp(line, "mmap")) {
			char path[4096];
			static char block[65536];
			int fd;
			size_t i;

			snprintf(path, sizeof(path), "%s/wsdemo.dat", dir);
			fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
			if (fd < 0)
				die(path);
			memset(block, 'x', sizeof(block));
			for (i = 0; i < FILE_BYTES; i += sizeof(block))
				if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block))
					die("write");
			fill(FILE_BYTES, PROT_READ, MAP_PRIVATE, fd);
			close(fd);
			printf("mmap %s %d\n", path, FILE_BYTES);
		} else if (!strcmp(line, "threads")) {
			int i;

			for (i = 0; i < NTHREADS && nthreads < NTHREADS; i++) {
				if (pthread_create(&th[nthreads], NULL, thread_main, NULL))
					die("pthread_create");
				nthreads++;
			}
			for (i = 0; i < NTHREADS; i++)
				sem_wait(&started);
			printf("threads %d %d\n", NTHREADS, STACK_TOUCH / 1024);
		} else if (!strcmp(line, "heap")) {
			size_t i;

			for (i = 0; i < HEAP_BYTES / 4096; i++) {
				char *p = malloc(4000);

				if (!p)
					die("malloc");
				memset(p, 'h', 4000);	/* kept: the heap only grows */
			}
			printf("heap %d\n", HEAP_BYTES / 4096 * 4000);
		} else if (!strcmp(line, "shm")) {
			char name[64];
			int fd;

			snprintf(name, sizeof(name), "/wsdemo-%ld", (long)getpid());
			fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
			if (fd < 0)
				die("shm_open");
			shm_unlink(name);	/* nothing left behind; the mapping stays */
			if (ftruncate(fd, SHM_BYTES))
				die("ftruncate");
			fill(SHM_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
			close(fd);
			fd = memfd_create("wsdemo", 0);
			if (fd < 0)
				die("memfd_create");
			if (ftruncate(fd, SHM_BYTES))
				die("ftruncate");
			fill(SHM_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
			close(fd);
			printf("shm %d %d\n", SHM_BYTES, SHM_BYTES);
		} else if (!strcmp(line, "quit")) {
			break;
		} else {
			printf("unknown %s\n", line);
		}
	}
	stepper_quit();
	while (nthreads > 0)
		pthread_join(th[--nthreads], NULL);
	return 0;
}
