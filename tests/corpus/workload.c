/* Workloads of the real-process leak corpus (tests/corpus/record.sh).
 * One program; what it does is chosen by the basename of argv[0] (the
 * binary is copied, not linked, to each name so that /proc/PID/exe, which
 * memwatch groups by, is that name).  Every leak keeps a counter of the
 * bytes (or fds) it has deliberately leaked and logs it once a minute to
 * $CORPUS_LOG/<name>.log as "elapsed_ms leaked" so the true rate can be
 * read from what was really done, not only from the design rate. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MiB (1024.0 * 1024.0)

static const char *g_name;
static double g_t0;
static double g_leaked; /* bytes (or fds) leaked on purpose so far */
static double g_next_log;
static FILE *g_log;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double elapsed(void) { return now_s() - g_t0; }

static void sleep_s(double s)
{
    if (s <= 0)
        return;
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) && errno == EINTR) {
    }
}

static void log_tick(void)
{
    double e = elapsed();
    if (!g_log || e < g_next_log)
        return;
    fprintf(g_log, "%.0f %.0f\n", e * 1000.0, g_leaked);
    fflush(g_log);
    g_next_log += 60.0;
}

static uint64_t rng_state = 88172645463325252ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static size_t rnd_range(size_t lo, size_t hi) { return lo + rnd() % (hi - lo + 1); }

static void *xmalloc_touch(size_t n)
{
    unsigned char *p = malloc(n);
    if (!p) {
        perror("malloc");
        exit(1);
    }
    memset(p, (int)(rnd() & 0xff) | 1, n);
    return p;
}

/* ---- a steady churning working set, shared by several workloads ---- */
struct churn {
    void **slot;
    size_t n;
    size_t lo, hi;
};

static void churn_init(struct churn *c, size_t n, size_t lo, size_t hi)
{
    c->slot = calloc(n, sizeof(void *));
    c->n = n;
    c->lo = lo;
    c->hi = hi;
    for (size_t i = 0; i < n; i++)
        c->slot[i] = xmalloc_touch(rnd_range(lo, hi));
}

static void churn_step(struct churn *c, size_t replacements)
{
    for (size_t k = 0; k < replacements; k++) {
        size_t i = rnd() % c->n;
        free(c->slot[i]);
        c->slot[i] = xmalloc_touch(rnd_range(c->lo, c->hi));
    }
}

/* ---- leak helpers ---- */
struct keep {
    void **v;
    size_t n, cap;
};
static struct keep g_keep;
static void keep(void *p)
{
    if (g_keep.n == g_keep.cap) {
        g_keep.cap = g_keep.cap ? g_keep.cap * 2 : 1024;
        g_keep.v = realloc(g_keep.v, g_keep.cap * sizeof(void *));
    }
    g_keep.v[g_keep.n++] = p;
}

/* Leak `bytes` of heap in small blocks mixed with short-lived ones, so the
 * kept blocks sit between freed holes (as in a real program). */
static double g_debt;
static void heap_leak_small(double bytes)
{
    g_debt += bytes;
    void *tmp[64];
    int nt = 0;
    while (g_debt >= 16) {
        size_t want = rnd_range(16, 512);
        if (want > g_debt)
            want = (size_t)g_debt;
        keep(xmalloc_touch(want));
        g_leaked += want;
        g_debt -= want;
        for (int j = 0; j < 3 && nt < 64; j++)
            tmp[nt++] = xmalloc_touch(rnd_range(16, 1024));
        if (nt >= 60) {
            while (nt)
                free(tmp[--nt]);
        }
    }
    while (nt)
        free(tmp[--nt]);
}

/* ===================================================================== */

static void run_lk_heap(void) /* 20 MiB/h net, heavy churn */
{
    struct churn c;
    churn_init(&c, 20000, 16, 1024);
    const double rate = 20 * MiB / 3600.0;
    double last = elapsed();
    for (;;) {
        sleep_s(0.1);
        double e = elapsed();
        churn_step(&c, 2000);
        heap_leak_small(rate * (e - last));
        last = e;
        log_tick();
    }
}

