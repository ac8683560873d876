/*
 * utf16.h - UTF-16LE text, as Windows structures carry it (process image
 * names in SYSTEM_PROCESS_INFORMATION, perflib instance names and
 * titles), to UTF-8.  Pure and portable: the parsers that use it
 * (process_spi.c, perfdata_text.c) are tested on every platform.
 */
#ifndef MW_COLLECTORS_UTF16_H
#define MW_COLLECTORS_UTF16_H

#include <stddef.h>
#include <stdint.h>

/* UTF-16LE (n code units, unaligned) to UTF-8, NUL-terminated: stops at
 * a NUL unit, cut at out_size (never inside a character); unpaired
 * surrogates become U+FFFD. */
void mw_utf16le_to_utf8(const unsigned char *in, size_t n, char *out, size_t out_size);

#endif
