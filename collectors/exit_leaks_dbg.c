/*
 * exit_leaks_dbg.c - the pure parts of the Windows exit leak capture
 * (exit_leaks_dbg.h): image names, debug strings into ntdll report lines, the target table, the report queue, the saved IFEO
 * value.  Used by exit_leaks_win32.c; tested natively by
 * tests/test_exit_leaks_dbg.c.
 */
#include "exit_leaks_dbg.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "base/xalloc.h"

/* --- image names -------------------------------------------------------- */

bool mw_image_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > MW_IMAGE_NAME_MAX || mw_utf8_valid_prefix(name, n) != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		/* a key name cannot hold '\'; '/' and ':' would be a path */
		if (c < 0x20 || c == 0x7f || c == '\\' || c == '/' || c == ':')
			return false;
	}
	return strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool same_name(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (ascii_lower(*a) != ascii_lower(*b))
			return false;
	return *a == *b;
}

bool mw_image_matches(char *const *images, size_t nimages, const char *name)
{
	for (size_t i = 0; i < nimages; i++)
		if (same_name(images[i], name))
			return true;
	return false;
}

/* --- one process's strings into reports ------------------------------------ */

void mw_dbg_report_free(struct mw_exit_report *r)
{
	mw_exit_report_release(r);
}

void mw_dbg_capture_init(struct mw_dbg_capture *c)
{
	memset(c, 0, sizeof(*c));
	mw_ntdll_parser_init(&c->parser);
	c->held.max = MW_DBG_HELD_MAX;
}

void mw_dbg_capture_release(struct mw_dbg_capture *c)
{
	mw_ntdll_parser_release(&c->parser);
	mw_report_queue_release(&c->held);
	mw_dbg_capture_init(c);
}

/* The line read so far goes to the parser (an overlong one is dropped). */
static void line_done(struct mw_dbg_capture *c)
{
	struct mw_exit_report r;

	if (!c->overlong && mw_ntdll_parser_line(&c->parser, c->line, c->len, &r) == 1)
		mw_report_queue_push(&c->held, &r);
	c->len = 0;
	c->overlong = false;
}

/* A string ending without '\n' is continued by the next one only when it
 * is ntdll's "HEAP[name]: " prefix (any "...: ") or the next begins with
 * the line end. */
static bool continues(const struct mw_dbg_capture *c, const char *s, size_t n)
{
	if (n > 0 && (s[0] == '\n' || (s[0] == '\r' && n > 1 && s[1] == '\n')))
		return true;
	return !c->overlong && c->len >= 2 && c->line[c->len - 2] == ':' &&
	       c->line[c->len - 1] == ' ';
}

void mw_dbg_capture_string(struct mw_dbg_capture *c, const char *s, size_t n)
{
	if ((c->len > 0 || c->overlong) && !continues(c, s, n))
		line_done(c);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n') {
			line_done(c);
			continue;
		}
		if (c->overlong)
			continue;
		if (c->len + 1 >= sizeof(c->line)) {
			c->overlong = true;
			continue;
		}
		c->line[c->len++] = s[i];
	}
}

void mw_dbg_capture_end(struct mw_dbg_capture *c)
{
	struct mw_exit_report r;

	if (c->len > 0 || c->overlong)
		line_done(c);
	if (mw_ntdll_parser_end(&c->parser, &r) == 1)
		mw_report_queue_push(&c->held, &r);
}

bool mw_dbg_capture_take(struct mw_dbg_capture *c, struct mw_exit_report *out)
{
	return mw_report_queue_pop(&c->held, out);
}

/* --- targets ------------------------------------------------------------- */

void mw_dbg_targets_release(struct mw_dbg_targets *ts)
{
	for (size_t i = 0; i < ts->n; i++) {
		mw_dbg_capture_release(&ts->t[i]->cap);
		free(ts->t[i]);
	}
	free(ts->t);
	memset(ts, 0, sizeof(*ts));
}

struct mw_dbg_target *mw_dbg_targets_find(struct mw_dbg_targets *ts, uint32_t pid)
{
	for (size_t i = 0; i < ts->n; i++)
		if (ts->t[i]->pid == pid)
			return ts->t[i];
	return NULL;
}

