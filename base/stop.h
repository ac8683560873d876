/*
 * stop.h - the process-wide stop request (stop_linux.c, stop_win32.c).
 *
 * SIGINT/SIGTERM, Ctrl+C, a service stop and tests all end up in
 * mw_stop_request(), which is async-signal-safe.  Threads that wait for
 * their next deadline use mw_stop_wait() so they wake at once on a stop.
 */
#ifndef MW_BASE_STOP_H
#define MW_BASE_STOP_H

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

/* The daemon has written everything in flight (after mw_writer_stop) or
 * failed to start: a console handler waiting for it may return.  Windows
 * ends the process as soon as the handler for a console close, logoff or
 * shutdown returns, so that handler blocks until this (at most
 * MW_STOP_CLOSE_WAIT_MS, inside the 5 s Windows allows).  No-op on Linux. */
void mw_stop_finished(void);
#define MW_STOP_CLOSE_WAIT_MS 4500

/* Running under the service control manager: only the service control
 * handler stops the daemon; the console control handler ignores logoff,
 * shutdown and the rest (a service's process receives CTRL_LOGOFF_EVENT
 * whenever any user logs off).  No-op on Linux. */
void mw_stop_set_service_mode(bool on);

/* What the Windows console control handler does with an event:
 * pure logic, so both platforms test it. */
enum mw_console_action {
	MW_CONSOLE_PASS = 0,	/* not ours: return FALSE (next handler) */
	MW_CONSOLE_IGNORE,	/* swallow it: return TRUE, keep running */
	MW_CONSOLE_STOP,	/* request a stop, return TRUE at once */
	MW_CONSOLE_STOP_WAIT,	/* request a stop, block until mw_stop_finished() */
};
/* ctrl: CTRL_C_EVENT 0, CTRL_BREAK_EVENT 1, CTRL_CLOSE_EVENT 2,
 * CTRL_LOGOFF_EVENT 5, CTRL_SHUTDOWN_EVENT 6. */
enum mw_console_action mw_console_ctrl_action(unsigned long ctrl, bool service_mode);

#endif
