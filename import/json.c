/*
 * json.c - memwatch's JSON export, parsed as a stream: bytes in any split,
 * points out as soon as they are read.  Memory: one token (a string is at
 * most MAX_TOKEN bytes), one series' name and labels, a nesting stack.
 *
 *   {"series":[{"id":…,"name":…,"labels":{…},"points":[[ts,v],…]},…]}
 *
 * Unknown keys are skipped whatever their value; "name" and "labels" must
 * come before "points" (as the export writes them).  A value of null (the
 * export's NaN and infinities) is a NaN point.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"
#include "base/hex.h"
#include "base/xalloc.h"

#define MAX_DEPTH 64
#define MAX_TOKEN (1u << 20)

enum { TS_NONE, TS_STRING, TS_ESC, TS_U, TS_BARE };
enum { J_ROOT, J_SERIES_ARR, J_SERIES, J_LABELS, J_POINTS, J_POINT, J_SKIP };
enum { K_OTHER, K_SERIES, K_NAME, K_LABELS, K_POINTS };
enum { O_KEY0, O_COLON, O_VALUE, O_NEXT, O_KEY };	/* object states */
enum { A_VALUE0, A_VALUE, A_NEXT };			/* array states */
enum { V_OBJ, V_ARR, V_STR, V_BARE };

struct jlevel {
	unsigned char obj, ctx, state, key;
};

struct mw_json_import {
	mw_import_point_fn point;
	void *ctx;
	struct mw_import_stats st;
	struct jlevel stack[MAX_DEPTH];
	int depth;
	bool done, started;
	int ts;
	char *tok;
	size_t tlen, tcap;
	unsigned u_val, u_hi;
	int u_n;
	uint64_t line;
	/* the series being read */
	uint64_t nseries;
	struct mw_import_series se;
	bool have_name, ready, used;
	char *label_name;
	uint64_t npoint;
	int pidx;
	int64_t not_after_ms;	/* 0: up to year 9999 */
	int64_t pts;
	double pv;
};

struct mw_json_import *mw_json_import_new(mw_import_point_fn point, void *ctx)
{
	struct mw_json_import *j = mw_xcalloc(1, sizeof(*j));

	j->point = point;
	j->ctx = ctx;
	j->line = 1;
	j->st.first_ts = INT64_MAX;
	j->st.last_ts = INT64_MIN;
	return j;
}

void mw_json_import_free(struct mw_json_import *j)
{
	if (!j)
		return;
	mw_import_series_release(&j->se);
	free(j->tok);
	free(j->label_name);
	free(j);
}

void mw_json_import_not_after(struct mw_json_import *j, int64_t ms)
{
	j->not_after_ms = ms;
}

uint64_t mw_json_import_line(const struct mw_json_import *j)
{
	return j->line;
}

const struct mw_import_stats *mw_json_import_stats(const struct mw_json_import *j)
{
	return &j->st;
}

/* An error inside a series names it (and the point). */
static int jfail(struct mw_json_import *j, struct mw_err *err)
{
	if (j->depth >= 3 && j->stack[2].ctx == J_SERIES) {
		if (j->depth >= 5 && j->stack[4].ctx == J_POINT)
			mw_error_prefix(err, "series %llu (%s), point %llu",
					(unsigned long long)j->nseries,
					j->se.key ? j->se.key : "?", (unsigned long long)j->npoint);
		else
			mw_error_prefix(err, "series %llu%s%s%s", (unsigned long long)j->nseries,
					j->have_name ? " (" : "",
					j->have_name ? j->se.metric : "", j->have_name ? ")" : "");
	}
	return -1;
}

static int push(struct mw_json_import *j, bool obj, int ctx, struct mw_err *err)
{
	struct jlevel *l;

	if (j->depth >= MAX_DEPTH)
		return mw_error(err, "nested deeper than %d", MAX_DEPTH);
	l = &j->stack[j->depth++];
	l->obj = obj;
	l->ctx = (unsigned char)ctx;
	l->state = obj ? O_KEY0 : A_VALUE0;
	l->key = K_OTHER;
	return 0;
}

static int key_of(int ctx, const char *s)
{
	if (ctx == J_ROOT)
		return !strcmp(s, "series") ? K_SERIES : K_OTHER;
	if (ctx == J_SERIES) {
		if (!strcmp(s, "name"))
			return K_NAME;
		if (!strcmp(s, "labels"))
			return K_LABELS;
		if (!strcmp(s, "points"))
			return K_POINTS;
	}
	return K_OTHER;
}

