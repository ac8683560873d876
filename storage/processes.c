/*
 * processes.c - the processes view (processes.h): the per-metric series
 * of mw_reader_processes() pivoted into one row per process, the exited
 * ones left out, filtered, sorted, paged, and the floors behind the rates
 * read with one range query.
 *
 * Uses query_latest.c (newest and past values) and query_range.c (the
 * floors) through query.h.  Used by web/handlers_data.c.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "processes.h"
#include "base/xalloc.h"

const char *const mw_proc_col_metric[MW_PROC_NCOLS] = {
	"memwatch_process_working_set_bytes", "memwatch_process_working_set_peak_bytes",
	"memwatch_process_private_bytes", "memwatch_process_virtual_bytes",
	"memwatch_process_handles", "memwatch_process_threads",
	"memwatch_process_page_faults_total",
};

static const char *label(const struct mw_series_info *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nlabels; i++)
		if (!strcmp(s->labels[i].name, name))
			return s->labels[i].value;
	return "";
}

/* A process is its pid, start time and image name. */
static int cmp_identity(const void *a, const void *b)
{
	const struct mw_latest *x = *(const struct mw_latest *const *)a;
	const struct mw_latest *y = *(const struct mw_latest *const *)b;
	int c = strcmp(label(&x->info, "pid"), label(&y->info, "pid"));

	if (!c)
		c = strcmp(label(&x->info, "started"), label(&y->info, "started"));
	if (!c)
		c = strcmp(label(&x->info, "process"), label(&y->info, "process"));
	return c;
}

static double growth(const struct mw_latest *l)
{
	if (l->past_ts_ms == INT64_MIN || isnan(l->past_value))
		return NAN;
	return l->value - l->past_value;
}

static void row_start(struct mw_proc_row *row, const struct mw_latest *l)
{
	size_t k;

	memset(row, 0, sizeof(*row));
	row->process = label(&l->info, "process");
	row->pid = label(&l->info, "pid");
	row->started = label(&l->info, "started");
	for (k = 0; k < MW_PROC_NCOLS; k++)
		row->v[k] = NAN;
	row->private_growth = row->ws_growth = NAN;
	row->private_rate = row->ws_rate = NAN;
	row->id_private = row->id_ws = -1;
	row->ts = INT64_MIN;
}

/* One series' newest value (and growth) into its process's row. */
static void row_add(struct mw_proc_row *row, const struct mw_latest *l)
{
	size_t k;

	for (k = 0; k < MW_PROC_NCOLS; k++)
		if (!strcmp(l->info.name, mw_proc_col_metric[k]))
			break;
	if (k == MW_PROC_NCOLS)
		return;
	row->v[k] = l->value;
	if (l->ts_ms > row->ts)
		row->ts = l->ts_ms;
	if (k == MW_PROC_PRIVATE) {
		row->id_private = l->info.id;
		row->private_growth = growth(l);
		if (l->past_ts_ms != INT64_MIN)
			row->growth_window_ms = l->ts_ms - l->past_ts_ms;
	} else if (k == MW_PROC_WS) {
		row->id_ws = l->info.id;
		row->ws_growth = growth(l);
	}
}

/* Group the per-metric series of t->list by process identity into t->all
 * (returns the number of rows); t->newest: the newest sample. */
static size_t pivot(struct mw_proc_view *t)
{
	const struct mw_latest_list *list = &t->list;
	const struct mw_latest **idx = mw_xcalloc(list->n ? list->n : 1, sizeof(*idx));
	struct mw_proc_row *row = NULL;
	size_t i, nrows = 0;

	t->all = mw_xcalloc(list->n ? list->n : 1, sizeof(*t->all));
	for (i = 0; i < list->n; i++) {
		idx[i] = &list->items[i];
		if (list->items[i].ts_ms > t->newest)
			t->newest = list->items[i].ts_ms;
	}
	qsort(idx, list->n, sizeof(*idx), cmp_identity);
	for (i = 0; i < list->n; i++) {
		if (!row || cmp_identity(&idx[i - 1], &idx[i]))
			row_start(row = &t->all[nrows++], idx[i]);
		row_add(row, idx[i]);
	}
	free(idx);
	return nrows;
}

