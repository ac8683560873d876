/*
 * router.c - the table of API paths, their handlers and the query
 * parameters each accepts.  Paths match exactly; the page's assets are
 * looked up by page.c.  Unknown path: 404; known path, wrong method: 405
 * (decided in server.c, which knows the method).
 */
#include <string.h>

#include "exit_leaks.h"
#include "web_internal.h"

static const char *const no_params[] = { NULL };
static const char *const series_params[] = { "match", NULL };
static const char *const query_params[] = { "match", "from", "to", "step", "agg", "max_points", "top", NULL };
static const char *const processes_params[] = { "sort", "limit", "offset", "filter", "window", NULL };
static const char *const leak_params[] = { "match", "from", "to", "warmup", "min_duration",
	"max_growth", "horizon", "limit", "inconclusive", "process", "max_count_growth", NULL };
static const char *const export_params[] = { "match", "from", "to", "format", NULL };
static const char *const diff_params[] = { "pid", "process", "from", "to", "limit", NULL };
static const char *const regions_params[] = { "pid", "process", "at", NULL };
static const char *const exit_leaks_params[] = { "process", "from", "to", "limit", NULL };

static const struct mw_route routes[] = {
	{ "/healthz", mw_h_healthz, no_params },
	{ "/metrics", mw_h_metrics, no_params },
	{ "/api/v1/collectors", mw_h_collectors, no_params },
	{ "/api/v1/remote_write", mw_h_remote_write, no_params },
	{ "/api/v1/series", mw_h_series, series_params },
	{ "/api/v1/query", mw_h_query, query_params },
	{ "/api/v1/processes", mw_h_processes, processes_params },
	{ "/api/v1/export", mw_h_export, export_params },
	{ "/api/v1/leaks", mw_h_leaks, leak_params },
	{ "/api/v1/check", mw_h_check, leak_params },
	{ "/api/v1/diff", mw_h_diff, diff_params },
	{ "/api/v1/regions", mw_h_regions, regions_params },
	{ "/api/v1/exit-leaks", mw_h_exit_leaks, exit_leaks_params },
};

const struct mw_route *mw_route_find(const char *path)
{
	size_t i;

	for (i = 0; i < MW_ARRAY_SIZE(routes); i++)
		if (!strcmp(routes[i].path, path))
			return &routes[i];
	return NULL;
}
