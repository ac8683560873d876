/*
 * catalog.c - series keys and the interned catalogue (catalog.h).
 *
 * Why label sets rather than a row per series and label: the series of a
 * process differ only in their metric (and resident_bytes in `kind`), so
 * one set row and its member rows serve all of them; a series row is then
 * four small integers.  Why the set's content as text of label ids ("3,17,
 * 18", in label-name order) with a unique index: it is how the writer
 * finds an existing set in one seek, and it is a dozen bytes.
 *
 * Uses db.c only.  Used by series.c, retention.c, store.c (the writer),
 * schema.c (the 6 -> 7 migration) and reader.c / query_series.c (a key's
 * ids); it never calls schema.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "db.h"
#include "base/xalloc.h"

/* ---- keys ------------------------------------------------------------------ */

void mw_key_release(struct mw_key *k)
{
	mw_labels_release(k->labels, k->nlabels);
	free(k->labels);
	free(k->name);
	memset(k, 0, sizeof(*k));
}

/* Parse the labels at p (after '{'); 0, or -1 when not of the form. */
static int parse_labels(const char *p, struct mw_key *k)
{
	size_t cap = 0;

	for (;;) {
		const char *eq = strchr(p, '=');
		char *value, *v;
		struct mw_label *l;

		if (!eq || eq == p || eq[1] != '"' || memchr(p, ',', (size_t)(eq - p)) ||
		    memchr(p, '"', (size_t)(eq - p)))
			return -1;
		value = v = mw_xmalloc(strlen(eq) + 1);
		MW_GROW(k->labels, cap, k->nlabels + 1);
		l = &k->labels[k->nlabels++];
		l->name = mw_xstrndup(p, (size_t)(eq - p));
		l->value = value;
		for (p = eq + 2; *p && *p != '"'; p++) {
			if (*p == '\\') {
				p++;
				if (*p == 'n')
					*v++ = '\n';
				else if (*p == '\\' || *p == '"')
					*v++ = *p;
				else
					break;
			} else {
				*v++ = *p;
			}
		}
		*v = '\0';
		if (*p != '"')
			return -1;
		p++;
		if (*p == '}')
			return p[1] ? -1 : 0;
		if (*p != ',')
			return -1;
		p++;
	}
}

static int cmp_label(const void *a, const void *b)
{
	return strcmp(((const struct mw_label *)a)->name, ((const struct mw_label *)b)->name);
}

void mw_key_parse(struct mw_key *k, const char *key)
{
	const char *brace = strchr(key, '{');
	size_t i;

	memset(k, 0, sizeof(*k));
	if (brace && brace > key && parse_labels(brace + 1, k) == 0) {
		k->name = mw_xstrndup(key, (size_t)(brace - key));
		qsort(k->labels, k->nlabels, sizeof(*k->labels), cmp_label);
		for (i = 1; i < k->nlabels; i++)
			if (!strcmp(k->labels[i - 1].name, k->labels[i].name))
				break;
		if (i >= k->nlabels || k->nlabels < 2)
			return;
	}
	/* not a key of labels (or a label twice): the whole text is a name */
	mw_key_release(k);
	k->name = mw_xstrdup(key);
}

char *mw_key_text(const char *name, const struct mw_label *labels, size_t nlabels)
{
	size_t need = mw_series_key_format(NULL, 0, name, labels, nlabels);
	char *buf = mw_xmalloc(need + 1);

	mw_series_key_format(buf, need + 1, name, labels, nlabels);
	return buf;
}

/* ---- the catalogue ------------------------------------------------------- */

static const char *const cat_sql[CAT_COUNT] = {
	[CAT_METRIC_FIND] = "SELECT id FROM metric WHERE name = ?1",
	[CAT_METRIC_INSERT] = "INSERT INTO metric (name) VALUES (?1)",
	[CAT_LABEL_FIND] = "SELECT id FROM label WHERE name = ?1 AND value = ?2",
	[CAT_LABEL_INSERT] = "INSERT INTO label (name, value) VALUES (?1, ?2)",
	[CAT_SET_FIND] = "SELECT id FROM label_set WHERE labels = ?1",
	[CAT_SET_INSERT] = "INSERT INTO label_set (labels) VALUES (?1)",
	[CAT_MEMBER_INSERT] = "INSERT OR IGNORE INTO label_set_member (set_id, label_id) "
			      "VALUES (?1, ?2)",
	[CAT_SERIES_DELETE] = "DELETE FROM series WHERE id = ?1 RETURNING metric_id, set_id",
	[CAT_SET_USED] = "SELECT 1 FROM series WHERE set_id = ?1 LIMIT 1",
	[CAT_SET_MEMBERS] = "SELECT j.value FROM label_set ls,"
			    " json_each('[' || ls.labels || ']') j WHERE ls.id = ?1",
	[CAT_MEMBERS_DELETE] = "DELETE FROM label_set_member WHERE label_id = ?1 AND set_id = ?2",
	[CAT_SET_DELETE] = "DELETE FROM label_set WHERE id = ?1",
	[CAT_LABEL_USED] = "SELECT 1 FROM label_set_member WHERE label_id = ?1 LIMIT 1",
	[CAT_LABEL_DELETE] = "DELETE FROM label WHERE id = ?1",
	[CAT_METRIC_USED] = "SELECT 1 FROM series WHERE metric_id = ?1 LIMIT 1",
	[CAT_METRIC_DELETE] = "DELETE FROM metric WHERE id = ?1",
};

