/*
 * leak_report_jvm.c - a JVM's heap as the leak report reads it (the jvm
 * collector's series): how big it may grow (-Xmx) and how big it is
 * committed, for the private-memory bound (leak_report_bound.c); and the
 * java_heap aspect judged again from when the heap reached its size.
 *
 * Why the second: what G1 leaves in the old generation after its mixed
 * collections grows with the heap (it collects only the regions with the
 * most garbage and stops once what is left is a few per cent of the
 * heap), so while G1 sizes a heap toward -Xmx the old generation after
 * collections rises with it, leak or not.  Recorded (the corpus's jvm2
 * set): G1 grew ok_java's heap 84 -> 229 MiB between 6 and 12 minutes and
 * its old generation after collections rose 37 -> 60 MiB, flat after;
 * lk_java's 85 -> 249 MiB between 11 and 17 minutes, 40 -> 66 MiB, then
 * its leak's 5-10 MiB/h.  Judged over the sizing, lk_java failed at
 * 35-45 minutes at three to four times its leak's rate.  Judged from a
 * while after the heap reached its size, the rise is the program's; when
 * it began is not known (the sizing hid it), so a fail dates no onset
 * (in a fourth recording a hinge in that noise dated lk_java's leak, under
 * way from the start, to 30 minutes).
 *
 * Every JVM of a group is looked at (leak_report_read.c hands each
 * incarnation's result here before the group counts it): a machine's JVMs
 * are most often all named `java`.
 *
 * Owner: the detector work.  Caller: leak_report_bound.c (the heap's
 * size), leak_aspects.c (the java_heap aspect's look, which
 * leak_report_read.c calls).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/calendar.h"
#include "leak_report_internal.h"

/* A heap "reached its size" when it last stood more than this share below
 * its size at the end: G1 and the parallel collector add a region or a
 * few megabytes now and then (1-2 MiB in the recordings), which do not
 * move what the collections leave behind. */
#define SIZED_SHARE (1.0 / 16.0)
/* The old generation after collections is published at the next
 * old-generation collection (collectors/jvm_after_gc.c), a minute or more
 * after the stretch it measured: the judging starts this long after the
 * heap reached its size. */
#define SIZED_SETTLE_MS (5 * 60000LL)

double mw_leak_java_heap(struct mw_reader *reader, const char *pid, const char *process,
			 const char *started, int64_t from, int64_t to, int64_t step,
			 struct mw_trace *hc_tr, double **hc)
{
	struct mw_trace tr;
	double *v = NULL, max = 0;
	char sel[512], inc[48];
	size_t i;

	*hc = NULL;
	mw_leak_incarnation_matcher(inc, sizeof(inc), started);
	mw_leak_process_selector(sel, sizeof(sel), "memwatch_jvm_heap_max_bytes", inc, pid,
				 process);
	if (mw_leak_read_sum(reader, sel, from, to, step, &tr, &v))
		return 0;
	for (i = tr.n; i > 0; i--)
		if (!isnan(tr.v[i - 1])) {
			max = tr.v[i - 1];
			break;
		}
	free(v);
	mw_leak_process_selector(sel, sizeof(sel), "memwatch_jvm_heap_committed_bytes", inc, pid,
				 process);
	if (!(max > 0) || mw_leak_read_sum(reader, sel, from, to, step, hc_tr, hc)) {
		free(*hc);
		*hc = NULL;
		return 0;
	}
	return max;
}

/* When the heap hc reached its size at the end: the first bucket after the
 * last one more than SIZED_SHARE below it; INT64_MIN when it never stood
 * so far below (or has no reading), *size its size. */
static int64_t reached_size(const struct mw_trace *hc, double *size)
{
	size_t i = hc->n, last;

	while (i > 0 && isnan(hc->v[i - 1]))
		i--;
	if (i == 0)
		return INT64_MIN;
	last = i - 1;
	*size = hc->v[last];
	while (i > 0 && (isnan(hc->v[i - 1]) || hc->v[i - 1] >= (1.0 - SIZED_SHARE) * *size))
		i--;
	if (i == 0)
		return INT64_MIN;
	return hc->t0_ms + (int64_t)i * hc->step_ms;
}