static void run_lk_mmap(void) /* 64 KiB anonymous mmap, touched, every 22.5 s: 10 MiB/h */
{
    for (;;) {
        size_t n = 64 * 1024;
        unsigned char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) {
            perror("mmap");
            exit(1);
        }
        memset(p, 0x5a, n);
        g_leaked += n;
        log_tick();
        sleep_s(22.5);
    }
}

static void *stack_thread(void *arg)
{
    (void)arg;
    /* Volatile stores: a memset of a dead local array is removed by the
     * compiler (the recording in tests/data/leak_real was made so).  Either
     * way glibc madvises the unused part of an exiting thread's stack away
     * (advise_stack_range), so what an exited, never-joined thread keeps
     * resident is its descriptor/TLS page and the top frames: 8 KiB per
     * thread measured in /proc/PID/smaps during that recording (its 1 MiB
     * of address space stays reserved).  The log counts 64 KiB per thread,
     * extract.sh (STACK_RESIDENT) turns it into what stayed resident. */
    volatile unsigned char buf[64 * 1024];
    for (size_t i = 0; i < sizeof buf; i += 256)
        buf[i] = 0x33;
    return (void *)(uintptr_t)buf[100];
}

static void run_lk_stacks(void) /* an unjoined thread every 10 s */
{
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setstacksize(&a, 1024 * 1024);
    for (;;) {
        pthread_t t;
        if (pthread_create(&t, &a, stack_thread, NULL) == 0)
            g_leaked += 64 * 1024; /* touched stack; never joined, never reused */
        log_tick();
        sleep_s(10);
    }
}

static void run_lk_shm(void) /* memfd grown by 64 KiB every 22.5 s, mapped and touched */
{
    int fd = memfd_create("lk_shm_region", 0);
    if (fd < 0) {
        perror("memfd_create");
        exit(1);
    }
    off_t size = 0;
    for (;;) {
        size_t n = 64 * 1024;
        if (ftruncate(fd, size + (off_t)n)) {
            perror("ftruncate");
            exit(1);
        }
        unsigned char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, size);
        if (p == MAP_FAILED) {
            perror("mmap");
            exit(1);
        }
        memset(p, 0x77, n);
        size += (off_t)n;
        g_leaked += n;
        log_tick();
        sleep_s(22.5);
    }
}

static void run_lk_bursty(void) /* bursts every 6-9 min, 10 MiB/h on average */
{
    struct churn c;
    churn_init(&c, 5000, 32, 2048);
    double next = elapsed() + rnd_range(360, 540);
    for (;;) {
        sleep_s(0.5);
        churn_step(&c, 200);
        if (elapsed() >= next) {
            double gap = rnd_range(360, 540);
            /* the burst is the leak owed over the gap just ended (mean 7.5 min) */
            double bytes = 10 * MiB / 3600.0 * gap;
            double done = 0;
            while (done < bytes) { /* within a few seconds */
                size_t n = rnd_range(1024, 16384);
                keep(xmalloc_touch(n));
                done += n;
                g_leaked += n;
            }
            next = elapsed() + gap;
        }
        log_tick();
    }
}

static void run_lk_late(void) /* flat until minute 12, then 15 MiB/h */
{
    struct churn c;
    churn_init(&c, 10000, 16, 1024);
    double last = elapsed();
    for (;;) {
        sleep_s(0.2);
        double e = elapsed();
        churn_step(&c, 500);
        if (e > 720.0)
            heap_leak_small(15 * MiB / 3600.0 * (e - (last > 720.0 ? last : 720.0)));
        last = e;
        log_tick();
    }
}

static void run_lk_slow(void) /* 1 MiB/h */
{
    struct churn c;
    churn_init(&c, 5000, 16, 1024);
    double last = elapsed();
    for (;;) {
        sleep_s(1);
        double e = elapsed();
        churn_step(&c, 500);
        heap_leak_small(1 * MiB / 3600.0 * (e - last));
        last = e;
        log_tick();
    }
}

