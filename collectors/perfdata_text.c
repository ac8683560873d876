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

/* UTF-16LE, n code units (stops at a NUL), appended to a growing pool as
 * NUL-terminated UTF-8; unpaired surrogates become U+FFFD.  Returns the
 * offset of the string in the pool. */
size_t mw_perf_pool_put_utf16(char **pool, size_t *len, size_t *cap,
			      const unsigned char *in, size_t n)
{
	size_t start = *len, i;

	MW_GROW(*pool, *cap, *len + n * 3 + 1);
	for (i = 0; i < n; i++) {
		uint32_t c = rd16(in + 2 * i);
		char *o = *pool + *len;

		if (c == 0)
			break;
		if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
			uint32_t lo = rd16(in + 2 * i + 2);

			if (lo >= 0xdc00 && lo <= 0xdfff) {
				c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
				i++;
				/* 4 bytes for 2 units: fits the 3-per-unit budget */
			} else {
				c = 0xfffd;
			}
		} else if (c >= 0xd800 && c <= 0xdfff) {
			c = 0xfffd;
		}
		if (c < 0x80) {
			o[0] = (char)c;
			*len += 1;
		} else if (c < 0x800) {
			o[0] = (char)(0xc0 | (c >> 6));
			o[1] = (char)(0x80 | (c & 0x3f));
			*len += 2;
		} else if (c < 0x10000) {
			o[0] = (char)(0xe0 | (c >> 12));
			o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
			o[2] = (char)(0x80 | (c & 0x3f));
			*len += 3;
		} else {
			o[0] = (char)(0xf0 | (c >> 18));
			o[1] = (char)(0x80 | ((c >> 12) & 0x3f));
			o[2] = (char)(0x80 | ((c >> 6) & 0x3f));
			o[3] = (char)(0x80 | (c & 0x3f));
			*len += 4;
		}
	}
	(*pool)[(*len)++] = '\0';
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
