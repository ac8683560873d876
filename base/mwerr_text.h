/*
 * mwerr_text.h - the operating system's own words for an error code, as
 * UTF-8 for memwatch's messages (which are UTF-8 everywhere: logs, JSON,
 * the Event Log through the wide API).
 *
 * Windows: FormatMessageW (the wide text, whatever the ANSI code page;
 * FormatMessageA's text in a UTF-8 message is mojibake on a German or
 * Japanese system), from the system's table or a module's (winhttp.dll's
 * codes are in that DLL), converted with utf16.h.  Elsewhere: strerror.
 * Used by the remote-write transport (forward/rw_transport_win32.c) and
 * anyone formatting a GetLastError().
 */
#ifndef MW_BASE_MWERR_TEXT_H
#define MW_BASE_MWERR_TEXT_H

#include <stddef.h>

/* The text for code, trimmed of the trailing line break and full stop,
 * NUL-terminated valid UTF-8 in out[0..size); "error CODE" when the system
 * has none.  module: a loaded DLL whose message table to try first
 * ("winhttp.dll"), or NULL (Windows only; ignored elsewhere). */
void mw_system_error_text(unsigned long code, const char *module, char *out, size_t size);

#endif
