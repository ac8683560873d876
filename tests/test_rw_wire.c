/*
 * test_rw_wire.c - the remote-write body: the WriteRequest protobuf,
 * read back with a small decoder of our own written here (independent of
 * the encoder: generic tag/wire-type walking), and the snappy block
 * format (round trips, malformed blocks, and - natively, when Debian's
 * libsnappy is installed - each side checked against libsnappy's other
 * side).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#ifndef _WIN32
#include <dlfcn.h>
#endif

#include "forward/rw_wire.h"
#include "tests/support/xorshift.h"
#include "tests/support/double_bits.h"

/* --- a protobuf reader for the test -------------------------------------- */

struct rd {
	const unsigned char *p, *end;
};

static int rd_varint(struct rd *r, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 70; shift += 7) {
		if (r->p >= r->end)
			return -1;
		x |= (uint64_t)(*r->p & 0x7f) << shift;
		if (!(*r->p++ & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

/* One field: its number, wire type, and either the varint/fixed64 value
 * or the bytes (for wire type 2). */
struct field {
	unsigned num, type;
	uint64_t u;
	const unsigned char *bytes;
	size_t len;
};

static int rd_field(struct rd *r, struct field *f)
{
	uint64_t key, n;

	if (rd_varint(r, &key) < 0)
		return -1;
	f->num = (unsigned)(key >> 3);
	f->type = (unsigned)(key & 7);
	switch (f->type) {
	case 0:
		return rd_varint(r, &f->u);
	case 1:
		if (r->end - r->p < 8)
			return -1;
		f->u = 0;
		for (int k = 7; k >= 0; k--)
			f->u = (f->u << 8) | r->p[k];
		r->p += 8;
		return 0;
	case 2:
		if (rd_varint(r, &n) < 0 || n > (uint64_t)(r->end - r->p))
			return -1;
		f->bytes = r->p;
		f->len = (size_t)n;
		r->p += n;
		return 0;
	default:
		return -1;
	}
}

static void check_label(const unsigned char *p, size_t len, const struct mw_rw_label *want)
{
	struct rd r = { p, p + len };
	struct field f;
	int seen_name = 0, seen_value = 0;

	while (r.p < r.end) {
		assert_int_equal(rd_field(&r, &f), 0);
		assert_int_equal(f.type, 2);
		if (f.num == 1) {
			assert_int_equal(f.len, strlen(want->name));
			assert_memory_equal(f.bytes, want->name, f.len);
			seen_name++;
		} else if (f.num == 2) {
			assert_int_equal(f.len, strlen(want->value));
			if (f.len)
				assert_memory_equal(f.bytes, want->value, f.len);
			seen_value++;
		} else {
			fail_msg("label field %u", f.num);
		}
	}
	assert_int_equal(seen_name, 1);
	/* proto3 may leave out an empty string; we write it, either is fine */
	assert_true(seen_value == 1 || (seen_value == 0 && !want->value[0]));
}

static void check_sample(const unsigned char *p, size_t len, const struct mw_rw_sample *want)
{
	struct rd r = { p, p + len };
	struct field f;
	uint64_t value = 0, ts = 0;

	while (r.p < r.end) {
		assert_int_equal(rd_field(&r, &f), 0);
		if (f.num == 1) {
			assert_int_equal(f.type, 1);
			value = f.u;
		} else if (f.num == 2) {
			assert_int_equal(f.type, 0);
			ts = f.u;
		} else {
			fail_msg("sample field %u", f.num);
		}
	}
	assert_true(value == mw_test_bits_of(want->value));
	assert_true((int64_t)ts == want->ts_ms);
}

static void check_series(const unsigned char *p, size_t len, const struct mw_rw_series *want)
{
	struct rd r = { p, p + len };
	struct field f;
	size_t nl = 0, ns = 0;

	while (r.p < r.end) {
		assert_int_equal(rd_field(&r, &f), 0);
		assert_int_equal(f.type, 2);
		if (f.num == 1) {
			assert_true(nl < want->nlabels);
			check_label(f.bytes, f.len, &want->labels[nl++]);
		} else if (f.num == 2) {
			assert_true(ns < want->nsamples);
			check_sample(f.bytes, f.len, &want->samples[ns++]);
		} else {
			fail_msg("series field %u", f.num);
		}
	}
	assert_int_equal(nl, want->nlabels);
	assert_int_equal(ns, want->nsamples);
}

/* The whole WriteRequest holds exactly series[0..n), in order. */
static void check_request(const unsigned char *p, size_t len, const struct mw_rw_series *series,
			  size_t n)
{
	struct rd r = { p, p + len };
	struct field f;
	size_t k = 0;

	while (r.p < r.end) {
		assert_int_equal(rd_field(&r, &f), 0);
		assert_int_equal(f.num, 1);
		assert_int_equal(f.type, 2);
		assert_true(k < n);
		check_series(f.bytes, f.len, &series[k++]);
	}
	assert_int_equal(k, n);
}

/* --- constructed series --------------------------------------------------- */

static void encode_empty(void **state)
{
	struct mw_rw_buf pb = { 0 }, out = { 0 }, back = { 0 };
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_rw_encode(NULL, 0, &pb, &out, &err), 0);
	assert_int_equal(pb.len, 0);
	/* a snappy block of nothing: the length 0 alone */
	assert_int_equal(out.len, 1);
	assert_int_equal(out.data[0], 0);
	assert_int_equal(mw_rw_snappy_uncompress(out.data, out.len, &back, &err), 0);
	assert_int_equal(back.len, 0);
	mw_rw_buf_release(&pb);
	mw_rw_buf_release(&out);
	mw_rw_buf_release(&back);
}

static void encode_values_and_labels(void **state)
{
	static char long_value[100000];
	const struct mw_rw_label l1[] = {
		{ "__name__", "memwatch_process_private_bytes" },
		{ "host", "lab-7" },
		{ "pid", "4242" },
		{ "process", "Größe-日本-\xf0\x9f\x90\xa7" },	/* 2-, 3- and 4-byte UTF-8 */
	};
	const struct mw_rw_label l2[] = {
		{ "__name__", "x" },
		{ "empty", "" },
		{ "long", long_value },
	};
	const struct mw_rw_sample s1[] = {
		{ 1700000000000LL, 1.5 },
		{ 1700000005000LL, NAN },
		{ 1700000010000LL, mw_test_from_bits(0x7ff0000000000002ULL) },	/* staleness marker */
		{ 1700000015000LL, INFINITY },
		{ 1700000020000LL, -INFINITY },
		{ 1700000025000LL, -0.0 },
		{ 1700000030000LL, 0.0 },
		{ 1700000035000LL, 4.9e-324 },
		{ 1700000040000LL, 1.7976931348623157e308 },
	};
	const struct mw_rw_sample s2[] = {
		{ 0, 1 },
		{ -1, 2 },			/* int64: 10-byte varint */
		{ INT64_MIN, 3 },
		{ INT64_MAX, 4 },
		{ 127, 5 },
		{ 128, 6 },
	};
	struct mw_rw_series series[3] = {
		{ l1, MW_ARRAY_SIZE(l1), s1, MW_ARRAY_SIZE(s1) },
		{ l2, MW_ARRAY_SIZE(l2), s2, MW_ARRAY_SIZE(s2) },
		{ l1, MW_ARRAY_SIZE(l1), NULL, 0 },	/* no samples: still a series */
	};
	struct mw_rw_buf pb = { 0 }, out = { 0 }, back = { 0 };
	struct mw_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(long_value) - 1; i++)
		long_value[i] = (char)('a' + i % 26);
	assert_int_equal(mw_rw_encode_protobuf(series, 3, &pb, &err), 0);
	check_request(pb.data, pb.len, series, 3);

	/* the compressed body gives back the same protobuf */
	assert_int_equal(mw_rw_encode(series, 3, &pb, &out, &err), 0);
	assert_true(out.len < pb.len);	/* the long value repeats */
	assert_int_equal(mw_rw_snappy_uncompress(out.data, out.len, &back, &err), 0);
	assert_int_equal(back.len, pb.len);
	assert_memory_equal(back.data, pb.data, pb.len);
	check_request(back.data, back.len, series, 3);

	/* the buffers are reused: a second, smaller batch replaces the first */
	assert_int_equal(mw_rw_encode(&series[1], 1, &pb, &out, &err), 0);
	assert_int_equal(mw_rw_snappy_uncompress(out.data, out.len, &back, &err), 0);
	check_request(back.data, back.len, &series[1], 1);
	mw_rw_buf_release(&pb);
	mw_rw_buf_release(&out);
	mw_rw_buf_release(&back);
}

/* Many series of the shape the forwarder sends, through the whole path. */
static void encode_many(void **state)
{
	enum { NSER = 3000, NS = 7 };
	static char pids[NSER][16];
	static struct mw_rw_label labels[NSER][3];
	static struct mw_rw_sample samples[NSER][NS];
	static struct mw_rw_series series[NSER];
	struct mw_rw_buf pb = { 0 }, out = { 0 }, back = { 0 };
	struct mw_err err;

	(void)state;
	for (size_t i = 0; i < NSER; i++) {
		snprintf(pids[i], sizeof(pids[i]), "%zu", 1000 + i);
		labels[i][0] = (struct mw_rw_label){ "__name__", "memwatch_process_working_set_bytes" };
		labels[i][1] = (struct mw_rw_label){ "host", "build-agent-12" };
		labels[i][2] = (struct mw_rw_label){ "pid", pids[i] };
		for (size_t j = 0; j < NS; j++)
			samples[i][j] = (struct mw_rw_sample){ 1700000000000LL + 5000 * (int64_t)j,
							      (double)(i * 4096 + j) };
		series[i] = (struct mw_rw_series){ labels[i], 3, samples[i], NS };
	}
	assert_int_equal(mw_rw_encode(series, NSER, &pb, &out, &err), 0);
	assert_true(pb.len > (1u << 18));	/* several snappy fragments */
	assert_true(out.len < pb.len / 2);
	assert_int_equal(mw_rw_snappy_uncompress(out.data, out.len, &back, &err), 0);
	assert_int_equal(back.len, pb.len);
	assert_memory_equal(back.data, pb.data, pb.len);
	check_request(back.data, back.len, series, NSER);
	mw_rw_buf_release(&pb);
	mw_rw_buf_release(&out);
	mw_rw_buf_release(&back);
}

static void expect_error(const struct mw_rw_series *s, size_t n, const char *part)
{
	struct mw_rw_buf pb = { 0 }, out = { 0 };
	struct mw_err err = { "" };

	assert_int_equal(mw_rw_encode(s, n, &pb, &out, &err), -1);
	if (!strstr(err.msg, part))
		fail_msg("error \"%s\" does not say \"%s\"", err.msg, part);
	assert_int_equal(out.len, 0);
	mw_rw_buf_release(&pb);
	mw_rw_buf_release(&out);
}

static void encode_errors(void **state)
{
	const struct mw_rw_label ok[] = { { "__name__", "a" } };
	const struct mw_rw_label empty_name[] = { { "__name__", "a" }, { "", "b" } };
	const struct mw_rw_label unsorted[] = { { "__name__", "a" }, { "pid", "1" }, { "host", "h" } };
	const struct mw_rw_label twice[] = { { "__name__", "a" }, { "pid", "1" }, { "pid", "2" } };
	const struct mw_rw_label null_value[] = { { "__name__", "a" }, { "pid", NULL } };
	const struct mw_rw_label bad_utf8[] = { { "__name__", "a" }, { "proc", "ab\xff" } };
	const struct mw_rw_label overlong[] = { { "__name__", "a" }, { "proc", "\xc0\xaf" } };
	const struct mw_rw_label surrogate[] = { { "__name__", "a" }, { "proc", "\xed\xa0\x80" } };
	const struct mw_rw_label cut[] = { { "__name__", "a" }, { "proc", "x\xe6\x97" } };
	const struct mw_rw_sample sm[] = { { 1, 1 } };
	struct mw_rw_series s[2] = { { ok, 1, sm, 1 } };

	(void)state;
	s[1] = (struct mw_rw_series){ NULL, 0, sm, 1 };
	expect_error(s, 2, "series 1 has no labels");
	s[1] = (struct mw_rw_series){ empty_name, 2, sm, 1 };
	expect_error(s, 2, "series 1 label 1 has an empty name");
	s[1] = (struct mw_rw_series){ unsorted, 3, sm, 1 };
	expect_error(s, 2, "not sorted");
	s[1] = (struct mw_rw_series){ twice, 3, sm, 1 };
	expect_error(s, 2, "\"pid\" after \"pid\"");
	s[1] = (struct mw_rw_series){ null_value, 2, sm, 1 };
	expect_error(s, 2, "label \"pid\" has no value");
	s[1] = (struct mw_rw_series){ bad_utf8, 2, sm, 1 };
	expect_error(s, 2, "label \"proc\" is not valid UTF-8");
	s[1] = (struct mw_rw_series){ overlong, 2, sm, 1 };
	expect_error(s, 2, "UTF-8");
	s[1] = (struct mw_rw_series){ surrogate, 2, sm, 1 };
	expect_error(s, 2, "UTF-8");
	s[1] = (struct mw_rw_series){ cut, 2, sm, 1 };
	expect_error(s, 2, "UTF-8");
	s[1] = (struct mw_rw_series){ ok, 1, NULL, 1 };
	expect_error(s, 2, "no array");
}

/* --- snappy ----------------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

enum kind { RANDOM, ZEROS, TEXT, PERIOD3, MIXED };

static void fill(unsigned char *p, size_t n, enum kind k)
{
	static const char words[] = "memwatch_process_private_bytes{host=\"lab-7\",pid=\"";

	for (size_t i = 0; i < n; i++) {
		switch (k) {
		case RANDOM:
			p[i] = (unsigned char)mw_xorshift(&rng);
			break;
		case ZEROS:
			p[i] = 0;
			break;
		case TEXT:
			p[i] = (unsigned char)words[i % (sizeof(words) - 1)];
			if (i % 97 == 0)
				p[i] = (unsigned char)('0' + mw_xorshift(&rng) % 10);
			break;
		case PERIOD3:
			p[i] = (unsigned char)("abc"[i % 3]);
			break;
		case MIXED:
			/* runs of random bytes and of repeats of earlier bytes */
			if (i > 300 && (i / 200) % 2)
				p[i] = p[i - 1 - (i / 200) % 250];
			else
				p[i] = (unsigned char)mw_xorshift(&rng);
			break;
		}
	}
}

