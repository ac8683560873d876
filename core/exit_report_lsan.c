/*
 * exit_report_lsan.c - LeakSanitizer's report file (ASAN_OPTIONS=
 * log_path=DIR/NAME writes DIR/NAME.PID at exit) into an exit report:
 *
 *   ==4242==ERROR: LeakSanitizer: detected memory leaks
 *   Direct leak of 4096 byte(s) in 1 object(s) allocated from:
 *       #0 0x7f.. in malloc (...libasan.so.8+0xd9a57)
 *       #1 0x55.. in main /src/leaky.c:12
 *   Indirect leak of 300 byte(s) in 2 object(s) allocated from:
 *       ...
 *   SUMMARY: AddressSanitizer: 4396 byte(s) leaked in 3 allocation(s).
 *
 * Pure (exit_report.h).  The summary's totals are the report's; the
 * listed leaks may add up to less (LeakSanitizer's max_leaks), never to
 * more.  Without a summary the report is incomplete and its totals are
 * the listed leaks'.  Used by collectors/exit_leaks_linux.c and import/.
 */
#include "exit_report_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

/* "Direct leak of B byte(s) in N object(s) allocated from:" (or
 * Indirect): 1 and the stack's numbers, 0 not such a line, -1 a line that
 * starts like one and is wrong. */
static int leak_line(const struct mw_xr_line *l, struct mw_exit_stack *s, struct mw_err *err)
{
	const char *p = l->p;
	size_t n = l->n, i;
	bool indirect;

	i = mw_xr_blanks(p, n);
	if (mw_xr_starts(p + i, n - i, "Direct leak of "))
		indirect = false, i += strlen("Direct leak of ");
	else if (mw_xr_starts(p + i, n - i, "Indirect leak of "))
		indirect = true, i += strlen("Indirect leak of ");
	else
		return 0;
	memset(s, 0, sizeof(*s));
	s->indirect = indirect;
	if (!mw_xr_number(p, n, &i, 10, &s->bytes) || !mw_xr_starts(p + i, n - i, " byte(s) in "))
		return mw_error(err, "line %llu: a leak line without 'N byte(s) in'",
				(unsigned long long)l->no);
	i += strlen(" byte(s) in ");
	if (!mw_xr_number(p, n, &i, 10, &s->count) || !mw_xr_starts(p + i, n - i, " object(s)"))
		return mw_error(err, "line %llu: a leak line without 'in N object(s)'",
				(unsigned long long)l->no);
	if (s->count == 0 || s->bytes < s->count)
		return mw_error(err, "line %llu: %llu byte(s) in %llu object(s) cannot be",
				(unsigned long long)l->no, (unsigned long long)s->bytes,
				(unsigned long long)s->count);
	return 1;
}

/* "SUMMARY: AddressSanitizer: B byte(s) leaked in N allocation(s)." (or
 * LeakSanitizer): 1 and the totals, 0 another line, -1 a bad summary. */
static int summary_line(const struct mw_xr_line *l, uint64_t *bytes, uint64_t *count,
			struct mw_err *err)
{
	const char *p = l->p, *at;
	size_t n = l->n, i;

	if (!mw_xr_starts(p, n, "SUMMARY: ") || !mw_xr_find(p, n, " leaked in "))
		return 0;
	at = mw_xr_find(p, n, "Sanitizer: ");
	if (!at)
		return 0;
	i = (size_t)(at - p) + strlen("Sanitizer: ");
	if (!mw_xr_number(p, n, &i, 10, bytes) || !mw_xr_starts(p + i, n - i, " byte(s) leaked in "))
		return mw_error(err, "line %llu: a summary without 'N byte(s) leaked'",
				(unsigned long long)l->no);
	i += strlen(" byte(s) leaked in ");
	if (!mw_xr_number(p, n, &i, 10, count) || !mw_xr_starts(p + i, n - i, " allocation(s)"))
		return mw_error(err, "line %llu: a summary without 'in N allocation(s)'",
				(unsigned long long)l->no);
	return 1;
}

/* "==4242==ERROR: ..." : the pid, and whether it is a leak report. */
static void header_line(const struct mw_xr_line *l, struct mw_exit_report *out, bool *other_error,
			uint64_t *other_line)
{
	size_t i = 2;
	uint64_t pid;

	if (!mw_xr_starts(l->p, l->n, "==") || !mw_xr_number(l->p, l->n, &i, 10, &pid) ||
	    !mw_xr_starts(l->p + i, l->n - i, "==ERROR: "))
		return;
	if (pid > 0 && pid <= INT64_MAX)
		out->pid = (int64_t)pid;
	if (!mw_xr_find(l->p, l->n, "detected memory leaks") && !*other_error) {
		*other_error = true;
		*other_line = l->no;
	}
}

int mw_lsan_parse(const char *text, size_t n, struct mw_exit_report *out, struct mw_err *err)
{
	struct mw_xr_line l = { NULL, 0, 0 };
	struct mw_exit_stack cur;
	bool in_stack = false, summary = false, other_error = false, any_leak = false;
	uint64_t sum_bytes = 0, sum_count = 0, sbytes = 0, scount = 0, other_line = 0;
	size_t pos = 0;
	int k;

	mw_xr_start(out, &cur, MW_EXIT_LSAN);
	while (mw_xr_next_line(text, n, &pos, &l)) {
		size_t b = mw_xr_blanks(l.p, l.n);

		if (in_stack && b && b < l.n && l.p[b] == '#') {
			mw_xr_add_frame(&cur, l.p + b, l.n - b);
			continue;
		}
		if (in_stack) {	/* a blank or any other line ends the frames */
			mw_xr_keep_stack(out, &cur);
			memset(&cur, 0, sizeof(cur));
			in_stack = false;
		}
		if (summary)
			continue;	/* what follows the summary is not the report */
		header_line(&l, out, &other_error, &other_line);
		k = leak_line(&l, &cur, err);
		if (k < 0)
			goto fail;
		if (k) {
			in_stack = true;
			any_leak = true;
			sum_bytes = mw_xr_add(sum_bytes, cur.bytes);
			sum_count = mw_xr_add(sum_count, cur.count);
			continue;
		}
		k = summary_line(&l, &sbytes, &scount, err);
		if (k < 0)
			goto fail;
		if (k) {
			if (sum_bytes > sbytes || sum_count > scount) {
				mw_error(err, "line %llu: the summary says %llu byte(s) in %llu "
					 "allocation(s) but the leaks above add up to %llu in %llu",
					 (unsigned long long)l.no, (unsigned long long)sbytes,
					 (unsigned long long)scount, (unsigned long long)sum_bytes,
					 (unsigned long long)sum_count);
				goto fail;
			}
			summary = true;
		}
	}
	if (in_stack)
		mw_xr_keep_stack(out, &cur);
	if (!any_leak && !summary) {
		if (other_error)
			mw_error(err, "line %llu: an AddressSanitizer error report, not a leak "
				 "report (the program stopped before its leak check)",
				 (unsigned long long)other_line);
		else
			mw_error(err, "no LeakSanitizer report in %llu line(s) (no 'Direct leak of' "
				 "nor 'SUMMARY: ... leaked in')", (unsigned long long)l.no);
		goto fail;
	}
	out->complete = summary;
	out->bytes = summary ? sbytes : sum_bytes;
	out->leaks = summary ? scount : sum_count;
	mw_xr_sort_stacks(out);
	return 0;
fail:
	return mw_xr_fail(out, &cur);
}
