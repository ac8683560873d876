/* test_db.c - see test_db.h. */
#include "test_db.h"

#include <sqlite3.h>
#include <stdio.h>

#include "base/mwerr.h"
#include "storage/schema.h"
#include "storage/store.h"

void mw_test_db_remove(const char *path)
{
	static const char *const beside[] = { "", "-wal", "-shm", ".lock" };
	char name[1024];
	size_t i;

	for (i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
		snprintf(name, sizeof(name), "%s%s", path, beside[i]);
		remove(name);
	}
}

void mw_test_store_options(struct mw_store_options *o, const char *path)
{
	mw_store_options_init(o);
	o->db_path = path;
	o->self_metrics = false;
}

struct mw_store *mw_test_store_open_with(const struct mw_store_options *o)
{
	struct mw_store *s;
	struct mw_err err;

	if (mw_store_open(&s, o, &err)) {
		fprintf(stderr, "%s: %s\n", o->db_path, err.msg);
		return NULL;
	}
	return s;
}

struct mw_store *mw_test_store_reopen(const char *path)
{
	struct mw_store_options o;

	mw_test_store_options(&o, path);
	o.retention_raw_ms = o.retention_1m_ms = o.retention_1h_ms = 0;
	return mw_test_store_open_with(&o);
}

struct mw_store *mw_test_store_open(const char *path)
{
	mw_test_db_remove(path);
	return mw_test_store_reopen(path);
}

int64_t mw_test_db_int(const char *path, const char *sql)
{
	sqlite3 *db;
	int64_t v;

	if (sqlite3_open(path, &db) != SQLITE_OK) {
		fprintf(stderr, "%s: %s\n", path, sqlite3_errmsg(db));
		sqlite3_close(db);
		return INT64_MIN;
	}
	v = mw_db_int(db, sql);
	sqlite3_close(db);
	return v;
}
