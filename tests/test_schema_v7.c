/*
 * test_schema_v7.c - a schema-6 file (the layout of the code before the
 * interned catalogue, built by the migrations up to 6 and filled from a
 * literal SQL fixture, chunk blob included) migrates to schema 7 at
 * start-up: its series keep their ids, keys, labels, raw points, rollups
 * and newest values, the writer continues them, and the example queries
 * of storage/SCHEMA.md run on the result.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include <sqlite3.h>

#include "storage/catalog.h"
#include "storage/query.h"
#include "storage/schema.h"
#include "storage/store.h"
#include "tests/support/test_db.h"
#include "tests/support/test_main.h"

#define DB "test_schema_v7.tmp.db"
#define T0 1699999200000LL
#define PRIV "memwatch_process_private_bytes{pid=\"42\",process=\"app.exe\"}"
#define THREADS "memwatch_process_threads{pid=\"42\",process=\"app.exe\"}"

/* Rows as schema 6 wrote them.  The chunk holds 5 points, T0 + i s with
 * 4096 * (100 + i * i) (codec format 0x11); threads has one 1-minute and
 * one 1-hour row (7, 9, 8: base 7, offsets 0, 2, 1, sum 24 - 21). */
static const char fixture_v6[] =
	"INSERT INTO series (id, key, name, created_ms, last_chunk, first_ts) VALUES"
	" (1, '" PRIV "', 'memwatch_process_private_bytes', 1699999200000, 1, 1699999200000),"
	" (2, '" THREADS "', 'memwatch_process_threads', 1699999200000, NULL, 1699999200000),"
	" (3, 'memwatch_storage_points_total', 'memwatch_storage_points_total',"
	"  1699999200000, NULL, NULL);"
	"INSERT INTO series_label (series_id, name, value) VALUES"
	" (1, 'pid', '42'), (1, 'process', 'app.exe'), (2, 'pid', '42'), (2, 'process', 'app.exe');"
	"INSERT INTO chunk (id, series_id, min_ts, max_ts, npoints, data, last_ts, last_value)"
	" VALUES (1, 1, 1699999200000, 1699999204000, 5,"
	" X'11050000000000018BCFD933000000000000064000E1F43302660CCC299870',"
	" 1699999204000, 475136);"
	"INSERT INTO latest (series_id, ts, value) VALUES (1, 1699999204000, 475136);"
	"INSERT INTO series_live (series_id) VALUES (1);"
	"INSERT INTO rollup_1m_data VALUES (2, 28333320, 7, 0, 2, 1, 3, 3);"
	"INSERT INTO rollup_1h_data VALUES (2, 472222, 7, 0, 2, 1, 3, 3);";

/* storage/SCHEMA.md's examples (keep in step with it). */
static const char *const examples[] = {
	"SELECT s.id, m.name FROM series s JOIN metric m ON m.id = s.metric_id"
	" JOIN series_label l ON l.series_id = s.id"
	" WHERE l.name = 'pid' AND l.value = '4242'",
	"SELECT s.id, m.name, group_concat(l.name || '=' || l.value, ',')"
	" FROM series s JOIN metric m ON m.id = s.metric_id"
	" LEFT JOIN series_label l ON l.series_id = s.id GROUP BY s.id",
	"SELECT datetime(ts / 1000, 'unixepoch') AS hour, max FROM rollup_1h"
	" WHERE series_id = (SELECT s.id FROM series s"
	"  JOIN metric m ON m.id = s.metric_id AND m.name = 'memwatch_process_private_bytes'"
	"  JOIN series_label l ON l.series_id = s.id AND l.name = 'pid' AND l.value = '4242')"
	" AND ts >= (strftime('%s', 'now') - 7 * 86400) * 1000 ORDER BY ts",
	"SELECT datetime(t * 3600, 'unixepoch') AS hour, base + max AS max"
	" FROM rollup_1h_data WHERE series_id = 17"
	" AND t >= strftime('%s', 'now') / 3600 - 7 * 24 ORDER BY t",
	"SELECT v.series_id, m.name, l.ts, l.value FROM series_live v"
	" JOIN series s ON s.id = v.series_id JOIN metric m ON m.id = s.metric_id"
	" JOIN latest l ON l.series_id = v.series_id",
	"SELECT p.pid, p.process, count(*), min(s.ts), max(s.ts), sum(length(s.data))"
	" FROM ws_process p JOIN ws_snapshot s ON s.process_id = p.id GROUP BY p.id",
};

MW_TEST_DB_FIXTURES(DB)

static void make_v6(void)
{
	struct mw_err err;
	sqlite3 *db;

	assert_int_equal(sqlite3_open(DB, &db), SQLITE_OK);
	assert_int_equal(mw_schema_migrate(db, 6, &err), 0);
	assert_int_equal(mw_schema_version(db), 6);
	if (mw_db_exec(db, fixture_v6, &err))
		fail_msg("%s", err.msg);
	sqlite3_close(db);
}

