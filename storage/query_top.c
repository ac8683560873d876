/*
 * query_top.c - the top-N series of a range result by growth (query.h
 * "top": last value minus first), kept in rank order.
 *
 * Uses nothing of the reader.  Used by query_range.c, which ranks a
 * bucketed read as it goes (holding only `top` value arrays) and a raw
 * read once complete.
 */
#include <math.h>
#include <stdlib.h>

#include "query_impl.h"
#include "base/xalloc.h"

double mw_column_growth(const double *v, size_t nt)
{
	size_t a, z;

	for (a = 0; a < nt && isnan(v[a]); a++)
		;
	for (z = nt; z > a && isnan(v[z - 1]); z--)
		;
	return a < z ? v[z - 1] - v[a] : NAN;
}

int mw_ranked_cmp(const void *a, const void *b)
{
	const struct mw_ranked *x = a, *y = b;

	if (isnan(x->g) != isnan(y->g))
		return isnan(x->g) ? 1 : -1;
	if (!isnan(x->g) && x->g != y->g)
		return x->g > y->g ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

void mw_range_keep(struct mw_range_result *res, struct mw_ranked *keep, size_t n)
{
	struct mw_series_info *series = mw_xcalloc(n ? n : 1, sizeof(*series));
	double **values = mw_xcalloc(n ? n : 1, sizeof(*values));
	double *growth = mw_xcalloc(n ? n : 1, sizeof(*growth));
	bool *used = mw_xcalloc(res->nseries ? res->nseries : 1, sizeof(*used));
	size_t k, i;

	if (n > 1)
		qsort(keep, n, sizeof(*keep), mw_ranked_cmp);
	for (k = 0; k < n; k++) {
		series[k] = res->series[keep[k].i];
		values[k] = res->values[keep[k].i];
		growth[k] = keep[k].g;
		used[keep[k].i] = true;
	}
	for (i = 0; i < res->nseries; i++)
		if (!used[i]) {
			mw_series_info_release(&res->series[i]);
			free(res->values[i]);
		}
	free(used);
	free(res->series);
	free(res->values);
	free(res->growth);
	res->series = series;
	res->values = values;
	res->growth = growth;
	res->nseries = n;
}

void mw_range_top(struct mw_range_result *res, size_t top)
{
	struct mw_ranked *all = mw_xmalloc((res->nseries ? res->nseries : 1) * sizeof(*all));
	size_t i;

	for (i = 0; i < res->nseries; i++) {
		all[i].i = i;
		all[i].g = mw_column_growth(res->values[i], res->nt);
	}
	if (res->nseries > 1)
		qsort(all, res->nseries, sizeof(*all), mw_ranked_cmp);
	mw_range_keep(res, all, top < res->nseries ? top : res->nseries);
	free(all);
}
