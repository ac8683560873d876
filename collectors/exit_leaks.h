/*
 * exit_leaks.h - the exit_leaks collector: exit leak reports of process
 * runs (core/exit_report.h), captured by the platform and handed to
 * storage as batch detail records (MW_EXIT_REPORT_DETAIL).
 *
 * Configured by the [exit_leaks] section (struct mw_config's
 * exit_leaks_images, exit_leaks_lsan_dir, exit_leaks_max_bytes); the
 * portable part (exit_leaks.c) turns it into mw_exit_leaks_options for the
 * platform's hook below and, on every tick, appends what the hook
 * delivered plus the last report's gauges per image (memwatch_exit_leak_*).
 *
 * The platform hook, one file per OS:
 *   exit_leaks_linux.c  LeakSanitizer files NAME.PID in lsan_dir (images
 *                       is not used)
 *   exit_leaks_win32.c  ntdll's heap leak check of each image in images
 *                       (IFEO ShutdownFlags, captured as the debugger)
 * All three functions run on the sampler thread (never concurrently).
 */
#ifndef MW_COLLECTORS_EXIT_LEAKS_H
#define MW_COLLECTORS_EXIT_LEAKS_H

#include <stddef.h>
#include <stdint.h>

#include "base/mwerr.h"
#include "core/exit_report.h"

extern const struct mw_collector mw_collector_exit_leaks;

/* What the hook gets from [exit_leaks]; owned by the collector, valid
 * from mw_exit_leaks_os_init to mw_exit_leaks_os_fini. */
struct mw_exit_leaks_options {
	char **images;		/* image names ("app.exe"), trimmed, none empty */
	size_t nimages;
	char *lsan_dir;		/* NULL: none */
	uint64_t max_bytes;	/* for the check; the hook need not use it */
};

/* Set up the platform's capture.  0 and *os (may be NULL); 1 when this
 * platform cannot capture what is configured (err says why: the collector
 * is reported unsupported, the daemon runs on); -1 on a setting that
 * cannot work (err says why: start-up stops). */
int mw_exit_leaks_os_init(void **os, const struct mw_exit_leaks_options *o, struct mw_err *err);

/* Hand every report finished since the last call to deliver, which takes
 * it over (encodes it, then releases it: r is left empty, so releasing it
 * again is harmless).  r->process, r->pid, r->exited_ms (and started_ms
 * when known) are the hook's to fill.  now_ms is the tick's wall clock. */
void mw_exit_leaks_os_poll(void *os, int64_t now_ms,
			   void (*deliver)(void *ctx, struct mw_exit_report *r), void *ctx);

/* Stop capturing (detach, restore settings) and free os (NULL: nothing). */
void mw_exit_leaks_os_fini(void *os);

/* What the capture did that the collector's mode should say (Windows:
 * processes attached, and those not captured with the last reason, e.g.
 * another debugger); "" when nothing to say. */
void mw_exit_leaks_os_describe(void *os, char *buf, size_t n);

/* ---- portable helpers, tested directly ----------------------------------- */

/* Split a comma-separated image list into trimmed, non-empty names
 * (malloc'd array of malloc'd strings; *n set). */
char **mw_exit_leaks_split_images(const char *list, size_t *n);

#endif
