/*
 * stop.h - the process-wide stop request (stop_linux.c, stop_win32.c).
 *
 * SIGINT/SIGTERM, Ctrl+C, a service stop and tests all end up in
 * mw_stop_request(), which is async-signal-safe.  Threads that wait for
 * their next deadline use mw_stop_wait() so they wake at once on a stop.
 */
#ifndef MW_STOP_H
#define MW_STOP_H

#include <stdbool.h>
#include <stdint.h>

/* Set up the stop event and install signal / console handlers.
 * Returns 0, or -1 when the event cannot be created. */
int mw_stop_init(void);
void mw_stop_request(void);
bool mw_stop_requested(void);
/* Wait up to timeout_ms (0: just poll); true when a stop was requested. */
bool mw_stop_wait(int64_t timeout_ms);
/* Clear the request (tests, and a service that is started again). */
void mw_stop_reset(void);

#endif
