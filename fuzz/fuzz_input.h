/*
 * fuzz_input.h - what every libFuzzer target here needs: the entry point's
 * declaration, the input as a private NUL-terminated copy (so ASan sees any
 * read past its end, and the C-string parsers get a string), and a sink
 * for writers that need a FILE.  Header-only: each target is one program
 * built by scripts/fuzz.sh.
 */
#ifndef MW_FUZZ_INPUT_H
#define MW_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input bytes followed by a NUL (inputs with a NUL inside simply end
 * there for the string parsers).  Free with free(). */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

/* /dev/null (NUL on Windows), opened once, for writers under test. */
static inline FILE *fuzz_null_out(void)
{
	static FILE *f;

	if (!f) {
#ifdef _WIN32
		f = fopen("NUL", "w");
#else
		f = fopen("/dev/null", "w");
#endif
	}
	return f;
}

#endif
