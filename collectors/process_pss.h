/*
 * process_pss.h - the process collector's PSS/USS scheduler (Linux
 * /proc/PID/smaps_rollup reads on a time budget; process_pss.c says how).
 * process.c owns one per collector and runs it once per tick after the
 * table was read; it fills the table's pss fields.  One thread: the
 * collector's.
 */
#ifndef MW_COLLECTORS_PROCESS_PSS_H
#define MW_COLLECTORS_PROCESS_PSS_H

#include <stddef.h>
#include <stdint.h>
#include "process.h"

struct mw_pss_entry;	/* one process's read state (process_pss.c) */

struct mw_pss_sched {
	double share;		/* of one core */
	int64_t interval_ns;	/* each process read at most this often */
	int64_t tick_ns;	/* the collector's interval */
	int64_t credit_ns, last_ns;
	uint32_t cursor;	/* last pid read: the next tick goes on from there */
	struct mw_pss_list {
		struct mw_pss_entry *v;
		size_t n, cap;
	} cur, next;		/* by pid; next: the spare for the next tick */
	struct mw_process_pss_stats last;	/* what the last tick did */
};

/* An empty scheduler spending share of one core, at most one read per
 * process per interval_ns, for a collector ticking every tick_ns. */
void mw_pss_sched_init(struct mw_pss_sched *s, double share, int64_t interval_ns,
		       int64_t tick_ns);
/* This tick's reads through r, for t (this tick's table): fills every
 * process's has_pss, pss_bytes and uss_bytes (the last figures read). */
void mw_pss_sched_tick(struct mw_pss_sched *s, struct mw_process_reader *r,
		       struct mw_process_table *t, int64_t now_ns);
void mw_pss_sched_release(struct mw_pss_sched *s);

#endif
