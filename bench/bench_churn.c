/*
 * bench_churn.c - series churn: a store fed like the process collector
 * on a build agent (long-lived processes plus a stream of short-lived
 * ones, each with its own series), flushed every tick, with a reader
 * serving /metrics (mw_reader_latest of everything) after each phase.
 *
 * Figures are taken twice in the same run: a baseline after a warm-up
 * (the idle bound reached, few dead series), and after many more ticks
 * (tens of thousands of dead series): RSS of this process, series held in
 * the writer's memory, mw_reader_latest time and count, mw_store_open
 * time (start-up) on the file as it is then, and the ratios end/baseline.
 * Time is synthetic (point timestamps 5 s apart), so the store's default
 * idle bound (10 minutes) is reached in 120 ticks.  Each tick is a flush
 * and a retention step, as the writer thread does them.
 *
 *   bench_churn            the benchmark (figures and ratios)
 *   bench_churn --soak     bounded run with TAP output for
 *                          tests/e2e/churn_soak.sh: memory bounds only,
 *                          timings printed as comments
 *
 * SQLite's page caches are capped at 2 MB (writer and reader) so RSS
 * shows memwatch's own structures, not a cache filling up to its limit.
 * The file is bench_churn.tmp.db in the working directory, removed at the
 * end.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>

#include "storage/query.h"
#include "storage/schema.h"
#include "storage/store.h"
#include "core/batch.h"
#include "base/clock.h"
#include "tests/support/test_db.h"

#define DB "bench_churn.tmp.db"
#define T0 1699999200000LL
#define TICK_MS 5000
#define NMETRICS 4

static const char *const metrics[NMETRICS] = {
	"memwatch_process_working_set_bytes", "memwatch_process_private_bytes",
	"memwatch_process_handles", "memwatch_process_threads",
};

struct params {
	int live;		/* long-lived processes */
	int churn;		/* new short-lived processes per tick */
	int life;		/* ticks a short-lived process lives */
	int warmup, ticks;	/* ticks before the baseline, after it */
};

struct figures {
	double rss_mb;
	uint64_t series_mem, series_db, dead;
	size_t latest_n;
	double latest_ms, open_ms, check_ms, tick_ms;
};

static int tap_n, tap_failed;
static bool soak;

static double now_ms(void)
{
	return (double)mw_clock_mono_ns() / 1e6;
}

static double rss_mb(void)
{
#ifdef __linux__
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long size = 0, res = 0;

	if (!f)
		return -1;
	if (fscanf(f, "%lu %lu", &size, &res) != 2)
		res = 0;
	fclose(f);
	return (double)res * 4096.0 / (1024.0 * 1024.0);
#else
	return -1;
#endif
}

static void die(const char *what, const char *msg)
{
	fprintf(stderr, "bench_churn: %s: %s\n", what, msg);
	if (soak)
		printf("not ok %d - %s: %s\n1..%d\n", tap_n + 1, what, msg, tap_n + 1);
	mw_test_db_remove(DB);
	exit(1);
}

static void ok(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#include <stdarg.h>
static void ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", cond ? "ok" : "not ok", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
}

static struct mw_store *open_store(double *ms)
{
	struct mw_store_options o;
	struct mw_store *s;
	struct mw_err err;
	double t0 = now_ms();

	mw_store_options_init(&o);
	o.db_path = DB;
	o.self_metrics = false;
	o.retention_raw_ms = 0;		/* keep everything: the file only grows */
	o.retention_1m_ms = 0;
	o.retention_1h_ms = 0;
	if (mw_store_open(&s, &o, &err))
		die("open", err.msg);
	if (ms)
		*ms = now_ms() - t0;
	mw_db_exec(mw_store_db(s), "PRAGMA cache_size = -2000", NULL);
	return s;
}

/* One process's samples at tick t. */
static void add_process(struct mw_store *s, int pid, int64_t started, int64_t ts, double v)
{
	char p[16], st[24], key[256];
	struct mw_label l[3] = { { "pid", p }, { "process", "worker.exe" }, { "started", st } };
	int m;

	snprintf(p, sizeof(p), "%d", pid);
	snprintf(st, sizeof(st), "%" PRId64, started / 1000);
	for (m = 0; m < NMETRICS; m++) {
		mw_series_key_format(key, sizeof(key), metrics[m], l, 3);
		mw_store_add(s, key, metrics[m], l, 3, ts, v + m);
	}
}

static void tick(struct mw_store *s, const struct params *p, int t)
{
	int64_t ts = T0 + (int64_t)t * TICK_MS;
	struct mw_err err;
	int i, k;

	for (i = 0; i < p->live; i++)
		add_process(s, 1 + i, T0, ts, 1e6 + t);
	/* short-lived: those born in the last `life` ticks */
	for (k = t - p->life + 1; k <= t; k++) {
		if (k < 0)
			continue;
		for (i = 0; i < p->churn; i++)
			add_process(s, 100000 + k * p->churn + i, T0 + (int64_t)k * TICK_MS, ts,
				    4096.0 * (t - k + 1));
	}
	if (mw_store_flush(s, &err))
		die("flush", err.msg);
	/* as the writer thread does after every flush (writer.c) */
	if (mw_store_maintain(s, ts, &err))
		die("maintain", err.msg);
}

