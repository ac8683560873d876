/*
 * reader.c - the reader (query.h): one read-only connection, its kept
 * statements, one read transaction per call, the deadline and the error
 * kind of the last call, and the process-wide query statistics.
 *
 * Uses schema.c (the version check) and catalog.c (series ids by key).
 * Used by every other file of the read side (query_impl.h lists them).
 *
 * No catalogue is kept: a reader's memory does not grow with the series
 * the file holds.  Selectors are answered from the database through its
 * indexes (query_series.c), and the newest values from the live series
 * only (query_latest.c).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "query_impl.h"
#include "db.h"
#include "schema.h"
#include "chunk_tail.h"
#include "base/clock.h"
#include "base/xalloc.h"

#define READER_BUSY_MS 2000
/* SQLite calls the progress handler every PROGRESS_OPS virtual-machine
 * instructions. */
#define PROGRESS_OPS 1000

const int64_t mw_tier_res[MW_READ_TIERS] = { 1, 60000, 600000, 3600000 };

static _Atomic uint64_t stat_queries, stat_total_ns, stat_last_ns;

void mw_query_stats_get(struct mw_query_stats *out)
{
	out->queries = atomic_load(&stat_queries);
	out->total_ns = atomic_load(&stat_total_ns);
	out->last_ns = atomic_load(&stat_last_ns);
}

void mw_reader_count(int64_t t0)
{
	uint64_t ns = (uint64_t)(mw_clock_mono_ns() - t0);

	atomic_fetch_add(&stat_queries, 1);
	atomic_fetch_add(&stat_total_ns, ns);
	atomic_store(&stat_last_ns, ns);
}

/* Statements are prepared once per reader (lazily, in their slot) and
 * reset before use; every public call runs in one read transaction. */
struct mw_reader {
	sqlite3 *db;
	char *path;
	sqlite3_stmt *st[MW_READER_SLOTS];
	struct mw_catalog cat;	/* series by key (catalog.h) */
	/* Read transactions nest: calls inside a held snapshot (an export's
	 * iterators, mw_reader_snapshot_begin) share it; the outermost end
	 * commits, and only a transaction this reader began. */
	unsigned depth;
	bool owns_tx;
	int64_t deadline_ns;	/* 0: none */
	int64_t cache_kib;	/* its page cache set apart (0: the default) */
	bool expired;		/* the deadline passed (until the next set) */
	bool ending;		/* COMMIT/ROLLBACK: never interrupted */
	enum mw_query_error kind;
	/* chunk_tail as of the running read transaction, looked at its first
	 * chunk read.  The map outlives its transaction while no other
	 * connection has committed since it was read (PRAGMA data_version,
	 * tails_version; -1: read it again): a flush commits every few
	 * seconds, a judgement's thousands of reads (a transaction each) come
	 * in between, and reloading every row each time made a leak report
	 * over 14,000 live series 5-8x slower. */
	struct mw_tail_map *tails;
	bool tails_loaded;
	int64_t tails_version;
	/* The same for readers of the newest points only (chunk_tail.h
	 * mw_tail_newest): their records without the bytes, when the whole
	 * map is not loaded for this transaction. */
	struct mw_tail_newest *newest;
	bool newest_loaded;
	int64_t newest_version;
	sqlite3_stmt *data_version;
	struct mw_tail_scratch scratch;
};

/* ---- deadline and error kinds --------------------------------------------- */

bool mw_reader_expired(struct mw_reader *r)
{
	if (!r->expired && r->deadline_ns && mw_clock_mono_ns() > r->deadline_ns)
		r->expired = true;
	return r->expired && !r->ending;
}

static int progress(void *arg)
{
	return mw_reader_expired(arg) ? 1 : 0;
}

void mw_reader_set_deadline(struct mw_reader *r, int64_t deadline_ns)
{
	r->deadline_ns = deadline_ns > 0 ? deadline_ns : 0;
	r->expired = false;
}

int64_t mw_reader_deadline(const struct mw_reader *r)
{
	return r->deadline_ns;
}

