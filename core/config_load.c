/*
 * config_load.c - an INI file or text over a struct mw_config: ini.c
 * reads the syntax, this file checks each section exists and sets each
 * key through the option tables (mw_config_set_key).
 */
#include "config_internal.h"

#include <stdlib.h>
#include <string.h>

#include "ini.h"

static int on_section(void *arg, const char *sec, struct mw_err *err)
{
	struct mw_config *cfg = arg;

	if (!strncmp(sec, "remote_write.", 13)) {
		if (!mw_config_remote_write(cfg, sec + 13))
			return mw_error(err, "[%s]: bad destination name (letters, digits, '_', '-')",
					sec);
		return 0;
	}
	if (mw_config_core_section(sec) ||
	    (!strncmp(sec, "collector.", 10) && mw_config_collector(cfg, sec + 10)))
		return 0;
	return mw_error(err, "unknown section [%s]", sec);
}

static int on_key(void *arg, const char *section, const char *key, const char *value,
		  struct mw_err *err)
{
	return mw_config_set_key(arg, section, key, value, err);
}

static const struct mw_ini_handler config_ini = { on_section, on_key };

int mw_config_load_string(struct mw_config *cfg, const char *name, const char *text,
			  struct mw_err *err)
{
	return mw_ini_parse(name, text, &config_ini, cfg, err);
}

int mw_config_load_file(struct mw_config *cfg, const char *path, struct mw_err *err)
{
	char *text;
	int rc;

	if (mw_ini_read_file(path, &text, err))
		return -1;
	rc = mw_config_load_string(cfg, path, text, err);
	free(text);
	return rc;
}
