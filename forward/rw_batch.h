/*
 * rw_batch.h - one remote-write request being assembled: up to a fixed
 * number of samples, grouped by series, each series with its labels
 * (__name__, its own, the destination's extra ones, sorted by name) and
 * the cursor position it reaches once the request is accepted.
 *
 * Memory is bounded by the capacity in samples whatever the backlog: the
 * forwarder fills one batch, sends it, and reuses it.  Pure (no I/O);
 * tests/test_forward.c builds batches from constructed points.
 *
 * Owned by the forwarder (forward/).
 */
#ifndef MW_FORWARD_RW_BATCH_H
#define MW_FORWARD_RW_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/batch.h"
#include "forward/cursor.h"
#include "forward/rw_wire.h"

struct mw_rw_batch {
	size_t cap;			/* samples */
	struct mw_rw_sample *samples;	/* cap entries */
	size_t nsamples;
	struct mw_rw_series *series;	/* valid after mw_rw_batch_finish */
	struct mw_rw_cursor_pos *pos;	/* per series: its id and newest ts */
	size_t *first_sample, *first_label;	/* per series, offsets */
	size_t nseries, series_cap;
	struct mw_rw_label *labels;
	size_t nlabels, labels_cap;
	bool open;			/* a series begun and not ended */
	int64_t oldest_ts;		/* INT64_MAX when empty */
};

void mw_rw_batch_init(struct mw_rw_batch *b, size_t cap);
void mw_rw_batch_release(struct mw_rw_batch *b);
/* Empty it (keeps the memory). */
void mw_rw_batch_reset(struct mw_rw_batch *b);
size_t mw_rw_batch_room(const struct mw_rw_batch *b);

/* Start a series.  labels: the series' own (any order), extra: the
 * destination's (a name the series has too is dropped).  Strings are
 * borrowed: they must outlive the request.  false (nothing begun) when a
 * name or value is not UTF-8 or a name is empty: receivers refuse it. */
bool mw_rw_batch_begin(struct mw_rw_batch *b, int64_t series_id, const char *name,
		       const struct mw_label *labels, size_t nlabels,
		       const struct mw_label *extra, size_t nextra);
/* Add a point to the open series; false (not added) when full. */
bool mw_rw_batch_add(struct mw_rw_batch *b, int64_t ts_ms, double value);
/* Close the series (one without samples is removed again). */
void mw_rw_batch_end(struct mw_rw_batch *b);

/* Point series[] at the samples and labels; call before encoding. */
void mw_rw_batch_finish(struct mw_rw_batch *b);

#endif
