/*
 * perfdata_titles.c - the title database: "Counter 009" / "Help 009"
 * (REG_MULTI_SZ index/name pairs, English on every locale), parsed
 * leniently and searched by index or by name.
 */
#include "perfdata_int.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

void mw_perf_titles_release(struct mw_perf_titles *t)
{
	free(t->by_index);
	free(t->pool);
	memset(t, 0, sizeof(*t));
}

static int title_cmp(const void *a, const void *b)
{
	const struct mw_perf_title *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

int mw_perf_titles_parse(struct mw_perf_titles *t, const unsigned char *buf, size_t len,
			 struct mw_err *err)
{
	size_t nunits = len / 2, i = 0, cap = 0, *name_offs = NULL, k, out;
	uint32_t *idx = NULL;

	mw_perf_titles_release(t);
	if (len & 1)
		t->skipped++;	/* a stray last byte; the rest may be fine */
	while (i < nunits) {
		size_t s1 = i, e1, s2, e2;
		uint64_t v = 0;
		bool numeric = true;

		while (i < nunits && mw_load16(buf + 2 * i))
			i++;
		e1 = i;
		if (e1 == s1)
			break;	/* the empty string ends a REG_MULTI_SZ */
		i++;
		s2 = i;
		while (i < nunits && mw_load16(buf + 2 * i))
			i++;
		e2 = i;
		i++;
		for (k = s1; k < e1; k++) {
			uint16_t c = mw_load16(buf + 2 * k);

			if (c < '0' || c > '9' || v > UINT32_MAX / 10) {
				numeric = false;
				break;
			}
			v = v * 10 + (c - '0');
		}
		if (!numeric || e2 <= s2 || v > UINT32_MAX) {
			t->skipped++;
			/* Drop the pair and go on with the next one. */
			continue;
		}
		if (t->n == cap) {
			cap = cap ? cap * 2 : 1024;
			idx = mw_xrealloc(idx, cap * sizeof(*idx));
			name_offs = mw_xrealloc(name_offs, cap * sizeof(*name_offs));
		}
		idx[t->n] = (uint32_t)v;
		name_offs[t->n] = mw_perf_pool_put_utf16(&t->pool, &t->pool_len, &t->pool_cap,
						 buf + 2 * s2, e2 - s2);
		t->n++;
	}
	if (t->n == 0) {
		free(idx);
		free(name_offs);
		return mw_error(err, "title database holds no index/name pair (%zu bytes)", len);
	}
	t->by_index = mw_xmalloc(t->n * sizeof(*t->by_index));
	for (k = 0; k < t->n; k++) {
		t->by_index[k].index = idx[k];
		t->by_index[k].name = t->pool + name_offs[k];
	}
	free(idx);
	free(name_offs);
	/* Duplicate indexes: one survives (which one is unspecified, as
	 * qsort is not stable); each dropped one is counted. */
	qsort(t->by_index, t->n, sizeof(*t->by_index), title_cmp);
	for (k = 0, out = 0; k < t->n; k++) {
		if (out && t->by_index[out - 1].index == t->by_index[k].index) {
			t->skipped++;
			continue;
		}
		t->by_index[out++] = t->by_index[k];
	}
	t->n = out;
	t->last_index = t->by_index[t->n - 1].index;
	return 0;
}

const char *mw_perf_title(const struct mw_perf_titles *t, uint32_t index)
{
	size_t lo = 0, hi;

	if (!t)
		return NULL;
	hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->by_index[mid].index == index)
			return t->by_index[mid].name;
		if (t->by_index[mid].index < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

size_t mw_perf_title_find(const struct mw_perf_titles *t, const char *name,
			  uint32_t *out, size_t max)
{
	size_t i, n = 0;

	for (i = 0; t && i < t->n; i++) {
		if (mw_perf_ieq(t->by_index[i].name, name)) {
			if (n < max)
				out[n] = t->by_index[i].index;
			n++;
		}
	}
	return n;
}
