/*
 * regions_store.c - the writer side of region snapshots (regions.h).
 *
 * Per process the writer holds the last snapshot it accepted; each new
 * one is encoded at once (keyframe or delta against that one) and queued;
 * mw_store_flush writes the queue in its transaction, so snapshots are as
 * crash-safe as points (a SIGKILL loses at most one flush interval).
 * Snapshot, process and owner ids are assigned here, in memory (one
 * writer per file, dblock.h), so a delta knows its keyframe's id before
 * anything is written and a failed flush simply retries the same rows.
 *
 * When writes fail the queue is kept up to max_pending_region_bytes; past
 * that the oldest pending snapshots are dropped and counted, and with
 * them every later pending snapshot of the same process (a delta without
 * its predecessor is useless); that process's next snapshot is a
 * keyframe.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_impl.h"
#include "regions.h"
#include "size_cut.h"
#include "schema.h"
#include "base/log.h"
#include "base/xalloc.h"

enum {
	RG_PROC_FIND, RG_PROC_INSERT, RG_OWNER_FIND, RG_OWNER_INSERT, RG_SNAP_INSERT,
	RG_COUNT
};

static const char *const rg_sql[RG_COUNT] = {
	[RG_PROC_FIND] = "SELECT id FROM ws_process WHERE pid = ? AND process = ?",
	[RG_PROC_INSERT] = "INSERT OR IGNORE INTO ws_process (id, pid, process, created_ms) "
			   "VALUES (?, ?, ?, ?)",
	[RG_OWNER_FIND] = "SELECT id FROM ws_owner WHERE text = ?",
	[RG_OWNER_INSERT] = "INSERT OR IGNORE INTO ws_owner (id, text) VALUES (?, ?)",
	[RG_SNAP_INSERT] = "INSERT INTO ws_snapshot (id, process_id, ts, key_id, data) "
			   "VALUES (?, ?, ?, ?, ?)",
};

struct rg_proc {
	char *pid, *process;
	int64_t id;
	bool row_written;	/* its ws_process row is committed */
	struct mw_ws_result last;	/* the last snapshot accepted */
	bool have_last;
	int64_t key_id;		/* keyframe of the group being written */
	int64_t since_key;	/* changed snapshots since (and with) that keyframe */
	int64_t rows_since_key;	/* snapshots since (and with) it */
	uint64_t key_bytes, delta_bytes;	/* its size; the deltas' since */
	bool force_key;
	int64_t seen_ts;
	size_t npending;
};

struct rg_pending {
	struct rg_proc *proc;
	int64_t id, ts, key_id;
	uint8_t *data;
	size_t len;
};

struct rg_owner {
	char *text;
	uint32_t id;
	bool pending;		/* not yet committed */
};

struct mw_rg_store {
	sqlite3_stmt *st[RG_COUNT];
	struct rg_proc **procs;
	size_t nprocs, procs_cap;
	struct rg_pending *pending;
	size_t npending, pending_cap;
	uint64_t pending_bytes;
	struct rg_owner *owners;	/* open addressing, owners_cap a power of 2 */
	size_t nowners, owners_cap;
	size_t npending_owners;
	int64_t next_snap_id, next_proc_id;
	uint32_t next_owner_id;
	struct mw_rg_buf buf;
	struct mw_ws_result cur;
	bool bad_logged;
	int64_t retain_cursor;
	struct mw_store *store;	/* for the intern callback */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ULL;
	return h;
}

static struct rg_owner *owner_slot(struct mw_rg_store *g, const char *text)
{
	size_t i = (size_t)hash_str(text) & (g->owners_cap - 1);

	while (g->owners[i].text && strcmp(g->owners[i].text, text))
		i = (i + 1) & (g->owners_cap - 1);
	return &g->owners[i];
}

static void owner_put(struct mw_rg_store *g, const char *text, uint32_t id, bool pending)
{
	struct rg_owner *o;

	if ((g->nowners + 1) * 2 > g->owners_cap) {
		struct rg_owner *old = g->owners;
		size_t n = g->owners_cap, i;

		g->owners_cap = n ? n * 2 : 256;
		g->owners = mw_xcalloc(g->owners_cap, sizeof(*g->owners));
		for (i = 0; i < n; i++)
			if (old[i].text)
				*owner_slot(g, old[i].text) = old[i];
		free(old);
	}
	o = owner_slot(g, text);
	o->text = mw_xstrdup(text);
	o->id = id;
	o->pending = pending;
	g->nowners++;
	g->npending_owners += pending;
}

