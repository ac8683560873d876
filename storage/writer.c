/*
 * writer.c - the writer thread (storage.h): a bounded queue of batches in
 * front of a struct mw_store.
 *
 * The sampler's mw_writer_submit() takes a mutex for a pointer push and
 * never touches the disk; when the queue is full the batch is dropped and
 * its points counted.  The thread drains the queue into the store (memory
 * only), and every flush_interval flushes, adds its self metrics and runs
 * one retention step.  During the first flush interval data is flushed as
 * soon as it arrives, so a freshly started daemon shows its first
 * collector tick at once, not a flush interval later, whatever was
 * submitted before it.  After every round the writer's health goes to the
 * status table (/healthz, /metrics).  pthreads: glibc natively,
 * winpthreads on MinGW.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage.h"
#include "store.h"
#include "base/clock.h"
#include "base/cond.h"
#include "base/log.h"
#include "core/status.h"
#include "base/xalloc.h"
#include "base/thread_name.h"

struct mw_writer {
	struct mw_store *store;
	int64_t flush_interval_ms;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;	/* to the thread: work or stop */
	pthread_cond_t done;	/* from the thread: a flush completed */
	struct mw_batch **queue;	/* ring */
	size_t cap, head, count;
	uint64_t dropped;	/* points dropped by submit, not yet counted */
	uint64_t dropped_details;	/* region snapshots likewise */
	uint64_t flush_requests, flushes_done;
	bool flush_ok;		/* the flush that served flushes_done committed */
	bool stopping;
	struct mw_store_stats stats;	/* the store's, as of the last round */
	struct mw_status_table *status;	/* NULL: publish nowhere */
	/* Until then (monotonic ms) data is flushed as soon as it arrives:
	 * the first flush interval after start, so the first collector tick
	 * is readable at once whatever batch (leak gauges, self metrics)
	 * came first. */
	int64_t eager_until_ms;
	/* The thread's own: */
	bool failing;
	const char *check_failed;	/* the store's, while its file is damaged */
	int64_t last_ok_flush_ms;
	char last_error[256];
};

static void flush_now(struct mw_writer *w)
{
	struct mw_err err;
	int64_t now = mw_clock_wall_ms();

	w->check_failed = mw_store_poll_check(w->store, now);
	mw_store_add_self_metrics(w->store, now);
	if (mw_store_flush(w->store, &err) == 0) {
		w->failing = false;
		w->last_ok_flush_ms = now;
		if (mw_store_maintain(w->store, now, &err))
			mw_log_debug("storage: retention: %s", err.msg);
	} else {
		w->failing = true;
		snprintf(w->last_error, sizeof(w->last_error), "%s", err.msg);
	}
}

static void publish(struct mw_writer *w, const struct mw_store_stats *st)
{
	struct mw_storage_health h;
	struct mw_status_table *status;

	pthread_mutex_lock(&w->lock);
	status = w->status;
	pthread_mutex_unlock(&w->lock);
	if (!status)
		return;
	memset(&h, 0, sizeof(h));
	h.failing = w->failing;
	h.points_total = st->points_total;
	h.dropped_points_total = st->dropped_points_total;
	h.pending_points = st->pending_points;
	h.flushes = st->flushes;
	h.failed_flushes = st->failed_flushes;
	h.last_ok_flush_ms = w->last_ok_flush_ms;
	h.size_cut = st->size_cut;
	if (w->failing)
		snprintf(h.last_error, sizeof(h.last_error), "%s", w->last_error);
	else if (w->check_failed) {
		/* the file is damaged: what it holds is at risk, writes go on */
		h.failing = true;
		snprintf(h.last_error, sizeof(h.last_error), "%s", w->check_failed);
	}
	mw_status_set_storage(status, &h);
}

/* Points the sampler dropped since the thread last took the queue. */
static uint64_t dropped_pending(struct mw_writer *w)
{
	uint64_t n;

	pthread_mutex_lock(&w->lock);
	n = w->dropped;
	pthread_mutex_unlock(&w->lock);
	return n;
}

