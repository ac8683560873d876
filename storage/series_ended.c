/*
 * series_ended.c - series whose process ended leave the writer's memory
 * at the next flush.
 *
 * Why: a series is otherwise held until it has had no point for
 * [storage] series_idle (10 min), the right rule when nothing says whether
 * more points will come.  The process collector does know: a process gone
 * from the table gets no more points under its pid and start time.  On a
 * build agent starting 20 processes a second that live a few seconds, the
 * idle rule held ten minutes of them (tens of thousands of series, about
 * half a gigabyte); with this, only the live ones.
 *
 * The collector ends a process's tail ids in its batch (batch.h
 * mw_batch_end_tails); mw_store_add_batch notes the ranges here; the
 * flush's pass over every series (store.c write_all) marks the series
 * whose tail id falls in one, and a marked series that has a database row
 * leaves with that flush exactly as an idle one does (its open chunk
 * written first).  Ranges are kept until a flush commits, so a failed
 * flush loses none.  Used by store.c only.
 */
#include <stdlib.h>
#include <string.h>

#include "store_impl.h"
#include "base/xalloc.h"

void mw_store_note_ended(struct mw_store *s, const struct mw_detail *d)
{
	struct mw_series_ended e;

	if (d->len != sizeof(e))
		return;
	memcpy(&e, d->data, sizeof(e));
	if (!e.first_tail_id || !e.n)
		return;
	MW_GROW(s->ended, s->ended_cap, s->nended + 1);
	s->ended[s->nended++] = e;
	s->ended_sorted = false;
}

static int by_first(const void *a, const void *b)
{
	uint64_t x = ((const struct mw_series_ended *)a)->first_tail_id;
	uint64_t y = ((const struct mw_series_ended *)b)->first_tail_id;

	return x < y ? -1 : x > y;
}

bool mw_store_tail_ended(struct mw_store *s, uint64_t tail_id)
{
	size_t lo = 0, hi = s->nended;

	if (!tail_id || !s->nended)
		return false;
	if (!s->ended_sorted) {
		qsort(s->ended, s->nended, sizeof(*s->ended), by_first);
		s->ended_sorted = true;
	}
	/* the last range starting at or before tail_id */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->ended[mid].first_tail_id <= tail_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && tail_id - s->ended[lo - 1].first_tail_id < s->ended[lo - 1].n;
}

void mw_store_ended_committed(struct mw_store *s)
{
	s->nended = 0;
	if (s->ended_cap > 1024) {	/* a burst of exits leaves no big array behind */
		free(s->ended);
		s->ended = NULL;
		s->ended_cap = 0;
	}
}
