/*
 * leak_gauges.h - the memwatch_leak_* gauges of a published leak
 * judgement (status.h, struct mw_leak_status): one definition of their
 * names, labels and help, walked by /metrics (web/metrics.c, as text) and
 * by the judge (app/leak_judge.c, as stored series).
 */
#ifndef MW_CORE_LEAK_GAUGES_H
#define MW_CORE_LEAK_GAUGES_H

#include "status.h"

/* A family begins (name, type "gauge"/"counter", help), then its samples;
 * a sample has at most two labels (names NULL when absent). */
struct mw_leak_gauge_sink {
	void (*family)(void *arg, const char *name, const char *type, const char *help);
	void (*sample)(void *arg, const char *name, const char *l1, const char *v1,
		       const char *l2, const char *v2, double value);
	void *arg;
};

/* The per-group gauges and the group counts (what is stored). */
void mw_leak_gauges_walk(const struct mw_leak_status *s, const struct mw_leak_gauge_sink *sink);
/* The judge's own figures (runs, failures, duration, pause): /metrics only. */
void mw_leak_gauges_walk_runs(const struct mw_leak_status *s, const struct mw_leak_gauge_sink *sink);

#endif
