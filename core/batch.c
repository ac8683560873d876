/*
 * batch.c - see batch.h.
 *
 * Strings and label arrays live in an arena of growing blocks, so adding a
 * sample costs no malloc in the steady state: mw_batch_reset() keeps the
 * first block for the next tick.
 *
 * Heap batches are recycled: mw_batch_free() (the writer, done with a
 * tick's batch) keeps a few in a pool with their sample array and largest
 * arena block, and mw_batch_new() (the scheduler, the next tick) takes
 * them back.  A tick of 1,000 processes fills about 2 MB; fresh memory for
 * each tick cost the kernel a page fault per 4 KB (7 % of the daemon's
 * CPU).  Batches holding more than POOL_MAX_BYTES are freed instead.
 *
 * One batch is kept, not four: the writer hands a tick's batch back
 * within milliseconds, long before the next tick, so a second one exists
 * only while the writer is held up (start-up, a long flush) or the judge
 * sends its gauges; kept, each such batch stayed resident for good (300
 * processes: two batches of ~0.8 MB after 14 minutes, issue 26).
 */
#include "batch.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

struct mw_arena_block {
	struct mw_arena_block *next;
	size_t used, size;
	max_align_t data[];
};

#define ARENA_MIN_BLOCK (64 * 1024)
#define POOL_SIZE 1
#define POOL_MAX_BYTES (32u << 20)

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mw_batch *pool[POOL_SIZE];
static size_t npool;

static void *arena_alloc(struct mw_batch *b, size_t n)
{
	struct mw_arena_block *blk = b->arena;
	size_t align = sizeof(max_align_t);
	void *p;

	n = (n + align - 1) / align * align;
	if (!blk || blk->size - blk->used < n) {
		size_t size = n > ARENA_MIN_BLOCK ? n : ARENA_MIN_BLOCK;
		/* Double the block size with each new block so big batches
		 * need few blocks. */
		if (blk && blk->size * 2 > size)
			size = blk->size * 2;
		blk = mw_xmalloc(sizeof(*blk) + size);
		blk->next = b->arena;
		blk->used = 0;
		blk->size = size;
		b->arena = blk;
	}
	p = (char *)blk->data + blk->used;
	blk->used += n;
	return p;
}

const char *mw_batch_strdup(struct mw_batch *b, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = arena_alloc(b, n);

	memcpy(p, s, n);
	return p;
}

void mw_batch_init(struct mw_batch *b)
{
	memset(b, 0, sizeof(*b));
}

void mw_batch_release(struct mw_batch *b)
{
	struct mw_arena_block *blk = b->arena, *next;

	for (; blk; blk = next) {
		next = blk->next;
		free(blk);
	}
	free(b->samples);
	free(b->details);
	mw_batch_init(b);
}

void mw_batch_reset(struct mw_batch *b)
{
	struct mw_arena_block *blk = b->arena, *next;

	/* Keep the newest (largest) block, free the rest. */
	if (blk) {
		for (next = blk->next; next;) {
			struct mw_arena_block *n2 = next->next;
			free(next);
			next = n2;
		}
		blk->next = NULL;
		blk->used = 0;
	}
	b->nsamples = 0;
	b->ndetails = 0;
	memset(b->tails, 0, sizeof(b->tails));
	b->tails_next = 0;
}

struct mw_batch *mw_batch_new(void)
{
	struct mw_batch *b = NULL;

	pthread_mutex_lock(&pool_lock);
	if (npool)
		b = pool[--npool];
	pthread_mutex_unlock(&pool_lock);
	if (b)
		return b;	/* reset when it went into the pool */
	b = mw_xmalloc(sizeof(*b));
	mw_batch_init(b);
	return b;
}

/* Bytes b keeps across a reset. */
static size_t kept_bytes(const struct mw_batch *b)
{
	return (b->arena ? b->arena->size : 0) + b->samples_cap * sizeof(*b->samples) +
	       b->details_cap * sizeof(*b->details);
}

