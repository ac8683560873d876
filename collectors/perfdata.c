/*
 * perfdata.c - the pure part of NT performance data: title database,
 * PERF_DATA_BLOCK parser, perfmon's counter arithmetic, counter paths and
 * the JSON decoder behind `memwatchd perfdata decode`.
 *
 * Nothing here trusts the buffer: every read goes through rd16/rd32/rd64
 * after a bounds check against the length the enclosing structure
 * declares, and the enclosing lengths are checked against the buffer.
 * Counts are checked against the bytes they would need before anything
 * is allocated, so a lying count cannot make us allocate gigabytes.
 */
#include "perfdata.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/xalloc.h"

static uint16_t rd16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* UTF-16LE, n code units (stops at a NUL), appended to a growing pool as
 * NUL-terminated UTF-8; unpaired surrogates become U+FFFD.  Returns the
 * offset of the string in the pool. */
static size_t pool_put_utf16(char **pool, size_t *len, size_t *cap,
			     const unsigned char *in, size_t n)
{
	size_t start = *len, i;

	MW_GROW(*pool, *cap, *len + n * 3 + 1);
	for (i = 0; i < n; i++) {
		uint32_t c = rd16(in + 2 * i);
		char *o = *pool + *len;

		if (c == 0)
			break;
		if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
			uint32_t lo = rd16(in + 2 * i + 2);

			if (lo >= 0xdc00 && lo <= 0xdfff) {
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				i++;
				/* 4 bytes for 2 units: fits the 3-per-unit budget */
			} else {
				c = 0xfffd;
			}
		} else if (c >= 0xd800 && c <= 0xdfff) {
			c = 0xfffd;
		}
		if (c < 0x80) {
			o[0] = (char)c;
			*len += 1;
		} else if (c < 0x800) {
			o[0] = (char)(0xc0 | (c >> 6));
			o[1] = (char)(0x80 | (c & 0x3f));
			*len += 2;
		} else if (c < 0x10000) {
			o[0] = (char)(0xe0 | (c >> 12));
			o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
			o[2] = (char)(0x80 | (c & 0x3f));
			*len += 3;
		} else {
			o[0] = (char)(0xf0 | (c >> 18));
			o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
			o[2] = (char)(0x80 | ((c >> 6) & 0x3f));
			o[3] = (char)(0x80 | (c & 0x3f));
			*len += 4;
		}
	}
	(*pool)[(*len)++] = '\0';
	return start;
}

/* Bytes in a single-byte code page: kept as they are, except that bytes
 * above 0x7f are taken as Latin-1 so the result is valid UTF-8. */
static size_t pool_put_bytes(char **pool, size_t *len, size_t *cap,
			     const unsigned char *in, size_t n)
{
	size_t start = *len, i;

	MW_GROW(*pool, *cap, *len + n * 2 + 1);
	for (i = 0; i < n && in[i]; i++) {
		if (in[i] < 0x80) {
			(*pool)[(*len)++] = (char)in[i];
		} else {
			(*pool)[(*len)++] = (char)(0xc0 | (in[i] >> 6));
			(*pool)[(*len)++] = (char)(0x80 | (in[i] & 0x3f));
		}
	}
	(*pool)[(*len)++] = '\0';
	return start;
}

/* --- title database -------------------------------------------------------- */

void mw_perf_titles_release(struct mw_perf_titles *t)
{
	free(t->by_index);
	free(t->pool);
	memset(t, 0, sizeof(*t));
}

