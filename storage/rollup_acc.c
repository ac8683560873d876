/*
 * rollup_acc.c - the rollup tiers (1 minute, 10 minutes, 1 hour) on the write side: a series' bucket
 * accumulators fed point by point, completed buckets queued for the next
 * flush, and a bucket row written (or merged with the stored one).
 *
 * Uses only the store's structures and statements (store_impl.h,
 * rollup.h).  Used by store.c (every point; the queue at flush), series.c
 * (accumulators rebuilt from raw chunks) and retention.c (buckets written
 * before their raw points go): it sits below all three, so none of them
 * calls back up into another.
 */
#include <math.h>

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

void mw_rollup_emit(struct mw_store *s, struct mw_series *se, int tier, bool merge,
		    const struct mw_rollup_acc *a)
{
	struct mw_pending_rollup *r;

	MW_GROW(s->rollups, s->rollups_cap, s->nrollups + 1);
	r = &s->rollups[s->nrollups++];
	r->series = se;
	r->tier = tier;
	r->merge = merge;
	r->ts = a->bucket;
	r->min = a->min;
	r->max = a->max;
	r->sum = a->sum;
	r->last = a->last;
	r->count = a->count;
}

/* Fold part (a point, or an aggregate whose points are all in one bucket
 * of the tier) into a, which holds bucket b already. */
static void acc_fold(struct mw_rollup_acc *a, const struct mw_rollup_acc *part)
{
	if (part->min < a->min)
		a->min = part->min;
	if (part->max > a->max)
		a->max = part->max;
	a->sum += part->sum;
	a->count += part->count;
	if (part->last_ts >= a->last_ts) {
		a->last = part->last;
		a->last_ts = part->last_ts;
	}
}

/* part (its points all in one bucket of the tier, starting at or after
 * part->bucket) into the tier's accumulator of se. */
static void add_to_tier(struct mw_store *s, struct mw_series *se, int tier,
			struct mw_rollup_acc *part)
{
	struct mw_rollup_acc *a = &se->acc[tier];
	int64_t ts = part->bucket, b;

	/* the usual case, the bucket in progress, without a division */
	if (a->bucket != INT64_MIN && ts >= a->bucket && ts - a->bucket < mw_rollup_res[tier])
		b = a->bucket;
	else
		b = mw_floor_to(ts, mw_rollup_res[tier]);
	part->bucket = b;
	if (a->bucket == INT64_MIN) {
		*a = *part;
	} else if (b == a->bucket) {
		acc_fold(a, part);
	} else if (b > a->bucket) {
		mw_rollup_emit(s, se, tier, false, a);
		*a = *part;
	} else {
		mw_rollup_emit(s, se, tier, true, part);	/* the clock stepped back */
	}
}

void mw_rollup_add(struct mw_store *s, struct mw_series *se, int tier, int64_t ts, double v)
{
	struct mw_rollup_acc p;

	if (isnan(v))
		return;		/* NaN is not rolled up (documented in SCHEMA.md) */
	p.bucket = ts;
	p.min = p.max = p.sum = p.last = v;
	p.last_ts = ts;
	p.count = 1;
	add_to_tier(s, se, tier, &p);
	if (tier == 0)
		se->minute_unsaved = true;	/* store.c write_quiet_minute */
}

void mw_rollup_add_part(struct mw_store *s, struct mw_series *se, int tier,
			const struct mw_rollup_acc *part)
{
	struct mw_rollup_acc p = *part;

	if (p.count > 0)
		add_to_tier(s, se, tier, &p);
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
