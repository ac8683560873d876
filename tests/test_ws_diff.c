/* test_ws_diff.c - the working-set diff on constructed snapshots, and the
 * /api/v1/diff report from a database. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/ws_diff.h"
#include "base/xalloc.h"
#include "storage/query.h"
#include "storage/store.h"
#include "tests/support/test_db.h"
#include "tests/support/test_main.h"

#define T0 1700000000000LL
#define DB "test_ws_diff.tmp.db"

static void reg(struct mw_ws_result *r, uint64_t base, int cat, const char *owner,
		uint32_t priv, uint32_t shareable, uint32_t shared)
{
	struct mw_ws_region *g;

	MW_GROW(r->regions, r->cap, r->nregions + 1);
	g = &r->regions[r->nregions++];
	memset(g, 0, sizeof(*g));
	g->alloc_base = base;
	g->size = 1 << 20;
	g->category = (uint8_t)cat;
	g->owner_kind = owner ? MW_WS_OWNER_MODULE : MW_WS_OWNER_UNKNOWN;
	g->owner = owner ? mw_xstrdup(owner) : NULL;
	g->pages[0] = priv;
	g->pages[1] = shareable;
	g->pages[2] = shared;
	r->page_size = 4096;
}

static void build(struct mw_ws_result *a, struct mw_ws_result *b)
{
	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	reg(a, 0x10000, MW_WS_HEAP, NULL, 10, 0, 0);		/* grows by 100 */
	reg(a, 0x20000, MW_WS_IMAGE, "ntdll.dll", 1, 2, 30);	/* unchanged */
	reg(a, 0x30000, MW_WS_STACK, NULL, 8, 0, 0);		/* gone */
	reg(a, 0x40000, MW_WS_PRIVATE, NULL, 50, 0, 0);		/* shrinks by 20 */
	reg(b, 0x40000, MW_WS_PRIVATE, NULL, 30, 0, 0);
	reg(b, 0x10000, MW_WS_HEAP, NULL, 110, 0, 0);
	reg(b, 0x20000, MW_WS_IMAGE, "ntdll.dll", 1, 2, 30);
	reg(b, 0x50000, MW_WS_MAPPED, "data.bin", 0, 3, 0);	/* new */
}

static void diff_constructed(void **state)
{
	struct mw_ws_result a, b;
	struct mw_ws_diff d;

	(void)state;
	build(&a, &b);
	mw_ws_diff_compute(&a, &b, &d);
	assert_int_equal(d.n, 4);
	assert_true(d.regions[0].base == 0x10000);
	assert_int_equal(d.regions[0].change, MW_WS_GROWN);
	assert_int_equal(d.regions[0].delta_pages, 100);
	assert_true(d.regions[1].base == 0x40000);
	assert_int_equal(d.regions[1].change, MW_WS_SHRUNK);
	assert_int_equal(d.regions[1].delta[0], -20);
	assert_true(d.regions[2].base == 0x30000);
	assert_int_equal(d.regions[2].change, MW_WS_GONE);
	assert_int_equal(d.regions[2].pages_t2, 0);
	assert_true(d.regions[3].base == 0x50000);
	assert_int_equal(d.regions[3].change, MW_WS_NEW);
	assert_string_equal(d.regions[3].owner, "data.bin");
	assert_int_equal(d.regions[3].delta[1], 3);
	assert_int_equal(d.t1[MW_WS_HEAP][0], 10);
	assert_int_equal(d.t2[MW_WS_HEAP][0], 110);
	assert_int_equal(d.t1[MW_WS_IMAGE][2], 30);
	assert_int_equal(d.t2[MW_WS_STACK][0], 0);
	mw_ws_diff_release(&d);
	/* identical snapshots: nothing changed */
	mw_ws_diff_compute(&a, &a, &d);
	assert_int_equal(d.n, 0);
	mw_ws_diff_release(&d);
	mw_ws_result_release(&a);
	mw_ws_result_release(&b);
}

