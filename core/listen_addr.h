/*
 * listen_addr.h - the one parser of a listen address as users write it
 * ([web] listen, --listen): "off" (or empty), HOST:PORT, [IPV6]:PORT.
 *
 * config_table.c checks a value with it when it is set; web/server.c
 * turns the parts into a socket address.  Pure: no sockets here.
 */
#ifndef MW_CORE_LISTEN_ADDR_H
#define MW_CORE_LISTEN_ADDR_H

#include <stdbool.h>
#include "base/mwerr.h"

struct mw_listen_addr {
	bool off;		/* "off" or "": no server */
	bool v6;		/* written [V6]:PORT */
	char host[64];		/* without brackets; "" any IPv4 address */
	unsigned port;		/* 0-65535; 0 lets the system choose */
};

/* Split s into *out.  -1 with a message naming s on a bad shape. */
int mw_listen_addr_parse(const char *s, struct mw_listen_addr *out, struct mw_err *err);

#endif