static uint32_t intern(void *ctx, const char *text)
{
	struct mw_rg_store *g = ctx;
	sqlite3_stmt *st = g->st[RG_OWNER_FIND];
	struct rg_owner *o;
	uint32_t id = 0;

	if (g->owners_cap && (o = owner_slot(g, text))->text)
		return o->id;
	sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		id = (uint32_t)sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (id) {
		owner_put(g, text, id, false);
		return id;
	}
	id = g->next_owner_id++;
	owner_put(g, text, id, true);
	return id;
}

int mw_rg_store_open(struct mw_store *s, struct mw_err *err)
{
	struct mw_rg_store *g = mw_xcalloc(1, sizeof(*g));
	int i;

	s->rg = g;
	g->store = s;
	for (i = 0; i < RG_COUNT; i++)
		if (mw_db_prepare(s->db, &g->st[i], rg_sql[i], err))
			return -1;
	g->next_snap_id = mw_db_int(s->db, "SELECT coalesce(max(id), 0) + 1 FROM ws_snapshot");
	g->next_proc_id = mw_db_int(s->db, "SELECT coalesce(max(id), 0) + 1 FROM ws_process");
	g->next_owner_id = (uint32_t)mw_db_int(s->db,
					       "SELECT coalesce(max(id), 0) + 1 FROM ws_owner");
	if (g->next_snap_id <= 0 || g->next_proc_id <= 0 || g->next_owner_id == 0)
		return mw_error(err, "cannot read the region tables: %s", sqlite3_errmsg(s->db));
	if (s->opt.regions_keyframe_every < 1)
		s->opt.regions_keyframe_every = MW_RG_KEYFRAME_EVERY;
	if (!s->opt.max_pending_region_bytes)
		s->opt.max_pending_region_bytes = 64u << 20;
	return 0;
}

static void proc_free(struct rg_proc *p)
{
	free(p->pid);
	free(p->process);
	mw_ws_result_release(&p->last);
	free(p);
}

void mw_rg_store_free(struct mw_store *s)
{
	struct mw_rg_store *g = s->rg;
	size_t i;

	if (!g)
		return;
	for (i = 0; i < RG_COUNT; i++)
		sqlite3_finalize(g->st[i]);
	for (i = 0; i < g->nprocs; i++)
		proc_free(g->procs[i]);
	free(g->procs);
	for (i = 0; i < g->npending; i++)
		free(g->pending[i].data);
	free(g->pending);
	for (i = 0; i < g->owners_cap; i++)
		free(g->owners[i].text);
	free(g->owners);
	mw_rg_buf_release(&g->buf);
	mw_ws_result_release(&g->cur);
	free(g);
	s->rg = NULL;
}

static struct rg_proc *proc_get(struct mw_store *s, const char *pid, const char *process,
				int64_t ts)
{
	struct mw_rg_store *g = s->rg;
	sqlite3_stmt *st = g->st[RG_PROC_FIND];
	struct rg_proc *p;
	size_t i;

	for (i = 0; i < g->nprocs; i++)
		if (!strcmp(g->procs[i]->pid, pid) && !strcmp(g->procs[i]->process, process))
			return g->procs[i];
	p = mw_xcalloc(1, sizeof(*p));
	p->pid = mw_xstrdup(pid);
	p->process = mw_xstrdup(process);
	p->seen_ts = ts;
	sqlite3_bind_text(st, 1, pid, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, process, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		p->id = sqlite3_column_int64(st, 0);
		p->row_written = true;
	} else {
		p->id = g->next_proc_id++;
	}
	sqlite3_reset(st);
	MW_GROW(g->procs, g->procs_cap, g->nprocs + 1);
	g->procs[g->nprocs++] = p;
	return p;
}

static const char *label(const struct mw_detail *d, const char *name)
{
	size_t i;

	for (i = 0; i < d->nlabels; i++)
		if (!strcmp(d->labels[i].name, name))
			return d->labels[i].value;
	return NULL;
}

void mw_store_count_dropped_regions(struct mw_store *s, uint64_t n)
{
	s->stats.dropped_region_snapshots_total += n;
}

