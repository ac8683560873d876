/*
 * bench_rw_wire.c - the remote-write body: encoding a batch shaped like
 * the forwarder's (per-process series, 4 labels, a minute of 5 s samples)
 * and snappy-compressing it.
 *
 *   memcpy          the baseline, in the same run: copying the protobuf's
 *                   bytes once (what any encoder must at least write)
 *   protobuf        mw_rw_encode_protobuf (checks, UTF-8, two passes)
 *   snappy          mw_rw_snappy_compress of that protobuf
 *   encode          mw_rw_encode: both, what the forwarder calls
 *   libsnappy       Debian's libsnappy on the same protobuf, when
 *                   libsnappy.so.1 is installed (loaded at run time, so
 *                   the build needs no libsnappy): the figures behind
 *                   choosing our own compressor (forward/snappy.c)
 *
 * Best of ROUNDS (the variants in turn in each round); points/s, bytes per point on the wire, ratios to memcpy
 * (time) and to libsnappy (size, time).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <dlfcn.h>
#endif

#include "base/clock.h"
#include "forward/rw_wire.h"
#include "tests/support/xorshift.h"

#define ROUNDS 15
#define NPROC 500
#define NMETRIC 6
#define NSAMPLE 12
#define NSERIES (NPROC * NMETRIC)
#define NPOINTS ((double)NSERIES * NSAMPLE)

static const char *const metric[NMETRIC] = {
	"memwatch_process_working_set_bytes", "memwatch_process_private_bytes",
	"memwatch_process_virtual_bytes", "memwatch_process_pagefile_bytes",
	"memwatch_process_handles", "memwatch_process_threads",
};

static struct mw_rw_label labels[NSERIES][4];
static struct mw_rw_sample samples[NSERIES][NSAMPLE];
static struct mw_rw_series series[NSERIES];
static char pids[NPROC][12], names[NPROC][32];

static uint64_t rng = 88172645463325252ULL;

static void build(void)
{
	static const char *const exe[] = { "cl.exe", "link.exe", "MSBuild.exe", "java.exe",
					   "node.exe", "svchost.exe", "chrome.exe", "sqlservr.exe" };
	int64_t t0 = 1763850000000LL;

	for (int p = 0; p < NPROC; p++) {
		snprintf(pids[p], sizeof(pids[p]), "%d", 1000 + 4 * p);
		snprintf(names[p], sizeof(names[p]), "%s", exe[mw_xorshift(&rng) % 8]);
		for (int m = 0; m < NMETRIC; m++) {
			struct mw_rw_series *s = &series[p * NMETRIC + m];
			struct mw_rw_label *l = labels[p * NMETRIC + m];
			struct mw_rw_sample *sm = samples[p * NMETRIC + m];
			double v = m < 4 ? (double)(4096 * (mw_xorshift(&rng) % 250000))
					 : (double)(mw_xorshift(&rng) % 2000);

			/* sorted by name, __name__ first */
			l[0] = (struct mw_rw_label){ "__name__", metric[m] };
			l[1] = (struct mw_rw_label){ "host", "build-agent-12" };
			l[2] = (struct mw_rw_label){ "pid", pids[p] };
			l[3] = (struct mw_rw_label){ "process", names[p] };
			for (int i = 0; i < NSAMPLE; i++) {
				/* half the samples unchanged, the rest a few pages off */
				if (mw_xorshift(&rng) % 2)
					v += m < 4 ? 4096.0 * (double)(mw_xorshift(&rng) % 64) - 4096.0 * 20
						   : (double)(mw_xorshift(&rng) % 5) - 2;
				if (v < 0)
					v = 0;
				sm[i] = (struct mw_rw_sample){ t0 + 5000 * i + (int64_t)(mw_xorshift(&rng) % 7),
							       v };
			}
			*s = (struct mw_rw_series){ l, 4, sm, NSAMPLE };
		}
	}
}

static double now_s(void)
{
	return (double)mw_clock_mono_ns() / 1e9;
}

static void die(const char *what, const struct mw_err *err)
{
	fprintf(stderr, "bench_rw_wire: %s: %s\n", what, err->msg);
	exit(1);
}

/* Time `reps` runs of body; keep the best per-run time in var.  The
 * variants are measured in turn within each round, so a busy moment on a
 * shared machine hits them alike. */
#define TIME(var, reps, body)                                        \
	do {                                                           \
		double t_ = now_s();                                   \
		for (int k_ = 0; k_ < (reps); k_++) {                  \
			body;                                          \
		}                                                      \
		t_ = (now_s() - t_) / (reps);                          \
		if (t_ < var)                                          \
			var = t_;                                      \
	} while (0)

