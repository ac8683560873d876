/*
 * minute_vtab.h - rollup_1m_all, the 1-minute tier as readers see it: an
 * eponymous virtual table (storage/SCHEMA.md "Packed minutes") with the
 * columns of rollup_1m_data (series_id, t, base, min, max, last, sum,
 * count) whose rows are the loose rows of rollup_1m_data and the minutes
 * of the packs in rollup_1m_pack, in (series_id, t) order.  A loose row
 * and a packed minute of the same bucket: the loose row, which the
 * writer wrote later and always whole (it merges through this table).
 *
 * Registered on every connection mw_db_open opens (db.c).  Read-only.
 */
#ifndef MW_MINUTE_VTAB_H
#define MW_MINUTE_VTAB_H

#include <sqlite3.h>

int mw_minute_vtab_register(sqlite3 *db);

#endif
