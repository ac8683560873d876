/*
 * snappy.c - snappy block format (the "raw" format, not the framing one):
 * our own compressor and decompressor, see rw_wire.h.
 *
 * Owned by the forwarder (forward/).  Pure.
 *
 * Why our own and not Debian's libsnappy: libsnappy is C++.  For the
 * Windows build it would have to be cross-built from Debian's source
 * package with a MinGW C++ toolchain (another ~40 MB package, CMake, a
 * static libstdc++ in a C program) and rebuilt on every machine; the
 * remote-write bodies it would compress are small (tens to hundreds of
 * KiB per batch).  The block format is small and documented, the
 * compressor below is ~200 lines, and bench/bench_rw_wire.c measures it
 * against libsnappy 1.1.9 (loaded at run time when installed natively)
 * on a forwarder-shaped batch (3000 series x 12 samples, 963 kB of
 * protobuf): 247,792 vs 247,818 bytes (1.000x) in 1.0-1.1x its time,
 * ~1 GB/s, some 35 M points/s, on the 2-core development machine.  The
 * forwarder sends a few thousand points per second.  tests/test_rw_wire.c
 * checks our blocks with libsnappy's decompressor and the other way
 * round.
 *
 * The format: a little-endian base-128 varint of the uncompressed length,
 * then elements, each starting with a tag byte whose low two bits say
 *   00 literal:  length-1 in the upper six bits if < 60, else 60..63 say
 *                that 1..4 bytes of length-1 follow (little-endian);
 *                then the bytes
 *   01 copy:     length 4..11 in bits 2..4, offset bits 8..10 in bits 5..7,
 *                one more byte of offset (offsets < 2048)
 *   10 copy:     length 1..64 in the upper six bits, 2 bytes of offset
 *   11 copy:     length 1..64, 4 bytes of offset (we never emit it)
 * A copy repeats `length` bytes from `offset` back in the output, and
 * may overlap what it writes (offset < length: a repeating pattern).
 *
 * The compressor works on 64 KiB fragments independently (offsets stay
 * within 16 bits), with a hash table of the last position of each 4-byte
 * sequence, and skips ahead faster the longer it finds nothing, so
 * incompressible input costs little more than a copy.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/unaligned.h"
#include "forward/snappy.h"

#define FRAGMENT (1u << 16)
#define HASH_BITS_MAX 14
/* Fewer bytes than this are left as a literal: the match loop reads
 * 8 bytes at a time up to `end - MARGIN` without bounds checks. */
#define MARGIN 15

static inline uint32_t hash32(uint32_t v, int shift)
{
	return (v * 0x1e35a7bdu) >> shift;
}

static unsigned char *put_varint32(unsigned char *p, uint32_t v)
{
	while (v >= 0x80) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

static unsigned char *emit_literal(unsigned char *op, const unsigned char *lit, size_t n)
{
	size_t m = n - 1;

	if (m < 60) {
		*op++ = (unsigned char)(m << 2);
	} else {
		unsigned char *tag = op++;
		int count = 0;

		while (m) {
			*op++ = (unsigned char)m;
			m >>= 8;
			count++;
		}
		*tag = (unsigned char)((59 + count) << 2);
	}
	memcpy(op, lit, n);
	return op + n;
}

/* One copy element; len 4..64 (or 1..64 with a 2-byte offset). */
static inline unsigned char *emit_copy_upto64(unsigned char *op, size_t offset, size_t len)
{
	if (len < 12 && offset < 2048) {
		*op++ = (unsigned char)(1 | ((len - 4) << 2) | ((offset >> 8) << 5));
		*op++ = (unsigned char)offset;
	} else {
		*op++ = (unsigned char)(2 | ((len - 1) << 2));
		*op++ = (unsigned char)offset;
		*op++ = (unsigned char)(offset >> 8);
	}
	return op;
}

static unsigned char *emit_copy(unsigned char *op, size_t offset, size_t len)
{
	/* 64-byte pieces while that leaves at least 4 (the shortest copy
	 * with a 1-byte offset); then 60 if needed, so the rest is >= 4. */
	while (len >= 68) {
		op = emit_copy_upto64(op, offset, 64);
		len -= 64;
	}
	if (len > 64) {
		op = emit_copy_upto64(op, offset, 60);
		len -= 60;
	}
	return emit_copy_upto64(op, offset, len);
}

/* How many bytes at a and b agree, b < a, reading no further than end. */
static inline size_t match_length(const unsigned char *a, const unsigned char *b,
				  const unsigned char *end)
{
	const unsigned char *start = a;

#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	while (a + 8 <= end) {
		uint64_t x = mw_load64(a) ^ mw_load64(b);

		if (x)
			return (size_t)(a - start) + ((unsigned)__builtin_ctzll(x) >> 3);
		a += 8;
		b += 8;
	}
#endif
	while (a < end && *a == *b) {
		a++;
		b++;
	}
	return (size_t)(a - start);
}

