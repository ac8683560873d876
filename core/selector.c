/*
 * selector.c - selector parser and regex matcher (see selector.h).
 *
 * A pattern is parsed into a tree (a group is a list of alternatives,
 * each a sequence of nodes: character, any, class, group, each with a
 * repeat range), compiled into a small program for a Thompson NFA and
 * matched by simulating all its states at once (see "The compiled
 * program" below): time linear in the text for a given program, no
 * recursion, no backtracking, so no pattern can make a match slow.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "selector.h"
#include "base/xalloc.h"

#define RE_MAX_PATTERN MW_REGEX_MAX_PATTERN
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

/*
 * The compiled program (Thompson's construction): instructions that
 * consume one byte (CHAR, ANY, CLASS) and ones that do not (SPLIT, JMP),
 * then MATCH.  Matching simulates every thread at once (a Pike VM without
 * captures): the set of live program counters advances one text byte at a
 * time, so a match costs O(len(text) * len(program)) steps whatever the
 * pattern, and a program counter is added at most once per position.
 */
enum re_op { OP_CHAR, OP_ANY, OP_CLASS, OP_SPLIT, OP_JMP, OP_MATCH };

struct re_inst {
	uint8_t op;
	uint8_t c;
	uint16_t x, y;		/* SPLIT/JMP targets; CLASS: x = class index */
};

struct mw_regex {
	struct re_node root;
	struct re_inst *prog;
	size_t len, cap;
	uint8_t (*cls)[32];
	size_t ncls, clscap;
	bool too_big;
};

/* ---- matching ------------------------------------------------------------- */

/* A set of program counters in insertion order, with O(1) membership
 * (sparse set: dense[] and sparse[] index each other). */
struct re_set {
	uint16_t *dense, *sparse;
	size_t n;
};

static bool set_has(const struct re_set *s, uint16_t pc)
{
	return s->sparse[pc] < s->n && s->dense[s->sparse[pc]] == pc;
}

static void set_put(struct re_set *s, uint16_t pc)
{
	s->sparse[pc] = (uint16_t)s->n;
	s->dense[s->n++] = pc;
}

/* Add pc and everything reachable from it without consuming input;
 * stack has room for the program's length. */
static void add_closure(const struct mw_regex *re, struct re_set *s, uint16_t pc,
			uint16_t *stack, uint64_t *steps)
{
	size_t sp = 0;

	stack[sp++] = pc;
	while (sp) {
		pc = stack[--sp];
		if (set_has(s, pc))
			continue;
		set_put(s, pc);
		(*steps)++;
		if (re->prog[pc].op == OP_JMP) {
			stack[sp++] = re->prog[pc].x;
		} else if (re->prog[pc].op == OP_SPLIT) {
			stack[sp++] = re->prog[pc].y;
			stack[sp++] = re->prog[pc].x;
		}
	}
}

static bool consumes(const struct mw_regex *re, const struct re_inst *in, unsigned char c)
{
	switch (in->op) {
	case OP_CHAR:
		return c == in->c;
	case OP_ANY:
		return c != '\n';
	case OP_CLASS:
		return re->cls[in->x][c >> 3] & (1u << (c & 7));
	default:
		return false;
	}
}

bool mw_regex_match_steps(const struct mw_regex *re, const char *text, uint64_t *steps)
{
	/* Every add pushes at most two entries per instruction visited once:
	 * 2 * len + 1 is enough stack. */
	uint16_t buf[6 * MW_REGEX_MAX_PROG + 8];
	uint16_t *stack = buf, *d0 = buf + 2 * MW_REGEX_MAX_PROG + 2;
	uint16_t *d1 = d0 + MW_REGEX_MAX_PROG + 1, *sp0 = d1 + MW_REGEX_MAX_PROG + 1;
	uint16_t sp1[MW_REGEX_MAX_PROG + 1];
	struct re_set cur = { d0, sp0, 0 }, next = { d1, sp1, 0 }, tmp;
	const unsigned char *s = (const unsigned char *)text;
	uint64_t n = 0;
	size_t i;
	bool matched = false;

	add_closure(re, &cur, 0, stack, &n);
	for (;; s++) {
		if (!*s) {
			for (i = 0; i < cur.n && !matched; i++)
				matched = re->prog[cur.dense[i]].op == OP_MATCH;
			break;
		}
		if (!cur.n)
			break;
		next.n = 0;
		for (i = 0; i < cur.n; i++) {
			const struct re_inst *in = &re->prog[cur.dense[i]];

			n++;
			if (consumes(re, in, *s))
				add_closure(re, &next, (uint16_t)(cur.dense[i] + 1), stack, &n);
		}
		tmp = cur;
		cur = next;
		next = tmp;
	}
	if (steps)
		*steps += n;
	return matched;
}

