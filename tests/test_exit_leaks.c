/* test_exit_leaks.c - exit leak reports past the parsers: stored by the
 * writer from detail records (once, a bad record dropped, retention), read
 * back whole, a file without the table; the import of LeakSanitizer, UMDH
 * and ntdll files; the check failing a group; the collector's image list. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/exit_check.h"
#include "analysis/leak_report.h"
#include "base/clock.h"
#include "base/fsutf8.h"
#include "base/xalloc.h"
#include "collectors/exit_leaks.h"
#include "core/batch.h"
#include "core/config.h"
#include "core/exit_report.h"
#include "import/exit_reports.h"
#include "storage/exit_reports.h"
#include "storage/query.h"
#include "storage/store.h"
#include "tests/support/leak_report_parsed.h"
#include "tests/support/test_db.h"
#include "tests/support/test_main.h"

#define DB "test_exit_leaks.tmp.db"
#define FILE_LSAN "test_exit_leaks.tmp.app.4242"
#define FILE_UMDH "test_exit_leaks.tmp.umdh.txt"
#define FILE_NTDLL "test_exit_leaks.tmp.debugger.log"
#define FILE_CSV "test_exit_leaks.tmp.csv"

MW_TEST_DB_FIXTURES(DB)

static void report(struct mw_exit_report *r, const char *process, int64_t pid, int64_t exited,
		   uint64_t bytes)
{
	memset(r, 0, sizeof(*r));
	r->process = mw_xstrdup(process);
	r->pid = pid;
	r->started_ms = exited - 60000;
	r->exited_ms = exited;
	r->source = MW_EXIT_LSAN;
	r->leaks = 2;
	r->bytes = bytes;
	r->complete = true;
	r->nstacks = 1;
	r->stacks = mw_xcalloc(1, sizeof(*r->stacks));
	r->stacks[0] = (struct mw_exit_stack){ bytes, 2, false, mw_xstrdup("#0 0x1 in main a.c:3\n") };
}

static void add(struct mw_store *s, const void *data, size_t len, int64_t ts)
{
	struct mw_batch *b = mw_batch_new();
	struct mw_label l[2] = { { "pid", "1" }, { "process", "x" } };

	mw_batch_add_detail(b, MW_EXIT_REPORT_DETAIL, "memwatch_exit_leak_bytes", l, 2, ts, data, len);
	mw_store_add_batch(s, b);
	mw_batch_free(b);
}

static void add_report(struct mw_store *s, const struct mw_exit_report *r)
{
	size_t len;
	void *enc = mw_exit_report_encode(r, &len);

	add(s, enc, len, r->exited_ms);
	free(enc);
}

/* The newest max reports of process (NULL: any) stored in DB. */
static void read_newest(struct mw_exit_report_list *l, const char *process, size_t max)
{
	struct mw_reader *rd;
	struct mw_err err = { "" };

	assert_int_equal(mw_reader_open(&rd, DB, &err), 0);
	assert_int_equal(mw_reader_exit_reports(rd, process, INT64_MIN, INT64_MAX, max, l, &err), 0);
	mw_reader_free(rd);
}

static void read_all(struct mw_exit_report_list *l, const char *process)
{
	read_newest(l, process, 100);
}

