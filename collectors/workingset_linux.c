/* workingset_linux.c - the working set of a process from /proc/PID/smaps.
 *
 * The OS part only: read /proc/PID/smaps into a buffer, /proc/PID/exe's
 * target (which file is the main executable) and each thread's stack
 * pointer from /proc/PID/task/TID/syscall (kstkesp in task/TID/stat reads
 * 0 on current kernels) - through procmaps_linux.c, whose per-tick cache
 * shares the read with vmmap and heap; smaps.c interprets them.  PSS and
 * USS come from the same smaps text (the sums of Pss and of Private_*), so no second
 * walk of the address space through smaps_rollup.
 *
 * A process that is gone (ENOENT, ESRCH), that we may not read (EACCES,
 * EPERM) or that has no address space (a kernel thread, a zombie: empty
 * smaps) is inaccessible (1), not an error. */
#include "workingset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/xalloc.h"
#include "procmaps.h"
#include "smaps.h"

int mw_ws_read(uint32_t pid, bool self, struct mw_ws_snapshot *s, struct mw_err *err)
{
	/* The read is procmaps.h's, shared with vmmap and heap in one tick. */
	struct mw_procmaps pm = { .text = s->text, .cap = s->text_cap };
	struct mw_smaps maps = { 0 };
	struct mw_smaps_totals tot;
	struct mw_smaps_facts f;
	int rc;

	(void)self;
	s->npages = s->nnames = s->nheaps = s->nstacks = 0;
	s->why[0] = '\0';
	s->mode = MW_WS_MODE_SMAPS;
	s->total_bytes = 0;	/* never the previous target's */
	s->have_total = false;
	s->have_pss = false;
	s->large_pages = s->large_bytes = 0;
	rc = mw_procmaps_parse(pid, MW_PROCMAPS_WORKINGSET, &pm, &maps, &f, err);
	/* the text buffer stays the snapshot's, for the next tick */
	s->text = pm.text;
	s->text_cap = pm.cap;
	pm.text = NULL;
	if (rc == 0) {
		s->page_size = pm.page_size;
		mw_smaps_classify(&maps, &f, &s->classified, &tot);
		s->total_bytes = tot.rss;
		s->have_total = true;
		s->pss_bytes = tot.pss;
		s->uss_bytes = tot.uss;
		s->have_pss = true;
	}
	mw_procmaps_release(&pm);
	mw_smaps_release(&maps);
	return rc;
}

int mw_ws_supported(struct mw_err *why)
{
	if (access("/proc/self/smaps", R_OK))
		return mw_error(why, "/proc/self/smaps: %s", strerror(errno));
	return 0;
}
