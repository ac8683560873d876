/*
 * backoff.h - what the forwarder does after one remote-write request, and
 * how long it waits before the next attempt.  Pure functions (no clock,
 * no random source of their own), tested in tests/test_forward.c.
 *
 * Owned by the forwarder (forward/).
 */
#ifndef MW_FORWARD_BACKOFF_H
#define MW_FORWARD_BACKOFF_H

#include <stdint.h>

enum mw_rw_outcome {
	MW_RW_ACCEPTED,	/* 2xx: advance the cursor */
	MW_RW_SKIP,	/* the receiver refused these samples for good: log it,
			 * count the batch, advance past it (never an endless loop) */
	MW_RW_RETRY,	/* try the same batch again after a backoff */
};

/*
 * status is the HTTP status, 0 when no answer arrived (refused, timed
 * out, TLS).  2xx accepted; 429, 5xx and no answer retried, as the
 * remote-write specification asks.  Other 4xx are about the samples
 * (400 out of order, too old, bad labels; 413 too large; 422) and skip
 * the batch - except the ones about the endpoint or our credentials
 * (401, 403, 404, 405, 407, 408, 421): resending the same batch is right
 * once the configuration or the receiver is fixed, and dropping every
 * batch meanwhile would lose all of them.  1xx and 3xx (a redirect we do
 * not follow) are endpoint problems too: retried.
 */
enum mw_rw_outcome mw_rw_classify(int status);
const char *mw_rw_outcome_name(enum mw_rw_outcome o);

#define MW_RW_MIN_BACKOFF_MS 250

/*
 * The wait before retry number `attempt` (1 for the first retry):
 * min_ms doubled per attempt, capped at max_ms, then "equal jitter": half
 * of it fixed, the other half scaled by rnd (0 .. UINT32_MAX), so many
 * memwatch instances that lost one receiver together do not come back in
 * step.  Always within [d/2, d] where d = min(max_ms, min_ms << (attempt-1)).
 */
int64_t mw_rw_backoff_ms(unsigned attempt, int64_t min_ms, int64_t max_ms, uint32_t rnd);

/* A small xorshift generator for the jitter (state must not be 0). */
uint32_t mw_rw_rand(uint64_t *state);

#endif
