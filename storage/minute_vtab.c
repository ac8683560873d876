/*
 * minute_vtab.c - the virtual table rollup_1m_all (minute_vtab.h): loose
 * minute rows and packed hours (minute_pack.h) merged into one stream of
 * rows, so that every reader of the 1-minute tier keeps its SQL and only
 * names this table instead of rollup_1m_data.
 *
 * Why a virtual table rather than decoding in each reader: the tier has
 * eight readers (range queries with their per-step SQL, first and last
 * of a series, the past value, recovery, retention's and the size cut's
 * oldest and newest, the writer's merge); one merge here keeps them all
 * exact and alike, and a pack decodes in well under a microsecond a
 * minute, less than reading the row it replaces.
 *
 * Plan: series_id = ? and bounds on t are used (left for SQLite to check
 * again too, so a bound of another type or a second bound only widens
 * the read); rows come in (series_id, t) order ascending or, with
 * series_id fixed, t descending, so ORDER BY t [DESC] LIMIT 1 reads one
 * pack.  The statements over the two tables are kept per connection
 * (one set per plan shape; a second cursor open at once on the same
 * shape prepares its own).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "minute_vtab.h"
#include "minute_pack.h"

enum { COL_SERIES, COL_T, COL_BASE, COL_MIN, COL_MAX, COL_LAST, COL_SUM, COL_COUNT };

/* idxNum bits */
#define BY_SERIES 1
#define HAS_LO 2
#define HAS_HI 4
#define DESC 8
#define T_EQ 16		/* the lower bound is t = ?: the upper one too */
#define SHAPES 4		/* BY_SERIES and DESC combined */

#define LOOSE_COLS "SELECT series_id, t, base, min, max, last, sum, count FROM rollup_1m_data"
#define PACK_COLS "SELECT series_id, h, data FROM rollup_1m_pack"

/* [shape][0 loose, 1 packs]; ?1 series, ?2 ?3 the t (h) range */
static const char *const sql[SHAPES][2] = {
	{ LOOSE_COLS " WHERE t >= ?2 AND t <= ?3 ORDER BY series_id, t",
	  PACK_COLS " WHERE h >= ?2 AND h <= ?3 ORDER BY series_id, h" },
	{ LOOSE_COLS " WHERE series_id = ?1 AND t >= ?2 AND t <= ?3 ORDER BY t",
	  PACK_COLS " WHERE series_id = ?1 AND h >= ?2 AND h <= ?3 ORDER BY h" },
	{ LOOSE_COLS " WHERE t >= ?2 AND t <= ?3 ORDER BY series_id DESC, t DESC",
	  PACK_COLS " WHERE h >= ?2 AND h <= ?3 ORDER BY series_id DESC, h DESC" },
	{ LOOSE_COLS " WHERE series_id = ?1 AND t >= ?2 AND t <= ?3 ORDER BY t DESC",
	  PACK_COLS " WHERE series_id = ?1 AND h >= ?2 AND h <= ?3 ORDER BY h DESC" },
};

struct vtab {
	sqlite3_vtab base;
	sqlite3 *db;
	sqlite3_stmt *st[SHAPES][2];	/* prepared at first use */
	bool busy[SHAPES];
};

struct cursor {
	sqlite3_vtab_cursor base;
	struct vtab *vt;
	int shape;
	bool own;		/* its statements are its own, not vt's */
	sqlite3_stmt *loose, *packs;	/* packs NULL: a file without the table */
	bool desc, loose_ok;
	int64_t lo, hi;		/* t range */
	/* the current pack's minutes within [lo, hi], and the one at */
	struct mw_mp_row rows[MW_MP_MINUTES];
	int n, at;
	int64_t pack_series, pack_h;
	bool from_pack;		/* the current row is rows[at] */
	bool eof;
	int64_t rowid;
};

static int64_t floor_div(int64_t a, int64_t b)
{
	return a / b - (a % b < 0);
}

static int x_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
		     sqlite3_vtab **out, char **errp)
{
	struct vtab *vt;
	int rc;

	(void)aux, (void)argc, (void)argv, (void)errp;
	rc = sqlite3_declare_vtab(db, "CREATE TABLE x(series_id INTEGER, t INTEGER, base REAL,"
				  " min REAL, max REAL, last REAL, sum REAL, count INTEGER)");
	if (rc != SQLITE_OK)
		return rc;
	vt = sqlite3_malloc(sizeof(*vt));
	if (!vt)
		return SQLITE_NOMEM;
	memset(vt, 0, sizeof(*vt));
	vt->db = db;
	*out = &vt->base;
	return SQLITE_OK;
}