/* interning table: distinct strings, size(t) = 20 MiB * sqrt(t / 1 h) */
struct intern {
    char **b;
    size_t nb, n;
};
static uint64_t fnv(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h;
}
static void intern_put(struct intern *t, const char *s)
{
    if (t->n * 2 >= t->nb) {
        size_t nb = t->nb ? t->nb * 2 : 4096;
        char **b = calloc(nb, sizeof(char *));
        for (size_t i = 0; i < t->nb; i++)
            if (t->b[i]) {
                size_t j = fnv(t->b[i]) & (nb - 1);
                while (b[j])
                    j = (j + 1) & (nb - 1);
                b[j] = t->b[i];
            }
        free(t->b);
        t->b = b;
        t->nb = nb;
    }
    size_t j = fnv(s) & (t->nb - 1);
    while (t->b[j]) {
        if (!strcmp(t->b[j], s))
            return;
        j = (j + 1) & (t->nb - 1);
    }
    t->b[j] = strdup(s);
    t->n++;
    g_leaked += strlen(s) + 1;
}

static void run_lk_slowing(void)
{
    struct intern t = {0};
    struct churn c;
    churn_init(&c, 5000, 16, 512);
    unsigned long id = 0;
    char buf[128];
    for (;;) {
        sleep_s(0.5);
        churn_step(&c, 300);
        double target = 20 * MiB * sqrt(elapsed() / 3600.0);
        while (g_leaked < target) {
            /* lookups of already-interned names mixed with new ones */
            if (id && rnd() % 2) {
                snprintf(buf, sizeof buf, "symbol/%lu/%0*lu", (unsigned long)(rnd() % id), 24, 7ul);
            } else {
                snprintf(buf, sizeof buf, "symbol/%lu/%0*lu", id++, 24, 7ul);
            }
            intern_put(&t, buf);
        }
        log_tick();
    }
}

static void run_lk_fds(void) /* one fd every 10 s, never closed */
{
    for (;;) {
        int fd = (rnd() & 1) ? open("/dev/null", O_RDONLY) : open("/proc/self/stat", O_RDONLY);
        if (fd >= 0)
            g_leaked += 1;
        log_tick();
        sleep_s(10);
    }
}

/* ---- not leaks ---- */

static void run_ok_churn(void) /* heavy malloc/free, steady working set ~20 MB */
{
    struct churn c;
    churn_init(&c, 20000, 16, 2048);
    for (;;) {
        sleep_s(0.05);
        churn_step(&c, 4000);
        log_tick();
    }
}

static void run_ok_cache(void) /* fills a 30 MiB LRU in ~10 min, then evicts at the cap */
{
    const size_t cap = 30 * 1024 * 1024;
    size_t nslots = 1 << 16, head = 0, tail = 0, used = 0;
    void **ring = calloc(nslots, sizeof(void *));
    size_t *sz = calloc(nslots, sizeof(size_t));
    for (;;) {
        sleep_s(0.1);
        /* 3 MiB/min of inserts */
        double add = 3 * MiB / 60.0 * 0.1;
        while (add > 0) {
            size_t n = rnd_range(256, 8192);
            while (used + n > cap) {
                free(ring[tail]);
                used -= sz[tail];
                tail = (tail + 1) % nslots;
            }
            ring[head] = xmalloc_touch(n);
            sz[head] = n;
            used += n;
            head = (head + 1) % nslots;
            add -= n;
        }
        log_tick();
    }
}

static void run_ok_batch(void) /* every 4 min: ~100 MB in 256 KiB-1 MiB pieces, 60 s of work, freed */
{
    for (;;) {
        void *p[400];
        int n = 0;
        size_t total = 0;
        while (total < 100 * 1000 * 1000 && n < 400) {
            size_t s = rnd_range(256 * 1024, 1024 * 1024);
            p[n++] = xmalloc_touch(s);
            total += s;
        }
        for (int k = 0; k < 6; k++) {
            sleep_s(10);
            for (int i = 0; i < n; i++)
                ((unsigned char *)p[i])[rnd() % 4096] ^= 1;
        }
        for (int i = 0; i < n; i++)
            free(p[i]);
        log_tick();
        sleep_s(180);
    }
}

/* Every 2 minutes a batch of ~60 MB in 1-2 KiB blocks (from the brk heap,
 * not mappings of their own), 20 s of work, freed, and the freed pages
 * handed back at once with malloc_trim(0), as a service trimming after
 * each job does; between batches a churn of ~15 MB.  leak_mib_h keeps
 * small blocks all along (heap_leak_small), some of them landing between
 * a batch's blocks, so the pages they share are not handed back. */
