/* mwerr_text_linux.c - mwerr_text.h elsewhere than Windows: strerror's
 * text (the C library's, in the C locale's words: ASCII). */
#include "base/mwerr_text.h"

#include <stdio.h>
#include <string.h>

void mw_system_error_text(unsigned long code, const char *module, char *out, size_t size)
{
	(void)module;
	if (!size)
		return;
	if (code > 0x7fffffffUL)
		snprintf(out, size, "error %lu", code);
	else
		snprintf(out, size, "%s", strerror((int)code));
}
