/*
 * config.c - see config.h: the configuration as a whole (defaults, the
 * sections, setting section.key from a file or the command line) and the
 * collectors' sections with their typed options.  The option rows
 * themselves live in config_table.c, config_remote_write.c and each
 * collector.
 */
#include "config_internal.h"

#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "base/xalloc.h"

#define CCOFF(f) offsetof(struct mw_collector_config, f)

/* Their defaults come from each collector (default_enabled,
 * default_interval_ms), so these rows are parsed but not defaulted. */
const struct mw_option mw_collector_common_options[] = {
	{ MW_OPTION(NULL, "enabled", MW_OPT_BOOL, CCOFF(enabled), "true", 0, 0, "Run this collector.") },
	{ MW_OPTION(NULL, "interval", MW_OPT_DURATION, CCOFF(interval_ms), "1s", 10, 86400000LL,
	  "Sampling interval of this collector.") },
};
const size_t mw_collector_common_noptions = MW_ARRAY_SIZE(mw_collector_common_options);

static void collector_config_init(struct mw_collector_config *cc, const struct mw_collector *c)
{
	cc->collector = c;
	cc->enabled = c->default_enabled;
	/* 0: inherit [daemon] interval unless the collector has its own */
	cc->interval_ms = c->default_interval_ms;
	cc->options = NULL;
	if (c->noptions) {
		cc->options = mw_xcalloc(1, c->options_size);
		mw_options_defaults(c->options, c->noptions, cc->options);
	}
}

void mw_config_init(struct mw_config *cfg)
{
	size_t i;

	memset(cfg, 0, sizeof(*cfg));
	mw_options_defaults(mw_config_options, mw_config_noptions, cfg);
	cfg->ncollectors = mw_ncollectors;
	cfg->collectors = mw_xcalloc(mw_ncollectors ? mw_ncollectors : 1, sizeof(*cfg->collectors));
	for (i = 0; i < mw_ncollectors; i++)
		collector_config_init(&cfg->collectors[i], mw_collectors[i]);
}

void mw_config_release(struct mw_config *cfg)
{
	size_t i;

	mw_options_release(mw_config_options, mw_config_noptions, cfg);
	mw_config_release_watch(cfg);
	for (i = 0; i < cfg->ncollectors; i++) {
		struct mw_collector_config *cc = &cfg->collectors[i];

		if (cc->options)
			mw_options_release(cc->collector->options, cc->collector->noptions,
					   cc->options);
		free(cc->options);
	}
	free(cfg->collectors);
	cfg->collectors = NULL;
	cfg->ncollectors = 0;
	for (i = 0; i < cfg->nremote_write; i++)
		mw_config_rw_release(&cfg->remote_write[i]);
	free(cfg->remote_write);
	cfg->remote_write = NULL;
	cfg->nremote_write = cfg->remote_write_cap = 0;
}

struct mw_collector_config *mw_config_collector(struct mw_config *cfg, const char *name)
{
	size_t i;

	for (i = 0; i < cfg->ncollectors; i++)
		if (!strcmp(cfg->collectors[i].collector->name, name))
			return &cfg->collectors[i];
	return NULL;
}

int64_t mw_config_interval(const struct mw_config *cfg, const struct mw_collector_config *cc)
{
	return cc->interval_ms ? cc->interval_ms : cfg->interval_ms;
}

bool mw_config_core_section(const char *s)
{
	size_t i;

	for (i = 0; i < mw_config_noptions; i++)
		if (!strcmp(mw_config_options[i].section, s))
			return true;
	return false;
}

/* The row of key in a collector's section and the struct it fills. */
static const struct mw_option *collector_option(struct mw_collector_config *cc, const char *key,
						void **base)
{
	const struct mw_collector *c = cc->collector;
	const struct mw_option *o;

	o = mw_option_find(mw_collector_common_options, mw_collector_common_noptions, NULL, key);
	if (o) {
		*base = cc;
		return o;
	}
	*base = cc->options;
	return c->noptions ? mw_option_find(c->options, c->noptions, NULL, key) : NULL;
}

int mw_config_set_key(struct mw_config *cfg, const char *section, const char *key,
		      const char *value, struct mw_err *err)
{
	const struct mw_option *o;
	void *base = cfg;

	if (!strncmp(section, "collector.", 10)) {
		struct mw_collector_config *cc = mw_config_collector(cfg, section + 10);

		if (!cc)
			return mw_error(err, "unknown collector '%s'", section + 10);
		o = collector_option(cc, key, &base);
		if (!o)
			return mw_error(err, "[%s] %s: unknown key '%s' for collector '%s'", section,
					key, key, cc->collector->name);
	} else if (!strncmp(section, "remote_write.", 13)) {
		base = mw_config_remote_write(cfg, section + 13);
		if (!base)
			return mw_error(err, "[%s] %s: bad destination name '%s' (letters, digits, "
					"'_', '-')", section, key, section + 13);
		o = mw_option_find(mw_rw_options, mw_rw_noptions, NULL, key);
		if (!o)
			return mw_error(err, "[%s] %s: unknown key '%s'", section, key, key);
	} else {
		o = mw_option_find(mw_config_options, mw_config_noptions, section, key);
		if (!o)
			return mw_error(err, "unknown key '%s' in [%s]", key, section);
	}
	if (mw_option_parse(o, base, value, err))
		return mw_error_prefix(err, "[%s] %s", section, key);
	return 0;
}

int mw_config_set(struct mw_config *cfg, const char *section, const char *key,
		  const char *value, const char *origin, struct mw_err *err)
{
	if (mw_config_set_key(cfg, section, key, value, err))
		return mw_error_prefix(err, "%s", origin);
	return 0;
}
