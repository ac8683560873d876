/* mhd_api_win32.c - see mhd_api.h: Windows builds have one libmicrohttpd,
 * the linked one, for HTTPS too.  The cross build's has no TLS (tls.c
 * refuses tls_cert, saying what to do instead); MSYS2's has. */
#include "mhd_api.h"

const struct mw_mhd_api *mw_mhd_https(struct mw_err *err)
{
	MW_UNUSED(err);
	return &mw_mhd_linked;
}
