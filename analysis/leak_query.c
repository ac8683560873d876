/*
 * leak_query.c - what a leak report is asked: the query's options by name,
 * as `memwatchd check --warmup 5m` and `/api/v1/leaks?warmup=5m` write
 * them (one parser for both, so the CLI and the API accept the same
 * values), and the [leak] section's defaults.
 *
 * Owner: the detector work.  Callers: app/check_cmd.c, web/leaks.c, the
 * judge service (app/leak_judge.c), through leak_report.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/units.h"
#include "base/xalloc.h"
#include "core/config.h"
#include "core/params.h"
#include "leak_report.h"

void mw_leak_query_init(struct mw_leak_query *q)
{
	memset(q, 0, sizeof(*q));
	q->from_ms = INT64_MIN;
	q->to_ms = INT64_MAX;
	mw_leak_params_init(&q->params);
}

void mw_leak_params_from_config(struct mw_leak_params *p, const struct mw_config *cfg)
{
	mw_leak_params_init(p);
	p->warmup_ms = cfg->leak_warmup_ms;
	p->min_duration_ms = cfg->leak_min_duration_ms;
	p->budget_bytes_per_hour = cfg->leak_max_growth.bytes_per_hour;
	p->budget_rel_per_hour = cfg->leak_max_growth.rel_per_hour;
	p->horizon_ms = cfg->leak_horizon_ms;
	p->budget_count_per_hour = (double)cfg->leak_max_count_growth;
	p->exit_max_bytes = cfg->exit_leaks_max_bytes;
}

void mw_leak_query_release(struct mw_leak_query *q)
{
	free(q->match);
	q->match = NULL;
	free(q->process);
	q->process = NULL;
}

int mw_leak_query_set(struct mw_leak_query *q, const char *name, const char *value,
		      int64_t now_ms, struct mw_err *err)
{
	int64_t v;

	if (!strcmp(name, "match")) {
		free(q->match);
		q->match = value && *value ? mw_xstrdup(value) : NULL;
		return 0;
	}
	if (!value || !*value)
		return mw_error(err, "empty value");
	if (!strcmp(name, "process")) {
		free(q->process);
		q->process = mw_xstrdup(value);
		return 0;
	}
	if (!strcmp(name, "max_count_growth")) {
		char *end;
		double v2 = strtod(value, &end);

		if (end != value && (!strcmp(end, "/h") || !*end) && v2 >= 0 && isfinite(v2)) {
			q->params.budget_count_per_hour = v2;
			return 0;
		}
		return mw_error(err, "'%s' is not a count per hour (e.g. 10/h)", value);
	}
	if (!strcmp(name, "from"))
		return mw_param_time(value, now_ms, &q->from_ms, err);
	if (!strcmp(name, "to"))
		return mw_param_time(value, now_ms, &q->to_ms, err);
	if (!strcmp(name, "warmup"))
		return mw_parse_duration_ms(value, &q->params.warmup_ms, err);
	if (!strcmp(name, "min_duration"))
		return mw_parse_duration_ms(value, &q->params.min_duration_ms, err);
	if (!strcmp(name, "horizon")) {
		if (mw_parse_duration_ms(value, &v, err))
			return -1;
		if (v <= 0)
			return mw_error(err, "'%s' is not a positive duration", value);
		q->params.horizon_ms = v;
		return 0;
	}
	if (!strcmp(name, "max_growth"))
		return mw_parse_growth_budget(value, &q->params.budget_bytes_per_hour,
					      &q->params.budget_rel_per_hour, err);
	if (!strcmp(name, "exit_max_bytes")) {
		uint64_t b;

		if (mw_parse_size(value, &b, err))
			return -1;
		q->params.exit_max_bytes = b;
		return 0;
	}
	if (!strcmp(name, "limit")) {
		if (mw_param_int(value, 0, 100000, &v, err))
			return -1;
		q->limit = (size_t)v;
		return 0;
	}
	if (!strcmp(name, "inconclusive")) {
		if (!strcmp(value, "pass"))
			q->inconclusive_passes = true;
		else if (!strcmp(value, "fail"))
			q->inconclusive_passes = false;
		else
			return mw_error(err, "'%s' is neither pass nor fail", value);
		return 0;
	}
	return 1;
}
