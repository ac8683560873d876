/*
 * procmaps.h - one read of /proc/PID/smaps per process per tick, shared by
 * the collectors that need the address space on Linux: workingset
 * (categories, PSS/USS), vmmap (memwatch_vm_bytes) and heap (the heap bar).
 *
 * A read is the smaps text (which holds everything /proc/PID/maps has),
 * /proc/PID/exe's target and each thread's stack pointer (what smaps.c's
 * classification needs besides the text).  The cache is process-wide,
 * keyed by pid, and each read remembers which of its users got it.
 * Collectors run one after another in a scheduler pass, each with its own
 * wall-clock stamp, and no tick number reaches mw_vm_walk or mw_ws_read;
 * so "this tick" is: a user asking for a pid is served the cached read if
 * it has not had that read yet and the read is at most
 * MW_PROCMAPS_FRESH_MS old; a user asking again (its next tick, however
 * short its interval) gets a new read, which the others then share.  A
 * process whose pid was reused within that window would be served its
 * predecessor's read once; not worth a start-time check.
 *
 * Reads are copied out (the caller owns its buffers), under a mutex, so a
 * read can be dropped or replaced at any time.  At most MW_PROCMAPS_MAX
 * processes are held; the oldest read goes first.  Linux only
 * (procmaps_linux.c).
 */
#ifndef MW_COLLECTORS_PROCMAPS_H
#define MW_COLLECTORS_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/mwerr.h"
#include "smaps.h"

#define MW_PROCMAPS_FRESH_MS 1000
#define MW_PROCMAPS_MAX 64
#define MW_PROCMAPS_MAX_THREADS 4096	/* stack pointers read per process, at most */

/* The users sharing a read (bits). */
enum mw_procmaps_user {
	MW_PROCMAPS_WORKINGSET = 1, MW_PROCMAPS_VMMAP = 2, MW_PROCMAPS_HEAP = 4,
	MW_PROCMAPS_STACKS = 8
};

/* One process's read; zero-initialise, reuse, mw_procmaps_release. */
struct mw_procmaps {
	char *text;		/* /proc/PID/smaps, NUL-terminated */
	size_t len, cap;
	char *exe;		/* /proc/PID/exe's target (NUL-terminated), or NULL */
	size_t exe_cap;
	struct mw_smaps_thread *threads;
	size_t nthreads, tcap;
	uint32_t page_size;
	bool cached;		/* served from the cache, not read now */
};

/* pid's read for user (one enum mw_procmaps_user bit), into out: the
 * cached read when user has not had it and it is at most
 * MW_PROCMAPS_FRESH_MS old, else a new one (kept for the others).  0; 1 when the process is
 * gone, may not be read, or has no address space (a kernel thread, a
 * zombie: empty smaps): err says which; -1 on failure. */
int mw_procmaps_read(uint32_t pid, unsigned user, struct mw_procmaps *out, struct mw_err *err);
/* mw_procmaps_read, then parse the text into *maps and fill *f (the
 * facts mw_smaps_classify / mw_smaps_uses take): what heap, vmmap and
 * workingset each do first.  0; 1 or -1 as mw_procmaps_read, or -1 for a
 * malformed smaps (err names the file).  The caller releases pm and maps
 * in every case (maps may point into pm->text). */
int mw_procmaps_parse(uint32_t pid, unsigned user, struct mw_procmaps *pm,
		      struct mw_smaps *maps, struct mw_smaps_facts *f, struct mw_err *err);
/* mw_procmaps_parse, then each mapping's use (mw_smaps_uses) handed to
 * use(maps, uses, arg) before all is released: heap's bar and vmmap's
 * regions and stacks.  Returns as mw_procmaps_parse. */
int mw_procmaps_classified(uint32_t pid, unsigned user,
			   void (*use)(const struct mw_smaps *maps, const struct mw_smaps_use *u,
				       void *arg),
			   void *arg, struct mw_err *err);
/* Facts for mw_smaps_classify / mw_smaps_uses from a read. */
void mw_procmaps_facts(const struct mw_procmaps *p, uint32_t pid, struct mw_smaps_facts *f);
void mw_procmaps_release(struct mw_procmaps *p);

/* Reads made and reads served from the cache since start. */
void mw_procmaps_stats(uint64_t *reads, uint64_t *hits);
/* Forget every cached read (tests, benchmarks). */
void mw_procmaps_flush(void);

#endif
