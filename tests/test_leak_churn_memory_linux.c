/*
 * test_leak_churn_memory_linux.c - the leak report over a busy build
 * agent's store stays within bounded memory (issues 20 and 26): a group
 * `sleep` with tens of thousands of short-lived incarnations, each with
 * the series the process collector writes for the default aspects
 * (private, shared, mapped, handles, threads), and a few long-lived
 * processes.  The report is made over the whole range (as `check --db`
 * and /api/v1/leaks do) and over the live series (as the judge service
 * does); the peak resident memory it added (VmHWM, reset before through
 * /proc/self/clear_refs) must stay under a bound far below what holding
 * every incarnation's series cost (about 600 bytes each).  Every group is
 * judged: `sleep` is counted whole.  Linux only (VmHWM).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <malloc.h>
#include <cmocka.h>

#include "analysis/leak_report.h"
#include "storage/query.h"
#include "storage/store.h"
#include "tests/support/test_db.h"

/* Under AddressSanitizer freed blocks wait in a quarantine (256 MB by
 * default) instead of being reused, so the peak would count every block
 * the report ever allocated, not what it held at once: no quarantine
 * here (the options of ASAN_OPTIONS still apply on top). */
const char *__asan_default_options(void);
__attribute__((used)) const char *__asan_default_options(void)
{
	return "quarantine_size_mb=0";
}

#define T0 1763683200000LL
#define DB "test_leak_churn_memory.tmp.db"
#define STEP 1000		/* 1 s ticks */
#define TICKS 3600		/* an hour */
#define NEW_PER_TICK 8		/* short-lived processes started a tick ... */
#define LIFE 3			/* ... each seen for this many ticks */
#define LONG_LIVED 20
/* Bound on the peak the report adds, KiB.  The incarnations' series are
 * 28,800 x 5 = 144,000: holding every one's key and labels until the end
 * peaked at 85 MB (95 MB under AddressSanitizer); keeping only ids and
 * time spans, 36 MB (46 MB). */
#define PEAK_BOUND_KIB (64 * 1024)
/* The live series (the judge service's report): the long-lived ones and
 * the last tick's incarnations only. */
#define LIVE_PEAK_BOUND_KIB (8 * 1024)

static void add(struct mw_store *s, const char *metric, const char *kind, const char *process,
		const char *pid, int64_t ts, double v)
{
	char key[256];
	struct mw_label l[4];
	size_t n = 0;

	if (kind)
		l[n++] = (struct mw_label){ "kind", kind };
	l[n++] = (struct mw_label){ "pid", pid };
	l[n++] = (struct mw_label){ "process", process };
	l[n++] = (struct mw_label){ "started", pid };
	mw_series_key_format(key, sizeof(key), metric, l, n);
	mw_store_add(s, key, metric, l, n, ts, v);
}

/* The series of the default aspects for one process at ts. */
static void add_process(struct mw_store *s, const char *process, const char *pid, int64_t ts,
			double private_bytes)
{
	add(s, "memwatch_process_private_bytes", NULL, process, pid, ts, private_bytes);
	add(s, "memwatch_process_resident_bytes", "shmem", process, pid, ts, 0);
	add(s, "memwatch_process_resident_bytes", "file", process, pid, ts, 900e3);
	add(s, "memwatch_process_handles", NULL, process, pid, ts, 4);
	add(s, "memwatch_process_threads", NULL, process, pid, ts, 1);
}

MW_TEST_DB_FIXTURES(DB)