/* Case-insensitive (ASCII) substring test. */
static bool contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle), i;

	for (; *hay; hay++) {
		for (i = 0; i < n && hay[i]; i++) {
			char a = hay[i], b = needle[i];

			if (a >= 'A' && a <= 'Z')
				a = (char)(a - 'A' + 'a');
			if (b >= 'A' && b <= 'Z')
				b = (char)(b - 'A' + 'a');
			if (a != b)
				break;
		}
		if (i == n)
			return true;
	}
	return n == 0;
}

static bool row_matches(const struct mw_proc_row *row, const char *filter)
{
	return !filter || !strcmp(row->pid, filter) || contains_ci(row->process, filter);
}

/* ---- rates ------------------------------------------------------------------ */

/* The rate of series i of res's floors; *span_ms and *nfloors: what the
 * floors cover.  x, y: room for res->nt values. */
static double floor_rate(const struct mw_range_result *res, size_t i, mw_floor_rate_fn fit,
			 double *x, double *y, int64_t *span_ms, int *nfloors)
{
	size_t j, n = 0;

	for (j = 0; j < res->nt; j++) {
		if (isnan(res->values[i][j]))
			continue;
		x[n] = (double)(res->t[j] - res->t[0]);
		y[n++] = res->values[i][j];
	}
	*nfloors = (int)n;
	*span_ms = n ? (int64_t)(x[n - 1] - x[0]) : 0;
	return fit(x, y, n);
}

/* The rates of res's series into the rows owning them (owner[i] / 2 is
 * the row, owner[i] % 2 the series: 0 private bytes, 1 working set). */
static void rates_to_rows(const struct mw_range_result *res, const size_t *owner, size_t nids,
			  struct mw_proc_row *rows, mw_floor_rate_fn fit)
{
	double *x = mw_xmalloc((res->nt + 1) * sizeof(*x));
	double *y = mw_xmalloc((res->nt + 1) * sizeof(*y));
	size_t i;

	for (i = 0; i < res->nseries && i < nids; i++) {
		struct mw_proc_row *row = &rows[owner[i] / 2];
		int64_t span;
		int nf;
		double rate = floor_rate(res, i, fit, x, y, &span, &nf);

		if (owner[i] % 2 == 0) {
			row->private_rate = rate;
			row->rate_span_ms = span;
			row->rate_floors = nf;
		} else {
			row->ws_rate = rate;
			if (row->id_private < 0)
				row->rate_span_ms = span;
		}
	}
	free(x);
	free(y);
}

/* The floors' bucket width for a window: at most MW_PROC_RATE_MAX_FLOORS
 * whole minutes. */
static int64_t rate_step(int64_t window_ms)
{
	int64_t step = (window_ms / 60000 + MW_PROC_RATE_MAX_FLOORS - 1) /
		       MW_PROC_RATE_MAX_FLOORS * 60000;

	return step < 60000 ? 60000 : step;
}

/*
 * Fill the rates of rows[0..n) from one range read of their private-bytes
 * and working-set series: per-bucket minima over [to - window, to].
 */
static int fill_rates(struct mw_reader *reader, struct mw_proc_row *rows, size_t n,
		      int64_t to, const struct mw_proc_query *q, struct mw_err *err)
{
	struct mw_range_query rq;
	struct mw_range_result res;
	int64_t *ids = mw_xmalloc((2 * n + 1) * sizeof(*ids));
	size_t *owner = mw_xmalloc((2 * n + 1) * sizeof(*owner));
	size_t i, nids = 0;
	int rc = 0;

	for (i = 0; i < n; i++) {
		if (rows[i].id_private >= 0) {
			owner[nids] = 2 * i;
			ids[nids++] = rows[i].id_private;
		}
		if (rows[i].id_ws >= 0) {
			owner[nids] = 2 * i + 1;
			ids[nids++] = rows[i].id_ws;
		}
	}
	memset(&res, 0, sizeof(res));
	if (nids) {
		mw_range_query_init(&rq, to - q->window_ms, to);
		rq.step_ms = rate_step(q->window_ms);
		rq.agg = MW_AGG_MIN;
		rc = mw_reader_range_ids(reader, ids, nids, &rq, &res, err);
		if (!rc)
			rates_to_rows(&res, owner, nids, rows, q->rate);
	}
	mw_range_result_release(&res);
	free(ids);
	free(owner);
	return rc;
}