/* Compress one fragment (<= 64 KiB) into op; returns the new end. */
static unsigned char *compress_fragment(const unsigned char *in, size_t len, unsigned char *op,
					uint16_t *table)
{
	const unsigned char *ip = in, *end = in + len, *next_emit = in;
	const unsigned char *ip_limit;
	int bits = 8, shift;

	if (len < MARGIN + 1)
		goto tail;
	while (bits < HASH_BITS_MAX && ((size_t)1 << bits) < len)
		bits++;
	shift = 32 - bits;
	memset(table, 0, sizeof(*table) << bits);
	ip_limit = end - MARGIN;

	for (ip++;;) {
		const unsigned char *cand;
		uint32_t skip = 32;

		/* Look for a 4-byte match, striding further while none. */
		for (;;) {
			uint32_t h = hash32(mw_load32(ip), shift);
			const unsigned char *next = ip + (skip++ >> 5);

			cand = in + table[h];
			table[h] = (uint16_t)(ip - in);
			if (mw_load32(cand) == mw_load32(ip) && cand < ip)
				break;
			ip = next;
			if (ip > ip_limit)
				goto tail;
		}
		op = emit_literal(op, next_emit, (size_t)(ip - next_emit));

		/* Copies, as long as the next position matches too. */
		do {
			size_t n = 4 + match_length(ip + 4, cand + 4, end);

			op = emit_copy(op, (size_t)(ip - cand), n);
			ip += n;
			next_emit = ip;
			if (ip >= ip_limit)
				goto tail;
			table[hash32(mw_load32(ip - 1), shift)] = (uint16_t)(ip - 1 - in);
			{
				uint32_t h = hash32(mw_load32(ip), shift);

				cand = in + table[h];
				table[h] = (uint16_t)(ip - in);
			}
		} while (mw_load32(cand) == mw_load32(ip));
		ip++;
	}
tail:
	if (next_emit < end)
		op = emit_literal(op, next_emit, (size_t)(end - next_emit));
	return op;
}

static int buf_reserve(struct mw_rw_buf *b, size_t cap, struct mw_err *err)
{
	return mw_rw_buf_reserve(b, cap, err);
}

int mw_rw_snappy_compress(const unsigned char *in, size_t len, struct mw_rw_buf *out,
			  struct mw_err *err)
{
	uint16_t table[1u << HASH_BITS_MAX];
	unsigned char *op;
	size_t pos, bound;

	if (len > UINT32_MAX)
		return mw_error(err, "snappy: %zu bytes is over the block limit of 4 GiB", len);
	/* Worst case: every 60 bytes of literal cost a tag, plus the varint. */
	bound = 32 + len + len / 6;
	out->len = 0;
	if (buf_reserve(out, bound, err) < 0)
		return -1;
	op = put_varint32(out->data, (uint32_t)len);
	for (pos = 0; pos < len; pos += FRAGMENT) {
		size_t n = len - pos < FRAGMENT ? len - pos : FRAGMENT;

		op = compress_fragment(in + pos, n, op, table);
	}
	out->len = (size_t)(op - out->data);
	return 0;
}