static size_t round_trip(const unsigned char *in, size_t n)
{
	struct mw_rw_buf c = { 0 }, d = { 0 };
	struct mw_err err;
	size_t clen;

	assert_int_equal(mw_rw_snappy_compress(in, n, &c, &err), 0);
	assert_true(c.len <= 32 + n + n / 6);
	if (mw_rw_snappy_uncompress(c.data, c.len, &d, &err) < 0)
		fail_msg("size %zu: %s", n, err.msg);
	assert_int_equal(d.len, n);
	if (n)
		assert_memory_equal(d.data, in, n);
	clen = c.len;
	mw_rw_buf_release(&c);
	mw_rw_buf_release(&d);
	return clen;
}

static const size_t sizes[] = {
	0, 1, 2, 3, 4, 15, 16, 17, 100, 4095, 65535, 65536, 65537, 131071, 131072,
	131073, 200000, (1u << 20) + 12345,
};

static void snappy_round_trips(void **state)
{
	size_t max = sizes[MW_ARRAY_SIZE(sizes) - 1];
	unsigned char *buf = malloc(max);

	(void)state;
	assert_non_null(buf);
	for (int k = RANDOM; k <= MIXED; k++) {
		for (size_t i = 0; i < MW_ARRAY_SIZE(sizes); i++) {
			size_t n = sizes[i], clen;

			fill(buf, n, (enum kind)k);
			clen = round_trip(buf, n);
			/* a real compressor, not literals only: repetitive
			 * input shrinks a lot */
			if (n >= 65536 && (k == ZEROS || k == PERIOD3))
				assert_true(clen < n / 20);
			if (n >= 65536 && k == TEXT)
				assert_true(clen < n / 4);
			if (n >= 65536 && k == RANDOM)
				assert_true(clen > n);	/* nothing to find */
		}
	}
	free(buf);
}