enum mw_query_error mw_reader_error_kind(const struct mw_reader *r)
{
	return r->kind;
}

void mw_reader_set_kind(struct mw_reader *r, enum mw_query_error kind)
{
	r->kind = kind;
}

int mw_reader_deadline_fail(struct mw_reader *r, struct mw_err *err)
{
	r->kind = MW_QERR_DEADLINE;
	return mw_error(err, "query stopped at its deadline");
}

int mw_reader_check_deadline(struct mw_reader *r, struct mw_err *err)
{
	return mw_reader_expired(r) ? mw_reader_deadline_fail(r, err) : 0;
}

int mw_reader_fail(struct mw_reader *r, struct mw_err *err)
{
	if (mw_reader_expired(r))
		return mw_reader_deadline_fail(r, err);
	r->kind = MW_QERR_STORAGE;
	return mw_error(err, "cannot query '%s': %s", r->path, sqlite3_errmsg(r->db));
}

/* ---- open and close ------------------------------------------------------- */

/* Page cache of readers, KiB; 0: SQLite's default (2 MB).  Set once at
 * start, before any reader thread runs. */
static int64_t reader_cache_kib;

void mw_reader_set_default_cache(uint64_t bytes)
{
	reader_cache_kib = (int64_t)(bytes / 1024);
}

int mw_reader_open(struct mw_reader **out, const char *db_path, struct mw_err *err)
{
	struct mw_reader *r = mw_xcalloc(1, sizeof(*r));
	sqlite3_stmt *st;

	*out = NULL;
	r->tails_version = -1;
	r->newest_version = -1;
	if (mw_db_open(&r->db, db_path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX,
		       READER_BUSY_MS, "", err))
		goto fail;
	if (reader_cache_kib > 0) {
		char sql[64];

		snprintf(sql, sizeof(sql), "PRAGMA cache_size = -%lld", (long long)reader_cache_kib);
		sqlite3_exec(r->db, sql, NULL, NULL, NULL);
	}
	sqlite3_progress_handler(r->db, PROGRESS_OPS, progress, r);
	if (sqlite3_prepare_v2(r->db, "SELECT series_id FROM latest LIMIT 0", -1, &st,
			       NULL) != SQLITE_OK) {
		mw_error(err, "cannot read '%s' as a memwatch database: %s", db_path,
			 sqlite3_errmsg(r->db));
		goto fail;
	}
	sqlite3_finalize(st);
	if (mw_schema_version(r->db) < MW_SCHEMA_VERSION) {
		mw_error(err, "'%s' has schema version %d, older than this memwatch reads "
			 "(%d); start memwatchd on it once to migrate it", db_path,
			 mw_schema_version(r->db), MW_SCHEMA_VERSION);
		goto fail;
	}
	mw_catalog_open(&r->cat, r->db);
	r->path = mw_xstrdup(db_path);
	*out = r;
	return 0;
fail:
	sqlite3_close(r->db);
	free(r);
	return -1;
}

int mw_reader_open_like(struct mw_reader **out, const struct mw_reader *r, struct mw_err *err)
{
	if (mw_reader_open(out, r->path, err))
		return -1;
	mw_reader_set_deadline(*out, r->deadline_ns);
	if (r->cache_kib > 0)
		mw_reader_set_cache(*out, (uint64_t)r->cache_kib * 1024);
	return 0;
}

void mw_reader_set_cache(struct mw_reader *r, uint64_t bytes)
{
	char sql[64];

	r->cache_kib = (int64_t)(bytes / 1024);
	snprintf(sql, sizeof(sql), "PRAGMA cache_size = -%lld", (long long)r->cache_kib);
	sqlite3_exec(r->db, sql, NULL, NULL, NULL);
}

void mw_reader_free(struct mw_reader *r)
{
	int i;

	if (!r)
		return;
	for (i = 0; i < MW_READER_SLOTS; i++)
		sqlite3_finalize(r->st[i]);
	mw_catalog_close(&r->cat);
	sqlite3_finalize(r->data_version);
	mw_tail_map_free(r->tails);
	mw_tail_newest_free(r->newest);
	free(r->scratch.buf);
	sqlite3_close(r->db);
	free(r->path);
	free(r);
}