static void stored_once_and_read_back(void **state)
{
	int64_t now = mw_clock_wall_ms();
	struct mw_store *s = mw_test_store_open(DB);
	struct mw_exit_report a, b;
	struct mw_exit_report_list l;
	struct mw_store_stats st;
	struct mw_err err;
	static const unsigned char junk[] = { 1, 2, 0, 0 };

	(void)state;
	assert_non_null(s);
	report(&a, "app", 4242, now - 1000, 4396);
	report(&b, "other", 7, now, 10);
	add_report(s, &a);
	add_report(s, &a);	/* the same run again: one row */
	add_report(s, &b);
	add(s, junk, sizeof(junk), now);	/* not a report: dropped, counted */
	mw_store_get_stats(s, &st);
	assert_int_equal(st.dropped_points_total, 1);
	assert_int_equal(mw_store_flush(s, &err), 0);
	mw_store_free(s);
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM exit_report"), 2);

	read_all(&l, NULL);
	assert_int_equal(l.n, 2);
	assert_false(l.more);
	assert_string_equal(l.items[0].r.process, "other");	/* newest first */
	assert_string_equal(l.items[1].r.process, "app");
	assert_int_equal(l.items[1].r.pid, 4242);
	assert_int_equal(l.items[1].r.bytes, 4396);
	assert_true(l.items[1].r.started_ms == now - 61000);
	assert_int_equal(l.items[1].r.nstacks, 1);
	assert_string_equal(l.items[1].r.stacks[0].frames, "#0 0x1 in main a.c:3\n");
	mw_exit_report_list_release(&l);
	read_all(&l, "app");
	assert_int_equal(l.n, 1);
	mw_exit_report_list_release(&l);
	/* at most one: the newest, and more left */
	read_newest(&l, NULL, 1);
	assert_int_equal(l.n, 1);
	assert_true(l.more);
	assert_string_equal(l.items[0].r.process, "other");
	mw_exit_report_list_release(&l);
	mw_exit_report_release(&a);
	mw_exit_report_release(&b);
}

/* Reports older than retention_1h go when a report is written. */
static void retention(void **state)
{
	int64_t now = mw_clock_wall_ms();
	struct mw_store_options o;
	struct mw_store *s;
	struct mw_exit_report old, fresh;
	struct mw_exit_report_list l;

	(void)state;
	mw_test_store_options(&o, DB);
	o.retention_1h_ms = 3600000;
	s = mw_test_store_open_with(&o);
	assert_non_null(s);
	report(&old, "app", 1, now - 2 * 3600000, 100);
	report(&fresh, "app", 2, now, 100);
	add_report(s, &old);	/* already past the retention: removed at once */
	add_report(s, &fresh);
	mw_store_free(s);
	read_all(&l, NULL);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.items[0].r.pid, 2);
	mw_exit_report_list_release(&l);
	mw_exit_report_release(&old);
	mw_exit_report_release(&fresh);
}

/* A file without reports has no table (it comes with the first report,
 * so a file is left as it was), and a reader answers none. */