static int parse_ts(const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	int64_t v = 0;

	if (n && s[0] == '-') {
		neg = true;
		i = 1;
	}
	if (i == n || n - i > 18)
		return -1;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = neg ? -v : v;
	return 0;
}

static int series_ready(struct mw_json_import *j, struct mw_err *err)
{
	if (!j->have_name)
		return mw_error(err, "\"points\" before \"name\"");
	if (j->ready)
		return mw_error(err, "\"points\" twice");
	if (mw_import_series_check(&j->se, err))
		return -1;
	mw_import_series_rekey(&j->se);
	j->ready = true;
	return 0;
}

/* A value (or an object key) begins or is a whole scalar. */
static int value(struct mw_json_import *j, int kind, struct mw_err *err)
{
	struct jlevel *top = j->depth ? &j->stack[j->depth - 1] : NULL;
	const char *t = j->tok;
	size_t n = j->tlen;
	int ctx;

	if (!top) {
		if (j->done)
			return mw_error(err, "more after the end of the document");
		if (kind != V_OBJ)
			return mw_error(err, "not a memwatch JSON export (it does not start with '{')");
		j->started = true;
		return push(j, true, J_ROOT, err);
	}
	if (top->obj) {
		if (top->state == O_KEY0 || top->state == O_KEY) {
			if (kind != V_STR)
				return mw_error(err, "expected a quoted key");
			/* "name\u0000x" must not be read as "name" */
			if (strlen(t) != n)
				return mw_error(err, "key '%.60s' holds a NUL (\\u0000)", t);
			top->key = (unsigned char)key_of(top->ctx, t);
			if (top->ctx == J_LABELS) {
				free(j->label_name);
				j->label_name = mw_xstrndup(t, n);
			}
			top->state = O_COLON;
			return 0;
		}
		if (top->state != O_VALUE)
			return mw_error(err, top->state == O_COLON ? "expected ':'" :
					"expected ',' or '}'");
		top->state = O_NEXT;
	} else {
		if (top->state == A_NEXT)
			return mw_error(err, "expected ',' or ']'");
		top->state = A_NEXT;
	}
	ctx = top->ctx;
	switch (ctx) {
	case J_ROOT:
		if (top->key == K_SERIES) {
			if (kind != V_ARR)
				return mw_error(err, "\"series\" is not an array");
			return push(j, false, J_SERIES_ARR, err);
		}
		break;
	case J_SERIES_ARR:
		if (kind != V_OBJ)
			return mw_error(err, "series %llu is not an object",
					(unsigned long long)j->nseries + 1);
		j->nseries++;
		mw_import_series_release(&j->se);
		j->have_name = j->ready = j->used = false;
		j->npoint = 0;
		return push(j, true, J_SERIES, err);
	case J_SERIES:
		if (top->key == K_NAME) {
			if (kind != V_STR)
				return mw_error(err, "\"name\" is not a string");
			if (j->ready || j->have_name)
				return mw_error(err, "\"name\" twice or after \"points\"");
			if (strlen(t) != n)
				return mw_error(err, "name '%.60s' holds a NUL (\\u0000)", t);
			if (!mw_import_metric_name_ok(t))
				return mw_error(err, "name '%.80s' is not a metric name", t);
			j->se.metric = mw_xstrndup(t, n);
			j->have_name = true;
			return 0;
		}
		if (top->key == K_LABELS) {
			if (kind != V_OBJ)
				return mw_error(err, "\"labels\" is not an object");
			if (j->ready)
				return mw_error(err, "\"labels\" after \"points\"");
			return push(j, true, J_LABELS, err);
		}
		if (top->key == K_POINTS) {
			if (kind != V_ARR)
				return mw_error(err, "\"points\" is not an array");
			if (series_ready(j, err))
				return -1;
			return push(j, false, J_POINTS, err);
		}
		break;
	case J_LABELS:
		if (kind != V_STR)
			return mw_error(err, "label '%.60s' is not a string", j->label_name);
		if (strlen(t) != n)
			return mw_error(err, "label '%.60s' holds a NUL", j->label_name);
		return mw_import_series_add_label(&j->se, j->label_name, t, err);
	case J_POINTS:
		if (kind != V_ARR)
			return mw_error(err, "point %llu is not [ts, value]",
					(unsigned long long)j->npoint + 1);
		j->npoint++;
		j->pidx = 0;
		return push(j, false, J_POINT, err);
	case J_POINT:
		if (kind != V_BARE || j->pidx >= 2)
			return mw_error(err, "not [ts, value]");
		if (j->pidx == 0) {
			if (parse_ts(t, n, &j->pts))
				return mw_error(err, "timestamp '%.40s' is not an integer (ms)", t);
			if (mw_import_time_check(j->pts, j->not_after_ms, err)) {
				j->st.future = true;
				return -1;
			}
		} else if (!strcmp(t, "null")) {
			j->pv = NAN;
		} else if (mw_import_value(t, n, &j->pv) != 1) {
			return mw_error(err, "value '%.40s' is not a number", t);
		}
		j->pidx++;
		return 0;
	default:
		break;
	}
	/* an unknown key's value, or anything inside one */
	if (kind == V_OBJ || kind == V_ARR)
		return push(j, kind == V_OBJ, J_SKIP, err);
	return 0;
}