static void expect_malformed(const unsigned char *in, size_t n, const char *part)
{
	struct mw_rw_buf d = { 0 };
	struct mw_err err = { "" };

	assert_int_equal(mw_rw_snappy_uncompress(in, n, &d, &err), -1);
	if (!strstr(err.msg, part))
		fail_msg("error \"%s\" does not say \"%s\"", err.msg, part);
	mw_rw_buf_release(&d);
}

static void snappy_malformed(void **state)
{
	/* length 5, then a literal of 5 "hello" */
	const unsigned char ok[] = { 5, 4 << 2, 'h', 'e', 'l', 'l', 'o' };
	const unsigned char trunc_hdr[] = { 0x80 };
	const unsigned char long_hdr[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x01 };
	const unsigned char huge_hdr[] = { 0xff, 0xff, 0xff, 0xff, 0x1f };
	const unsigned char liar[] = { 0xff, 0xff, 0x3f, 0 << 2, 'a' };
	const unsigned char lit_past[] = { 5, 9 << 2, 'h', 'e' };
	const unsigned char lit_len_cut[] = { 5, 61 << 2, 4 };
	const unsigned char over_hdr[] = { 2, 4 << 2, 'h', 'e', 'l', 'l', 'o' };
	const unsigned char short_out[] = { 9, 4 << 2, 'h', 'e', 'l', 'l', 'o' };
	const unsigned char off0[] = { 9, 4 << 2, 'h', 'e', 'l', 'l', 'o', 1 | (0 << 2), 0 };
	const unsigned char off_far[] = { 9, 4 << 2, 'h', 'e', 'l', 'l', 'o', 2 | (3 << 2), 6, 0 };
	const unsigned char copy_cut[] = { 9, 4 << 2, 'h', 'e', 'l', 'l', 'o', 2 | (3 << 2), 5 };
	const unsigned char copy4_cut[] = { 9, 4 << 2, 'h', 'e', 'l', 'l', 'o', 3, 5, 0, 0 };
	struct mw_rw_buf d = { 0 };
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_rw_snappy_uncompress(ok, sizeof(ok), &d, &err), 0);
	assert_int_equal(d.len, 5);
	assert_memory_equal(d.data, "hello", 5);
	mw_rw_buf_release(&d);

	expect_malformed(NULL, 0, "truncated length header");
	expect_malformed(trunc_hdr, sizeof(trunc_hdr), "truncated length header");
	expect_malformed(long_hdr, sizeof(long_hdr), "longer than 5 bytes");
	expect_malformed(huge_hdr, sizeof(huge_hdr), "over 4 GiB");
	expect_malformed(liar, sizeof(liar), "more than");
	expect_malformed(lit_past, sizeof(lit_past), "runs past the end");
	expect_malformed(lit_len_cut, sizeof(lit_len_cut), "truncated literal length");
	expect_malformed(over_hdr, sizeof(over_hdr), "goes past the length in the header");
	expect_malformed(short_out, sizeof(short_out), "block gives 5 bytes, its header says 9");
	expect_malformed(off0, sizeof(off0), "refers 0 bytes back");
	expect_malformed(off_far, sizeof(off_far), "refers 6 bytes back");
	expect_malformed(copy_cut, sizeof(copy_cut), "truncated copy");
	expect_malformed(copy4_cut, sizeof(copy4_cut), "truncated copy");
}