void mw_store_add_regions(struct mw_store *s, const struct mw_detail *d)
{
	struct mw_rg_store *g = s->rg;
	const char *pid = label(d, "pid"), *process = label(d, "process");
	struct mw_err err = { "" };
	struct rg_proc *p;
	struct rg_pending *q;
	bool dup, key;

	if (!g)
		return;
	if (!pid || !process) {
		mw_error(&err, "no pid or process label");
	} else if (mw_ws_decode(d->data, d->len, &g->cur, &err) == 0) {
		err.msg[0] = 0;
	}
	if (err.msg[0]) {
		if (!g->bad_logged)
			mw_log_warn("storage: dropping a workingset.regions record: %s", err.msg);
		g->bad_logged = true;
		s->stats.dropped_region_snapshots_total++;
		return;
	}
	mw_store_saw(s, d->ts_ms);
	dup = mw_rg_normalize(&g->cur);
	p = proc_get(s, pid, process, d->ts_ms);
	p->seen_ts = s->now_ts;
	/* A keyframe when the group has keyframe_every changed snapshots, or
	 * its deltas add up to more than the keyframe, or it holds 16 times
	 * keyframe_every snapshots: rebuilding reads at most that, and an
	 * unchanged snapshot (an empty row) costs next to nothing. */
	key = !p->have_last || p->force_key || dup || p->since_key >= s->opt.regions_keyframe_every ||
	      p->rows_since_key >= 16 * s->opt.regions_keyframe_every ||
	      p->delta_bytes > p->key_bytes ||
	      p->last.page_size != g->cur.page_size || mw_rg_normalize(&p->last);
	if (!key) {
		mw_rg_encode_delta(&p->last, &g->cur, intern, g, &g->buf);
		if (p->delta_bytes + g->buf.n > p->key_bytes)
			key = true;
	}
	if (key)
		mw_rg_encode_keyframe(&g->cur, intern, g, &g->buf);
	MW_GROW(g->pending, g->pending_cap, g->npending + 1);
	q = &g->pending[g->npending++];
	q->proc = p;
	q->id = g->next_snap_id++;
	q->ts = d->ts_ms;
	if (key) {
		p->key_id = q->id;
		p->since_key = p->rows_since_key = 0;
		p->delta_bytes = 0;
		p->key_bytes = g->buf.n;
		p->force_key = false;
	} else {
		p->delta_bytes += g->buf.n;
	}
	p->since_key += key || g->buf.n;
	p->rows_since_key++;
	q->key_id = p->key_id;
	q->len = g->buf.n;
	q->data = mw_xmalloc(q->len ? q->len : 1);
	if (q->len)
		memcpy(q->data, g->buf.p, q->len);
	g->pending_bytes += q->len + 32;
	p->npending++;
	/* keep the decoded list as the base of the next delta */
	mw_ws_result_release(&p->last);
	p->last = g->cur;
	memset(&g->cur, 0, sizeof(g->cur));
	p->have_last = true;
}

static int step_done(struct mw_store *s, sqlite3_stmt *st, const char *what, struct mw_err *err)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return mw_error(err, "cannot write %s: %s", what, sqlite3_errmsg(s->db));
	return 0;
}

int mw_rg_store_write(struct mw_store *s, struct mw_err *err)
{
	struct mw_rg_store *g = s->rg;
	int64_t now = s->now_ts == INT64_MIN ? 0 : s->now_ts;
	size_t i;

	if (!g || (!g->npending && !g->npending_owners))
		return 0;
	for (i = 0; g->npending_owners && i < g->owners_cap; i++) {
		sqlite3_stmt *st = g->st[RG_OWNER_INSERT];

		if (!g->owners[i].text || !g->owners[i].pending)
			continue;
		sqlite3_bind_int64(st, 1, g->owners[i].id);
		sqlite3_bind_text(st, 2, g->owners[i].text, -1, SQLITE_STATIC);
		if (step_done(s, st, "ws_owner", err))
			return -1;
	}
	for (i = 0; i < g->nprocs; i++) {
		sqlite3_stmt *st = g->st[RG_PROC_INSERT];
		struct rg_proc *p = g->procs[i];

		if (p->row_written || !p->npending)
			continue;
		sqlite3_bind_int64(st, 1, p->id);
		sqlite3_bind_text(st, 2, p->pid, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, p->process, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 4, now);
		if (step_done(s, st, "ws_process", err))
			return -1;
	}
	for (i = 0; i < g->npending; i++) {
		sqlite3_stmt *st = g->st[RG_SNAP_INSERT];
		const struct rg_pending *q = &g->pending[i];

		sqlite3_bind_int64(st, 1, q->id);
		sqlite3_bind_int64(st, 2, q->proc->id);
		sqlite3_bind_int64(st, 3, q->ts);
		sqlite3_bind_int64(st, 4, q->key_id);
		sqlite3_bind_blob(st, 5, q->data, (int)q->len, SQLITE_STATIC);
		if (step_done(s, st, "ws_snapshot", err))
			return -1;
	}
	return 0;
}