static int x_disconnect(sqlite3_vtab *base)
{
	struct vtab *vt = (struct vtab *)base;
	int i;

	for (i = 0; i < SHAPES; i++) {
		sqlite3_finalize(vt->st[i][0]);
		sqlite3_finalize(vt->st[i][1]);
	}
	sqlite3_free(vt);
	return SQLITE_OK;
}

static int x_best_index(sqlite3_vtab *base, sqlite3_index_info *info)
{
	int i, series = -1, lo = -1, hi = -1, argv = 0, num = 0;
	double cost = 1e9;

	(void)base;
	for (i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];

		if (!c->usable)
			continue;
		if (c->iColumn == COL_SERIES && c->op == SQLITE_INDEX_CONSTRAINT_EQ && series < 0)
			series = i;
		else if (c->iColumn == COL_T && lo < 0 &&
			 (c->op == SQLITE_INDEX_CONSTRAINT_GE || c->op == SQLITE_INDEX_CONSTRAINT_GT ||
			  c->op == SQLITE_INDEX_CONSTRAINT_EQ))
			lo = i;
		else if (c->iColumn == COL_T && hi < 0 &&
			 (c->op == SQLITE_INDEX_CONSTRAINT_LE || c->op == SQLITE_INDEX_CONSTRAINT_LT ||
			  c->op == SQLITE_INDEX_CONSTRAINT_EQ))
			hi = i;
	}
	/* the constraints' values come in this order: series, lo, hi; SQLite
	 * checks them again (omit 0), so the read only has to cover them */
	if (series >= 0) {
		info->aConstraintUsage[series].argvIndex = ++argv;
		num |= BY_SERIES;
		cost = 1e3;
	}
	if (lo >= 0) {
		info->aConstraintUsage[lo].argvIndex = ++argv;
		num |= HAS_LO;
		cost /= 4;
		if (info->aConstraint[lo].op == SQLITE_INDEX_CONSTRAINT_EQ) {
			num |= T_EQ;
			hi = -1;
			cost /= 100;
		}
	}
	if (hi >= 0 && !(num & T_EQ)) {
		info->aConstraintUsage[hi].argvIndex = ++argv;
		num |= HAS_HI;
		cost /= 4;
	}
	/* the order rows come in: (series_id, t) one way or the other */
	if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == COL_T && (num & BY_SERIES)) {
		info->orderByConsumed = 1;
		num |= info->aOrderBy[0].desc ? DESC : 0;
	} else if (info->nOrderBy >= 1 && info->nOrderBy <= 2 &&
		   info->aOrderBy[0].iColumn == COL_SERIES &&
		   (info->nOrderBy == 1 || (info->aOrderBy[1].iColumn == COL_T &&
					    info->aOrderBy[1].desc == info->aOrderBy[0].desc))) {
		info->orderByConsumed = 1;
		num |= info->aOrderBy[0].desc ? DESC : 0;
	} else if (info->nOrderBy == 0) {
		info->orderByConsumed = 0;
	}
	info->idxNum = num;
	info->estimatedCost = cost;
	info->estimatedRows = (sqlite3_int64)cost;
	return SQLITE_OK;
}

static int x_open(sqlite3_vtab *base, sqlite3_vtab_cursor **out)
{
	struct cursor *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->vt = (struct vtab *)base;
	c->shape = -1;
	*out = &c->base;
	return SQLITE_OK;
}

/* Give the statements back (reset, or finalized when the cursor's own). */
static void release(struct cursor *c)
{
	if (c->shape < 0)
		return;
	if (c->own) {
		sqlite3_finalize(c->loose);
		sqlite3_finalize(c->packs);
	} else {
		sqlite3_reset(c->loose);
		if (c->packs)
			sqlite3_reset(c->packs);
		c->vt->busy[c->shape] = false;
	}
	c->loose = c->packs = NULL;
	c->shape = -1;
}

static int x_close(sqlite3_vtab_cursor *base)
{
	release((struct cursor *)base);
	sqlite3_free(base);
	return SQLITE_OK;
}