static int title_cmp(const void *a, const void *b)
{
	const struct mw_perf_title *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

int mw_perf_titles_parse(struct mw_perf_titles *t, const unsigned char *buf, size_t len,
			 struct mw_err *err)
{
	size_t nunits = len / 2, i = 0, cap = 0, *name_offs = NULL, k, out;
	uint32_t *idx = NULL;

	mw_perf_titles_release(t);
	if (len & 1)
		t->skipped++;	/* a stray last byte; the rest may be fine */
	while (i < nunits) {
		size_t s1 = i, e1, s2, e2;
		uint64_t v = 0;
		bool numeric = true;

		while (i < nunits && rd16(buf + 2 * i))
			i++;
		e1 = i;
		if (e1 == s1)
			break;	/* the empty string ends a REG_MULTI_SZ */
		i++;
		s2 = i;
		while (i < nunits && rd16(buf + 2 * i))
			i++;
		e2 = i;
		i++;
		for (k = s1; k < e1; k++) {
			uint16_t c = rd16(buf + 2 * k);

			if (c < '0' || c > '9' || v > UINT32_MAX / 10) {
				numeric = false;
				break;
			}
			v = v * 10 + (c - '0');
		}
		if (!numeric || e2 <= s2 || v > UINT32_MAX) {
			t->skipped++;
			/* Drop the pair and go on with the next one. */
			continue;
		}
		if (t->n == cap) {
			cap = cap ? cap * 2 : 1024;
			idx = mw_xrealloc(idx, cap * sizeof(*idx));
			name_offs = mw_xrealloc(name_offs, cap * sizeof(*name_offs));
		}
		idx[t->n] = (uint32_t)v;
		name_offs[t->n] = pool_put_utf16(&t->pool, &t->pool_len, &t->pool_cap,
						 buf + 2 * s2, e2 - s2);
		t->n++;
	}
	if (t->n == 0) {
		free(idx);
		free(name_offs);
		return mw_error(err, "title database holds no index/name pair (%zu bytes)", len);
	}
	t->by_index = mw_xmalloc(t->n * sizeof(*t->by_index));
	for (k = 0; k < t->n; k++) {
		t->by_index[k].index = idx[k];
		t->by_index[k].name = t->pool + name_offs[k];
	}
	free(idx);
	free(name_offs);
	/* Duplicate indexes: one survives (which one is unspecified, as
	 * qsort is not stable); each dropped one is counted. */
	qsort(t->by_index, t->n, sizeof(*t->by_index), title_cmp);
	for (k = 0, out = 0; k < t->n; k++) {
		if (out && t->by_index[out - 1].index == t->by_index[k].index) {
			t->skipped++;
			continue;
		}
		t->by_index[out++] = t->by_index[k];
	}
	t->n = out;
	t->last_index = t->by_index[t->n - 1].index;
	return 0;
}

const char *mw_perf_title(const struct mw_perf_titles *t, uint32_t index)
{
	size_t lo = 0, hi;

	if (!t)
		return NULL;
	hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->by_index[mid].index == index)
			return t->by_index[mid].name;
		if (t->by_index[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static bool ieq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return false;
	return *a == *b;
}

static bool nieq(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
			return false;
	return true;
}

size_t mw_perf_title_find(const struct mw_perf_titles *t, const char *name,
			  uint32_t *out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; t && i < t->n; i++) {
		if (ieq(t->by_index[i].name, name)) {
			if (n < max)
				out[n] = t->by_index[i].index;
			n++;
		}
	}
	return n;
}

/* --- snapshot parser ------------------------------------------------------- */

void mw_perf_snapshot_release(struct mw_perf_snapshot *s)
{
	size_t i;

	for (i = 0; i < s->nobjects; i++) {
		free(s->objects[i].counters);
		free(s->objects[i].instances);
	}
	free(s->objects);
	free(s->names);
	memset(s, 0, sizeof(*s));
}

/* Bytes a counter type reads from the block. */
static uint32_t type_bytes(uint32_t type, uint32_t declared)
{
	switch (type & 0x300) {
	case 0x000:
		return 4;
	case 0x100:
		return 8;
	case 0x200:
		return 0;
	default:
		return declared;	/* variable length: text */
	}
}

uint64_t mw_perf_raw(const struct mw_perf_snapshot *s, const struct mw_perf_instance *i,
		     const struct mw_perf_counter_def *c)
{
	const unsigned char *p = s->buf + i->block_off + c->offset;

	/* The parser checked offset + type_bytes <= block_len. */
	switch (type_bytes(c->type, c->size)) {
	case 4:
		return rd32(p);
	case 8:
		return rd64(p);
	default:
		return 0;
	}
}

/* Open-addressing set of instance names, to number duplicates as perfmon
 * does ("svchost", "svchost#1", ...) in one pass. */
struct name_slot {
	uint64_t hash;
	size_t off;	/* full name in the pool */
	uint32_t count;
	bool used;
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++) {
		h ^= (unsigned char)tolower((unsigned char)*s);
		h *= 1099511628211ULL;
	}
	return h;
}

static void number_duplicates(struct mw_perf_snapshot *s, struct mw_perf_object *o)
{
	size_t cap = 16, i;
	struct name_slot *tab;

	if (o->num_instances < 0 || o->ninstances < 2)
		return;
	while (cap < o->ninstances * 2)
		cap *= 2;
	tab = mw_xcalloc(cap, sizeof(*tab));
	for (i = 0; i < o->ninstances; i++) {
		struct mw_perf_instance *in = &o->instances[i];
		const char *name = s->names + in->full_off;
		uint64_t h = fnv1a(name);
		size_t k = (size_t)h & (cap - 1);

		for (;;) {
			struct name_slot *sl = &tab[k];

			if (!sl->used) {
				sl->used = true;
				sl->hash = h;
				sl->off = in->full_off;
				sl->count = 1;
				in->dup_index = 0;
				break;
			}
			if (sl->hash == h && ieq(s->names + sl->off, name)) {
				char suffix[16];
				size_t base_len = strlen(name), off;

				in->dup_index = sl->count++;
				snprintf(suffix, sizeof(suffix), "#%" PRIu32, in->dup_index);
				MW_GROW(s->names, s->names_cap, s->names_len + base_len +
					strlen(suffix) + 1);
				off = s->names_len;
				memcpy(s->names + off, s->names + in->full_off, base_len);
				memcpy(s->names + off + base_len, suffix, strlen(suffix) + 1);
				s->names_len += base_len + strlen(suffix) + 1;
				in->full_off = off;
				break;
			}
			k = (k + 1) & (cap - 1);
		}
	}
	free(tab);
}

static int parse_object(struct mw_perf_snapshot *s, size_t off, size_t total_len, size_t k,
			struct mw_perf_object *o, size_t *obj_len, struct mw_err *err)
{
	const unsigned char *b = s->buf + off;
	uint32_t tot, def_len, hdr_len, ncounters, c;
	int32_t ninst;
	size_t p, avail = total_len - off;

	if (avail < MW_POT_SIZE)
		return mw_error(err, "object %zu at offset %zu: header truncated (%zu bytes left)",
				k, off, avail);
	tot = rd32(b + MW_POT_TOTAL_LENGTH);
	def_len = rd32(b + MW_POT_DEFINITION_LENGTH);
	hdr_len = rd32(b + MW_POT_HEADER_LENGTH);
	o->name_index = rd32(b + MW_POT_NAME_INDEX);
	o->help_index = rd32(b + MW_POT_HELP_INDEX);
	o->detail_level = rd32(b + MW_POT_DETAIL_LEVEL);
	ncounters = rd32(b + MW_POT_NUM_COUNTERS);
	o->default_counter = (int32_t)rd32(b + MW_POT_DEFAULT_COUNTER);
	ninst = (int32_t)rd32(b + MW_POT_NUM_INSTANCES);
	o->num_instances = ninst;
	o->code_page = rd32(b + MW_POT_CODE_PAGE);
	o->perf_time = (int64_t)rd64(b + MW_POT_PERF_TIME);
	o->perf_freq = (int64_t)rd64(b + MW_POT_PERF_FREQ);

