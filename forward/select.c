/* select.c - see select.h. */
#include "select.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "base/xalloc.h"
#include "core/selector.h"

static void add(struct mw_rw_select *s, char *sel, bool watched)
{
	size_t cap = s->cap;

	MW_GROW(s->selectors, cap, s->n + 1);
	s->watched = mw_xrealloc(s->watched, cap * sizeof(*s->watched));
	s->cap = cap;
	s->selectors[s->n] = sel;
	s->watched[s->n] = watched;
	s->n++;
}

char *mw_rw_glob_regex(const char *glob)
{
	size_t len = strlen(glob), n = 0;
	char *out = mw_xcalloc(len * 4 + 3, 1);
	const char *p;

	for (p = glob; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c == '*') {
			out[n++] = '.';
			out[n++] = '*';
		} else if (c == '?') {
			out[n++] = '.';
		} else if (isalpha(c)) {
			out[n++] = '[';
			out[n++] = (char)tolower(c);
			out[n++] = (char)toupper(c);
			out[n++] = ']';
		} else if (isdigit(c) || c == '_' || c == '-' || c >= 0x80) {
			out[n++] = (char)c;
		} else if (c == ']' || c == '\\' || c == '^' || c == '"') {
			out[n++] = '.';	/* a superset; the exact check follows */
		} else {
			out[n++] = '[';
			out[n++] = (char)c;
			out[n++] = ']';
		}
	}
	out[n++] = '.';
	out[n++] = '*';
	out[n] = '\0';
	return out;
}

struct split_ctx {
	struct mw_rw_select *s;
	const char *const *watch;
	size_t nwatch;
	struct mw_err *err;
};

static int add_watched(struct split_ctx *c)
{
	struct mw_rw_select *s = c->s;
	size_t i;
	char buf[64];

	if (mw_watch_init(&s->watch, c->watch, c->nwatch, c->err))
		return -1;
	for (i = 0; i < s->watch.n; i++) {
		const struct mw_watch_entry *e = &s->watch.entries[i];

		switch (e->kind) {
		case MW_WATCH_PID:
		case MW_WATCH_SELF:
			snprintf(buf, sizeof(buf), "{pid=\"%" PRIu32 "\"}",
				 e->kind == MW_WATCH_PID ? e->pid : s->self_pid);
			add(s, mw_xstrdup(buf), true);
			break;
		case MW_WATCH_NAME: {
			char *re = mw_rw_glob_regex(e->pattern);
			size_t len = strlen(re) + 32;
			char *sel = mw_xcalloc(len, 1);

			if (strlen(re) >= MW_REGEX_MAX_PATTERN)
				snprintf(sel, len, "{process!=\"\"}");
			else
				snprintf(sel, len, "{process=~\"%s\"}", re);
			free(re);
			add(s, sel, true);
			break;
		}
		}
	}
	return 0;
}

static int split_item(void *arg, const char *item, size_t len)
{
	struct split_ctx *c = arg;
	struct mw_selector sel;
	char *text = mw_xstrndup(item, len);

	if (!strcmp(text, "watched")) {
		free(text);
		if (c->s->watch.entries || c->s->watch.n)	/* listed twice */
			return 0;
		return add_watched(c);
	}
	if (mw_selector_parse(&sel, text, c->err)) {
		free(text);
		return -1;
	}
	mw_selector_release(&sel);
	add(c->s, text, false);
	return 0;
}

int mw_rw_select_init(struct mw_rw_select *s, const char *match, const char *const *watch,
		      size_t nwatch, uint32_t self_pid, struct mw_err *err)
{
	struct split_ctx c = { s, watch, nwatch, err };

	memset(s, 0, sizeof(*s));
	s->self_pid = self_pid;
	if (mw_config_split_match(match ? match : "", split_item, &c)) {
		mw_rw_select_release(s);
		return -1;
	}
	return 0;
}

void mw_rw_select_release(struct mw_rw_select *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		free(s->selectors[i]);
	free(s->selectors);
	free(s->watched);
	mw_watch_release(&s->watch);
	memset(s, 0, sizeof(*s));
}

static const char *label(const struct mw_series_info *info, const char *name)
{
	size_t i;

	for (i = 0; i < info->nlabels; i++)
		if (!strcmp(info->labels[i].name, name))
			return info->labels[i].value;
	return NULL;
}

bool mw_rw_select_keep(const struct mw_rw_select *s, size_t i, const struct mw_series_info *info)
{
	const char *pid, *process;
	char *end;
	unsigned long v;

	if (i >= s->n)
		return false;
	if (!s->watched[i])
		return true;
	pid = label(info, "pid");
	process = label(info, "process");
	if (!pid || !*pid)
		return false;
	v = strtoul(pid, &end, 10);
	if (*end || v > UINT32_MAX)
		return false;
	return mw_watch_match(&s->watch, (uint32_t)v, process, s->self_pid);
}
