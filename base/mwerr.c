/* mwerr.c - see mwerr.h. */
#include "mwerr.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int mw_error(struct mw_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int mw_error_prefix(struct mw_err *err, const char *fmt, ...)
{
	char prefix[MW_ERR_MAX], old[MW_ERR_MAX];
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%s: %s", prefix, old);
	return -1;
}
