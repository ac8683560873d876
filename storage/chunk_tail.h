/*
 * chunk_tail.h - the appended new bits of open chunks (the chunk_tail
 * table, SCHEMA.md "Chunk tails"): the writer's record of one flush, and
 * the readers' map that lays them over the chunk blobs.
 *
 * Why: rewriting every open chunk whole at every flush put every chunk's
 * pages into the WAL each time, two thirds of a flush (README, "The
 * flush's share").  A flush now appends ONE row holding each changed open
 * chunk's new bytes; the chunks are rewritten whole every
 * MW_TAIL_FOLD_EVERY flushes (and when they close, leave memory, or the
 * store stops), which deletes the rows.
 *
 * One record per chunk, in a row's blob one after another:
 *   varint zigzag(chunk id - previous record's id)
 *   varint from     byte offset in the chunk's bit stream (after the
 *                   header) where the bytes go
 *   varint nbytes
 *   varint npoints  the chunk's point count with these bytes
 *   varint zigzag(last_ts - previous record's last_ts)
 *   value           varint zigzag(v) << 1 when integral, else 1 and
 *                   8 bytes of IEEE-754 bits, little-endian
 *   nbytes bytes
 * A record applies to a chunk blob only while its npoints is above the
 * blob's count: a chunk rewritten whole since (its count at least as
 * large) already holds those bits, and its own bit stream may differ
 * (an integer chunk re-encoded as floats).  Records of one chunk apply in
 * row order, later bytes over earlier.
 *
 * Pure code but for mw_tail_map_load (SQLite).  Used by store.c (writer,
 * start-up fold) and reader.c and the read side (query_impl.h).
 */
#ifndef MW_CHUNK_TAIL_H
#define MW_CHUNK_TAIL_H

#include <stddef.h>
#include <stdint.h>
#include <sqlite3.h>

#include "base/mwerr.h"

/* Flushes between whole rewrites of the open chunks: 12 = 1 minute at the
 * default 5 s flush interval. */
#define MW_TAIL_FOLD_EVERY 12

#define MW_TAIL_TABLE_SQL \
	"CREATE TABLE IF NOT EXISTS chunk_tail (id INTEGER PRIMARY KEY, data BLOB NOT NULL)"

/* ---- writer: one flush's row ---- */
struct mw_tail_row {
	uint8_t *buf;
	size_t len, cap;
	int64_t prev_id, prev_ts;
};

void mw_tail_row_put(struct mw_tail_row *w, int64_t chunk_id, size_t from,
		     const uint8_t *bytes, size_t nbytes, uint32_t npoints,
		     int64_t last_ts, double last_value);
void mw_tail_row_clear(struct mw_tail_row *w);
void mw_tail_row_release(struct mw_tail_row *w);

/* ---- readers: the rows of a snapshot by chunk ---- */
struct mw_tail_map;

/* Load every chunk_tail row of db's current snapshot; *out NULL when
 * there is none (or no such table: a file no writer of this version
 * opened).  -1 with a message on a read error. */
int mw_tail_map_load(sqlite3 *db, struct mw_tail_map **out, struct mw_err *err);
void mw_tail_map_free(struct mw_tail_map *m);
/* The bytes m holds (0 for NULL): a minute's tails of 5,000 series are
 * megabytes. */
size_t mw_tail_map_bytes(const struct mw_tail_map *m);

/* Scratch memory of one merged blob (reused; free buf when done). */
struct mw_tail_scratch {
	uint8_t *buf;
	size_t cap;
};

/* The blob of chunk id with its tail records laid over: blob itself when
 * none applies (m may be NULL), else a blob in sc.  *len in and out. */
const uint8_t *mw_tail_merge(const struct mw_tail_map *m, int64_t id, const uint8_t *blob,
			     size_t *len, struct mw_tail_scratch *sc);

/* The newest point of chunk id if its tails are newer than a row with
 * npoints points: 1 with *ts, *value, *n (the point count); else 0. */
int mw_tail_newest(const struct mw_tail_map *m, int64_t id, int64_t npoints, int64_t *ts,
		   double *value, int64_t *n);

/* ---- readers of the newest points only ---- */
struct mw_tail_newest;

/* The newest record of every chunk in db's chunk_tail (its point count,
 * time and value), without the bytes: *out NULL when there is none.  -1
 * with a message on a read error. */
int mw_tail_newest_load(sqlite3 *db, struct mw_tail_newest **out, struct mw_err *err);
void mw_tail_newest_free(struct mw_tail_newest *m);
size_t mw_tail_newest_bytes(const struct mw_tail_newest *m);
/* As mw_tail_newest, from such a map (m may be NULL). */
int mw_tail_newest_get(const struct mw_tail_newest *m, int64_t id, int64_t npoints, int64_t *ts,
		       double *value, int64_t *n);

/* Every chunk id with records, for folding at start-up (in load order);
 * *n of them. */
const int64_t *mw_tail_map_ids(const struct mw_tail_map *m, size_t *n);

#endif
