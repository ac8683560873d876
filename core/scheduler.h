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
#ifndef MW_CORE_SCHEDULER_H
#define MW_CORE_SCHEDULER_H

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

/*
 * Tick timestamps.  A tick is stamped with the wall time of its scheduled
 * due instant, not of the moment it happened to start, when it starts
 * within MW_TICK_TOLERANCE_NS after that instant: then consecutive ticks of
 * a collector are exactly one interval apart and the chunk codec stores
 * each timestamp in one bit (delta-of-delta 0) instead of 5-9 bits for a
 * +-1 ms wobble.  A tick that starts later than that is stamped when it
 * started (the reading really is late).  The wall time of a due instant is
 * its monotonic time plus an offset wall - monotonic that is re-taken
 * whenever the clocks disagree with it by more than the tolerance (an NTP
 * step, a suspend), so wall-clock steps are followed.
 *
 * Why 25 ms (Prometheus uses 2 ms): Windows wakes timed waits on its
 * 15.6 ms timer tick, so an idle Windows host starts ticks up to ~16 ms
 * late as a matter of course; 25 ms covers that and scheduling noise while
 * erring by at most 2.5 % of a 1 s interval.  For intervals under 500 ms
 * the tolerance is a twentieth of the interval.
 */
#define MW_TICK_TOLERANCE_NS (25LL * 1000000)

struct mw_tick_clock {
	bool valid;
	int64_t offset_ms;	/* wall ms - monotonic ms */
};

/* Pure: the timestamp (wall ms) of a tick due at due_ns (monotonic) that
 * starts at now_ns (monotonic) when the wall clock reads now_wall_ms. */
int64_t mw_tick_stamp(struct mw_tick_clock *c, int64_t due_ns, int64_t interval_ns,
		      int64_t now_ns, int64_t now_wall_ms);

struct mw_scheduler {
	const struct mw_config *cfg;
	struct mw_tick_clock clock;	/* tick timestamps (mw_tick_stamp) */
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
