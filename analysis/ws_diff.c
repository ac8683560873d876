/*
 * ws_diff.c - working-set diff between two region snapshots, and the
 * /api/v1/diff and /api/v1/regions reports (ws_diff.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ws_diff.h"
#include "base/calendar.h"
#include "base/xalloc.h"
#include "storage/query.h"

const char *const mw_ws_change_names[4] = { "new", "gone", "grown", "shrunk" };

static uint64_t total(const struct mw_ws_region *g)
{
	return g ? (uint64_t)g->pages[0] + g->pages[1] + g->pages[2] : 0;
}

static int by_change(const void *a, const void *b)
{
	const struct mw_ws_diff_region *x = a, *y = b;
	uint64_t ax = (uint64_t)(x->delta_pages < 0 ? -x->delta_pages : x->delta_pages);
	uint64_t ay = (uint64_t)(y->delta_pages < 0 ? -y->delta_pages : y->delta_pages);

	if (ax != ay)
		return ax > ay ? -1 : 1;
	return x->base < y->base ? -1 : x->base > y->base;
}

void mw_ws_diff_compute(const struct mw_ws_result *a, const struct mw_ws_result *b,
			struct mw_ws_diff *out)
{
	const struct mw_ws_region *p, *q;
	struct mw_ws_pairs w;
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	mw_ws_region_totals(a, out->t1);
	mw_ws_region_totals(b, out->t2);
	mw_ws_pairs_init(&w, a, b);
	while (mw_ws_pairs_next(&w, &p, &q)) {
		const struct mw_ws_region *one = q ? q : p;
		struct mw_ws_diff_region d;
		bool changed = false;
		int s;

		memset(&d, 0, sizeof(d));
		d.base = one->alloc_base;
		d.size = one->size;
		d.category = one->category;
		d.owner_kind = one->owner_kind;
		d.owner_id = one->owner_id;
		d.owner = one->owner ? one->owner : p ? p->owner : NULL;
		d.pages_t1 = total(p);
		d.pages_t2 = total(q);
		for (s = 0; s < MW_WS_NSHARING; s++) {
			d.delta[s] = (int64_t)(q ? q->pages[s] : 0) - (int64_t)(p ? p->pages[s] : 0);
			changed |= d.delta[s] != 0;
		}
		d.delta_pages = (int64_t)d.pages_t2 - (int64_t)d.pages_t1;
		d.change = !p ? MW_WS_NEW : !q ? MW_WS_GONE
			   : d.delta_pages > 0 || (d.delta_pages == 0 && d.delta[0] > 0)
			   ? MW_WS_GROWN : MW_WS_SHRUNK;
		if (changed || !p || !q) {
			MW_GROW(out->regions, cap, out->n + 1);
			out->regions[out->n++] = d;
		}
	}
	mw_ws_pairs_release(&w);
	if (out->n > 1)
		qsort(out->regions, out->n, sizeof(*out->regions), by_change);
}

void mw_ws_diff_release(struct mw_ws_diff *d)
{
	free(d->regions);
	memset(d, 0, sizeof(*d));
}

/* ---- reports ------------------------------------------------------------- */

/* What a region is, the same in a diff and in a snapshot listing: base,
 * size, category and owner. */
static void add_region_head(struct mw_jw *w, uint64_t base, uint64_t size, uint8_t category,
			    const char *owner, uint8_t kind, uint32_t id)
{
	char hex[24];

	snprintf(hex, sizeof(hex), "0x%" PRIx64, base);
	mw_jw_str(w, "base", hex);
	mw_jw_uint(w, "size", size);
	mw_jw_str(w, "category", category < MW_WS_NCATEGORIES
		  ? mw_ws_category_names[category] : "other");
	mw_jw_str(w, "owner", owner);
	mw_jw_str(w, "owner_kind",
		  kind < MW_WS_NOWNER_KINDS ? mw_ws_owner_kind_names[kind] : "unknown");
	mw_jw_uint(w, "owner_id", id);
}

static void names(struct mw_jw *w, const char *key, const char *const *v, int n)
{
	int i;

	mw_jw_array(w, key);
	for (i = 0; i < n; i++)
		mw_jw_str(w, NULL, v[i]);
	mw_jw_end(w);
}

/* Bytes per category and sharing class: t2 - t1 pages with a t1 (the
 * change), t2 alone without. */