void mw_rg_store_committed(struct mw_store *s)
{
	struct mw_rg_store *g = s->rg;
	size_t i, k;

	if (!g)
		return;
	for (i = 0; i < g->npending; i++) {
		s->stats.region_bytes_total += g->pending[i].len;
		g->pending[i].proc->row_written = true;
		g->pending[i].proc->npending = 0;
		free(g->pending[i].data);
	}
	s->stats.region_snapshots_total += g->npending;
	g->npending = 0;
	g->pending_bytes = 0;
	for (i = 0; g->npending_owners && i < g->owners_cap; i++)
		g->owners[i].pending = false;
	g->npending_owners = 0;
	/* processes not seen for the idle bound leave memory */
	for (i = k = 0; i < g->nprocs; i++) {
		struct rg_proc *p = g->procs[i];

		if (s->opt.series_idle_ms > 0 && s->now_ts != INT64_MIN &&
		    s->now_ts - p->seen_ts > s->opt.series_idle_ms)
			proc_free(p);
		else
			g->procs[k++] = p;
	}
	g->nprocs = k;
}

void mw_rg_store_failed(struct mw_store *s)
{
	struct mw_rg_store *g = s->rg;
	size_t i, k;
	uint64_t dropped = 0;

	if (!g || g->pending_bytes <= s->opt.max_pending_region_bytes)
		return;
	/* drop from the front until under the limit; processes that lost a
	 * snapshot lose their later pending ones too (force_key marks them) */
	for (i = k = 0; i < g->npending; i++) {
		struct rg_pending *q = &g->pending[i];

		if (g->pending_bytes > s->opt.max_pending_region_bytes || q->proc->force_key) {
			g->pending_bytes -= q->len + 32;
			q->proc->force_key = true;
			q->proc->npending--;
			free(q->data);
			dropped++;
		} else {
			g->pending[k++] = *q;
		}
	}
	g->npending = k;
	s->stats.dropped_region_snapshots_total += dropped;
	s->dropped_while_failing += dropped;
}

uint64_t mw_rg_store_pending(const struct mw_store *s)
{
	return s->rg ? s->rg->npending : 0;
}

static bool in_memory(const struct mw_rg_store *g, int64_t id)
{
	size_t i;

	for (i = 0; i < g->nprocs; i++)
		if (g->procs[i]->id == id)
			return true;
	return false;
}

/*
 * Whole groups: a group goes when the next keyframe of its process is
 * older than the limit (so every snapshot of the group is); the last
 * group of a process the writer no longer holds (exited) goes when its
 * newest snapshot is older than the limit.  64 processes per step,
 * resuming where the last step stopped.
 */
int mw_rg_store_retain(struct mw_store *s, int64_t now_ms, struct mw_err *err)
{
	static const char *const sql[] = {
		"SELECT id FROM ws_process WHERE id > ? ORDER BY id LIMIT 64",
		"DELETE FROM ws_snapshot WHERE process_id = ?1 AND ts < ?2 AND key_id <"
		" (SELECT max(id) FROM ws_snapshot WHERE process_id = ?1 AND ts < ?2"
		"  AND id = key_id)",
		"DELETE FROM ws_snapshot WHERE process_id = ?1 AND"
		" (SELECT max(ts) FROM ws_snapshot WHERE process_id = ?1) < ?2",
	};
	sqlite3_stmt *st[3] = { NULL, NULL, NULL };
	int64_t cutoff = now_ms - s->opt.retention_raw_ms, id = 0;
	int rc = -1, step, n = 0;
	size_t i;

	if (s->opt.retention_raw_ms <= 0 || !s->rg)
		return 0;
	for (i = 0; i < 3; i++)
		if (sqlite3_prepare_v2(s->db, sql[i], -1, &st[i], NULL) != SQLITE_OK) {
			mw_error(err, "cannot prepare region retention: %s", sqlite3_errmsg(s->db));
			goto out;
		}
	sqlite3_bind_int64(st[0], 1, s->rg->retain_cursor);
	while ((step = sqlite3_step(st[0])) == SQLITE_ROW) {
		id = sqlite3_column_int64(st[0], 0);
		n++;
		for (i = 1; i < 3; i++) {
			if (i == 2 && in_memory(s->rg, id))
				continue;
			sqlite3_bind_int64(st[i], 1, id);
			sqlite3_bind_int64(st[i], 2, cutoff);
			if (sqlite3_step(st[i]) != SQLITE_DONE) {
				mw_error(err, "cannot apply region retention: %s",
					 sqlite3_errmsg(s->db));
				goto out;
			}
			sqlite3_reset(st[i]);
		}
	}
	if (step != SQLITE_DONE) {
		mw_error(err, "cannot list region processes: %s", sqlite3_errmsg(s->db));
		goto out;
	}
	s->rg->retain_cursor = n < 64 ? 0 : id;
	rc = 0;
out:
	for (i = 0; i < 3; i++)
		sqlite3_finalize(st[i]);
	return rc;
}