/* ---- sort and page ---------------------------------------------------------- */

static double sort_key(const struct mw_proc_row *p, int col)
{
	if (col == MW_PROC_SORT_PRIVATE_RATE)
		return p->private_rate;
	if (col == MW_PROC_SORT_WS_RATE)
		return p->ws_rate;
	return p->v[col];
}

static int cmp_rows_name(const void *a, const void *b)
{
	const struct mw_proc_row *x = a, *y = b;
	int c = strcmp(x->process, y->process);

	return c ? c : strcmp(x->pid, y->pid);
}

/* Descending by key, NaN (no data) last; ties by name, pid. */
static int cmp_rows(const void *a, const void *b)
{
	double x = ((const struct mw_proc_row *)a)->key;
	double y = ((const struct mw_proc_row *)b)->key;

	if (isnan(x) || isnan(y)) {
		if (isnan(x) && isnan(y))
			return cmp_rows_name(a, b);
		return isnan(x) ? 1 : -1;
	}
	return x > y ? -1 : x < y ? 1 : cmp_rows_name(a, b);
}

static void sort_rows(struct mw_proc_row *rows, size_t n, int col)
{
	size_t i;

	if (col == MW_PROC_SORT_NAME) {
		qsort(rows, n, sizeof(*rows), cmp_rows_name);
		return;
	}
	for (i = 0; i < n; i++)
		rows[i].key = sort_key(&rows[i], col);
	qsort(rows, n, sizeof(*rows), cmp_rows);
}

/* Keep the live rows of t->all[0..nrows), then those matching the
 * filter; sets total and matched, returns the rows kept. */
static size_t keep_rows(struct mw_proc_view *t, size_t nrows,
			const struct mw_proc_query *q)
{
	/* A process is live when sampled within three intervals of the newest
	 * sample, or of now when that is later than now (a point stamped in the
	 * future, imported or from a clock step, must not make every running
	 * process look exited); exited ones drop out of the table. */
	int64_t ref = t->newest > q->now_ms ? q->now_ms : t->newest;
	int64_t live = ref == INT64_MIN ? INT64_MIN : ref - 3 * q->interval_ms;
	size_t i, k;

	for (i = k = 0; i < nrows; i++)
		if (t->all[i].ts >= live)
			t->all[k++] = t->all[i];
	t->total = nrows = k;
	for (i = k = 0; i < nrows; i++)
		if (row_matches(&t->all[i], q->filter))
			t->all[k++] = t->all[i];
	return t->matched = k;
}

int mw_reader_proc_view(struct mw_reader *r, const struct mw_proc_query *q,
			struct mw_proc_view *out, struct mw_err *err)
{
	bool by_rate = q->sort == MW_PROC_SORT_PRIVATE_RATE || q->sort == MW_PROC_SORT_WS_RATE;
	size_t nrows;
	int64_t to;

	memset(out, 0, sizeof(*out));
	out->newest = INT64_MIN;
	out->rate_step_ms = rate_step(q->window_ms);
	if (mw_reader_processes(r, q->window_ms, &out->list, err))
		return -1;
	nrows = keep_rows(out, pivot(out), q);
	/* The window ends at the newest sample (a stopped daemon's database
	 * still has rates), never after now. */
	to = out->newest == INT64_MIN || out->newest > q->now_ms ? q->now_ms : out->newest;
	/* Sorting by a rate needs every matched row's rate; otherwise only
	 * the page's rows are read. */
	if (by_rate && fill_rates(r, out->all, nrows, to, q, err))
		goto fail;
	sort_rows(out->all, nrows, q->sort);
	out->rows = out->all + (q->offset < nrows ? q->offset : nrows);
	out->n = (size_t)(out->all + nrows - out->rows);
	if (q->limit < out->n)
		out->n = q->limit;
	if (!by_rate && fill_rates(r, out->rows, out->n, to, q, err))
		goto fail;
	return 0;
fail:
	mw_proc_view_release(out);
	return -2;
}

void mw_proc_view_release(struct mw_proc_view *t)
{
	free(t->all);
	mw_latest_list_release(&t->list);
	memset(t, 0, sizeof(*t));
	t->newest = INT64_MIN;
}
