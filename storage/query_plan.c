/*
 * query_plan.c - how a range read is made (query.h "range queries"): the
 * request (aggregate and tier names, defaults, checks), the automatic
 * step, the tier a step reads, and the size limit checked before any
 * point is read.
 *
 * Uses reader.c and query_series.c (the tiers' oldest data).  Used by
 * query_range.c.
 */
#include <stdbool.h>
#include <string.h>

#include "query_impl.h"

int mw_agg_parse(const char *text, enum mw_agg *out, struct mw_err *err)
{
	static const char *const names[] = { "avg", "min", "max", "last" };
	size_t i;

	for (i = 0; i < MW_ARRAY_SIZE(names); i++)
		if (text && !strcmp(text, names[i])) {
			*out = (enum mw_agg)i;
			return 0;
		}
	return mw_error(err, "unknown aggregate '%s' (avg, min, max or last)",
			text ? text : "");
}

const char *mw_tier_name(enum mw_tier tier)
{
	switch (tier) {
	case MW_TIER_RAW:
		return "raw";
	case MW_TIER_1M:
		return "1m";
	case MW_TIER_10M:
		return "10m";
	case MW_TIER_1H:
		return "1h";
	default:
		return "auto";
	}
}

void mw_range_query_init(struct mw_range_query *q, int64_t from_ms, int64_t to_ms)
{
	memset(q, 0, sizeof(*q));
	q->from_ms = from_ms;
	q->to_ms = to_ms;
	q->step_ms = MW_STEP_AUTO;
	q->agg = MW_AGG_AVG;
	q->max_points = 0;
	q->tier = MW_TIER_AUTO;
}

int64_t mw_round_up(int64_t v, int64_t m)
{
	return (v + m - 1) / m * m;
}

/* Oldest timestamp any of the series has in a tier (INT64_MAX: none). */
static int64_t tier_oldest(struct mw_reader *r, int tier, const struct mw_range_result *res)
{
	sqlite3_stmt *st = mw_reader_tier_first(r, tier, NULL);
	int64_t oldest = INT64_MAX;
	size_t i;

	if (!st)
		return INT64_MAX;
	for (i = 0; i < res->nseries && !mw_reader_expired(r); i++) {
		int64_t v = mw_stmt_int(st, res->series[i].id, INT64_MAX);

		if (v < oldest)
			oldest = v;
	}
	return oldest;
}

/* A whole second, minute, 10 minutes or hour.  Past 10 minutes the step
 * is a multiple of the 10-minute tier's, which the auto tier then reads
 * (issue 26: a week to 1,000 buckets is 20-minute steps from 1,008 rows a
 * series, where 11-minute steps read 10,080 minute rows). */
static int64_t nice_step(int64_t step)
{
	if (step <= 1000)
		return 1000;
	if (step < 60000)
		return mw_round_up(step, 1000);
	if (step <= 600000)
		return mw_round_up(step, 60000);
	if (step < 3600000)
		return mw_round_up(step, 600000);
	return mw_round_up(step, 3600000);
}

int64_t mw_nbuckets(int64_t from, int64_t to, int64_t step)
{
	return mw_floor_div(to, step) - mw_floor_div(from, step) + 1;
}

/* The expiry test of the auto tier choice: a finer tier has lost data at
 * from_ms only if the coarser one reaches further back than the finer
 * one's oldest point floored to the coarser bucket (a young series has a
 * rollup bucket starting before its first raw point; that is not expiry). */
static bool tier_expired(struct mw_reader *r, int tier, int64_t from,
			 const struct mw_range_result *res)
{
	int64_t fine = tier_oldest(r, tier, res), coarse;

	if (fine <= from)
		return false;
	coarse = tier_oldest(r, tier + 1, res);
	return fine == INT64_MAX ? coarse != INT64_MAX
				 : coarse < mw_floor_div(fine, mw_tier_res[tier + 1]) * mw_tier_res[tier + 1];
}

size_t mw_points_limit(const struct mw_range_query *q)
{
	size_t maxp = q->max_points;

	if (!maxp)
		maxp = q->step_ms > 0 ? MW_QUERY_MAX_POINTS : MW_QUERY_DEFAULT_POINTS;
	return maxp > MW_QUERY_MAX_POINTS ? MW_QUERY_MAX_POINTS : maxp;
}

