/*
 * leak_gauges.h - the daemon's background leak judgement for /metrics.
 *
 * A thread of its own, with a reader of its own, judges the last
 * [leak] window every [leak] refresh, or less often when a judgement costs
 * more than [leak] cpu_budget allows (analysis/leak_report.c), and keeps
 * the exposition text of the memwatch_leak_* gauges for the watched
 * processes and the [leak] metrics_top first-ranked ones (failing, then
 * fastest growing).  /metrics only copies that text: a scrape never
 * recomputes a verdict, and the cardinality is bounded.
 *
 * With a store set (run.c: the writer), each judgement's gauges are also
 * stored as series, stamped with the judgement's time: a history of the
 * verdicts, and what the remote-write forwarder sends as memwatch_leak_*.
 */
#ifndef MW_WEB_LEAK_GAUGES_H
#define MW_WEB_LEAK_GAUGES_H

#include "daemon/config.h"
#include "daemon/json_out.h"

struct mw_leak_gauges;

/* Start the thread (NULL when threads cannot be created: logged). */
struct mw_leak_gauges *mw_leak_gauges_start(const struct mw_config *cfg);
/* Stop and join it (at most one judgement's time); NULL is fine. */
void mw_leak_gauges_stop(struct mw_leak_gauges *g);
/* Where judgements are stored (process-wide; set before the web server
 * starts, cleared after it stopped).  submit owns the batch. */
struct mw_batch;
void mw_leak_gauges_set_store(void (*submit)(void *arg, struct mw_batch *b), void *arg);

/* The pause after a judgement that took run_ms: refresh_ms, or longer so
 * that judging takes at most cpu_budget (a share of one core) on average:
 * the next judgement starts run_ms / cpu_budget after this one began.
 * cpu_budget 0: refresh_ms. */
int64_t mw_leak_gauges_pause_ms(int64_t refresh_ms, int64_t run_ms, double cpu_budget);

/* Append the current gauges (nothing before the first judgement). */
void mw_leak_gauges_write(struct mw_leak_gauges *g, struct mw_jbuf *b);

#endif
