/*
 * scheduler.h - runs the enabled collectors on their intervals.
 *
 * Each collector has an absolute next-due time on the monotonic clock.  A
 * collector that falls behind skips the ticks it missed (counted) instead
 * of bursting to catch up; one that fails backs off (its interval doubled
 * per consecutive failure, up to 5 minutes), is logged once when it starts
 * failing and once when it recovers.  No collector's failure stops another.
 *
 * Threads: everything here runs on one thread (the sampler thread for
 * `run`, the main thread for `once`); the status table is the only thing
 * shared, and it locks itself.
 */
#ifndef MW_SCHEDULER_H
#define MW_SCHEDULER_H

#include <stdbool.h>
#include <stdint.h>
#include "batch.h"
#include "collector.h"
#include "config.h"
#include "status.h"

struct mw_scheduled {
	const struct mw_collector *collector;
	const struct mw_collector_config *cc;
	void *state;
	bool active;		/* enabled, and init said supported */
	int64_t interval_ns;
	int64_t next_due_ns;
	unsigned failures;	/* consecutive failed sample calls */
	struct mw_collector_status status;
};

struct mw_scheduler {
	const struct mw_config *cfg;
	struct mw_status_table *status;
	struct mw_scheduled *items;	/* one per registered collector */
	size_t nitems;
	/* The watch list as the detail collectors last resolved it, and which
	 * entries were logged as matching nothing (watch.h). */
	struct mw_watch_status *watch;
	bool *watch_logged;
};

typedef void (*mw_emit_fn)(void *arg, struct mw_batch *batch);

/* Initialise every enabled collector.  A collector that answers
 * "unsupported" is kept, inactive, with its reason in the status; a bad
 * collector option is an error (-1) that stops start-up. */
int mw_scheduler_init(struct mw_scheduler *s, const struct mw_config *cfg,
		      struct mw_status_table *status, struct mw_err *err);
/* fini every collector and free the scheduler's contents. */
void mw_scheduler_release(struct mw_scheduler *s);

/* Run collector i once into batch (appending), updating its status.
 * Returns the collector's result (MW_COLLECTOR_OK / _ERROR). */
int mw_scheduler_sample_one(struct mw_scheduler *s, size_t i, struct mw_batch *batch);

/* The sampling loop: runs due collectors, hands each tick's batch to emit
 * (which takes ownership), sleeps until the next due time, returns when a
 * stop is requested (stop.h). */
void mw_scheduler_loop(struct mw_scheduler *s, mw_emit_fn emit, void *arg);

/* Pure scheduling arithmetic, exposed for tests: given the due time that
 * was just served and now, return the next due time and add the ticks
 * that were missed to *skipped. */
int64_t mw_schedule_next(int64_t due_ns, int64_t interval_ns, int64_t now_ns, uint64_t *skipped);
/* The delay before retrying after `failures` consecutive failures. */
int64_t mw_schedule_backoff(int64_t interval_ns, unsigned failures);

#endif
