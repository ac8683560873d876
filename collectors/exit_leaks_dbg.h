/*
 * exit_leaks_dbg.h - the pure parts of the Windows exit leak capture
 * (collectors/exit_leaks_win32.c, memwatch as the debugger of each
 * process of a configured image), kept apart so they are tested natively:
 *
 * - image names: which are valid IFEO key names, which process is one;
 * - per process, the strings made into lines and fed to ntdll's report
 *   parser (core/exit_report.h): ntdll prints "HEAP[app.exe]: " and the
 *   message with two DbgPrint calls, a block row and its "\n" with two
 *   more, and one call may carry several lines;
 * - the targets: which processes are attached, refused or new, by pid
 *   and start time;
 * - the queue of finished reports between the debugger thread and the
 *   sampler's poll (the caller locks it);
 * - the value memwatch keeps under an IFEO key to put ShutdownFlags back.
 *
 * None of it is thread-safe by itself.
 */
#ifndef MW_COLLECTORS_EXIT_LEAKS_DBG_H
#define MW_COLLECTORS_EXIT_LEAKS_DBG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/exit_report.h"

/* --- image names ------------------------------------------------------ */

#define MW_IMAGE_NAME_MAX 255

/* A bare file name that can be an IFEO key: not empty, at most
 * MW_IMAGE_NAME_MAX bytes, valid UTF-8, no path separator, no control
 * character. */
bool mw_image_name_valid(const char *name);

/* Whether name is one of images (ASCII letters compared without case,
 * as Windows compares file names). */
bool mw_image_matches(char *const *images, size_t nimages, const char *name);

/* --- debug strings ---------------------------------------------------- */

/* Longest debug string read out of a target (DbgPrint formats at most
 * 512 bytes; OutputDebugString may send more: the rest is cut). */
#define MW_DBG_STRING_MAX 4096

/* --- finished reports: a process's until it exits, then the queue from the
 * debugger thread to poll --------------------------------------------------- */

#define MW_REPORT_QUEUE_MAX 256

struct mw_report_queue {
	struct mw_exit_report *r;
	size_t n, cap;
	size_t max;		/* reports kept at most; 0: MW_REPORT_QUEUE_MAX */
	uint64_t dropped;	/* the oldest dropped when full */
};

/* Takes ownership of *r's contents. */
void mw_report_queue_push(struct mw_report_queue *q, struct mw_exit_report *r);
/* The oldest into *out (the caller owns it); false when empty. */
bool mw_report_queue_pop(struct mw_report_queue *q, struct mw_exit_report *out);
void mw_report_queue_release(struct mw_report_queue *q);

/* --- one process's strings into reports -------------------------------- */

/* A line longer than this is no line of ntdll's report: dropped whole. */
#define MW_DBG_LINE_MAX 1024
/* Reports finished before the process exits, kept until it does (a
 * program printing more than this: the oldest go). */
#define MW_DBG_HELD_MAX 4

struct mw_dbg_capture {
	struct mw_ntdll_leak_parser parser;
	char line[MW_DBG_LINE_MAX];
	size_t len;
	bool overlong;		/* the line being read passed MW_DBG_LINE_MAX */
	struct mw_report_queue held;	/* max MW_DBG_HELD_MAX */
};

void mw_dbg_capture_init(struct mw_dbg_capture *c);
/* Frees what is held and in progress. */
void mw_dbg_capture_release(struct mw_dbg_capture *c);
/*
 * One debug string (one OUTPUT_DEBUG_STRING_EVENT), UTF-8.  A line ends at
 * '\n'; a string that ends without one is held and joined with the next
 * only when it reads as a prefix ("HEAP[app.exe]: ", ending in ": ") or
 * the next starts with the line end (ntdll's row, then "\n"): otherwise
 * each string is its own line, as a program sending lines without '\n'
 * means them.
 */
void mw_dbg_capture_string(struct mw_dbg_capture *c, const char *s, size_t n);
/* The process exited: the held text is a last line, a report in progress
 * is closed incomplete. */