static void v6_file_reads_back_after_migration(void **state)
{
	struct mw_store *s;
	struct mw_reader *r;
	struct mw_series_list sl;
	struct mw_series_info info;
	struct mw_latest_list l;
	struct mw_range_query q;
	struct mw_range_result res;
	struct mw_err err;
	size_t i;

	(void)state;
	make_v6();
	/* a reader refuses the old file clearly (the daemon migrates first) */
	assert_int_equal(mw_reader_open(&r, DB, &err), -1);
	assert_non_null(strstr(err.msg, "schema version 6"));

	s = mw_test_store_reopen(DB);
	assert_int_equal(mw_schema_version(mw_store_db(s)), MW_SCHEMA_VERSION);
	mw_store_free(s);

	assert_int_equal(mw_reader_open(&r, DB, &err), 0);
	assert_int_equal(mw_reader_find(r, "{pid=\"42\"}", &sl, &err), 0);
	assert_int_equal(sl.n, 2);
	assert_string_equal(sl.items[0].key, PRIV);
	assert_int_equal(sl.items[0].id, 1);
	assert_int_equal(sl.items[0].nlabels, 2);
	assert_string_equal(sl.items[0].labels[1].name, "process");
	assert_string_equal(sl.items[0].labels[1].value, "app.exe");
	assert_int_equal(sl.items[0].first_ts, T0);
	assert_int_equal(sl.items[0].last_ts, T0 + 4000);
	assert_string_equal(sl.items[1].key, THREADS);
	mw_series_list_release(&sl);
	assert_int_equal(mw_reader_series_by_key(r, "memwatch_storage_points_total", &info, &err), 0);
	assert_int_equal(info.id, 3);
	assert_int_equal(info.nlabels, 0);
	mw_series_info_release(&info);
	assert_int_equal(mw_reader_series_by_key(r, THREADS, &info, &err), 0);
	assert_int_equal(info.id, 2);
	mw_series_info_release(&info);

	/* raw points, decoded from the fixture's blob */
	mw_range_query_init(&q, T0, T0 + 59999);
	q.step_ms = MW_STEP_RAW;
	assert_int_equal(mw_reader_range(r, PRIV, &q, &res, &err), 0);
	assert_int_equal(res.nt, 5);
	for (i = 0; i < 5; i++) {
		assert_int_equal(res.t[i], T0 + (int64_t)i * 1000);
		assert_true(res.values[0][i] == 4096.0 * (double)(100 + i * i));
	}
	mw_range_result_release(&res);
	/* rollups: threads only has its 1-minute row */
	mw_range_query_init(&q, T0, T0 + 59999);
	q.step_ms = 60000;
	q.agg = MW_AGG_MAX;
	assert_int_equal(mw_reader_range(r, THREADS, &q, &res, &err), 0);
	assert_int_equal(res.nt, 1);
	assert_true(res.values[0][0] == 9);
	mw_range_result_release(&res);
	/* newest values: the live series, from its chunk */
	assert_int_equal(mw_reader_latest(r, NULL, &l, &err), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.items[0].ts_ms, T0 + 4000);
	assert_true(l.items[0].value == 475136);
	mw_latest_list_release(&l);
	mw_reader_free(r);

	/* the writer continues both series under their ids */
	s = mw_test_store_reopen(DB);
	mw_store_add(s, PRIV, "x", NULL, 0, T0 + 5000, 1);
	mw_store_add(s, THREADS, "x", NULL, 0, T0 + 5000, 10);
	if (mw_store_flush(s, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(mw_db_int(mw_store_db(s), "SELECT count(*) FROM series"), 3);
	assert_int_equal(mw_db_int(mw_store_db(s), "SELECT sum(npoints) FROM chunk "
				   "WHERE series_id = 1"), 6);
	assert_int_equal(mw_db_int(mw_store_db(s), "SELECT count(*) FROM chunk "
				   "WHERE series_id = 2"), 1);
	/* the documented examples are valid SQL on the migrated file */
	for (i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		sqlite3_stmt *st;
		int rc;

		if (sqlite3_prepare_v2(mw_store_db(s), examples[i], -1, &st, NULL) != SQLITE_OK)
			fail_msg("example %zu: %s", i, sqlite3_errmsg(mw_store_db(s)));
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
		assert_int_equal(rc, SQLITE_DONE);
		sqlite3_finalize(st);
	}
	mw_store_free(s);
}

/* Keys: canonical ones round-trip; anything else is a name alone. */
static void keys_parse(void **state)
{
	static const char *const canonical[] = {
		"up", "a{b=\"c\"}", "m{a=\"\\\\x\\\"y\\nz\",b=\"\"}",
		PRIV, "m{x=\"a,b=c\"}",
	};
	static const char *const odd[] = {
		"m{b=\"1\",b=\"2\"}", "m{", "m{a}", "{a=\"b\"}", "m{a=\"b\"}x", "m{a=\"b\\q\"}",
	};
	struct mw_key k;
	size_t i;
	char *t;

	(void)state;
	for (i = 0; i < sizeof(canonical) / sizeof(canonical[0]); i++) {
		mw_key_parse(&k, canonical[i]);
		t = mw_key_text(k.name, k.labels, k.nlabels);
		assert_string_equal(t, canonical[i]);
		free(t);
		mw_key_release(&k);
	}
	mw_key_parse(&k, "m{a=\"\\\\x\\\"y\\nz\",b=\"\"}");
	assert_int_equal(k.nlabels, 2);
	assert_string_equal(k.labels[0].value, "\\x\"y\nz");
	mw_key_release(&k);
	/* unsorted labels are sorted */
	mw_key_parse(&k, "m{z=\"1\",a=\"2\"}");
	assert_string_equal(k.labels[0].name, "a");
	mw_key_release(&k);
	for (i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		mw_key_parse(&k, odd[i]);
		assert_string_equal(k.name, odd[i]);
		assert_int_equal(k.nlabels, 0);
		mw_key_release(&k);
	}
}

MW_TEST_MAIN(
	MW_FIXTURE_TEST(v6_file_reads_back_after_migration),
	cmocka_unit_test(keys_parse),
)
