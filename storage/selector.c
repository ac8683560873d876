/*
 * selector.c - selector parser and regex matcher (see selector.h).
 *
 * The matcher works on a tree: a group is a list of alternatives, each a
 * sequence of nodes (character, any, class, group), each with a repeat
 * range.  Matching is depth-first with explicit continuations: after one
 * repetition of a group, "repeat this node again, then the rest of its
 * sequence, then whatever followed" is passed down as a linked list on
 * the C stack.  An iteration that consumed nothing ends the repetition,
 * so `(a*)*` terminates.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "selector.h"
#include "daemon/xalloc.h"

#define RE_MAX_PATTERN 256
#define RE_INF 0x7fffffff

enum re_type { RE_CHAR, RE_ANY, RE_CLASS, RE_GROUP };

struct re_seq;

struct re_node {
	enum re_type type;
	int min, max;
	unsigned char c;
	uint8_t set[32];
	struct re_seq *alts;
	size_t nalts;
};

struct re_seq {
	struct re_node *n;
	size_t len, cap;
};

struct mw_regex {
	struct re_node root;
	struct re_seq top;
};

struct re_cont {
	const struct re_node *rep;
	int count;
	const char *start;
	const struct re_seq *seq;
	size_t idx;
	const struct re_cont *next;
};

/* ---- matching ------------------------------------------------------------- */

static bool atom(const struct re_node *n, unsigned char c)
{
	switch (n->type) {
	case RE_CHAR:
		return c == n->c;
	case RE_ANY:
		return c != '\n';
	case RE_CLASS:
		return n->set[c >> 3] & (1u << (c & 7));
	default:
		return false;
	}
}

static bool m_rep(const struct re_node *n, int count, const char *s, const struct re_seq *seq,
		  size_t idx, const struct re_cont *k);

static bool m_seq(const struct re_seq *seq, size_t idx, const char *s, const struct re_cont *k)
{
	if (idx < seq->len)
		return m_rep(&seq->n[idx], 0, s, seq, idx, k);
	if (!k)
		return *s == 0;
	if (s == k->start)	/* empty iteration: stop repeating */
		return m_seq(k->seq, k->idx + 1, s, k->next);
	return m_rep(k->rep, k->count, s, k->seq, k->idx, k->next);
}

static bool m_rep(const struct re_node *n, int count, const char *s, const struct re_seq *seq,
		  size_t idx, const struct re_cont *k)
{
	if (count < n->max) {
		if (n->type == RE_GROUP) {
			struct re_cont again = { n, count + 1, s, seq, idx, k };
			size_t a;

			for (a = 0; a < n->nalts; a++)
				if (m_seq(&n->alts[a], 0, s, &again))
					return true;
		} else if (*s && atom(n, (unsigned char)*s)) {
			if (m_rep(n, count + 1, s + 1, seq, idx, k))
				return true;
		}
	}
	return count >= n->min && m_seq(seq, idx + 1, s, k);
}

bool mw_regex_match(const struct mw_regex *re, const char *text)
{
	return m_seq(&re->top, 0, text, NULL);
}

/* ---- parsing -------------------------------------------------------------- */

struct re_parser {
	const char *p, *pattern;
	struct mw_err *err;
	int depth;
};

static void set_bit(uint8_t *set, unsigned c)
{
	set[c >> 3] |= (uint8_t)(1u << (c & 7));
}

static void set_escape(uint8_t *set, char e)
{
	unsigned c;
	bool neg = isupper((unsigned char)e);
	uint8_t tmp[32] = { 0 };

	for (c = 0; c < 256; c++) {
		bool in = false;

		switch (tolower((unsigned char)e)) {
		case 'd':
			in = c >= '0' && c <= '9';
			break;
		case 'w':
			in = isalnum((int)c) || c == '_';
			break;
		case 's':
			in = c == ' ' || (c >= '\t' && c <= '\r');
			break;
		}
		if (in != neg)
			set_bit(tmp, c);
	}
	for (c = 0; c < 32; c++)
		set[c] |= tmp[c];
}

static bool is_class_escape(char e)
{
	return e && strchr("dwsDWS", e);
}

static int parse_class(struct re_parser *ps, struct re_node *n)
{
	bool neg = false;
	unsigned c;

	n->type = RE_CLASS;
	if (*ps->p == '^') {
		neg = true;
		ps->p++;
	}
	if (*ps->p == ']') {
		set_bit(n->set, ']');
		ps->p++;
	}
	while (*ps->p && *ps->p != ']') {
		unsigned lo = (unsigned char)*ps->p++, hi;

		if (lo == '\\') {
			if (!*ps->p)
				break;
			if (is_class_escape(*ps->p)) {
				set_escape(n->set, *ps->p++);
				continue;
			}
			lo = (unsigned char)*ps->p++;
		}
		hi = lo;
		if (ps->p[0] == '-' && ps->p[1] && ps->p[1] != ']') {
			ps->p++;
			hi = (unsigned char)*ps->p++;
			if (hi == '\\' && *ps->p)
				hi = (unsigned char)*ps->p++;
			if (hi < lo)
				return mw_error(ps->err, "bad range in regex '%s'", ps->pattern);
		}
		for (c = lo; c <= hi; c++)
			set_bit(n->set, c);
	}
	if (*ps->p != ']')
		return mw_error(ps->err, "missing ']' in regex '%s'", ps->pattern);
	ps->p++;
	if (neg)
		for (c = 0; c < 32; c++)
			n->set[c] = (uint8_t)~n->set[c];
	return 0;
}

