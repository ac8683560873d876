/*
 * perfdata_select.c - choosing from snapshots: the instance of the
 * previous snapshot that is the same thing as one of this snapshot, and
 * counter paths ("\\Object(parent/instance#n)\\Counter") and which
 * instances they select.
 */
#include "perfdata_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
	if (mw_perf_ieq(p->instance, full))
		return true;
	/* "name#0" is the first "name" */
	n = strlen(p->instance);
	if (i->dup_index == 0 && n > 2 && !strcmp(p->instance + n - 2, "#0") &&
	    strlen(full) == n - 2 && mw_perf_nieq(p->instance, full, n - 2))
		return true;
	return false;
}

size_t mw_perf_missing_parents(const struct mw_perf_snapshot *s, const struct mw_perf_object *o,
			       uint32_t *out, size_t max)
{
	size_t i, j, n = 0;

	for (i = 0; i < o->ninstances && n < max; i++) {
		uint32_t po = o->instances[i].parent_object;
		bool seen = false;

		if (!po || mw_perf_snapshot_object(s, po))
			continue;
		for (j = 0; j < n; j++)
			seen |= out[j] == po;
		if (!seen)
			out[n++] = po;
	}
	return n;
}

int mw_perf_query_add(char *query, size_t size, uint32_t index)
{
	char num[16];
	const char *w = query;
	size_t nl, ql = strlen(query);

	nl = (size_t)snprintf(num, sizeof(num), "%" PRIu32, index);
	while (*w) {	/* whole words only: "23" is not in "230" */
		size_t wl;

		while (*w == ' ')
			w++;
		wl = strcspn(w, " ");
		if (wl == nl && !memcmp(w, num, nl))
			return 0;
		w += wl;
	}
	if (ql + (ql ? 1 : 0) + nl + 1 > size)
		return -1;
	snprintf(query + ql, size - ql, "%s%s", ql ? " " : "", num);
	return 1;
}