static void *writer_main(void *arg)
{
	struct mw_writer *w = arg;
	int64_t next = mw_clock_mono_ns() / 1000000 + w->flush_interval_ms;
	struct mw_batch **take = mw_xcalloc(w->cap, sizeof(*take));

	mw_thread_set_name("mw-writer");
	w->eager_until_ms = next;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		size_t n = 0, i;
		uint64_t dropped, dropped_details, req;
		struct mw_store_stats st;
		bool stop;
		int64_t now = mw_clock_mono_ns() / 1000000, taken_ms;

		if (!w->count && !w->stopping && w->flush_requests == w->flushes_done &&
		    now < next) {
			/* monotonic (base/cond.h): a wall clock stepped back
			 * does not hold the flush for the length of the step */
			mw_cond_wait_until(&w->wake, &w->lock, mw_cond_deadline(next - now));
			continue;
		}
		while (w->count) {
			take[n++] = w->queue[w->head];
			w->head = (w->head + 1) % w->cap;
			w->count--;
		}
		dropped = w->dropped;
		w->dropped = 0;
		dropped_details = w->dropped_details;
		w->dropped_details = 0;
		req = w->flush_requests;
		stop = w->stopping;
		/* every batch submitted before now is taken */
		taken_ms = mw_clock_wall_ms();
		pthread_mutex_unlock(&w->lock);

		for (i = 0; i < n; i++) {
			mw_store_add_batch(w->store, take[i]);
			mw_batch_free(take[i]);
		}
		mw_store_count_dropped(w->store, dropped);
		mw_store_count_dropped_regions(w->store, dropped_details);
		now = mw_clock_mono_ns() / 1000000;
		mw_store_mark_complete(w->store, taken_ms);
		if (stop || now >= next || req != w->flushes_done || (n && now < w->eager_until_ms)) {
			flush_now(w);
			next = now + w->flush_interval_ms;
		}

		mw_store_get_stats(w->store, &st);
		st.dropped_points_total += dropped_pending(w);
		publish(w, &st);
		pthread_mutex_lock(&w->lock);
		w->stats = st;
		if (req != w->flushes_done) {
			w->flushes_done = req;
			w->flush_ok = !w->failing;
			pthread_cond_broadcast(&w->done);
		}
		if (stop && !w->count)
			break;
	}
	pthread_mutex_unlock(&w->lock);
	free(take);
	return NULL;
}

/* Free the writer and its store (its thread has ended or never ran). */
static void writer_destroy(struct mw_writer *w)
{
	mw_store_free(w->store);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->wake);
	pthread_cond_destroy(&w->done);
	free(w->queue);
	free(w);
}

int mw_writer_start(struct mw_writer **out, const struct mw_config *cfg, struct mw_err *err)
{
	struct mw_store_options opt;
	struct mw_writer *w = mw_xcalloc(1, sizeof(*w));

	*out = NULL;
	mw_store_options_from_config(&opt, cfg);
	if (mw_store_open(&w->store, &opt, err)) {
		free(w);
		return -1;
	}
	w->flush_interval_ms = cfg->flush_interval_ms > 0 ? cfg->flush_interval_ms : 5000;
	w->cap = cfg->queue_batches > 0 ? (size_t)cfg->queue_batches : 64;
	w->queue = mw_xcalloc(w->cap, sizeof(*w->queue));
	pthread_mutex_init(&w->lock, NULL);
	mw_cond_init(&w->wake);
	mw_cond_init(&w->done);
	if (pthread_create(&w->thread, NULL, writer_main, w)) {
		mw_error(err, "cannot start the writer thread");
		writer_destroy(w);
		return -1;
	}
	*out = w;
	return 0;
}

void mw_writer_set_status(struct mw_writer *w, struct mw_status_table *status)
{
	pthread_mutex_lock(&w->lock);
	w->status = status;
	pthread_mutex_unlock(&w->lock);
}

void mw_writer_submit(struct mw_writer *w, struct mw_batch *batch)
{
	if (!batch)
		return;
	pthread_mutex_lock(&w->lock);
	if (w->count == w->cap || w->stopping) {
		w->dropped += batch->nsamples;
		w->dropped_details += batch->ndetails;
		pthread_mutex_unlock(&w->lock);
		mw_batch_free(batch);
		return;
	}
	w->queue[(w->head + w->count) % w->cap] = batch;
	w->count++;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
}

void mw_writer_flush_sync(struct mw_writer *w)
{
	uint64_t ticket;

	pthread_mutex_lock(&w->lock);
	ticket = ++w->flush_requests;
	pthread_cond_signal(&w->wake);
	while (w->flushes_done < ticket)
		pthread_cond_wait(&w->done, &w->lock);
	pthread_mutex_unlock(&w->lock);
}

int mw_writer_flush_wait(struct mw_writer *w, int64_t timeout_ms)
{
	int64_t until = mw_cond_deadline(timeout_ms);
	uint64_t ticket;
	int rc = 0;

	pthread_mutex_lock(&w->lock);
	ticket = ++w->flush_requests;
	pthread_cond_signal(&w->wake);
	while (w->flushes_done < ticket && rc != ETIMEDOUT)
		rc = mw_cond_wait_until(&w->done, &w->lock, until);
	rc = w->flushes_done >= ticket && w->flush_ok ? 0 : -1;
	pthread_mutex_unlock(&w->lock);
	return rc;
}

void mw_writer_get_stats(struct mw_writer *w, struct mw_store_stats *out)
{
	pthread_mutex_lock(&w->lock);
	*out = w->stats;
	out->dropped_points_total += w->dropped;
	pthread_mutex_unlock(&w->lock);
}

void mw_writer_stop(struct mw_writer *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stopping = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	writer_destroy(w);
}
