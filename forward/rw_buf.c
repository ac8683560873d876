/*
 * rw_buf.c - the remote-write byte buffer (rw_buf.h).
 *
 * Owned by the forwarder (forward/).  Doubling growth from 4 KiB: a batch's
 * body is built many times, so the buffer settles at the largest size seen.
 */
#include <stdint.h>
#include <stdlib.h>

#include "forward/rw_buf.h"

void mw_rw_buf_release(struct mw_rw_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int mw_rw_buf_reserve(struct mw_rw_buf *b, size_t cap, struct mw_err *err)
{
	size_t ncap;
	unsigned char *p;

	if (cap <= b->cap && b->data)
		return 0;
	ncap = b->cap ? b->cap : 4096;
	while (ncap < cap) {
		if (ncap > SIZE_MAX / 2) {
			ncap = cap;
			break;
		}
		ncap *= 2;
	}
	p = realloc(b->data, ncap);
	if (!p)
		return mw_error(err, "out of memory for a %zu-byte remote-write buffer", ncap);
	b->data = p;
	b->cap = ncap;
	return 0;
}
