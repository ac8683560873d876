/*
 * collector.h - the interface every collector implements.
 *
 * A collector is a const struct of function pointers in the static
 * list (app/collector_list.c).  Its state lives in a struct it allocates in init
 * and frees in fini; no globals.  The scheduler calls init once, then
 * sample on every due tick, then fini, all from the sampler thread (or
 * from the main thread for `memwatchd once`), never concurrently.
 *
 * Collectors append samples to the batch in the context; they never touch
 * SQLite or HTTP.
 */
#ifndef MW_CORE_COLLECTOR_H
#define MW_CORE_COLLECTOR_H

#include <stdbool.h>
#include <stdint.h>
#include "batch.h"
#include "config.h"
#include "base/mwerr.h"

struct mw_watch;
struct mw_targets;

enum mw_collector_result {
	MW_COLLECTOR_OK = 0,
	MW_COLLECTOR_ERROR = -1,	/* failed; err says why */
	MW_COLLECTOR_UNSUPPORTED = 1,	/* init only: cannot work here; err says why */
};

struct mw_collector_env {
	const struct mw_config *config;		/* whole config, read-only */
	const struct mw_collector_config *self;	/* this collector's section */
};

/* What one call of sample gets and may report back. */
struct mw_sample_ctx {
	int64_t ts_ms;		/* wall-clock stamp for every sample of this tick */
	struct mw_batch *batch;	/* append here */
	/* Filled by the collector: */
	char mode[96];		/* how it works now, e.g. "QueryWorkingSetEx (QueryWorkingSet: error 87)" */
	uint64_t inaccessible;	/* targets it could not read this tick (skipped, not errors) */
	struct mw_err err;	/* message when sample returns MW_COLLECTOR_ERROR */
	/* A collector that resolved the watch list this tick points at the
	 * list and what it selected (watch.h); the scheduler reports them. */
	const struct mw_watch *watch;
	const struct mw_targets *watched;
};

struct mw_collector {
	const char *name;
	const char *summary;		/* one line for --help and the reference config */
	int64_t default_interval_ms;	/* 0: the [daemon] interval */
	bool default_enabled;
	/* Keys of [collector.NAME] besides enabled and interval: a typed
	 * table (core/option.h) whose rows fill a struct of options_size
	 * bytes; init reads it with mw_collector_options.  NULL, 0, 0: none. */
	const struct mw_option *options;
	size_t noptions;
	size_t options_size;

	/* Set up state.  Returns MW_COLLECTOR_OK, MW_COLLECTOR_UNSUPPORTED
	 * (why says why; the daemon keeps running without it) or
	 * MW_COLLECTOR_ERROR (bad options: start-up stops). */
	int (*init)(void **state, const struct mw_collector_env *env, struct mw_err *why);
	/* Append this tick's samples.  MW_COLLECTOR_OK or MW_COLLECTOR_ERROR. */
	int (*sample)(void *state, struct mw_sample_ctx *ctx);
	void (*fini)(void *state);
};

/* The collector's typed options for init: its section's values, or,
 * when env has no section (tests may drive init directly), its defaults
 * written into own (options_size bytes), which mw_collector_options_done
 * then releases.  Never NULL for a collector with options. */
const void *mw_collector_options(const struct mw_collector_env *env, const struct mw_collector *c,
				 void *own);
void mw_collector_options_done(const struct mw_collector *c, const void *opts, void *own);

/* The static list (app/collector_list.c, the application assembles it):
 * every collector this build has. */
extern const struct mw_collector *const mw_collectors[];
extern const size_t mw_ncollectors;
const struct mw_collector *mw_collector_find(const char *name);

#endif
