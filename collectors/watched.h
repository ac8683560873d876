/*
 * watched.h - what the per-process collectors that read only watched
 * processes (heap, vmmap, workingset) keep alike: the watch list built
 * from the config's `watch` once, and each tick's targets, which the
 * scheduler reports on /api/v1/status (through the sample context).
 */
#ifndef MW_COLLECTORS_WATCHED_H
#define MW_COLLECTORS_WATCHED_H

#include "base/mwerr.h"
#include "core/collector.h"
#include "core/watch.h"

struct mw_watched {
	struct mw_watch watch;
	struct mw_targets targets;
};

/* The watch list from env's config.  -1 with a message on a bad entry
 * (nothing to release then). */
int mw_watched_init(struct mw_watched *w, const struct mw_collector_env *env,
		    struct mw_err *why);

/* This tick's targets into w->targets, shown to the scheduler through
 * ctx (ctx->watch, ctx->watched).  -1 with ctx->err set when the process
 * list cannot be read. */
int mw_watched_refresh(struct mw_watched *w, struct mw_sample_ctx *ctx);

void mw_watched_release(struct mw_watched *w);

#endif
