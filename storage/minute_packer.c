/*
 * minute_packer.c - the maintenance step that packs each series' closed
 * hours of 1-minute rows (rollup_1m_data) into one row of rollup_1m_pack
 * (minute_pack.h), a bounded piece of work after each flush.
 *
 * An hour is packed once rollup_1h_data has its row: the writer wrote the
 * hour's bucket, so the hour is over, no bucket in progress includes it
 * and start-up after a crash rebuilds nothing from its minutes.  Its
 * loose rows are read, laid over the hour's pack if it has one (a loose
 * row replaces the packed minute: the writer merges late points through
 * rollup_1m_all, so a loose row always holds its whole bucket), the pack
 * written and the loose rows deleted, all inside maintain.c's
 * transaction.
 *
 * Bounds: PACK_SERIES series and PACK_ROWS minute rows a step, resuming
 * where the last step stopped (the series, and the minute within it, so
 * a series with more rows than a step takes, or with rows of hours not
 * yet closed, never holds the sweep up).  In steady state each series
 * has an hour to pack per hour; a file written before the packs drains
 * at up to PACK_ROWS rows a step.  A sweep that finds the store wrote no
 * hour's row and no merged minute while it ran leaves the packer at rest
 * until the store writes one (store_impl.h, pack_epoch).
 *
 * Uses the store's connection and minute_pack.c.  Used by maintain.c;
 * its state is freed with the store (store.c).
 */
#include <stdlib.h>

#include "store_impl.h"
#include "db.h"
#include "minute_pack.h"
#include "base/xalloc.h"

#define PACK_SERIES 256
#define PACK_ROWS 8192
/* A blob past this spills out of its b-tree page into overflow pages
 * (WITHOUT ROWID, 4 KiB pages: about 1,000 bytes in the page) and costs
 * more than the rows: an hour of non-integral values (8 bytes a number)
 * is left loose. */
#define PACK_MAX_BYTES 1000

enum { PK_IDS, PK_NEWEST_HOUR, PK_LOOSE, PK_HAS_HOUR, PK_GET, PK_PUT, PK_DELETE, PK_COUNT };

static const char *const pk_sql[PK_COUNT] = {
	[PK_IDS] = "SELECT id FROM series WHERE id > ?1 ORDER BY id LIMIT ?2",
	[PK_NEWEST_HOUR] = "SELECT max(t) FROM rollup_1h_data WHERE series_id = ?1",
	[PK_LOOSE] = "SELECT t, base, min, max, last, sum, count FROM rollup_1m_data"
		     " WHERE series_id = ?1 AND t >= ?2 AND t < ?3 ORDER BY t LIMIT ?4",
	[PK_HAS_HOUR] = "SELECT 1 FROM rollup_1h_data WHERE series_id = ?1 AND t = ?2",
	[PK_GET] = "SELECT data FROM rollup_1m_pack WHERE series_id = ?1 AND h = ?2",
	[PK_PUT] = "INSERT OR REPLACE INTO rollup_1m_pack (series_id, h, data) VALUES (?1, ?2, ?3)",
	[PK_DELETE] = "DELETE FROM rollup_1m_data WHERE series_id = ?1 AND t >= ?2 AND t < ?3",
};

struct mw_minute_packer {
	sqlite3_stmt *st[PK_COUNT];
	int64_t cursor;		/* series id the next step resumes after */
	int64_t resume_id;	/* 0, or a series to resume at minute resume_t */
	int64_t resume_t;
	struct loose *rows;	/* one step's rows (freed after the step) */
	size_t cap;
	/* the store's pack_epoch when the sweep in progress began; a sweep
	 * that ends with the epoch unchanged found every closed hour
	 * packed, and the packer rests until the epoch moves */
	uint64_t sweep_epoch;
	bool resting;
};

struct loose {
	int64_t t;
	struct mw_mp_row r;
};

int64_t mw_minute_pack_hour(int64_t t)
{
	return t / 60 - (t % 60 < 0);
}

void mw_minute_packer_free(struct mw_store *s)
{
	int i;

	if (!s->packer)
		return;
	for (i = 0; i < PK_COUNT; i++)
		sqlite3_finalize(s->packer->st[i]);
	free(s->packer->rows);
	free(s->packer);
	s->packer = NULL;
}