void mw_batch_free(struct mw_batch *b)
{
	if (!b)
		return;
	mw_batch_reset(b);
	b->collector = NULL;
	if (kept_bytes(b) <= POOL_MAX_BYTES) {
		pthread_mutex_lock(&pool_lock);
		if (npool < POOL_SIZE) {
			pool[npool++] = b;
			b = NULL;
		}
		pthread_mutex_unlock(&pool_lock);
	}
	if (!b)
		return;
	mw_batch_release(b);
	free(b);
}

void mw_batch_pool_drain(void)
{
	pthread_mutex_lock(&pool_lock);
	while (npool) {
		struct mw_batch *b = pool[--npool];

		mw_batch_release(b);
		free(b);
	}
	pthread_mutex_unlock(&pool_lock);
}

/* Append s to buf at *pos with Prometheus label-value escaping. */
static void put_escaped(char *buf, size_t size, size_t *pos, const char *s)
{
	for (; *s; s++) {
		const char *rep = NULL;
		char one[2] = { *s, 0 };

		if (*s == '\\')
			rep = "\\\\";
		else if (*s == '"')
			rep = "\\\"";
		else if (*s == '\n')
			rep = "\\n";
		else
			rep = one;
		for (; *rep; rep++, (*pos)++)
			if (*pos + 1 < size)
				buf[*pos] = *rep;
	}
}

static void put_raw(char *buf, size_t size, size_t *pos, const char *s)
{
	for (; *s; s++, (*pos)++)
		if (*pos + 1 < size)
			buf[*pos] = *s;
}

size_t mw_series_key_format(char *buf, size_t size, const char *metric,
			    const struct mw_label *labels, size_t nlabels)
{
	size_t pos = 0, i;

	put_raw(buf, size, &pos, metric);
	if (nlabels) {
		put_raw(buf, size, &pos, "{");
		for (i = 0; i < nlabels; i++) {
			if (i)
				put_raw(buf, size, &pos, ",");
			put_raw(buf, size, &pos, labels[i].name);
			put_raw(buf, size, &pos, "=\"");
			put_escaped(buf, size, &pos, labels[i].value);
			put_raw(buf, size, &pos, "\"");
		}
		put_raw(buf, size, &pos, "}");
	}
	if (size)
		buf[pos < size ? pos : size - 1] = '\0';
	return pos;
}

/* Copy labels (skipping NULL values) into the arena, sorted by name.
 * Insertion sort: label lists are short. */
static struct mw_label *copy_labels(struct mw_batch *b, const struct mw_label *in,
				    size_t n, size_t *out_n)
{
	struct mw_label *out;
	size_t i, k = 0;

	if (n > MW_MAX_LABELS)
		abort();	/* a collector bug, not an input error */
	out = arena_alloc(b, (n ? n : 1) * sizeof(*out));
	for (i = 0; i < n; i++) {
		size_t j;

		if (!in[i].value || !in[i].name)
			continue;
		j = k++;
		while (j > 0 && strcmp(out[j - 1].name, in[i].name) > 0) {
			out[j] = out[j - 1];
			j--;
		}
		out[j].name = mw_batch_strdup(b, in[i].name);
		out[j].value = mw_batch_strdup(b, in[i].value);
	}
	*out_n = k;
	return out;
}

static const char *make_key(struct mw_batch *b, const char *metric,
			    const struct mw_label *labels, size_t n)
{
	char small[512];
	size_t need = mw_series_key_format(small, sizeof(small), metric, labels, n);
	char *key = arena_alloc(b, need + 1);

	if (need < sizeof(small))
		memcpy(key, small, need + 1);
	else
		mw_series_key_format(key, need + 1, metric, labels, n);
	return key;
}

void mw_batch_add(struct mw_batch *b, const char *metric,
		  const struct mw_label *labels, size_t nlabels,
		  double value, int64_t ts_ms)
{
	struct mw_sample *s;
	size_t n;

	MW_GROW(b->samples, b->samples_cap, b->nsamples + 1);
	s = &b->samples[b->nsamples++];
	s->metric = mw_batch_strdup(b, metric);
	s->labels = copy_labels(b, labels, nlabels, &n);
	s->nlabels = (uint32_t)n;	/* at most MW_MAX_LABELS */
	s->series_key = make_key(b, s->metric, s->labels, n);
	s->key_tail = NULL;
	s->key_tail_len = 0;
	s->value = value;
	s->ts_ms = ts_ms;
	s->tail_id = 0;
}

