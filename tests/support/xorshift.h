/*
 * xorshift.h - the one pseudo-random generator of the tests and benches
 * (Marsaglia's xorshift64, shifts 13/7/17): reproducible data from a seed
 * a file keeps itself, so each program draws the same sequence every run.
 */
#ifndef MW_TESTS_SUPPORT_XORSHIFT_H
#define MW_TESTS_SUPPORT_XORSHIFT_H

#include <stdint.h>

/* Advance *state (never 0) one step and return the new state. */
uint64_t mw_xorshift(uint64_t *state);

/* The next draw reduced to [0, n) (n > 0). */
uint32_t mw_xorshift_below(uint64_t *state, uint32_t n);

/* The next draw as a double in [0, 1), from its top 53 bits. */
double mw_xorshift_unit(uint64_t *state);

#endif
