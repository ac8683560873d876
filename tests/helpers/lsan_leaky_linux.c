/*
 * lsan_leaky_linux.c - a program that leaks known blocks, for the exit
 * leak tests (tests/api/exit_leaks.sh builds it with -fsanitize=address):
 * one direct block of 4096 bytes holding the only pointers to two blocks
 * of 150 bytes (indirect leaks): 4396 bytes in 3 allocations.  The
 * blocks are made on a thread that has ended by the check, so no stale
 * pointer on the main stack or in a register keeps them reachable.
 *
 *   lsan_leaky_linux            leak, exit (LeakSanitizer reports at exit)
 *   lsan_leaky_linux hold FILE  leak, run the leak check now (the report
 *                               is written), then stay alive until FILE
 *                               exists (at most 60 s) and _exit(0), which
 *                               skips the check at exit (one report)
 * Built without a sanitizer (make's helpers) it only leaks.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* LeakSanitizer's interface, when linked in */
int __lsan_do_recoverable_leak_check(void) __attribute__((weak));

static void *leak(void *arg)
{
	void **direct = malloc(4096);

	(void)arg;
	memset(direct, 0, 4096);
	direct[0] = malloc(150);
	direct[1] = malloc(150);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (pthread_create(&t, NULL, leak, NULL) || pthread_join(t, NULL))
		return 2;
	if (argc == 3 && !strcmp(argv[1], "hold")) {
		struct timespec ten_ms = { 0, 10000000 };
		int i;

		if (__lsan_do_recoverable_leak_check)
			__lsan_do_recoverable_leak_check();	/* reports, and goes on */
		for (i = 0; i < 6000 && access(argv[2], F_OK); i++)
			nanosleep(&ten_ms, NULL);
		_exit(0);	/* no atexit: no second report at exit */
	}
	return 0;
}
