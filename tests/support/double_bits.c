/* double_bits.c - see double_bits.h.  Through a union: C11 defines the
 * reinterpretation of the stored bytes. */
#include "double_bits.h"

union mw_double_bits {
	double v;
	uint64_t bits;
};

uint64_t mw_test_bits_of(double v)
{
	return ((union mw_double_bits){ .v = v }).bits;
}

double mw_test_from_bits(uint64_t bits)
{
	return ((union mw_double_bits){ .bits = bits }).v;
}
