/*
 * process_pss.c - the PSS/USS scheduler of the process collector
 * (process_pss.h).
 *
 * /proc/PID/smaps_rollup walks the page tables of the process, far
 * dearer than status, so it is read on a time budget: a credit of the
 * share (pss_budget, a share of one core) times the wall time elapsed
 * accrues between ticks (at most one tick's worth is banked, the first
 * tick gets one interval's); reads go round-robin by pid from where the
 * last tick stopped, each process at most once per interval
 * (pss_interval), while credit lasts.  A read costs its measured time (an
 * overrun makes the credit negative and is paid back by later ticks).  A
 * process whose read took longer than PSS_SLOW_NS is not read again for
 * PSS_SLOW_PAUSE_NS.  A process whose resident set (statm's resident and
 * shared) is what it was at its last read is not read again until
 * PSS_UNCHANGED_EVERY intervals have passed since that read: its own
 * pages are the same, so its PSS and USS can move only by other
 * processes mapping or unmapping pages it shares (most processes of a
 * machine sit still most of the time; at 1,000 processes the reads were
 * a tenth of the daemon's CPU).  Between reads the last figures are
 * reported again.
 */
#include "process_pss.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/xalloc.h"

#define PSS_SLOW_NS 50000000LL		/* 50 ms */
#define PSS_SLOW_PAUSE_NS 600000000000LL	/* 10 min */
#define PSS_UNCHANGED_EVERY 5	/* intervals between reads of a still process */

struct mw_pss_entry {
	uint32_t pid;		/* first: the array is kept by pid (mw_pid_index) */
	int64_t start_ms;
	int64_t due_ns;		/* monotonic: next read not before */
	int64_t read_ns;	/* monotonic: its last read */
	uint64_t ws_at_read, anon_at_read;	/* resident set as of that read */
	uint64_t pss, uss;
	bool has;
	size_t ti;		/* index in this tick's table */
};

void mw_pss_sched_init(struct mw_pss_sched *s, double share, int64_t interval_ns,
		       int64_t tick_ns)
{
	memset(s, 0, sizeof(*s));
	s->share = share;
	s->interval_ns = interval_ns;
	s->tick_ns = tick_ns;
}

void mw_pss_sched_release(struct mw_pss_sched *s)
{
	free(s->cur.v);
	free(s->next.v);
	memset(s, 0, sizeof(*s));
}

/* Due, but its figures still hold: read before, resident set as it was
 * then, and not PSS_UNCHANGED_EVERY intervals ago. */
static bool still_current(const struct mw_pss_entry *e, const struct mw_process_info *p,
			  int64_t now_ns, int64_t interval_ns)
{
	return e->has && p->working_set_bytes == e->ws_at_read &&
	       p->rss_anon_bytes == e->anon_at_read &&
	       now_ns - e->read_ns < PSS_UNCHANGED_EVERY * interval_ns;
}

/* This tick's entries, one per process of t in pid order: each carried
 * over from the last tick when pid and start are the same, else new. */
static size_t carry_over(struct mw_pss_sched *s, const struct mw_process_table *t)
{
	struct mw_pss_entry *v;
	size_t i, n;

	MW_GROW(s->next.v, s->next.cap, t->nprocs + 1);
	v = s->next.v;
	for (i = 0, n = 0; i < t->nprocs; i++) {
		const struct mw_process_info *p = &t->procs[i];
		size_t at = mw_pid_index(s->cur.v, s->cur.n, sizeof(*s->cur.v), p->pid);

		if (at < s->cur.n && s->cur.v[at].start_ms == p->start_ms) {
			v[n] = s->cur.v[at];
		} else {
			memset(&v[n], 0, sizeof(v[n]));
			v[n].pid = p->pid;
			v[n].start_ms = p->start_ms;
		}
		v[n++].ti = i;
	}
	mw_pid_sort(v, n, sizeof(*v));
	s->next.n = n;
	return n;
}

void mw_pss_sched_tick(struct mw_pss_sched *s, struct mw_process_reader *r,
		       struct mw_process_table *t, int64_t now_ns)
{
	struct mw_process_pss_stats *o = &s->last;
	struct mw_pss_entry *v;
	struct mw_pss_list old;
	size_t i, n, start = 0, k;
	int64_t elapsed = s->last_ns ? now_ns - s->last_ns : s->tick_ns;
	int64_t cap = (int64_t)(s->share * (double)(elapsed > s->tick_ns ? elapsed : s->tick_ns));

	memset(o, 0, sizeof(*o));
	s->last_ns = now_ns;
	s->credit_ns += (int64_t)(s->share * (double)elapsed);
	if (s->credit_ns > cap)
		s->credit_ns = cap;
	n = carry_over(s, t);
	v = s->next.v;
	while (start < n && v[start].pid <= s->cursor)
		start++;
	for (k = 0; k < n; k++) {
		struct mw_pss_entry *e = &v[(start + k) % n];
		int64_t t0, took;

		if (e->due_ns > now_ns)
			continue;
		if (still_current(e, &t->procs[e->ti], now_ns, s->interval_ns)) {
			e->due_ns = now_ns + s->interval_ns;
			o->unchanged++;
			continue;
		}
		if (s->credit_ns <= 0) {
			o->waiting++;
			continue;
		}
		t0 = mw_clock_mono_ns();
		e->has = mw_process_pss_read(r, e->pid, &e->pss, &e->uss) == 0;
		took = mw_clock_mono_ns() - t0;
		e->read_ns = now_ns;
		e->ws_at_read = t->procs[e->ti].working_set_bytes;
		e->anon_at_read = t->procs[e->ti].rss_anon_bytes;
		s->credit_ns -= took;
		o->read++;
		o->spent_ns += took;
		s->cursor = e->pid;
		e->due_ns = now_ns + (took > PSS_SLOW_NS ? PSS_SLOW_PAUSE_NS : s->interval_ns);
		if (took > PSS_SLOW_NS)
			o->slow++;
	}
	for (i = 0; i < n; i++) {
		struct mw_process_info *p = &t->procs[v[i].ti];

		if (v[i].due_ns - now_ns > s->interval_ns)
			o->paused++;
		p->has_pss = v[i].has;
		p->pss_bytes = v[i].pss;
		p->uss_bytes = v[i].uss;
		o->known += v[i].has;
	}
	/* this tick's entries become the current ones, the old the spare */
	old = s->cur;
	s->cur = s->next;
	s->next = old;
}
