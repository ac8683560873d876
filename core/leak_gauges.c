/* leak_gauges.c - see leak_gauges.h. */
#include "leak_gauges.h"

#include <math.h>
#include <stddef.h>

#include "base/units.h"

static const char *verdict_word(int v)
{
	return v == 1 ? "fail" : v == 0 ? "pass" : "inconclusive";
}

void mw_leak_gauges_walk(const struct mw_leak_status *s, const struct mw_leak_gauge_sink *k)
{
	/* Figures in bytes: a group decided by a count (handles, threads)
	 * has its own family, so no series mixes the two units. */
	static const struct {
		const char *name, *help;
		int field;	/* 0 slope, 1 growth, 2 projected, 3 onset */
		int counts;	/* 1: the count family */
	} figures[] = {
		{ "memwatch_leak_slope_bytes_per_hour",
		  "Growth rate of the process group's floor (Theil-Sen), bytes per hour.", 0, 0 },
		{ "memwatch_leak_growth_bytes", "Growth since the onset, bytes.", 1, 0 },
		{ "memwatch_leak_projected_bytes",
		  "Growth projected over the [leak] horizon, bytes (0 unless failing).", 2, 0 },
		{ "memwatch_leak_count_slope_per_hour",
		  "Growth rate of a group decided by a count (label unit: handles, threads), per hour.",
		  0, 1 },
		{ "memwatch_leak_onset_timestamp_seconds",
		  "Since when the process group grows (absent when it does not).", 3, -1 },
	};
	size_t i, f;

	k->family(k->arg, "memwatch_leak_verdict", "gauge",
		  "Leak verdict of the process group: 0 pass, 1 fail, 3 inconclusive.");
	for (i = 0; i < s->n; i++)
		k->sample(k->arg, "memwatch_leak_verdict", "process", s->v[i].process, NULL, NULL,
			  s->v[i].verdict == 1 ? 1 : s->v[i].verdict == 0 ? 0 : 3);
	for (f = 0; f < MW_ARRAY_SIZE(figures); f++) {
		k->family(k->arg, figures[f].name, "gauge", figures[f].help);
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
				k->sample(k->arg, figures[f].name, "process", v->process, "unit", v->unit, x);
			else
				k->sample(k->arg, figures[f].name, "process", v->process, NULL, NULL, x);
		}
	}
	k->family(k->arg, "memwatch_leak_kind", "gauge",
		  "1 for each failing group, with the kind of memory (or count) that grows.");
	for (i = 0; i < s->n; i++)
		if (s->v[i].verdict == 1 && s->v[i].kind[0])
			k->sample(k->arg, "memwatch_leak_kind", "kind", s->v[i].kind, "process",
				  s->v[i].process, 1);
	k->family(k->arg, "memwatch_leak_groups", "gauge",
		  "Process groups judged in the last background run, by verdict.");
	for (i = 0; i < 4; i++)
		if (i != 2)
			k->sample(k->arg, "memwatch_leak_groups", "verdict", verdict_word((int)i), NULL,
				  NULL, (double)s->counts[i]);
}

void mw_leak_gauges_walk_runs(const struct mw_leak_status *s, const struct mw_leak_gauge_sink *k)
{
	k->family(k->arg, "memwatch_leak_checks_total", "counter",
		  "Background leak judgements run (for the memwatch_leak_* gauges).");
	k->sample(k->arg, "memwatch_leak_checks_total", NULL, NULL, NULL, NULL, (double)s->runs);
	k->family(k->arg, "memwatch_leak_check_failures_total", "counter",
		  "Background leak judgements that could not read the database.");
	k->sample(k->arg, "memwatch_leak_check_failures_total", NULL, NULL, NULL, NULL,
		  (double)s->failures);
	k->family(k->arg, "memwatch_leak_check_duration_seconds", "gauge",
		  "Time the last background leak judgement took.");
	k->sample(k->arg, "memwatch_leak_check_duration_seconds", NULL, NULL, NULL, NULL,
		  s->last_duration_s);
	k->family(k->arg, "memwatch_leak_check_interval_seconds", "gauge",
		  "Pause before the next background leak judgement: [leak] refresh, or "
		  "longer to keep within [leak] cpu_budget.");
	k->sample(k->arg, "memwatch_leak_check_interval_seconds", NULL, NULL, NULL, NULL, s->pause_s);
}
