/*
 * fuzz_leak_trace.c - libFuzzer target for the leak judge
 * (analysis/leak.c): any trace of floors a database can hold, with holes
 * (NaN), infinities, negative and huge values, any step and start, must
 * get a verdict with a reason, never a crash or undefined behaviour.
 *
 * Input: byte 0 picks the step (1 s, 5 s, 1 min, 1 h, or 0 / negative /
 * huge), byte 1 the parameters (bit 0 a count trace, bit 1 no onset
 * search, bit 2 no warm-up and a 1-minute minimum, bit 3 raw doubles),
 * then the values: little-endian 16-bit steps of 4 KiB around 40 MiB
 * (0x8000 NaN, 0x7fff +inf, 0x8001 -inf, 0x7ffe 1e300), or with bit 3
 * raw 8-byte doubles.  Built by scripts/fuzz.sh.
 */
#include <math.h>

#include "fuzz/fuzz_input.h"

#include "analysis/leak.h"

#define MAX_POINTS 20000

static int64_t step_of(uint8_t b)
{
	static const int64_t steps[] = { 1000, 5000, 60000, 3600000, 0, -1000, INT64_MAX / 2, 1 };

	return steps[b % (sizeof(steps) / sizeof(steps[0]))];
}

static double value16(const uint8_t *p)
{
	uint16_t u = (uint16_t)(p[0] | p[1] << 8);

	switch (u) {
	case 0x8000:
		return NAN;
	case 0x7fff:
		return INFINITY;
	case 0x8001:
		return -INFINITY;
	case 0x7ffe:
		return 1e300;
	default:
		return 40.0 * 1048576.0 + (double)(int16_t)u * 4096.0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mw_leak_params p;
	struct mw_leak_result res;
	struct mw_trace tr;
	double *v;
	size_t n, i, width;
	uint8_t flags;

	if (size < 2)
		return 0;
	flags = data[1];
	width = flags & 8 ? 8 : 2;
	n = (size - 2) / width;
	if (n > MAX_POINTS)
		n = MAX_POINTS;
	v = malloc((n ? n : 1) * sizeof(*v));
	for (i = 0; i < n; i++) {
		if (width == 8)
			memcpy(&v[i], data + 2 + 8 * i, 8);
		else
			v[i] = value16(data + 2 + 2 * i);
	}
	mw_leak_params_init(&p);
	if (flags & 1)
		p.count_unit = "handles";
	p.onset_unknown = (flags & 2) != 0;
	if (flags & 4) {
		p.warmup_ms = 0;
		p.min_duration_ms = 60000;
	}
	tr.t0_ms = 1700000000000LL;
	tr.step_ms = step_of(data[0]);
	tr.v = v;
	tr.n = n;
	mw_leak_judge(&tr, &p, &res);
	/* a verdict, named, with a reason */
	if (!mw_verdict_name(res.verdict) || !res.reason[0] ||
	    strnlen(res.reason, sizeof(res.reason)) >= sizeof(res.reason))
		abort();
	free(v);
	return 0;
}
