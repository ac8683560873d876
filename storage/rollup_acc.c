/*
 * rollup_acc.c - the rollup tiers (1 minute, 10 minutes, 1 hour) on the
 * write side: a series' minute in progress fed point by point, completed
 * buckets queued for the next flush, and a bucket row written (or merged
 * with the stored one).
 *
 * Only the minute is accumulated in memory.  A 10-minute bucket is
 * derived from its stored minute rows, and an hour from its 10-minute
 * rows, by the flush that writes the last of them (mw_rollup_derive):
 * every minute before a series' newest one is stored whole (store.c), so
 * the coarser rows are the same aggregates the points would give, and a
 * live series holds one accumulator instead of three (112 bytes less a
 * series, issue 26).  A late point whose coarser bucket was derived
 * already is merged into that row as before; one whose bucket is still in
 * progress reaches it through its minute row.
 *
 * Uses only the store's structures and statements (store_impl.h,
 * rollup.h).  Used by store.c (every point; the queue at flush), series.c
 * (the minute rebuilt from raw chunks) and retention.c (buckets written
 * before their raw points go): it sits below all three, so none of them
 * calls back up into another.
 */
#include <math.h>
#include <string.h>

#include "store_impl.h"
#include "rollup.h"
#include "base/xalloc.h"

const int64_t mw_rollup_res[MW_TIERS] = { 60000, 600000, 3600000 };
const char *const mw_rollup_table[MW_TIERS] = { "rollup_1m", "rollup_10m", "rollup_1h" };

int64_t mw_floor_to(int64_t ts, int64_t res)
{
	int64_t q = ts / res;

	return (ts % res < 0 ? q - 1 : q) * res;
}

/* A write statement of the store stepped to its end. */
int mw_store_step_done(struct mw_store *s, sqlite3_stmt *st, const char *what, const char *key,
		       struct mw_err *err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return mw_error(err, "cannot write %s of '%s': %s", what, key,
				sqlite3_errmsg(s->db));
	return 0;
}

/* A new entry at the end of the queue, zeroed but for se, tier, ts. */
static struct mw_pending_rollup *queued(struct mw_store *s, struct mw_series *se, int tier,
					int64_t ts)
{
	struct mw_pending_rollup *r;

	MW_GROW(s->rollups, s->rollups_cap, s->nrollups + 1);
	r = &s->rollups[s->nrollups++];
	memset(r, 0, sizeof(*r));
	r->series = se;
	r->tier = tier;
	r->ts = ts;
	return r;
}

void mw_rollup_emit(struct mw_store *s, struct mw_series *se, int tier, bool merge,
		    const struct mw_rollup_acc *a)
{
	struct mw_pending_rollup *r = queued(s, se, tier, a->bucket);

	r->merge = merge;
	r->min = a->min;
	r->max = a->max;
	r->sum = a->sum;
	r->last = a->last;
	r->count = a->count;
}

/* A coarser tier's bucket (tier 1 or 2) to derive at the next flush, in
 * queue order: after the finer rows emitted before it, before any merge
 * emitted after it. */
static void emit_derive(struct mw_store *s, struct mw_series *se, int tier, int64_t bucket)
{
	queued(s, se, tier, bucket)->derive = true;
}

void mw_rollup_point(struct mw_store *s, struct mw_series *se, int64_t ts, double v)
{
	struct mw_rollup_acc *a = &se->minute;
	int64_t prev = a->bucket, b;
	int t;

	if (isnan(v))
		return;		/* NaN is not rolled up (documented in SCHEMA.md) */
	se->minute_unsaved = true;	/* store.c write_quiet_minute */
	/* the usual case, the minute in progress, without a division */
	if (prev != INT64_MIN && ts >= prev && ts - prev < mw_rollup_res[0]) {
		if (v < a->min)
			a->min = v;
		if (v > a->max)
			a->max = v;
		a->sum += v;
		a->count++;
		if (ts >= a->last_ts) {
			a->last = v;
			a->last_ts = ts;
		}
		return;
	}
	b = mw_floor_to(ts, mw_rollup_res[0]);
	if (prev != INT64_MIN && b < prev) {
		/* a late point (the clock stepped back): merged into its
		 * minute's row, and into each coarser bucket derived already;
		 * one still in progress takes it from the minute row */
		struct mw_rollup_acc p = { b, v, v, v, v, ts, 1 };

		mw_rollup_emit(s, se, 0, true, &p);
		for (t = 1; t < MW_TIERS; t++) {
			p.bucket = mw_floor_to(ts, mw_rollup_res[t]);
			if (p.bucket < mw_floor_to(prev, mw_rollup_res[t]))
				mw_rollup_emit(s, se, t, true, &p);
		}
		return;
	}
	if (prev != INT64_MIN) {
		/* the minute is complete, and with it each coarser bucket the
		 * point leaves (their rows are derived after its row) */
		mw_rollup_emit(s, se, 0, false, a);
		for (t = 1; t < MW_TIERS; t++)
			if (mw_floor_to(ts, mw_rollup_res[t]) > mw_floor_to(prev, mw_rollup_res[t]))
				emit_derive(s, se, t, mw_floor_to(prev, mw_rollup_res[t]));
	}
	a->bucket = b;
	a->min = a->max = a->sum = a->last = v;
	a->last_ts = ts;
	a->count = 1;
}

