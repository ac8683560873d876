/*
 * label_cache.c - label sets and labels resolved during one read call
 * (label_cache.h).  Uses reader.c (its label statement); used by
 * query_series.c.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "label_cache.h"
#include "query_impl.h"
#include "base/xalloc.h"

static int cmp_label_name(const void *a, const void *b)
{
	return strcmp(((const struct mw_label *)a)->name, ((const struct mw_label *)b)->name);
}

static size_t *id_slot(struct mw_id_cache *c, int64_t key, bool *found)
{
	size_t i, mask;

	if ((c->n + 1) * 2 > c->cap) {
		struct mw_id_cache big = { NULL, NULL, c->cap ? c->cap * 2 : 256, 0 };

		big.key = mw_xcalloc(big.cap, sizeof(*big.key));
		big.val = mw_xcalloc(big.cap, sizeof(*big.val));
		for (i = 0; i < c->cap; i++)
			if (c->key[i]) {
				bool f;

				*id_slot(&big, c->key[i], &f) = c->val[i];
			}
		free(c->key);
		free(c->val);
		*c = big;
	}
	mask = c->cap - 1;
	for (i = (size_t)((uint64_t)key * 0x9e3779b97f4a7c15ULL >> 32) & mask; c->key[i];
	     i = (i + 1) & mask)
		if (c->key[i] == key) {
			*found = true;
			return &c->val[i];
		}
	c->key[i] = key;
	c->n++;
	*found = false;
	return &c->val[i];
}

void mw_label_cache_release(struct mw_label_cache *lc)
{
	mw_labels_release(lc->pairs, lc->npairs);
	free(lc->pairs);
	free(lc->labels.key);
	free(lc->labels.val);
	free(lc->sets.key);
	free(lc->sets.val);
	free(lc->set_at);
	free(lc->members);
	memset(lc, 0, sizeof(*lc));
}

/* Index of label id in lc->pairs; -1 on error (a missing label reads as
 * an empty one: the catalogue is written in one transaction, so only a
 * damaged file has none). */
static int label_of(struct mw_reader *r, struct mw_label_cache *lc, int64_t id, size_t *out,
		    struct mw_err *err)
{
	sqlite3_stmt *st;
	struct mw_label *l;
	bool found;
	size_t *slot = id_slot(&lc->labels, id, &found);
	int rc;

	if (found) {
		*out = *slot;
		return 0;
	}
	st = mw_reader_stmt(r, MW_SLOT_LABEL, "SELECT name, value FROM label WHERE id = ?", err);
	if (!st)
		return -1;
	MW_GROW(lc->pairs, lc->pairs_cap, lc->npairs + 1);
	l = &lc->pairs[lc->npairs];
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	l->name = mw_column_dup(st, 0);
	l->value = mw_column_dup(st, 1);
	if (rc != SQLITE_ROW) {
		free((char *)l->name);
		free((char *)l->value);
		l->name = mw_xstrdup("");
		l->value = mw_xstrdup("");
	}
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return mw_reader_fail(r, err);
	*slot = *out = lc->npairs++;
	return 0;
}

int mw_label_cache_set(struct mw_reader *r, struct mw_label_cache *lc, int64_t id,
		       const char *text, struct mw_series_info *info, struct mw_err *err)
{
	size_t start, n, i;
	bool found;
	size_t *slot;

	if (!id || !text)
		return 0;
	slot = id_slot(&lc->sets, id, &found);
	if (!found) {
		const char *p = text;
		size_t head;

		MW_GROW(lc->members, lc->members_cap, lc->nmembers + 1);
		head = lc->nmembers++;
		lc->members[head] = 0;
		while (*p) {
			char *end;
			long long lid = strtoll(p, &end, 10);
			size_t at = 0;

			if (end == p)
				break;
			if (label_of(r, lc, (int64_t)lid, &at, err))
				return -1;
			MW_GROW(lc->members, lc->members_cap, lc->nmembers + 1);
			lc->members[lc->nmembers++] = at;
			lc->members[head]++;
			p = *end == ',' ? end + 1 : end;
		}
		*slot = head;
	}
	start = *slot;
	n = lc->members[start];
	info->labels = mw_xcalloc(n ? n : 1, sizeof(*info->labels));
	for (i = 0; i < n; i++) {
		const struct mw_label *l = &lc->pairs[lc->members[start + 1 + i]];

		info->labels[i].name = mw_xstrdup(l->name);
		info->labels[i].value = mw_xstrdup(l->value);
	}
	info->nlabels = n;
	if (n > 1)
		qsort(info->labels, n, sizeof(*info->labels), cmp_label_name);
	return 0;
}
