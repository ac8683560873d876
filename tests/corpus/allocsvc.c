/*
 * lk_je / ok_je / lk_tc / ok_tc (the allocators set): a C service under
 * another malloc (record.sh preloads jemalloc or tcmalloc), so the
 * allocator's own caching, decay and purging is what memwatch sees.
 * Ten times a second it replaces 400 of 5,000 live blocks of random
 * size (16 B - 64 KiB, log-uniform, every page touched); with "leak" it
 * also keeps blocks of the same sizes forever, RATE bytes an hour, from
 * ONSET seconds on.  Usage: NAME ok|leak [RATE_BYTES_PER_H [ONSET_S]].
 * Logs "elapsed_ms leaked_bytes" once a minute to $CORPUS_LOG/NAME.log.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOTS 5000
#define PER_TICK 400

static uint64_t rng = 88172645463325252ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static size_t random_size(void)
{
	double u = (double)(next_rand() >> 11) / 9007199254740992.0;
	return (size_t)exp(log(16.0) + u * (log(65536.0) - log(16.0)));
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *block(size_t n)
{
	unsigned char *p = malloc(n);
	if (p)
		memset(p, (int)(n & 0xff), n);
	return p;
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	const char *name = base ? base + 1 : argv[0];
	int leak = argc > 1 && !strcmp(argv[1], "leak");
	double rate = argc > 2 ? atof(argv[2]) : 0.0, onset = argc > 3 ? atof(argv[3]) : 0.0;
	static void *slot[SLOTS];
	FILE *log = NULL;
	const char *dir = getenv("CORPUS_LOG");
	if (dir) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s.log", dir, name);
		log = fopen(path, "w");
	}
	for (int i = 0; i < SLOTS; i++)
		slot[i] = block(random_size());
	double t0 = now_s(), last = t0, owed = 0, next_log = 0;
	uint64_t kept = 0;
	for (;;) {
		struct timespec pause = { 0, 100000000 };
		nanosleep(&pause, NULL);
		for (int k = 0; k < PER_TICK; k++) {
			size_t i = next_rand() % SLOTS;
			free(slot[i]);
			slot[i] = block(random_size());
		}
		double now = now_s();
		if (leak && now - t0 >= onset) {
			owed += rate * (now - last) / 3600.0;
			while (owed > 0) {
				size_t n = random_size();
				if (!block(n))
					break;
				kept += n;
				owed -= (double)n;
			}
		}
		last = now;
		if (log && now - t0 >= next_log) {
			fprintf(log, "%.0f %llu\n", (now - t0) * 1000, (unsigned long long)kept);
			fflush(log);
			next_log += 60;
		}
	}
}
