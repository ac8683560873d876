/*
 * codec.h - Gorilla-style compression of one chunk of (ts_ms, value) points.
 *
 * Pure code: no SQLite, no I/O, no globals; any thread.
 *
 * A chunk blob is a header and an MSB-first bit stream:
 *
 *   byte 0      format: 0x13 integer values, 0x14 float values (compact,
 *               written since schema 7); 0x11, 0x12 (read only)
 *   count       number of points: LEB128 varint (1-5 bytes); for 0x11
 *               and 0x12 4 bytes little-endian
 *   bits        point 0: 0x13/0x14: the timestamp zigzagged, as its 7-bit
 *               bit length and that many bits (49 bits today, not 64);
 *               an integer value likewise, a float value as 64 bits.
 *               0x11/0x12: ts as 64 bits, value as 64 bits (int64 two's
 *               complement or IEEE-754 bits)
 *               point i > 0: timestamp code, then value code
 *
 * Why compact: a process that lives seconds leaves a 2-point chunk, and
 * the fixed header and 128-bit first point were most of it (24 bytes ->
 * about 15).
 *
 * Timestamps: delta-of-delta, computed with wrapping 64-bit arithmetic so
 * equal, decreasing (clock stepped back) and extreme timestamps all round
 * trip; zz = zigzag(dod), the first delta's "previous delta" is 0:
 *   0                      zz == 0  (the regular 1 Hz case: 1 bit)
 *   10    + 4 bits         zz < 2^4 (a few ms of jitter)
 *   110   + 8 bits
 *   1110  + 14 bits
 *   11110 + 32 bits
 *   11111 + 64 bits
 *
 * Integer values (every value of the chunk is integral, fits int64 and is
 * not -0.0: byte counts, handle counts ...): d = v - previous (wrapping),
 *   0                      d == 0           (flat)
 *   10                     d == previous d  (steady growth: a leak)
 *   11 + 6-bit shift s + m d == m << s, m odd, zigzag(m) as
 *        0 + 5 bits | 10 + 12 bits | 110 + 24 bits | 111 + 64 bits
 *   (page-sized steps cost 13-20 bits.)
 *
 * Float values: Gorilla XOR coding of the IEEE-754 bits, so NaN payloads,
 * -0.0 and infinities round-trip bit for bit:
 *   0                      same bits as the previous value
 *   10 + meaningful bits   within the previous leading/trailing window
 *   11 + 6-bit leading zeros + 6-bit (length - 1) + length bits
 *
 * An encoder starts in integer mode and, at the first value that is not
 * integral, re-encodes the points it holds as floats (bounded by the chunk
 * size, and rare: a series is either a count or not).
 */
#ifndef MW_CODEC_H
#define MW_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MW_CHUNK_HEADER 5
#define MW_CHUNK_FMT_INT 0x11
#define MW_CHUNK_FMT_FLOAT 0x12
#define MW_CHUNK_FMT_INT_C 0x13
#define MW_CHUNK_FMT_FLOAT_C 0x14

/* Kept small: the writer holds one per live series (store_impl.h), 5,000
 * and more on a busy host.  The last point is t_prev and v_prev
 * (mw_chunk_enc_last_ts, _last_value), not kept twice. */
struct mw_chunk_enc {
	uint8_t *buf;		/* header + bits; the header is filled by _blob() */
	uint32_t cap;		/* bytes allocated */
	uint32_t nbits;		/* bits written after the header (a chunk of
				 * chunk_points points is far below 2^32) */
	uint32_t n;		/* points */
	/* Trimmed (mw_chunk_enc_trim): the bit stream's first `base` bytes
	 * are not held, only stored, in a blob whose header took base_head
	 * bytes; buf holds the bytes from `base` on.  0: all held. */
	uint32_t base;
	bool is_float;
	int8_t lead, trail;	/* float window; lead < 0: none yet */
	uint8_t base_head;
	/* codec state */
	int64_t t_prev;		/* the last point's timestamp */
	uint64_t t_delta;
	uint64_t v_prev;	/* the last value: int64 or double bits */
	uint64_t v_delta;
	/* summary of the points */
	int64_t t_first, t_min, t_max;
};

/* The last point appended (or resumed): its timestamp and value. */
static inline int64_t mw_chunk_enc_last_ts(const struct mw_chunk_enc *e)
{
	return e->t_prev;
}

