/*
 * rw_proxy_auth.h - the message for a proxy that asks memwatch's HTTP
 * client to log on (HTTP 407, Proxy Authentication Required).
 *
 * Used by the Windows transport (rw_transport_win32.c), where WinHTTP goes
 * through the system's proxy on its own; pure, tested in
 * test_rw_transport.c.  memwatch never logs on to a proxy and never
 * retries: the message names the proxy, the scheme it asked for, and what
 * to set instead.
 */
#ifndef MW_FORWARD_RW_PROXY_AUTH_H
#define MW_FORWARD_RW_PROXY_AUTH_H

#include <stddef.h>

/* proxy: who answered (NULL or "": "the proxy"); scheme: the
 * Proxy-Authenticate header (only its first word is kept; NULL or "" when
 * none).  Both are made printable; the message is cut at size. */
void mw_rw_proxy_auth_message(const char *proxy, const char *scheme, char *out, size_t size);

#endif