/* Statements are prepared on first use: the migration uses the label-set
 * ones before the series table has its schema-7 columns. */
void mw_catalog_open(struct mw_catalog *c, sqlite3 *db)
{
	memset(c, 0, sizeof(*c));
	c->db = db;
}

static sqlite3_stmt *st_get(struct mw_catalog *c, int which, struct mw_err *err)
{
	if (!c->st[which] && mw_db_prepare(c->db, &c->st[which], cat_sql[which], err))
		return NULL;
	return c->st[which];
}

void mw_catalog_close(struct mw_catalog *c)
{
	int i;

	for (i = 0; i < CAT_COUNT; i++)
		sqlite3_finalize(c->st[i]);
	memset(c, 0, sizeof(*c));
}

static int fail(struct mw_catalog *c, sqlite3_stmt *st, const char *what, struct mw_err *err)
{
	sqlite3_reset(st);
	return mw_error(err, "cannot %s: %s", what, sqlite3_errmsg(c->db));
}

/* One id from find (bound already); else, with create, run ins (bound the
 * same) and take its rowid.  0 found, 2 added, 1 missing, -1 error. */
static int find_or_add(struct mw_catalog *c, sqlite3_stmt *find, sqlite3_stmt *ins, bool create,
		       int64_t *id, const char *what, struct mw_err *err)
{
	int rc = sqlite3_step(find);

	if (rc == SQLITE_ROW) {
		*id = sqlite3_column_int64(find, 0);
		sqlite3_reset(find);
		return 0;
	}
	if (rc != SQLITE_DONE)
		return fail(c, find, what, err);
	sqlite3_reset(find);
	if (!create) {
		*id = 0;
		return 1;
	}
	if (sqlite3_step(ins) != SQLITE_DONE)
		return fail(c, ins, what, err);
	sqlite3_reset(ins);
	*id = sqlite3_last_insert_rowid(c->db);
	return 2;
}

int mw_catalog_set(struct mw_catalog *c, const int64_t *label_ids, size_t n, bool create,
		   int64_t *set_id, struct mw_err *err)
{
	sqlite3_stmt *find = st_get(c, CAT_SET_FIND, err), *ins = st_get(c, CAT_SET_INSERT, err);
	sqlite3_stmt *mem = st_get(c, CAT_MEMBER_INSERT, err);
	char small[256], *text = small;
	size_t cap = sizeof(small), len = 0, i;
	int rc;

	*set_id = 0;
	if (!n)
		return 0;
	if (!find || !ins || !mem)
		return -1;
	for (i = 0; i < n; i++) {
		char num[24];
		int k = snprintf(num, sizeof(num), "%s%lld", i ? "," : "", (long long)label_ids[i]);

		if (len + (size_t)k + 1 > cap) {
			cap = (len + (size_t)k + 1) * 2;
			text = text == small ? memcpy(mw_xmalloc(cap), small, len) :
			       mw_xrealloc(text, cap);
		}
		memcpy(text + len, num, (size_t)k + 1);
		len += (size_t)k;
	}
	sqlite3_bind_text(find, 1, text, (int)len, SQLITE_STATIC);
	sqlite3_bind_text(ins, 1, text, (int)len, SQLITE_STATIC);
	rc = find_or_add(c, find, ins, create, set_id, "find label set", err);
	if (rc == 2) {
		for (rc = 0, i = 0; i < n && rc == 0; i++) {
			sqlite3_bind_int64(mem, 1, *set_id);
			sqlite3_bind_int64(mem, 2, label_ids[i]);
			if (sqlite3_step(mem) != SQLITE_DONE)
				rc = fail(c, mem, "insert label set member", err);
			sqlite3_reset(mem);
		}
	}
	if (text != small)
		free(text);
	return rc;
}

