/*
 * web.h - the embedded HTTP server (libmicrohttpd): JSON API, /metrics and
 * the chart page.  (Implementation: the .c files in web/.)
 *
 * It reads the database through its own connections and the collector
 * status table; it never calls a collector.
 */
#ifndef MW_WEB_H
#define MW_WEB_H

#include "../daemon/config.h"
#include "../daemon/mwerr.h"
#include "../daemon/status.h"

struct mw_web;

/* Start listening on cfg->listen (no-op returning 0 with *out NULL when
 * listen is "off").  -1 with a message naming the address on failure. */
int mw_web_start(struct mw_web **out, const struct mw_config *cfg,
		 struct mw_status_table *status, struct mw_err *err);
void mw_web_stop(struct mw_web *web);

#endif
