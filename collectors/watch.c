/* watch.c - watch-list matching (see watch.h). */
#include "watch.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/xalloc.h"

int mw_watch_init(struct mw_watch *w, const char *const *list, size_t n, struct mw_err *err)
{
	size_t i;

	memset(w, 0, sizeof(*w));
	w->entries = mw_xcalloc(n ? n : 1, sizeof(*w->entries));
	for (i = 0; i < n; i++) {
		struct mw_watch_entry *e = &w->entries[w->n];
		const char *s = list[i];
		char *end;
		unsigned long long v;

		while (isspace((unsigned char)*s))
			s++;
		if (!*s) {
			mw_watch_release(w);
			return mw_error(err, "watch: entry %zu is empty", i + 1);
		}
		if (!strcmp(s, "self")) {
			e->kind = MW_WATCH_SELF;
		} else if (isdigit((unsigned char)*s)) {
			v = strtoull(s, &end, 10);
			if (*end || v > UINT32_MAX) {
				mw_watch_release(w);
				return mw_error(err, "watch: '%s' is not a pid", s);
			}
			e->kind = MW_WATCH_PID;
			e->pid = (uint32_t)v;
		} else {
			e->kind = MW_WATCH_NAME;
			e->pattern = mw_xstrdup(s);
		}
		w->n++;
	}
	return 0;
}

void mw_watch_release(struct mw_watch *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		free(w->entries[i].pattern);
	free(w->entries);
	memset(w, 0, sizeof(*w));
}

bool mw_wildcard_match(const char *p, const char *t)
{
	const char *star = NULL, *resume = NULL;

	/* Iterative glob with one backtrack point: linear in practice. */
	while (*t) {
		if (*p == '*') {
			star = p++;
			resume = t;
		} else if (*p == '?' || (*p && tolower((unsigned char)*p) == tolower((unsigned char)*t))) {
			p++;
			t++;
		} else if (star) {
			p = star + 1;
			t = ++resume;
		} else {
			return false;
		}
	}
	while (*p == '*')
		p++;
	return !*p;
}

const char *mw_path_basename(const char *path)
{
	const char *b = path, *s;

	for (s = path; *s; s++)
		if (*s == '/' || *s == '\\')
			b = s + 1;
	return b;
}

static bool name_match(const char *pattern, const char *image)
{
	const char *base = mw_path_basename(image);
	size_t n = strlen(base);
	char stem[128];

	if (mw_wildcard_match(pattern, base))
		return true;
	/* "notepad" selects "notepad.exe" */
	if (!strchr(pattern, '.') && n > 4 && n < sizeof(stem) && !strcasecmp(base + n - 4, ".exe")) {
		memcpy(stem, base, n - 4);
		stem[n - 4] = '\0';
		return mw_wildcard_match(pattern, stem);
	}
	return false;
}

bool mw_watch_match(const struct mw_watch *w, uint32_t pid, const char *image, uint32_t self_pid)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		const struct mw_watch_entry *e = &w->entries[i];

		if (e->kind == MW_WATCH_SELF && pid == self_pid)
			return true;
		if (e->kind == MW_WATCH_PID && pid == e->pid)
			return true;
		if (e->kind == MW_WATCH_NAME && image && name_match(e->pattern, image))
			return true;
	}
	return false;
}

void mw_targets_add(struct mw_targets *t, uint32_t pid, const char *name, bool self)
{
	struct mw_target *x;

	MW_GROW(t->t, t->cap, t->n + 1);
	x = &t->t[t->n++];
	x->pid = pid;
	x->self = self;
	snprintf(x->name, sizeof(x->name), "%s", name ? mw_path_basename(name) : "");
}

void mw_targets_release(struct mw_targets *t)
{
	free(t->t);
	memset(t, 0, sizeof(*t));
}
