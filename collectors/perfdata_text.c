/*
 * perfdata_text.c - the text helpers the perfdata_*.c files share
 * (perfdata_int.h): the name pool that instance names and titles are
 * decoded into, and ASCII case-insensitive compares (perflib's names are
 * compared the way perfmon does).  The title parser (perfdata_titles.c)
 * and the block walker (perfdata_walk.c) both call these; these call
 * neither.
 */
#include "perfdata_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"
#include "base/utf16.h"

/* UTF-16LE, n code units (stops at a NUL), appended to a growing pool as
 * NUL-terminated UTF-8; unpaired surrogates become U+FFFD.  Returns the
 * offset of the string in the pool. */
size_t mw_perf_pool_put_utf16(char **pool, size_t *len, size_t *cap,
			      const unsigned char *in, size_t n)
{
	size_t start = *len;

	/* 3 bytes a unit at the most (a pair's 4 bytes fit its 6): never cut */
	MW_GROW(*pool, *cap, *len + n * 3 + 1);
	mw_utf16le_decode(in, n, *pool + *len, n * 3 + 1);
	*len += strlen(*pool + *len) + 1;
	return start;
}

/* Bytes in a single-byte code page: kept as they are, except that bytes
 * above 0x7f are taken as Latin-1 so the result is valid UTF-8. */
size_t mw_perf_pool_put_bytes(char **pool, size_t *len, size_t *cap,
			      const unsigned char *in, size_t n)
{
	size_t start = *len, i;

	MW_GROW(*pool, *cap, *len + n * 2 + 1);
	for (i = 0; i < n && in[i]; i++) {
		if (in[i] < 0x80) {
			(*pool)[(*len)++] = (char)in[i];
		} else {
			(*pool)[(*len)++] = (char)(0xc0 | (in[i] >> 6));
			(*pool)[(*len)++] = (char)(0x80 | (in[i] & 0x3f));
		}
	}
	(*pool)[(*len)++] = '\0';
	return start;
}

bool mw_perf_ieq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
			return false;
	return *a == *b;
}

bool mw_perf_nieq(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (tolower((unsigned char)a[i]) != tolower((unsigned char)b[i]))
			return false;
	return true;
}
