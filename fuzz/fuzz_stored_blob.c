/*
 * fuzz_stored_blob.c - libFuzzer target for the two decoders of what the
 * database stores as blobs: a chunk of points (storage/codec.c) and a
 * packed hour of minute rows (storage/minute_pack.c).  A damaged or
 * hostile file hands them any bytes, and each must answer "corrupt" (-1)
 * rather than read past the blob or loop.
 *
 * The input is decoded as a chunk (every point, at most the count its
 * header claims), taken up as an encoder's open chunk as a restart does
 * (mw_chunk_enc_resume) and appended to, and decoded as a minute pack; a
 * pack that decodes must encode again to a blob that decodes to the same
 * rows.  Built by scripts/fuzz.sh.
 */
#include "fuzz/fuzz_input.h"

#include "storage/codec.h"
#include "storage/minute_pack.h"

static void decode_chunk(const uint8_t *buf, size_t size)
{
	struct mw_chunk_dec d;
	int64_t ts, claimed = mw_chunk_npoints(buf, size), seen = 0;
	double v;
	int r;

	if (mw_chunk_dec_init(&d, buf, size) != 0)
		return;
	while ((r = mw_chunk_dec_next(&d, &ts, &v)) == 1)
		seen++;
	/* the header's count bounds the points (no endless stream) */
	if (claimed < 0 || seen > claimed)
		abort();
}

static void resume_chunk(const uint8_t *buf, size_t size)
{
	struct mw_chunk_enc e;
	const uint8_t *blob;
	size_t len;

	mw_chunk_enc_init(&e);
	if (mw_chunk_enc_resume(&e, buf, size) == 0) {
		/* wrapping: a stored chunk may end at any timestamp */
		mw_chunk_enc_append(&e, (int64_t)((uint64_t)mw_chunk_enc_last_ts(&e) + 1000), 4096.0);
		mw_chunk_enc_append(&e, (int64_t)((uint64_t)mw_chunk_enc_last_ts(&e) + 2000), 0.5);
		blob = mw_chunk_enc_blob(&e, &len);
		decode_chunk(blob, len);
	}
	mw_chunk_enc_release(&e);
}

static void decode_pack(const uint8_t *buf, size_t size)
{
	static struct mw_mp_row rows[MW_MP_MINUTES], again[MW_MP_MINUTES];
	static uint8_t out[MW_MP_MAX_BYTES];
	int n = mw_mp_decode(buf, size, rows), m;
	size_t len;

	if (n < 0)
		return;
	if (n > MW_MP_MINUTES)
		abort();
	len = mw_mp_encode(rows, (size_t)n, out);
	if (len == 0)
		return;
	m = mw_mp_decode(out, len, again);
	if (m != n)
		abort();
	for (int i = 0; i < n; i++)	/* field by field: padding is no data */
		if (rows[i].minute != again[i].minute || rows[i].count != again[i].count ||
		    memcmp(rows[i].v, again[i].v, sizeof(rows[i].v)) != 0)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* A private copy of exactly `size` bytes, so ASan sees any overread. */
	uint8_t *buf = malloc(size ? size : 1);

	memcpy(buf, data, size);
	decode_chunk(buf, size);
	resume_chunk(buf, size);
	decode_pack(buf, size);
	free(buf);
	return 0;
}