static void file_without_the_table(void **state)
{
	struct mw_store *s = mw_test_store_open(DB);
	struct mw_exit_report_list l;

	(void)state;
	assert_non_null(s);
	mw_store_free(s);
	assert_int_equal(mw_test_db_int(DB, "SELECT count(*) FROM sqlite_master"
					" WHERE name = 'exit_report'"), 0);
	read_all(&l, NULL);
	assert_int_equal(l.n, 0);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void imports(void **state)
{
	struct mw_store *s = mw_test_store_open(DB);
	struct mw_err err = { "" };
	struct mw_exit_report_list l;
	size_t i;

	(void)state;
	assert_non_null(s);
	write_file(FILE_LSAN, "==4242==ERROR: LeakSanitizer: detected memory leaks\n\n"
		   "Direct leak of 64 byte(s) in 2 object(s) allocated from:\n"
		   "    #0 0x1 in f a.c:1\n\n"
		   "SUMMARY: AddressSanitizer: 64 byte(s) leaked in 2 allocation(s).\n");
	write_file(FILE_UMDH, "+    5320 (  f110 -  9df0)     3a allocs\tBackTrace00B53\n"
		   "\tapp!grow+10\n\nTotal increase ==   5320 requested +  0 overhead = 5320\n");
	write_file(FILE_NTDLL, "ModLoad: app.exe\n"
		   "HEAP[app.exe]: Inspecting leaks at process shutdown ...\n"
		   "Below is a list of potentially leaked heap entries\n"
		   "use !heap -i Entry -h Heap for more information\n"
		   "Entry             Heap              Size\n"
		   "---------------------------------------------\n"
		   "000001F2A3B40000  1f2a3b00000       100\n"
		   "000001F2A3B50000  1f2a3b00000       28\n"
		   "HEAP[app.exe]: 2 leaks detected.\n");
	write_file(FILE_CSV, "\"(PDH-CSV 4.0) (UTC)(0)\",\"x\"\n");
	assert_int_equal(mw_import_exit_report_file(s, FILE_LSAN, NULL, &err), 1);
	assert_int_equal(mw_import_exit_report_file(s, FILE_UMDH, NULL, &err), 1);
	assert_int_equal(mw_import_exit_report_file(s, FILE_NTDLL, NULL, &err), 1);
	assert_int_equal(mw_import_exit_report_file(s, FILE_CSV, NULL, &err), 0);
	assert_int_equal(mw_import_exit_report_file(s, "no/such/file", NULL, &err), 0);
	write_file(FILE_LSAN, "Direct leak of 64 byte(s) in 0 object(s) allocated from:\n");
	assert_int_equal(mw_import_exit_report_file(s, FILE_LSAN, NULL, &err), -1);
	assert_non_null(strstr(err.msg, FILE_LSAN ": line 1"));
	mw_store_free(s);
	read_all(&l, NULL);
	assert_int_equal(l.n, 3);
	for (i = 0; i < l.n; i++) {
		const struct mw_exit_report *r = &l.items[i].r;

		if (r->source == MW_EXIT_LSAN) {
			assert_string_equal(r->process, "test_exit_leaks.tmp.app");
			assert_int_equal(r->pid, 4242);
			assert_int_equal(r->bytes, 64);
		} else if (r->source == MW_EXIT_UMDH) {
			assert_string_equal(r->process, "test_exit_leaks.tmp.umdh");
			assert_int_equal(r->bytes, 0x5320);
			assert_int_equal(r->nstacks, 1);
		} else {
			assert_int_equal(r->source, MW_EXIT_NTDLL);
			assert_string_equal(r->process, "app.exe");
			assert_int_equal(r->leaks, 2);
			assert_int_equal(r->bytes, 128);	/* ntdll's sizes are decimal (%Id) */
			assert_int_equal(r->nblocks, 2);
		}
	}
	mw_exit_report_list_release(&l);
	remove(FILE_LSAN);
	remove(FILE_UMDH);
	remove(FILE_NTDLL);
	remove(FILE_CSV);
}

/* A report whose file name is not ASCII (UTF-8, as every path memwatch
 * takes) keeps the file's time as its exit time: on Windows a narrow
 * stat() of "caf\xc3\xa9" fails, and the report was dated 1970. */
static void imports_utf8_name(void **state)
{
	const char *path = "test_exit_leaks.tmp.caf\xc3\xa9.4242";
	struct mw_store *s = mw_test_store_open(DB);
	struct mw_err err = { "" };
	struct mw_exit_report_list l;
	FILE *f = mw_fopen(path, "wb");
	int64_t mtime;

	(void)state;
	assert_non_null(s);
	assert_non_null(f);
	fputs("==4242==ERROR: LeakSanitizer: detected memory leaks\n\n"
	      "Direct leak of 64 byte(s) in 2 object(s) allocated from:\n"
	      "    #0 0x1 in f a.c:1\n\n"
	      "SUMMARY: AddressSanitizer: 64 byte(s) leaked in 2 allocation(s).\n", f);
	fclose(f);
	mtime = mw_file_mtime(path);
	assert_true(mtime > 1000000000);	/* the file's time: after 2001 */
	assert_int_equal(mw_import_exit_report_file(s, path, NULL, &err), 1);
	mw_store_free(s);
	read_all(&l, NULL);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.items[0].r.process, "test_exit_leaks.tmp.caf\xc3\xa9");
	assert_int_equal(l.items[0].r.exited_ms, mtime * 1000);
	mw_exit_report_list_release(&l);
	assert_int_equal(mw_remove(path), 0);
}

/* The leak report of the store's data over the last two hours, parsed. */
static cJSON *check(struct mw_leak_query *q)
{
	return mw_test_leak_report(DB, q);
}

