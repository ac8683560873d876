/* watched.c - see watched.h. */
#include "watched.h"

int mw_watched_init(struct mw_watched *w, const struct mw_collector_env *env,
		    struct mw_err *why)
{
	return mw_watch_init(&w->watch, (const char *const *)env->config->watch,
			     env->config->nwatch, why);
}

int mw_watched_refresh(struct mw_watched *w, struct mw_sample_ctx *ctx)
{
	/* an empty list selects nothing without walking the process list
	 * (mw_watch_targets) */
	if (mw_watch_targets(&w->watch, &w->targets, &ctx->err))
		return -1;
	ctx->watch = &w->watch, ctx->watched = &w->targets;	/* reported by the scheduler */
	return 0;
}

void mw_watched_release(struct mw_watched *w)
{
	mw_watch_release(&w->watch);
	mw_targets_release(&w->targets);
}