/* Forget the newest-records map (reloaded at its next use). */
static void drop_newest(struct mw_reader *r)
{
	mw_tail_newest_free(r->newest);
	r->newest = NULL;
	r->newest_version = -1;
	r->newest_loaded = false;
}

int64_t mw_reader_idle(struct mw_reader *r)
{
	sqlite3_int64 before;
	size_t tails;

	if (!r)
		return 0;
	before = sqlite3_memory_used();
	sqlite3_db_release_memory(r->db);
	/* The chunk tails too: the writer has committed by its next use, so
	 * it would load them again, and up to a minute of them (until the
	 * writer folds them) is megabytes held per idle reader: RSS rose
	 * and fell by 6 MB a minute with /metrics scraped every 5 s. */
	tails = mw_tail_map_bytes(r->tails) + mw_tail_newest_bytes(r->newest);
	mw_tail_map_free(r->tails);
	r->tails = NULL;
	r->tails_version = -1;
	r->tails_loaded = false;
	drop_newest(r);
	return (int64_t)(before - sqlite3_memory_used()) + (int64_t)tails;
}

sqlite3 *mw_reader_sqlite(struct mw_reader *r)
{
	return r->db;
}

const char *mw_reader_path(const struct mw_reader *r)
{
	return r->path;
}

struct mw_catalog *mw_reader_catalog(struct mw_reader *r)
{
	return &r->cat;
}

/* ---- statements and read transactions ------------------------------------- */

sqlite3_stmt *mw_reader_stmt(struct mw_reader *r, int slot, const char *sql, struct mw_err *err)
{
	sqlite3_stmt **st = &r->st[slot];

	if (!*st && sqlite3_prepare_v3(r->db, sql, -1, SQLITE_PREPARE_PERSISTENT, st,
				       NULL) != SQLITE_OK) {
		*st = NULL;
		mw_reader_fail(r, err);
		return NULL;
	}
	sqlite3_reset(*st);
	sqlite3_clear_bindings(*st);
	return *st;
}

int64_t mw_stmt_int(sqlite3_stmt *st, int64_t id, int64_t dflt)
{
	int64_t v = dflt;

	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return v;
}

char *mw_column_dup(sqlite3_stmt *st, int col)
{
	const char *t = (const char *)sqlite3_column_text(st, col);

	return mw_xstrdup(t ? t : "");
}

static int run_simple(struct mw_reader *r, int slot, const char *sql, struct mw_err *err)
{
	sqlite3_stmt *st = mw_reader_stmt(r, slot, sql, err);
	int rc;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : mw_reader_fail(r, err);
}

/* A new snapshot: its tails are looked at again at its first chunk read
 * (kept when nothing was committed since). */
void mw_reader_drop_tails(struct mw_reader *r)
{
	r->tails_loaded = false;
	r->newest_loaded = false;
}

