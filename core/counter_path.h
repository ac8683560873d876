/*
 * counter_path.h - a Windows performance counter path as perfmon and
 * typeperf write it, "\Object(parent/instance#n)\Counter" (a leading
 * "\\machine" skipped): the one parser for the perfcounters collector's
 * `counters` option (collectors/perfdata_select.c matches the instance)
 * and for the column headers of imported typeperf CSV (import/parse.c).
 * Pure.
 */
#ifndef MW_CORE_COUNTER_PATH_H
#define MW_CORE_COUNTER_PATH_H

#include <stdbool.h>
#include "base/mwerr.h"

/* instance may be "*" or absent. */
struct mw_perf_path {
	char object[256];
	char instance[256];	/* "" when the path has none */
	bool has_instance;
	char parent[256];	/* "parent" of "parent/instance", else "" */
	char counter[256];
};

/* 0, or -1 with a message quoting text (no leading '\\', no counter, a ')'
 * without '(', an empty object, a part too long). */
int mw_perf_path_parse(const char *text, struct mw_perf_path *p, struct mw_err *err);

#endif
