/*
 * option.h - the one way memwatch declares a setting: a typed table row
 * with its key, type, default (as the reference file spells it), bounds,
 * target field and description.
 *
 * Every table is read the same way: defaults are applied by parsing each
 * row's default text, values are validated when set, and `memwatchd
 * config` / config/memwatch.ini are written from the rows.  Tables exist
 * for the core's sections (config_table.c), each [remote_write.NAME]
 * section (config_remote_write.c) and each collector's own keys
 * (struct mw_collector.options, in each collector).  The parsed values
 * live in a plain struct (struct mw_config, struct mw_rw_config, a
 * collector's options struct) at each row's offset.
 */
#ifndef MW_CORE_OPTION_H
#define MW_CORE_OPTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "base/mwerr.h"

enum mw_option_type {
	MW_OPT_DURATION,	/* int64_t ms, in [min, max] (units.h rule) */
	MW_OPT_SIZE,		/* uint64_t bytes, in [min, max] (0: unbounded) */
	MW_OPT_INT,		/* int64_t, in [min, max] */
	MW_OPT_BOOL,		/* bool: true/false, yes/no, on/off, 1/0 */
	MW_OPT_SHARE,		/* double share of a core: "5%", "0" */
	MW_OPT_GROWTH,		/* struct mw_growth_budget: "1MB/h,2%/h" */
	MW_OPT_LOGLEVEL,	/* int (enum mw_log_level) */
	MW_OPT_STRING,		/* char * (owned), checked by check when set */
	MW_OPT_CUSTOM,		/* parse and format say how */
};

/* The common fields of a row, in this order; a row is written
 * { MW_OPTION(section, key, type, offset, default, min, max, doc), .check = ... }
 * (designated, so unused hooks need not be spelled out). */
#define MW_OPTION(sec, k, t, off, d, lo, hi, text) \
	.section = (sec), .key = (k), .type = (t), .offset = (off), .def = (d), .min = (lo), \
	.max = (hi), .doc = (text)

/* Written into a row's flags. */
#define MW_OPT_SECRET 1u	/* never printed back: "(set, not shown)" */

struct mw_option {
	const char *section;	/* core table only ("daemon", "storage" ...) */
	const char *key;
	enum mw_option_type type;
	size_t offset;		/* of the field in the struct the table fills */
	const char *def;	/* the default, as the reference file writes it */
	int64_t min, max;	/* durations (ms), sizes (bytes), ints */
	const char *doc;	/* description, lines separated by \n */
	/* MW_OPT_STRING: validate a value (NULL: any).  -1 with a reason. */
	int (*check)(const char *value, struct mw_err *err);
	/* MW_OPT_CUSTOM: parse into / format from the whole struct. */
	int (*parse)(void *base, const char *value, struct mw_err *err);
	void (*format)(const void *base, char *buf, size_t size);
	unsigned flags;		/* MW_OPT_SECRET */
	const char *example;	/* shown for an empty default in example sections */
};

/* The value of a MW_OPT_GROWTH row (e.g. [leak] max_growth). */
struct mw_growth_budget {
	double bytes_per_hour;
	double rel_per_hour;
};

/* Parse value into the row's field of base; -1 with a reason (without
 * the key: callers prefix where it came from). */
int mw_option_parse(const struct mw_option *o, void *base, const char *value,
		    struct mw_err *err);
/* The field's value as the reference file writes it. */
void mw_option_format(const struct mw_option *o, const void *base, char *buf, size_t size);
/* The row of key (and section, when given) or NULL. */
const struct mw_option *mw_option_find(const struct mw_option *table, size_t n,
				       const char *section, const char *key);
/* Fill base with every row's default (a default that does not parse is a
 * bug and aborts). */
void mw_options_defaults(const struct mw_option *table, size_t n, void *base);
/* Free the strings the rows own in base (fields left NULL). */
void mw_options_release(const struct mw_option *table, size_t n, void *base);

/* "true"/"yes"/"on"/"1" or "false"/"no"/"off"/"0" into *out. */
bool mw_option_parse_bool(const char *value, bool *out);

/* One row of the reference file: a blank line, the description as
 * comments, then "key = value" with the value base holds (spelled as the
 * default when it equals the default in defaults; a secret is not shown).
 * file is a FILE *. */
void mw_option_write(void *file, const struct mw_option *o, const void *base,
		     const void *defaults);
/* A description as "# " comment lines. */
void mw_option_write_doc(void *file, const char *doc);

#endif
