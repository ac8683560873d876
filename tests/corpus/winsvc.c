/* Windows workloads of the real-process leak corpus (tests/corpus/record.sh,
 * CORPUS_SET=wine): one MinGW-w64 program, copied to each workload's name
 * (what it does is chosen by its own file name), run under Wine and
 * recorded by the Windows build of memwatchd under the same Wine.  Every
 * workload serves a churn of short-lived heap blocks, as a service does;
 * the leaks keep memory of one kind each through the Win32 calls a
 * Windows program leaks with: HeapAlloc, VirtualAlloc, a pagefile-backed
 * section (CreateFileMapping + MapViewOfFile), thread stacks, handles.
 * Every leak counts what it kept on purpose and logs it once a minute to
 * %CORPUS_LOG%\<name>.log as "elapsed_ms kept", as workload.c does. */
#include <windows.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KiB 1024.0
#define MiB (1024.0 * 1024.0)
#define HOUR_S 3600.0

static char g_name[64];
static double g_kept;		/* bytes (or handles) kept on purpose */
static double g_next_log;
static FILE *g_log;
static LARGE_INTEGER g_freq, g_t0;
static HANDLE g_heap;

static double elapsed(void)
{
	LARGE_INTEGER t;

	QueryPerformanceCounter(&t);
	return (double)(t.QuadPart - g_t0.QuadPart) / (double)g_freq.QuadPart;
}

static void log_tick(void)
{
	double e = elapsed();

	if (!g_log || e < g_next_log)
		return;
	fprintf(g_log, "%.0f %.0f\n", e * 1000.0, g_kept);
	fflush(g_log);
	g_next_log += 60.0;
}

static uint64_t g_rng = 88172645463325252ull;
static uint64_t rnd(void)
{
	g_rng ^= g_rng << 13;
	g_rng ^= g_rng >> 7;
	g_rng ^= g_rng << 17;
	return g_rng;
}

/* A block of heap memory written through, so it is resident. */
static void *heap_block(size_t n)
{
	unsigned char *p = HeapAlloc(g_heap, 0, n);

	if (p)
		memset(p, (int)(rnd() & 0xff), n);
	return p;
}

/* The churn every workload serves: a pool of blocks of 64 B - 8 KiB, a
 * share of them replaced every tick (a steady working set). */
#define POOL_MAX 65536
static void *g_pool[POOL_MAX];
static size_t g_pool_n;

static void pool_fill(size_t n)
{
	size_t i;

	g_pool_n = n < POOL_MAX ? n : POOL_MAX;
	for (i = 0; i < g_pool_n; i++)
		g_pool[i] = heap_block(64 + rnd() % 8128);
}

static void pool_churn(size_t replace)
{
	size_t i;

	for (i = 0; i < replace && g_pool_n; i++) {
		size_t k = rnd() % g_pool_n;

		HeapFree(g_heap, 0, g_pool[k]);
		g_pool[k] = heap_block(64 + rnd() % 8128);
	}
}

/* Leak at `per_hour` bytes in blocks of 64 B - 4 KiB from the heap. */
static void leak_heap(double per_hour, double dt)
{
	static double owed;

	owed += per_hour * dt / HOUR_S;
	while (owed > 0) {
		size_t n = 64 + rnd() % 4032;

		if (heap_block(n))
			g_kept += n;
		owed -= n;
	}
}

/* Leak committed private pages, 64 KiB a region, every page written. */
static void leak_valloc(double per_hour, double dt)
{
	static double owed;

	owed += per_hour * dt / HOUR_S;
	while (owed >= 65536) {
		void *p = VirtualAlloc(NULL, 65536, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);

		if (p) {
			memset(p, 0x5a, 65536);
			g_kept += 65536;
		}
		owed -= 65536;
	}
}

/* Leak pagefile-backed sections of 1 MiB, mapped, written, never unmapped
 * (the Windows form of a shared-memory leak). */
static void leak_section(double per_hour, double dt)
{
	static double owed;

	owed += per_hour * dt / HOUR_S;
	while (owed >= MiB) {
		HANDLE h = CreateFileMappingW(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE, 0,
					      (DWORD)MiB, NULL);
		void *v = h ? MapViewOfFile(h, FILE_MAP_WRITE, 0, 0, 0) : NULL;

		if (v) {
			memset(v, 0x33, (size_t)MiB);
			g_kept += MiB;
		}
		owed -= MiB;
	}
}

/* A thread that writes 256 KiB of its stack and waits forever. */
static DWORD WINAPI stuck_thread(LPVOID arg)
{
	volatile unsigned char buf[256 * 1024];
	size_t i;

	(void)arg;
	for (i = 0; i < sizeof(buf); i += 4096)
		buf[i] = (unsigned char)i;
	Sleep(INFINITE);
	return buf[0];
}

static void leak_threads(double per_hour, double dt)
{
	static double owed;

	owed += per_hour * dt / HOUR_S;
	while (owed >= 1.0) {
		HANDLE t = CreateThread(NULL, 1024 * 1024, stuck_thread, NULL, 0, NULL);

		if (t) {
			CloseHandle(t);
			g_kept += 1;
		}
		owed -= 1.0;
	}
}

static void leak_handles(double per_hour, double dt)
{
	static double owed;

	owed += per_hour * dt / HOUR_S;
	while (owed >= 1.0) {
		if (CreateEventW(NULL, TRUE, FALSE, NULL))
			g_kept += 1;
		owed -= 1.0;
	}
}