static void totals(struct mw_jw *w, const char *key,
		   const uint64_t t1[MW_WS_NCATEGORIES][MW_WS_NSHARING],
		   const uint64_t t2[MW_WS_NCATEGORIES][MW_WS_NSHARING], uint32_t page)
{
	int c, s;

	mw_jw_object(w, key);
	for (c = 0; c < MW_WS_NCATEGORIES; c++) {
		mw_jw_object(w, mw_ws_category_names[c]);
		for (s = 0; s < MW_WS_NSHARING; s++)
			mw_jw_int(w, mw_ws_sharing_names[s],
				  ((int64_t)t2[c][s] - (t1 ? (int64_t)t1[c][s] : 0)) * page);
		mw_jw_end(w);
	}
	mw_jw_end(w);
}

/* Bytes per sharing class. */
static void by_sharing(struct mw_jw *w, const char *key, const int64_t *pages, uint32_t page)
{
	int s;

	mw_jw_object(w, key);
	for (s = 0; s < MW_WS_NSHARING; s++)
		mw_jw_int(w, mw_ws_sharing_names[s], pages[s] * page);
	mw_jw_end(w);
}

static void fmt_time(char *buf, size_t size, int64_t ms)
{
	if (ms == INT64_MIN || ms == INT64_MAX)
		snprintf(buf, size, "%s", ms == INT64_MIN ? "the beginning" : "now");
	else
		snprintf(buf, size, "%lld", (long long)ms);
}

/* The process the query names: 0 (p filled; with rest, the other
 * processes of the list handed over, rest->items[0] emptied),
 * MW_WS_NOT_FOUND, or -1. */
static int pick(struct mw_reader *r, const char *pid, const char *process, int64_t from,
		int64_t to, struct mw_ws_process *p, struct mw_ws_process_list *rest,
		struct mw_err *err)
{
	struct mw_ws_process_list list;

	if (mw_reader_ws_processes(r, pid, process, from, to, &list, err))
		return -1;
	if (!list.n) {
		char a[32], b[32];
		struct mw_ws_process_list any;

		mw_ws_process_list_release(&list);
		fmt_time(a, sizeof(a), from);
		fmt_time(b, sizeof(b), to);
		if (!pid && mw_reader_ws_processes(r, NULL, process, INT64_MIN, INT64_MAX, &any,
						   err) == 0) {
			size_t n = any.n;

			mw_ws_process_list_release(&any);
			if (!n)
				return mw_error(err, "unknown process '%s' (no region snapshots)",
						process), MW_WS_NOT_FOUND;
		}
		if (pid)
			mw_error(err, "no snapshots for pid %s%s%s between %s and %s", pid,
				 process ? " " : "", process ? process : "", a, b);
		else
			mw_error(err, "no snapshots for process '%s' between %s and %s", process,
				 a, b);
		return MW_WS_NOT_FOUND;
	}
	*p = list.items[0];
	list.items[0].pid = list.items[0].process = NULL;
	if (rest)
		*rest = list;
	else
		mw_ws_process_list_release(&list);
	return 0;
}

/* "other_pids": the other pids of the process name, when there are. */
static void other_pids(struct mw_jw *w, const struct mw_ws_process_list *rest, const char *pid)
{
	size_t i;
	bool open = false;

	for (i = 1; i < rest->n; i++) {
		if (!strcmp(rest->items[i].pid, pid))
			continue;
		if (!open)
			mw_jw_array(w, "other_pids");
		open = true;
		mw_jw_str(w, NULL, rest->items[i].pid);
	}
	if (open)
		mw_jw_end(w);
}

static void head(struct mw_jw *w, struct mw_jbuf *out, const struct mw_ws_process *p)
{
	mw_jw_init(w, out);
	mw_jw_object(w, NULL);
	mw_jw_str(w, "pid", p->pid);
	mw_jw_str(w, "process", p->process);
}