static const cJSON *group_named(const cJSON *rep, const char *process)
{
	const cJSON *g;

	cJSON_ArrayForEach(g, cJSON_GetObjectItem(rep, "groups"))
		if (!strcmp(cJSON_GetObjectItem(g, "process")->valuestring, process))
			return g;
	return NULL;
}

static int count_of(const cJSON *rep, const char *verdict)
{
	return cJSON_GetObjectItem(cJSON_GetObjectItem(rep, "counts"), verdict)->valueint;
}

/* A run over max_bytes fails its group: a judged group whose trend
 * passes takes the report's verdict and reason; a process without series
 * gets a group of its own; the counts and the verdict follow.  At or
 * under max_bytes, or another process asked for: nothing. */
static void check_fails_the_group(void **state)
{
	int64_t now = mw_clock_wall_ms(), t;
	struct mw_store *s = mw_test_store_open(DB);
	struct mw_exit_report a, b;
	struct mw_leak_query q;
	struct mw_label l[3] = { { "pid", "77" }, { "process", "steady" }, { "started", "1" } };
	char key[256];
	cJSON *rep;
	const cJSON *g;

	(void)state;
	assert_non_null(s);
	/* steady: flat private bytes for an hour, a pass on its trend */
	mw_series_key_format(key, sizeof(key), "memwatch_process_private_bytes", l, 3);
	for (t = now - 3600000; t <= now; t += 10000)
		mw_store_add(s, key, "memwatch_process_private_bytes", l, 3, t, 50e6);
	report(&a, "app", 4242, now - 1000, 4396);
	add_report(s, &a);
	report(&b, "steady", 77, now - 2000, 100);
	add_report(s, &b);
	mw_store_free(s);
	mw_leak_query_init(&q);

	rep = check(&q);
	assert_string_equal(cJSON_GetObjectItem(rep, "verdict")->valuestring, "fail");
	assert_null(cJSON_GetObjectItem(rep, "reason"));
	assert_int_equal(count_of(rep, "fail"), 2);
	assert_int_equal(count_of(rep, "pass"), 0);
	assert_int_equal(cJSON_GetObjectItem(rep, "groups_total")->valueint, 2);
	g = group_named(rep, "app");	/* no series: a group of its own */
	assert_non_null(g);
	assert_string_equal(cJSON_GetObjectItem(g, "verdict")->valuestring, "fail");
	assert_string_equal(cJSON_GetObjectItem(g, "aspect")->valuestring, "exit_leaks");
	assert_non_null(strstr(cJSON_GetObjectItem(g, "reason")->valuestring,
			       "(lsan, app pid 4242): 4396 bytes in 2 allocations"));
	g = group_named(rep, "steady");	/* judged: its trend passed, its report fails it */
	assert_non_null(g);
	assert_string_equal(cJSON_GetObjectItem(g, "verdict")->valuestring, "fail");
	assert_string_equal(cJSON_GetObjectItem(g, "kind")->valuestring, "exit leak");
	assert_non_null(strstr(cJSON_GetObjectItem(g, "reason")->valuestring,
			       "(lsan, steady pid 77): 100 bytes in 2 allocations"));
	assert_non_null(cJSON_GetObjectItem(g, "exit_leak_reason"));
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(rep, "exit_leaks"), "failed")->valueint, 2);
	cJSON_Delete(rep);

	/* within max_bytes: steady passes on its trend, app is no group */
	q.params.exit_max_bytes = 4396;
	rep = check(&q);
	assert_string_equal(cJSON_GetObjectItem(rep, "verdict")->valuestring, "pass");
	assert_null(group_named(rep, "app"));
	assert_string_equal(cJSON_GetObjectItem(group_named(rep, "steady"), "verdict")->valuestring, "pass");
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(rep, "exit_leaks"), "failed")->valueint, 0);
	cJSON_Delete(rep);

	/* another process asked for: app's report is not its */
	q.params.exit_max_bytes = 0;
	q.process = mw_xstrdup("stead*");
	rep = check(&q);
	assert_null(group_named(rep, "app"));
	assert_int_equal(count_of(rep, "fail"), 1);
	cJSON_Delete(rep);

	mw_leak_query_release(&q);
	mw_exit_report_release(&a);
	mw_exit_report_release(&b);
}

