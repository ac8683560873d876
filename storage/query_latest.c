/*
 * query_latest.c - the newest values (query.h "latest values"): of every
 * live series a selector matches (/metrics), and of every process series
 * with its value a growth window earlier (the processes view).
 *
 * Uses reader.c, query_series.c (mw_reader_collect) and codec.c.  Used by
 * processes.c and by callers of query.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "query_impl.h"
#include "codec.h"
#include "base/clock.h"
#include "base/xalloc.h"

static const char *const latest_sql[MW_READER_SLOTS] = {
	[MW_SLOT_PAST] = "SELECT t * 60000, base + last FROM rollup_1m_all WHERE series_id = ? "
			 "AND t <= ? ORDER BY t DESC LIMIT 1",
	[MW_SLOT_FIRST_CHUNK] = "SELECT data FROM chunk WHERE series_id = ? ORDER BY max_ts LIMIT 1",
};

static sqlite3_stmt *stmt(struct mw_reader *r, int slot, struct mw_err *err)
{
	return mw_reader_stmt(r, slot, latest_sql[slot], err);
}

void mw_latest_list_release(struct mw_latest_list *list)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		mw_series_info_release(&list->items[i].info);
	free(list->items);
	list->items = NULL;
	list->n = 0;
}

/*
 * The newest value of every live series selected: one pass over the
 * series_live table (the series the writer holds, written in the last
 * series_idle_ms) joined to latest, series and their labels; the cost is
 * that of the live series, never of the dead ones the file holds.  A
 * selector with a metric name leaves the other metrics' rows in SQL,
 * before their chunk, labels and newest point are read (the leak judge
 * asks for seven metrics in turn, a seventeenth of the live series each
 * at 300 processes).
 */
static int latest(struct mw_reader *r, const char *selector, struct mw_latest_list *out,
		  struct mw_err *err)
{
	struct mw_found f = { NULL, 0, 0 };
	struct mw_selector sel;
	sqlite3_stmt *st;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (mw_reader_begin_selected(r, selector, &sel, err))
		return -1;
	if (!(st = mw_reader_live_stmt(r, sel.name, err)) ||
	    mw_reader_collect(r, st, &sel, true, &f, err)) {
		mw_found_release(&f);
		goto out;
	}
	mw_found_sort(&f);
	out->items = f.n ? f.items : mw_xcalloc(1, sizeof(*out->items));
	if (!f.n)
		free(f.items);
	out->n = f.n;
	rc = 0;
out:
	mw_reader_end(r);
	mw_selector_release(&sel);
	return rc;
}

int mw_reader_latest(struct mw_reader *r, const char *selector,
		     struct mw_latest_list *out, struct mw_err *err)
{
	int64_t t0 = mw_clock_mono_ns();
	int rc = latest(r, selector, out, err);

	mw_reader_count(t0);
	return rc;
}

int mw_reader_processes(struct mw_reader *r, int64_t window_ms,
			struct mw_latest_list *out, struct mw_err *err)
{
	int64_t t0 = mw_clock_mono_ns();
	sqlite3_stmt *past, *first;
	size_t i;

	if (window_ms <= 0)
		window_ms = 3600000;
	if (latest(r, "{__name__=~\"memwatch_process_.*\"}", out, err))
		return -1;
	if (mw_reader_begin(r, err))
		goto fail;
	if (!(past = stmt(r, MW_SLOT_PAST, err)) || !(first = stmt(r, MW_SLOT_FIRST_CHUNK, err))) {
		mw_reader_end(r);
		goto fail;
	}
	for (i = 0; i < out->n; i++) {
		struct mw_latest *l = &out->items[i];

		sqlite3_bind_int64(past, 1, l->info.id);
		sqlite3_bind_int64(past, 2, mw_floor_div(l->ts_ms - window_ms - 60000, 60000));
		if (sqlite3_step(past) == SQLITE_ROW) {
			l->past_ts_ms = sqlite3_column_int64(past, 0) + 59999;
			l->past_value = sqlite3_column_double(past, 1);
		} else {
			struct mw_chunk_dec d;

			sqlite3_bind_int64(first, 1, l->info.id);
			if (sqlite3_step(first) == SQLITE_ROW &&
			    !mw_chunk_dec_init(&d, sqlite3_column_blob(first, 0),
					       (size_t)sqlite3_column_bytes(first, 0)) &&
			    mw_chunk_dec_next(&d, &l->past_ts_ms, &l->past_value) != 1) {
				l->past_ts_ms = INT64_MIN;
				l->past_value = NAN;
			}
			sqlite3_reset(first);
		}
		sqlite3_reset(past);
	}
	mw_reader_end(r);
	mw_reader_count(t0);
	return 0;
fail:
	mw_latest_list_release(out);
	return -1;
}
