/*
 * rw_wire.h - the Prometheus remote-write 1.0 body: a WriteRequest
 * protobuf message, snappy block compressed.
 *
 * Owned by the forwarder (forward/).  Pure: no I/O, tested on constructed
 * series and by decoding what it produced.  The messages, as we describe
 * them (field numbers are the protocol's):
 *
 *   WriteRequest { repeated TimeSeries timeseries = 1; }
 *   TimeSeries   { repeated Label labels = 1; repeated Sample samples = 2; }
 *   Label        { string name = 1; string value = 2; }
 *   Sample       { double value = 1; int64 timestamp = 2; }   // ms
 *
 * Labels of a series are sent sorted by name with `__name__` first
 * (it sorts first anyway), as the receivers expect.
 */
#ifndef MW_FORWARD_RW_WIRE_H
#define MW_FORWARD_RW_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include "base/mwerr.h"
#include "forward/rw_buf.h"
#include "forward/snappy.h"

struct mw_rw_label {
	const char *name;
	const char *value;
};

struct mw_rw_sample {
	int64_t ts_ms;
	double value;
};

struct mw_rw_series {
	const struct mw_rw_label *labels;	/* sorted by name, incl. __name__ */
	size_t nlabels;
	const struct mw_rw_sample *samples;	/* ascending ts */
	size_t nsamples;
};

/* Encode the WriteRequest for `n` series into `pb` (replacing its
 * contents), then snappy-compress it into `out` (replacing its contents).
 * 0, or -1 with a message naming the series and label (a series without
 * labels, a label with an empty name or a NULL value, labels not sorted
 * by name or a name twice, a name or value that is not valid UTF-8 -
 * receivers refuse such strings -, a body over the snappy block limit). */
int mw_rw_encode(const struct mw_rw_series *series, size_t n, struct mw_rw_buf *pb,
		 struct mw_rw_buf *out, struct mw_err *err);

/* The protobuf part alone (into `pb`), for tests and benchmarks. */
int mw_rw_encode_protobuf(const struct mw_rw_series *series, size_t n, struct mw_rw_buf *pb,
			  struct mw_err *err);

#endif