/* The statements of a shape: vt's when free, else the cursor's own. */
static int acquire(struct cursor *c, int shape)
{
	struct vtab *vt = c->vt;
	sqlite3_stmt **st = vt->st[shape], *own[2] = { NULL, NULL };
	int rc;

	c->shape = shape;
	c->own = vt->busy[shape];
	if (c->own)
		st = own;
	if (!st[0] && (rc = sqlite3_prepare_v3(vt->db, sql[shape][0], -1,
					       SQLITE_PREPARE_PERSISTENT, &st[0], NULL)) != SQLITE_OK)
		goto fail;
	/* a file older than the packs (a migration reading its minutes) has no table */
	if (!st[1] && sqlite3_prepare_v3(vt->db, sql[shape][1], -1, SQLITE_PREPARE_PERSISTENT,
					 &st[1], NULL) != SQLITE_OK)
		st[1] = NULL;
	c->loose = st[0];
	c->packs = st[1];
	if (!c->own)
		vt->busy[shape] = true;
	return SQLITE_OK;
fail:
	sqlite3_free(vt->base.zErrMsg);
	vt->base.zErrMsg = sqlite3_mprintf("%s", sqlite3_errmsg(vt->db));
	c->shape = -1;
	return rc;
}

/* The next pack's minutes within [lo, hi] into rows; SQLITE_OK with
 * n == 0 when no pack is left. */
static int load_pack(struct cursor *c)
{
	int rc = SQLITE_DONE, i, k;

	c->n = 0;
	while (c->packs && (rc = sqlite3_step(c->packs)) == SQLITE_ROW) {
		struct mw_mp_row all[MW_MP_MINUTES];
		int got = mw_mp_decode(sqlite3_column_blob(c->packs, 2),
				       (size_t)sqlite3_column_bytes(c->packs, 2), all);

		if (got < 0) {
			c->vt->base.zErrMsg = sqlite3_mprintf("a malformed pack in rollup_1m_pack");
			return SQLITE_CORRUPT;
		}
		c->pack_series = sqlite3_column_int64(c->packs, 0);
		c->pack_h = sqlite3_column_int64(c->packs, 1);
		for (i = 0; i < got; i++) {
			k = c->desc ? got - 1 - i : i;
			int64_t t = c->pack_h * 60 + all[k].minute;

			if (t >= c->lo && t <= c->hi)
				c->rows[c->n++] = all[k];
		}
		c->at = 0;
		if (c->n)
			return SQLITE_OK;
	}
	if (c->packs && rc != SQLITE_DONE)
		return rc;
	return SQLITE_OK;
}

