/* ini.c - see ini.h. */
#include "ini.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fsutf8.h"
#include "base/xalloc.h"

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* One non-blank, non-comment line s (trimmed, writable). */
static int parse_line(char *s, char *section, size_t section_size,
		      const struct mw_ini_handler *h, void *arg, struct mw_err *err)
{
	char *eq, *key, *value;
	size_t vlen;

	if (*s == '[') {
		char *close = strchr(s, ']');

		if (!close || *trim(close + 1))
			return mw_error(err, "malformed section header '%s'", s);
		*close = '\0';
		s = trim(s + 1);
		if (h->section(arg, s, err))
			return -1;
		snprintf(section, section_size, "%s", s);
		return 0;
	}
	eq = strchr(s, '=');
	if (!eq)
		return mw_error(err, "expected 'key = value', got '%s'", s);
	*eq = '\0';
	key = trim(s);
	value = trim(eq + 1);
	vlen = strlen(value);
	if (vlen >= 2 && value[0] == '"' && value[vlen - 1] == '"') {
		value[vlen - 1] = '\0';
		value++;
	}
	if (!*section)
		return mw_error(err, "key '%s' comes before any [section]", key);
	return h->key(arg, section, key, value, err);
}

int mw_ini_parse(const char *name, const char *text, const struct mw_ini_handler *h, void *arg,
		 struct mw_err *err)
{
	char section[128] = "";
	const char *p = text;
	int lineno = 0;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = mw_xstrndup(p, len), *s;
		int rc = 0;

		lineno++;
		p += len + (nl ? 1 : 0);
		s = trim(line);
		/* A UTF-8 byte-order mark, as Notepad writes it. */
		if (lineno == 1 && !strncmp(s, "\xEF\xBB\xBF", 3))
			s = trim(s + 3);
		if (*s && *s != '#' && *s != ';')
			rc = parse_line(s, section, sizeof(section), h, arg, err);
		free(line);
		if (rc)
			return mw_error_prefix(err, "%s:%d", name, lineno);
	}
	return 0;
}

int mw_ini_read_file(const char *path, char **out, struct mw_err *err)
{
	FILE *f = mw_fopen(path, "rb");
	char *text = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return mw_error(err, "cannot read config file '%s': %s", path, strerror(errno));
	for (;;) {
		MW_GROW(text, cap, len + 4097);
		n = fread(text + len, 1, 4096, f);
		len += n;
		if (n < 4096)
			break;
	}
	if (ferror(f)) {
		fclose(f);
		free(text);
		return mw_error(err, "cannot read config file '%s'", path);
	}
	fclose(f);
	text[len] = '\0';
	if (strlen(text) != len) {
		free(text);
		return mw_error(err, "%s: config file contains a NUL byte (is it UTF-16?)", path);
	}
	*out = text;
	return 0;
}