/* The heap hc stood more than SIZED_SHARE above its size at the end
 * somewhere after from: a collector that shrinks the heap it committed
 * (the parallel collector's adaptive sizing: recorded, the langs set's
 * lk_javapar, 256 -> 120 MiB over 40 minutes, then between 55 and 125
 * MiB from one minute to the next) raises nothing in what its collections
 * leave when it grows a little again, and judging only from that regrowth
 * left too little to judge: "judged from 5 min after its heap reached 71
 * MiB ...: too little data after warm-up" at 49 minutes. */
static bool shrank_since(const struct mw_trace *hc, int64_t from, double size)
{
	size_t i;

	for (i = 0; i < hc->n; i++)
		if (hc->t0_ms + (int64_t)i * hc->step_ms >= from && !isnan(hc->v[i]) &&
		    hc->v[i] > (1.0 + SIZED_SHARE) * size)
			return true;
	return false;
}

/* The old generation's series began well after the process (it is
 * published at the JVM's first old-generation collection, which the
 * parallel and serial collectors may run minutes in) and is too short to
 * judge, while the process has run long enough for its other aspects to
 * be: the heap is not judged yet, and that is no pass.  Recorded (the
 * langs set, session 29): lk_javapar, 10 MiB/h under the parallel
 * collector, its series from 3.5 minutes on, its private bytes falling as
 * the collector shrank its heap, passed at 30-34 minutes ("no rise over 21
 * min: falling") while its heap read "too little data after warm-up: 17
 * min". */
#define HEAP_LATE_MS 60000

static bool heap_behind_process(const struct mw_series_info *s, const struct mw_leak_result *r,
				const struct mw_leak_params *p, int64_t to)
{
	int64_t start = mw_leak_started_ms(s);

	if (r->verdict != MW_VERDICT_INCONCLUSIVE || r->undecided || start == INT64_MIN)
		return false;
	return r->first_ms - start > HEAP_LATE_MS &&
	       to - start >= p->warmup_ms + p->min_duration_ms &&
	       r->last_ms - r->first_ms < p->warmup_ms + p->min_duration_ms;
}

/* A fail "since the start" of an old generation whose series began well
 * after the process: that start is the JVM's first old-generation
 * collection, not the leak's, which may have grown since the process
 * began.  Judged again dating no onset ("over the ... judged"), as a fail
 * after a sizing is.  Recorded (the langs set, session 29): lk_javapar's
 * series began 4.8 minutes after the process, and its fail read "rising
 * ... since the start, 11:48:55 UTC", that series' first figure.  Only
 * the date goes: judged undated, a fit over the whole span instead of
 * after a hinge of the judged span could come out under the budget, and
 * then the verdict stands as it was. */
static void undate_late_start(const struct mw_series_info *s, const struct mw_trace *tr,
			      const struct mw_leak_params *p, struct mw_leak_result *r)
{
	struct mw_leak_params late;
	struct mw_leak_result undated;
	int64_t start;

	if (r->verdict != MW_VERDICT_FAIL || !r->onset_at_start || p->onset_unknown ||
	    (start = mw_leak_started_ms(s)) == INT64_MIN || r->first_ms - start <= HEAP_LATE_MS)
		return;
	late = *p;
	late.onset_unknown = 1;
	mw_leak_judge(tr, &late, &undated);
	if (undated.verdict == MW_VERDICT_FAIL)
		*r = undated;
}