/* Random bytes and damaged good blocks: an answer, never a crash (the
 * sanitizers watch every read and write). */
static void snappy_garbage(void **state)
{
	unsigned char src[3000], blk[4000];
	struct mw_rw_buf c = { 0 }, d = { 0 };
	struct mw_err err;
	int ok = 0, bad = 0;

	(void)state;
	for (int round = 0; round < 3000; round++) {
		size_t n = (size_t)(mw_xorshift(&rng) % sizeof(blk));

		if (round % 2) {
			for (size_t i = 0; i < n; i++)
				blk[i] = (unsigned char)mw_xorshift(&rng);
		} else {
			fill(src, sizeof(src), MIXED);
			assert_int_equal(mw_rw_snappy_compress(src, sizeof(src), &c, &err), 0);
			n = c.len <= sizeof(blk) ? c.len : sizeof(blk);
			memcpy(blk, c.data, n);
			for (int k = 0; k < 1 + round % 4; k++)
				blk[mw_xorshift(&rng) % n] ^= (unsigned char)(1u << (mw_xorshift(&rng) % 8));
			if (round % 8 == 0)
				n = (size_t)(mw_xorshift(&rng) % n);
		}
		if (mw_rw_snappy_uncompress(blk, n, &d, &err) == 0)
			ok++;
		else
			bad++;
	}
	assert_true(bad > 0);
	print_message("garbage: %d decoded, %d refused\n", ok, bad);
	mw_rw_buf_release(&c);
	mw_rw_buf_release(&d);
}