	if (tot > avail)
		return mw_error(err, "object %zu (index %" PRIu32 "): TotalByteLength %" PRIu32
				" runs past the data block (%zu bytes left)", k, o->name_index,
				tot, avail);
	if (hdr_len < MW_POT_SIZE || def_len < hdr_len || def_len > tot)
		return mw_error(err, "object %zu (index %" PRIu32 "): lengths do not nest "
				"(header %" PRIu32 ", definitions %" PRIu32 ", total %" PRIu32 ")",
				k, o->name_index, hdr_len, def_len, tot);
	if (ncounters > (def_len - hdr_len) / MW_PCD_SIZE)
		return mw_error(err, "object %zu (index %" PRIu32 "): %" PRIu32 " counters do "
				"not fit in %" PRIu32 " bytes of definitions", k, o->name_index,
				ncounters, def_len - hdr_len);
	*obj_len = tot;

	o->counters = mw_xcalloc(ncounters ? ncounters : 1, sizeof(*o->counters));
	o->ncounters = ncounters;
	p = hdr_len;
	for (c = 0; c < ncounters; c++) {
		struct mw_perf_counter_def *d = &o->counters[c];
		uint32_t bl;

		if (p > def_len || def_len - p < MW_PCD_SIZE)
			return mw_error(err, "object %" PRIu32 ": counter definition %" PRIu32
					" runs past DefinitionLength %" PRIu32, o->name_index, c,
					def_len);
		bl = rd32(b + p + MW_PCD_BYTE_LENGTH);
		if (bl < MW_PCD_SIZE || bl > def_len - p)
			return mw_error(err, "object %" PRIu32 ": counter definition %" PRIu32
					" has ByteLength %" PRIu32, o->name_index, c, bl);
		d->name_index = rd32(b + p + MW_PCD_NAME_INDEX);
		d->help_index = rd32(b + p + MW_PCD_HELP_INDEX);
		d->default_scale = (int32_t)rd32(b + p + MW_PCD_DEFAULT_SCALE);
		d->detail_level = rd32(b + p + MW_PCD_DETAIL_LEVEL);
		d->type = rd32(b + p + MW_PCD_COUNTER_TYPE);
		d->size = rd32(b + p + MW_PCD_COUNTER_SIZE);
		d->offset = rd32(b + p + MW_PCD_COUNTER_OFFSET);
		p += bl;
	}

	if (ninst < -1)
		return mw_error(err, "object %" PRIu32 ": NumInstances %" PRId32 " is negative",
				o->name_index, ninst);
	/* Each instance needs at least a definition and a counter block. */
	if (ninst > 0 && (uint32_t)ninst > (tot - def_len) / (MW_PID_SIZE + MW_PCB_SIZE))
		return mw_error(err, "object %" PRIu32 ": %" PRId32 " instances do not fit in "
				"%" PRIu32 " bytes", o->name_index, ninst, tot - def_len);
	o->ninstances = ninst == MW_PERF_NO_INSTANCES ? 1 : (size_t)ninst;
	o->instances = mw_xcalloc(o->ninstances ? o->ninstances : 1, sizeof(*o->instances));
	p = def_len;
	for (size_t i = 0; i < o->ninstances; i++) {
		struct mw_perf_instance *in = &o->instances[i];
		uint32_t blk;

		in->parent_off = SIZE_MAX;
		in->pid = -1;
		in->unique_id = MW_PERF_NO_UNIQUE_ID;
		if (ninst == MW_PERF_NO_INSTANCES) {
			in->name_off = in->full_off = SIZE_MAX;
		} else {
			uint32_t bl, noff, nlen;

			if (tot - p < MW_PID_SIZE)
				return mw_error(err, "object %" PRIu32 ": instance %zu truncated",
						o->name_index, i);
			bl = rd32(b + p + MW_PID_BYTE_LENGTH);
			in->parent_object = rd32(b + p + MW_PID_PARENT_OBJECT);
			in->parent_instance = rd32(b + p + MW_PID_PARENT_INSTANCE);
			in->unique_id = (int32_t)rd32(b + p + MW_PID_UNIQUE_ID);
			noff = rd32(b + p + MW_PID_NAME_OFFSET);
			nlen = rd32(b + p + MW_PID_NAME_LENGTH);
			if (bl < MW_PID_SIZE || bl > tot - p)
				return mw_error(err, "object %" PRIu32 ": instance %zu has ByteLength "
						"%" PRIu32, o->name_index, i, bl);
			if (nlen && (noff < MW_PID_SIZE || noff > bl || nlen > bl - noff))
				return mw_error(err, "object %" PRIu32 ": instance %zu name (%" PRIu32
						" bytes at %" PRIu32 ") lies outside its %" PRIu32
						"-byte definition", o->name_index, i, nlen, noff, bl);
			if (o->code_page == 0)
				in->name_off = pool_put_utf16(&s->names, &s->names_len, &s->names_cap,
							      b + p + noff, nlen / 2);
			else
				in->name_off = pool_put_bytes(&s->names, &s->names_len, &s->names_cap,
							      b + p + noff, nlen);
			in->full_off = in->name_off;
			p += bl;
		}
		if (p > tot || tot - p < MW_PCB_SIZE)
			return mw_error(err, "object %" PRIu32 ": counter block of instance %zu "
					"truncated", o->name_index, i);
		blk = rd32(b + p + MW_PCB_BYTE_LENGTH);
		if (blk < MW_PCB_SIZE || blk > tot - p)
			return mw_error(err, "object %" PRIu32 ": counter block of instance %zu "
					"has ByteLength %" PRIu32 " (%zu bytes left)", o->name_index,
					i, blk, tot - p);
		in->block_off = off + p;
		in->block_len = blk;
		for (c = 0; c < ncounters; c++) {
			const struct mw_perf_counter_def *d = &o->counters[c];
			uint32_t need = type_bytes(d->type, d->size);

			if (d->offset > blk || need > blk - d->offset)
				return mw_error(err, "object %" PRIu32 ": counter %" PRIu32
						" (offset %" PRIu32 ", %" PRIu32 " bytes) lies outside "
						"the %" PRIu32 "-byte counter block of instance %zu",
						o->name_index, c, d->offset, need, blk, i);
		}
		p += blk;
	}
	return 0;
}

