/*
 * utf8_wide.h - Windows only: a UTF-8 string as the UTF-16 (wchar_t) one
 * the W functions take, the one copy for file names (fsutf8_win32.c), the
 * remote-write transport's URL and headers (WinHTTP) and the service's
 * paths and command line.  The other way round is utf16.h.
 */
#ifndef MW_BASE_UTF8_WIDE_H
#define MW_BASE_UTF8_WIDE_H

#include <wchar.h>

/* A malloc'ed NUL-terminated UTF-16 copy of s; NULL when s is not valid
 * UTF-8 (out of memory aborts, mw_xmalloc).  The caller frees it. */
wchar_t *mw_utf8_to_wide(const char *s);

#endif
