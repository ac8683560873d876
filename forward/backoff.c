/* backoff.c - see backoff.h. */
#include "backoff.h"

enum mw_rw_outcome mw_rw_classify(int status)
{
	if (status >= 200 && status < 300)
		return MW_RW_ACCEPTED;
	if (status >= 400 && status < 500) {
		switch (status) {
		case 401:	/* credentials */
		case 403:
		case 404:	/* endpoint */
		case 405:
		case 407:
		case 408:	/* request timeout: nothing wrong with the data */
		case 421:
		case 429:	/* too many requests */
			return MW_RW_RETRY;
		default:
			return MW_RW_SKIP;
		}
	}
	return MW_RW_RETRY;	/* 0 (no answer), 1xx, 3xx, 5xx, nonsense */
}

const char *mw_rw_outcome_name(enum mw_rw_outcome o)
{
	switch (o) {
	case MW_RW_ACCEPTED:
		return "accepted";
	case MW_RW_SKIP:
		return "skip";
	case MW_RW_RETRY:
		return "retry";
	}
	return "?";
}

int64_t mw_rw_backoff_ms(unsigned attempt, int64_t min_ms, int64_t max_ms, uint32_t rnd)
{
	int64_t d = min_ms > 0 ? min_ms : 1;
	unsigned i;

	if (max_ms < d)
		max_ms = d;
	for (i = 1; i < attempt && d < max_ms; i++)
		d *= 2;	/* min_ms < 2^62 after the cap, no overflow */
	if (d > max_ms)
		d = max_ms;
	return d / 2 + (int64_t)((double)(d - d / 2) * ((double)rnd / 4294967295.0));
}

uint32_t mw_rw_rand(uint64_t *state)
{
	uint64_t x = *state ? *state : 0x9E3779B97F4A7C15ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return (uint32_t)(x >> 32);
}
