/* rw_batch.c - see rw_batch.h. */
#include "rw_batch.h"

#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "base/xalloc.h"

void mw_rw_batch_init(struct mw_rw_batch *b, size_t cap)
{
	memset(b, 0, sizeof(*b));
	b->cap = cap ? cap : 1;
	b->samples = mw_xcalloc(b->cap, sizeof(*b->samples));
	b->oldest_ts = INT64_MAX;
}

void mw_rw_batch_release(struct mw_rw_batch *b)
{
	free(b->samples);
	free(b->series);
	free(b->pos);
	free(b->first_sample);
	free(b->first_label);
	free(b->labels);
	memset(b, 0, sizeof(*b));
}

void mw_rw_batch_reset(struct mw_rw_batch *b)
{
	b->nsamples = b->nseries = b->nlabels = 0;
	b->open = false;
	b->oldest_ts = INT64_MAX;
}

size_t mw_rw_batch_room(const struct mw_rw_batch *b)
{
	return b->cap - b->nsamples;
}

static void push_label(struct mw_rw_batch *b, const char *name, const char *value)
{
	size_t cap = b->labels_cap;

	MW_GROW(b->labels, cap, b->nlabels + 1);
	b->labels_cap = cap;
	b->labels[b->nlabels].name = name;
	b->labels[b->nlabels].value = value ? value : "";
	b->nlabels++;
}

static int cmp_label(const void *x, const void *y)
{
	return strcmp(((const struct mw_rw_label *)x)->name, ((const struct mw_rw_label *)y)->name);
}

bool mw_rw_batch_begin(struct mw_rw_batch *b, int64_t series_id, const char *name,
		       const struct mw_label *labels, size_t nlabels,
		       const struct mw_label *extra, size_t nextra)
{
	size_t i, j, first, cap = b->series_cap;

	if (b->open)
		mw_rw_batch_end(b);
	if (!name || !*name || !mw_utf8_valid(name))
		return false;
	for (i = 0; i < nlabels; i++)
		if (!labels[i].name || !*labels[i].name || !mw_utf8_valid(labels[i].name) ||
		    !labels[i].value || !mw_utf8_valid(labels[i].value))
			return false;
	if (b->nseries + 1 > cap) {
		size_t ncap = cap ? cap * 2 : 16;

		b->series = mw_xrealloc(b->series, ncap * sizeof(*b->series));
		b->pos = mw_xrealloc(b->pos, ncap * sizeof(*b->pos));
		b->first_sample = mw_xrealloc(b->first_sample, ncap * sizeof(*b->first_sample));
		b->first_label = mw_xrealloc(b->first_label, ncap * sizeof(*b->first_label));
		b->series_cap = ncap;
	}
	first = b->nlabels;
	push_label(b, "__name__", name);
	for (i = 0; i < nlabels; i++)
		if (strcmp(labels[i].name, "__name__"))
			push_label(b, labels[i].name, labels[i].value);
	for (j = 0; j < nextra; j++) {
		bool own = !strcmp(extra[j].name, "__name__");

		for (i = 0; i < nlabels && !own; i++)
			own = !strcmp(labels[i].name, extra[j].name);
		if (!own)
			push_label(b, extra[j].name, extra[j].value);
	}
	/* Receivers want the labels sorted by name (byte order; "__name__"
	 * comes after upper-case names). */
	qsort(b->labels + first, b->nlabels - first, sizeof(*b->labels), cmp_label);
	b->first_label[b->nseries] = first;
	b->first_sample[b->nseries] = b->nsamples;
	b->pos[b->nseries].series_id = series_id;
	b->pos[b->nseries].ts = INT64_MIN;
	b->nseries++;
	b->open = true;
	return true;
}

bool mw_rw_batch_add(struct mw_rw_batch *b, int64_t ts_ms, double value)
{
	if (!b->open || b->nsamples >= b->cap)
		return false;
	b->samples[b->nsamples].ts_ms = ts_ms;
	b->samples[b->nsamples].value = value;
	b->nsamples++;
	if (ts_ms > b->pos[b->nseries - 1].ts)
		b->pos[b->nseries - 1].ts = ts_ms;
	if (ts_ms < b->oldest_ts)
		b->oldest_ts = ts_ms;
	return true;
}

void mw_rw_batch_end(struct mw_rw_batch *b)
{
	if (!b->open)
		return;
	b->open = false;
	if (b->first_sample[b->nseries - 1] == b->nsamples) {	/* no sample */
		b->nlabels = b->first_label[b->nseries - 1];
		b->nseries--;
	}
}

void mw_rw_batch_finish(struct mw_rw_batch *b)
{
	size_t i;

	mw_rw_batch_end(b);
	for (i = 0; i < b->nseries; i++) {
		size_t ls = b->first_label[i], ss = b->first_sample[i];
		size_t le = i + 1 < b->nseries ? b->first_label[i + 1] : b->nlabels;
		size_t se = i + 1 < b->nseries ? b->first_sample[i + 1] : b->nsamples;

		b->series[i].labels = b->labels + ls;
		b->series[i].nlabels = le - ls;
		b->series[i].samples = b->samples + ss;
		b->series[i].nsamples = se - ss;
	}
}
