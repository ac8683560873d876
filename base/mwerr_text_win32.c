/* mwerr_text_win32.c - mwerr_text.h on Windows: FormatMessageW, then UTF-16
 * to UTF-8 (utf16.h), so the text is right whatever the ANSI code page. */
#include "base/mwerr_text.h"

#include <stdio.h>
#include <windows.h>

#include "base/utf16.h"

void mw_system_error_text(unsigned long code, const char *module, char *out, size_t size)
{
	wchar_t w[512];
	DWORD flags = FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS;
	HMODULE from = module ? GetModuleHandleA(module) : NULL;
	DWORD n;
	size_t len;

	if (!size)
		return;
	if (from)
		flags |= FORMAT_MESSAGE_FROM_HMODULE;
	n = FormatMessageW(flags, from, (DWORD)code, 0, w, (DWORD)(sizeof(w) / sizeof(w[0])), NULL);
	while (n && (w[n - 1] == L'\n' || w[n - 1] == L'\r' || w[n - 1] == L' ' ||
		     w[n - 1] == L'.'))
		n--;
	if (n == 0) {
		snprintf(out, size, "error %lu", code);
		return;
	}
	/* wchar_t is UTF-16 in little-endian memory on every Windows target */
	len = mw_utf16le_decode((const unsigned char *)w, n, out, size);
	out[len] = '\0';
}
