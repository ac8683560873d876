/*
 * config_internal.h - what the config files share among themselves
 * (config.c, config_table.c, config_remote_write.c, config_load.c,
 * config_reference.c); nothing outside core/config*.c includes it.
 */
#ifndef MW_CORE_CONFIG_INTERNAL_H
#define MW_CORE_CONFIG_INTERNAL_H

#include "config.h"
#include "option.h"

/* [daemon], [storage], [web], [leak] (config_table.c). */
extern const struct mw_option mw_config_options[];
extern const size_t mw_config_noptions;
/* The keys of each [remote_write.NAME] (config_remote_write.c). */
extern const struct mw_option mw_rw_options[];
extern const size_t mw_rw_noptions;
/* `enabled` and `interval`, the keys every [collector.NAME] has, into
 * struct mw_collector_config (config.c). */
extern const struct mw_option mw_collector_common_options[];
extern const size_t mw_collector_common_noptions;

void mw_config_release_watch(struct mw_config *cfg);
void mw_config_rw_release(struct mw_rw_config *rc);

/* Whether section is one of the core's (not collector.* or remote_write.*). */
bool mw_config_core_section(const char *section);

/* Set section.key; the message (on -1) names neither file nor origin:
 * "unknown key 'k' in [s]", "[s] k: REASON" ... */
int mw_config_set_key(struct mw_config *cfg, const char *section, const char *key,
		      const char *value, struct mw_err *err);

#endif
