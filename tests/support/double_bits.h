/*
 * double_bits.h - a double's IEEE-754 bit pattern and back, for the codec
 * tests (test_codec, test_rw_wire) that compare values bit for bit (NaN
 * payloads, -0.0, the staleness marker) where == would not.
 */
#ifndef MW_TESTS_SUPPORT_DOUBLE_BITS_H
#define MW_TESTS_SUPPORT_DOUBLE_BITS_H

#include <stdint.h>

uint64_t mw_test_bits_of(double v);
double mw_test_from_bits(uint64_t bits);

#endif
