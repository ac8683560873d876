/*
 * raw_iter.c - the raw point iterator of exports (query.h "raw export"):
 * one series' points in storage order, a chunk decoded at a time, so an
 * export runs in constant memory.
 *
 * Uses reader.c and codec.c.  Used by export.c and by callers of query.h.
 * Its statement is its own, not one of the reader's kept ones: several
 * iterators may be open on one reader.
 */
#include <stdlib.h>

#include "query_impl.h"
#include "codec.h"
#include "base/xalloc.h"

struct mw_raw_iter {
	struct mw_reader *r;
	sqlite3_stmt *st;
	struct mw_chunk_dec d;
	struct mw_tail_scratch scratch;	/* the chunk being decoded, tails laid over */
	bool have_chunk, done;
	int64_t from, to;
};

int mw_raw_iter_open(struct mw_raw_iter **out, struct mw_reader *r, int64_t series_id,
		     int64_t from_ms, int64_t to_ms, struct mw_err *err)
{
	struct mw_raw_iter *it = mw_xcalloc(1, sizeof(*it));

	*out = NULL;
	if (sqlite3_prepare_v2(mw_reader_sqlite(r), MW_SQL_CHUNK_RANGE, -1, &it->st, NULL) != SQLITE_OK) {
		mw_reader_fail(r, err);
		free(it);
		return -1;
	}
	if (sqlite3_get_autocommit(mw_reader_sqlite(r)))
		mw_reader_drop_tails(r);	/* its own snapshot, not an older call's */
	sqlite3_bind_int64(it->st, 1, series_id);
	sqlite3_bind_int64(it->st, 2, from_ms);
	sqlite3_bind_int64(it->st, 3, to_ms);
	it->r = r;
	it->from = from_ms;
	it->to = to_ms;
	*out = it;
	return 0;
}

int mw_raw_iter_next(struct mw_raw_iter *it, int64_t *ts, double *value,
		     struct mw_err *err)
{
	while (!it->done) {
		const uint8_t *blob;
		size_t len;
		int rc;

		if (it->have_chunk) {
			rc = mw_chunk_dec_next(&it->d, ts, value);
			if (rc < 0)
				return mw_error(err, "corrupt chunk in '%s'", mw_reader_path(it->r));
			if (rc == 0) {
				it->have_chunk = false;
				continue;
			}
			if (*ts >= it->from && *ts <= it->to)
				return 1;
			continue;
		}
		if (mw_reader_expired(it->r))	/* checked once a chunk */
			return mw_reader_deadline_fail(it->r, err);
		rc = sqlite3_step(it->st);
		if (rc == SQLITE_DONE) {
			it->done = true;
			break;
		}
		if (rc != SQLITE_ROW)
			return mw_reader_fail(it->r, err);
		if (mw_reader_chunk_blob(it->r, it->st, 0, 1, &it->scratch, &blob, &len, err))
			return -1;
		if (mw_chunk_dec_init(&it->d, blob, len))
			return mw_error(err, "corrupt chunk in '%s'", mw_reader_path(it->r));
		it->have_chunk = true;
	}
	return 0;
}

void mw_raw_iter_free(struct mw_raw_iter *it)
{
	if (!it)
		return;
	sqlite3_finalize(it->st);
	free(it->scratch.buf);
	free(it);
}
