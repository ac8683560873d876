/*
 * codec.c - the chunk bit codec described in codec.h.
 *
 * All arithmetic on timestamps and integer values is done in uint64_t so
 * that wrap-around is defined: a delta of INT64_MAX - INT64_MIN wraps,
 * and the decoder's wrapping sum undoes it exactly.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "base/mwerr.h"
#include "base/xalloc.h"

static uint64_t zigzag(uint64_t v)
{
	return (v << 1) ^ (uint64_t)-(int64_t)(v >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ (uint64_t)-(int64_t)(z & 1);
}

static int ctz64(uint64_t v)
{
	int n = 0;

	while (!(v & 1)) {
		v >>= 1;
		n++;
	}
	return n;
}

static int clz64(uint64_t v)
{
	int n = 0;

	while (!(v & (UINT64_C(1) << 63))) {
		v <<= 1;
		n++;
	}
	return n;
}

static uint64_t dbits(double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	return u;
}

static double bitsd(uint64_t u)
{
	double v;

	memcpy(&v, &u, sizeof(v));
	return v;
}

/* ---- bit writer ---------------------------------------------------------- */

/* Bytes kept in front of the bits for the header (format + count). */
#define RESERVE 6

size_t mw_chunk_enc_tail(const struct mw_chunk_enc *e)
{
	return RESERVE + (e->nbits >> 3) - e->base;
}

/*
 * Room for need bytes, zeroed (put ORs bits in).  About 1.5 times the
 * last size, each size filling its heap block (glibc's are 16-byte
 * steps with an 8-byte header): a writer holds ~5,000 open chunks of a
 * few hundred bytes each, and doubling left a quarter to a third of them
 * unused (issue 26).  A chunk is bounded by chunk_points, far below the
 * 32-bit sizes.
 */
static size_t grown_cap(size_t old, size_t need)
{
	size_t cap = old ? old + old / 2 : 56;

	if (cap < need)
		cap = need;
	return (cap + 8 + 15) / 16 * 16 - 8;
}

static void grow(struct mw_chunk_enc *e, size_t need)
{
	size_t old = e->cap, cap = grown_cap(old, need);

	if (cap > UINT32_MAX)
		abort();	/* a programming error: chunk_points bounds a chunk */
	e->buf = mw_xrealloc(e->buf, cap);
	memset(e->buf + old, 0, cap - old);
	e->cap = (uint32_t)cap;
}

static void put(struct mw_chunk_enc *e, uint64_t v, unsigned n)
{
	size_t need = RESERVE + (e->nbits + n + 7) / 8 - e->base;

	if (need > e->cap)
		grow(e, need);
	if (n < 64)
		v &= (UINT64_C(1) << n) - 1;
	while (n) {
		uint8_t *byte = e->buf + RESERVE + (e->nbits >> 3) - e->base;
		unsigned room = 8 - (unsigned)(e->nbits & 7);
		unsigned take = n < room ? n : room;
		unsigned bits = (unsigned)(v >> (n - take)) & ((1u << take) - 1);

		*byte |= (uint8_t)(bits << (room - take));
		e->nbits += take;
		n -= take;
	}
}

/* ---- encoder ------------------------------------------------------------- */

void mw_chunk_enc_init(struct mw_chunk_enc *e)
{
	memset(e, 0, sizeof(*e));
	e->lead = -1;
}

void mw_chunk_enc_release(struct mw_chunk_enc *e)
{
	free(e->buf);
	mw_chunk_enc_init(e);
}

void mw_chunk_enc_reset(struct mw_chunk_enc *e)
{
	uint8_t *buf = e->buf;
	uint32_t cap = e->cap;

	if (buf)
		memset(buf, 0, cap);
	mw_chunk_enc_init(e);
	e->buf = buf;
	e->cap = cap;
}

static bool integral(double v)
{
	if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
		return false;	/* NaN, infinities, out of range */
	if (v == 0 && signbit(v))
		return false;	/* -0.0 must keep its sign */
	return (double)(int64_t)v == v;
}