void mw_leak_java_heap_since_sized(struct mw_reader *reader, const struct mw_series_info *s,
				   const struct mw_trace *tr, const struct mw_leak_params *p,
				   int64_t from, int64_t to, int64_t step, struct mw_leak_result *r)
{
	struct mw_trace hc_tr = { 0 }, after = *tr;
	struct mw_series_info id;
	struct mw_leak_params sized;
	struct mw_leak_result again;
	const char *pid;
	double *hc = NULL, size = 0;
	int64_t at, judge_from;
	char when[40], tmp[MW_LEAK_REASON_MAX];
	bool was_pass = r->verdict == MW_VERDICT_PASS;

	if (!tr->n)
		return;
	if (!(s = mw_leak_labelled(reader, s, &id)))
		goto out;
	if (heap_behind_process(s, r, p, to)) {
		snprintf(tmp, sizeof(tmp), "its Java heap not judged yet: %s", r->reason);
		memcpy(r->reason, tmp, sizeof(tmp));
		r->undecided = 1;
		goto out;
	}
	undate_late_start(s, tr, p, r);
	if (!(pid = mw_leak_label_of(s, "pid")) ||
	    !(mw_leak_java_heap(reader, pid, mw_leak_label_of(s, "process"),
				mw_leak_label_of(s, "started"), from, to, step, &hc_tr, &hc) > 0))
		goto out;
	at = reached_size(&hc_tr, &size);
	/* sized before the judged range began, or shrunk since it was
	 * larger (shrank_since): judged as it was */
	if (at == INT64_MIN || (r->judged_from_ms != INT64_MIN &&
				at + SIZED_SETTLE_MS <= r->judged_from_ms) ||
	    shrank_since(&hc_tr, r->judged_from_ms, size))
		goto out;
	/* the trace from then on, with no warm-up of its own */
	judge_from = at + SIZED_SETTLE_MS;
	if (judge_from > after.t0_ms) {
		size_t k = (size_t)((judge_from - after.t0_ms + after.step_ms - 1) / after.step_ms);

		if (k >= after.n)
			k = after.n - 1;
		after.v += k;
		after.n -= k;
		after.t0_ms += (int64_t)k * after.step_ms;
	}
	sized = *p;
	sized.warmup_ms = 0;
	/* a leak under way before the sizing is not dated by what follows it */
	sized.onset_unknown = 1;
	mw_leak_judge(&after, &sized, &again);
	/* A pass over the whole range stands unless the stretch after the
	 * sizing fails: a collector that resizes its heap often (Serial,
	 * Parallel) leaves little to judge after its last growth, but a
	 * sizing that lifted what collections leave and let it down again
	 * hides a leak behind it (recorded: the jvm3 set's lk_java, 10
	 * MiB/h, failed over the 23-25 minutes after its sizing at 44-46
	 * minutes, then passed at 47-49 as "no steady trend over 36 min"
	 * over the whole range, so the group passed "stopped rising" on its
	 * private bytes; at 48-50 the stretch after read "rising about 11-12
	 * MiB/h, not yet sure").  So a fail, or a rise not yet sure
	 * (undecided), there is the verdict; too little data there is not. */
	if (was_pass && again.verdict != MW_VERDICT_FAIL &&
	    !(again.verdict == MW_VERDICT_INCONCLUSIVE && again.undecided))
		goto out;
	mw_time_human(when, sizeof(when), at);
	snprintf(tmp, sizeof(tmp), "judged from %lld min after its heap reached %.0f MiB at %s: %s",
		 (long long)(SIZED_SETTLE_MS / 60000), size / (1024.0 * 1024.0), when, again.reason);
	memcpy(again.reason, tmp, sizeof(tmp));
	/* Not a pass: the whole range did not pass, and the stretch after
	 * the sizing is shorter (recorded: lk_java, 10 MiB/h, read "rising
	 * about 8.1 MiB/h (p 0.0015), not yet sure" over its whole range at 50
	 * minutes and "no steady trend over 35 min (p 0.031)" after its
	 * sizing at 55).  Inconclusive, and undecided: it cannot let the
	 * process pass on its other aspects either. */
	if (again.verdict == MW_VERDICT_PASS) {
		again.verdict = MW_VERDICT_INCONCLUSIVE;
		snprintf(tmp, sizeof(tmp), "%s, not a pass: the whole range did not pass",
			 again.reason);
		memcpy(again.reason, tmp, sizeof(tmp));
	}
	if (again.verdict == MW_VERDICT_INCONCLUSIVE)
		again.undecided = 1;
	*r = again;
out:
	free(hc);
	mw_series_info_release(&id);
}