void *mw_batch_alloc(struct mw_batch *b, size_t n)
{
	return arena_alloc(b, n ? n : 1);
}

/* key_tail in the arena: copied once per batch for a tail id (an id
 * names one tail text for good, mw_batch_tail_ids), always for id 0. */
static const char *tail_copy(struct mw_batch *b, const char *tail, size_t len, uint64_t id)
{
	char *copy;
	unsigned i;

	if (id)
		for (i = 0; i < MW_BATCH_TAIL_CACHE; i++)
			if (b->tails[i].id == id)
				return b->tails[i].copy;
	copy = arena_alloc(b, len + 1);
	memcpy(copy, tail, len);
	copy[len] = '\0';
	if (id) {
		b->tails[b->tails_next].id = id;
		b->tails[b->tails_next].copy = copy;
		b->tails_next = (b->tails_next + 1) % MW_BATCH_TAIL_CACHE;
	}
	return copy;
}

void mw_batch_add_keyed(struct mw_batch *b, const char *metric,
			struct mw_label *labels, size_t nlabels,
			const char *key_tail, size_t key_tail_len, uint64_t tail_id,
			double value, int64_t ts_ms)
{
	struct mw_sample *s;

	if (nlabels > MW_MAX_LABELS)
		abort();	/* a collector bug, as in mw_batch_add */
	if (key_tail_len > UINT32_MAX)
		abort();	/* a collector bug: keys are short */
	MW_GROW(b->samples, b->samples_cap, b->nsamples + 1);
	s = &b->samples[b->nsamples++];
	s->metric = metric;
	s->labels = labels;	/* the caller's: in the arena, or static */
	s->nlabels = (uint32_t)nlabels;
	s->series_key = NULL;
	s->key_tail = tail_copy(b, key_tail, key_tail_len, tail_id);
	s->key_tail_len = (uint32_t)key_tail_len;
	s->value = value;
	s->ts_ms = ts_ms;
	s->tail_id = tail_id;
}

const char *mw_sample_key(const struct mw_sample *s, char *buf, size_t size, char **heap)
{
	size_t mlen, need;

	*heap = NULL;
	if (s->series_key)
		return s->series_key;
	mlen = strlen(s->metric);
	need = mlen + s->key_tail_len + 1;
	if (need > size)
		buf = *heap = mw_xmalloc(need);
	memcpy(buf, s->metric, mlen);
	memcpy(buf + mlen, s->key_tail, s->key_tail_len);
	buf[need - 1] = '\0';
	return buf;
}

uint64_t mw_batch_tail_ids(unsigned n)
{
	static uint64_t next = 1;

	return __atomic_fetch_add(&next, (uint64_t)n, __ATOMIC_RELAXED);
}

void mw_batch_add_detail(struct mw_batch *b, const char *kind,
			 const char *metric, const struct mw_label *labels,
			 size_t nlabels, int64_t ts_ms,
			 const void *data, size_t len)
{
	struct mw_detail *d;
	void *copy;

	MW_GROW(b->details, b->details_cap, b->ndetails + 1);
	d = &b->details[b->ndetails++];
	d->kind = mw_batch_strdup(b, kind);
	d->labels = copy_labels(b, labels, nlabels, &d->nlabels);
	d->series_key = make_key(b, metric, d->labels, d->nlabels);
	d->ts_ms = ts_ms;
	copy = arena_alloc(b, len ? len : 1);
	if (len)
		memcpy(copy, data, len);
	d->data = copy;
	d->len = len;
}

void mw_batch_end_tails(struct mw_batch *b, uint64_t first_tail_id, uint32_t n)
{
	struct mw_series_ended e = { first_tail_id, n };

	mw_batch_add_detail(b, MW_SERIES_ENDED_DETAIL, "", NULL, 0, 0, &e, sizeof(e));
}

void mw_labels_release(struct mw_label *labels, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)labels[i].name);
		free((char *)labels[i].value);
	}
}
