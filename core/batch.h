/*
 * batch.h - the samples one scheduler tick produces.
 *
 * A collector appends samples (metric, labels, value, timestamp) and,
 * optionally, detail records (opaque bytes kept beside a sample, such as a
 * working-set region list) to a batch.  The batch copies every string and
 * buffer into its own arena, so callers may pass temporaries.  Each sample
 * carries its canonical series key, the Prometheus exposition form
 * `metric{a="x",b="y"}` with labels sorted by name and values escaped; the
 * storage and web sides use it as the series identity.
 *
 * Ownership: the scheduler creates a batch per tick and hands it to the
 * storage writer, which frees it.  Only one thread touches a batch at once.
 */
#ifndef MW_CORE_BATCH_H
#define MW_CORE_BATCH_H

#include <stddef.h>
#include <stdint.h>

struct mw_label {
	const char *name;
	const char *value;
};

/* Free the name and value strings of n labels that own them (the array
 * itself stays the caller's). */
void mw_labels_release(struct mw_label *labels, size_t n);

struct mw_sample {
	const char *metric;
	/* canonical metric{labels}, see above; NULL for a sample added by
	 * mw_batch_add_keyed, whose key is metric + key_tail: read it with
	 * mw_sample_key */
	const char *series_key;
	const char *key_tail;	/* keyed: the part after the metric name */
	struct mw_label *labels;	/* sorted by name, nlabels entries */
	uint32_t nlabels, key_tail_len;
	double value;
	int64_t ts_ms;		/* wall clock, ms since the Unix epoch */
	/* mw_batch_add_keyed: the key tail's id (0: none).  The same id and
	 * the same metric pointer always mean the same series key, so the
	 * writer can match a sample to last tick's series without comparing
	 * the key text. */
	uint64_t tail_id;
};

/* A sample's canonical series key: its series_key, or (keyed) metric and
 * key tail written into buf.  Where buf (size bytes) is too small the key
 * goes into a new allocation, returned in *heap too for the caller to free
 * (*heap is NULL otherwise). */
const char *mw_sample_key(const struct mw_sample *s, char *buf, size_t size, char **heap);

/* Detail records: e.g. kind "workingset.regions", key = series key of the
 * process they describe. */
struct mw_detail {
	const char *kind;
	const char *series_key;
	struct mw_label *labels;
	size_t nlabels;
	int64_t ts_ms;
	const void *data;
	size_t len;
};

struct mw_arena_block;

/* The key tails a batch copied lately, by tail id: a process's ~17
 * samples share four tails, each copied once per batch, not per sample. */
#define MW_BATCH_TAIL_CACHE 4

struct mw_batch {
	struct mw_sample *samples;
	size_t nsamples, samples_cap;
	struct mw_detail *details;
	size_t ndetails, details_cap;
	struct mw_arena_block *arena;
	struct {
		uint64_t id;
		const char *copy;
	} tails[MW_BATCH_TAIL_CACHE];
	unsigned tails_next;
	/* Per-collector accounting while a collector fills the batch. */
	const char *collector;	/* name of the collector appending now */
};

/* Maximum labels per sample; more is a programming error (BUG). */
#define MW_MAX_LABELS 16

void mw_batch_init(struct mw_batch *b);
/* Free everything the batch holds; the struct itself is the caller's. */
void mw_batch_release(struct mw_batch *b);
/* Forget the samples but keep the memory for reuse. */
void mw_batch_reset(struct mw_batch *b);
/* Heap-allocated batch and its destructor.  Freed batches are kept in a
 * small pool (their memory too) for the next mw_batch_new(): both are
 * thread-safe. */
struct mw_batch *mw_batch_new(void);
void mw_batch_free(struct mw_batch *b);
/* Free the pooled batches (at exit, so leak checkers see none). */
void mw_batch_pool_drain(void);

/* Append one sample.  Labels may be given in any order; NULL values are
 * skipped.  Never fails (allocation failure aborts). */
void mw_batch_add(struct mw_batch *b, const char *metric,
		  const struct mw_label *labels, size_t nlabels,
		  double value, int64_t ts_ms);

/*
 * The pre-keyed path, for a collector that emits the same series tick
 * after tick (the process collector: ~14 per process):
 *
 *   mw_batch_alloc     room in the batch's arena (lives as long as the
 *                      batch): for a label array built once per process
 *                      and shared by its samples
 *   mw_batch_add_keyed append a sample without copying, sorting or
 *                      formatting: labels must already be sorted by name,
 *                      without NULL values, and live as long as the batch
 *                      (the arena, or static storage); metric must be
 *                      static (a literal); key_tail is the part of the
 *                      canonical key after the metric name - `{...}` as
 *                      mw_series_key_format writes it for these labels,
 *                      or "" - which the caller formats once and keeps;
 *                      it is copied into the arena once per batch and
 *                      tail id (the series key itself is put together
 *                      only where it is needed: mw_sample_key).
 *                      tail_id names that tail text for as long as the
 *                      process runs: take it from mw_batch_tail_ids()
 *                      when formatting the tail, never reuse it for
 *                      other text (0: no id).
 */
void *mw_batch_alloc(struct mw_batch *b, size_t n);
void mw_batch_add_keyed(struct mw_batch *b, const char *metric,
			struct mw_label *labels, size_t nlabels,
			const char *key_tail, size_t key_tail_len, uint64_t tail_id,
			double value, int64_t ts_ms);
/* n fresh tail ids (never 0, never handed out before); thread-safe.
 * Returns the first of n consecutive ones. */
uint64_t mw_batch_tail_ids(unsigned n);

/* Append a detail record; `data` is copied. */
void mw_batch_add_detail(struct mw_batch *b, const char *kind,
			 const char *metric, const struct mw_label *labels,
			 size_t nlabels, int64_t ts_ms,
			 const void *data, size_t len);

/*
 * The series of tail ids [first, first + n) get no more points: the
 * process they describe ended.  Recorded as a detail of kind
 * MW_SERIES_ENDED_DETAIL holding a struct mw_series_ended; the writer lets
 * those series leave memory at its next flush instead of holding them for
 * [storage] series_idle (a build agent starts tens of processes a second).
 * A series that gets a point after all is found again in the database.
 */
#define MW_SERIES_ENDED_DETAIL "series.ended"
struct mw_series_ended {
	uint64_t first_tail_id;
	uint32_t n;
};
void mw_batch_end_tails(struct mw_batch *b, uint64_t first_tail_id, uint32_t n);

/* Copy a string into the batch arena (lives as long as the batch). */
const char *mw_batch_strdup(struct mw_batch *b, const char *s);

/* Write the canonical series key for metric+labels into buf (NUL
 * terminated, truncated to size); labels must already be sorted.
 * Returns the length it needed, like snprintf. */
size_t mw_series_key_format(char *buf, size_t size, const char *metric,
			    const struct mw_label *labels, size_t nlabels);

#endif