/* The group's store: an hour of ticks, flushed every fifth and at the end. */
static int build_store(void **state)
{
	struct mw_store_options o;
	struct mw_store *s;
	struct mw_err err;
	int64_t i;

	if (setup(state))
		return -1;
	mw_test_store_options(&o, DB);
	o.series_idle_ms = 10000;	/* the ended ones leave the writer's memory */
	if (!(s = mw_test_store_open_with(&o)))
		return -1;
	for (i = 0; i < TICKS; i++) {
		int64_t ts = T0 + i * STEP, born;
		char pid[32];
		int w;

		for (w = 0; w < LONG_LIVED; w++) {
			snprintf(pid, sizeof(pid), "%d", 100 + w);
			add_process(s, w ? "server" : "leaky", pid, ts,
				    w ? 50e6 : 20e6 + 10e6 * (double)i / 3600);
		}
		for (born = i - LIFE + 1; born <= i; born++)
			for (w = 0; born >= 0 && w < NEW_PER_TICK; w++) {
				snprintf(pid, sizeof(pid), "%d", (int)(10000 + born * NEW_PER_TICK + w));
				add_process(s, "sleep", pid, ts, 100e3);
			}
		if ((i % 5 == 4 || i == TICKS - 1) && mw_store_flush(s, &err)) {
			fprintf(stderr, "%s\n", err.msg);
			return -1;
		}
	}
	mw_store_free(s);
	return 0;
}

static long status_kib(const char *field)
{
	char line[256];
	size_t n = strlen(field);
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':')
			v = strtol(line + n + 1, NULL, 10);
	fclose(f);
	return v;
}

/* Forget the peak so far: VmHWM restarts from the present RSS. */
static void reset_peak(void)
{
	FILE *f = fopen("/proc/self/clear_refs", "w");

	assert_non_null(f);
	assert_true(fputs("5", f) >= 0);
	assert_int_equal(fclose(f), 0);
}

/* The report over the hour (live series only, as the judge service, when
 * live_only): its JSON, and the peak it added in KiB. */
static long report_peak(bool live_only, struct mw_jbuf *text, struct mw_leak_status *verdicts)
{
	struct mw_reader *r;
	struct mw_leak_query q;
	struct mw_err err;
	long before;

	assert_int_equal(mw_reader_open(&r, DB, &err), 0);
	mw_leak_query_init(&q);
	q.from_ms = T0;
	q.to_ms = T0 + (int64_t)TICKS * STEP;
	q.live_only = live_only;
	malloc_trim(0);
	before = status_kib("VmRSS");
	reset_peak();
	if (mw_leak_report_verdicts(r, &q, text, verdicts, &err))
		fail_msg("report: %s", err.msg);
	mw_leak_query_release(&q);
	mw_reader_free(r);
	return status_kib("VmHWM") - before;
}

static const struct mw_leak_verdict *verdict_of(const struct mw_leak_status *v, const char *process)
{
	size_t i;

	for (i = 0; i < v->n; i++)
		if (!strcmp(v->v[i].process, process))
			return &v->v[i];
	return NULL;
}

static void whole_range_in_bounded_memory(void **state)
{
	struct mw_jbuf text;
	struct mw_leak_status v;
	long peak;

	(void)state;
	mw_jbuf_init(&text);
	peak = report_peak(false, &text, &v);
	printf("# whole range: the report added %ld KiB at its peak (bound %d)\n", peak,
	       PEAK_BOUND_KIB);
	assert_true(peak < PEAK_BOUND_KIB);
	/* every group judged, the churn counted whole */
	assert_non_null(verdict_of(&v, "sleep"));
	assert_non_null(verdict_of(&v, "server"));
	assert_non_null(verdict_of(&v, "leaky"));
	assert_int_equal(verdict_of(&v, "leaky")->verdict, MW_VERDICT_FAIL);
	assert_non_null(strstr(text.p, "\"incarnations_total\":28800"));
	mw_leak_status_release(&v);
	mw_jbuf_release(&text);
}

static void live_series_in_bounded_memory(void **state)
{
	struct mw_leak_status v;
	long peak;

	(void)state;
	peak = report_peak(true, NULL, &v);
	printf("# live series: the report added %ld KiB at its peak (bound %d)\n", peak,
	       LIVE_PEAK_BOUND_KIB);
	assert_true(peak < LIVE_PEAK_BOUND_KIB);
	assert_non_null(verdict_of(&v, "leaky"));
	mw_leak_status_release(&v);
}

/* One store for both (building it is most of the run): group fixtures. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_range_in_bounded_memory),
		cmocka_unit_test(live_series_in_bounded_memory),
	};

	return cmocka_run_group_tests(tests, build_store, teardown);
}