static inline double mw_chunk_enc_last_value(const struct mw_chunk_enc *e)
{
	double v;

	if (!e->is_float)
		return (double)(int64_t)e->v_prev;	/* integral: exact */
	memcpy(&v, &e->v_prev, sizeof(v));
	return v;
}

/* Offset in e->buf where the next bits go (for prefetching). */
size_t mw_chunk_enc_tail(const struct mw_chunk_enc *e);

/* Empty encoder; allocates nothing until the first point. */
void mw_chunk_enc_init(struct mw_chunk_enc *e);
void mw_chunk_enc_release(struct mw_chunk_enc *e);
/* Forget the points, keep the memory. */
void mw_chunk_enc_reset(struct mw_chunk_enc *e);
/* Append a point (any timestamp order).  Never fails. */
void mw_chunk_enc_append(struct mw_chunk_enc *e, int64_t ts, double value);
/* The blob of the points so far: header patched in, valid until the next
 * append/reset/release.  An empty encoder yields a 2-byte header-only blob. */
const uint8_t *mw_chunk_enc_blob(struct mw_chunk_enc *e, size_t *len);
/* The same blob handed over, at the start of its block (the caller frees
 * it); the encoder is left empty, as after _init: its memory goes with the
 * blob instead of staying at the chunk's full size for the next one.  A
 * trimmed encoder hands over a copy of its piece (below) in a block of
 * its size and keeps its own block, empty, for the next chunk. */
uint8_t *mw_chunk_enc_take(struct mw_chunk_enc *e, size_t *len);

/*
 * Trimming: the writer keeps ~5,000 open chunks, each growing to a few
 * hundred bytes before it closes, though their rows hold every byte once
 * a flush wrote them whole (issue 26).  After such a write,
 * mw_chunk_enc_trim() lets the encoder forget the bytes before the one the
 * next bit goes in (its block is kept, to hold the next ones: it grows
 * only to what the points between two whole writes need); its next whole
 * write is then a piece: the header for
 * the points now and the bytes held, which the writer puts around the
 * stored bytes (in SQL: head || substr(data, base_head + 1, base) ||
 * held).  _blob() and re-encoding as floats need the whole stream: a
 * trimmed encoder aborts there (a programming error); the writer closes
 * the chunk instead of switching it (mw_chunk_enc_switches).
 */
/* Call only when the stored blob is exactly _blob() / _piece() of now. */
void mw_chunk_enc_trim(struct mw_chunk_enc *e);
static inline bool mw_chunk_enc_trimmed(const struct mw_chunk_enc *e)
{
	return e->base > 0;
}
/* The header for the points so far and the bytes held after it: the
 * whole blob when not trimmed.  *head: the header's length.  Valid until
 * the next append/reset/release. */
const uint8_t *mw_chunk_enc_piece(struct mw_chunk_enc *e, size_t *len, size_t *head);
/* Would appending v re-encode the points so far (an integer chunk, v not
 * integral)? */
bool mw_chunk_enc_switches(const struct mw_chunk_enc *e, double v);
/* The header's length for n points (format byte and varint count). */
size_t mw_chunk_head_len(uint32_t n);
/* The encoder of a stored compact blob (0x13/0x14) with at least one
 * point, as if its points had been appended one by one: the blob's bits
 * are copied and the state taken from decoding them, not re-encoded (a
 * restart takes up every live series' open chunk: storage/series.c).  -1
 * (e empty) for an invalid, damaged, empty or old-format blob: append its
 * points instead. */
int mw_chunk_enc_resume(struct mw_chunk_enc *e, const void *blob, size_t len);

struct mw_chunk_dec {
	const uint8_t *bits;
	size_t nbits, pos;
	uint32_t n, i;
	bool is_float;
	bool compact;		/* 0x13/0x14: first point as put_wide */
	int64_t t;
	uint64_t t_delta;
	uint64_t v;
	uint64_t v_delta;
	int lead, trail;
};

/* Start decoding a blob (not copied: it must outlive the decoder).  -1
 * when the header is invalid. */
int mw_chunk_dec_init(struct mw_chunk_dec *d, const void *blob, size_t len);
/* 1: next point in *ts, *value; 0: end; -1: the bit stream is corrupt. */
int mw_chunk_dec_next(struct mw_chunk_dec *d, int64_t *ts, double *value);

/* Number of points in a blob from its header, or -1 if invalid. */
int64_t mw_chunk_npoints(const void *blob, size_t len);

#endif
