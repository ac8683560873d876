/* clean_stop.c - see clean_stop.h. */
#include "clean_stop.h"

#include <stddef.h>
#include <stdint.h>

#include "db.h"

static const char table_sql[] =
	"CREATE TABLE IF NOT EXISTS store_state ("
	" id INTEGER PRIMARY KEY CHECK (id = 1),"
	" clean_stop INTEGER NOT NULL,"
	" pages INTEGER NOT NULL,"
	" checked_ms INTEGER NOT NULL)";

int mw_clean_stop_read(sqlite3 *db, struct mw_clean_stop *out)
{
	sqlite3_stmt *st;
	int rc;

	*out = (struct mw_clean_stop){ 0 };
	rc = sqlite3_prepare_v2(db, "SELECT clean_stop, pages, checked_ms FROM store_state"
				" WHERE id = 1", -1, &st, NULL);
	if (rc != SQLITE_OK) {
		/* a file without the table (new, or older memwatch) prepares
		 * with "no such table"; one that is no database fails here */
		rc = sqlite3_errcode(db) & 0xff;
		return rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT ? -1 : 0;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->found = true;
		out->clean = sqlite3_column_int64(st, 0) == 1;
		out->pages = sqlite3_column_int64(st, 1);
		out->checked_ms = sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -1;
}

static bool same_size(const struct mw_clean_stop *st, int64_t file_bytes, int64_t page_size)
{
	return st->pages > 0 && page_size > 0 && st->pages <= INT64_MAX / page_size &&
	       st->pages * page_size == file_bytes;
}

bool mw_clean_stop_intact(const struct mw_clean_stop *st, int64_t file_bytes,
			  int64_t page_size)
{
	return st->found && st->clean && same_size(st, file_bytes, page_size);
}

const char *mw_full_check_reason(const struct mw_clean_stop *st, int64_t file_bytes,
				 int64_t page_size, int64_t now_ms, int64_t every_ms)
{
	if (every_ms <= 0)
		return "a full check at every start-up (full_check = 0)";
	if (!st->found)
		return "no record of how the file was last closed";
	if (!st->clean)
		return "the last run did not stop cleanly";
	if (!same_size(st, file_bytes, page_size))
		return "the file changed size since the last clean stop";
	if (now_ms < st->checked_ms)
		return "the last full check is dated in the future (the clock went back)";
	if (now_ms - st->checked_ms >= every_ms)
		return "the last full check is older than full_check";
	return NULL;
}

int mw_clean_stop_begin(sqlite3 *db, bool checked, int64_t now_ms, struct mw_err *err)
{
	sqlite3_stmt *st;
	int rc;

	if (mw_db_exec(db, table_sql, err))
		return -1;
	if (mw_db_prepare(db, &st,
			  "INSERT INTO store_state (id, clean_stop, pages, checked_ms)"
			  " VALUES (1, 0, 0, ?1) ON CONFLICT (id) DO UPDATE SET clean_stop = 0,"
			  " checked_ms = CASE WHEN ?2 THEN ?1 ELSE checked_ms END", err))
		return -1;
	sqlite3_bind_int64(st, 1, checked ? now_ms : 0);
	sqlite3_bind_int(st, 2, checked);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return mw_error(err, "cannot record the start of this run: %s", sqlite3_errmsg(db));
	return 0;
}

int mw_clean_stop_mark(sqlite3 *db, struct mw_err *err)
{
	/* the row exists (mw_clean_stop_begin) and is updated in place, so
	 * this write does not change the page count it records */
	if (mw_db_exec(db, "UPDATE store_state SET clean_stop = 1,"
		       " pages = (SELECT page_count FROM pragma_page_count()) WHERE id = 1", err))
		return mw_error_prefix(err, "cannot record the clean stop");
	return 0;
}

int mw_clean_stop_checked(sqlite3 *db, int64_t now_ms, struct mw_err *err)
{
	sqlite3_stmt *st;
	int rc;

	if (mw_db_prepare(db, &st, "UPDATE store_state SET checked_ms = ?1 WHERE id = 1", err))
		return -1;
	sqlite3_bind_int64(st, 1, now_ms);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return mw_error(err, "cannot record the full check: %s", sqlite3_errmsg(db));
	return 0;
}