static int parse_alts(struct re_parser *ps, struct re_node *group);

static int parse_seq(struct re_parser *ps, struct re_seq *seq)
{
	while (*ps->p && *ps->p != '|' && *ps->p != ')') {
		struct re_node *n;
		char c = *ps->p++;

		MW_GROW(seq->n, seq->cap, seq->len + 1);
		n = &seq->n[seq->len++];
		memset(n, 0, sizeof(*n));
		n->min = n->max = 1;
		switch (c) {
		case '(':
			if (parse_alts(ps, n))
				return -1;
			if (*ps->p != ')')
				return mw_error(ps->err, "missing ')' in regex '%s'", ps->pattern);
			ps->p++;
			break;
		case '.':
			n->type = RE_ANY;
			break;
		case '[':
			if (parse_class(ps, n))
				return -1;
			break;
		case '\\':
			if (!*ps->p)
				return mw_error(ps->err, "trailing '\\' in regex '%s'", ps->pattern);
			if (is_class_escape(*ps->p)) {
				n->type = RE_CLASS;
				set_escape(n->set, *ps->p++);
			} else {
				n->type = RE_CHAR;
				c = *ps->p++;
				n->c = (unsigned char)(c == 'n' ? '\n' : c == 't' ? '\t' : c);
			}
			break;
		case '*': case '+': case '?': case '{':
			return mw_error(ps->err, "nothing to repeat at '%c' in regex '%s'", c,
					ps->pattern);
		case '^': case '$':
			return mw_error(ps->err, "anchors are implicit; '%c' is not supported in "
					"regex '%s'", c, ps->pattern);
		default:
			n->type = RE_CHAR;
			n->c = (unsigned char)c;
		}
		switch (*ps->p) {
		case '*':
			n->min = 0;
			n->max = RE_INF;
			break;
		case '+':
			n->max = RE_INF;
			break;
		case '?':
			n->min = 0;
			break;
		case '{':
			return mw_error(ps->err, "counted repetition is not supported in regex '%s'",
					ps->pattern);
		default:
			continue;
		}
		ps->p++;
		if (*ps->p == '*' || *ps->p == '+' || *ps->p == '?')
			return mw_error(ps->err, "repeated quantifier in regex '%s'", ps->pattern);
	}
	return 0;
}

static int parse_alts(struct re_parser *ps, struct re_node *group)
{
	size_t cap = 0;

	if (++ps->depth > 32)
		return mw_error(ps->err, "regex '%s' nests too deep", ps->pattern);
	group->type = RE_GROUP;
	for (;;) {
		MW_GROW(group->alts, cap, group->nalts + 1);
		memset(&group->alts[group->nalts], 0, sizeof(group->alts[0]));
		if (parse_seq(ps, &group->alts[group->nalts++]))
			return -1;
		if (*ps->p != '|')
			break;
		ps->p++;
	}
	ps->depth--;
	return 0;
}

static void node_release(struct re_node *n)
{
	size_t a, i;

	for (a = 0; a < n->nalts; a++) {
		for (i = 0; i < n->alts[a].len; i++)
			node_release(&n->alts[a].n[i]);
		free(n->alts[a].n);
	}
	free(n->alts);
}

void mw_regex_free(struct mw_regex *re)
{
	if (!re)
		return;
	node_release(&re->root);
	free(re);
}

int mw_regex_compile(struct mw_regex **out, const char *pattern, struct mw_err *err)
{
	struct mw_regex *re = mw_xcalloc(1, sizeof(*re));
	struct re_parser ps = { pattern, pattern, err, 0 };

	*out = NULL;
	if (strlen(pattern) > RE_MAX_PATTERN) {
		free(re);
		return mw_error(err, "regex is longer than %d bytes", RE_MAX_PATTERN);
	}
	re->root.min = re->root.max = 1;
	if (parse_alts(&ps, &re->root) || (*ps.p && mw_error(err, "unmatched ')' in regex '%s'",
							      pattern))) {
		mw_regex_free(re);
		return -1;
	}
	re->top.n = &re->root;
	re->top.len = 1;
	*out = re;
	return 0;
}

/* ---- selectors ------------------------------------------------------------ */

struct sel_parser {
	const char *p, *text;
	struct mw_err *err;
};

static void skip_ws(struct sel_parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r')
		ps->p++;
}

static int fail(struct sel_parser *ps, const char *what)
{
	return mw_error(ps->err, "bad selector '%s': %s at offset %d", ps->text, what,
			(int)(ps->p - ps->text));
}