int mw_range_query_check(const struct mw_range_query *q, struct mw_err *err)
{
	int64_t n;

	if (q->from_ms < MW_TIME_MIN || q->from_ms > MW_TIME_MAX ||
	    q->to_ms < MW_TIME_MIN || q->to_ms > MW_TIME_MAX)
		return mw_error(err, "bad range: 'from' (%lld) and 'to' (%lld) must lie in "
				"years 0001 to 9999", (long long)q->from_ms, (long long)q->to_ms);
	if (q->to_ms < q->from_ms)
		return mw_error(err, "bad range: 'to' (%lld) is before 'from' (%lld)",
				(long long)q->to_ms, (long long)q->from_ms);
	if (q->tier < MW_TIER_AUTO || q->tier > MW_TIER_1H || q->step_ms < MW_STEP_RAW)
		return mw_error(err, "bad query: tier %d, step %lld", (int)q->tier,
				(long long)q->step_ms);
	if (q->step_ms > MW_TIME_MAX)
		return mw_error(err, "step: %lld ms is longer than %lld ms (9999 years)",
				(long long)q->step_ms, (long long)MW_TIME_MAX);
	if (q->step_ms <= 0)
		return 0;
	if (q->tier > MW_TIER_RAW && q->step_ms % mw_tier_res[q->tier] != 0)
		return mw_error(err, "step: %lld ms is not a multiple of the %s tier's "
				"resolution", (long long)q->step_ms, mw_tier_name(q->tier));
	n = mw_nbuckets(q->from_ms, q->to_ms, q->step_ms);
	if (n > (int64_t)mw_points_limit(q))
		return mw_error(err, "step: %lld ms gives %lld buckets over this range, more "
				"than max_points (%zu); give a wider step or a shorter range",
				(long long)q->step_ms, (long long)n, mw_points_limit(q));
	return 0;
}

/*
 * The automatic step: range / maxp rounded up to a nice value; when the
 * buckets' alignment gives one too many, range / (maxp - 1), which always
 * fits (floor(to/s) - floor(from/s) <= floor((to - from)/s) + 1 <= maxp - 1).
 * maxp 1 over a range across a bucket boundary doubles the step (a bounded
 * number of times: times are within MW_TIME_MIN..MW_TIME_MAX, checked).
 */
int64_t mw_auto_step(int64_t from, int64_t to, size_t maxp)
{
	int64_t range = to - from + 1, m = (int64_t)maxp, step;
	int i;

	step = nice_step((range + m - 1) / m);
	if (m > 1 && mw_nbuckets(from, to, step) > m)
		step = nice_step((range + m - 2) / (m - 1));
	for (i = 0; i < 64 && mw_nbuckets(from, to, step) > m && step <= MW_TIME_MAX; i++)
		step = nice_step(step * 2);
	return step;
}


int mw_range_check_size(struct mw_reader *r, const struct mw_range_query *q, size_t nseries,
		      size_t maxp, bool *raw_ok, struct mw_err *err)
{
	uint64_t limit = q->max_values ? q->max_values : MW_QUERY_MAX_VALUES;
	uint64_t kept = q->top && q->top < nseries ? q->top : nseries;
	int64_t axis;

	*raw_ok = (uint64_t)nseries * maxp <= limit;
	if (q->step_ms == MW_STEP_RAW) {
		axis = (int64_t)maxp;
		kept = nseries;	/* the union axis needs every series */
	} else if (q->step_ms > 0) {
		axis = mw_nbuckets(q->from_ms, q->to_ms, q->step_ms);
	} else {
		/* an automatic step is at least a second */
		axis = mw_nbuckets(q->from_ms, q->to_ms, 1000);
		if (axis > (int64_t)maxp)
			axis = (int64_t)maxp;
	}
	if (kept * (uint64_t)axis <= limit)
		return 0;
	mw_reader_set_kind(r, MW_QERR_LIMIT);
	return mw_error(err, "%zu series x %lld points is over the limit of %llu values; "
			"narrow the selector, shorten the range or lower max_points",
			(size_t)kept, (long long)axis, (unsigned long long)limit);
}

int mw_explicit_tier(const struct mw_range_query *q)
{
	int64_t step = q->step_ms;

	/* The coarsest tier whose buckets fit in a step, also when the step is
	 * not a multiple of them (90 s reads 1-minute rows, not raw points): a
	 * stored bucket goes whole into the step that holds its start
	 * (query.h).  The 10-minute tier only for a multiple of 10 minutes:
	 * 15 min reads minute rows exactly, as before the tier existed. */
	int tier;

	if (q->tier != MW_TIER_AUTO)
		return (int)q->tier;
	for (tier = MW_TIER_1H; tier > MW_TIER_RAW; tier--)
		if (step >= mw_tier_res[tier] &&
		    (tier != MW_TIER_10M || step % mw_tier_res[tier] == 0))
			break;
	return tier;
}

int mw_auto_tier(struct mw_reader *r, const struct mw_range_query *q,
		 const struct mw_range_result *res, int64_t *step, struct mw_err *err)
{
	int tier;

	if (q->tier != MW_TIER_AUTO) {
		tier = q->tier;
		*step = mw_round_up(*step, mw_tier_res[tier]);
		return tier;
	}
	/* the coarsest tier whose resolution divides the step */
	tier = MW_TIER_1H;
	while (tier > MW_TIER_RAW && *step % mw_tier_res[tier] != 0)
		tier--;
	/* A finer tier already expired at from_ms: use a coarser one. */
	while (tier < MW_TIER_1H && tier_expired(r, tier, q->from_ms, res)) {
		tier++;
		*step = mw_round_up(*step, mw_tier_res[tier]);
	}
	return mw_reader_check_deadline(r, err) ? -1 : tier;
}
