/* xorshift.c - see xorshift.h. */
#include "xorshift.h"

uint64_t mw_xorshift(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

uint32_t mw_xorshift_below(uint64_t *state, uint32_t n)
{
	return (uint32_t)(mw_xorshift(state) % n);
}

double mw_xorshift_unit(uint64_t *state)
{
	return (double)(mw_xorshift(state) >> 11) / 9007199254740992.0;
}
