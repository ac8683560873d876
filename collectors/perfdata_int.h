/*
 * perfdata_int.h - what the perfdata_*.c files share and nothing else
 * uses: the name pool, ASCII case-insensitive compares and the bytes a
 * counter type reads (unaligned reads are base/unaligned.h's).
 */
#ifndef MW_COLLECTORS_PERFDATA_INT_H
#define MW_COLLECTORS_PERFDATA_INT_H

#include <string.h>

#include "base/unaligned.h"
#include "perfdata.h"

/* perfdata_text.c: UTF-16LE (n code units, stops at a NUL) or
 * single-byte text appended to a growing pool as NUL-terminated UTF-8;
 * returns the string's offset in the pool. */
size_t mw_perf_pool_put_utf16(char **pool, size_t *len, size_t *cap,
			      const unsigned char *in, size_t n);
size_t mw_perf_pool_put_bytes(char **pool, size_t *len, size_t *cap,
			      const unsigned char *in, size_t n);
/* perfdata_walk.c: bytes a counter type reads from its block (4, 8, 0, or
 * the declared size for variable-length text). */
uint32_t mw_perf_type_bytes(uint32_t type, uint32_t declared);

/* perfdata_text.c: ASCII case-insensitive equality. */
bool mw_perf_ieq(const char *a, const char *b);
bool mw_perf_nieq(const char *a, const char *b, size_t n);

#endif
