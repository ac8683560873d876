/*
 * memhog.c - a workload for the leak-verdict end-to-end tests: grows its
 * private memory by KB kilobytes every STEP_MS milliseconds, for STEPS
 * steps (0: without end), then holds it; exits after LIFE_S seconds so a
 * test that dies cannot leave it behind.
 *
 *   memhog KB STEP_MS STEPS LIFE_S
 *
 * Prints "ready PID" first.  The steps are timed by the clock on purpose:
 * this is the load being measured, not a test waiting for something.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#define sleep_ms(ms) Sleep(ms)
#define getpid_() ((unsigned long)GetCurrentProcessId())
#else
#include <time.h>
#include <unistd.h>
static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}
#define getpid_() ((unsigned long)getpid())
#endif

int main(int argc, char **argv)
{
	size_t kb, i;
	unsigned step_ms, steps, life_s, elapsed = 0;

	if (argc != 5) {
		fprintf(stderr, "usage: memhog KB STEP_MS STEPS LIFE_S\n");
		return 2;
	}
	kb = strtoul(argv[1], NULL, 10);
	step_ms = (unsigned)strtoul(argv[2], NULL, 10);
	steps = (unsigned)strtoul(argv[3], NULL, 10);
	life_s = (unsigned)strtoul(argv[4], NULL, 10);
	if (step_ms == 0)
		step_ms = 100;
	printf("ready %lu\n", getpid_());
	fflush(stdout);
	for (i = 0; elapsed < life_s * 1000u; i++) {
		if (steps == 0 || i < steps) {
			char *p = malloc(kb * 1024);

			if (!p)
				return 1;
			memset(p, 0x5a, kb * 1024);	/* touched: resident and private */
		}
		sleep_ms(step_ms);
		elapsed += step_ms;
	}
	return 0;
}
