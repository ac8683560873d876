/*
 * tls_key_mode.h - whether [web] tls_key can be read by other users than
 * its owner, which tls.c warns about at start (a private key others can
 * read lets them pose as this server).  Per OS: tls_key_mode_linux.c
 * looks at the mode bits; tls_key_mode_win32.c says nothing (Windows has
 * ACLs, not mode bits, and its build serves no HTTPS).
 */
#ifndef MW_WEB_TLS_KEY_MODE_H
#define MW_WEB_TLS_KEY_MODE_H

#include <stdbool.h>

/* true with the mode in *mode (0644 ...) when group or others may read
 * path; false when they may not or it cannot be told. */
bool mw_web_key_readable_by_others(const char *path, unsigned *mode);

#endif
