/*
 * leak_bound.c - a fail of resident memory that can only fill what the
 * process has already committed (leak.h, mw_leak_commit_bound), or files
 * it has already mapped (mw_leak_mapped_bound).
 *
 * Why: on Linux a process's private bytes are its resident anonymous
 * pages, and they can never exceed the size of the private mappings that
 * hold them.  glibc's malloc extends its heap by brk and touches the new
 * pages only as blocks are carved from them; a program whose data stopped
 * growing but whose free blocks are reused out of order (fragmentation)
 * keeps touching pages it had mapped long before, so its resident memory
 * creeps up for an hour (1 MiB/h in the recorded `ok_cache`) while its
 * committed memory stays flat.  That growth is bounded by the headroom
 * left (committed minus resident): once it is used up the process must
 * commit more, and that growth is judged like any other.  A leak cannot
 * hide here for long: a leak in the heap or in new mappings grows what is
 * committed (glibc extends the heap 132 KiB or more at a time), and a
 * leak inside a large region committed in advance leaves a headroom far
 * over the budget.
 *
 * Owner: the detector work.  Caller: leak_report_bound.c (the report,
 * which reads the two series).  Pure.
 */
#include <math.h>
#include <stdio.h>

#include "leak.h"
#include "leak_internal.h"

/* The first floor of tr at or after t, and the largest from there on;
 * NaN when none. */
static double floor_from(const struct mw_trace *tr, int64_t t, double *max_after)
{
	double first = NAN;
	size_t i;

	*max_after = NAN;
	for (i = 0; i < tr->n; i++) {
		if (tr->t0_ms + (int64_t)i * tr->step_ms < t || isnan(tr->v[i]))
			continue;
		if (isnan(first))
			first = tr->v[i];
		if (isnan(*max_after) || tr->v[i] > *max_after)
			*max_after = tr->v[i];
	}
	return first;
}

/* The last floor of tr, if its bucket starts at or after t; else NaN. */
static double last_floor(const struct mw_trace *tr, int64_t t)
{
	size_t i = tr->n;

	while (i > 0 && isnan(tr->v[i - 1]))
		i--;
	if (i == 0 || tr->t0_ms + (int64_t)(i - 1) * tr->step_ms < t)
		return NAN;
	return tr->v[i - 1];
}

/* The most a budget allows over the horizon (1.5 MiB with the defaults). */
static double over_horizon(const struct mw_leak_params *p)
{
	return p->budget_bytes_per_hour * (double)p->horizon_ms / 3600000.0;
}

/* Whether r is a byte fail a bound may look at, with bound and resident
 * read on steps shorter than half its judged span; then *half (that half)
 * and *fresh (where both must still have a floor: read to the end, not
 * stopped a while before it). */
static bool bound_applies(const struct mw_trace *bound, const struct mw_trace *resident,
			  const struct mw_leak_params *p, const struct mw_leak_result *r,
			  int64_t *half, int64_t *fresh)
{
	int64_t step;

	if (r->verdict != MW_VERDICT_FAIL || p->count_unit || r->judged_from_ms == INT64_MIN ||
	    isnan(r->slope_bph) || bound->step_ms <= 0 || resident->step_ms <= 0)
		return false;
	*half = (r->last_ms - r->judged_from_ms) / 2;
	step = bound->step_ms > resident->step_ms ? bound->step_ms : resident->step_ms;
	if (*half < step)
		return false;
	*fresh = r->last_ms - 2 * step;
	return true;
}

/* bound (what is committed or mapped) is no growth of its own: judged
 * by the same rules as the fail it bounds, it passes, and it rose from
 * from_ms on by no more than budget x horizon (a runtime that commits in
 * 4 MiB chunks, or maps a large file, shows one big step, which would
 * pass alone).  It may be read less often than the judged series (a
 * watched process's address space every 10 s) and end a read before it:
 * its buckets are not missing data, and half the span shows its shape. */
static bool no_growth_of_its_own(const struct mw_trace *bound, const struct mw_leak_params *p,
				 int64_t half, int64_t from_ms)
{
	struct mw_leak_params bp = *p;
	struct mw_leak_result br;
	double start, max;

	bp.min_coverage = 0.05;
	bp.min_duration_ms = half;
	mw_leak_judge(bound, &bp, &br);
	if (br.verdict != MW_VERDICT_PASS)
		return false;
	start = floor_from(bound, from_ms, &max);
	return !isnan(start) && max - start <= over_horizon(p);
}