static void diff_json(struct mw_jbuf *out, const struct mw_ws_diff_query *q,
		      const struct mw_ws_process *p, const struct mw_ws_process_list *rest,
		      const struct mw_ws_diff *d, int64_t from, int64_t to, int64_t t1, int64_t t2,
		      uint32_t page)
{
	struct mw_jw w;
	size_t i, n = q->limit && q->limit < d->n ? q->limit : d->n;

	head(&w, out, p);
	mw_jw_int(&w, "from_ms", from);
	mw_jw_int(&w, "to_ms", to);
	mw_jw_int(&w, "t1_ms", t1);
	mw_jw_int(&w, "t2_ms", t2);
	mw_jw_uint(&w, "page_size", page);
	names(&w, "categories", mw_ws_category_names, MW_WS_NCATEGORIES);
	names(&w, "sharing", mw_ws_sharing_names, MW_WS_NSHARING);
	mw_jw_object(&w, "totals");
	totals(&w, "t1", NULL, d->t1, page);
	totals(&w, "t2", NULL, d->t2, page);
	totals(&w, "change", d->t1, d->t2, page);
	mw_jw_end(&w);
	mw_jw_uint(&w, "regions_total", d->n);
	mw_jw_array(&w, "regions");
	for (i = 0; i < n; i++) {
		const struct mw_ws_diff_region *g = &d->regions[i];

		mw_jw_object(&w, NULL);
		add_region_head(&w, g->base, g->size, g->category, g->owner, g->owner_kind,
				g->owner_id);
		mw_jw_str(&w, "change", mw_ws_change_names[g->change]);
		mw_jw_uint(&w, "bytes_t1", g->pages_t1 * page);
		mw_jw_uint(&w, "bytes_t2", g->pages_t2 * page);
		mw_jw_int(&w, "delta_bytes", g->delta_pages * page);
		by_sharing(&w, "delta", g->delta, page);
		mw_jw_end(&w);
	}
	mw_jw_end(&w);
	other_pids(&w, rest, p->pid);
	mw_jw_end(&w);
}

int mw_ws_diff_report(struct mw_reader *r, const struct mw_ws_diff_query *q,
		      struct mw_jbuf *out, struct mw_err *err)
{
	struct mw_ws_process p = { 0 };
	struct mw_ws_process_list rest = { 0 };
	struct mw_ws_result a = { 0 }, b = { 0 };
	struct mw_ws_diff d = { 0 };
	int64_t t1, t2, from = q->from_ms, to = q->to_ms;
	int rc;

	if (!q->pid && !q->process)
		return mw_error(err, "pid or process is required"), MW_WS_BAD;
	if (from > to)
		return mw_error(err, "from is after to"), MW_WS_BAD;
	rc = pick(r, q->pid, q->process, from, to, &p, &rest, err);
	if (rc)
		return rc;
	if (from == INT64_MIN)
		from = p.first_ts;
	if (to == INT64_MAX)
		to = p.last_ts;
	rc = mw_reader_ws_snapshot(r, p.id, from, from, to, &t1, &a, err);
	if (rc == 0)
		rc = mw_reader_ws_snapshot(r, p.id, to, from, to, &t2, &b, err);
	if (rc) {
		if (rc > 0) {
			mw_error(err, "no snapshots for pid %s between %lld and %lld", p.pid,
				 (long long)from, (long long)to);
			rc = MW_WS_NOT_FOUND;
		}
		goto out;
	}
	mw_ws_diff_compute(&a, &b, &d);
	diff_json(out, q, &p, &rest, &d, from, to, t1, t2, b.page_size ? b.page_size : a.page_size);
out:
	mw_ws_process_list_release(&rest);
	mw_ws_diff_release(&d);
	mw_ws_result_release(&a);
	mw_ws_result_release(&b);
	free(p.pid);
	free(p.process);
	return rc;
}

