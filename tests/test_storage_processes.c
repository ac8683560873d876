/*
 * test_storage_processes.c - the processes view (storage/processes.h):
 * series pivoted into process rows, exited processes left out, the filter,
 * sort orders, paging, growth over the window and the floors handed to
 * the rate fit.  The fit here is a plain end-to-end slope so the expected
 * rates are exact; the real one (analysis/floor_rate.h) is checked last.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/floor_rate.h"
#include "storage/processes.h"
#include "storage/store.h"
#include "tests/support/test_db.h"
#include "tests/support/test_main.h"

#define DB "test_storage_processes.tmp.db"
#define T0 1700000000000LL
#define MIN 60000LL

MW_TEST_DB_FIXTURES(DB)

static void add(struct mw_store *s, const char *metric, const char *process, const char *pid,
		int64_t ts, double v)
{
	struct mw_label l[3] = { { "pid", pid }, { "process", process }, { "started", "1" } };
	char key[256];

	mw_series_key_format(key, sizeof(key), metric, l, 3);
	mw_store_add(s, key, metric, l, 3, ts, v);
}

/* alpha (pid 10) grows 1000 private bytes a minute for 40 minutes and has
 * a thread count; Beta (pid 20) stays flat; gamma (pid 30) stopped after
 * 5 minutes: it has exited. */
static void write_processes(void)
{
	struct mw_store *s = mw_test_store_open(DB);
	struct mw_err err;
	int64_t m;

	assert_non_null(s);
	for (m = 0; m <= 40; m++) {
		int64_t ts = T0 + m * MIN;

		add(s, "memwatch_process_private_bytes", "alpha", "10", ts, 100000 + 1000.0 * (double)m);
		add(s, "memwatch_process_working_set_bytes", "alpha", "10", ts, 50000 + 500.0 * (double)m);
		add(s, "memwatch_process_threads", "alpha", "10", ts, 4);
		add(s, "memwatch_process_private_bytes", "Beta", "20", ts, 200000);
		add(s, "memwatch_process_working_set_bytes", "Beta", "20", ts, 90000);
		if (m <= 5)
			add(s, "memwatch_process_private_bytes", "gamma", "30", ts, 900000);
	}
	if (mw_store_flush(s, &err))
		fail_msg("%s", err.msg);
	mw_store_free(s);
}

static double end_to_end(const double *t_ms, const double *v, size_t n)
{
	if (n < 2 || t_ms[n - 1] == t_ms[0])
		return NAN;
	return (v[n - 1] - v[0]) / (t_ms[n - 1] - t_ms[0]) * 3600000.0;
}

static void query_init(struct mw_proc_query *q)
{
	memset(q, 0, sizeof(*q));
	q->window_ms = 3600000;
	q->sort = MW_PROC_PRIVATE;
	q->limit = 200;
	q->interval_ms = 10000;
	q->now_ms = T0 + 40 * MIN;
	q->rate = end_to_end;
}

static void view(struct mw_reader *r, const struct mw_proc_query *q, struct mw_proc_view *v)
{
	struct mw_err err;

	if (mw_reader_proc_view(r, q, v, &err))
		fail_msg("%s", err.msg);
}

/* The processes written, and a reader on them. */
static struct mw_reader *written(void)
{
	struct mw_reader *r = NULL;
	struct mw_err err;

	write_processes();
	assert_int_equal(mw_reader_open(&r, DB, &err), 0);
	return r;
}

static void rows_and_figures(void **state)
{
	struct mw_reader *r;
	struct mw_proc_query q;
	struct mw_proc_view v;
	const struct mw_proc_row *a, *b;

	(void)state;
	r = written();
	query_init(&q);
	view(r, &q, &v);
	assert_int_equal(v.total, 2);	/* gamma exited */
	assert_int_equal(v.matched, 2);
	assert_int_equal(v.n, 2);
	assert_true(v.newest == T0 + 40 * MIN);
	assert_true(v.rate_step_ms == MIN);
	b = &v.rows[0];	/* largest private bytes first */
	a = &v.rows[1];
	assert_string_equal(b->process, "Beta");
	assert_string_equal(a->process, "alpha");
	assert_string_equal(a->pid, "10");
	assert_string_equal(a->started, "1");
	assert_true(a->v[MW_PROC_PRIVATE] == 140000);
	assert_true(a->v[MW_PROC_WS] == 70000);
	assert_true(a->v[MW_PROC_THREADS] == 4);
	assert_true(isnan(b->v[MW_PROC_THREADS]));
	assert_true(isnan(a->v[MW_PROC_HANDLES]));
	/* growth since the first point (the series is younger than the window) */
	assert_true(a->private_growth == 40000);
	assert_true(a->ws_growth == 20000);
	assert_true(a->growth_window_ms == 40 * MIN);
	assert_true(b->private_growth == 0);
	/* 1000 bytes a minute from 41 one-minute floors */
	assert_true(fabs(a->private_rate - 60000) < 1e-6);
	assert_true(fabs(a->ws_rate - 30000) < 1e-6);
	assert_int_equal(a->rate_floors, 41);
	assert_true(a->rate_span_ms == 40 * MIN);
	assert_true(b->private_rate == 0);
	mw_proc_view_release(&v);
	mw_reader_free(r);
}

static void filter_sort_page(void **state)
{
	struct mw_reader *r;
	struct mw_proc_query q;
	struct mw_proc_view v;

	(void)state;
	r = written();
	query_init(&q);
	q.filter = "BET";	/* part of a name, any case */
	view(r, &q, &v);
	assert_int_equal(v.total, 2);
	assert_int_equal(v.matched, 1);
	assert_int_equal(v.n, 1);
	assert_string_equal(v.rows[0].process, "Beta");
	mw_proc_view_release(&v);

	q.filter = "10";	/* a pid */
	view(r, &q, &v);
	assert_int_equal(v.n, 1);
	assert_string_equal(v.rows[0].process, "alpha");
	mw_proc_view_release(&v);

	query_init(&q);
	q.sort = MW_PROC_SORT_PRIVATE_RATE;
	view(r, &q, &v);
	assert_int_equal(v.n, 2);
	assert_string_equal(v.rows[0].process, "alpha");
	mw_proc_view_release(&v);

	q.sort = MW_PROC_SORT_NAME;	/* byte order: "Beta" before "alpha" */
	q.offset = 1;
	q.limit = 5;
	view(r, &q, &v);
	assert_int_equal(v.matched, 2);
	assert_int_equal(v.n, 1);
	assert_string_equal(v.rows[0].process, "alpha");
	/* the page's rates are read whatever the sort */
	assert_true(fabs(v.rows[0].private_rate - 60000) < 1e-6);
	mw_proc_view_release(&v);

	q.offset = 100;
	view(r, &q, &v);
	assert_int_equal(v.n, 0);
	mw_proc_view_release(&v);
	mw_reader_free(r);
}

static void floor_rate_fit(void **state)
{
	double t[6], v[6];
	size_t i;

	(void)state;
	for (i = 0; i < 6; i++) {
		t[i] = (double)i * 60000;
		v[i] = 1000.0 * (double)i;
	}
	assert_true(isnan(mw_floor_rate(t, v, MW_FLOOR_RATE_MIN - 1)));
	assert_true(fabs(mw_floor_rate(t, v, 6) - 60000) < 1e-6);
}

MW_TEST_MAIN(
	MW_FIXTURE_TEST(rows_and_figures),
	MW_FIXTURE_TEST(filter_sort_page),
	cmocka_unit_test(floor_rate_fit),
)