int mw_leak_commit_bound(const struct mw_trace *committed, const struct mw_trace *resident,
			 const struct mw_leak_params *p, double by_design, struct mw_leak_result *r)
{
	int64_t half, mid, fresh;
	double c_max, c_end, c_start, r_mid, r_max, r_start, r_end, allowed, headroom, most, half_h;
	char level[32], left[32], heap[32];

	/* the last half of the judged span: the tail a fail says still climbs */
	if (!bound_applies(committed, resident, p, r, &half, &fresh))
		return 0;
	mid = r->last_ms - half;
	half_h = (double)half / 3600000.0;
	r_mid = floor_from(resident, mid, &r_max);
	c_end = last_floor(committed, fresh);
	r_end = last_floor(resident, fresh);
	if (isnan(c_end) || isnan(r_mid) || isnan(r_end))
		return 0;
	/* committed memory is no leak of its own (flat, no steady trend, a
	 * step that stays: glibc extends its heap 132 KiB now and then as
	 * fragmentation creeps) */
	if (!no_growth_of_its_own(committed, p, half, r->judged_from_ms))
		return 0;
	most = over_horizon(p);
	c_start = floor_from(committed, r->judged_from_ms, &c_max);
	r_start = floor_from(resident, r->judged_from_ms, &r_max);
	if (isnan(c_start) || isnan(r_start))
		return 0;
	/* and most of the resident growth filled memory committed before
	 * the span: what it committed over the span is under half of what
	 * became resident.  A leak into CPython's arenas (vk_pydict, 3 MiB/h)
	 * commits a 1 MiB arena now and then, 1.26 MiB over the first 25
	 * minutes of its span against 1.09 MiB resident, steps too few to
	 * be a trend of their own, and passed at 35-45 minutes; ok_cache's
	 * committed memory rose 0.12 MiB over its span against 0.92. */
	if (c_max - c_start >= 0.5 * (r_end - r_start))
		return 0;
	/* the growth is inside those mappings: the resident part of them
	 * rose by at least half of what the fail's slope says, over the last
	 * half of the span (a creep that goes on, ok_cache's).  A JVM's over
	 * the whole span: G1 grows its heap when it sizes it (recorded: 85 to
	 * 249 MiB between 12 and 20 minutes, then 0.3 MiB in the last half of
	 * the span judged at 31), an expansion that has ended but that the
	 * fit's slope still carries. */
	if (by_design > 0 ? r_end - r_start < 0.5 * r->slope_bph * 2.0 * half_h
			  : r_end - r_mid < 0.5 * r->slope_bph * half_h)
		return 0;
	/* what is left to fill: no more than the budget allows over the
	 * horizon.  Resident above committed is two reads a moment apart
	 * (within the budget) or series that do not match: then no bound. */
	allowed = p->budget_bytes_per_hour * half_h;
	headroom = c_end - r_end;
	if (!(by_design > 0))
		by_design = 0;
	if (headroom < -allowed || headroom > most + by_design * (1 + MW_LEAK_JVM_SIDE_PER_HEAP))
		return 0;
	if (headroom < 0)
		headroom = 0;
	mw_leak_fmt_bytes(level, sizeof(level), c_end);
	mw_leak_fmt_bytes(left, sizeof(left), headroom);
	if (!(by_design > 0) &&
	    r->slope_bph >= MW_LEAK_SETTLED_BUDGETS * p->budget_bytes_per_hour) {
		/* rising as fast as a leak that matters: the bound says how
		 * far it can go before it must commit more, not that it will
		 * stop.  Recorded (session 35, a second recording of the
		 * validation set): vk_pydict, keeping 3 MiB/h in CPython's
		 * arenas, filled 17.0 MiB it had committed in its first
		 * minutes and passed at 30-34 minutes so; ok_cache's creep of
		 * 1 MiB/h (glibc reusing pages out of order) waits too. */
		char rate[32];

		mw_leak_fmt_amount(rate, sizeof(rate), r->slope_bph, p);
		r->verdict = MW_VERDICT_INCONCLUSIVE;
		r->undecided = 1;
		mw_leak_no_rate(r);
		snprintf(r->reason, sizeof(r->reason),
			 "rising %s/h into memory it committed before (%s): at most %s more "
			 "unless it commits more, too fast yet to call that settling",
			 rate, level, left);
		return 1;
	}
	r->verdict = MW_VERDICT_PASS;
	r->undecided = 0;
	r->bounded = 1;
	mw_leak_no_rate(r);
	if (by_design > 0) {
		/* a heap the runtime grows into and fills by design, judged
		 * by its own aspect */
		mw_leak_fmt_bytes(heap, sizeof(heap), by_design);
		snprintf(r->reason, sizeof(r->reason),
			 "growing inside its Java heap (at most %s, -Xmx), the memory around it no "
			 "leak of its own: at most %s more unless it commits more",
			 heap, left);
	} else {
		snprintf(r->reason, sizeof(r->reason),
			 "filling memory it committed before (%s, no leak of its own): at most %s "
			 "more unless it commits more",
			 level, left);
	}
	return 1;
}

