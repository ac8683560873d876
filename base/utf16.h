/*
 * utf16.h - UTF-16LE to UTF-8, the one copy: Windows' own text (process
 * names in the NT process list, perflib's counter and instance names) and
 * files saved as "Unicode" (typeperf and relog output read by import).
 *
 * A surrogate without its pair becomes U+FFFD, so the result is always
 * valid UTF-8.  Two forms: a decoder fed one code unit at a time (for
 * input read in pieces, where a pair may straddle two reads) and a
 * whole-buffer conversion built on it.  Pure and thread-safe.
 */
#ifndef MW_BASE_UTF16_H
#define MW_BASE_UTF16_H

#include <stddef.h>
#include <stdint.h>

/* Most bytes one code unit can produce: a U+FFFD for a high surrogate left
 * unpaired, then the character the unit itself starts. */
#define MW_UTF16_UNIT_MAX 6

struct mw_utf16_decoder {
	uint16_t high;	/* a high surrogate waiting for its low half; 0: none */
};

/* Feed one code unit; writes 0..MW_UTF16_UNIT_MAX bytes at out (no NUL)
 * and returns how many. */
size_t mw_utf16_feed(struct mw_utf16_decoder *d, uint16_t unit, char *out);

/* The end of the input: a high surrogate still waiting becomes U+FFFD
 * (0 or 3 bytes written at out). */
size_t mw_utf16_finish(struct mw_utf16_decoder *d, char *out);

/* Convert n code units of UTF-16LE at in (stopping at a NUL unit) into
 * out as NUL-terminated UTF-8, never cutting a character: when the next
 * one does not fit in out_size bytes the text ends before it.  Returns the
 * length written.  out_size >= n * 3 + 1 always holds all of it. */
size_t mw_utf16le_decode(const unsigned char *in, size_t n, char *out, size_t out_size);

#endif