/* Parent names, perfmon's full names, "#n" numbering and pids. */
static void resolve_instances(struct mw_perf_snapshot *s)
{
	size_t k, i, c;

	for (k = 0; k < s->nobjects; k++) {
		struct mw_perf_object *o = &s->objects[k];
		const struct mw_perf_counter_def *pidc = NULL;

		if (o->num_instances < 0)
			continue;
		for (c = 0; c < o->ncounters; c++)
			if (o->counters[c].name_index == MW_PERF_IDX_ID_PROCESS &&
			    type_bytes(o->counters[c].type, o->counters[c].size) >= 4)
				pidc = &o->counters[c];
		for (i = 0; i < o->ninstances; i++) {
			struct mw_perf_instance *in = &o->instances[i];
			const struct mw_perf_object *po;

			if (pidc && o->name_index == MW_PERF_IDX_PROCESS)
				in->pid = (int64_t)mw_perf_raw(s, in, pidc);
			if (!in->parent_object)
				continue;
			po = mw_perf_snapshot_object(s, in->parent_object);
			if (po && po->num_instances >= 0 && in->parent_instance < po->ninstances) {
				const struct mw_perf_instance *pi = &po->instances[in->parent_instance];
				size_t plen = strlen(s->names + pi->name_off);
				size_t nlen = strlen(s->names + in->name_off), off;

				in->parent_off = pi->name_off;
				MW_GROW(s->names, s->names_cap, s->names_len + plen + nlen + 2);
				off = s->names_len;
				memcpy(s->names + off, s->names + pi->name_off, plen);
				s->names[off + plen] = '/';
				memcpy(s->names + off + plen + 1, s->names + in->name_off, nlen + 1);
				s->names_len += plen + nlen + 2;
				in->full_off = off;
			}
		}
		number_duplicates(s, o);
	}
}

int mw_perf_snapshot_parse(struct mw_perf_snapshot *s, const unsigned char *buf, size_t len,
			   struct mw_err *err)
{
	static const unsigned char sig[8] = { 'P', 0, 'E', 0, 'R', 0, 'F', 0 };
	uint32_t total, hdr, nobj, name_len, name_off;
	size_t off, k;

	memset(s, 0, sizeof(*s));
	s->buf = buf;
	s->len = len;
	if (len < MW_PDB_SIZE)
		return mw_error(err, "perf data block truncated: %zu bytes, the header needs %d",
				len, MW_PDB_SIZE);
	if (memcmp(buf + MW_PDB_SIGNATURE, sig, sizeof(sig)))
		return mw_error(err, "bad signature: not a PERF_DATA_BLOCK");
	if (rd32(buf + MW_PDB_LITTLE_ENDIAN) != 1)
		return mw_error(err, "perf data block is not little-endian");
	s->version = rd32(buf + MW_PDB_VERSION);
	s->revision = rd32(buf + MW_PDB_REVISION);
	total = rd32(buf + MW_PDB_TOTAL_LENGTH);
	hdr = rd32(buf + MW_PDB_HEADER_LENGTH);
	nobj = rd32(buf + MW_PDB_NUM_OBJECTS);
	for (k = 0; k < 8; k++)
		s->system_time[k] = rd16(buf + MW_PDB_SYSTEM_TIME + 2 * k);
	s->perf_time = (int64_t)rd64(buf + MW_PDB_PERF_TIME);
	s->perf_freq = (int64_t)rd64(buf + MW_PDB_PERF_FREQ);
	s->perf_time_100ns = (int64_t)rd64(buf + MW_PDB_PERF_TIME_100NS);
	name_len = rd32(buf + MW_PDB_SYSTEM_NAME_LENGTH);
	name_off = rd32(buf + MW_PDB_SYSTEM_NAME_OFFSET);
	if (total > len)
		return mw_error(err, "TotalByteLength %" PRIu32 " exceeds the %zu bytes returned",
				total, len);
	if (hdr < MW_PDB_SIZE || hdr > total)
		return mw_error(err, "HeaderLength %" PRIu32 " out of range (total %" PRIu32 ")",
				hdr, total);
	if (name_len) {
		if (name_off > hdr || name_len > hdr - name_off)
			return mw_error(err, "system name (%" PRIu32 " bytes at %" PRIu32
					") lies outside the %" PRIu32 "-byte header",
					name_len, name_off, hdr);
		{
			char *pool = NULL;
			size_t pl = 0, pc = 0;

			pool_put_utf16(&pool, &pl, &pc, buf + name_off, name_len / 2);
			snprintf(s->system_name, sizeof(s->system_name), "%s", pool);
			free(pool);
		}
	}
	if (nobj > (total - hdr) / MW_POT_SIZE)
		return mw_error(err, "%" PRIu32 " objects do not fit in %" PRIu32 " bytes",
				nobj, total - hdr);
	s->objects = mw_xcalloc(nobj ? nobj : 1, sizeof(*s->objects));
	s->objects_cap = nobj;
	off = hdr;
	for (k = 0; k < nobj; k++) {
		size_t olen = 0;
		int rc = parse_object(s, off, total, k, &s->objects[k], &olen, err);

		s->nobjects = k + 1;	/* so release frees a partial object */
		if (rc) {
			mw_perf_snapshot_release(s);
			return -1;
		}
		if (olen < MW_POT_SIZE) {
			mw_perf_snapshot_release(s);
			return mw_error(err, "object %zu: TotalByteLength %zu", k, olen);
		}
		off += olen;
	}
	s->buf = buf;
	s->len = len;
	resolve_instances(s);
	return 0;
}

const struct mw_perf_object *mw_perf_snapshot_object(const struct mw_perf_snapshot *s,
						     uint32_t name_index)
{
	size_t k;

	for (k = 0; k < s->nobjects; k++)
		if (s->objects[k].name_index == name_index)
			return &s->objects[k];
	return NULL;
}

