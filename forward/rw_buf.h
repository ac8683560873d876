/*
 * rw_buf.h - the growable byte buffer the remote-write encoder and the
 * snappy codec write into, reused between batches.
 *
 * Owned by the forwarder (forward/); used by rw_wire.c and snappy.c.
 */
#ifndef MW_FORWARD_RW_BUF_H
#define MW_FORWARD_RW_BUF_H

#include <stddef.h>
#include "base/mwerr.h"

/* A growable byte buffer the encoder reuses between batches. */
struct mw_rw_buf {
	unsigned char *data;
	size_t len, cap;
};

void mw_rw_buf_release(struct mw_rw_buf *b);

/* Make room for at least `cap` bytes (keeps the contents).  -1 with a
 * message when out of memory. */
int mw_rw_buf_reserve(struct mw_rw_buf *b, size_t cap, struct mw_err *err);

#endif