void mw_dbg_capture_end(struct mw_dbg_capture *c);
/* Take the oldest held report into *out (the caller owns it): false when
 * none is held. */
bool mw_dbg_capture_take(struct mw_dbg_capture *c, struct mw_exit_report *out);

/* --- targets ----------------------------------------------------------- */

enum mw_dbg_target_state {
	MW_DBG_NEW = 0,		/* seen, not yet attached */
	MW_DBG_ATTACHED,	/* memwatch is its debugger */
	MW_DBG_REFUSED,		/* attaching failed: not captured (why in reason) */
};

struct mw_dbg_target {
	uint32_t pid;
	int64_t start_ms;	/* from the process list; identity with pid */
	int64_t attached_ms;
	char image[128];
	enum mw_dbg_target_state state;
	bool listed;		/* in the last process list */
	bool first_break_seen;	/* the attach breakpoint went by */
	void *process;		/* Windows: the debug event's process handle */
	char reason[160];	/* MW_DBG_REFUSED: why */
	struct mw_dbg_capture cap;
};

struct mw_dbg_targets {
	struct mw_dbg_target **t;
	size_t n, cap;
};

void mw_dbg_targets_release(struct mw_dbg_targets *ts);
struct mw_dbg_target *mw_dbg_targets_find(struct mw_dbg_targets *ts, uint32_t pid);
/* Remove and free one (its capture released). */
void mw_dbg_targets_remove(struct mw_dbg_targets *ts, struct mw_dbg_target *t);

/* A scan of the process list: begin, see each process of a configured
 * image, end.  see returns the target to attach when the process is new
 * (a pid seen before with another start time is a new process: the old
 * entry, refused, is replaced), else NULL.  end forgets the refused
 * processes no longer listed (attached ones go at their exit event). */
void mw_dbg_scan_begin(struct mw_dbg_targets *ts);
struct mw_dbg_target *mw_dbg_scan_see(struct mw_dbg_targets *ts, uint32_t pid, int64_t start_ms,
				      const char *image);
void mw_dbg_scan_end(struct mw_dbg_targets *ts);

/* What an ntdll report owns (process, blocks, stacks).  Until
 * core/exit_report.c's mw_exit_report_release is merged; then the lead
 * makes this call it. */
void mw_dbg_report_free(struct mw_exit_report *r);

/* --- the IFEO value memwatch keeps to restore ShutdownFlags -------------- */

/* Value name under HKLM\...\Image File Execution Options\<image>. */
#define MW_IFEO_SAVED_VALUE "MemwatchSavedShutdownFlags"

struct mw_ifeo_saved {
	bool had_value;		/* ShutdownFlags was there before memwatch */
	uint32_t value;		/* its value then */
	bool created_key;	/* memwatch created the image's key */
};

/* "previous=0x00000001" or "previous=none", then ";created" when
 * memwatch created the key.  out_size >= 40. */
void mw_ifeo_saved_format(const struct mw_ifeo_saved *s, char *out, size_t out_size);
/* false when text is not what format writes. */
bool mw_ifeo_saved_parse(const char *text, struct mw_ifeo_saved *out);

/* --- Windows only (exit_leaks_win32.c) ------------------------------------ */

/* What the capture did since init, for the collector's status (its mode
 * and counters): processes attached, reports queued, processes not
 * captured with the last one's reason, processes that exited without a
 * report, detached at fini, reports dropped because nobody polled. */
struct mw_exit_leaks_os_counts {
	uint64_t attached;
	uint64_t captured;
	uint64_t not_captured;
	uint64_t exited_without_report;
	uint64_t detached;
	uint64_t dropped;
	char last_not_captured[256];	/* "app.exe pid 42: another debugger is attached ..." */
};

/* Thread-safe; os as mw_exit_leaks_os_init gave it (NULL: zeros). */
void mw_exit_leaks_os_counts(void *os, struct mw_exit_leaks_os_counts *out);

/* Put back ShutdownFlags of every image memwatch set (its saved value
 * under the image's IFEO key says which): for `service uninstall`, and
 * after a crash left values behind.  Returns how many were put back. */
int mw_exit_leaks_restore_all(void);

#endif
