/* utf8_wide_win32.c - see utf8_wide.h. */
#include "utf8_wide.h"

#include <windows.h>
#include <stdlib.h>

wchar_t *mw_utf8_to_wide(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	wchar_t *w;

	if (n <= 0 || !(w = malloc((size_t)n * sizeof(*w))))
		return NULL;
	if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n) {
		free(w);
		return NULL;
	}
	return w;
}