/* --- Debian's libsnappy, when installed (native only) --------------------- */

#ifndef _WIN32
typedef int (*snappy_fn)(const char *, size_t, char *, size_t *);
typedef size_t (*snappy_max_fn)(size_t);

static void snappy_vs_libsnappy(void **state)
{
	void *h = dlopen("libsnappy.so.1", RTLD_NOW);
	snappy_fn lib_compress, lib_uncompress;
	snappy_max_fn lib_max;
	size_t max = sizes[MW_ARRAY_SIZE(sizes) - 1];
	unsigned char *buf;
	char *tmp;
	struct mw_rw_buf c = { 0 }, d = { 0 };
	struct mw_err err;

	(void)state;
	if (!h) {
		print_message("libsnappy.so.1 not installed (libsnappy1v5): cross-check skipped\n");
		skip();
	}
	lib_compress = (snappy_fn)dlsym(h, "snappy_compress");
	lib_uncompress = (snappy_fn)dlsym(h, "snappy_uncompress");
	lib_max = (snappy_max_fn)dlsym(h, "snappy_max_compressed_length");
	assert_non_null(lib_compress);
	assert_non_null(lib_uncompress);
	assert_non_null(lib_max);
	buf = malloc(max);
	tmp = malloc(lib_max(max) + max);
	assert_non_null(buf);
	assert_non_null(tmp);
	for (int k = RANDOM; k <= MIXED; k++) {
		for (size_t i = 0; i < MW_ARRAY_SIZE(sizes); i++) {
			size_t n = sizes[i], tlen;

			fill(buf, n, (enum kind)k);
			/* ours -> libsnappy */
			assert_int_equal(mw_rw_snappy_compress(buf, n, &c, &err), 0);
			tlen = max;
			assert_int_equal(lib_uncompress((const char *)c.data, c.len, tmp, &tlen), 0);
			assert_int_equal(tlen, n);
			if (n)
				assert_memory_equal(tmp, buf, n);
			/* libsnappy -> ours */
			tlen = lib_max(max);
			assert_int_equal(lib_compress((const char *)buf, n, tmp, &tlen), 0);
			assert_int_equal(mw_rw_snappy_uncompress((const unsigned char *)tmp, tlen,
								 &d, &err), 0);
			assert_int_equal(d.len, n);
			if (n)
				assert_memory_equal(d.data, buf, n);
		}
	}
	free(buf);
	free(tmp);
	mw_rw_buf_release(&c);
	mw_rw_buf_release(&d);
	dlclose(h);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(encode_empty),
		cmocka_unit_test(encode_values_and_labels),
		cmocka_unit_test(encode_many),
		cmocka_unit_test(encode_errors),
		cmocka_unit_test(snappy_round_trips),
		cmocka_unit_test(snappy_malformed),
		cmocka_unit_test(snappy_garbage),
#ifndef _WIN32
		cmocka_unit_test(snappy_vs_libsnappy),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
