/*
 * minute_pack.h - the blob of a packed hour of 1-minute rollup rows
 * (rollup_1m_pack.data, storage/SCHEMA.md "Packed minutes"): up to 60
 * rows of one series and hour in one value, about a sixth of their size
 * as rows.  A pure codec: no SQLite, no store.
 *
 * A row is a minute's stored columns as rollup.h lays them out (base,
 * min, max, last, sum, each a double as SQLite reads the REAL columns
 * back, and count), so a packed minute reads back exactly as its row
 * did: every double bit for bit, whatever it is (fractions, huge values,
 * infinities, NaN, -0.0).
 *
 * Used by minute_packer.c (writes packs), minute_vtab.c (reads them) and
 * the tests.
 */
#ifndef MW_MINUTE_PACK_H
#define MW_MINUTE_PACK_H

#include <stddef.h>
#include <stdint.h>

#define MW_MP_MINUTES 60
#define MW_MP_COLS 5		/* base, min, max, last, sum */
#define MW_MP_MAX_BYTES 4096	/* an encoded hour never exceeds this */

struct mw_mp_row {
	int minute;		/* 0 .. 59 within the hour */
	int64_t count;
	double v[MW_MP_COLS];	/* base, min, max, last, sum as stored */
};

/* Encode n <= 60 rows, minutes strictly increasing, into out (at least
 * MW_MP_MAX_BYTES); the length written, or 0 when the rows are not in
 * that form. */
size_t mw_mp_encode(const struct mw_mp_row *rows, size_t n, uint8_t *out);

/* Decode a blob into rows (room for 60), in minute order: the number of
 * rows, or -1 when the blob is malformed. */
int mw_mp_decode(const uint8_t *in, size_t len, struct mw_mp_row *rows);

#endif
