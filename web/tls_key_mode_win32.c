/* tls_key_mode_win32.c - see tls_key_mode.h: nothing to tell here. */
#include "tls_key_mode.h"

bool mw_web_key_readable_by_others(const char *path, unsigned *mode)
{
	(void)path;
	*mode = 0;
	return false;
}
