/*
 * test_leak_churn_memory_linux.c - the leak report over a busy build
 * agent's store stays within bounded memory (issues 20 and 26): a group
 * `sleep` with tens of thousands of short-lived incarnations, each with
 * the series the process collector writes for the default aspects
 * (private, shared, mapped, handles, threads), and a few long-lived
 * processes.  The report is made over the whole range (as `check --db`
 * and /api/v1/leaks do) and over the live series (as the judge service
 * does); the peak of heap bytes it held at once (counted by the
 * allocator's malloc and free hooks while it runs) must stay under a bound
 * far below what holding every incarnation's series cost (about 600 bytes
 * each).  The peak resident size (VmHWM) was the first measure: it moved
 * by megabytes from run to run with what the allocator had kept from
 * before (-56 to 9,876 KiB for the same live report), so heap bytes it
 * is: exact and the same in every run.  Every group is judged: `sleep`
 * is counted whole.  Linux only, and needs AddressSanitizer's allocator
 * (every native test program is built with it).
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/leak_report.h"
#include "storage/query.h"
#include "storage/store.h"
#include "tests/support/test_db.h"

/* AddressSanitizer's allocator interface (libasan has it; GCC 12 ships
 * no header for it). */
int __sanitizer_install_malloc_and_free_hooks(void (*on_malloc)(const volatile void *, size_t),
					      void (*on_free)(const volatile void *));
size_t __sanitizer_get_allocated_size(const volatile void *p);

/* Heap bytes held since counting began, and their peak.  Only this
 * thread allocates while counting (the report runs in the caller). */
static int counting;
static long long held, held_peak;

static void on_malloc(const volatile void *p, size_t size)
{
	(void)p;
	if (!counting)
		return;
	held += (long long)size;
	if (held > held_peak)
		held_peak = held;
}

/* A block allocated before counting began and freed while counting
 * lowers `held` below zero: the peak is what the report added on top of
 * what it found, never less than nothing. */
static void on_free(const volatile void *p)
{
	if (counting && p)
		held -= (long long)__sanitizer_get_allocated_size(p);
}

#define T0 1763683200000LL
#define DB "test_leak_churn_memory.tmp.db"
#define STEP 1000		/* 1 s ticks */
#define TICKS 3600		/* an hour */
#define NEW_PER_TICK 8		/* short-lived processes started a tick ... */
#define LIFE 3			/* ... each seen for this many ticks */
#define LONG_LIVED 20
/* Bound on the peak of heap the report holds, KiB.  The incarnations'
 * series are 28,800 x 5 = 144,000: holding every one's key and labels
 * until the end peaked at 85 MB of resident size (95 MB under
 * AddressSanitizer); keeping only ids and time spans, 36 MB (46 MB), and
 * 24.6 MiB of heap. */
#define PEAK_BOUND_KIB (40 * 1024)
/* The live series (the judge service's report): the long-lived ones and
 * the last tick's incarnations only; 1.3 MiB of heap. */
#define LIVE_PEAK_BOUND_KIB (4 * 1024)

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

/* The report over the hour (live series only, as the judge service, when
 * live_only): its JSON, and the peak of heap it held in KiB, opening the
 * reader included. */
static long report_peak_from(bool live_only, int64_t from_ms, struct mw_jbuf *text,
			     struct mw_leak_status *verdicts)
{
	struct mw_reader *r;
	struct mw_leak_query q;
	struct mw_err err;
	held = held_peak = 0;
	counting = 1;
	assert_int_equal(mw_reader_open(&r, DB, &err), 0);
	mw_leak_query_init(&q);
	q.from_ms = from_ms;
	q.to_ms = T0 + (int64_t)TICKS * STEP;
	q.live_only = live_only;
	if (mw_leak_report_verdicts(r, &q, text, verdicts, &err))
		fail_msg("report: %s", err.msg);
	mw_leak_query_release(&q);
	mw_reader_free(r);
	counting = 0;
	return (long)(held_peak / 1024);
}

static long report_peak(bool live_only, struct mw_jbuf *text, struct mw_leak_status *verdicts)
{
	return report_peak_from(live_only, T0, text, verdicts);
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
	printf("# whole range: the report held %ld KiB of heap at its peak (bound %d)\n", peak,
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
	static const char *const live_groups[] = { "leaky", "server" };
	struct mw_leak_status v, whole;
	struct mw_jbuf text;
	long peak;
	size_t i;

	(void)state;
	peak = report_peak(true, NULL, &v);
	printf("# live series: the report held %ld KiB of heap at its peak (bound %d)\n", peak,
	       LIVE_PEAK_BOUND_KIB);
	assert_true(peak < LIVE_PEAK_BOUND_KIB);
	/* a group whose processes all live is judged as the whole range
	 * judges it: the live series' spans (mw_reader_fill_spans) are the
	 * ones a full read finds.  Asked from an hour before the data, so a
	 * span left unread (the range's start) would judge otherwise. */
	mw_leak_status_release(&v);
	report_peak_from(true, T0 - 3600000, NULL, &v);
	mw_jbuf_init(&text);
	report_peak_from(false, T0 - 3600000, &text, &whole);
	for (i = 0; i < sizeof(live_groups) / sizeof(*live_groups); i++) {
		const struct mw_leak_verdict *a = verdict_of(&v, live_groups[i]);
		const struct mw_leak_verdict *b = verdict_of(&whole, live_groups[i]);

		assert_non_null(a);
		assert_non_null(b);
		assert_int_equal(a->verdict, b->verdict);
		assert_string_equal(a->aspect, b->aspect);
		assert_true(a->onset_ms == b->onset_ms);
		assert_true((isnan(a->slope_per_hour) && isnan(b->slope_per_hour)) ||
			    a->slope_per_hour == b->slope_per_hour);
	}
	assert_int_equal(verdict_of(&v, "leaky")->verdict, MW_VERDICT_FAIL);
	mw_leak_status_release(&whole);
	mw_jbuf_release(&text);
	mw_leak_status_release(&v);
}

/* One store for both (building it is most of the run): group fixtures. */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(whole_range_in_bounded_memory),
		cmocka_unit_test(live_series_in_bounded_memory),
	};

	if (__sanitizer_install_malloc_and_free_hooks(on_malloc, on_free) == 0) {
		fprintf(stderr, "cannot install the allocator's hooks\n");
		return 1;
	}
	return cmocka_run_group_tests(tests, build_store, teardown);
}
