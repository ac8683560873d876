/*
 * leak_judge.h - the daemon's background leak judgement: a service beside
 * the sampler and the writer, running whether the web server is on or off.
 *
 * A thread of its own, with a reader of its own, judges the last [leak]
 * window every [leak] refresh, or less often when a judgement costs more
 * than [leak] cpu_budget allows (analysis/leak_report.c).  Each run's
 * verdicts for the watched processes and the [leak] metrics_top
 * first-ranked ones (failing, then fastest growing) are
 *   - published on the status board as structures (core/status.h), which
 *     /metrics renders as the memwatch_leak_* gauges (a scrape never
 *     recomputes a verdict, and the cardinality is bounded), and
 *   - stored as those series through the writer, stamped with the run's
 *     time: a history of the verdicts, and what the remote-write forwarder
 *     sends as memwatch_leak_*.
 *
 * Owner: the application (run.c starts and stops it).
 */
#ifndef MW_APP_LEAK_JUDGE_H
#define MW_APP_LEAK_JUDGE_H

#include <stdint.h>

#include "core/config.h"
#include "core/status.h"

struct mw_batch;
struct mw_leak_judge;

/* Start the thread (NULL when threads cannot be created: logged).
 * submit (may be NULL: nothing stored) owns each batch it is given. */
struct mw_leak_judge *mw_leak_judge_start(const struct mw_config *cfg, struct mw_status_table *status,
					  void (*submit)(void *arg, struct mw_batch *b), void *arg);
/* Stop and join it (at most one judgement's time); NULL is fine. */
void mw_leak_judge_stop(struct mw_leak_judge *j);

/* The pause after a judgement that took run_ms: refresh_ms, or longer so
 * that judging takes at most cpu_budget (a share of one core) on average:
 * the next judgement starts run_ms / cpu_budget after this one began.
 * cpu_budget 0: refresh_ms. */
int64_t mw_leak_judge_pause_ms(int64_t refresh_ms, int64_t run_ms, double cpu_budget);

/* The gauges of one published judgement as series samples into batch,
 * stamped ts_ms (the same figures /metrics shows). */
void mw_leak_judge_samples(const struct mw_leak_status *s, struct mw_batch *batch, int64_t ts_ms);

#endif
