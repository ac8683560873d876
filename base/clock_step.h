/*
 * clock_step.h - noticing that the wall clock was stepped (NTP after a VM
 * resume, an administrator, a bad RTC): the one place that compares how
 * far the wall clock moved with how much time elapsed, logs each step once
 * and remembers the recent ones.
 *
 * Polled by every thread that ticks on its own (base/worker.c after each
 * sleep: leak judgement, slow-client guard; the forwarder after each
 * wait); whichever polls first after a step logs it.  What each does with
 * a step: the waits never depended on the wall clock (base/cond.h); the
 * forwarder sends no point stamped after the present and rewinds a cursor
 * a step back left in the future (forward/forwarder.c).  Samples keep the
 * wall clock's time: it is the truth after the step.
 */
#ifndef MW_BASE_CLOCK_STEP_H
#define MW_BASE_CLOCK_STEP_H

#include <stdbool.h>
#include <stdint.h>

struct mw_clock_step {
	int64_t step_ms;	/* > 0 forward, < 0 back */
	int64_t wall_ms;	/* the wall clock when noticed (after the step) */
	int64_t elapsed_ns;	/* mw_clock_elapsed_ns when noticed */
	int64_t from_wall_ms;	/* the new wall time of the poll before: the
				 * step came after it, so every point stamped
				 * after the step is at least this */
};

/* The step in ms when the wall clock moved wall_delta_ms while
 * elapsed_delta_ns passed, 0 when the difference is within what slewing
 * and the clocks' granularity explain (1 s, or 1 % of the time elapsed). */
int64_t mw_clock_step_of(int64_t wall_delta_ms, int64_t elapsed_delta_ns);

/* Compare the clocks with the previous poll (of any thread); a step is
 * logged (a warning) and remembered.  Returns how many steps were noticed
 * since start, so a caller that keeps the number knows when a new one
 * came. */
uint64_t mw_clock_step_poll(void);

/* The newest step noticed; false when none. */
bool mw_clock_step_last(struct mw_clock_step *out);

#endif
