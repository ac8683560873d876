/* utf8_wide_win32.c - see utf8_wide.h. */
#include "utf8_wide.h"

#include <windows.h>
#include <stdlib.h>

#include "xalloc.h"

wchar_t *mw_utf8_to_wide(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	wchar_t *w;

	if (n <= 0)
		return NULL;
	/* out of memory aborts, as every allocation does: a NULL here means
	 * "not UTF-8", and callers then fall back to the narrow call, which
	 * would open a different file for a non-ASCII name */
	w = mw_xmalloc((size_t)n * sizeof(*w));
	if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n) {
		free(w);
		return NULL;
	}
	return w;
}