static char *parse_ident(struct sel_parser *ps, bool metric)
{
	const char *start = ps->p;

	if (!(isalpha((unsigned char)*ps->p) || *ps->p == '_' || (metric && *ps->p == ':')))
		return NULL;
	while (isalnum((unsigned char)*ps->p) || *ps->p == '_' || (metric && *ps->p == ':'))
		ps->p++;
	return mw_xstrndup(start, (size_t)(ps->p - start));
}

static char *parse_string(struct sel_parser *ps)
{
	char quote = *ps->p, *out, *o;
	const char *start;

	if (quote != '"' && quote != '\'')
		return NULL;
	start = ++ps->p;
	o = out = mw_xmalloc(strlen(start) + 1);
	while (*ps->p && *ps->p != quote) {
		char c = *ps->p++;

		if (c == '\\') {
			c = *ps->p++;
			if (!c)
				break;
			c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
		}
		*o++ = c;
	}
	*o = 0;
	if (*ps->p != quote) {
		free(out);
		return NULL;
	}
	ps->p++;
	return out;
}

void mw_selector_release(struct mw_selector *sel)
{
	size_t i;

	for (i = 0; i < sel->n; i++) {
		free(sel->m[i].label);
		free(sel->m[i].value);
		mw_regex_free(sel->m[i].re);
	}
	free(sel->m);
	free(sel->name);
	memset(sel, 0, sizeof(*sel));
}

int mw_selector_parse(struct mw_selector *sel, const char *text, struct mw_err *err)
{
	struct sel_parser ps = { text ? text : "", text ? text : "", err };
	size_t cap = 0;

	memset(sel, 0, sizeof(*sel));
	skip_ws(&ps);
	if (!*ps.p)
		return 0;
	sel->name = parse_ident(&ps, true);
	skip_ws(&ps);
	if (*ps.p == '{') {
		ps.p++;
		for (;;) {
			struct mw_matcher *m;

			skip_ws(&ps);
			if (*ps.p == '}')
				break;
			MW_GROW(sel->m, cap, sel->n + 1);
			m = &sel->m[sel->n];
			memset(m, 0, sizeof(*m));
			if (!(m->label = parse_ident(&ps, false))) {
				fail(&ps, "expected a label name");
				goto bad;
			}
			sel->n++;
			skip_ws(&ps);
			if (ps.p[0] == '=' && ps.p[1] == '~') {
				m->op = MW_MATCH_RE;
				ps.p += 2;
			} else if (ps.p[0] == '!' && ps.p[1] == '~') {
				m->op = MW_MATCH_NRE;
				ps.p += 2;
			} else if (ps.p[0] == '!' && ps.p[1] == '=') {
				m->op = MW_MATCH_NE;
				ps.p += 2;
			} else if (ps.p[0] == '=') {
				m->op = MW_MATCH_EQ;
				ps.p++;
			} else {
				fail(&ps, "expected =, !=, =~ or !~");
				goto bad;
			}
			skip_ws(&ps);
			if (!(m->value = parse_string(&ps))) {
				fail(&ps, "expected a quoted value");
				goto bad;
			}
			if ((m->op == MW_MATCH_RE || m->op == MW_MATCH_NRE) &&
			    mw_regex_compile(&m->re, m->value, err)) {
				mw_error_prefix(err, "bad selector '%s'", ps.text);
				goto bad;
			}
			skip_ws(&ps);
			if (*ps.p == ',') {
				ps.p++;
				continue;
			}
			if (*ps.p != '}') {
				fail(&ps, "expected ',' or '}'");
				goto bad;
			}
		}
		ps.p++;
		skip_ws(&ps);
	} else if (!sel->name) {
		fail(&ps, "expected a metric name or '{'");
		goto bad;
	}
	if (*ps.p) {
		fail(&ps, "unexpected text");
		goto bad;
	}
	return 0;
bad:
	mw_selector_release(sel);
	return -1;
}

static bool match_one(const struct mw_matcher *m, const char *v)
{
	switch (m->op) {
	case MW_MATCH_EQ:
		return !strcmp(v, m->value);
	case MW_MATCH_NE:
		return strcmp(v, m->value) != 0;
	case MW_MATCH_RE:
		return mw_regex_match(m->re, v);
	default:
		return !mw_regex_match(m->re, v);
	}
}

bool mw_selector_match(const struct mw_selector *sel, const char *name,
		       const struct mw_label *labels, size_t nlabels)
{
	size_t i, j;

	if (sel->name && strcmp(sel->name, name))
		return false;
	for (i = 0; i < sel->n; i++) {
		const char *v = "";

		if (!strcmp(sel->m[i].label, "__name__")) {
			v = name;
		} else {
			for (j = 0; j < nlabels; j++)
				if (!strcmp(labels[j].name, sel->m[i].label)) {
					v = labels[j].value;
					break;
				}
		}
		if (!match_one(&sel->m[i], v))
			return false;
	}
	return true;
}