/* --- counter arithmetic ---------------------------------------------------- */

static const struct {
	uint32_t type;
	const char *name;
} type_names[] = {
	{ MW_PERF_COUNTER_COUNTER, "PERF_COUNTER_COUNTER" },
	{ MW_PERF_COUNTER_TIMER, "PERF_COUNTER_TIMER" },
	{ MW_PERF_COUNTER_QUEUELEN_TYPE, "PERF_COUNTER_QUEUELEN_TYPE" },
	{ MW_PERF_COUNTER_LARGE_QUEUELEN_TYPE, "PERF_COUNTER_LARGE_QUEUELEN_TYPE" },
	{ MW_PERF_COUNTER_100NS_QUEUELEN_TYPE, "PERF_COUNTER_100NS_QUEUELEN_TYPE" },
	{ MW_PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, "PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE" },
	{ MW_PERF_COUNTER_BULK_COUNT, "PERF_COUNTER_BULK_COUNT" },
	{ MW_PERF_COUNTER_TEXT, "PERF_COUNTER_TEXT" },
	{ MW_PERF_COUNTER_RAWCOUNT, "PERF_COUNTER_RAWCOUNT" },
	{ MW_PERF_COUNTER_LARGE_RAWCOUNT, "PERF_COUNTER_LARGE_RAWCOUNT" },
	{ MW_PERF_COUNTER_RAWCOUNT_HEX, "PERF_COUNTER_RAWCOUNT_HEX" },
	{ MW_PERF_COUNTER_LARGE_RAWCOUNT_HEX, "PERF_COUNTER_LARGE_RAWCOUNT_HEX" },
	{ MW_PERF_SAMPLE_FRACTION, "PERF_SAMPLE_FRACTION" },
	{ MW_PERF_SAMPLE_COUNTER, "PERF_SAMPLE_COUNTER" },
	{ MW_PERF_COUNTER_NODATA, "PERF_COUNTER_NODATA" },
	{ MW_PERF_COUNTER_TIMER_INV, "PERF_COUNTER_TIMER_INV" },
	{ MW_PERF_SAMPLE_BASE, "PERF_SAMPLE_BASE" },
	{ MW_PERF_AVERAGE_TIMER, "PERF_AVERAGE_TIMER" },
	{ MW_PERF_AVERAGE_BASE, "PERF_AVERAGE_BASE" },
	{ MW_PERF_AVERAGE_BULK, "PERF_AVERAGE_BULK" },
	{ MW_PERF_OBJ_TIME_TIMER, "PERF_OBJ_TIME_TIMER" },
	{ MW_PERF_100NSEC_TIMER, "PERF_100NSEC_TIMER" },
	{ MW_PERF_100NSEC_TIMER_INV, "PERF_100NSEC_TIMER_INV" },
	{ MW_PERF_COUNTER_MULTI_TIMER, "PERF_COUNTER_MULTI_TIMER" },
	{ MW_PERF_COUNTER_MULTI_TIMER_INV, "PERF_COUNTER_MULTI_TIMER_INV" },
	{ MW_PERF_COUNTER_MULTI_BASE, "PERF_COUNTER_MULTI_BASE" },
	{ MW_PERF_100NSEC_MULTI_TIMER, "PERF_100NSEC_MULTI_TIMER" },
	{ MW_PERF_100NSEC_MULTI_TIMER_INV, "PERF_100NSEC_MULTI_TIMER_INV" },
	{ MW_PERF_RAW_FRACTION, "PERF_RAW_FRACTION" },
	{ MW_PERF_LARGE_RAW_FRACTION, "PERF_LARGE_RAW_FRACTION" },
	{ MW_PERF_RAW_BASE, "PERF_RAW_BASE" },
	{ MW_PERF_LARGE_RAW_BASE, "PERF_LARGE_RAW_BASE" },
	{ MW_PERF_ELAPSED_TIME, "PERF_ELAPSED_TIME" },
	{ MW_PERF_COUNTER_DELTA, "PERF_COUNTER_DELTA" },
	{ MW_PERF_COUNTER_LARGE_DELTA, "PERF_COUNTER_LARGE_DELTA" },
	{ MW_PERF_PRECISION_SYSTEM_TIMER, "PERF_PRECISION_SYSTEM_TIMER" },
	{ MW_PERF_PRECISION_100NS_TIMER, "PERF_PRECISION_100NS_TIMER" },
	{ MW_PERF_PRECISION_OBJECT_TIMER, "PERF_PRECISION_OBJECT_TIMER" },
};

const char *mw_perf_type_name(uint32_t type)
{
	size_t i;

	for (i = 0; i < MW_ARRAY_SIZE(type_names); i++)
		if (type_names[i].type == type)
			return type_names[i].name;
	return NULL;
}

bool mw_perf_type_is_base(uint32_t type)
{
	return type == MW_PERF_SAMPLE_BASE || type == MW_PERF_AVERAGE_BASE ||
	       type == MW_PERF_COUNTER_MULTI_BASE || type == MW_PERF_RAW_BASE ||
	       type == MW_PERF_LARGE_RAW_BASE;
}

bool mw_perf_type_needs_base(uint32_t type)
{
	switch (type) {
	case MW_PERF_SAMPLE_FRACTION:
	case MW_PERF_AVERAGE_TIMER:
	case MW_PERF_AVERAGE_BULK:
	case MW_PERF_RAW_FRACTION:
	case MW_PERF_LARGE_RAW_FRACTION:
	case MW_PERF_COUNTER_MULTI_TIMER:
	case MW_PERF_COUNTER_MULTI_TIMER_INV:
	case MW_PERF_100NSEC_MULTI_TIMER:
	case MW_PERF_100NSEC_MULTI_TIMER_INV:
	case MW_PERF_PRECISION_SYSTEM_TIMER:
	case MW_PERF_PRECISION_100NS_TIMER:
	case MW_PERF_PRECISION_OBJECT_TIMER:
		return true;
	default:
		return false;
	}
}

