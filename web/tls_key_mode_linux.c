/* tls_key_mode_linux.c - see tls_key_mode.h. */
#include "tls_key_mode.h"

#include <sys/stat.h>

bool mw_web_key_readable_by_others(const char *path, unsigned *mode)
{
	struct stat st;

	if (stat(path, &st))
		return false;
	*mode = (unsigned)(st.st_mode & 07777);
	return (st.st_mode & (S_IRGRP | S_IROTH)) != 0;
}