void mw_rollup_close_all(struct mw_store *s, struct mw_series *se)
{
	int t;

	if (se->minute.bucket == INT64_MIN)
		return;
	mw_rollup_emit(s, se, 0, false, &se->minute);
	for (t = 1; t < MW_TIERS; t++)
		emit_derive(s, se, t, mw_floor_to(se->minute.bucket, mw_rollup_res[t]));
}

/* Aggregate series id's rows of tier - 1 inside tier's bucket starting at
 * bucket into *a (count 0: none). */
static int finer_rows(struct mw_store *s, int64_t id, const char *key, int tier, int64_t bucket,
		      struct mw_rollup_acc *a, struct mw_err *err)
{
	int src = tier - 1;
	sqlite3_stmt *st = s->st[ST_RECOVER_MINUTES + src];
	int rc;

	a->bucket = bucket;
	a->count = 0;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, bucket / mw_rollup_res[src]);
	sqlite3_bind_int64(st, 3, (bucket + mw_rollup_res[tier]) / mw_rollup_res[src]);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t n = sqlite3_column_int64(st, 1);
		double lo, hi, last, sum;

		if (n <= 0)
			continue;
		mw_rollup_column(st, 2, n, &lo, &hi, &last, &sum);
		if (a->count == 0) {
			a->min = lo;
			a->max = hi;
			a->sum = sum;
		} else {
			a->min = fmin(a->min, lo);
			a->max = fmax(a->max, hi);
			a->sum += sum;
		}
		a->last = last;	/* the rows come in time order */
		a->count += n;
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return mw_error(err, "cannot read %s of '%s': %s", mw_rollup_table[src], key,
				sqlite3_errmsg(s->db));
	return 0;
}

int mw_rollup_derive(struct mw_store *s, int64_t id, const char *key, int tier, int64_t bucket,
		     struct mw_err *err)
{
	struct mw_rollup_acc a;

	if (finer_rows(s, id, key, tier, bucket, &a, err))
		return -1;
	if (a.count == 0)
		return 0;
	return mw_rollup_write(s, id, key, tier, false, &a, err);
}

/* Write a bucket of series id; merge: combine it with the stored row of
 * the same bucket (a late point: the clock stepped back), whose `last`
 * stays. */
int mw_rollup_write(struct mw_store *s, int64_t id, const char *key, int tier, bool merge,
		    const struct mw_rollup_acc *a, struct mw_err *err)
{
	sqlite3_stmt *st = s->st[ST_ROLLUP_1M + tier];
	int64_t t = a->bucket / mw_rollup_res[tier], count = a->count;
	double min = a->min, max = a->max, last = a->last, sum = a->sum;

	if (merge) {
		sqlite3_stmt *get = s->st[ST_MERGE_1M + tier];
		int rc;

		sqlite3_bind_int64(get, 1, id);
		sqlite3_bind_int64(get, 2, t);
		rc = sqlite3_step(get);
		if (rc == SQLITE_ROW) {
			int64_t n = sqlite3_column_int64(get, 5);
			double lo, hi, l, m;

			mw_rollup_column(get, 0, n, &lo, &hi, &l, &m);
			min = fmin(min, lo);
			max = fmax(max, hi);
			last = l;
			sum += m;
			count += n;
		}
		sqlite3_reset(get);
		if (rc != SQLITE_ROW && rc != SQLITE_DONE)
			return mw_error(err, "cannot read %s of '%s': %s",
					mw_rollup_table[tier], key, sqlite3_errmsg(s->db));
	}
	/* work for the minute packer (store_impl.h) */
	if (merge || tier == MW_TIERS - 1)
		s->pack_epoch++;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, t);
	mw_rollup_bind(st, 3, min, max, last, sum, count);
	sqlite3_bind_int64(st, 8, count);
	return mw_store_step_done(s, st, mw_rollup_table[tier], key, err);
}
