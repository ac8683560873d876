/* json_out.c - see json_out.h. */
#include "base/json_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "base/xalloc.h"

void mw_jbuf_init(struct mw_jbuf *b)
{
	b->cap = 256;
	b->p = mw_xmalloc(b->cap);
	b->p[0] = '\0';
	b->len = 0;
}

void mw_jbuf_release(struct mw_jbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

char *mw_jbuf_detach(struct mw_jbuf *b, size_t *len)
{
	char *p = b->p;

	if (len)
		*len = b->len;
	mw_jbuf_init(b);
	return p;
}

void mw_jbuf_reserve(struct mw_jbuf *b, size_t n)
{
	size_t need = b->len + n + 1;

	if (need <= b->cap)
		return;
	while (b->cap < need)
		b->cap = b->cap < 4096 ? 4096 : b->cap * 2;
	b->p = mw_xrealloc(b->p, b->cap);
}

void mw_j_raw(struct mw_jbuf *b, const char *s, size_t n)
{
	mw_jbuf_reserve(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void mw_j_lit(struct mw_jbuf *b, const char *s)
{
	mw_j_raw(b, s, strlen(s));
}

void mw_j_char(struct mw_jbuf *b, char c)
{
	mw_jbuf_reserve(b, 1);
	b->p[b->len++] = c;
	b->p[b->len] = '\0';
}

void mw_j_strn(struct mw_jbuf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, run, k;
	char *o;

	/* Worst case 6 bytes out per byte in; reserve once. */
	mw_jbuf_reserve(b, n * 6 + 2);
	o = b->p + b->len;
	*o++ = '"';
	while (i < n) {
		run = i;
		while (run < n && u[run] >= 0x20 && u[run] < 0x80 &&
		       u[run] != '"' && u[run] != '\\')
			run++;
		memcpy(o, s + i, run - i);
		o += run - i;
		i = run;
		if (i >= n)
			break;
		if (u[i] >= 0x80) {
			k = mw_utf8_char_len(u + i, n - i);
			if (k) {
				memcpy(o, s + i, k);
				o += k;
				i += k;
			} else {
				memcpy(o, "\xEF\xBF\xBD", 3);	/* U+FFFD */
				o += 3;
				i++;
			}
			continue;
		}
		*o++ = '\\';
		switch (u[i]) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '\n': *o++ = 'n'; break;
		case '\r': *o++ = 'r'; break;
		case '\t': *o++ = 't'; break;
		default:
			*o++ = 'u';
			*o++ = '0';
			*o++ = '0';
			*o++ = hex[u[i] >> 4];
			*o++ = hex[u[i] & 15];
			break;
		}
		i++;
	}
	*o++ = '"';
	*o = '\0';
	b->len = (size_t)(o - b->p);
}

void mw_j_str(struct mw_jbuf *b, const char *s)
{
	if (!s) {
		mw_j_null(b);
		return;
	}
	mw_j_strn(b, s, strlen(s));
}

void mw_j_key(struct mw_jbuf *b, const char *key)
{
	mw_j_str(b, key);
	mw_j_char(b, ':');
}

size_t mw_fmt_uint(char *buf, uint64_t v)
{
	static const char digits[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char tmp[24];
	char *p = tmp + sizeof(tmp);
	size_t len;

	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;

		v /= 100;
		*--p = digits[d + 1];
		*--p = digits[d];
	}
	if (v >= 10) {
		unsigned d = (unsigned)v * 2;

		*--p = digits[d + 1];
		*--p = digits[d];
	} else {
		*--p = (char)('0' + v);
	}
	len = (size_t)(tmp + sizeof(tmp) - p);
	memcpy(buf, p, len);
	buf[len] = '\0';
	return len;
}

size_t mw_fmt_int(char *buf, int64_t v)
{
	if (v < 0) {
		buf[0] = '-';
		/* Negate in unsigned arithmetic: INT64_MIN has no positive twin. */
		return 1 + mw_fmt_uint(buf + 1, (uint64_t)0 - (uint64_t)v);
	}
	return mw_fmt_uint(buf, (uint64_t)v);
}

size_t mw_fmt_double(char *buf, double v)
{
	int n;

	if (isnan(v)) {
		memcpy(buf, "NaN", 4);
		return 3;
	}
	if (isinf(v)) {
		memcpy(buf, v > 0 ? "+Inf" : "-Inf", 5);
		return 4;
	}
	if (v == floor(v) && fabs(v) < 9007199254740992.0) {
		if (v == 0 && signbit(v))
			v = 0;	/* "-0" is noise here */
		return mw_fmt_int(buf, (int64_t)v);
	}
	n = snprintf(buf, 32, "%.15g", v);
	if (strtod(buf, NULL) != v)
		n = snprintf(buf, 32, "%.17g", v);
	return (size_t)n;
}

void mw_j_int(struct mw_jbuf *b, int64_t v)
{
	mw_jbuf_reserve(b, 24);
	b->len += mw_fmt_int(b->p + b->len, v);
}

void mw_j_uint(struct mw_jbuf *b, uint64_t v)
{
	mw_jbuf_reserve(b, 24);
	b->len += mw_fmt_uint(b->p + b->len, v);
}

void mw_j_double(struct mw_jbuf *b, double v)
{
	if (!isfinite(v)) {
		mw_j_null(b);
		return;
	}
	mw_jbuf_reserve(b, 32);
	b->len += mw_fmt_double(b->p + b->len, v);
}

void mw_j_bool(struct mw_jbuf *b, int v)
{
	mw_j_lit(b, v ? "true" : "false");
}

void mw_j_null(struct mw_jbuf *b)
{
	mw_j_raw(b, "null", 4);
}