/*
 * Why the mapped bound: a process's resident file pages (Linux RssFile)
 * rise whenever it reads through a file it mapped, for as long as there
 * is file left to read: an indexer scanning a 1 GiB file front to back
 * (recorded, tests/data/leak_mapped/ ok_mapscan: it failed "rising 763
 * MiB/h" from 30 minutes), SQLite with mmap_size touching its pages.
 * Those pages are the file's: clean ones the kernel drops under
 * pressure, dirty ones it writes back first, none of them memory the
 * process holds.  A leak here is a leak of mappings (files mapped and
 * never unmapped, recorded: lk_mapfiles), and that grows what is mapped.
 */
int mw_leak_mapped_bound(const struct mw_trace *mapped, const struct mw_trace *resident,
			 const struct mw_leak_params *p, enum mw_leak_mapped_what what,
			 struct mw_leak_result *r)
{
	/* the reason, by what the pages lie in: page cache on Linux; on
	 * Windows, pages the memory manager trims from the working set to
	 * its standby list (a file's) or to the pagefile (a section's) */
	static const char *const why[] = {
		[MW_LEAK_MAPPED_FILES] = "reading through files it had mapped before (%s mapped, "
					 "no more since): page cache the kernel takes back, no "
					 "leak; at most %s more unless it maps more",
		[MW_LEAK_MAPPED_FILE_VIEWS] = "reading through files it had mapped before (%s "
					      "mapped, no more since): file pages Windows takes "
					      "back from the working set, no leak; at most %s more "
					      "unless it maps more",
		[MW_LEAK_MAPPED_VIEWS] = "filling views it had mapped before (%s mapped, no more "
					 "since): no new mappings, no leak of its own; at most %s "
					 "more unless it maps more (files or sections: watch it "
					 "to tell)",
	};
	int64_t half, fresh;
	double m_end, r_end, r_max, allowed, left;
	char level[32], rest[32];

	if (!bound_applies(mapped, resident, p, r, &half, &fresh))
		return 0;
	/* what is mapped is no growth of its own: a leak of mappings grows it */
	if (!no_growth_of_its_own(mapped, p, half, r->judged_from_ms))
		return 0;
	/* both read to the end, and the resident pages within the mappings
	 * (beyond them is two reads a moment apart, within the budget, or
	 * series that do not match: then no bound) */
	m_end = last_floor(mapped, fresh);
	r_end = last_floor(resident, fresh);
	(void)floor_from(resident, r->judged_from_ms, &r_max);
	allowed = p->budget_bytes_per_hour * (double)half / 3600000.0;
	if (isnan(m_end) || isnan(r_end) || isnan(r_max) || r_max > m_end + allowed)
		return 0;
	left = m_end - r_end > 0 ? m_end - r_end : 0;
	mw_leak_fmt_bytes(level, sizeof(level), m_end);
	mw_leak_fmt_bytes(rest, sizeof(rest), left);
	r->verdict = MW_VERDICT_PASS;
	r->undecided = 0;
	r->bounded = 1;
	mw_leak_no_rate(r);
	snprintf(r->reason, sizeof(r->reason), why[what], level, rest);
	return 1;
}