int mw_catalog_ids(struct mw_catalog *c, const char *name, const struct mw_label *labels,
		   size_t nlabels, bool create, int64_t *metric_id, int64_t *set_id,
		   struct mw_err *err)
{
	int64_t small[16], *ids = nlabels <= 16 ? small : mw_xcalloc(nlabels, sizeof(*ids));
	size_t i;
	int rc;

	*metric_id = *set_id = 0;
	for (i = CAT_METRIC_FIND; i <= CAT_LABEL_INSERT; i++)
		if (!st_get(c, (int)i, err)) {
			if (ids != small)
				free(ids);
			return -1;
		}
	sqlite3_bind_text(c->st[CAT_METRIC_FIND], 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(c->st[CAT_METRIC_INSERT], 1, name, -1, SQLITE_STATIC);
	rc = find_or_add(c, c->st[CAT_METRIC_FIND], c->st[CAT_METRIC_INSERT], create, metric_id,
			 "find metric", err) % 2;
	for (i = 0; i < nlabels && rc == 0; i++) {
		sqlite3_bind_text(c->st[CAT_LABEL_FIND], 1, labels[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_text(c->st[CAT_LABEL_FIND], 2, labels[i].value, -1, SQLITE_STATIC);
		sqlite3_bind_text(c->st[CAT_LABEL_INSERT], 1, labels[i].name, -1, SQLITE_STATIC);
		sqlite3_bind_text(c->st[CAT_LABEL_INSERT], 2, labels[i].value, -1, SQLITE_STATIC);
		rc = find_or_add(c, c->st[CAT_LABEL_FIND], c->st[CAT_LABEL_INSERT], create, &ids[i],
				 "find label", err) % 2;
	}
	if (rc == 0)
		rc = mw_catalog_set(c, ids, nlabels, create, set_id, err);
	if (ids != small)
		free(ids);
	return rc;
}

/* 1: a row, 0: none, -1: error. */
static int exists(struct mw_catalog *c, int which, int64_t id, struct mw_err *err)
{
	sqlite3_stmt *st = st_get(c, which, err);
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : mw_error(err, "cannot read the catalogue: %s",
						sqlite3_errmsg(c->db));
}

static int run_id(struct mw_catalog *c, int which, int64_t id, struct mw_err *err)
{
	sqlite3_stmt *st = st_get(c, which, err);

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_DONE)
		return fail(c, st, "update the catalogue", err);
	sqlite3_reset(st);
	return 0;
}

int mw_catalog_remove(struct mw_catalog *c, int64_t series_id, struct mw_err *err)
{
	sqlite3_stmt *st = st_get(c, CAT_SERIES_DELETE, err);
	int64_t metric_id = 0, set_id = 0, *labels = NULL;
	size_t n = 0, cap = 0, i;
	int rc;

	if (!st || !st_get(c, CAT_SET_MEMBERS, err))
		return -1;
	sqlite3_bind_int64(st, 1, series_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		metric_id = sqlite3_column_int64(st, 0);
		set_id = sqlite3_column_int64(st, 1);
		rc = sqlite3_step(st);
	}
	if (rc != SQLITE_DONE)
		return fail(c, st, "delete a series", err);
	sqlite3_reset(st);
	if (metric_id && (rc = exists(c, CAT_METRIC_USED, metric_id, err)) <= 0 &&
	    (rc < 0 || run_id(c, CAT_METRIC_DELETE, metric_id, err)))
		return -1;
	if (!set_id || (rc = exists(c, CAT_SET_USED, set_id, err)) > 0)
		return 0;
	if (rc < 0)
		return -1;
	st = c->st[CAT_SET_MEMBERS];
	sqlite3_bind_int64(st, 1, set_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		MW_GROW(labels, cap, n + 1);
		labels[n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_reset(st);
	rc = rc == SQLITE_DONE ? 0 : mw_error(err, "cannot read a label set: %s",
					      sqlite3_errmsg(c->db));
	for (i = 0; i < n && !rc; i++) {
		sqlite3_stmt *del = st_get(c, CAT_MEMBERS_DELETE, err);

		if (!del)
			rc = -1;
		else {
			sqlite3_bind_int64(del, 1, labels[i]);
			sqlite3_bind_int64(del, 2, set_id);
			if (sqlite3_step(del) != SQLITE_DONE)
				rc = fail(c, del, "delete a label set member", err);
			sqlite3_reset(del);
		}
	}
	if (!rc)
		rc = run_id(c, CAT_SET_DELETE, set_id, err);
	for (i = 0; i < n && !rc; i++) {
		int used = exists(c, CAT_LABEL_USED, labels[i], err);

		if (used < 0 || (!used && run_id(c, CAT_LABEL_DELETE, labels[i], err)))
			rc = -1;
	}
	free(labels);
	return rc;
}
