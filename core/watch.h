/*
 * watch.h - the watch list shared by the per-process collectors
 * (workingset, heap, vmmap): which processes to look at.
 *
 * Entries come from [daemon] watch: image names with * and ? wildcards,
 * matched case-insensitively against the image's base name ("notepad"
 * also matches "notepad.exe"); decimal pids; and "self", the daemon.
 * Processes come and go: a target that vanished or cannot be opened is
 * counted as inaccessible by the collector, never an error.
 *
 * The image name on Windows is the Toolhelp32 szExeFile; on Linux it is
 * mw_proc_image_name's: the full executable name, not the 15-character
 * comm.  Entries that select nothing are reported (mw_watch_report).
 *
 * A pattern with * or ? never selects lsass.exe or csrss.exe (see
 * mw_watch_wildcard_excluded): they are watched only when named exactly
 * or by pid.
 */
#ifndef MW_CORE_WATCH_H
#define MW_CORE_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/mwerr.h"
#include "base/self_pid.h"
#include "core/status.h"

struct mw_watch_entry {
	enum { MW_WATCH_NAME, MW_WATCH_PID, MW_WATCH_SELF } kind;
	uint32_t pid;
	char *pattern;
	char *text;		/* the entry as written (trimmed), for reports */
};

struct mw_watch {
	struct mw_watch_entry *entries;
	size_t n;
};

struct mw_target {
	uint32_t pid;
	bool self;
	char name[256];		/* image base name, UTF-8 */
};

struct mw_targets {
	struct mw_target *t;
	size_t n, cap;
};

/* Build from the config's watch list.  An empty entry or a pid that does
 * not fit 32 bits is an error naming it. */
int mw_watch_init(struct mw_watch *w, const char *const *list, size_t n, struct mw_err *err);
void mw_watch_release(struct mw_watch *w);
/* Does the list select this process?  self_pid is the daemon's pid. */
bool mw_watch_match(const struct mw_watch *w, uint32_t pid, const char *image, uint32_t self_pid);
/* Does the list name images (not only pids and self)?  Without such
 * entries a process's image name need not be read to know whether it is
 * selected. */
bool mw_watch_by_name(const struct mw_watch *w);
/* Does entry i alone select this process? */
bool mw_watch_entry_match(const struct mw_watch *w, size_t i, uint32_t pid, const char *image,
			  uint32_t self_pid);
/* Glob with * and ?, ASCII case-insensitive. */
bool mw_wildcard_match(const char *pattern, const char *text);
/* An image name against a watch-list name pattern: case-insensitive, * and
 * ?, the basename of a path, "notepad" selects "notepad.exe". */
bool mw_image_name_match(const char *pattern, const char *image);
/* Is this image one a wildcard pattern never selects (lsass.exe,
 * csrss.exe: reading their memory raises security alarms and is refused
 * anyway)?  Case-insensitive, on the base name. */
bool mw_watch_wildcard_excluded(const char *image);
/* The base name of a path ("C:\x\y.exe" -> "y.exe", "/usr/bin/z" -> "z"). */
const char *mw_path_basename(const char *path);

/* Every running process the list selects (platform: watch_win32.c uses a
 * Toolhelp32 process snapshot, watch_linux.c /proc).  Replaces out. */
int mw_watch_targets(const struct mw_watch *w, struct mw_targets *out, struct mw_err *err);
void mw_targets_release(struct mw_targets *t);
/* Append one (used by the platform files and tests). */
void mw_targets_add(struct mw_targets *t, uint32_t pid, const char *name, bool self);

/* What each entry selects among targets (from mw_watch_targets), into the
 * bounded status form; stamps it checked_ms. */
void mw_watch_report(const struct mw_watch *w, const struct mw_targets *t, int64_t checked_ms,
		     struct mw_watch_status *out);
/* The entries to log as matching nothing: an entry is announced when it
 * first matches nothing, and again only after it matched something and then
 * nothing again.  logged has one flag per entry of the report (all false at
 * first: the caller's memory between reports); sets announce[i] for each
 * entry to log now and returns how many. */
size_t mw_watch_unmatched_news(const struct mw_watch_status *st, bool *logged, bool *announce);

/* Linux only (watch_linux.c; nothing calls them on Windows). */
/* The image name of a Linux process, as the watch list and the process
 * collector's `process` label use it: the base name of /proc/PID/exe's
 * target (" (deleted)" removed when the file was replaced or removed);
 * when that cannot be read (another user's process: EACCES; a kernel
 * thread or a zombie: ENOENT), the base name of argv[0] from
 * /proc/PID/cmdline; when that is empty too, /proc/PID/comm (15
 * characters).  0, or -1 when the process is gone (nothing readable). */
int mw_proc_image_name(uint32_t pid, char *buf, size_t size);
/* The same under another /proc (tests). */
int mw_proc_image_name_in(const char *proc, uint32_t pid, char *buf, size_t size);
/* The choice itself, from what was read: exe the link's target or NULL,
 * cmdline its bytes (cmdline_len, NUL-separated; may be NULL), comm or
 * NULL.  0, or -1 when none gives a name. */
int mw_proc_image_name_from(const char *exe, const char *cmdline, size_t cmdline_len,
			    const char *comm, char *buf, size_t size);

#endif