bool mw_perf_type_is_rate(uint32_t type)
{
	switch (type) {
	case MW_PERF_COUNTER_RAWCOUNT:
	case MW_PERF_COUNTER_LARGE_RAWCOUNT:
	case MW_PERF_COUNTER_RAWCOUNT_HEX:
	case MW_PERF_COUNTER_LARGE_RAWCOUNT_HEX:
	case MW_PERF_RAW_FRACTION:
	case MW_PERF_LARGE_RAW_FRACTION:
	case MW_PERF_ELAPSED_TIME:
		return false;
	default:
		return mw_perf_type_name(type) && !mw_perf_type_is_base(type) &&
		       type != MW_PERF_COUNTER_TEXT && type != MW_PERF_COUNTER_NODATA;
	}
}

int mw_perf_raw_sample_get(const struct mw_perf_snapshot *s, const struct mw_perf_object *o,
			   const struct mw_perf_instance *i, size_t ci,
			   struct mw_perf_raw_sample *r)
{
	const struct mw_perf_counter_def *c = &o->counters[ci];

	memset(r, 0, sizeof(*r));
	r->type = c->type;
	r->a = mw_perf_raw(s, i, c);
	if (mw_perf_type_needs_base(c->type)) {
		if (ci + 1 >= o->ncounters || !mw_perf_type_is_base(o->counters[ci + 1].type))
			return -1;
		r->b = mw_perf_raw(s, i, &o->counters[ci + 1]);
	}
	switch (c->type & 0x00300000) {
	case 0x00100000:	/* PERF_TIMER_100NS */
		r->time = s->perf_time_100ns;
		r->freq = 10000000;
		break;
	case 0x00200000:	/* PERF_OBJECT_TIMER */
		r->time = o->perf_time;
		r->freq = o->perf_freq;
		break;
	default:
		r->time = s->perf_time;
		r->freq = s->perf_freq;
		break;
	}
	return 0;
}

enum mw_perf_calc mw_perf_compute(const struct mw_perf_raw_sample *cur,
				  const struct mw_perf_raw_sample *prev, double *value)
{
	double dn, dt, db;
	uint32_t t = cur->type;

	if (mw_perf_type_is_base(t))
		return MW_PERF_BASE;
	switch (t) {
	case MW_PERF_COUNTER_RAWCOUNT:
	case MW_PERF_COUNTER_RAWCOUNT_HEX:
	case MW_PERF_COUNTER_LARGE_RAWCOUNT:
	case MW_PERF_COUNTER_LARGE_RAWCOUNT_HEX:
		*value = (double)cur->a;
		return MW_PERF_VALUE;
	case MW_PERF_RAW_FRACTION:
	case MW_PERF_LARGE_RAW_FRACTION:
		if (cur->b == 0)
			return MW_PERF_DROPPED;
		*value = 100.0 * (double)cur->a / (double)cur->b;
		return MW_PERF_VALUE;
	case MW_PERF_ELAPSED_TIME:
		/* Raw is the start time in the object's time base. */
		if (cur->freq <= 0 || (uint64_t)cur->time < cur->a)
			return MW_PERF_DROPPED;
		*value = (double)((uint64_t)cur->time - cur->a) / (double)cur->freq;
		return MW_PERF_VALUE;
	default:
		break;
	}
	if (!mw_perf_type_is_rate(t))
		return MW_PERF_UNSUPPORTED;
	if (!prev)
		return MW_PERF_NEED_PREVIOUS;
	if (prev->type != t)
		return MW_PERF_DROPPED;
	if (cur->a < prev->a)
		return MW_PERF_DROPPED;	/* counter reset */
	dn = (double)(cur->a - prev->a);
	dt = (double)cur->time - (double)prev->time;
	db = cur->b >= prev->b ? (double)(cur->b - prev->b) : -1.0;

	switch (t) {
	case MW_PERF_COUNTER_DELTA:
	case MW_PERF_COUNTER_LARGE_DELTA:
		*value = dn;
		return MW_PERF_VALUE;
	case MW_PERF_SAMPLE_FRACTION:
		if (db <= 0)
			return MW_PERF_DROPPED;
		*value = 100.0 * dn / db;
		return MW_PERF_VALUE;
	case MW_PERF_AVERAGE_BULK:
		if (db <= 0)
			return MW_PERF_DROPPED;
		*value = dn / db;
		return MW_PERF_VALUE;
	case MW_PERF_AVERAGE_TIMER:
		if (db <= 0 || cur->freq <= 0)
			return MW_PERF_DROPPED;
		*value = (dn / (double)cur->freq) / db;
		return MW_PERF_VALUE;
	case MW_PERF_PRECISION_SYSTEM_TIMER:
	case MW_PERF_PRECISION_100NS_TIMER:
	case MW_PERF_PRECISION_OBJECT_TIMER:
		/* The base is the provider's own timestamp. */
		if (db <= 0)
			return MW_PERF_DROPPED;
		*value = 100.0 * dn / db;
		return MW_PERF_VALUE;
	default:
		break;
	}
	if (dt <= 0)
		return MW_PERF_DROPPED;	/* time base did not advance */
	switch (t) {
	case MW_PERF_COUNTER_COUNTER:
	case MW_PERF_COUNTER_BULK_COUNT:
	case MW_PERF_SAMPLE_COUNTER:
		if (cur->freq <= 0)
			return MW_PERF_DROPPED;
		*value = dn / (dt / (double)cur->freq);
		return MW_PERF_VALUE;
	case MW_PERF_COUNTER_TIMER:
	case MW_PERF_OBJ_TIME_TIMER:
	case MW_PERF_100NSEC_TIMER:
		*value = 100.0 * dn / dt;
		return MW_PERF_VALUE;
	case MW_PERF_COUNTER_TIMER_INV:
	case MW_PERF_100NSEC_TIMER_INV:
		*value = 100.0 * (1.0 - dn / dt);
		return MW_PERF_VALUE;
	case MW_PERF_COUNTER_QUEUELEN_TYPE:
	case MW_PERF_COUNTER_LARGE_QUEUELEN_TYPE:
	case MW_PERF_COUNTER_100NS_QUEUELEN_TYPE:
	case MW_PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE:
		*value = dn / dt;
		return MW_PERF_VALUE;
	case MW_PERF_COUNTER_MULTI_TIMER:
	case MW_PERF_100NSEC_MULTI_TIMER:
		if (cur->b == 0)
			return MW_PERF_DROPPED;
		*value = 100.0 * (dn / dt) / (double)cur->b;
		return MW_PERF_VALUE;
	case MW_PERF_COUNTER_MULTI_TIMER_INV:
	case MW_PERF_100NSEC_MULTI_TIMER_INV:
		if (cur->b == 0)
			return MW_PERF_DROPPED;
		*value = 100.0 * ((double)cur->b - dn / dt);
		return MW_PERF_VALUE;
	default:
		return MW_PERF_UNSUPPORTED;
	}
}