/*
 * The widths of the prefix-coded buckets of a timestamp's delta of delta
 * and of an integer's delta, shared by the writer and the reader: a value
 * goes in the first bucket it fits, written as k ones and a zero then
 * width[k] bits; the last bucket (64 bits) is k ones with no zero.
 */
static const unsigned ts_width[] = { 0, 4, 8, 14, 32, 64 };
static const unsigned int_width[] = { 5, 12, 24, 64 };

static void put_bucketed(struct mw_chunk_enc *e, uint64_t zz, const unsigned *width, size_t n)
{
	unsigned k;

	for (k = 0; k + 1 < n; k++) {
		if (zz < (UINT64_C(1) << width[k])) {
			put(e, (((UINT64_C(1) << (k + 1)) - 2) << width[k]) | zz, k + 1 + width[k]);
			return;
		}
	}
	put(e, (UINT64_C(1) << k) - 1, k);
	put(e, zz, 64);
}

static void put_ts(struct mw_chunk_enc *e, int64_t ts)
{
	uint64_t delta = (uint64_t)ts - (uint64_t)e->t_prev;
	uint64_t zz = zigzag(delta - e->t_delta);

	put_bucketed(e, zz, ts_width, MW_ARRAY_SIZE(ts_width));
	e->t_delta = delta;
	e->t_prev = ts;
}

static void put_int(struct mw_chunk_enc *e, uint64_t v)
{
	uint64_t d = v - e->v_prev;

	if (d == 0) {
		put(e, 0, 1);
	} else if (d == e->v_delta) {
		put(e, 0x2, 2);
	} else {
		int s = ctz64(d);
		uint64_t zz = zigzag((uint64_t)((int64_t)d >> s));

		put(e, 0x3, 2);
		put(e, (uint64_t)s, 6);
		put_bucketed(e, zz, int_width, MW_ARRAY_SIZE(int_width));
	}
	e->v_delta = d;
	e->v_prev = v;
}

static void put_float(struct mw_chunk_enc *e, uint64_t v)
{
	uint64_t x = v ^ e->v_prev;
	int lead, trail;

	if (x == 0) {
		put(e, 0, 1);
		return;
	}
	lead = clz64(x);
	trail = ctz64(x);
	if (e->lead >= 0 && lead >= e->lead && trail >= e->trail) {
		put(e, 0x2, 2);
		put(e, x >> e->trail, (unsigned)(64 - e->lead - e->trail));
	} else {
		int len = 64 - lead - trail;

		put(e, 0x3, 2);
		put(e, (uint64_t)lead, 6);
		put(e, (uint64_t)(len - 1), 6);
		put(e, x >> trail, (unsigned)len);
		e->lead = (int8_t)lead;
		e->trail = (int8_t)trail;
	}
	e->v_prev = v;
}

/* A number as its 7-bit bit length and that many bits (the first point
 * of a compact chunk: 49 bits for a timestamp, not 64). */
static void put_wide(struct mw_chunk_enc *e, uint64_t v)
{
	unsigned w = v ? 64 - (unsigned)clz64(v) : 0;

	put(e, w, 7);
	put(e, v, w);
}

static void append(struct mw_chunk_enc *e, int64_t ts, double value)
{
	uint64_t v = e->is_float ? dbits(value) : (uint64_t)(int64_t)value;

	if (e->n == 0) {
		put_wide(e, zigzag((uint64_t)ts));
		if (e->is_float)
			put(e, v, 64);
		else
			put_wide(e, zigzag(v));
		e->t_prev = ts;
		e->v_prev = v;
		e->t_first = e->t_min = e->t_max = ts;
	} else {
		put_ts(e, ts);
		if (e->is_float)
			put_float(e, v);
		else
			put_int(e, v);
		if (ts < e->t_min)
			e->t_min = ts;
		if (ts > e->t_max)
			e->t_max = ts;
	}
	e->n++;
}

