/*
 * collector.c - the helpers collector.h gives every collector: its typed
 * options for init, from its config section or, without one (tests,
 * `once` with no config), the table's defaults.
 *
 * Owned by core/; used by the collectors.  Depends only on the option
 * table (option.c), never on the collector list, so a collector calling it
 * makes no circle through the list that names the collector.
 */
#include "collector.h"

#include <string.h>

#include "core/option.h"

const void *mw_collector_options(const struct mw_collector_env *env, const struct mw_collector *c,
				 void *own)
{
	if (env && env->self && env->self->options)
		return env->self->options;
	memset(own, 0, c->options_size);
	mw_options_defaults(c->options, c->noptions, own);
	return own;
}

void mw_collector_options_done(const struct mw_collector *c, const void *opts, void *own)
{
	if (opts == own)
		mw_options_release(c->options, c->noptions, own);
}
