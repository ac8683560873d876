/*
 * exit_report_umdh.c - UMDH's text (Windows, with GlobalFlag +ust) into
 * an exit report's stacks: the allocations that grew, by backtrace.
 *
 * A comparison (`umdh old.log new.log`), numbers in hex:
 *   +    5320 (  f110 -  9df0)     3a allocs	BackTrace00B53
 *   +      1c (    3a -    2c)	BackTrace00B53	allocations
 *
 *   	ntdll!RtlAllocateHeap+000000C7
 *   	app!main+00000042
 *   ...
 *   Total increase ==   5320 requested +    1c0 overhead =   54e0
 * Lines starting '-' are stacks that shrank: skipped with their frames.
 * One log (`umdh -p:PID -f:log`), every live allocation by backtrace:
 *   00000038 bytes in 0x1 allocations (@ 0x00000038 + 0x00000018) by: BackTrace0001
 *
 * Pure (exit_report.h).  The stack's first line is its backtrace id, so
 * a user can find it in the log.  A comparison line whose delta is not new
 * minus old is an error naming the line.  Used by import/.
 */
#include "exit_report_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#define TRACE_ID_MAX 64

struct umdh_line {
	bool grew;		/* '+' (a '-' line is parsed and skipped) */
	bool count_line;	/* the "... allocations" line of a comparison */
	uint64_t delta, count;
	char id[TRACE_ID_MAX];
};

static size_t hex_after_blanks(const char *p, size_t n, size_t i, uint64_t *v, bool *ok)
{
	if (!*ok || i > n) {	/* an earlier part failed: i may point past the line */
		*ok = false;
		return n;
	}
	i += mw_xr_blanks(p + i, n - i);
	*ok = *ok && mw_xr_number(p, n, &i, 16, v);
	return i;
}

/* "BackTraceXXXX": copy the id; the index past it. */
static size_t trace_id(const char *p, size_t n, size_t i, char *id, bool *ok)
{
	size_t k;

	if (!*ok || i > n) {
		*ok = false;
		return n;
	}
	i += mw_xr_blanks(p + i, n - i);
	k = i;
	if (!mw_xr_starts(p + i, n - i, "BackTrace")) {
		*ok = false;
		return i;
	}
	while (k < n && p[k] != ' ' && p[k] != '\t' && p[k] != '\0')
		k++;
	if (k - i >= TRACE_ID_MAX) {
		*ok = false;
		return k;
	}
	memcpy(id, p + i, k - i);
	id[k - i] = '\0';
	return k;
}

/* A comparison line: 1 parsed, 0 not one, -1 wrong (err names the line). */
static int compare_line(const struct mw_xr_line *l, struct umdh_line *u, struct mw_err *err)
{
	const char *p = l->p;
	size_t n = l->n, i = 1;
	uint64_t nw = 0, old = 0;
	bool ok = true;

	if (n < 2 || (p[0] != '+' && p[0] != '-') || (p[1] != ' ' && p[1] != '\t'))
		return 0;
	memset(u, 0, sizeof(*u));
	u->grew = p[0] == '+';
	i = hex_after_blanks(p, n, i, &u->delta, &ok);
	i += ok ? mw_xr_blanks(p + i, n - i) : 0;
	ok = ok && i < n && p[i] == '(';
	i = hex_after_blanks(p, n, i + 1, &nw, &ok);
	i += ok ? mw_xr_blanks(p + i, n - i) : 0;
	ok = ok && i < n && p[i] == '-';
	i = hex_after_blanks(p, n, i + 1, &old, &ok);
	i += ok ? mw_xr_blanks(p + i, n - i) : 0;
	ok = ok && i < n && p[i] == ')';
	if (!ok)
		return mw_error(err, "line %llu: not '%c DELTA ( NEW - OLD) ...' in hex",
				(unsigned long long)l->no, p[0]);
	i++;
	if ((u->grew && (nw < old || nw - old != u->delta)) ||
	    (!u->grew && (old < nw || old - nw != u->delta)))
		return mw_error(err, "line %llu: the change %llx is not %llx - %llx",
				(unsigned long long)l->no, (unsigned long long)u->delta,
				(unsigned long long)nw, (unsigned long long)old);
	{
		size_t j = i + mw_xr_blanks(p + i, n - i);

		if (mw_xr_starts(p + j, n - j, "BackTrace")) {	/* the count line */
			u->count_line = true;
			u->count = u->delta;
			i = trace_id(p, n, j, u->id, &ok);
			i += mw_xr_blanks(p + i, n - i);
			ok = ok && mw_xr_starts(p + i, n - i, "allocations");
		} else {
			i = hex_after_blanks(p, n, i, &u->count, &ok);
			i += ok ? mw_xr_blanks(p + i, n - i) : 0;
			ok = ok && mw_xr_starts(p + i, n - i, "allocs");
			if (ok)
				i = trace_id(p, n, i + strlen("allocs"), u->id, &ok);
		}
	}
	if (!ok)
		return mw_error(err, "line %llu: no 'N allocs BackTraceID' or 'BackTraceID "
				"allocations' after the change", (unsigned long long)l->no);
	return 1;
}

