/*
 * jvm_perfdata.c - the hsperfdata parser (see jvm_perfdata.h).
 *
 * The layout is HotSpot's (perfMemory.hpp): a 32-byte prologue (magic
 * 0xcafec0c0 stored big-endian, the byte order of everything else, major
 * version 2, an "accessible" flag set once the JVM has filled it, the
 * bytes used, the first entry's offset and the number of entries), then
 * entries of 20-byte headers (length, name offset, vector length, type
 * letter, flags, units, variability, data offset; offsets from the
 * entry's start), each name NUL-terminated.  Every offset is checked
 * against the buffer: the file belongs to another program.
 */
#include "jvm_perfdata.h"

#include <string.h>

#define PROLOGUE 32
#define ENTRY_HEADER 20

static uint32_t rd32(const uint8_t *p, bool little)
{
	return little ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
				(uint32_t)p[3] << 24
		      : (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 |
				(uint32_t)p[0] << 24;
}

static uint64_t rd64(const uint8_t *p, bool little)
{
	uint64_t a = rd32(p, little), b = rd32(p + 4, little);

	return little ? a | b << 32 : a << 32 | b;
}

/* The counters taken, by exact name. */
enum field { F_OLD_USED, F_OLD_CAP, F_OLD_MAX, F_YOUNG_CAP, F_YOUNG_MAX, F_META_USED, F_VM_BEGIN,
	     F_N };
static const char *const field_names[F_N] = {
	[F_OLD_USED] = "sun.gc.generation.1.space.0.used",
	[F_OLD_CAP] = "sun.gc.generation.1.capacity",
	[F_OLD_MAX] = "sun.gc.generation.1.maxCapacity",
	[F_YOUNG_CAP] = "sun.gc.generation.0.capacity",
	[F_YOUNG_MAX] = "sun.gc.generation.0.maxCapacity",
	[F_META_USED] = "sun.gc.metaspace.used",
	[F_VM_BEGIN] = "sun.rt.createVmBeginTime",
};

/* "sun.gc.generation.0.space.N.used" (eden, survivors) and
 * "sun.gc.collector.N.invocations": summed. */
static bool is_indexed(const char *name, size_t len, const char *head, const char *tail)
{
	size_t h = strlen(head), t = strlen(tail), i;

	if (len <= h + t || memcmp(name, head, h) || memcmp(name + len - t, tail, t))
		return false;
	for (i = h; i < len - t; i++)
		if (name[i] < '0' || name[i] > '9')
			return false;
	return true;
}

int mw_jvm_perfdata_parse(const uint8_t *buf, size_t len, struct mw_jvm_heap *out,
			  struct mw_err *err)
{
	uint64_t v[F_N] = { 0 };
	bool seen[F_N] = { false };
	bool little, g1 = false;
	uint32_t used, first, n, i;
	size_t at;

	memset(out, 0, sizeof(*out));
	if (len < PROLOGUE)
		return mw_error(err, "hsperfdata: %zu bytes, shorter than its 32-byte prologue", len);
	if (rd32(buf, false) != 0xcafec0c0u)
		return mw_error(err, "hsperfdata: no 0xcafec0c0 magic at the start");
	if (buf[4] > 1)
		return mw_error(err, "hsperfdata: byte order %u is neither 0 nor 1", buf[4]);
	little = buf[4] == 1;
	if (buf[5] != 2)
		return mw_error(err, "hsperfdata: version %u.%u, only 2.x is known", buf[5], buf[6]);
	if (!buf[7])
		return mw_error(err, "hsperfdata: not accessible yet (the JVM is starting)");
	used = rd32(buf + 8, little);
	first = rd32(buf + 24, little);
	n = rd32(buf + 28, little);
	if (used > len)
		return mw_error(err, "hsperfdata: %u bytes used, the file has %zu", used, len);
	if (first < PROLOGUE || first > used)
		return mw_error(err, "hsperfdata: first entry at %u, outside 32..%u", first, used);
	at = first;
	for (i = 0; i < n; i++) {
		const uint8_t *e = buf + at;
		uint32_t elen, name_off, vlen, data_off;
		const char *name;
		size_t name_len;
		int f;

		if (at + ENTRY_HEADER > used)
			return mw_error(err, "hsperfdata: entry %u of %u runs past byte %u", i, n,
					used);
		elen = rd32(e, little);
		name_off = rd32(e + 4, little);
		vlen = rd32(e + 8, little);
		data_off = rd32(e + 16, little);
		if (elen < ENTRY_HEADER || elen > used - at)
			return mw_error(err, "hsperfdata: entry %u at byte %zu has length %u", i,
					at, elen);
		if (name_off < ENTRY_HEADER || name_off >= elen ||
		    !memchr(e + name_off, '\0', elen - name_off))
			return mw_error(err, "hsperfdata: entry %u's name is outside it", i);
		name = (const char *)e + name_off;
		name_len = strlen(name);
		at += elen;
		/* the policy's name, a string (type B, a vector of bytes) */
		if (e[12] == 'B' && vlen > 0 && !strcmp(name, "sun.gc.policy.name")) {
			if (data_off < ENTRY_HEADER || data_off > elen || vlen > elen - data_off)
				return mw_error(err, "hsperfdata: entry %u (%s) has its value outside it",
						i, name);
			g1 = vlen >= 12 && !memcmp(e + data_off, "GarbageFirst", 12);
			continue;
		}
		/* scalars of type J (a 64-bit integer) only */
		if (e[12] != 'J' || vlen != 0)
			continue;
		if (data_off < ENTRY_HEADER || data_off > elen - 8)
			return mw_error(err, "hsperfdata: entry %u (%s) has its value outside it",
					i, name);
		if (is_indexed(name, name_len, "sun.gc.generation.0.space.", ".used")) {
			out->young_used += rd64(e + data_off, little);
			continue;
		}
		if (is_indexed(name, name_len, "sun.gc.collector.", ".invocations")) {
			if (!strcmp(name, "sun.gc.collector.0.invocations"))
				out->young_collections = rd64(e + data_off, little);
			else
				out->old_collections += rd64(e + data_off, little);
			continue;
		}
		for (f = 0; f < F_N; f++)
			if (!seen[f] && !strcmp(name, field_names[f])) {
				v[f] = rd64(e + data_off, little);
				seen[f] = true;
				break;
			}
	}
	out->have_old = seen[F_OLD_USED];
	out->old_used = v[F_OLD_USED];
	out->old_capacity = v[F_OLD_CAP];
	out->young_capacity = v[F_YOUNG_CAP];
	out->max_capacity = g1 ? v[F_OLD_MAX] : v[F_OLD_MAX] + v[F_YOUNG_MAX];
	out->metaspace_used = v[F_META_USED];
	out->vm_start_ms = (int64_t)v[F_VM_BEGIN];
	if (!out->have_old)
		return mw_error(err, "hsperfdata: no %s counter (a collector without generations)",
				field_names[F_OLD_USED]);
	return 0;
}

bool mw_jvm_perfdata_stale(int64_t vm_start_ms, int64_t process_start_ms)
{
	if (vm_start_ms <= 0 || process_start_ms <= 0)
		return false;	/* nothing to tell by */
	return vm_start_ms < process_start_ms - 1000 || vm_start_ms > process_start_ms + 600000;
}
