/*
 * snappy.h - snappy block compression, the remote-write body's framing.
 *
 * Owned by the forwarder (forward/); used by rw_wire.c (compress) and the
 * tests (both ways).  Pure: no I/O.
 */
#ifndef MW_FORWARD_SNAPPY_H
#define MW_FORWARD_SNAPPY_H

#include <stddef.h>
#include "base/mwerr.h"
#include "forward/rw_buf.h"

/* Snappy block compression of in[0..len) into `out`; and its inverse
 * (tests, and reading a receiver's compressed answer if ever needed).
 * -1 with a message on a malformed block. */
int mw_rw_snappy_compress(const unsigned char *in, size_t len, struct mw_rw_buf *out,
			  struct mw_err *err);
int mw_rw_snappy_uncompress(const unsigned char *in, size_t len, struct mw_rw_buf *out,
			    struct mw_err *err);

#endif