/* /metrics: the median of five mw_reader_latest calls of everything. */
static void measure_latest(struct figures *f)
{
	struct mw_reader *r;
	struct mw_latest_list l;
	struct mw_err err;
	double t[5], x;
	int i, j;

	if (mw_reader_open(&r, DB, &err))
		die("reader", err.msg);
	for (i = 0; i < 5; i++) {
		double t0 = now_ms();

		if (mw_reader_latest(r, NULL, &l, &err))
			die("latest", err.msg);
		t[i] = now_ms() - t0;
		f->latest_n = l.n;
		mw_latest_list_release(&l);
	}
	for (i = 1; i < 5; i++)
		for (j = i; j > 0 && t[j - 1] > t[j]; j--) {
			x = t[j];
			t[j] = t[j - 1];
			t[j - 1] = x;
		}
	f->latest_ms = t[2];
	mw_reader_free(r);
}

static void measure(struct mw_store **s, const struct params *p, int t, double tick_ms,
		    struct figures *f)
{
	struct mw_store_stats st;

	mw_store_get_stats(*s, &st);
	f->series_mem = st.series;
	f->series_db = (uint64_t)mw_db_int(mw_store_db(*s), "SELECT count(*) FROM series");
	f->dead = f->series_db - (uint64_t)(p->live + p->churn * p->life) * NMETRICS;
	f->tick_ms = tick_ms;
	measure_latest(f);
	/* start-up on the file as it is now */
	mw_store_free(*s);
	{
		/* the part of start-up that reads the whole file on purpose */
		sqlite3 *db;
		double t0 = now_ms();

		if (sqlite3_open(DB, &db) == SQLITE_OK)
			mw_db_exec(db, "PRAGMA quick_check", NULL);
		sqlite3_close(db);
		f->check_ms = now_ms() - t0;
	}
	*s = open_store(&f->open_ms);
	(void)t;
	f->rss_mb = rss_mb();
}

static void print(const char *what, const struct figures *f)
{
	printf("%s%-9s rss %7.1f MB  series in memory %6" PRIu64 "  in file %7" PRIu64
	       "  latest %5zu series %8.2f ms  open %8.2f ms (quick_check %7.2f)  tick %7.2f ms\n",
	       soak ? "# " : "", what, f->rss_mb, f->series_mem, f->series_db, f->latest_n,
	       f->latest_ms, f->open_ms, f->check_ms, f->tick_ms);
}

int main(int argc, char **argv)
{
	struct params p = { 200, 100, 3, 130, 1500 };
	struct figures base, end;
	struct mw_store *s;
	double t0, ticks_ms;
	int t;

	soak = argc > 1 && !strcmp(argv[1], "--soak");
	if (soak) {
		p.churn = 40;
		p.ticks = 1300;
	}
	mw_test_db_remove(DB);
	s = open_store(NULL);
	for (t = 0; t < p.warmup; t++)
		tick(s, &p, t);
	t0 = now_ms();
	for (; t < p.warmup + 20; t++)
		tick(s, &p, t);
	ticks_ms = (now_ms() - t0) / 20;
	measure(&s, &p, t, ticks_ms, &base);
	print("baseline", &base);
	for (; t < p.warmup + 20 + p.ticks - 20; t++)
		tick(s, &p, t);
	t0 = now_ms();
	for (; t < p.warmup + 20 + p.ticks; t++)
		tick(s, &p, t);
	ticks_ms = (now_ms() - t0) / 20;
	measure(&s, &p, t, ticks_ms, &end);
	print("end", &end);
	printf("%s%d live + %d new short-lived processes (%d metrics, %d ticks each) per "
	       "5 s tick; %d ticks\n", soak ? "# " : "", p.live, p.churn, NMETRICS, p.life,
	       t);
	printf("%sratios end/baseline: dead series %.1fx, rss %+.1f MB, series in memory "
	       "%.2fx, latest %.2fx, open %.2fx (without quick_check %.2fx), tick %.2fx\n",
	       soak ? "# " : "", (double)end.dead / (double)(base.dead ? base.dead : 1),
	       end.rss_mb - base.rss_mb, (double)end.series_mem / (double)base.series_mem,
	       end.latest_ms / base.latest_ms, end.open_ms / base.open_ms,
	       (end.open_ms - end.check_ms) / (base.open_ms - base.check_ms),
	       end.tick_ms / base.tick_ms);
	if (soak) {
		uint64_t live = (uint64_t)(p.live + p.churn * p.life) * NMETRICS;
		/* in memory: live ones plus those within the 10-minute idle bound */
		uint64_t bound = (uint64_t)(p.live + p.churn * (120 + p.life + 1)) * NMETRICS;

		ok(end.dead >= 5 * base.dead, "dead series grew at least fivefold (%" PRIu64 " -> %" PRIu64
		   ")", base.dead, end.dead);
		ok(end.series_mem <= bound && base.series_mem <= bound,
		   "writer holds live series only (%" PRIu64 ", %" PRIu64 " <= %" PRIu64 ")",
		   base.series_mem, end.series_mem, bound);
		ok(end.rss_mb < 0 || end.rss_mb - base.rss_mb < 8.0,
		   "RSS flat while series come and go (%.1f -> %.1f MB)", base.rss_mb, end.rss_mb);
		ok(end.latest_n == base.latest_n && end.latest_n >= live && end.latest_n <= bound,
		   "/metrics serves the live series only (%zu, %zu)", base.latest_n, end.latest_n);
		ok(end.series_mem <= bound, "start-up loads the live series only");
		printf("1..%d\n", tap_n);
	}
	mw_store_free(s);
	mw_test_db_remove(DB);
	return tap_failed ? 1 : 0;
}