static int close_level(struct mw_json_import *j, bool obj, struct mw_err *err)
{
	struct jlevel *top = j->depth ? &j->stack[j->depth - 1] : NULL;

	if (!top || top->obj != obj)
		return mw_error(err, "unexpected '%c'", obj ? '}' : ']');
	if (obj ? (top->state != O_KEY0 && top->state != O_NEXT) :
		  (top->state != A_VALUE0 && top->state != A_NEXT))
		return mw_error(err, "unexpected '%c' (a value is missing)", obj ? '}' : ']');
	if (top->ctx == J_POINT) {
		if (j->pidx != 2)
			return mw_error(err, "not [ts, value]");
		if (!j->used) {
			j->used = true;
			j->st.series++;
		}
		j->point(j->ctx, j->se.key, j->se.metric, j->se.labels, j->se.nlabels, j->pts,
			 j->pv);
		j->st.points++;
		if (j->pts < j->st.first_ts)
			j->st.first_ts = j->pts;
		if (j->pts > j->st.last_ts)
			j->st.last_ts = j->pts;
	}
	j->depth--;
	if (!j->depth)
		j->done = true;
	return 0;
}

static int punct(struct mw_json_import *j, char c, struct mw_err *err)
{
	struct jlevel *top = j->depth ? &j->stack[j->depth - 1] : NULL;

	if (c == ':') {
		if (!top || !top->obj || top->state != O_COLON)
			return mw_error(err, "unexpected ':'");
		top->state = O_VALUE;
		return 0;
	}
	if (!top || (top->obj ? top->state != O_NEXT : top->state != A_NEXT))
		return mw_error(err, "unexpected ','");
	top->state = top->obj ? O_KEY : A_VALUE;
	return 0;
}

static int tok_put(struct mw_json_import *j, const char *p, size_t n, struct mw_err *err)
{
	if (j->tlen + n + 1 > MAX_TOKEN)
		return mw_error(err, "a string or number longer than %u bytes", MAX_TOKEN);
	if (j->tlen + n + 1 > j->tcap)
		MW_GROW(j->tok, j->tcap, j->tlen + n + 1);
	memcpy(j->tok + j->tlen, p, n);
	j->tlen += n;
	j->tok[j->tlen] = '\0';
	return 0;
}

