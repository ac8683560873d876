/*
 * storage.h - the SQLite time-series store: the only module that writes
 * the database.  (Implementation: the .c files in storage/.)
 *
 * Threads: mw_writer_* run the writer thread that owns the write
 * connection.  The sampler calls mw_writer_submit(), which never blocks
 * on the disk (bounded queue; a full queue drops the batch and counts its
 * points).  Readers (web) open their own connections with mw_reader_open()
 * (query.h).  The thread wraps a struct mw_store (store.h), which tests
 * use directly.  Layout and design: storage/SCHEMA.md.
 */
#ifndef MW_STORAGE_H
#define MW_STORAGE_H

#include <stdbool.h>
#include <stdint.h>
#include "core/batch.h"
#include "core/config.h"
#include "base/mwerr.h"

struct mw_writer;

/* Open (creating or migrating) cfg->db_path and start the writer thread. */
int mw_writer_start(struct mw_writer **out, const struct mw_config *cfg, struct mw_err *err);
struct mw_status_table;
/* Publish the writer's health into status after each round (run.c). */
void mw_writer_set_status(struct mw_writer *w, struct mw_status_table *status);
/* Hand a batch over; the writer owns and frees it.  Never blocks on I/O. */
void mw_writer_submit(struct mw_writer *w, struct mw_batch *batch);
/* Write everything submitted so far and wait until it is committed (or
 * the attempt failed).  For tests and orderly shutdown; any thread. */
void mw_writer_flush_sync(struct mw_writer *w);

/* The same, waiting at most timeout_ms: 0 when everything submitted
 * before the call is committed, -1 when the flush failed or did not end
 * in time (it still happens).  Any thread (the web's export). */
int mw_writer_flush_wait(struct mw_writer *w, int64_t timeout_ms);

struct mw_store_stats;
/* The store's counters as of the writer's last round (see store.h). */
void mw_writer_get_stats(struct mw_writer *w, struct mw_store_stats *out);

/* Write everything in flight, stop the thread, close the database. */
void mw_writer_stop(struct mw_writer *w);

#endif