/* `check --process app` where app's run left only its exit report (too
 * short for series): judged by the report, not "no process named". */
static void check_of_a_process_known_by_its_report(void **state)
{
	struct mw_store *s = mw_test_store_open(DB);
	struct mw_exit_report a;
	struct mw_leak_query q;
	struct mw_reader *rd;
	struct mw_err err = { "" };
	struct mw_jbuf rep;
	enum mw_verdict overall;

	(void)state;
	assert_non_null(s);
	report(&a, "app", 4242, mw_clock_wall_ms(), 4396);
	add_report(s, &a);
	mw_store_free(s);
	assert_int_equal(mw_reader_open(&rd, DB, &err), 0);
	mw_leak_query_init(&q);
	q.process = mw_xstrdup("app");
	mw_jbuf_init(&rep);
	if (mw_leak_report(rd, &q, &rep, &overall, &err))
		fail_msg("check --process app: %s", err.msg);
	assert_int_equal(overall, MW_VERDICT_FAIL);
	mw_jbuf_release(&rep);
	free(q.process);
	q.process = mw_xstrdup("nothing_like_it");
	assert_int_equal(mw_leak_report(rd, &q, NULL, NULL, &err), -1);	/* still an error */
	assert_non_null(strstr(err.msg, "process: no process named"));
	mw_leak_query_release(&q);
	mw_reader_free(rd);
	mw_exit_report_release(&a);
}

static void image_list(void **state)
{
	size_t n, i;
	char **v = mw_exit_leaks_split_images(" app.exe, ,other.exe ,,\tx.exe", &n);

	(void)state;
	assert_int_equal(n, 3);
	assert_string_equal(v[0], "app.exe");
	assert_string_equal(v[1], "other.exe");
	assert_string_equal(v[2], "x.exe");
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	assert_null(mw_exit_leaks_split_images("", &n));
	assert_int_equal(n, 0);
}

/* [exit_leaks]: images are names, not paths; sizes as everywhere. */
static void settings(void **state)
{
	struct mw_config cfg;
	struct mw_err err = { "" };

	(void)state;
	mw_config_init(&cfg);
	assert_int_equal(cfg.exit_leaks_max_bytes, 0);
	assert_string_equal(cfg.exit_leaks_images, "");
	assert_int_equal(mw_config_load_string(&cfg, "t.ini", "[exit_leaks]\nimages = app.exe, b.exe\n"
					       "lsan_dir = /var/tmp/lsan\nmax_bytes = 1KB\n", &err), 0);
	assert_string_equal(cfg.exit_leaks_images, "app.exe, b.exe");
	assert_string_equal(cfg.exit_leaks_lsan_dir, "/var/tmp/lsan");
	assert_int_equal(cfg.exit_leaks_max_bytes, 1024);
	assert_int_equal(mw_config_load_string(&cfg, "t.ini", "[exit_leaks]\nimages = C:\\bin\\app.exe\n",
					       &err), -1);
	assert_non_null(strstr(err.msg, "t.ini:2"));
	assert_non_null(strstr(err.msg, "is a path"));
	assert_int_equal(mw_config_load_string(&cfg, "t.ini", "[exit_leaks]\nmax_bytes = lots\n", &err), -1);
	assert_non_null(strstr(err.msg, "max_bytes"));
	mw_config_release(&cfg);
}

MW_TEST_MAIN(
	MW_FIXTURE_TEST(stored_once_and_read_back),
	MW_FIXTURE_TEST(retention),
	MW_FIXTURE_TEST(file_without_the_table),
	MW_FIXTURE_TEST(imports),
	MW_FIXTURE_TEST(imports_utf8_name),
	MW_FIXTURE_TEST(check_fails_the_group),
	MW_FIXTURE_TEST(check_of_a_process_known_by_its_report),
	cmocka_unit_test(image_list),
	cmocka_unit_test(settings),
)
