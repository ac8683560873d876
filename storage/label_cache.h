/*
 * label_cache.h - label sets and labels resolved during one read call
 * (query_series.c): the series of a process share their label set, and a
 * process name or kind label is shared by many, so each set and label is
 * read once per call.  Ids are not stable across transactions (retention
 * may delete a set and SQLite reuse its id), so a cache lives for one call.
 * Not for use outside storage/.
 */
#ifndef MW_LABEL_CACHE_H
#define MW_LABEL_CACHE_H

#include <stddef.h>
#include <stdint.h>
#include "query.h"

/* An open-addressing map of ids to indexes. */
struct mw_id_cache {
	int64_t *key;		/* 0: empty slot */
	size_t *val;
	size_t cap, n;
};

/* Zero it to start; release it after the call. */
struct mw_label_cache {
	struct mw_id_cache labels;	/* label id -> index in pairs */
	struct mw_label *pairs;	/* owned strings */
	size_t npairs, pairs_cap;
	struct mw_id_cache sets;	/* set id -> index in set_at */
	size_t *set_at, nsets, sets_cap;	/* start in members, count follows */
	size_t *members;	/* indexes into pairs; per set: n, then n indexes */
	size_t nmembers, members_cap;
};

void mw_label_cache_release(struct mw_label_cache *lc);
/* The labels of set id (its text "3,17,18": label ids) into info, sorted
 * by name; a set id 0 or no text: none.  -1 with a message on a storage
 * failure. */
int mw_label_cache_set(struct mw_reader *r, struct mw_label_cache *lc, int64_t id,
		       const char *text, struct mw_series_info *info, struct mw_err *err);

#endif