/* Start time of an instance from its Elapsed Time counter, or 0. */
static uint64_t instance_start(const struct mw_perf_snapshot *s, const struct mw_perf_object *o,
			       const struct mw_perf_instance *i)
{
	size_t c;

	for (c = 0; c < o->ncounters; c++)
		if (o->counters[c].type == MW_PERF_ELAPSED_TIME)
			return mw_perf_raw(s, i, &o->counters[c]);
	return 0;
}

static bool same_identity(const struct mw_perf_snapshot *sa, const struct mw_perf_object *oa,
			  const struct mw_perf_instance *a, const struct mw_perf_snapshot *sb,
			  const struct mw_perf_object *ob, const struct mw_perf_instance *b)
{
	if (a->pid >= 0 && b->pid >= 0 && a->pid != b->pid)
		return false;
	if (a->unique_id != MW_PERF_NO_UNIQUE_ID && a->unique_id != b->unique_id)
		return false;
	return instance_start(sa, oa, a) == instance_start(sb, ob, b);
}

static bool same_full_name(const struct mw_perf_snapshot *sa, const struct mw_perf_instance *a,
			   const struct mw_perf_snapshot *sb, const struct mw_perf_instance *b)
{
	if (a->full_off == SIZE_MAX || b->full_off == SIZE_MAX)
		return a->full_off == b->full_off;
	return !strcmp(sa->names + a->full_off, sb->names + b->full_off);
}

const struct mw_perf_instance *mw_perf_match_instance(
	const struct mw_perf_snapshot *s_cur, const struct mw_perf_object *o_cur,
	const struct mw_perf_instance *cur, const struct mw_perf_snapshot *s_prev,
	const struct mw_perf_object *o_prev, bool *changed)
{
	size_t pos = (size_t)(cur - o_cur->instances), i;
	const struct mw_perf_instance *byname = NULL;

	*changed = false;
	/* Same position, same name: the common case when nothing changed. */
	if (pos < o_prev->ninstances && same_full_name(s_cur, cur, s_prev, &o_prev->instances[pos]))
		byname = &o_prev->instances[pos];
	for (i = 0; !byname && i < o_prev->ninstances; i++)
		if (same_full_name(s_cur, cur, s_prev, &o_prev->instances[i]))
			byname = &o_prev->instances[i];
	if (byname && same_identity(s_cur, o_cur, cur, s_prev, o_prev, byname))
		return byname;
	/* "#n" shifts when a same-name process exits: look for the pid. */
	if (cur->pid >= 0) {
		for (i = 0; i < o_prev->ninstances; i++) {
			const struct mw_perf_instance *p = &o_prev->instances[i];

			if (p->pid == cur->pid && !strcmp(s_cur->names + cur->name_off,
							  s_prev->names + p->name_off) &&
			    same_identity(s_cur, o_cur, cur, s_prev, o_prev, p))
				return p;
		}
	}
	if (byname)
		*changed = true;
	return NULL;
}

/* --- counter paths --------------------------------------------------------- */

int mw_perf_path_parse(const char *text, struct mw_perf_path *p, struct mw_err *err)
{
	const char *s = text, *obj_end, *ctr;
	size_t n;

	memset(p, 0, sizeof(*p));
	if (s[0] == '\\' && s[1] == '\\') {	/* \\machine\... : skip the machine */
		s = strchr(s + 2, '\\');
		if (!s)
			return mw_error(err, "counter path '%s': no object after the machine", text);
	}
	if (*s != '\\')
		return mw_error(err, "counter path '%s' does not start with '\\'", text);
	s++;
	ctr = strrchr(s, '\\');
	if (!ctr || ctr == s || !ctr[1])
		return mw_error(err, "counter path '%s' is not \\Object\\Counter", text);
	obj_end = ctr;
	if (ctr[-1] == ')') {
		const char *open = NULL, *q;

		for (q = s; q < ctr; q++)
			if (*q == '(') {
				open = q;
				break;
			}
		if (!open)
			return mw_error(err, "counter path '%s': ')' without '('", text);
		n = (size_t)(ctr - 1 - open - 1);
		if (n >= sizeof(p->instance))
			return mw_error(err, "counter path '%s': instance too long", text);
		memcpy(p->instance, open + 1, n);
		p->instance[n] = '\0';
		p->has_instance = true;
		obj_end = open;
	}
	n = (size_t)(obj_end - s);
	if (n == 0 || n >= sizeof(p->object))
		return mw_error(err, "counter path '%s': bad object name", text);
	memcpy(p->object, s, n);
	p->object[n] = '\0';
	if (strlen(ctr + 1) >= sizeof(p->counter))
		return mw_error(err, "counter path '%s': counter name too long", text);
	strcpy(p->counter, ctr + 1);
	return 0;
}

