/* watch.c - watch-list matching (see watch.h). */
#include "watch.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

int mw_watch_init(struct mw_watch *w, const char *const *list, size_t n, struct mw_err *err)
{
	size_t i;

	memset(w, 0, sizeof(*w));
	w->entries = mw_xcalloc(n ? n : 1, sizeof(*w->entries));
	for (i = 0; i < n; i++) {
		struct mw_watch_entry *e = &w->entries[w->n];
		const char *s = list[i];
		size_t len;
		char *end;
		unsigned long long v;

		while (isspace((unsigned char)*s))
			s++;
		len = strlen(s);
		while (len && isspace((unsigned char)s[len - 1]))
			len--;
		if (!len) {
			mw_watch_release(w);
			return mw_error(err, "watch: entry %zu is empty", i + 1);
		}
		e->text = mw_xstrndup(s, len);
		w->n++;		/* released with the others from here on */
		if (!strcmp(e->text, "self")) {
			e->kind = MW_WATCH_SELF;
		} else if (isdigit((unsigned char)*e->text)) {
			v = strtoull(e->text, &end, 10);
			if (*end || v > UINT32_MAX) {
				mw_error(err, "watch: '%s' is not a pid", e->text);
				mw_watch_release(w);
				return -1;
			}
			e->kind = MW_WATCH_PID;
			e->pid = (uint32_t)v;
		} else {
			e->kind = MW_WATCH_NAME;
			e->pattern = mw_xstrdup(e->text);
		}
	}
	return 0;
}

void mw_watch_release(struct mw_watch *w)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		free(w->entries[i].pattern);
		free(w->entries[i].text);
	}
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

bool mw_image_name_match(const char *pattern, const char *image)
{
	const char *base = mw_path_basename(image);
	size_t n = strlen(base);
	char stem[256];

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

/* Processes a wildcard never selects: opening lsass.exe (credentials) or
 * csrss.exe with PROCESS_VM_READ, as the heap and working-set collectors
 * do, trips EDR and Credential Guard alarms, and both refuse it anyway
 * (protected processes).  A pattern like "*" or "l*" meant "my
 * programs", not these; an exact name ("lsass", "lsass.exe") or a pid
 * still selects them, because someone asked for them by name. */
static const char *const wildcard_excluded[] = { "lsass.exe", "csrss.exe" };

bool mw_watch_wildcard_excluded(const char *image)
{
	const char *base = mw_path_basename(image);
	size_t i;

	for (i = 0; i < sizeof(wildcard_excluded) / sizeof(wildcard_excluded[0]); i++)
		if (!strcasecmp(base, wildcard_excluded[i]))
			return true;
	return false;
}

static bool name_entry_match(const char *pattern, const char *image)
{
	if (!image || !mw_image_name_match(pattern, image))
		return false;
	return !(strpbrk(pattern, "*?") && mw_watch_wildcard_excluded(image));
}

static bool entry_match(const struct mw_watch_entry *e, uint32_t pid, const char *image,
			uint32_t self_pid)
{
	switch (e->kind) {
	case MW_WATCH_SELF:
		return pid == self_pid;
	case MW_WATCH_PID:
		return pid == e->pid;
	case MW_WATCH_NAME:
		return name_entry_match(e->pattern, image);
	}
	return false;
}

bool mw_watch_entry_match(const struct mw_watch *w, size_t i, uint32_t pid, const char *image,
			  uint32_t self_pid)
{
	return i < w->n && entry_match(&w->entries[i], pid, image, self_pid);
}

bool mw_watch_match(const struct mw_watch *w, uint32_t pid, const char *image, uint32_t self_pid)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (entry_match(&w->entries[i], pid, image, self_pid))
			return true;
	return false;
}

bool mw_watch_by_name(const struct mw_watch *w)
{
	size_t i;

	for (i = 0; i < w->n; i++)
		if (w->entries[i].kind == MW_WATCH_NAME)
			return true;
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

void mw_watch_report(const struct mw_watch *w, const struct mw_targets *t, int64_t checked_ms,
		     struct mw_watch_status *out)
{
	uint32_t self = mw_self_pid();
	size_t i, k;

	out->checked_ms = checked_ms;
	out->entries_total = w->n;
	out->nentries = w->n < MW_WATCH_STATUS_ENTRIES ? w->n : MW_WATCH_STATUS_ENTRIES;
	for (i = 0; i < out->nentries; i++) {
		struct mw_watch_status_entry *se = &out->e[i];

		snprintf(se->entry, sizeof(se->entry), "%s", w->entries[i].text);
		se->nmatched = se->matched_total = 0;
		for (k = 0; k < t->n; k++) {
			const struct mw_target *x = &t->t[k];

			/* a target knows it is the daemon; its name may be empty */
			if (!(w->entries[i].kind == MW_WATCH_SELF ? x->self
			      : entry_match(&w->entries[i], x->pid, x->name, self)))
				continue;
			if (se->nmatched < MW_WATCH_STATUS_MATCHES) {
				se->matched[se->nmatched].pid = x->pid;
				snprintf(se->matched[se->nmatched].process,
					 sizeof(se->matched[se->nmatched].process), "%s", x->name);
				se->nmatched++;
			}
			se->matched_total++;
		}
	}
}

size_t mw_watch_unmatched_news(const struct mw_watch_status *st, bool *logged, bool *announce)
{
	size_t i, n = 0;

	for (i = 0; i < st->nentries; i++) {
		bool none = st->e[i].matched_total == 0;

		announce[i] = none && !logged[i];
		n += announce[i];
		logged[i] = none;
	}
	return n;
}