void mw_dbg_targets_remove(struct mw_dbg_targets *ts, struct mw_dbg_target *t)
{
	for (size_t i = 0; i < ts->n; i++)
		if (ts->t[i] == t) {
			mw_dbg_capture_release(&t->cap);
			free(t);
			ts->t[i] = ts->t[--ts->n];
			return;
		}
}

void mw_dbg_scan_begin(struct mw_dbg_targets *ts)
{
	for (size_t i = 0; i < ts->n; i++)
		ts->t[i]->listed = false;
}

struct mw_dbg_target *mw_dbg_scan_see(struct mw_dbg_targets *ts, uint32_t pid, int64_t start_ms,
				      const char *image)
{
	struct mw_dbg_target *t = mw_dbg_targets_find(ts, pid);

	if (t && (t->start_ms == start_ms || t->state == MW_DBG_ATTACHED)) {
		/* an attached pid is its own until its exit event says not */
		t->listed = true;
		return NULL;
	}
	if (t)
		mw_dbg_targets_remove(ts, t);	/* a refused pid, reused */
	t = mw_xcalloc(1, sizeof(*t));
	t->pid = pid;
	t->start_ms = start_ms;
	snprintf(t->image, sizeof(t->image), "%s", image);
	t->state = MW_DBG_NEW;
	t->listed = true;
	mw_dbg_capture_init(&t->cap);
	MW_GROW(ts->t, ts->cap, ts->n + 1);
	ts->t[ts->n++] = t;
	return t;
}

void mw_dbg_scan_end(struct mw_dbg_targets *ts)
{
	for (size_t i = ts->n; i-- > 0;)
		if (!ts->t[i]->listed && ts->t[i]->state == MW_DBG_REFUSED)
			mw_dbg_targets_remove(ts, ts->t[i]);
}

/* --- finished reports ------------------------------------------------------ */

void mw_report_queue_push(struct mw_report_queue *q, struct mw_exit_report *r)
{
	if (q->n == (q->max ? q->max : MW_REPORT_QUEUE_MAX)) {
		/* nobody takes them: keep the newest, count the loss */
		mw_dbg_report_free(&q->r[0]);
		memmove(q->r, q->r + 1, (q->n - 1) * sizeof(q->r[0]));
		q->n--;
		q->dropped++;
	}
	MW_GROW(q->r, q->cap, q->n + 1);
	q->r[q->n++] = *r;
	memset(r, 0, sizeof(*r));
}

bool mw_report_queue_pop(struct mw_report_queue *q, struct mw_exit_report *out)
{
	if (q->n == 0)
		return false;
	*out = q->r[0];
	memmove(q->r, q->r + 1, (q->n - 1) * sizeof(q->r[0]));
	q->n--;
	return true;
}

void mw_report_queue_release(struct mw_report_queue *q)
{
	for (size_t i = 0; i < q->n; i++)
		mw_dbg_report_free(&q->r[i]);
	free(q->r);
	q->r = NULL;
	q->n = q->cap = 0;
	q->dropped = 0;
}

/* --- the saved IFEO value ------------------------------------------------ */

void mw_ifeo_saved_format(const struct mw_ifeo_saved *s, char *out, size_t out_size)
{
	char prev[24];

	if (s->had_value)
		snprintf(prev, sizeof(prev), "0x%08" PRIx32, s->value);
	else
		snprintf(prev, sizeof(prev), "none");
	snprintf(out, out_size, "previous=%s%s", prev, s->created_key ? ";created" : "");
}

bool mw_ifeo_saved_parse(const char *text, struct mw_ifeo_saved *out)
{
	const char *p = text;
	size_t rest;

	memset(out, 0, sizeof(*out));
	if (strncmp(p, "previous=", 9) != 0)
		return false;
	p += 9;
	if (strncmp(p, "none", 4) == 0) {
		p += 4;
	} else if (strncmp(p, "0x", 2) == 0) {
		uint32_t v = 0;
		int digits;

		p += 2;
		for (digits = 0; digits < 8; digits++, p++) {
			int d;

			if (*p >= '0' && *p <= '9')
				d = *p - '0';
			else if (*p >= 'a' && *p <= 'f')
				d = *p - 'a' + 10;
			else
				return false;
			v = v << 4 | (uint32_t)d;
		}
		out->had_value = true;
		out->value = v;
	} else {
		return false;
	}
	rest = strlen(p);
	if (rest == 0)
		return true;
	if (strcmp(p, ";created") == 0) {
		out->created_key = true;
		return true;
	}
	return false;
}
