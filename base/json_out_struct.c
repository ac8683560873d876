/*
 * json_out_struct.c - the structure writer of json_out.h (struct mw_jw):
 * objects and arrays that track their own nesting and commas, over the
 * raw writers of json_out.c.  Used by every composed document (leak
 * report, diff, /healthz and the status answers, `once`).
 *
 * The state is two bit sets, one bit per open level: is it an array, has
 * it a member yet.  A misuse (a key in an array, none in an object, an
 * end too many, nesting past MW_JW_MAX_DEPTH) aborts: it is a bug in the
 * caller, and writing on would hand a client invalid JSON.
 */
#include "base/json_out.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static void misuse(const char *what)
{
	fprintf(stderr, "json_out: %s\n", what);
	abort();
}

void mw_jw_init(struct mw_jw *w, struct mw_jbuf *b)
{
	w->b = b;
	w->depth = 0;
	w->in_array = w->has_member = 0;
}

/* Before a value: the comma after the previous member, the key. */
static void member(struct mw_jw *w, const char *key)
{
	uint32_t bit;

	if (w->depth == 0) {
		if (key)
			misuse("a key outside any object");
		return;
	}
	bit = (uint32_t)1 << (w->depth - 1);
	if (w->has_member & bit)
		mw_j_char(w->b, ',');
	w->has_member |= bit;
	if (w->in_array & bit) {
		if (key)
			misuse("a key inside an array");
	} else {
		if (!key)
			misuse("a member without a key");
		mw_j_key(w->b, key);
	}
}

static void open_level(struct mw_jw *w, const char *key, bool array)
{
	uint32_t bit;

	member(w, key);
	if (w->depth == MW_JW_MAX_DEPTH)
		misuse("nested too deep");
	bit = (uint32_t)1 << w->depth;
	w->depth++;
	w->has_member &= ~bit;
	if (array)
		w->in_array |= bit;
	else
		w->in_array &= ~bit;
	mw_j_char(w->b, array ? '[' : '{');
}

void mw_jw_object(struct mw_jw *w, const char *key)
{
	open_level(w, key, false);
}

void mw_jw_array(struct mw_jw *w, const char *key)
{
	open_level(w, key, true);
}

void mw_jw_end(struct mw_jw *w)
{
	if (w->depth == 0)
		misuse("an end with nothing open");
	w->depth--;
	mw_j_char(w->b, w->in_array & ((uint32_t)1 << w->depth) ? ']' : '}');
}

/* The value helpers: the member's comma and key, then json_out's raw
 * writer of the value (which escapes strings and writes NaN as null). */
#define MW_JW_VALUE(name, type, raw)                                \
	void name(struct mw_jw *w, const char *key, type v)         \
	{                                                           \
		member(w, key);                                     \
		raw(w->b, v);                                       \
	}

MW_JW_VALUE(mw_jw_str, const char *, mw_j_str)
MW_JW_VALUE(mw_jw_int, int64_t, mw_j_int)
MW_JW_VALUE(mw_jw_uint, uint64_t, mw_j_uint)
MW_JW_VALUE(mw_jw_double, double, mw_j_double)
MW_JW_VALUE(mw_jw_bool, int, mw_j_bool)

void mw_jw_null(struct mw_jw *w, const char *key)
{
	member(w, key);
	mw_j_null(w->b);
}

void mw_jw_json(struct mw_jw *w, const char *key, const char *json, size_t n)
{
	member(w, key);
	mw_j_raw(w->b, json, n);
}
