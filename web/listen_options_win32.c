/* listen_options_win32.c - listen_options.h on Windows: nothing to add, so
 * the listening socket gets neither SO_REUSEADDR nor SO_EXCLUSIVEADDRUSE.
 *
 * Why not SO_EXCLUSIVEADDRUSE (MHD's LISTENING_ADDRESS_REUSE = 0): Microsoft
 * documents that a port bound with it cannot be bound again, by anyone,
 * while connections the socket accepted are still closing (TIME_WAIT, up to
 * 2 x MSL); the daemon closes the connections it answers with
 * "Connection: close", so `sc stop` then `sc start` right after serving a
 * page could fail to listen.  A plain bind is not blocked by TIME_WAIT.
 * Why not SO_REUSEADDR (MHD's value 1): on Windows it lets a second socket
 * share the port.  Without either, a second plain bind fails with
 * WSAEADDRINUSE, and Windows (Server 2003 and later) refuses a
 * SO_REUSEADDR bind from another account; a second daemon is refused
 * earlier still, by the database lock (tests/test_listen_options_win32.c,
 * tests/e2e/restart_port_win64.sh). */
#include "listen_options.h"

struct MHD_OptionItem *mw_web_listen_options(void)
{
	static struct MHD_OptionItem plain[] = { { MHD_OPTION_END, 0, NULL } };

	return plain;
}
