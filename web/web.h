/*
 * web.h - the embedded HTTP server (libmicrohttpd): JSON API, /metrics and
 * the chart page.  (Implementation: the .c files in web/.)
 *
 * It reads the database through its own connections and the collector
 * status table; it never calls a collector.
 */
#ifndef MW_WEB_H
#define MW_WEB_H

#include "core/config.h"
#include "base/mwerr.h"
#include "core/status.h"

struct mw_web;

/* Start listening on cfg->listen (no-op returning 0 with *out NULL when
 * listen is "off").  -1 with a message naming the address on failure. */
int mw_web_start(struct mw_web **out, const struct mw_config *cfg,
		 struct mw_status_table *status, struct mw_err *err);
/* Stop serving (waits for requests in flight) and free; NULL is a no-op. */
void mw_web_stop(struct mw_web *web);

/* The TCP port actually bound (useful with port 0), 0 for NULL. */
int mw_web_port(const struct mw_web *web);

/* "https" when it serves TLS ([web] tls_cert), "http" otherwise. */
const char *mw_web_scheme(const struct mw_web *web);

#endif
