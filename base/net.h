/*
 * net.h - one blocking TCP exchange (net_linux.c, net_win32.c): connect
 * to host:port, send the request, read until the peer closes (at most max
 * bytes), with a time limit per send/receive.
 */
#ifndef MW_BASE_NET_H
#define MW_BASE_NET_H

#include <stddef.h>
#include "mwerr.h"

/* *out (malloc'd, NUL-terminated, caller frees) holds what was read. */
int mw_net_exchange(const char *host, const char *port, const char *request, size_t request_len,
		    size_t max, int timeout_ms, char **out, size_t *out_len, struct mw_err *err);

#endif