/* A cache that fills toward cap bytes in fill_s seconds, then replaces
 * entries at random (evicting as many bytes as it adds). */
#define CACHE_MAX 32768
static void *g_cache[CACHE_MAX];
static size_t g_cache_sz[CACHE_MAX], g_cache_n;
static double g_cache_bytes;

static void cache_tick(double cap, double fill_s, double dt)
{
	double add = cap / fill_s * dt;

	while (add > 0) {
		size_t n = 512 + rnd() % 3584;

		if (g_cache_bytes + n > cap || g_cache_n == CACHE_MAX) {
			size_t k = rnd() % g_cache_n;

			HeapFree(g_heap, 0, g_cache[k]);
			g_cache_bytes -= g_cache_sz[k];
			g_cache[k] = heap_block(n);
			g_cache_sz[k] = n;
		} else {
			g_cache[g_cache_n] = heap_block(n);
			g_cache_sz[g_cache_n++] = n;
		}
		g_cache_bytes += n;
		add -= n;
	}
}

/* A batch: every period_s, build `bytes` of 64 KiB blocks for hold_s, then
 * free them all. */
#define BATCH_MAX 4096
static void *g_batch[BATCH_MAX];
static size_t g_batch_n;

static void batch_tick(double e, double period_s, double hold_s, double bytes)
{
	double phase = e - period_s * (double)(long)(e / period_s);
	size_t i;

	if (phase < hold_s && g_batch_n == 0) {
		for (i = 0; i < BATCH_MAX && (double)i * 65536 < bytes; i++)
			g_batch[i] = heap_block(65536);
		g_batch_n = i;
	} else if (phase >= hold_s && g_batch_n) {
		for (i = 0; i < g_batch_n; i++)
			HeapFree(g_heap, 0, g_batch[i]);
		g_batch_n = 0;
	}
}

static const char *const g_known[] = {
	"lk_winheap", "lk_winvalloc", "lk_winsection", "lk_winthreads", "lk_winhandles",
	"lk_winslow", "lk_winburst", "ok_winchurn", "ok_wincache", "ok_winbatch",
	"ok_winonetime", "ok_winidle",
};

static bool is(const char *name)
{
	return strcmp(g_name, name) == 0;
}

static void name_from_exe(void)
{
	char path[MAX_PATH], *base, *dot;
	DWORD n = GetModuleFileNameA(NULL, path, sizeof(path));

	path[n < sizeof(path) ? n : sizeof(path) - 1] = '\0';
	base = strrchr(path, '\\');
	base = base ? base + 1 : path;
	snprintf(g_name, sizeof(g_name), "%s", base);
	dot = strrchr(g_name, '.');
	if (dot)
		*dot = '\0';
}

static void open_log(void)
{
	const char *dir = getenv("CORPUS_LOG");
	char path[MAX_PATH];

	if (!dir || strncmp(g_name, "lk_", 3) != 0)
		return;
	snprintf(path, sizeof(path), "%s\\%s.log", dir, g_name);
	g_log = fopen(path, "w");
}

int main(void)
{
	size_t i;
	double last, onetime_done = 0;
	bool known = false;

	name_from_exe();
	for (i = 0; i < sizeof(g_known) / sizeof(g_known[0]); i++)
		known = known || is(g_known[i]);
	if (!known) {
		fprintf(stderr, "winsvc: unknown name %s\n", g_name);
		return 2;
	}
	QueryPerformanceFrequency(&g_freq);
	QueryPerformanceCounter(&g_t0);
	g_heap = GetProcessHeap();
	open_log();
	if (!is("ok_winidle"))
		pool_fill(is("ok_winchurn") ? 12000 : 6000);	/* ~24 / ~48 MiB */
	last = elapsed();
	for (;;) {
		double e, dt;

		Sleep(200);
		e = elapsed();
		dt = e - last;
		last = e;
		if (is("ok_winidle"))
			continue;
		pool_churn(is("ok_winchurn") ? 240 : 60);	/* 2 % / 1 % a second */
		if (is("lk_winheap"))
			leak_heap(8 * MiB, dt);
		else if (is("lk_winslow"))
			leak_heap(1 * MiB, dt);
		else if (is("lk_winvalloc"))
			leak_valloc(10 * MiB, dt);
		else if (is("lk_winsection"))
			leak_section(6 * MiB, dt);
		else if (is("lk_winthreads"))
			leak_threads(30, dt);	/* one every 2 minutes */
		else if (is("lk_winhandles"))
			leak_handles(360, dt);	/* one every 10 s */
		else if (is("lk_winburst")) {
			/* 1.2 MiB at once every 7 minutes */
			static double next_burst = 420;
			if (e >= next_burst) {
				leak_heap(1.2 * MiB * HOUR_S, 1.0);
				next_burst += 420;
			}
		} else if (is("ok_wincache"))
			cache_tick(48 * MiB, 1200, dt);
		else if (is("ok_winbatch"))
			batch_tick(e, 240, 20, 100 * MiB);
		else if (is("ok_winonetime") && !onetime_done && e >= 900) {
			for (i = 0; i < 640; i++)
				heap_block(65536);	/* 40 MiB loaded once, kept */
			onetime_done = 1;
		}
		log_tick();
	}
}
