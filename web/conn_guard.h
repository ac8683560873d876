/*
 * conn_guard.h - slow clients must not hold the connection slots others
 * need (slowloris).  libmicrohttpd's timeout is an idle timeout: a client
 * sending one header byte every few seconds keeps a slot for ever, and on
 * loopback every local client shares one per-IP limit.  The guard tracks
 * each connection from MHD's connection notifications and a thread of its
 * own shuts down the socket of any whose request head (request line and
 * headers) has not arrived within [web] header_timeout; MHD then sees the
 * peer gone and frees the slot.  Requests being answered are left alone.
 *
 * Threads: notifications come from MHD's threads, the sweep from the
 * guard's own; one mutex covers the list.
 */
#ifndef MW_WEB_CONN_GUARD_H
#define MW_WEB_CONN_GUARD_H

#include <stdint.h>

#include "mhd_api.h"

struct mw_conn_guard;

/* mhd: the library of the server whose connections it watches. */
struct mw_conn_guard *mw_conn_guard_start(int64_t header_timeout_ms,
					  const struct mw_mhd_api *mhd);
void mw_conn_guard_stop(struct mw_conn_guard *g);

/* MHD_OPTION_NOTIFY_CONNECTION callback (cls: the guard). */
void mw_conn_guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode code);
/* The request head of conn arrived (the access handler's first call). */
void mw_conn_guard_head_done(struct mw_conn_guard *g, struct MHD_Connection *conn);
/* Its request was answered: the next head (keep-alive) is timed anew. */
void mw_conn_guard_request_done(struct mw_conn_guard *g, struct MHD_Connection *conn);
/* Connections shut down for a slow head so far. */
uint64_t mw_conn_guard_closed(struct mw_conn_guard *g);

#endif