static int step_loose(struct cursor *c)
{
	int rc = sqlite3_step(c->loose);

	c->loose_ok = rc == SQLITE_ROW;
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int step_pack(struct cursor *c)
{
	return ++c->at < c->n ? SQLITE_OK : load_pack(c);
}

/* Which of the two heads comes first: < 0 the loose row, > 0 the packed
 * minute, 0 the same bucket (the loose row stands for it). */
static int compare_heads(const struct cursor *c)
{
	int64_t ls = sqlite3_column_int64(c->loose, 0), lt = sqlite3_column_int64(c->loose, 1);
	int64_t pt = c->pack_h * 60 + c->rows[c->at].minute;
	int cmp = ls != c->pack_series ? (ls < c->pack_series ? -1 : 1) :
		  lt != pt ? (lt < pt ? -1 : 1) : 0;

	return c->desc ? -cmp : cmp;
}

/* Choose the current row from the heads. */
static void pick(struct cursor *c)
{
	bool pack_ok = c->at < c->n;

	c->eof = !c->loose_ok && !pack_ok;
	c->from_pack = pack_ok && (!c->loose_ok || compare_heads(c) > 0);
	c->rowid++;
}

static int x_next(sqlite3_vtab_cursor *base)
{
	struct cursor *c = (struct cursor *)base;
	int rc;

	if (c->from_pack) {
		rc = step_pack(c);
	} else {
		/* a packed minute the loose row stood for goes with it */
		bool same = c->at < c->n && compare_heads(c) == 0;

		rc = step_loose(c);
		if (rc == SQLITE_OK && same)
			rc = step_pack(c);
	}
	if (rc == SQLITE_OK)
		pick(c);
	return rc;
}

/* A bound on t from a constraint's value, widened to an integer. */
static int64_t bound(sqlite3_value *v, bool upper)
{
	double d;

	switch (sqlite3_value_numeric_type(v)) {
	case SQLITE_INTEGER:
		return sqlite3_value_int64(v);
	case SQLITE_FLOAT:
		d = sqlite3_value_double(v);
		if (d != d)
			return upper ? INT64_MIN : INT64_MAX;	/* NaN matches nothing */
		if (d >= 9.2e18 || d <= -9.2e18)
			return d > 0 ? INT64_MAX : INT64_MIN;
		return upper ? (int64_t)d + 1 : (int64_t)d - 1;
	default:
		return upper ? INT64_MAX : INT64_MIN;	/* not a number: no bound */
	}
}

static int x_filter(sqlite3_vtab_cursor *base, int num, const char *str, int argc,
		    sqlite3_value **argv)
{
	struct cursor *c = (struct cursor *)base;
	int shape = (num & BY_SERIES ? 1 : 0) | (num & DESC ? 2 : 0), i = 0, rc;

	(void)str, (void)argc;
	release(c);
	if ((rc = acquire(c, shape)) != SQLITE_OK)
		return rc;
	c->desc = num & DESC;
	c->lo = INT64_MIN;
	c->hi = INT64_MAX;
	c->n = c->at = 0;
	c->rowid = 0;
	if (num & BY_SERIES) {
		sqlite3_value *v = argv[i++];
		int64_t id = sqlite3_value_int64(v);

		/* a series id that is not an integer matches no row */
		if (sqlite3_value_numeric_type(v) != SQLITE_INTEGER)
			c->lo = INT64_MAX, c->hi = INT64_MIN;
		sqlite3_bind_int64(c->loose, 1, id);
		if (c->packs)
			sqlite3_bind_int64(c->packs, 1, id);
	}
	if (num & HAS_LO) {
		int64_t b = bound(argv[i], false);

		c->lo = b > c->lo ? b : c->lo;
		if (num & T_EQ) {
			b = bound(argv[i], true);
			c->hi = b < c->hi ? b : c->hi;
		}
		i++;
	}
	if (num & HAS_HI) {
		int64_t b = bound(argv[i++], true);

		c->hi = b < c->hi ? b : c->hi;
	}
	sqlite3_bind_int64(c->loose, 2, c->lo);
	sqlite3_bind_int64(c->loose, 3, c->hi);
	if (c->packs) {
		sqlite3_bind_int64(c->packs, 2, floor_div(c->lo, 60));
		sqlite3_bind_int64(c->packs, 3, floor_div(c->hi, 60));
	}
	if ((rc = step_loose(c)) != SQLITE_OK || (rc = load_pack(c)) != SQLITE_OK)
		return rc;
	pick(c);
	return SQLITE_OK;
}

static int x_eof(sqlite3_vtab_cursor *base)
{
	return ((struct cursor *)base)->eof;
}

static int x_column(sqlite3_vtab_cursor *base, sqlite3_context *ctx, int col)
{
	struct cursor *c = (struct cursor *)base;
	const struct mw_mp_row *r = &c->rows[c->at];

	if (!c->from_pack) {
		sqlite3_result_value(ctx, sqlite3_column_value(c->loose, col));
		return SQLITE_OK;
	}
	switch (col) {
	case COL_SERIES:
		sqlite3_result_int64(ctx, c->pack_series);
		break;
	case COL_T:
		sqlite3_result_int64(ctx, c->pack_h * 60 + r->minute);
		break;
	case COL_COUNT:
		sqlite3_result_int64(ctx, r->count);
		break;
	default:
		sqlite3_result_double(ctx, r->v[col - COL_BASE]);
	}
	return SQLITE_OK;
}

static int x_rowid(sqlite3_vtab_cursor *base, sqlite3_int64 *rowid)
{
	*rowid = ((struct cursor *)base)->rowid;
	return SQLITE_OK;
}

static const sqlite3_module module = {
	.iVersion = 1,
	.xCreate = NULL,	/* eponymous only: no CREATE VIRTUAL TABLE */
	.xConnect = x_connect,
	.xBestIndex = x_best_index,
	.xDisconnect = x_disconnect,
	.xDestroy = x_disconnect,
	.xOpen = x_open,
	.xClose = x_close,
	.xFilter = x_filter,
	.xNext = x_next,
	.xEof = x_eof,
	.xColumn = x_column,
	.xRowid = x_rowid,
};

int mw_minute_vtab_register(sqlite3 *db)
{
	return sqlite3_create_module(db, "rollup_1m_all", &module, NULL);
}
