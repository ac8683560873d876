/*
 * socket_end.h - end both directions of a connected socket, so the other
 * end and whoever is reading it here (libmicrohttpd, for the web server's
 * guard against slow request heads, web/conn_guard.c) see end of file.
 * The only socket call memwatch makes itself: the constant and the handle
 * type differ by OS (socket_end_linux.c, socket_end_win32.c).
 */
#ifndef MW_BASE_SOCKET_END_H
#define MW_BASE_SOCKET_END_H

#include <stdint.h>

/* s: a file descriptor (Linux) or a SOCKET (Windows), widened. */
void mw_socket_end(uintptr_t s);

#endif
