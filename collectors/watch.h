/*
 * watch.h - the watch list shared by the per-process collectors
 * (workingset, heap, vmmap): which processes to look at.
 *
 * Entries come from [daemon] watch: image names with * and ? wildcards,
 * matched case-insensitively against the image's base name ("notepad"
 * also matches "notepad.exe"); decimal pids; and "self", the daemon.
 * Processes come and go: a target that vanished or cannot be opened is
 * counted as inaccessible by the collector, never an error.
 */
#ifndef MW_COLLECTORS_WATCH_H
#define MW_COLLECTORS_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "daemon/mwerr.h"

struct mw_watch_entry {
	enum { MW_WATCH_NAME, MW_WATCH_PID, MW_WATCH_SELF } kind;
	uint32_t pid;
	char *pattern;
};

struct mw_watch {
	struct mw_watch_entry *entries;
	size_t n;
};

struct mw_target {
	uint32_t pid;
	bool self;
	char name[128];		/* image base name, UTF-8 */
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
/* Glob with * and ?, ASCII case-insensitive. */
bool mw_wildcard_match(const char *pattern, const char *text);
/* The base name of a path ("C:\x\y.exe" -> "y.exe", "/usr/bin/z" -> "z"). */
const char *mw_path_basename(const char *path);

/* Every running process the list selects (platform: watch_win32.c uses a
 * Toolhelp32 process snapshot, watch_linux.c /proc).  Replaces out. */
int mw_watch_targets(const struct mw_watch *w, struct mw_targets *out, struct mw_err *err);
void mw_targets_release(struct mw_targets *t);
/* Append one (used by the platform files and tests). */
void mw_targets_add(struct mw_targets *t, uint32_t pid, const char *name, bool self);
uint32_t mw_self_pid(void);

#endif