static int sql_error(struct mw_store *s, struct mw_err *err)
{
	return mw_error(err, "cannot pack minutes: %s", sqlite3_errmsg(s->db));
}

/* The one integer (or NULL: *none) of a query on series id (and a). */
static int one_int(struct mw_store *s, sqlite3_stmt *st, int64_t id, int64_t a, int64_t *out,
		   bool *none, struct mw_err *err)
{
	int rc;

	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_int64(st, 2, a);
	rc = sqlite3_step(st);
	*none = rc != SQLITE_ROW || sqlite3_column_type(st, 0) == SQLITE_NULL;
	*out = *none ? 0 : sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sql_error(s, err);
}

/* Loose rows of series id from minute from on, of hours up to newest_h,
 * at most max: how many, or -1. */
static int64_t read_loose(struct mw_store *s, int64_t id, int64_t from, int64_t newest_h,
			  int64_t max, struct mw_err *err)
{
	struct mw_minute_packer *pk = s->packer;
	sqlite3_stmt *st = pk->st[PK_LOOSE];
	int64_t n = 0;
	int rc, k;

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, from);
	sqlite3_bind_int64(st, 3, (newest_h + 1) * 60);
	sqlite3_bind_int64(st, 4, max);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct loose *l;

		MW_GROW(pk->rows, pk->cap, (size_t)n + 1);
		l = &pk->rows[n++];
		l->t = sqlite3_column_int64(st, 0);
		l->r.minute = (int)(l->t - mw_minute_pack_hour(l->t) * 60);
		for (k = 0; k < MW_MP_COLS; k++)
			l->r.v[k] = sqlite3_column_double(st, 1 + k);
		l->r.count = sqlite3_column_int64(st, 6);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? n : sql_error(s, err);
}

/* The pack of (id, h) decoded into out: rows, 0 when none, -1. */
static int read_pack(struct mw_store *s, int64_t id, int64_t h, struct mw_mp_row *out,
		     struct mw_err *err)
{
	sqlite3_stmt *st = s->packer->st[PK_GET];
	int rc, n = 0;

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, h);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		n = mw_mp_decode(sqlite3_column_blob(st, 0), (size_t)sqlite3_column_bytes(st, 0), out);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return sql_error(s, err);
	if (n < 0)
		return mw_error(err, "cannot pack minutes: the pack of series %lld, hour %lld "
				"is malformed", (long long)id, (long long)h);
	return n;
}

/* Hour h of series id: its n loose rows (in minute order) over its pack. */
static int pack_hour(struct mw_store *s, int64_t id, int64_t h, const struct loose *l,
		     size_t n, struct mw_err *err)
{
	struct mw_minute_packer *pk = s->packer;
	struct mw_mp_row old[MW_MP_MINUTES], rows[MW_MP_MINUTES];
	uint8_t blob[MW_MP_MAX_BYTES];
	int nold = read_pack(s, id, h, old, err), i = 0, m = 0;
	size_t j = 0, len;
	sqlite3_stmt *st;

	if (nold < 0)
		return -1;
	/* merge by minute; a loose row replaces the packed minute */
	while (i < nold || j < n) {
		if (j < n && (i >= nold || l[j].r.minute <= old[i].minute)) {
			if (i < nold && l[j].r.minute == old[i].minute)
				i++;
			rows[m++] = l[j++].r;
		} else {
			rows[m++] = old[i++];
		}
	}
	if (!(len = mw_mp_encode(rows, (size_t)m, blob)))
		return mw_error(err, "cannot pack minutes of series %lld, hour %lld", (long long)id,
				(long long)h);
	if (len > PACK_MAX_BYTES)
		return 0;	/* loose rows stand for their minutes, packed or not */
	st = pk->st[PK_PUT];
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, h);
	sqlite3_bind_blob(st, 3, blob, (int)len, SQLITE_STATIC);
	if (mw_store_step_done(s, st, "a minute pack", "a series", err))
		return -1;
	st = pk->st[PK_DELETE];
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, h * 60);
	sqlite3_bind_int64(st, 3, h * 60 + 60);
	return mw_store_step_done(s, st, "a minute pack", "a series", err);
}