/* ---- the size limit (size_cut.c) ----------------------------------------- */

/* The group of process p started by keyframe k is still being written:
 * the writer holds p with that keyframe, or has rows of it pending. */
static bool group_open(const struct mw_rg_store *g, int64_t p, int64_t k)
{
	size_t i;

	for (i = 0; i < g->nprocs; i++)
		if (g->procs[i]->id == p && g->procs[i]->key_id == k)
			return true;
	for (i = 0; i < g->npending; i++)
		if (g->pending[i].proc->id == p && g->pending[i].key_id == k)
			return true;
	return false;
}

/* Prepare sql into *st; -1 with err. */
static int cut_prepare(struct mw_store *s, sqlite3_stmt **st, const char *sql, struct mw_err *err)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) == SQLITE_OK)
		return 0;
	return mw_error(err, "cannot prepare the region size cut: %s", sqlite3_errmsg(s->db));
}

int mw_rg_store_oldest(struct mw_store *s, int64_t *ts, struct mw_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc;

	if (cut_prepare(s, &st, "SELECT ts FROM ws_snapshot ORDER BY id LIMIT 1", err))
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*ts = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return mw_error(err, "cannot read region snapshots: %s", sqlite3_errmsg(s->db));
	return rc == SQLITE_ROW;
}

/*
 * The oldest group goes whole (a delta is useless without the rows before
 * it, and readers report a group without its keyframe as damaged).  Its
 * rows are its process's rows from the oldest one up to that process's
 * next keyframe (ids grow with time, SCHEMA.md), found by walking ids from
 * there: at most the group's rows and those of the other processes
 * written meanwhile, bounded by CUT_SCAN_ROWS.
 */
#define CUT_SCAN_ROWS 65536

int64_t mw_rg_store_cut_oldest(struct mw_store *s, struct mw_err *err)
{
	sqlite3_stmt *scan = NULL, *del = NULL;
	int64_t p = 0, k = 0, *ids = NULL, n = -1;
	size_t nids = 0, cap = 0, seen = 0, i;
	int step;

	if (!s->rg)
		return 0;
	if (cut_prepare(s, &scan, "SELECT id, process_id, key_id FROM ws_snapshot"
			" WHERE id >= ?1 ORDER BY id", err) ||
	    cut_prepare(s, &del, "DELETE FROM ws_snapshot WHERE id = ?1", err))
		goto out;
	sqlite3_bind_int64(scan, 1, 0);
	while ((step = sqlite3_step(scan)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(scan, 0);

		if (!seen++) {
			p = sqlite3_column_int64(scan, 1);
			k = sqlite3_column_int64(scan, 2);
			if (group_open(s->rg, p, k))
				break;	/* nothing closed is older */
		}
		if (sqlite3_column_int64(scan, 1) == p) {
			if (sqlite3_column_int64(scan, 2) != k)
				break;	/* the process's next group: this one is whole */
			MW_GROW(ids, cap, nids + 1);
			ids[nids++] = id;
		}
		if (seen > CUT_SCAN_ROWS) {
			nids = 0;	/* its end is too far: left for now */
			break;
		}
	}
	if (step != SQLITE_ROW && step != SQLITE_DONE) {
		mw_error(err, "cannot read region snapshots: %s", sqlite3_errmsg(s->db));
		goto out;
	}
	for (i = 0; i < nids; i++) {
		sqlite3_bind_int64(del, 1, ids[i]);
		if (step_done(s, del, "ws_snapshot", err))
			goto out;
	}
	n = (int64_t)nids;
out:
	free(ids);
	sqlite3_finalize(scan);
	sqlite3_finalize(del);
	return n;
}
