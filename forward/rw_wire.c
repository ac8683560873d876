/*
 * rw_wire.c - the remote-write WriteRequest, encoded by hand, see
 * rw_wire.h for the messages.
 *
 * Owned by the forwarder (forward/).  Pure.
 *
 * Why by hand and not with a protobuf library (protobuf-c, nanopb): a
 * library wants the message as its own structures first (one struct per
 * label, sample and series, pointers between them) and then serialises
 * those; we already hold the series in our own arrays.  Writing the four
 * message kinds straight from them is ~100 lines, needs no generated code
 * and no third-party .proto in the repository, and bench/bench_rw_wire.c
 * measures it against a memcpy of the same bytes (the floor for any
 * encoder that has to produce them).
 *
 * Each series is encoded in two passes: the first checks it and adds up
 * its length (a length-delimited field needs its length first), the
 * second writes it.  Wire types used: 0 varint (timestamp), 1 fixed64
 * (the double), 2 length-delimited (messages, strings).  Both fields of
 * a Sample are always written, also when zero: proto3 allows that and
 * -0.0 keeps its sign.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "forward/rw_wire.h"

/* Tags: (field number << 3) | wire type. */
#define TAG_WR_TIMESERIES 0x0a	/* WriteRequest.timeseries = 1, bytes */
#define TAG_TS_LABEL 0x0a	/* TimeSeries.labels = 1, bytes */
#define TAG_TS_SAMPLE 0x12	/* TimeSeries.samples = 2, bytes */
#define TAG_LABEL_NAME 0x0a	/* Label.name = 1, bytes */
#define TAG_LABEL_VALUE 0x12	/* Label.value = 2, bytes */
#define TAG_SAMPLE_VALUE 0x09	/* Sample.value = 1, fixed64 */
#define TAG_SAMPLE_TS 0x10	/* Sample.timestamp = 2, varint */

static inline size_t varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static inline unsigned char *put_varint(unsigned char *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

/* Field with its length in front: tag, varint length. */
static inline size_t delimited_len(size_t n)
{
	return 1 + varint_len(n) + n;
}

static size_t sample_len(const struct mw_rw_sample *s)
{
	return 1 + 8 + 1 + varint_len((uint64_t)s->ts_ms);
}

/* Pass one: check series i and return the length of its TimeSeries
 * message in *len. */
static int series_len(const struct mw_rw_series *s, size_t i, size_t *len, struct mw_err *err)
{
	size_t n = 0, j;

	if (s->nlabels == 0 || !s->labels)
		return mw_error(err, "remote write: series %zu has no labels", i);
	if (s->nsamples && !s->samples)
		return mw_error(err, "remote write: series %zu has %zu samples but no array", i,
				s->nsamples);
	for (j = 0; j < s->nlabels; j++) {
		const struct mw_rw_label *l = &s->labels[j];
		size_t nl, vl;

		if (!l->name || !l->name[0])
			return mw_error(err, "remote write: series %zu label %zu has an empty name",
					i, j);
		if (!l->value)
			return mw_error(err, "remote write: series %zu label \"%.64s\" has no value",
					i, l->name);
		if (j && strcmp(s->labels[j - 1].name, l->name) >= 0)
			return mw_error(err, "remote write: series %zu labels are not sorted by name "
					"or repeat one: \"%.64s\" after \"%.64s\"", i, l->name,
					s->labels[j - 1].name);
		nl = strlen(l->name);
		vl = strlen(l->value);
		/* proto3 strings must be UTF-8; receivers may refuse the
		 * whole batch otherwise, so say which label first */
		if (mw_utf8_valid_prefix(l->name, nl) != nl ||
		    mw_utf8_valid_prefix(l->value, vl) != vl)
			return mw_error(err, "remote write: series %zu label \"%.64s\" is not valid "
					"UTF-8", i, l->name);
		n += delimited_len(delimited_len(nl) + delimited_len(vl));
	}
	for (j = 0; j < s->nsamples; j++)
		n += delimited_len(sample_len(&s->samples[j]));
	*len = n;
	return 0;
}

static unsigned char *put_string(unsigned char *p, unsigned tag, const char *s)
{
	size_t n = strlen(s);

	*p++ = (unsigned char)tag;
	p = put_varint(p, n);
	memcpy(p, s, n);
	return p + n;
}

/* Pass two: write the series (its checks passed). */
static unsigned char *put_series(unsigned char *p, const struct mw_rw_series *s, size_t len)
{
	size_t j;

	*p++ = TAG_WR_TIMESERIES;
	p = put_varint(p, len);
	for (j = 0; j < s->nlabels; j++) {
		const struct mw_rw_label *l = &s->labels[j];
		size_t nl = strlen(l->name), vl = strlen(l->value);

		*p++ = TAG_TS_LABEL;
		p = put_varint(p, delimited_len(nl) + delimited_len(vl));
		p = put_string(p, TAG_LABEL_NAME, l->name);
		p = put_string(p, TAG_LABEL_VALUE, l->value);
	}
	for (j = 0; j < s->nsamples; j++) {
		const struct mw_rw_sample *sm = &s->samples[j];
		unsigned char *start = p;
		uint64_t bits;

		/* Sample: the length byte (at most 20: one byte) is filled in
		 * once the varint's length is known. */
		p += 2;
		*p++ = TAG_SAMPLE_VALUE;
		memcpy(&bits, &sm->value, sizeof(bits));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		memcpy(p, &bits, 8);	/* fixed64 is little-endian */
		p += 8;
#else
		for (int k = 0; k < 8; k++)
			*p++ = (unsigned char)(bits >> (8 * k));
#endif
		*p++ = TAG_SAMPLE_TS;
		/* int64: negative numbers as their two's complement, 10 bytes */
		p = put_varint(p, (uint64_t)sm->ts_ms);
		start[0] = TAG_TS_SAMPLE;
		start[1] = (unsigned char)(p - start - 2);
	}
	return p;
}

int mw_rw_encode_protobuf(const struct mw_rw_series *series, size_t n, struct mw_rw_buf *pb,
			  struct mw_err *err)
{
	size_t i;

	pb->len = 0;
	if (n && !series)
		return mw_error(err, "remote write: %zu series but no array", n);
	if (mw_rw_buf_reserve(pb, 1, err) < 0)
		return -1;
	for (i = 0; i < n; i++) {
		size_t len = 0, need;

		if (series_len(&series[i], i, &len, err) < 0) {
			pb->len = 0;
			return -1;
		}
		need = 1 + varint_len(len) + len;
		if (mw_rw_buf_reserve(pb, pb->len + need, err) < 0) {
			pb->len = 0;
			return -1;
		}
		put_series(pb->data + pb->len, &series[i], len);
		pb->len += need;
	}
	return 0;
}

int mw_rw_encode(const struct mw_rw_series *series, size_t n, struct mw_rw_buf *pb,
		 struct mw_rw_buf *out, struct mw_err *err)
{
	out->len = 0;
	if (mw_rw_encode_protobuf(series, n, pb, err) < 0)
		return -1;
	if (pb->len > UINT32_MAX)
		return mw_error(err, "remote write: the batch encodes to %zu bytes, over the "
				"snappy block limit of 4 GiB; send fewer samples per batch",
				pb->len);
	return mw_rw_snappy_compress(pb->data, pb->len, out, err);
}