/* Longest expansion one input byte can give: a 3-byte copy of 64. */
#define MAX_EXPANSION 22

int mw_rw_snappy_uncompress(const unsigned char *in, size_t len, struct mw_rw_buf *out,
			    struct mw_err *err)
{
	const unsigned char *ip = in, *end = in + len;
	unsigned char *op, *obase, *oend;
	uint64_t want = 0;
	int shift;

	out->len = 0;
	for (shift = 0;; shift += 7) {
		if (ip == end)
			return mw_error(err, "snappy: truncated length header");
		if (shift == 35)
			return mw_error(err, "snappy: length header longer than 5 bytes");
		want |= (uint64_t)(*ip & 0x7f) << shift;
		if (!(*ip++ & 0x80))
			break;
	}
	if (want > UINT32_MAX)
		return mw_error(err, "snappy: length header %llu is over 4 GiB",
				(unsigned long long)want);
	/* A lie in the header must not make us allocate gigabytes. */
	if (want > (uint64_t)(end - ip) * MAX_EXPANSION)
		return mw_error(err, "snappy: length header says %llu bytes, more than %zu "
				"bytes of block can hold", (unsigned long long)want,
				(size_t)(end - ip));
	if (buf_reserve(out, (size_t)want + 1, err) < 0)
		return -1;
	obase = op = out->data;
	oend = obase + want;

	while (ip < end) {
		unsigned tag = *ip++;
		size_t n, offset;

		if ((tag & 3) == 0) {
			n = tag >> 2;
			if (n >= 60) {
				size_t k = n - 59, i;

				if ((size_t)(end - ip) < k)
					return mw_error(err, "snappy: truncated literal length at "
							"byte %zu", (size_t)(ip - in - 1));
				for (n = 0, i = 0; i < k; i++)
					n |= (size_t)ip[i] << (8 * i);
				ip += k;
			}
			n++;
			if ((size_t)(end - ip) < n)
				return mw_error(err, "snappy: literal of %zu bytes at byte %zu runs "
						"past the end of the block", n,
						(size_t)(ip - in - 1));
			if ((size_t)(oend - op) < n)
				return mw_error(err, "snappy: literal at byte %zu goes past the "
						"length in the header (%zu)",
						(size_t)(ip - in - 1), (size_t)want);
			memcpy(op, ip, n);
			op += n;
			ip += n;
			continue;
		}
		switch (tag & 3) {
		case 1:
			if (end - ip < 1)
				goto truncated;
			n = 4 + ((tag >> 2) & 7);
			offset = ((size_t)(tag >> 5) << 8) | ip[0];
			ip += 1;
			break;
		case 2:
			if (end - ip < 2)
				goto truncated;
			n = 1 + (tag >> 2);
			offset = (size_t)ip[0] | ((size_t)ip[1] << 8);
			ip += 2;
			break;
		default:
			if (end - ip < 4)
				goto truncated;
			n = 1 + (tag >> 2);
			offset = (size_t)ip[0] | ((size_t)ip[1] << 8) | ((size_t)ip[2] << 16) |
				 ((size_t)ip[3] << 24);
			ip += 4;
			break;
		}
		if (offset == 0 || offset > (size_t)(op - obase))
			return mw_error(err, "snappy: copy at byte %zu refers %zu bytes back, "
					"before the start of the output", (size_t)(ip - in),
					offset);
		if ((size_t)(oend - op) < n)
			return mw_error(err, "snappy: copy at byte %zu goes past the length in "
					"the header (%zu)", (size_t)(ip - in), (size_t)want);
		if (offset >= n) {
			memcpy(op, op - offset, n);
			op += n;
		} else {
			/* Overlapping: a pattern of `offset` bytes repeated. */
			const unsigned char *src = op - offset;

			while (n--)
				*op++ = *src++;
		}
	}
	if (op != oend)
		return mw_error(err, "snappy: block gives %zu bytes, its header says %zu",
				(size_t)(op - obase), (size_t)want);
	out->len = (size_t)want;
	return 0;
truncated:
	return mw_error(err, "snappy: truncated copy at the end of the block");
}
