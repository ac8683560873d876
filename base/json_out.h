/*
 * json_out.h - the product's one JSON writer: streaming into a growing
 * buffer, no tree.  cJSON is used only to parse (answers of a daemon,
 * tests reading outputs).
 *
 * Two levels over the same buffer:
 *   - raw values (mw_j_*): the caller writes commas, colons and brackets.
 *     The big columnar bodies (query, export, processes) are written this
 *     way: no bookkeeping per value (see /work/shared/notes/performance.md).
 *   - a structure writer (struct mw_jw, mw_jw_*): begin/end object and
 *     array and key+value helpers; it writes the commas itself, for the
 *     composed documents (leak report, diff, status, `once`).
 * Both keep the output valid JSON whatever the input bytes: strings are
 * escaped, invalid UTF-8 becomes U+FFFD, NaN and infinities are null.
 *
 * Invariants: b->p is never NULL after mw_jbuf_init and is always
 * NUL-terminated; b->len excludes the NUL.  Allocation failure aborts
 * (xalloc).  Any thread may use its own buffer.
 */
#ifndef MW_BASE_JSON_OUT_H
#define MW_BASE_JSON_OUT_H

#include <stddef.h>
#include <stdint.h>

struct mw_jbuf {
	char *p;
	size_t len, cap;
};

void mw_jbuf_init(struct mw_jbuf *b);
void mw_jbuf_release(struct mw_jbuf *b);
/* Hand the bytes over (caller frees with free()); b is re-initialised. */
char *mw_jbuf_detach(struct mw_jbuf *b, size_t *len);
/* Make room for n more bytes. */
void mw_jbuf_reserve(struct mw_jbuf *b, size_t n);

void mw_j_raw(struct mw_jbuf *b, const char *s, size_t n);
void mw_j_lit(struct mw_jbuf *b, const char *s);	/* raw, NUL-terminated */
void mw_j_char(struct mw_jbuf *b, char c);
/* A JSON string: quotes, escapes; invalid UTF-8 becomes U+FFFD, so the
 * output is always valid JSON whatever the input bytes. */
void mw_j_str(struct mw_jbuf *b, const char *s);
void mw_j_strn(struct mw_jbuf *b, const char *s, size_t n);
/* "key": */
void mw_j_key(struct mw_jbuf *b, const char *key);
void mw_j_int(struct mw_jbuf *b, int64_t v);
void mw_j_uint(struct mw_jbuf *b, uint64_t v);
/* A number; NaN and infinities are written as null.  Integral values
 * below 2^53 take the integer path; others the shortest of %.15g/%.17g
 * that reads back exactly. */
void mw_j_double(struct mw_jbuf *b, double v);
void mw_j_bool(struct mw_jbuf *b, int v);
void mw_j_null(struct mw_jbuf *b);

/* ---- the structure writer ---- */

/* Nesting deeper than this is a programming error (abort): the composed
 * documents are five levels deep at most. */
#define MW_JW_MAX_DEPTH 32

struct mw_jw {
	struct mw_jbuf *b;	/* borrowed */
	unsigned depth;		/* open objects and arrays */
	uint32_t in_array;	/* bit d: level d+1 is an array, else an object */
	uint32_t has_member;	/* bit d: level d+1 has a member already */
};

/* Write into b, after whatever b holds (a fragment or a whole document). */
void mw_jw_init(struct mw_jw *w, struct mw_jbuf *b);

/*
 * Every value and every open takes a key: the member's name inside an
 * object, NULL inside an array and at the top.  The writer puts the comma
 * before it and the colon after the key.  A key in an array, no key in an
 * object or an end with nothing open is a programming error: it aborts
 * with a message rather than write invalid JSON.
 */
void mw_jw_object(struct mw_jw *w, const char *key);
void mw_jw_array(struct mw_jw *w, const char *key);
void mw_jw_end(struct mw_jw *w);	/* closes the innermost object or array */

void mw_jw_str(struct mw_jw *w, const char *key, const char *s);	/* NULL: null */
void mw_jw_int(struct mw_jw *w, const char *key, int64_t v);
void mw_jw_uint(struct mw_jw *w, const char *key, uint64_t v);
void mw_jw_double(struct mw_jw *w, const char *key, double v);	/* not finite: null */
void mw_jw_bool(struct mw_jw *w, const char *key, int v);
void mw_jw_null(struct mw_jw *w, const char *key);
/* A value already written as JSON (json[0..n), e.g. a fragment written
 * earlier by another mw_jw), copied as it is. */
void mw_jw_json(struct mw_jw *w, const char *key, const char *json, size_t n);

/* ---- number formatting ---- */

/* Format into buf (at least 24 bytes); return the length.  Shared with
 * the CSV and Prometheus writers. */
size_t mw_fmt_int(char *buf, int64_t v);
size_t mw_fmt_uint(char *buf, uint64_t v);
/* Like mw_j_double but into buf (at least 32 bytes); NaN/inf give
 * "NaN", "+Inf", "-Inf" (the Prometheus spelling). */
size_t mw_fmt_double(char *buf, double v);

#endif
