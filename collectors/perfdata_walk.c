/*
 * perfdata_walk.c - walking a PERF_DATA_BLOCK (winperf.h): the data block
 * header, each PERF_OBJECT_TYPE, its PERF_COUNTER_DEFINITIONs, its
 * PERF_INSTANCE_DEFINITIONs and PERF_COUNTER_BLOCKs, by their length
 * fields; instance names (UTF-16 or a code page), parent names, perfmon's
 * "#n" numbering and the pid of Process instances.
 *
 * Nothing here trusts the buffer: every read goes through rd16/rd32/rd64
 * after a bounds check against the length the enclosing structure
 * declares, and the enclosing lengths are checked against the buffer.
 * Counts are checked against the bytes they would need before anything
 * is allocated, so a lying count cannot make us allocate gigabytes.
 */
#include "perfdata_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf16.h"
#include "base/xalloc.h"

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
uint32_t mw_perf_type_bytes(uint32_t type, uint32_t declared)
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
	switch (mw_perf_type_bytes(c->type, c->size)) {
	case 4:
		return mw_load32(p);
	case 8:
		return mw_load64(p);
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
			if (sl->hash == h && mw_perf_ieq(s->names + sl->off, name)) {
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
	tot = mw_load32(b + MW_POT_TOTAL_LENGTH);
	def_len = mw_load32(b + MW_POT_DEFINITION_LENGTH);
	hdr_len = mw_load32(b + MW_POT_HEADER_LENGTH);
	o->name_index = mw_load32(b + MW_POT_NAME_INDEX);
	o->help_index = mw_load32(b + MW_POT_HELP_INDEX);
	o->detail_level = mw_load32(b + MW_POT_DETAIL_LEVEL);
	ncounters = mw_load32(b + MW_POT_NUM_COUNTERS);
	o->default_counter = (int32_t)mw_load32(b + MW_POT_DEFAULT_COUNTER);
	ninst = (int32_t)mw_load32(b + MW_POT_NUM_INSTANCES);
	o->num_instances = ninst;
	o->code_page = mw_load32(b + MW_POT_CODE_PAGE);
	o->perf_time = (int64_t)mw_load64(b + MW_POT_PERF_TIME);
	o->perf_freq = (int64_t)mw_load64(b + MW_POT_PERF_FREQ);

	if (tot > avail)
		return mw_error(err, "object %zu (index %" PRIu32 "): TotalByteLength %" PRIu32
				" runs past the data block (%zu bytes left)", k, o->name_index,
				tot, avail);
	*obj_len = tot;	/* from here on a bad object can be stepped over */
	if (hdr_len < MW_POT_SIZE || def_len < hdr_len || def_len > tot)
		return mw_error(err, "object %zu (index %" PRIu32 "): lengths do not nest "
				"(header %" PRIu32 ", definitions %" PRIu32 ", total %" PRIu32 ")",
				k, o->name_index, hdr_len, def_len, tot);
	if (ncounters > (def_len - hdr_len) / MW_PCD_SIZE)
		return mw_error(err, "object %zu (index %" PRIu32 "): %" PRIu32 " counters do "
				"not fit in %" PRIu32 " bytes of definitions", k, o->name_index,
				ncounters, def_len - hdr_len);

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
		bl = mw_load32(b + p + MW_PCD_BYTE_LENGTH);
		if (bl < MW_PCD_SIZE || bl > def_len - p)
			return mw_error(err, "object %" PRIu32 ": counter definition %" PRIu32
					" has ByteLength %" PRIu32, o->name_index, c, bl);
		d->name_index = mw_load32(b + p + MW_PCD_NAME_INDEX);
		d->help_index = mw_load32(b + p + MW_PCD_HELP_INDEX);
		d->default_scale = (int32_t)mw_load32(b + p + MW_PCD_DEFAULT_SCALE);
		d->detail_level = mw_load32(b + p + MW_PCD_DETAIL_LEVEL);
		d->type = mw_load32(b + p + MW_PCD_COUNTER_TYPE);
		d->size = mw_load32(b + p + MW_PCD_COUNTER_SIZE);
		d->offset = mw_load32(b + p + MW_PCD_COUNTER_OFFSET);
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
			bl = mw_load32(b + p + MW_PID_BYTE_LENGTH);
			in->parent_object = mw_load32(b + p + MW_PID_PARENT_OBJECT);
			in->parent_instance = mw_load32(b + p + MW_PID_PARENT_INSTANCE);
			in->unique_id = (int32_t)mw_load32(b + p + MW_PID_UNIQUE_ID);
			noff = mw_load32(b + p + MW_PID_NAME_OFFSET);
			nlen = mw_load32(b + p + MW_PID_NAME_LENGTH);
			if (bl < MW_PID_SIZE || bl > tot - p)
				return mw_error(err, "object %" PRIu32 ": instance %zu has ByteLength "
						"%" PRIu32, o->name_index, i, bl);
			if (nlen && (noff < MW_PID_SIZE || noff > bl || nlen > bl - noff))
				return mw_error(err, "object %" PRIu32 ": instance %zu name (%" PRIu32
						" bytes at %" PRIu32 ") lies outside its %" PRIu32
						"-byte definition", o->name_index, i, nlen, noff, bl);
			if (in->unique_id != MW_PERF_NO_UNIQUE_ID) {
				/* Identified by number, not name (winperf.h): PDH
				 * names such an instance by its UniqueID. */
				char num[16];
				int nn = snprintf(num, sizeof(num), "%" PRId32, in->unique_id);

				in->name_off = mw_perf_pool_put_bytes(&s->names, &s->names_len,
								      &s->names_cap,
								      (const unsigned char *)num,
								      (size_t)nn);
			} else if (o->code_page == 0)
				in->name_off = mw_perf_pool_put_utf16(&s->names, &s->names_len, &s->names_cap,
							      b + p + noff, nlen / 2);
			else
				in->name_off = mw_perf_pool_put_bytes(&s->names, &s->names_len, &s->names_cap,
							      b + p + noff, nlen);
			in->full_off = in->name_off;
			p += bl;
		}
		if (p > tot || tot - p < MW_PCB_SIZE)
			return mw_error(err, "object %" PRIu32 ": counter block of instance %zu "
					"truncated", o->name_index, i);
		blk = mw_load32(b + p + MW_PCB_BYTE_LENGTH);
		if (blk < MW_PCB_SIZE || blk > tot - p)
			return mw_error(err, "object %" PRIu32 ": counter block of instance %zu "
					"has ByteLength %" PRIu32 " (%zu bytes left)", o->name_index,
					i, blk, tot - p);
		in->block_off = off + p;
		in->block_len = blk;
		for (c = 0; c < ncounters; c++) {
			const struct mw_perf_counter_def *d = &o->counters[c];
			uint32_t need = mw_perf_type_bytes(d->type, d->size);

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
			    mw_perf_type_bytes(o->counters[c].type, o->counters[c].size) >= 4)
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
	return mw_perf_snapshot_parse_ex(s, buf, len, 0, err);
}

