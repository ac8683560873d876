/* leak_gauges.c - see leak_gauges.h. */
#include "leak_gauges.h"

#include <math.h>
#include <stddef.h>

#include "base/units.h"
#include "metric_catalog.h"

static const char *verdict_word(int v)
{
	return v == 1 ? "fail" : v == 0 ? "pass" : "inconclusive";
}

/* Begin family `id` (its HELP and TYPE from the catalogue); returns its
 * name for the samples. */
static const char *family(const struct mw_leak_gauge_sink *k, enum mw_metric_id id)
{
	const struct mw_metric *m = &mw_metric_catalog[id];

	k->family(k->arg, m->name, mw_metric_type_name(m->type), m->help);
	return m->name;
}

void mw_leak_gauges_walk(const struct mw_leak_status *s, const struct mw_leak_gauge_sink *k)
{
	/* Figures in bytes: a group decided by a count (handles, threads)
	 * has its own family, so no series mixes the two units. */
	static const struct {
		enum mw_metric_id id;
		int field;	/* 0 slope, 1 growth, 2 projected, 3 onset */
		int counts;	/* 1: the count family */
	} figures[] = {
		{ MW_M_LEAK_SLOPE_BYTES_PER_HOUR, 0, 0 },
		{ MW_M_LEAK_GROWTH_BYTES, 1, 0 },
		{ MW_M_LEAK_PROJECTED_BYTES, 2, 0 },
		{ MW_M_LEAK_COUNT_SLOPE_PER_HOUR, 0, 1 },
		{ MW_M_LEAK_ONSET_TIMESTAMP_SECONDS, 3, -1 },
	};
	const char *name;
	size_t i, f;

	name = family(k, MW_M_LEAK_VERDICT);
	for (i = 0; i < s->n; i++)
		k->sample(k->arg, name, "process", s->v[i].process, NULL, NULL,
			  s->v[i].verdict == 1 ? 1 : s->v[i].verdict == 0 ? 0 : 3);
	for (f = 0; f < MW_ARRAY_SIZE(figures); f++) {
		name = family(k, figures[f].id);
		for (i = 0; i < s->n; i++) {
			const struct mw_leak_verdict *v = &s->v[i];
			int is_count = v->unit[0] && v->unit[0] != 'b';
			double x = figures[f].field == 0 ? v->slope_per_hour :
				   figures[f].field == 1 ? v->growth :
				   figures[f].field == 2 ? v->projected :
				   v->onset_ms == INT64_MIN ? NAN : (double)v->onset_ms / 1000;

			if (isnan(x) || (figures[f].counts >= 0 && figures[f].counts != is_count))
				continue;
			if (figures[f].counts == 1)
				k->sample(k->arg, name, "process", v->process, "unit", v->unit, x);
			else
				k->sample(k->arg, name, "process", v->process, NULL, NULL, x);
		}
	}
	name = family(k, MW_M_LEAK_KIND);
	for (i = 0; i < s->n; i++)
		if (s->v[i].verdict == 1 && s->v[i].kind[0])
			k->sample(k->arg, name, "kind", s->v[i].kind, "process", s->v[i].process, 1);
	name = family(k, MW_M_LEAK_GROUPS);
	for (i = 0; i < 4; i++)
		if (i != 2)
			k->sample(k->arg, name, "verdict", verdict_word((int)i), NULL, NULL,
				  (double)s->counts[i]);
}

void mw_leak_gauges_walk_runs(const struct mw_leak_status *s, const struct mw_leak_gauge_sink *k)
{
	const char *name;

	name = family(k, MW_M_LEAK_CHECKS_TOTAL);
	k->sample(k->arg, name, NULL, NULL, NULL, NULL, (double)s->runs);
	name = family(k, MW_M_LEAK_CHECK_FAILURES_TOTAL);
	k->sample(k->arg, name, NULL, NULL, NULL, NULL, (double)s->failures);
	name = family(k, MW_M_LEAK_CHECK_DURATION_SECONDS);
	k->sample(k->arg, name, NULL, NULL, NULL, NULL, s->last_duration_s);
	name = family(k, MW_M_LEAK_CHECK_INTERVAL_SECONDS);
	k->sample(k->arg, name, NULL, NULL, NULL, NULL, s->pause_s);
}
