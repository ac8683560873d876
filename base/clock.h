/*
 * clock.h - the two clocks (platform code in clock_linux.c, clock_win32.c).
 *
 * Scheduling uses the monotonic clock so a wall-clock step never bursts or
 * stalls sampling; samples are stamped with the wall clock.
 */
#ifndef MW_BASE_CLOCK_H
#define MW_BASE_CLOCK_H

#include <stdint.h>

/* Milliseconds since the Unix epoch. */
int64_t mw_clock_wall_ms(void);
/* Monotonic nanoseconds from an arbitrary origin. */
int64_t mw_clock_mono_ns(void);
/* Nanoseconds elapsed from an arbitrary origin, counting a suspend too
 * (CLOCK_BOOTTIME; GetTickCount64): what the wall clock should have moved
 * by, for noticing a step (clock_step.c). */
int64_t mw_clock_elapsed_ns(void);
/* Sleep for about ms milliseconds (the rest after a signal too). */
void mw_sleep_ms(int64_t ms);

#endif