int mw_ws_regions_report(struct mw_reader *r, const char *pid, const char *process,
			 int64_t at_ms, struct mw_jbuf *out, struct mw_err *err)
{
	struct mw_ws_process p = { 0 };
	struct mw_ws_result a = { 0 };
	struct mw_jw w;
	int64_t t, pages[MW_WS_NSHARING];
	size_t i;
	int rc, s;

	if (!pid && !process)
		return mw_error(err, "pid or process is required"), MW_WS_BAD;
	rc = pick(r, pid, process, INT64_MIN, INT64_MAX, &p, NULL, err);
	if (rc)
		return rc;
	rc = mw_reader_ws_snapshot(r, p.id, at_ms, INT64_MIN, INT64_MAX, &t, &a, err);
	if (rc) {
		if (rc > 0) {
			mw_error(err, "no snapshots for pid %s", p.pid);
			rc = MW_WS_NOT_FOUND;
		}
		goto out;
	}
	head(&w, out, &p);
	mw_jw_int(&w, "t_ms", t);
	mw_jw_uint(&w, "page_size", a.page_size);
	mw_jw_array(&w, "regions");
	for (i = 0; i < a.nregions; i++) {
		const struct mw_ws_region *g = &a.regions[i];

		mw_jw_object(&w, NULL);
		add_region_head(&w, g->alloc_base, g->size, g->category, g->owner, g->owner_kind,
				g->owner_id);
		for (s = 0; s < MW_WS_NSHARING; s++)
			pages[s] = (int64_t)g->pages[s];
		by_sharing(&w, "resident", pages, a.page_size);
		mw_jw_end(&w);
	}
	mw_jw_end(&w);
	mw_jw_end(&w);
out:
	mw_ws_result_release(&a);
	free(p.pid);
	free(p.process);
	return rc;
}

/* ---- the table ------------------------------------------------------------ */

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void kib(char *buf, size_t size, double bytes, bool sign)
{
	snprintf(buf, size, sign ? "%+.0f KiB" : "%.0f KiB", bytes / 1024);
}

void mw_ws_diff_print(const cJSON *rep, FILE *f)
{
	const cJSON *tot = cJSON_GetObjectItemCaseSensitive(rep, "totals");
	const cJSON *t1 = cJSON_GetObjectItemCaseSensitive(tot, "t1");
	const cJSON *t2 = cJSON_GetObjectItemCaseSensitive(tot, "t2");
	const cJSON *ch = cJSON_GetObjectItemCaseSensitive(tot, "change");
	const cJSON *regs = cJSON_GetObjectItemCaseSensitive(rep, "regions"), *e;
	char a[32], b[32], c[32], w1[MW_TIME_TEXT_MAX], w2[MW_TIME_TEXT_MAX];
	double ms1 = num(rep, "t1_ms"), ms2 = num(rep, "t2_ms");
	int k, s;

	/* The moments as people read them (UTC); --json keeps the ms fields. */
	mw_time_human(w1, sizeof(w1), (int64_t)ms1);
	mw_time_human(w2, sizeof(w2), (int64_t)ms2);
	fprintf(f, "pid %s (%s): %s -> %s (%.1f s)\n\n", str(rep, "pid") ? str(rep, "pid") : "?",
		str(rep, "process") ? str(rep, "process") : "?", w1, w2, (ms2 - ms1) / 1000);
	fprintf(f, "%-14s %-10s %14s %14s %14s\n", "category", "sharing", "t1", "t2", "change");
	for (k = 0; k < MW_WS_NCATEGORIES; k++)
		for (s = 0; s < MW_WS_NSHARING; s++) {
			const char *cn = mw_ws_category_names[k], *sn = mw_ws_sharing_names[s];
			double x = num(cJSON_GetObjectItemCaseSensitive(t1, cn), sn);
			double y = num(cJSON_GetObjectItemCaseSensitive(t2, cn), sn);
			double z = num(cJSON_GetObjectItemCaseSensitive(ch, cn), sn);

			if (x == 0 && y == 0)
				continue;
			kib(a, sizeof(a), x, false);
			kib(b, sizeof(b), y, false);
			kib(c, sizeof(c), z, true);
			fprintf(f, "%-14s %-10s %14s %14s %14s\n", cn, sn, a, b, c);
		}
	fprintf(f, "\n%.0f regions changed%s\n", num(rep, "regions_total"),
		cJSON_GetArraySize(regs) < num(rep, "regions_total") ? " (the largest listed)" : "");
	if (cJSON_GetArraySize(regs))
		fprintf(f, "%-18s %-12s %-6s %12s  %s\n", "base", "category", "change", "delta",
			"owner");
	cJSON_ArrayForEach(e, regs) {
		kib(a, sizeof(a), num(e, "delta_bytes"), true);
		fprintf(f, "%-18s %-12s %-6s %12s  %s\n", str(e, "base") ? str(e, "base") : "?",
			str(e, "category") ? str(e, "category") : "?",
			str(e, "change") ? str(e, "change") : "?", a,
			str(e, "owner") ? str(e, "owner") : "-");
	}
}