/* This connection's count of commits by others (-1: cannot tell). */
static int64_t data_version(struct mw_reader *r)
{
	int64_t v = -1;

	if (!r->data_version &&
	    sqlite3_prepare_v2(r->db, "PRAGMA data_version", -1, &r->data_version, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(r->data_version) == SQLITE_ROW)
		v = sqlite3_column_int64(r->data_version, 0);
	sqlite3_reset(r->data_version);
	return v;
}

/* The snapshot's tails, read once per read transaction, and again only
 * when another connection (the writer) committed since the last read. */
static int load_tails(struct mw_reader *r, struct mw_err *err)
{
	int64_t v;

	if (r->tails_loaded)
		return 0;
	v = data_version(r);
	if (v >= 0 && v == r->tails_version) {
		r->tails_loaded = true;
		return 0;
	}
	mw_tail_map_free(r->tails);
	r->tails = NULL;
	r->tails_version = -1;
	if (mw_tail_map_load(r->db, &r->tails, err))
		return mw_reader_fail(r, err);
	r->tails_version = v;
	r->tails_loaded = true;
	drop_newest(r);	/* the whole map answers the newest points too */
	return 0;
}

int mw_reader_chunk_blob(struct mw_reader *r, sqlite3_stmt *st, int data_col, int id_col,
			 struct mw_tail_scratch *sc, const uint8_t **blob, size_t *len,
			 struct mw_err *err)
{
	if (load_tails(r, err))
		return -1;
	*len = (size_t)sqlite3_column_bytes(st, data_col);
	*blob = sqlite3_column_blob(st, data_col);
	if (*blob)
		*blob = mw_tail_merge(r->tails, sqlite3_column_int64(st, id_col), *blob, len,
				      sc ? sc : &r->scratch);
	return 0;
}

/* The snapshot's newest records, as load_tails does the whole map. */
static int load_newest(struct mw_reader *r, struct mw_err *err)
{
	int64_t v;

	if (r->newest_loaded)
		return 0;
	v = data_version(r);
	if (v >= 0 && v == r->newest_version) {
		r->newest_loaded = true;
		return 0;
	}
	drop_newest(r);
	if (mw_tail_newest_load(r->db, &r->newest, err))
		return mw_reader_fail(r, err);
	r->newest_version = v;
	r->newest_loaded = true;
	return 0;
}

int mw_reader_chunk_newest(struct mw_reader *r, int64_t chunk_id, int64_t npoints,
			   int64_t *ts, double *value, int64_t *n, struct mw_err *err)
{
	/* the whole map when this snapshot has it (loaded, or kept from a
	 * transaction before with nothing committed since), else the
	 * newest records only */
	if (!r->tails_loaded && r->tails && !r->newest_loaded && r->tails_version >= 0 &&
	    data_version(r) == r->tails_version)
		r->tails_loaded = true;
	if (r->tails_loaded)
		return mw_tail_newest(r->tails, chunk_id, npoints, ts, value, n);
	if (load_newest(r, err))
		return -1;
	return mw_tail_newest_get(r->newest, chunk_id, npoints, ts, value, n);
}

/* One read transaction per call: a consistent snapshot, and one WAL
 * read lock instead of one per statement.  Nested calls (an export's
 * iterators are open, a held snapshot) run inside the one already
 * there: only the outermost begin and end start and end it. */
int mw_reader_begin(struct mw_reader *r, struct mw_err *err)
{
	r->kind = MW_QERR_NONE;
	if (mw_reader_check_deadline(r, err))
		return -1;
	if (r->depth > 0) {
		r->depth++;
		return 0;
	}
	r->owns_tx = false;
	if (sqlite3_get_autocommit(r->db)) {
		mw_reader_drop_tails(r);	/* a new snapshot */
		if (run_simple(r, MW_SLOT_BEGIN, "BEGIN", err))
			return -1;
		r->owns_tx = true;
	}
	r->depth = 1;
	return 0;
}

void mw_reader_end(struct mw_reader *r)
{
	if (r->depth == 0 || --r->depth > 0 || !r->owns_tx)
		return;
	r->owns_tx = false;
	r->ending = true;	/* a read transaction left open would pin the WAL */
	if (run_simple(r, MW_SLOT_COMMIT, "COMMIT", NULL))
		run_simple(r, MW_SLOT_ROLLBACK, "ROLLBACK", NULL);
	r->ending = false;
	mw_reader_drop_tails(r);
}

int mw_reader_snapshot_begin(struct mw_reader *r, struct mw_err *err)
{
	return mw_reader_begin(r, err);
}

void mw_reader_snapshot_end(struct mw_reader *r)
{
	mw_reader_end(r);
}

int mw_reader_begin_selected(struct mw_reader *r, const char *selector,
			     struct mw_selector *sel, struct mw_err *err)
{
	r->kind = MW_QERR_NONE;
	if (mw_selector_parse(sel, selector, err)) {
		r->kind = MW_QERR_BAD;
		return -1;
	}
	if (mw_reader_begin(r, err)) {
		mw_selector_release(sel);
		return -1;
	}
	return 0;
}