bool mw_perf_path_match_instance(const struct mw_perf_path *p,
				 const struct mw_perf_snapshot *s,
				 const struct mw_perf_instance *i)
{
	const char *full;
	size_t n;

	if (!p->has_instance || !strcmp(p->instance, "*"))
		return true;
	if (i->full_off == SIZE_MAX)
		return false;
	full = s->names + i->full_off;
	if (ieq(p->instance, full))
		return true;
	/* "name#0" is the first "name" */
	n = strlen(p->instance);
	if (i->dup_index == 0 && n > 2 && !strcmp(p->instance + n - 2, "#0") &&
	    strlen(full) == n - 2 && nieq(p->instance, full, n - 2))
		return true;
	return false;
}

/* --- JSON ------------------------------------------------------------------ */

static void json_str(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, double v)
{
	if (isnan(v) || isinf(v))
		fputs("null", f);
	else
		fprintf(f, "%.17g", v);
}

static const char *title_or_index(const struct mw_perf_titles *t, uint32_t idx, char *buf,
				  size_t size)
{
	const char *n = mw_perf_title(t, idx);

	if (n)
		return n;
	snprintf(buf, size, "#%" PRIu32, idx);
	return buf;
}

int mw_perf_decode_json(void *file, const struct mw_perf_titles *titles,
			const struct mw_perf_snapshot *cur, const struct mw_perf_snapshot *prev)
{
	FILE *f = file;
	size_t k, i, c;
	char nb[32];

	fputs("{\"system\":", f);
	json_str(f, cur->system_name);
	fprintf(f, ",\"version\":%" PRIu32 ",\"revision\":%" PRIu32 ",\"perf_time\":%" PRId64
		",\"perf_freq\":%" PRId64 ",\"perf_time_100ns\":%" PRId64
		",\"system_time\":\"%04u-%02u-%02uT%02u:%02u:%02u.%03uZ\"",
		cur->version, cur->revision, cur->perf_time, cur->perf_freq,
		cur->perf_time_100ns, cur->system_time[0], cur->system_time[1],
		cur->system_time[3], cur->system_time[4], cur->system_time[5],
		cur->system_time[6], cur->system_time[7]);
	fprintf(f, ",\"snapshots\":%d,\"objects\":[", prev ? 2 : 1);
	for (k = 0; k < cur->nobjects; k++) {
		const struct mw_perf_object *o = &cur->objects[k];
		const struct mw_perf_object *po = prev ? mw_perf_snapshot_object(prev, o->name_index)
						       : NULL;

		fprintf(f, "%s{\"index\":%" PRIu32 ",\"name\":", k ? "," : "", o->name_index);
		json_str(f, title_or_index(titles, o->name_index, nb, sizeof(nb)));
		fprintf(f, ",\"instances\":[");
		for (i = 0; i < o->ninstances; i++) {
			const struct mw_perf_instance *in = &o->instances[i];
			const struct mw_perf_instance *pin = NULL;
			bool changed = false, first = true;

			if (po)
				pin = mw_perf_match_instance(cur, o, in, prev, po, &changed);
			fprintf(f, "%s{\"name\":", i ? "," : "");
			json_str(f, mw_perf_name(cur, in->full_off));
			fputs(",\"parent\":", f);
			json_str(f, mw_perf_name(cur, in->parent_off));
			if (in->pid >= 0)
				fprintf(f, ",\"pid\":%" PRId64, in->pid);
			fputs(",\"counters\":{", f);
			for (c = 0; c < o->ncounters; c++) {
				const struct mw_perf_counter_def *d = &o->counters[c];
				struct mw_perf_raw_sample r, pr;
				const char *tn = mw_perf_type_name(d->type);
				const char *cn = title_or_index(titles, d->name_index, nb, sizeof(nb));
				bool has_pr = false, dup = false;
				enum mw_perf_calc rc;
				double v = 0;
				size_t j;

				if (mw_perf_type_is_base(d->type))
					continue;
				for (j = 0; j < c; j++)
					if (o->counters[j].name_index == d->name_index &&
					    !mw_perf_type_is_base(o->counters[j].type))
						dup = true;
				fprintf(f, "%s", first ? "" : ",");
				first = false;
				if (dup) {
					char key[160];

					snprintf(key, sizeof(key), "%s [%zu]", cn, c);
					json_str(f, key);
				} else {
					json_str(f, cn);
				}
				fputs(":{\"type\":", f);
				if (tn) {
					json_str(f, tn);
				} else {
					char hex[16];

					snprintf(hex, sizeof(hex), "0x%08" PRIx32, d->type);
					json_str(f, hex);
				}
				if (mw_perf_raw_sample_get(cur, o, in, c, &r)) {
					fprintf(f, ",\"raw\":%" PRIu64 ",\"value\":null,"
						"\"status\":\"no base\"}", r.a);
					continue;
				}
				fprintf(f, ",\"raw\":%" PRIu64, r.a);
				if (mw_perf_type_needs_base(d->type))
					fprintf(f, ",\"base\":%" PRIu64, r.b);
				if (pin && c < po->ncounters && po->counters[c].type == d->type &&
				    !mw_perf_raw_sample_get(prev, po, pin, c, &pr))
					has_pr = true;
				rc = mw_perf_compute(&r, has_pr ? &pr : NULL, &v);
				fputs(",\"value\":", f);
				if (rc == MW_PERF_VALUE)
					json_num(f, v);
				else
					fputs("null", f);
				if (rc != MW_PERF_VALUE) {
					const char *why = rc == MW_PERF_NEED_PREVIOUS
						? (changed ? "instance changed" : "needs two snapshots")
						: rc == MW_PERF_DROPPED ? "dropped"
						: rc == MW_PERF_UNSUPPORTED ? "unsupported type"
						: "no base";
					fputs(",\"status\":", f);
					json_str(f, why);
				}
				fputc('}', f);
			}
			fputs("}}", f);
		}
		fputs("]}", f);
	}
	fputs("]}\n", f);
	return ferror(f) ? -1 : 0;
}
