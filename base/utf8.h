/*
 * utf8.h - UTF-8, the one copy: checking it (strict: no overlong forms,
 * no surrogates, nothing above U+10FFFF) and writing a code point.
 *
 * Used wherever text from outside must be valid before it goes on:
 * the JSON writer (json_out.c), request parameters (core/params.c), the
 * /metrics text (web/), remote-write labels (forward/), answers shown to
 * people (forward/rw_transport.c), and the UTF-16 decoder (utf16.c).
 * Pure and thread-safe.
 */
#ifndef MW_BASE_UTF8_H
#define MW_BASE_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Longest UTF-8 form of one code point. */
#define MW_UTF8_MAX 4

/* Length (1..4) of the valid UTF-8 character at s, which has n >= 1 bytes
 * left; 0 when it is not one (a stray or truncated sequence, an overlong
 * form, a surrogate, a code point over U+10FFFF). */
size_t mw_utf8_char_len(const unsigned char *s, size_t n);

/* Length of the longest valid UTF-8 prefix of s[0..n); == n when valid. */
size_t mw_utf8_valid_prefix(const char *s, size_t n);

/* Whether the NUL-terminated s is valid UTF-8. */
bool mw_utf8_valid(const char *s);

/* Write code point cp (at most U+10FFFF, not a surrogate) as UTF-8 at out,
 * which has room for MW_UTF8_MAX bytes; returns the bytes written (no NUL). */
size_t mw_utf8_put(char *out, uint32_t cp);

#endif