/* Re-encode every point so far as floats. */
static void switch_to_float(struct mw_chunk_enc *e)
{
	struct mw_chunk_dec d;
	int64_t *ts = mw_xmalloc(sizeof(*ts) * (e->n ? e->n : 1));
	double *vs = mw_xmalloc(sizeof(*vs) * (e->n ? e->n : 1));
	uint32_t i, n = 0;
	size_t len;
	const uint8_t *blob;

	if (e->base)
		abort();	/* trimmed: the writer closes the chunk instead */
	blob = mw_chunk_enc_blob(e, &len);
	if (mw_chunk_dec_init(&d, blob, len) == 0)
		while (n < e->n && mw_chunk_dec_next(&d, &ts[n], &vs[n]) == 1)
			n++;
	mw_chunk_enc_reset(e);
	e->is_float = true;
	for (i = 0; i < n; i++)
		append(e, ts[i], vs[i]);
	free(ts);
	free(vs);
}

bool mw_chunk_enc_switches(const struct mw_chunk_enc *e, double v)
{
	return !e->is_float && e->n && !integral(v);
}

void mw_chunk_enc_append(struct mw_chunk_enc *e, int64_t ts, double value)
{
	if (!e->is_float && !integral(value)) {
		if (e->n)
			switch_to_float(e);
		else
			e->is_float = true;
	}
	append(e, ts, value);
}

size_t mw_chunk_head_len(uint32_t n)
{
	size_t h = 2;

	while (n > 0x7f) {
		n >>= 7;
		h++;
	}
	return h;
}