bool mw_regex_match(const struct mw_regex *re, const char *text)
{
	return mw_regex_match_steps(re, text, NULL);
}

size_t mw_regex_program_size(const struct mw_regex *re)
{
	return re->len;
}

/* ---- compiling ------------------------------------------------------------ */

static size_t emit(struct mw_regex *re, enum re_op op)
{
	if (re->len >= MW_REGEX_MAX_PROG) {
		re->too_big = true;
		return MW_REGEX_MAX_PROG - 1;	/* a scratch slot; compile fails */
	}
	MW_GROW(re->prog, re->cap, re->len + 1);
	memset(&re->prog[re->len], 0, sizeof(re->prog[0]));
	re->prog[re->len].op = (uint8_t)op;
	return re->len++;
}

static void patch(struct mw_regex *re, size_t at, size_t x, size_t y)
{
	if (re->too_big)
		return;
	re->prog[at].x = (uint16_t)x;
	re->prog[at].y = (uint16_t)y;
}

static void compile_node(struct mw_regex *re, const struct re_node *n);

static void compile_alts(struct mw_regex *re, const struct re_node *g)
{
	size_t a, *jumps = mw_xmalloc((g->nalts + 1) * sizeof(*jumps)), njumps = 0, split;

	for (a = 0; a < g->nalts && !re->too_big; a++) {
		size_t i;

		split = SIZE_MAX;
		if (a + 1 < g->nalts)
			split = emit(re, OP_SPLIT);
		for (i = 0; i < g->alts[a].len; i++)
			compile_node(re, &g->alts[a].n[i]);
		if (a + 1 < g->nalts) {
			jumps[njumps++] = emit(re, OP_JMP);
			patch(re, split, split + 1, re->len);
		}
	}
	for (a = 0; a < njumps; a++)
		patch(re, jumps[a], re->len, 0);
	free(jumps);
}

static void compile_atom(struct mw_regex *re, const struct re_node *n)
{
	size_t at;

	switch (n->type) {
	case RE_GROUP:
		compile_alts(re, n);
		return;
	case RE_CHAR:
		at = emit(re, OP_CHAR);
		if (!re->too_big)
			re->prog[at].c = n->c;
		return;
	case RE_ANY:
		emit(re, OP_ANY);
		return;
	case RE_CLASS:
		at = emit(re, OP_CLASS);
		if (re->too_big || re->ncls >= MW_REGEX_MAX_PROG)
			return;
		MW_GROW(re->cls, re->clscap, re->ncls + 1);
		memcpy(re->cls[re->ncls], n->set, 32);
		re->prog[at].x = (uint16_t)re->ncls++;
		return;
	}
}

/* x: atom; x?: SPLIT L1 L2, L1: atom, L2:; x*: L0: SPLIT L1 L2, L1: atom,
 * JMP L0, L2:; x+: L1: atom, SPLIT L1 L2, L2:. */
static void compile_node(struct mw_regex *re, const struct re_node *n)
{
	size_t split, start;

	if (n->min == 1 && n->max == 1) {
		compile_atom(re, n);
	} else if (n->min == 0 && n->max == 1) {
		split = emit(re, OP_SPLIT);
		compile_atom(re, n);
		patch(re, split, split + 1, re->len);
	} else if (n->min == 0) {
		split = emit(re, OP_SPLIT);
		compile_atom(re, n);
		patch(re, emit(re, OP_JMP), split, 0);
		patch(re, split, split + 1, re->len);
	} else {
		start = re->len;
		compile_atom(re, n);
		split = emit(re, OP_SPLIT);
		patch(re, split, start, split + 1);
	}
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
	free(re->prog);
	free(re->cls);
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
	compile_node(re, &re->root);
	emit(re, OP_MATCH);
	node_release(&re->root);
	memset(&re->root, 0, sizeof(re->root));
	if (re->too_big) {
		mw_regex_free(re);
		return mw_error(err, "regex '%s' is too complex (more than %d instructions)",
				pattern, MW_REGEX_MAX_PROG);
	}
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
			/* A backslash at the very end escapes nothing: the string is
			 * unterminated, and the NUL must stay where the check below
			 * sees it (fuzz_selector found the read past it). */
			if (!*ps->p)
				break;
			c = *ps->p++;
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