static void add(struct mw_store *s, const char *pid, int64_t ts, const struct mw_ws_result *r)
{
	struct mw_label l[2] = { { "pid", pid }, { "process", "leaky.exe" } };
	struct mw_detail d = { "workingset.regions", "k", l, 2, ts, NULL, 0 };
	unsigned char *enc = mw_ws_encode(r, &d.len);

	d.data = enc;
	mw_store_add_regions(s, &d);
	free(enc);
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

/* A report's rc; *rep its JSON text parsed (NULL after an error, when
 * nothing may have been written).  regions: the region map at at_ms of
 * q->pid, else the diff. */
static int report_doc(struct mw_reader *r, const struct mw_ws_diff_query *q, bool regions,
		      int64_t at_ms, cJSON **rep, struct mw_err *err)
{
	struct mw_jbuf b;
	int rc;

	mw_jbuf_init(&b);
	rc = regions ? mw_ws_regions_report(r, q->pid, q->process, at_ms, &b, err)
		     : mw_ws_diff_report(r, q, &b, err);
	if (rc)
		assert_int_equal(b.len, 0);
	else
		printf("%s\n", b.p);
	*rep = rc ? NULL : cJSON_Parse(b.p);
	assert_true(rc || *rep);
	mw_jbuf_release(&b);
	return rc;
}

static void report_from_db(void **state)
{
	struct mw_store_options o;
	struct mw_store *s;
	struct mw_reader *r;
	struct mw_ws_result a, b;
	struct mw_err err;
	struct mw_ws_diff_query q = { NULL, "leaky.exe", INT64_MIN, INT64_MAX, 2 };
	struct mw_ws_diff_query map = { "4242", NULL, INT64_MIN, INT64_MAX, 0 };
	cJSON *rep, *regs, *e, *tot;

	(void)state;
	mw_test_db_remove(DB);
	build(&a, &b);
	mw_test_store_options(&o, DB);
	assert_int_equal(mw_store_open(&s, &o, &err), 0);
	add(s, "100", T0 - 100000, &a);		/* an older incarnation */
	add(s, "4242", T0, &a);
	add(s, "4242", T0 + 5000, &a);
	add(s, "4242", T0 + 10000, &b);
	mw_store_free(s);
	assert_int_equal(mw_reader_open(&r, DB, &err), 0);

	assert_int_equal(report_doc(r, &q, false, 0, &rep, &err), 0);
	assert_string_equal(cJSON_GetObjectItem(rep, "pid")->valuestring, "4242");
	assert_true(num(rep, "t1_ms") == T0);
	assert_true(num(rep, "t2_ms") == T0 + 10000);
	assert_true(num(rep, "page_size") == 4096);
	assert_true(num(rep, "regions_total") == 4);
	regs = cJSON_GetObjectItem(rep, "regions");
	assert_int_equal(cJSON_GetArraySize(regs), 2);
	e = cJSON_GetArrayItem(regs, 0);
	assert_string_equal(cJSON_GetObjectItem(e, "base")->valuestring, "0x10000");
	assert_string_equal(cJSON_GetObjectItem(e, "change")->valuestring, "grown");
	assert_true(num(e, "delta_bytes") == 100 * 4096);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(e, "owner")));
	tot = cJSON_GetObjectItem(cJSON_GetObjectItem(rep, "totals"), "change");
	assert_true(num(cJSON_GetObjectItem(tot, "heap"), "private") == 100 * 4096);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(rep, "other_pids")), 1);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(rep, "categories")), 7);
	mw_ws_diff_print(rep, stdout);
	cJSON_Delete(rep);

	/* snapping inside the range */
	q.from_ms = T0 + 4000;
	q.to_ms = T0 + 6000;
	assert_int_equal(report_doc(r, &q, false, 0, &rep, &err), 0);
	assert_true(num(rep, "t1_ms") == T0 + 5000);
	assert_true(num(rep, "t2_ms") == T0 + 5000);
	assert_true(num(rep, "regions_total") == 0);
	cJSON_Delete(rep);

	/* not found */
	q.from_ms = T0 + 11000;
	q.to_ms = T0 + 12000;
	assert_int_equal(report_doc(r, &q, false, 0, &rep, &err), MW_WS_NOT_FOUND);
	q.process = "nope.exe";
	assert_int_equal(report_doc(r, &q, false, 0, &rep, &err), MW_WS_NOT_FOUND);
	assert_non_null(strstr(err.msg, "unknown process"));
	q.process = NULL;
	q.pid = "42";
	assert_int_equal(report_doc(r, &q, false, 0, &rep, &err), MW_WS_NOT_FOUND);
	assert_non_null(strstr(err.msg, "no snapshots for pid 42"));
	q.pid = NULL;
	assert_int_equal(report_doc(r, &q, false, 0, &rep, &err), MW_WS_BAD);

	/* the region map */
	assert_int_equal(report_doc(r, &map, true, T0 + 9000, &rep, &err), 0);
	assert_true(num(rep, "t_ms") == T0 + 10000);
	regs = cJSON_GetObjectItem(rep, "regions");
	assert_int_equal(cJSON_GetArraySize(regs), 4);
	e = cJSON_GetArrayItem(regs, 1);
	assert_string_equal(cJSON_GetObjectItem(e, "owner")->valuestring, "ntdll.dll");
	assert_string_equal(cJSON_GetObjectItem(e, "owner_kind")->valuestring, "module");
	assert_true(num(cJSON_GetObjectItem(e, "resident"), "shared") == 30 * 4096);
	cJSON_Delete(rep);

	mw_reader_free(r);
	mw_ws_result_release(&a);
	mw_ws_result_release(&b);
	mw_test_db_remove(DB);
}

/* The table (memwatchd diff without --json) shows the moments as people
 * read them everywhere, "YYYY-MM-DD HH:MM:SS UTC", not epoch ms; the JSON
 * keeps its ms fields. */
static void print_times(void **state)
{
	cJSON *rep = cJSON_Parse("{\"pid\":\"4242\",\"process\":\"leaky.exe\","
				 "\"t1_ms\":1700000000000,\"t2_ms\":1700000612500,"
				 "\"totals\":{},\"regions_total\":0,\"regions\":[]}");
	const char *path = "test_ws_diff.tmp.txt";
	char line[256] = "", all[4096];
	size_t n;
	FILE *f;

	(void)state;
	assert_non_null(rep);
	f = fopen(path, "w+");
	assert_non_null(f);
	mw_ws_diff_print(rep, f);
	rewind(f);
	assert_non_null(fgets(line, sizeof(line), f));
	rewind(f);
	n = fread(all, 1, sizeof(all) - 1, f);
	all[n] = '\0';
	fclose(f);
	remove(path);
	printf("%s", all);
	assert_string_equal(line, "pid 4242 (leaky.exe): 2023-11-14 22:13:20 UTC -> "
			    "2023-11-14 22:23:32 UTC (612.5 s)\n");
	assert_null(strstr(all, "1700000"));
	cJSON_Delete(rep);
}

MW_TEST_MAIN(
	cmocka_unit_test(diff_constructed),
	cmocka_unit_test(report_from_db),
	cmocka_unit_test(print_times),
)