static int put_cp(struct mw_json_import *j, unsigned cp, struct mw_err *err)
{
	char b[4];
	size_t n;

	if (cp < 0x80) {
		b[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = (char)(0xC0 | cp >> 6);
		b[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = (char)(0xE0 | cp >> 12);
		b[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		b[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		b[0] = (char)(0xF0 | cp >> 18);
		b[1] = (char)(0x80 | (cp >> 12 & 0x3F));
		b[2] = (char)(0x80 | (cp >> 6 & 0x3F));
		b[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	return tok_put(j, b, n, err);
}

/* A high surrogate not followed by a low one. */
static int flush_hi(struct mw_json_import *j, struct mw_err *err)
{
	if (!j->u_hi)
		return 0;
	j->u_hi = 0;
	return put_cp(j, 0xFFFD, err);
}

static bool bare_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '-' || c == '+' || c == '.';
}

static int feed(struct mw_json_import *j, const char *p, size_t n, struct mw_err *err)
{
	const char *end = p + n, *q;

	while (p < end) {
		char c = *p;

		switch (j->ts) {
		case TS_NONE:
			p++;
			switch (c) {
			case '\n':
				j->line++;
				/* fall through */
			case ' ': case '\t': case '\r':
				continue;
			case '{':
				if (value(j, V_OBJ, err))
					return -1;
				continue;
			case '[':
				if (value(j, V_ARR, err))
					return -1;
				continue;
			case '}': case ']':
				if (close_level(j, c == '}', err))
					return -1;
				continue;
			case ':': case ',':
				if (punct(j, c, err))
					return -1;
				continue;
			case '"':
				j->ts = TS_STRING;
				j->tlen = 0;
				if (tok_put(j, "", 0, err))
					return -1;
				continue;
			default:
				if (!bare_char(c))
					return mw_error(err, "unexpected character '%c' (0x%02x)",
							c >= 0x20 && c < 0x7f ? c : '?',
							(unsigned)(unsigned char)c);
				j->ts = TS_BARE;
				j->tlen = 0;
				if (tok_put(j, &c, 1, err))
					return -1;
				continue;
			}
		case TS_STRING:
			for (q = p; q < end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20; q++)
				;
			if (q > p && (flush_hi(j, err) || tok_put(j, p, (size_t)(q - p), err)))
				return -1;
			p = q;
			if (p == end)
				break;
			c = *p++;
			if (c == '"') {
				if (flush_hi(j, err))
					return -1;
				j->ts = TS_NONE;
				if (value(j, V_STR, err))
					return -1;
			} else if (c == '\\') {
				j->ts = TS_ESC;
			} else {
				return mw_error(err, "control character in a string");
			}
			break;
		case TS_ESC:
			p++;
			j->ts = TS_STRING;
			if (c == 'u') {
				j->ts = TS_U;
				j->u_n = 0;
				j->u_val = 0;
				break;
			}
			if (flush_hi(j, err))
				return -1;
			switch (c) {
			case '"': case '\\': case '/':
				break;
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			default:
				return mw_error(err, "bad escape '\\%c' in a string", c);
			}
			if (tok_put(j, &c, 1, err))
				return -1;
			break;
		case TS_U:
			p++;
			if (mw_hex_digit(c) < 0)
				return mw_error(err, "bad \\u escape in a string");
			j->u_val = j->u_val * 16 + (unsigned)mw_hex_digit(c);
			if (++j->u_n < 4)
				break;
			j->ts = TS_STRING;
			if (j->u_val >= 0xD800 && j->u_val < 0xDC00) {
				if (flush_hi(j, err))
					return -1;
				j->u_hi = j->u_val;
			} else if (j->u_val >= 0xDC00 && j->u_val < 0xE000) {
				unsigned hi = j->u_hi;

				j->u_hi = 0;
				if (put_cp(j, hi ? 0x10000 + ((hi - 0xD800) << 10) + (j->u_val - 0xDC00) :
					   0xFFFD, err))
					return -1;
			} else if (flush_hi(j, err) || put_cp(j, j->u_val, err)) {
				return -1;
			}
			break;
		case TS_BARE:
			for (q = p; q < end && bare_char(*q); q++)
				;
			if (q > p && tok_put(j, p, (size_t)(q - p), err))
				return -1;
			p = q;
			if (p == end)
				break;
			j->ts = TS_NONE;
			if (value(j, V_BARE, err))
				return -1;
			break;
		default:
			return mw_error(err, "parser state");
		}
	}
	return 0;
}

int mw_json_import_feed(struct mw_json_import *j, const char *p, size_t n, struct mw_err *err)
{
	return feed(j, p, n, err) ? jfail(j, err) : 0;
}

int mw_json_import_finish(struct mw_json_import *j, struct mw_err *err)
{
	if (j->ts == TS_BARE) {
		j->ts = TS_NONE;
		if (value(j, V_BARE, err))
			return jfail(j, err);
	}
	if (j->ts != TS_NONE) {
		mw_error(err, "the file ends inside a string (cut off?)");
		return jfail(j, err);
	}
	if (!j->started)
		return mw_error(err, "empty: no JSON document");
	if (!j->done) {
		mw_error(err, "the file ends before the document does (cut off?)");
		return jfail(j, err);
	}
	return 0;
}
