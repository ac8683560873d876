/*
 * chunk_tail.c - the chunk_tail records (chunk_tail.h): written by the
 * writer once per flush, laid over the chunk blobs by every reader of raw
 * points and folded into the chunks at start-up (store.c).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chunk_tail.h"
#include "codec.h"
#include "base/xalloc.h"

/* ---- varints ---------------------------------------------------------------- */

static uint64_t zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static int64_t unzigzag(uint64_t u)
{
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

static void put_var(struct mw_tail_row *w, uint64_t v)
{
	MW_GROW(w->buf, w->cap, w->len + 10);
	do {
		w->buf[w->len++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

/* 0 and *v, or -1 past end. */
static int get_var(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (*p < end && shift < 64) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return 0;
		shift += 7;
	}
	return -1;
}

/* ---- writer ------------------------------------------------------------------ */

void mw_tail_row_put(struct mw_tail_row *w, int64_t chunk_id, size_t from,
		     const uint8_t *bytes, size_t nbytes, uint32_t npoints,
		     int64_t last_ts, double last_value)
{
	put_var(w, zigzag(chunk_id - w->prev_id));
	put_var(w, from);
	put_var(w, nbytes);
	put_var(w, npoints);
	put_var(w, zigzag((int64_t)((uint64_t)last_ts - (uint64_t)w->prev_ts)));
	w->prev_id = chunk_id;
	w->prev_ts = last_ts;
	/* integral values (the usual memory figure) as a varint; -0.0 and
	 * anything past 2^53 as its bits */
	if (last_value == floor(last_value) && fabs(last_value) < 9007199254740992.0 &&
	    !(last_value == 0 && signbit(last_value))) {
		put_var(w, zigzag((int64_t)last_value) << 1);
	} else {
		uint64_t u;
		int i;

		memcpy(&u, &last_value, sizeof(u));
		put_var(w, 1);
		MW_GROW(w->buf, w->cap, w->len + 8);
		for (i = 0; i < 8; i++)
			w->buf[w->len++] = (uint8_t)(u >> (8 * i));
	}
	MW_GROW(w->buf, w->cap, w->len + nbytes);
	memcpy(w->buf + w->len, bytes, nbytes);
	w->len += nbytes;
}

void mw_tail_row_clear(struct mw_tail_row *w)
{
	w->len = 0;
	w->prev_id = w->prev_ts = 0;
}

void mw_tail_row_release(struct mw_tail_row *w)
{
	free(w->buf);
	memset(w, 0, sizeof(*w));
}

/* ---- readers ------------------------------------------------------------------ */

struct tail_rec {
	int64_t id, last_ts;
	double value;
	size_t off;		/* of its bytes in the map's data */
	uint32_t from, nbytes, npoints;
	int32_t next;		/* the chunk's next record, -1: none */
};

struct tail_ent {
	int64_t id;		/* 0: empty slot (chunk ids start at 1) */
	int32_t first, last;	/* records, in row order */
};

struct mw_tail_map {
	uint8_t *data;
	size_t len, cap;
	struct tail_rec *recs;
	size_t nrecs, recs_cap;
	struct tail_ent *ents;
	size_t mask;		/* ents has mask + 1 slots */
	int64_t *ids;
	size_t nids;
};

static size_t slot_of(const struct mw_tail_map *m, int64_t id)
{
	size_t h = (size_t)((uint64_t)id * UINT64_C(0x9E3779B97F4A7C15) >> 17) & m->mask;

	while (m->ents[h].id && m->ents[h].id != id)
		h = (h + 1) & m->mask;
	return h;
}

static const struct tail_ent *find(const struct mw_tail_map *m, int64_t id)
{
	const struct tail_ent *e;

	if (!m || id <= 0)
		return NULL;
	e = &m->ents[slot_of(m, id)];
	return e->id ? e : NULL;
}

/* Parse one row's records (data[start, end)); -1 when damaged. */
static int parse_row(struct mw_tail_map *m, size_t start, size_t end)
{
	const uint8_t *p = m->data + start, *stop = m->data + end;
	int64_t id = 0, ts = 0;

	while (p < stop) {
		uint64_t did, from, nbytes, npoints, dts, v;
		struct tail_rec r;

		if (get_var(&p, stop, &did) || get_var(&p, stop, &from) ||
		    get_var(&p, stop, &nbytes) || get_var(&p, stop, &npoints) ||
		    get_var(&p, stop, &dts) || get_var(&p, stop, &v))
			return -1;
		id += unzigzag(did);
		ts = (int64_t)((uint64_t)ts + (uint64_t)unzigzag(dts));
		if (v & 1) {
			uint64_t u = 0;
			int i;

			if (stop - p < 8)
				return -1;
			for (i = 0; i < 8; i++)
				u |= (uint64_t)*p++ << (8 * i);
			memcpy(&r.value, &u, sizeof(u));
		} else {
			r.value = (double)unzigzag(v >> 1);
		}
		if (from > UINT32_MAX || npoints > UINT32_MAX || nbytes > (uint64_t)(stop - p))
			return -1;
		r.id = id;
		r.last_ts = ts;
		r.off = (size_t)(p - m->data);
		r.from = (uint32_t)from;
		r.nbytes = (uint32_t)nbytes;
		r.npoints = (uint32_t)npoints;
		r.next = -1;
		p += nbytes;
		MW_GROW(m->recs, m->recs_cap, m->nrecs + 1);
		m->recs[m->nrecs++] = r;
	}
	return 0;
}

static void index_recs(struct mw_tail_map *m)
{
	size_t i, slots = 16;

	while (slots < m->nrecs * 2)
		slots *= 2;
	m->ents = mw_xcalloc(slots, sizeof(*m->ents));
	m->mask = slots - 1;
	m->ids = mw_xmalloc((m->nrecs ? m->nrecs : 1) * sizeof(*m->ids));
	for (i = 0; i < m->nrecs; i++) {
		struct tail_ent *e;

		if (m->recs[i].id <= 0)
			continue;
		e = &m->ents[slot_of(m, m->recs[i].id)];
		if (!e->id) {
			e->id = m->recs[i].id;
			e->first = e->last = (int32_t)i;
			m->ids[m->nids++] = e->id;
		} else {
			m->recs[e->last].next = (int32_t)i;
			e->last = (int32_t)i;
		}
	}
}

int mw_tail_map_load(sqlite3 *db, struct mw_tail_map **out, struct mw_err *err)
{
	struct mw_tail_map *m;
	sqlite3_stmt *st;
	size_t *ends = NULL, nrows = 0, ends_cap = 0, i, start = 0;
	int rc;

	*out = NULL;
	if (sqlite3_prepare_v2(db, "SELECT data FROM chunk_tail ORDER BY id", -1, &st, NULL) !=
	    SQLITE_OK)
		return 0;	/* no such table: nothing appended */
	m = mw_xcalloc(1, sizeof(*m));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		size_t n = (size_t)sqlite3_column_bytes(st, 0);

		MW_GROW(m->data, m->cap, m->len + n + 1);
		if (n)
			memcpy(m->data + m->len, sqlite3_column_blob(st, 0), n);
		m->len += n;
		MW_GROW(ends, ends_cap, nrows + 1);
		ends[nrows++] = m->len;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(ends);
		mw_tail_map_free(m);
		return mw_error(err, "cannot read the chunk tails: %s", sqlite3_errmsg(db));
	}
	/* a damaged row is left out whole (its chunks read as last rewritten) */
	for (i = 0; i < nrows; i++) {
		size_t keep = m->nrecs;

		if (parse_row(m, start, ends[i]))
			m->nrecs = keep;
		start = ends[i];
	}
	free(ends);
	if (!m->nrecs) {
		mw_tail_map_free(m);
		return 0;
	}
	index_recs(m);
	*out = m;
	return 0;
}

void mw_tail_map_free(struct mw_tail_map *m)
{
	if (!m)
		return;
	free(m->data);
	free(m->recs);
	free(m->ents);
	free(m->ids);
	free(m);
}

size_t mw_tail_map_bytes(const struct mw_tail_map *m)
{
	if (!m)
		return 0;
	return sizeof(*m) + m->cap + m->recs_cap * sizeof(*m->recs) +
	       (m->mask + 1) * sizeof(*m->ents) + (m->nrecs ? m->nrecs : 1) * sizeof(*m->ids);
}

const int64_t *mw_tail_map_ids(const struct mw_tail_map *m, size_t *n)
{
	*n = m ? m->nids : 0;
	return m ? m->ids : NULL;
}

/* The count and header length of a compact blob; -1 for any other. */
static int64_t compact_header(const uint8_t *blob, size_t len, size_t *h)
{
	const uint8_t *p = blob + 1;
	uint64_t n;

	if (len < 2 || (blob[0] != MW_CHUNK_FMT_INT_C && blob[0] != MW_CHUNK_FMT_FLOAT_C) ||
	    get_var(&p, blob + len, &n) || n > UINT32_MAX)
		return -1;
	*h = (size_t)(p - blob);
	return (int64_t)n;
}

const uint8_t *mw_tail_merge(const struct mw_tail_map *m, int64_t id, const uint8_t *blob,
			     size_t *len, struct mw_tail_scratch *sc)
{
	const struct tail_ent *e = find(m, id);
	int64_t count, n;
	size_t h, end, need, o;
	int32_t i;
	uint64_t v;

	if (!e || (count = compact_header(blob, *len, &h)) < 0)
		return blob;
	n = count;
	end = *len - h;
	for (i = e->first; i >= 0; i = m->recs[i].next) {
		const struct tail_rec *r = &m->recs[i];

		if (r->npoints <= n || r->from > end)
			continue;	/* held by the blob, or a gap: never laid */
		n = r->npoints;
		if (r->from + r->nbytes > end)
			end = r->from + r->nbytes;
	}
	if (n == count)
		return blob;
	need = 1 + 5 + end;
	MW_GROW(sc->buf, sc->cap, need);
	sc->buf[0] = blob[0];
	o = 1;
	v = (uint64_t)n;
	do {
		sc->buf[o++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	memset(sc->buf + o, 0, end);
	memcpy(sc->buf + o, blob + h, *len - h);
	n = count;
	end = *len - h;	/* the same pass again, laying the bytes */
	for (i = e->first; i >= 0; i = m->recs[i].next) {
		const struct tail_rec *r = &m->recs[i];

		if (r->npoints <= n || r->from > end)
			continue;
		n = r->npoints;
		memcpy(sc->buf + o + r->from, m->data + r->off, r->nbytes);
		if (r->from + r->nbytes > end)
			end = r->from + r->nbytes;
	}
	*len = o + end;
	return sc->buf;
}

int mw_tail_newest(const struct mw_tail_map *m, int64_t id, int64_t npoints, int64_t *ts,
		   double *value, int64_t *n)
{
	const struct tail_ent *e = find(m, id);
	const struct tail_rec *best = NULL;
	int32_t i;

	if (!e)
		return 0;
	for (i = e->first; i >= 0; i = m->recs[i].next)
		if (m->recs[i].npoints > npoints &&
		    (!best || m->recs[i].npoints >= best->npoints))
			best = &m->recs[i];
	if (!best)
		return 0;
	*ts = best->last_ts;
	*value = best->value;
	*n = best->npoints;
	return 1;
}