/* A log line "HEX bytes in 0xN allocations (...) by: BackTraceID": 1, 0
 * not one, -1 wrong. */
static int log_line(const struct mw_xr_line *l, struct umdh_line *u, struct mw_err *err)
{
	const char *p = l->p, *by;
	size_t n = l->n, i = 0;
	bool ok = true;

	if (!mw_xr_find(p, n, " bytes in ") || !(by = mw_xr_find(p, n, " by: BackTrace")))
		return 0;
	memset(u, 0, sizeof(*u));
	u->grew = true;
	i = hex_after_blanks(p, n, i, &u->delta, &ok);
	ok = ok && mw_xr_starts(p + i, n - i, " bytes in ");
	if (ok) {
		i += strlen(" bytes in ");
		if (mw_xr_starts(p + i, n - i, "0x"))
			i += 2;
		i = hex_after_blanks(p, n, i, &u->count, &ok);
		ok = ok && mw_xr_starts(p + i, n - i, " allocations");
	}
	if (ok)
		trace_id(p, n, (size_t)(by - p) + strlen(" by:"), u->id, &ok);
	if (!ok)
		return mw_error(err, "line %llu: not 'HEX bytes in 0xN allocations ... by: "
				"BackTraceID'", (unsigned long long)l->no);
	return 1;
}

static void close_stack(struct mw_exit_report *out, struct mw_exit_stack *cur, bool *open)
{
	if (*open) {
		out->leaks = mw_xr_add(out->leaks, cur->count);
		out->bytes = mw_xr_add(out->bytes, cur->bytes);
		mw_xr_keep_stack(out, cur);
	}
	memset(cur, 0, sizeof(*cur));
	*open = false;
}

int mw_umdh_parse(const char *text, size_t n, struct mw_exit_report *out, struct mw_err *err)
{
	struct mw_xr_line l = { NULL, 0, 0 };
	struct mw_exit_stack cur;
	struct umdh_line u;
	char cur_id[TRACE_ID_MAX] = "";
	bool open = false, in_frames = false, any = false, total = false, is_log = false;
	size_t pos = 0;
	int k;

	mw_xr_start(out, &cur, MW_EXIT_UMDH);
	while (mw_xr_next_line(text, n, &pos, &l)) {
		size_t b = mw_xr_blanks(l.p, l.n);

		if (total)
			break;
		if (b == l.n)
			continue;	/* blank lines sit between a stack's lines */
		if (b && in_frames) {
			if (open)
				mw_xr_add_frame(&cur, l.p + b, l.n - b);
			continue;
		}
		if (mw_xr_starts(l.p, l.n, "//"))
			continue;	/* UMDH's explanation of its syntax */
		if (mw_xr_starts(l.p, l.n, "Total increase") ||
		    mw_xr_starts(l.p, l.n, "Total decrease")) {
			total = true;
			continue;
		}
		k = compare_line(&l, &u, err);
		if (!k) {
			k = log_line(&l, &u, err);
			is_log = is_log || k > 0;
		}
		if (k < 0)
			goto fail;
		if (!k) {
			in_frames = false;	/* DBGHELP: and other chatter */
			continue;
		}
		any = true;
		in_frames = true;
		if (u.count_line && open && !strcmp(u.id, cur_id)) {
			cur.count = u.count;	/* the growth in allocations, not the total */
			continue;
		}
		close_stack(out, &cur, &open);
		if (!u.grew || u.count_line)
			continue;	/* frames of a shrinking stack are skipped */
		open = true;
		cur.bytes = u.delta;
		cur.count = u.count;
		snprintf(cur_id, sizeof(cur_id), "%s", u.id);
		mw_xr_add_frame(&cur, u.id, strlen(u.id));
	}
	close_stack(out, &cur, &open);
	if (!any) {
		mw_error(err, "no UMDH stack in %llu line(s) (no '+ DELTA ( NEW - OLD) N allocs "
			 "BackTraceID' nor 'HEX bytes in 0xN allocations ... by: BackTraceID')",
			 (unsigned long long)l.no);
		goto fail;
	}
	out->complete = total || is_log;
	mw_xr_sort_stacks(out);
	return 0;
fail:
	return mw_xr_fail(out, &cur);
}
