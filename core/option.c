/*
 * option.c - see option.h: parsing, formatting and writing one typed
 * option row; used by config.c, config_reference.c and the collectors'
 * tables through them.
 */
#include "option.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/units.h"
#include "base/xalloc.h"

static void *field(void *base, const struct mw_option *o)
{
	return (char *)base + o->offset;
}

static const void *cfield(const void *base, const struct mw_option *o)
{
	return (const char *)base + o->offset;
}

bool mw_option_parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	size_t i;

	for (i = 0; i < MW_ARRAY_SIZE(yes); i++) {
		if (!strcmp(v, yes[i])) {
			*out = true;
			return true;
		}
		if (!strcmp(v, no[i])) {
			*out = false;
			return true;
		}
	}
	return false;
}

/* A duration in [min, max] ms into *out; the error names the range. */
static int parse_duration_in(const char *value, int64_t min, int64_t max, int64_t *out,
			     struct mw_err *err)
{
	int64_t ms;
	char lo[32], hi[32];

	if (mw_parse_duration_ms(value, &ms, err))
		return -1;
	if (ms < min || ms > max) {
		mw_format_duration(lo, sizeof(lo), min);
		mw_format_duration(hi, sizeof(hi), max);
		return mw_error(err, "'%s' is out of range (%s to %s)", value, lo, hi);
	}
	*out = ms;
	return 0;
}

/* A whole number in [min, max] into *out. */
static int parse_int_in(const char *value, int64_t min, int64_t max, int64_t *out,
			struct mw_err *err)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(value, &end, 10);
	if (!*value || *end || errno)
		return mw_error(err, "'%s' is not a whole number", value);
	if (v < min || v > max)
		return mw_error(err, "'%s' is out of range (%" PRId64 " to %" PRId64 ")",
				value, min, max);
	*out = v;
	return 0;
}

static int parse_size_in(const char *value, int64_t min, int64_t max, uint64_t *out,
			 struct mw_err *err)
{
	uint64_t bytes;

	if (mw_parse_size(value, &bytes, err))
		return -1;
	if (min && bytes < (uint64_t)min)
		return mw_error(err, "'%s' is too small (at least %" PRId64 " bytes)", value, min);
	if (max && bytes > (uint64_t)max)
		return mw_error(err, "'%s' is too large (at most %" PRId64 " bytes)", value, max);
	*out = bytes;
	return 0;
}

int mw_option_parse(const struct mw_option *o, void *base, const char *value,
		    struct mw_err *err)
{
	void *f = field(base, o);

	switch (o->type) {
	case MW_OPT_DURATION:
		return parse_duration_in(value, o->min, o->max, f, err);
	case MW_OPT_SIZE:
		return parse_size_in(value, o->min, o->max, f, err);
	case MW_OPT_INT:
		return parse_int_in(value, o->min, o->max, f, err);
	case MW_OPT_BOOL:
		if (!mw_option_parse_bool(value, f))
			return mw_error(err, "'%s' is not true or false", value);
		return 0;
	case MW_OPT_SHARE:
		return mw_parse_share(value, f, err);
	case MW_OPT_GROWTH: {
		struct mw_growth_budget *g = f;

		return mw_parse_growth_budget(value, &g->bytes_per_hour, &g->rel_per_hour, err);
	}
	case MW_OPT_LOGLEVEL: {
		enum mw_log_level level;

		if (mw_log_level_parse(value, &level, err))
			return -1;
		*(int *)f = (int)level;
		return 0;
	}
	case MW_OPT_STRING:
		if (o->check && o->check(value, err))
			return -1;
		free(*(char **)f);
		*(char **)f = mw_xstrdup(value);
		return 0;
	case MW_OPT_CUSTOM:
		return o->parse(base, value, err);
	}
	return mw_error(err, "internal: unknown option type");
}

void mw_option_format(const struct mw_option *o, const void *base, char *buf, size_t size)
{
	const void *f = cfield(base, o);

	buf[0] = '\0';
	switch (o->type) {
	case MW_OPT_DURATION:
		mw_format_duration(buf, size, *(const int64_t *)f);
		break;
	case MW_OPT_SIZE:
		mw_format_size(buf, size, *(const uint64_t *)f);
		break;
	case MW_OPT_INT:
		snprintf(buf, size, "%" PRId64, *(const int64_t *)f);
		break;
	case MW_OPT_BOOL:
		snprintf(buf, size, "%s", *(const bool *)f ? "true" : "false");
		break;
	case MW_OPT_SHARE:
		mw_format_share(buf, size, *(const double *)f);
		break;
	case MW_OPT_GROWTH: {
		const struct mw_growth_budget *g = f;

		mw_format_growth_budget(buf, size, g->bytes_per_hour, g->rel_per_hour);
		break;
	}
	case MW_OPT_LOGLEVEL:
		snprintf(buf, size, "%s", mw_log_level_name((enum mw_log_level) * (const int *)f));
		break;
	case MW_OPT_STRING:
		snprintf(buf, size, "%s", *(char *const *)f ? *(char *const *)f : "");
		break;
	case MW_OPT_CUSTOM:
		o->format(base, buf, size);
		break;
	}
}

const struct mw_option *mw_option_find(const struct mw_option *table, size_t n,
				       const char *section, const char *key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if ((!section || !strcmp(table[i].section, section)) && !strcmp(table[i].key, key))
			return &table[i];
	return NULL;
}

void mw_options_defaults(const struct mw_option *table, size_t n, void *base)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (mw_option_parse(&table[i], base, table[i].def, NULL))
			abort();	/* a default that does not parse is a bug */
}

void mw_options_release(const struct mw_option *table, size_t n, void *base)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (table[i].type == MW_OPT_STRING) {
			free(*(char **)field(base, &table[i]));
			*(char **)field(base, &table[i]) = NULL;
		}
}

void mw_option_write_doc(void *file, const char *doc)
{
	const char *p = doc;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		fprintf(file, "# %.*s\n", (int)len, p);
		p += len + (nl ? 1 : 0);
	}
}

void mw_option_write(void *file, const struct mw_option *o, const void *base,
		     const void *defaults)
{
	char have[1024], def[1024];
	const char *v;

	/* A value equal to the default is written as the table spells it
	 * ("7d", not "1w"), so a default config writes the reference file
	 * exactly; other values show the effective setting. */
	mw_option_format(o, base, have, sizeof(have));
	mw_option_format(o, defaults, def, sizeof(def));
	if ((o->flags & MW_OPT_SECRET) && *have)
		v = "(set, not shown)";
	else
		v = strcmp(have, def) ? have : o->def;
	fprintf(file, "\n");
	mw_option_write_doc(file, o->doc);
	fprintf(file, "%s =%s%s\n", o->key, *v ? " " : "", v);
}