int mw_perf_snapshot_parse_ex(struct mw_perf_snapshot *s, const unsigned char *buf, size_t len,
			      unsigned flags, struct mw_err *err)
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
	if (mw_load32(buf + MW_PDB_LITTLE_ENDIAN) != 1)
		return mw_error(err, "perf data block is not little-endian");
	s->version = mw_load32(buf + MW_PDB_VERSION);
	s->revision = mw_load32(buf + MW_PDB_REVISION);
	total = mw_load32(buf + MW_PDB_TOTAL_LENGTH);
	hdr = mw_load32(buf + MW_PDB_HEADER_LENGTH);
	nobj = mw_load32(buf + MW_PDB_NUM_OBJECTS);
	for (k = 0; k < 8; k++)
		s->system_time[k] = mw_load16(buf + MW_PDB_SYSTEM_TIME + 2 * k);
	s->perf_time = (int64_t)mw_load64(buf + MW_PDB_PERF_TIME);
	s->perf_freq = (int64_t)mw_load64(buf + MW_PDB_PERF_FREQ);
	s->perf_time_100ns = (int64_t)mw_load64(buf + MW_PDB_PERF_TIME_100NS);
	name_len = mw_load32(buf + MW_PDB_SYSTEM_NAME_LENGTH);
	name_off = mw_load32(buf + MW_PDB_SYSTEM_NAME_OFFSET);
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

			mw_perf_pool_put_utf16(&pool, &pl, &pc, buf + name_off, name_len / 2);
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
		struct mw_perf_object *o = &s->objects[s->nobjects];
		size_t olen = 0;
		struct mw_err oerr;
		int rc = parse_object(s, off, total, k, o, &olen, &oerr);

		if (rc == 0 && olen >= MW_POT_SIZE) {
			s->nobjects++;
			off += olen;
			continue;
		}
		if (rc == 0)
			mw_error(&oerr, "object %zu: TotalByteLength %zu", k, olen);
		free(o->counters);
		free(o->instances);
		memset(o, 0, sizeof(*o));
		if (!(flags & MW_PERF_PARSE_SKIP_BAD_OBJECTS)) {
			mw_perf_snapshot_release(s);
			if (err)
				*err = oerr;
			return -1;
		}
		if (!s->skipped_objects)
			snprintf(s->skip_note, sizeof(s->skip_note), "%s", oerr.msg);
		s->skipped_objects++;
		if (olen < MW_POT_SIZE) {
			/* Its length lies: the objects after it cannot be found. */
			s->skipped_objects += nobj - k - 1;
			break;
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