static void trim_batches(double leak_mib_h)
{
    enum { BATCH_BLOCKS = 40000 };
    struct churn c;
    void **p = calloc(BATCH_BLOCKS, sizeof(void *));
    double last, next_batch, rate = leak_mib_h * MiB / 3600.0;

    churn_init(&c, 10000, 64, 2048);
    last = elapsed();
    next_batch = last + 120.0;
    for (;;) {
        double e, until = 0.0;
        size_t n = 0;

        sleep_s(0.1);
        e = elapsed();
        if (e >= next_batch) {
            size_t total = 0;

            while (total < 60 * 1000 * 1000 && n < BATCH_BLOCKS) {
                size_t s = rnd_range(1024, 2048);
                p[n++] = xmalloc_touch(s);
                total += s;
            }
            until = e + 20.0;
            next_batch += 120.0;
        }
        do { /* the batch's work, or one tick between batches */
            churn_step(&c, 200);
            for (size_t i = 0; i < n; i += 97)
                ((unsigned char *)p[(i + rnd()) % n])[0] ^= 1;
            e = elapsed();
            if (rate > 0)
                heap_leak_small(rate * (e - last));
            last = e;
            log_tick();
            if (e < until)
                sleep_s(0.1);
        } while (e < until);
        if (n) {
            for (size_t i = 0; i < n; i++)
                free(p[i]);
            malloc_trim(0);
        }
    }
}

static void run_lk_trimbatch(void) /* trim_batches, keeping 3 MiB/h */
{
    trim_batches(3.0);
}

static void run_ok_trimbatch(void) /* trim_batches, keeping nothing */
{
    trim_batches(0.0);
}

static void *arena_thread(void *arg)
{
    (void)arg;
    struct churn c;
    churn_init(&c, 4000, 64, 4096);
    for (;;) {
        sleep_s(0.2);
        churn_step(&c, 400);
    }
    return NULL;
}

static void run_ok_arenas(void) /* 8 threads warm up their malloc arenas, then steady */
{
    pthread_t t[8];
    for (int i = 0; i < 8; i++) {
        pthread_create(&t[i], NULL, arena_thread, NULL);
        sleep_s(20); /* staggered start: a warm-up over ~3 minutes */
    }
    for (;;) {
        sleep_s(5);
        log_tick();
    }
}

static void run_ok_onetime(void) /* 60 MB loaded at start, then flat */
{
    size_t n = 60 * 1000 * 1000;
    unsigned char *p = xmalloc_touch(n);
    for (;;) {
        sleep_s(5);
        volatile unsigned s = 0;
        for (size_t i = 0; i < n; i += 65536)
            s += p[i];
        log_tick();
    }
}

static void run_ok_idle(void)
{
    for (;;) {
        sleep_s(30);
        log_tick();
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    const char *b = strrchr(argv[0], '/');
    g_name = b ? b + 1 : argv[0];
    g_t0 = now_s();
    rng_state ^= (uint64_t)getpid() * 2654435761u;
    const char *dir = getenv("CORPUS_LOG");
    if (dir) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.log", dir, g_name);
        g_log = fopen(path, "w");
    }
    log_tick();
    struct {
        const char *name;
        void (*run)(void);
    } w[] = {
        {"lk_heap", run_lk_heap},       {"lk_mmap", run_lk_mmap},   {"lk_stacks", run_lk_stacks},
        {"lk_shm", run_lk_shm},         {"lk_bursty", run_lk_bursty}, {"lk_late", run_lk_late},
        {"lk_slow", run_lk_slow},       {"lk_slowing", run_lk_slowing}, {"lk_fds", run_lk_fds},
        {"ok_churn", run_ok_churn},     {"ok_cache", run_ok_cache}, {"ok_batch", run_ok_batch},
        {"ok_arenas", run_ok_arenas},   {"ok_onetime", run_ok_onetime}, {"ok_idle", run_ok_idle},
        {"lk_trimbatch", run_lk_trimbatch}, {"ok_trimbatch", run_ok_trimbatch},
    };
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (!strcmp(g_name, w[i].name)) {
            w[i].run();
            return 0;
        }
    fprintf(stderr, "workload: unknown name %s\n", g_name);
    return 2;
}
