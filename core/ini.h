/*
 * ini.h - the INI reader: text in, section and `key = value` events out,
 * each with its line number.  It knows the syntax only (comments, blank
 * lines, a UTF-8 byte-order mark, [section] headers, quoted values);
 * what the keys mean is config_load.c's business.
 */
#ifndef MW_CORE_INI_H
#define MW_CORE_INI_H

#include "base/mwerr.h"

/* The handlers return 0 to go on or -1 with err set (without file and
 * line: the reader puts "NAME:LINE: " in front). */
struct mw_ini_handler {
	int (*section)(void *arg, const char *section, struct mw_err *err);
	int (*key)(void *arg, const char *section, const char *key, const char *value,
		   struct mw_err *err);
};

/* Read text (named `name` in messages) and call h for every section and
 * key line, in order.  Stops at the first error: -1 with "NAME:LINE: ...". */
int mw_ini_parse(const char *name, const char *text, const struct mw_ini_handler *h, void *arg,
		 struct mw_err *err);

/* A whole text file into *text (malloc'd, NUL-terminated).  -1 naming
 * path when it cannot be read or holds a NUL byte (UTF-16, say). */
int mw_ini_read_file(const char *path, char **text, struct mw_err *err);

#endif
