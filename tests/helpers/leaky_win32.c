/*
 * leaky_win32.c - a process that leaks on purpose, one step per line read
 * on stdin, for the Wine end-to-end test.
 *
 *   leaky_win32.exe [MiB-per-step]     (default 4)
 *
 * Prints "ready PID" at start and "leaked N" after each step, where N is
 * the total committed and touched so far in bytes; exits at end of input.
 * The test waits for each line: no sleeps as synchronisation.
 */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	size_t step = (size_t)(argc > 1 ? strtoul(argv[1], NULL, 10) : 4) << 20;
	unsigned long long total = 0;
	char line[64];

	printf("ready %lu\n", (unsigned long)GetCurrentProcessId());
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin)) {
		char *p = VirtualAlloc(NULL, step, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);

		if (!p)
			return 1;
		memset(p, 0x5a, step);	/* private, committed and resident */
		total += step;
		printf("leaked %llu\n", total);
		fflush(stdout);
	}
	return 0;
}
