/*
 * maintain.c - one maintenance step of the store after a flush
 * (mw_store_maintain, store.h): the age limits (retention.c), region
 * retention (regions_store.c), the size limit (size_cut.c) and packing
 * closed hours of minute rows (minute_packer.c) in one transaction, then
 * the free pages given back.
 *
 * It sits above the three so that none of them calls another's caller:
 * size_cut.c borrows from retention.c, never the other way.  Used by
 * writer.c (after flushes) and by tests; owns the size cut's state.
 */
#include <stdio.h>

#include "store_impl.h"
#include "db.h"
#include "size_cut.h"

/* Pages given back per step when more than a quarter of the file is free
 * (auto_vacuum=INCREMENTAL). */
#define VACUUM_PAGES 256

void mw_maintain_free(struct mw_store *s)
{
	mw_size_cut_free(s->cut);
	s->cut = NULL;
}

int mw_store_maintain(struct mw_store *s, int64_t now_ms, struct mw_err *err)
{
	int64_t pages, freep;

	if (mw_db_exec(s->db, "BEGIN IMMEDIATE", err))
		return -1;
	/* packing before the size cut, so the cut measures the pages after it */
	if (mw_retention_by_age(s, now_ms, err) || mw_rg_store_retain(s, now_ms, err) ||
	    mw_minute_pack_step(s, err) || mw_size_cut_step(s, &s->cut, now_ms, err) ||
	    mw_db_exec(s->db, "COMMIT", err)) {
		if (!sqlite3_get_autocommit(s->db))
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		/* the packs of the step went with it: the packer sweeps again */
		s->pack_epoch++;
		return -1;
	}
	if (mw_size_cut_settle(s, s->cut, err))
		return -1;
	pages = mw_db_int(s->db, "PRAGMA page_count");
	freep = mw_db_int(s->db, "PRAGMA freelist_count");
	if (pages > 0 && freep * 4 > pages) {
		char sql[64];

		snprintf(sql, sizeof(sql), "PRAGMA incremental_vacuum(%d)", VACUUM_PAGES);
		if (mw_db_exec(s->db, sql, err))
			return -1;
	}
	return 0;
}
