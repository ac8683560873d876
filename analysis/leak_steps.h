/*
 * leak_steps.h - the holes steps of the wall clock forward left in the
 * time axis, read from what the writer stored of them
 * (memwatch_clock_step_seconds), for the leak judge (mw_leak_params.holes).
 *
 * A step forward of an hour after a VM resume leaves an hour without
 * points in every series; judged as missing data it would turn every
 * verdict inconclusive ("data mostly missing") until the window is past
 * it.  Owner: the detector work.  Caller: leak_report.c.
 */
#ifndef MW_ANALYSIS_LEAK_STEPS_H
#define MW_ANALYSIS_LEAK_STEPS_H

#include <stddef.h>
#include <stdint.h>

#include "leak.h"

struct mw_reader;

#define MW_LEAK_MAX_HOLES 64

/* The holes of the forward steps noticed in [from_ms, to_ms] into out
 * (at most max, the newest kept); how many.  A store without the series
 * or that cannot be read has none (the judge then counts the hole as
 * missing data, as before). */
size_t mw_leak_read_holes(struct mw_reader *r, int64_t from_ms, int64_t to_ms,
			  struct mw_time_hole *out, size_t max);

/* Where a window of window_ms of the processes' own time ending at to_ms
 * starts: window_ms before to_ms, and earlier by the holes steps forward
 * left in it (the background judgement's [leak] window: an hour the clock
 * jumped over is no time any process lived, and would leave the window
 * too short to judge).  Widened a few times at most, as holes come into
 * the widened window. */
int64_t mw_leak_window_from(struct mw_reader *r, int64_t to_ms, int64_t window_ms);

/* The hole a step forward of step_s seconds noticed at noticed_ms left:
 * from the old clock's last tick to the new clock's first, a second of
 * slack each side (only buckets without data count as the hole). */
struct mw_time_hole mw_leak_hole_of_step(int64_t noticed_ms, double step_s);

#endif