typedef int (*snappy_fn)(const char *, size_t, char *, size_t *);
typedef size_t (*snappy_max_fn)(size_t);

int main(void)
{
	struct mw_rw_buf pb = { 0 }, out = { 0 }, sn = { 0 };
	struct mw_err err;
	unsigned char *copy;
	volatile unsigned char sink = 0;
	double t_copy, t_pb, t_sn, t_enc, t_lib;
	const int reps = 10;
	snappy_fn lib_compress = NULL;
	snappy_max_fn lib_max = NULL;
	char *lbuf = NULL;
	size_t llen = 0;
#ifndef _WIN32
	void *h;
#endif

	build();
	if (mw_rw_encode(series, NSERIES, &pb, &out, &err) < 0)
		die("encode", &err);
	copy = malloc(pb.len);
	if (!copy)
		return 1;

#ifndef _WIN32
	h = dlopen("libsnappy.so.1", RTLD_NOW);
	if (h) {
		lib_compress = (snappy_fn)dlsym(h, "snappy_compress");
		lib_max = (snappy_max_fn)dlsym(h, "snappy_max_compressed_length");
		if (!lib_compress || !lib_max)
			return 1;
		lbuf = malloc(lib_max(pb.len));
		if (!lbuf)
			return 1;
	}
#endif
	t_copy = t_pb = t_sn = t_enc = t_lib = 1e30;
	for (int round = 0; round < ROUNDS; round++) {
		TIME(t_copy, reps * 10, { memcpy(copy, pb.data, pb.len); sink ^= copy[k_ % pb.len]; });
		TIME(t_pb, reps, {
			if (mw_rw_encode_protobuf(series, NSERIES, &pb, &err) < 0)
				die("protobuf", &err);
		});
		TIME(t_sn, reps, {
			if (mw_rw_snappy_compress(pb.data, pb.len, &sn, &err) < 0)
				die("snappy", &err);
		});
		TIME(t_enc, reps, {
			if (mw_rw_encode(series, NSERIES, &pb, &out, &err) < 0)
				die("encode", &err);
		});
		if (lib_compress)
			TIME(t_lib, reps, {
				llen = lib_max(pb.len);
				if (lib_compress((const char *)pb.data, pb.len, lbuf, &llen) != 0)
					return 1;
			});
	}

	printf("batch: %d series x %d samples = %.0f points, protobuf %zu bytes (%.1f B/point), "
	       "snappy %zu bytes (%.2f B/point on the wire, %.1f%% of the protobuf)\n",
	       NSERIES, NSAMPLE, NPOINTS, pb.len, (double)pb.len / NPOINTS, out.len,
	       (double)out.len / NPOINTS, 100.0 * (double)out.len / (double)pb.len);
	printf("memcpy of the protobuf (baseline): %8.3f ms  %7.1f M points/s  %6.0f MB/s\n",
	       t_copy * 1e3, NPOINTS / t_copy / 1e6, (double)pb.len / t_copy / 1e6);
	printf("protobuf encode:                   %8.3f ms  %7.1f M points/s  %6.0f MB/s  %5.1fx memcpy\n",
	       t_pb * 1e3, NPOINTS / t_pb / 1e6, (double)pb.len / t_pb / 1e6, t_pb / t_copy);
	printf("snappy compress (ours):            %8.3f ms  %7.1f M points/s  %6.0f MB/s  %5.1fx memcpy\n",
	       t_sn * 1e3, NPOINTS / t_sn / 1e6, (double)pb.len / t_sn / 1e6, t_sn / t_copy);
	printf("encode + compress (mw_rw_encode):  %8.3f ms  %7.1f M points/s  %6.0f MB/s  %5.1fx memcpy\n",
	       t_enc * 1e3, NPOINTS / t_enc / 1e6, (double)pb.len / t_enc / 1e6, t_enc / t_copy);

	if (lib_compress) {
		printf("libsnappy compress:                %8.3f ms  %7.1f M points/s  %6.0f MB/s  %5.1fx memcpy\n",
		       t_lib * 1e3, NPOINTS / t_lib / 1e6, (double)pb.len / t_lib / 1e6,
		       t_lib / t_copy);
		printf("ours vs libsnappy: size %zu vs %zu bytes (%.3fx), time %.2fx\n", sn.len,
		       llen, (double)sn.len / (double)llen, t_sn / t_lib);
	} else {
		printf("libsnappy: libsnappy.so.1 not installed, no comparison\n");
	}
#ifndef _WIN32
	free(lbuf);
	if (h)
		dlclose(h);
#endif
	(void)sink;
	free(copy);
	mw_rw_buf_release(&pb);
	mw_rw_buf_release(&out);
	mw_rw_buf_release(&sn);
	return 0;
}