/* Pack what series id has to pack, up to *budget rows (spent from it);
 * *more: the budget ran out inside the series. */
static int pack_series(struct mw_store *s, int64_t id, int64_t from, int64_t *budget, bool *more,
		       struct mw_err *err)
{
	struct mw_minute_packer *pk = s->packer;
	int64_t newest_h, n, i, j;
	bool none;

	*more = false;
	if (one_int(s, pk->st[PK_NEWEST_HOUR], id, 0, &newest_h, &none, err))
		return -1;
	if (none || (n = read_loose(s, id, from, newest_h, *budget, err)) == 0)
		return 0;
	if (n < 0)
		return -1;
	*budget -= n;
	if (*budget == 0) {
		/* the budget may have stopped inside an hour: that hour is
		 * packed by the next step, from its first minute (packing
		 * deletes the hour's loose rows, read or not) */
		int64_t last_h = mw_minute_pack_hour(pk->rows[n - 1].t);

		*more = true;
		pk->resume_id = id;
		pk->resume_t = last_h * 60;
		while (n > 0 && mw_minute_pack_hour(pk->rows[n - 1].t) == last_h)
			n--;
	}
	for (i = 0; i < n; i = j) {
		int64_t h = mw_minute_pack_hour(pk->rows[i].t), has;

		for (j = i; j < n && mw_minute_pack_hour(pk->rows[j].t) == h; j++)
			;
		if (one_int(s, pk->st[PK_HAS_HOUR], id, h, &has, &none, err))
			return -1;
		if (!none && pack_hour(s, id, h, &pk->rows[i], (size_t)(j - i), err))
			return -1;
	}
	return 0;
}

static int prepare(struct mw_store *s, struct mw_err *err)
{
	int i;

	if (s->packer)
		return 0;
	s->packer = mw_xcalloc(1, sizeof(*s->packer));
	for (i = 0; i < PK_COUNT; i++)
		if (mw_db_prepare(s->db, &s->packer->st[i], pk_sql[i], err)) {
			mw_minute_packer_free(s);
			return mw_error_prefix(err, "minute packs");
		}
	return 0;
}

int mw_minute_pack_step(struct mw_store *s, struct mw_err *err)
{
	struct mw_minute_packer *pk;
	sqlite3_stmt *ids;
	int64_t todo[PACK_SERIES], budget = PACK_ROWS;
	int n = 0, i, rc;
	bool more = false;

	if (prepare(s, err))
		return -1;
	pk = s->packer;
	/* Nothing becomes packable but through an hour's row or a merged
	 * minute (store_impl.h's pack_epoch): between them a sweep would read
	 * every series' newest hour for nothing, 2 statements a series each
	 * flush (a step at 5,000 series, every hour packed: 0.90-0.93 ms of
	 * CPU sweeping, 0.19-0.24 resting). */
	if (pk->resting && s->pack_epoch == pk->sweep_epoch)
		return 0;
	if (pk->cursor == 0 && !pk->resume_id) {
		pk->sweep_epoch = s->pack_epoch;
		pk->resting = false;
	}
	ids = pk->st[PK_IDS];
	/* a series the last step stopped inside comes first, from its minute */
	sqlite3_bind_int64(ids, 1, pk->resume_id ? pk->resume_id - 1 : pk->cursor);
	sqlite3_bind_int(ids, 2, PACK_SERIES);
	while (n < PACK_SERIES && (rc = sqlite3_step(ids)) == SQLITE_ROW)
		todo[n++] = sqlite3_column_int64(ids, 0);
	sqlite3_reset(ids);
	for (i = 0, rc = 0; i < n && !rc && !more; i++) {
		int64_t from = todo[i] == pk->resume_id ? pk->resume_t : INT64_MIN;

		pk->resume_id = 0;
		rc = pack_series(s, todo[i], from, &budget, &more, err);
	}
	if (!rc) {
		pk->cursor = more || n == PACK_SERIES ? todo[i - 1] : 0;
		/* the sweep is over and nothing it could miss was written */
		pk->resting = pk->cursor == 0 && s->pack_epoch == pk->sweep_epoch;
	}
	free(pk->rows);
	pk->rows = NULL;
	pk->cap = 0;
	return rc;
}
