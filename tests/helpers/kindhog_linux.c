/* kindhog_linux.c - grows one kind of memory per line read on stdin, for
 * tests/e2e/process_kinds_linux.sh.  No sleeps: it acts on a line, prints
 * what it did ("did STEP BYTES ..."), then waits for the next line.
 *
 *   malloc MB    malloc'd heap, every page written (anon)
 *   mmap MB      anonymous private mapping, written (anon)
 *   shm MB       a segment in /dev/shm, mapped shared and written (shmem)
 *   threads N    N threads parked on a pipe, each touching 256 KB of its
 *                stack (anon)
 *   file MB      a regular file written, mapped and read (file)
 *   quit         unmap, unlink the shm segment and exit
 *
 * Stdin reaching its end is a quit too. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int park[2];
static char shm_name[64], file_name[256];

static void *parked(void *arg)
{
	volatile char stack[256 * 1024];
	char c;
	size_t i;

	(void)arg;
	for (i = 0; i < sizeof(stack); i += 4096)
		stack[i] = 1;
	stack[sizeof(stack) - 1] = 1;
	if (read(park[0], &c, 1) < 0)
		return NULL;
	return NULL;
}

static void touch(char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i += 4096)
		p[i] = (char)(i / 4096 + 1);
}

int main(void)
{
	char line[128], arg0[64];
	long n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (pipe(park))
		return 1;
	snprintf(shm_name, sizeof(shm_name), "/kindhog.%d", (int)getpid());
	printf("ready %d\n", (int)getpid());
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "%63s %ld", arg0, &n) < 1)
			continue;
		if (!strcmp(arg0, "quit"))
			break;
		if (n <= 0)
			n = 1;
		if (!strcmp(arg0, "malloc")) {
			size_t b = (size_t)n << 20;
			char *p = malloc(b);

			if (!p)
				return 1;
			touch(p, b);
			printf("did malloc %zu\n", b);
		} else if (!strcmp(arg0, "mmap")) {
			size_t b = (size_t)n << 20;
			char *p = mmap(NULL, b, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				       -1, 0);

			if (p == MAP_FAILED)
				return 1;
			touch(p, b);
			printf("did mmap %zu\n", b);
		} else if (!strcmp(arg0, "shm")) {
			size_t b = (size_t)n << 20;
			int fd = shm_open(shm_name, O_RDWR | O_CREAT, 0600);
			char *p;

			if (fd < 0 || ftruncate(fd, (off_t)b))
				return 1;
			p = mmap(NULL, b, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			close(fd);
			if (p == MAP_FAILED)
				return 1;
			touch(p, b);
			printf("did shm %zu /dev/shm%s\n", b, shm_name);
		} else if (!strcmp(arg0, "threads")) {
			long i;

			for (i = 0; i < n; i++) {
				pthread_t t;

				if (pthread_create(&t, NULL, parked, NULL))
					return 1;
				pthread_detach(t);
			}
			printf("did threads %ld\n", n);
		} else if (!strcmp(arg0, "file")) {
			size_t b = (size_t)n << 20, i;
			const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
			char *buf = calloc(1, 1 << 20);
			volatile char sum = 0;
			char *p;
			int fd;

			snprintf(file_name, sizeof(file_name), "%s/kindhog.%d.dat", dir, (int)getpid());
			fd = open(file_name, O_RDWR | O_CREAT | O_TRUNC, 0600);
			if (fd < 0 || !buf)
				return 1;
			memset(buf, 'k', 1 << 20);
			for (i = 0; i < b; i += 1 << 20)
				if (write(fd, buf, 1 << 20) != 1 << 20)
					return 1;
			free(buf);
			p = mmap(NULL, b, PROT_READ, MAP_PRIVATE, fd, 0);
			close(fd);
			if (p == MAP_FAILED)
				return 1;
			for (i = 0; i < b; i += 4096)
				sum = (char)(sum + p[i]);
			printf("did file %zu %s\n", b, file_name);
		} else {
			printf("unknown %s\n", arg0);
		}
	}
	if (shm_name[0])
		shm_unlink(shm_name);
	if (file_name[0])
		unlink(file_name);
	printf("bye\n");
	return 0;
}
