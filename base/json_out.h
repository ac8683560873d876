/*
 * json_out.h - a small streaming JSON writer into a growing buffer.
 *
 * cJSON is fine for small structured bodies, but it formats every number
 * that doesn't fit an int with sprintf("%1.15g") and keeps a node per
 * value; the columnar query and export bodies are big numeric arrays, so
 * they are written here directly (see /work/shared/notes/performance.md).
 *
 * Invariants: b->p is never NULL after mw_jbuf_init and is always
 * NUL-terminated; b->len excludes the NUL.  Allocation failure aborts
 * (xalloc).  The writer does not track commas: callers write them.
 * Any thread may use its own buffer.
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

/* Format into buf (at least 24 bytes); return the length.  Shared with
 * the CSV and Prometheus writers. */
size_t mw_fmt_int(char *buf, int64_t v);
size_t mw_fmt_uint(char *buf, uint64_t v);
/* Like mw_j_double but into buf (at least 32 bytes); NaN/inf give
 * "NaN", "+Inf", "-Inf" (the Prometheus spelling). */
size_t mw_fmt_double(char *buf, double v);

#endif
