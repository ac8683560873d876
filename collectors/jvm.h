/*
 * jvm.h - the jvm collector: the heap of every HotSpot JVM on the machine
 * (any process with a performance-data file), read from outside as jstat
 * does, without attaching to it.
 *
 * Portable logic in jvm.c; the pure parser in jvm_perfdata.c; the OS part
 * (where the files are, reading one, its process's name and start) in
 * jvm_linux.c and jvm_win32.c.
 */
#ifndef MW_COLLECTORS_JVM_H
#define MW_COLLECTORS_JVM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/mwerr.h"
#include "core/collector.h"

extern const struct mw_collector mw_collector_jvm;

/* One performance-data file: the pid it is named after and its path. */
struct mw_jvm_file {
	uint32_t pid;
	char path[512];
};
struct mw_jvm_files {
	struct mw_jvm_file *f;
	size_t n, cap;
};

/* What the platform says of the file's process. */
struct mw_jvm_process {
	char name[256];		/* the process collector's `process` label */
	int64_t start_ms;	/* its start, wall clock (the `started` label / 1000) */
};

/* The folders that hold the files ("hsperfdata_USER"), found again now
 * and then (jvm.c: every 30 s; /tmp can hold thousands of entries). */
#define MW_JVM_MAX_DIRS 64
struct mw_jvm_dirs {
	char dir[MW_JVM_MAX_DIRS][768];
	size_t n;
};

/* Platform: every hsperfdata_* folder where JVMs put their files (a real
 * folder, no link), into out (emptied first). */
void mw_jvm_find_dirs(struct mw_jvm_dirs *out);
/* Platform: every file in dir named after a pid, added to out. */
void mw_jvm_list_dir(const char *dir, struct mw_jvm_files *out);
void mw_jvm_files_release(struct mw_jvm_files *files);
/* Add one file (both platforms' listings use it). */
void mw_jvm_files_add(struct mw_jvm_files *files, uint32_t pid, const char *dir,
		      const char *name);

/* Platform: read file's bytes (at most cap) into buf, *len set, and its
 * process into *p.  A file that is not a regular file, belongs to another
 * user than its process, or whose process is gone: -1 and err naming why. */
int mw_jvm_read(const struct mw_jvm_file *file, uint8_t *buf, size_t cap, size_t *len,
		struct mw_jvm_process *p, struct mw_err *err);

/* Pure: may a file owned by file_owner be read as the JVM's whose process
 * runs as user and gives what it creates the owner default_owner (SIDs as
 * strings on Windows; any may be NULL: unknown)?  Only when the file's
 * owner is one of them: another user could otherwise plant a file under
 * the JVM's pid and make up its heap.  The default owner counts because an
 * elevated administrator's JVM makes its files owned by Administrators,
 * not by the user (Linux compares uids in jvm_linux.c). */
bool mw_jvm_owner_ok(const char *file_owner, const char *user, const char *default_owner);

/* Pure: a directory entry's name as a pid ("12345"); 0 when it is not one. */
uint32_t mw_jvm_pid_of_name(const char *name);

#endif