const uint8_t *mw_chunk_enc_piece(struct mw_chunk_enc *e, size_t *len, size_t *head)
{
	uint8_t bytes[RESERVE];
	size_t h = 1;
	uint32_t n = e->n;

	if (!e->buf)
		put(e, 0, 0);	/* allocate */
	/* format, then the count as a LEB128 varint, just before the bits */
	bytes[0] = e->is_float ? MW_CHUNK_FMT_FLOAT_C : MW_CHUNK_FMT_INT_C;
	do {
		bytes[h++] = (uint8_t)((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
		n >>= 7;
	} while (n);
	memcpy(e->buf + RESERVE - h, bytes, h);
	*head = h;
	*len = h + (e->nbits + 7) / 8 - e->base;
	return e->buf + RESERVE - h;
}

const uint8_t *mw_chunk_enc_blob(struct mw_chunk_enc *e, size_t *len)
{
	size_t h;

	if (e->base)
		abort();	/* trimmed: only a piece (codec.h) */
	return mw_chunk_enc_piece(e, len, &h);
}

/* The bytes before the one the next bit goes in are stored: only that
 * one (when the stream ends inside it) stays, moved to the front of the
 * same block.  The block is kept: it holds what a fold's points need and
 * no more from then on, and it stays where it is (freeing it and taking a
 * small one every minute scattered ~5,000 small holes over the heap,
 * which keep their pages resident). */
void mw_chunk_enc_trim(struct mw_chunk_enc *e)
{
	size_t at, used, need;

	if (!e->n || !e->buf)
		return;
	at = RESERVE + (e->nbits >> 3) - e->base;
	used = RESERVE + (e->nbits + 7) / 8 - e->base;
	e->buf[RESERVE] = e->nbits & 7 ? e->buf[at] : 0;
	if (used > RESERVE + 1)
		memset(e->buf + RESERVE + 1, 0, used - RESERVE - 1);
	e->base_head = (uint8_t)mw_chunk_head_len(e->n);
	e->base = e->nbits >> 3;
	/* a block over twice what the bytes since the last trim needed (a
	 * chunk taken up whole at start-up, a burst) is cut back to that */
	need = grown_cap(0, used + 1);
	if (e->cap > 2 * need) {
		e->buf = mw_xrealloc(e->buf, need);
		e->cap = (uint32_t)need;
	}
}

uint8_t *mw_chunk_enc_take(struct mw_chunk_enc *e, size_t *len)
{
	size_t h;
	const uint8_t *blob = mw_chunk_enc_piece(e, len, &h);
	uint8_t *buf;

	if (e->base) {
		/* a piece (a fold's bytes at most): copied, the block kept */
		buf = mw_xmalloc(*len);
		memcpy(buf, blob, *len);
		mw_chunk_enc_reset(e);
		return buf;
	}
	buf = e->buf;
	memmove(buf, blob, *len);
	mw_chunk_enc_init(e);
	return buf;
}

/* ---- decoder ------------------------------------------------------------- */

static int get(struct mw_chunk_dec *d, unsigned n, uint64_t *out)
{
	uint64_t v = 0;

	if (n > d->nbits - d->pos)
		return -1;
	while (n) {
		unsigned used = (unsigned)(d->pos & 7);
		unsigned room = 8 - used;
		unsigned take = n < room ? n : room;
		unsigned byte = d->bits[d->pos >> 3];

		v = (v << take) | ((byte >> (room - take)) & ((1u << take) - 1));
		d->pos += take;
		n -= take;
	}
	*out = v;
	return 0;
}

/* Count leading 1 bits, up to max (consuming the terminating 0 if any). */
static int prefix(struct mw_chunk_dec *d, int max, int *out)
{
	int n = 0;
	uint64_t b;

	while (n < max) {
		if (get(d, 1, &b))
			return -1;
		if (!b)
			break;
		n++;
	}
	*out = n;
	return 0;
}

/* The header: point count and header length; -1 if invalid. */
static int64_t header(const uint8_t *p, size_t len, size_t *hlen)
{
	uint64_t n = 0;
	size_t i;

	if (len >= MW_CHUNK_HEADER && (p[0] == MW_CHUNK_FMT_INT || p[0] == MW_CHUNK_FMT_FLOAT)) {
		*hlen = MW_CHUNK_HEADER;
		return (int64_t)((uint32_t)p[1] | (uint32_t)p[2] << 8 |
				 (uint32_t)p[3] << 16 | (uint32_t)p[4] << 24);
	}
	if (len < 2 || (p[0] != MW_CHUNK_FMT_INT_C && p[0] != MW_CHUNK_FMT_FLOAT_C))
		return -1;
	for (i = 1; i < len && i <= 5; i++) {
		n |= (uint64_t)(p[i] & 0x7f) << (7 * (i - 1));
		if (!(p[i] & 0x80)) {
			*hlen = i + 1;
			return n <= UINT32_MAX ? (int64_t)n : -1;
		}
	}
	return -1;
}

int64_t mw_chunk_npoints(const void *blob, size_t len)
{
	size_t h;

	return header(blob, len, &h);
}

int mw_chunk_dec_init(struct mw_chunk_dec *d, const void *blob, size_t len)
{
	const uint8_t *p = blob;
	size_t h = 0;
	int64_t n = header(p, len, &h);

	memset(d, 0, sizeof(*d));
	if (n < 0)
		return -1;
	d->bits = p + h;
	d->nbits = (len - h) * 8;
	d->n = (uint32_t)n;
	d->is_float = p[0] == MW_CHUNK_FMT_FLOAT || p[0] == MW_CHUNK_FMT_FLOAT_C;
	d->compact = p[0] == MW_CHUNK_FMT_INT_C || p[0] == MW_CHUNK_FMT_FLOAT_C;
	d->lead = -1;
	return 0;
}

/* A number written by put_wide. */
static int get_wide(struct mw_chunk_dec *d, uint64_t *out)
{
	uint64_t w;

	if (get(d, 7, &w) || w > 64)
		return -1;
	return get(d, (unsigned)w, out);
}

int mw_chunk_dec_next(struct mw_chunk_dec *d, int64_t *ts, double *value)
{
	uint64_t u;
	int k;

	if (d->i >= d->n)
		return 0;
	if (d->i == 0 && d->compact) {
		if (get_wide(d, &u))
			return -1;
		d->t = (int64_t)unzigzag(u);
		if (d->is_float ? get(d, 64, &d->v) : get_wide(d, &u))
			return -1;
		if (!d->is_float)
			d->v = unzigzag(u);
	} else if (d->i == 0) {
		if (get(d, 64, &u) || get(d, 64, &d->v))
			return -1;
		d->t = (int64_t)u;
	} else {
		if (prefix(d, 5, &k))
			return -1;
		u = 0;
		if (k && get(d, ts_width[k], &u))
			return -1;
		d->t_delta += unzigzag(u);
		d->t = (int64_t)((uint64_t)d->t + d->t_delta);
		if (prefix(d, 2, &k))
			return -1;
		if (!d->is_float) {
			if (k == 0) {
				d->v_delta = 0;
			} else if (k == 1) {
				d->v += d->v_delta;
			} else {
				uint64_t s, m;
				int w;

				if (get(d, 6, &s) || prefix(d, 3, &w) ||
				    get(d, int_width[w], &m))
					return -1;
				d->v_delta = unzigzag(m) << s;
				d->v += d->v_delta;
			}
		} else if (k == 1) {
			if (d->lead < 0 ||
			    get(d, (unsigned)(64 - d->lead - d->trail), &u))
				return -1;
			d->v ^= u << d->trail;
		} else if (k == 2) {
			uint64_t lead, len;

			if (get(d, 6, &lead) || get(d, 6, &len))
				return -1;
			len++;
			if (lead + len > 64 || get(d, (unsigned)len, &u))
				return -1;
			d->lead = (int)lead;
			d->trail = (int)(64 - lead - len);
			d->v ^= u << d->trail;
		}
	}
	d->i++;
	*ts = d->t;
	*value = d->is_float ? bitsd(d->v) : (double)(int64_t)d->v;
	return 1;
}

/* ---- resume -------------------------------------------------------------- */

/*
 * Why the state can be taken from the decoder: it keeps what the encoder
 * kept when it wrote those points - the previous timestamp and its delta,
 * the previous value (int64 or double bits) and integer delta, the float
 * window - so appending after a resume writes the same bits as appending
 * to the encoder that wrote the blob.  Only compact blobs: the encoder
 * writes nothing else, so an old-format chunk must be re-encoded whole.
 */
int mw_chunk_enc_resume(struct mw_chunk_enc *e, const void *blob, size_t len)
{
	struct mw_chunk_dec d;
	int64_t ts = 0;
	double v = 0;
	size_t bytes;
	int rc;

	mw_chunk_enc_reset(e);
	if (mw_chunk_dec_init(&d, blob, len) || !d.compact || d.n == 0)
		return -1;
	while ((rc = mw_chunk_dec_next(&d, &ts, &v)) == 1) {
		if (d.i == 1)
			e->t_first = e->t_min = e->t_max = ts;
		else if (ts < e->t_min)
			e->t_min = ts;
		else if (ts > e->t_max)
			e->t_max = ts;
	}
	if (rc < 0) {
		mw_chunk_enc_reset(e);
		return -1;
	}
	bytes = (d.pos + 7) / 8;
	if (RESERVE + bytes + 1 > e->cap)
		grow(e, RESERVE + bytes + 1);
	memcpy(e->buf + RESERVE, d.bits, bytes);
	if (d.pos & 7)	/* put() ORs the next bits into the last byte */
		e->buf[RESERVE + bytes - 1] &= (uint8_t)(0xff << (8 - (d.pos & 7)));
	e->nbits = d.pos;
	e->n = d.n;
	e->is_float = d.is_float;
	e->t_prev = d.t;
	e->t_delta = d.t_delta;
	e->v_prev = d.v;
	e->v_delta = d.v_delta;
	e->lead = (int8_t)d.lead;
	e->trail = (int8_t)d.trail;
	return 0;
}
