/*
 * listen_options.h - the listening socket's libmicrohttpd options that
 * differ by OS (listen_options_linux.c, listen_options_win32.c), given to
 * MHD_start_daemon as one MHD_OPTION_ARRAY by server.c.
 *
 * Never share the port: with address reuse on, a second daemon started on
 * the same address without error and took 9 of 12 requests (SO_REUSEPORT;
 * port sharing on Windows).  The option is left out on both: elsewhere MHD
 * then sets SO_REUSEADDR, so a restart does not wait for the TIME_WAIT of
 * connections it closed, while 0 would clear it (robust.sh); on Windows it
 * sets nothing, since 0 there means SO_EXCLUSIVEADDRUSE, which keeps the
 * port unbindable during that TIME_WAIT (listen_options_win32.c).
 */
#ifndef MW_WEB_LISTEN_OPTIONS_H
#define MW_WEB_LISTEN_OPTIONS_H

#include <microhttpd.h>

/* Ends with MHD_OPTION_END; static, shared by every server. */
struct MHD_OptionItem *mw_web_listen_options(void);

#endif
