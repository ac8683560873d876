/* bench_collectors.c - cost of the pure work behind the Windows
 * collectors, on generated buffers: a 300-process "230" performance-data
 * snapshot parsed and computed (target <= 1 ms), working-set pages
 * classified per second, and the address-space summary.  The VirtualQueryEx
 * walk itself is timed under Wine by tests/test_collectors_wine_win32.c. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/perfdata.h"
#include "tests/support/perfdata_build.h"
#include "collectors/vmmap.h"
#include "collectors/workingset.h"
#include "base/clock.h"

static double now_ms(void)
{
	return (double)mw_clock_mono_ns() / 1e6;
}

static void bench_perfdata(void)
{
	size_t l0, l1, i, k, c, vals = 0;
	unsigned char *b0 = mw_pdbb_sample_snapshot(0, 300, &l0);
	unsigned char *b1 = mw_pdbb_sample_snapshot(1, 300, &l1);
	struct mw_perf_snapshot s0, s1;
	struct mw_err err;
	const int iters = 2000;
	double t0, best = 1e9;

	if (mw_perf_snapshot_parse(&s0, b0, l0, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		exit(1);
	}
	for (int it = 0; it < iters; it++) {
		t0 = now_ms();
		if (mw_perf_snapshot_parse(&s1, b1, l1, &err))
			exit(1);
		vals = 0;
		for (k = 0; k < s1.nobjects; k++) {
			const struct mw_perf_object *o = &s1.objects[k];
			const struct mw_perf_object *po = mw_perf_snapshot_object(&s0, o->name_index);

			for (i = 0; i < o->ninstances; i++) {
				bool ch;
				const struct mw_perf_instance *pin =
					po ? mw_perf_match_instance(&s1, o, &o->instances[i], &s0, po, &ch) : NULL;

				for (c = 0; c < o->ncounters; c++) {
					struct mw_perf_raw_sample r, pr;
					double v;

					if (mw_perf_raw_sample_get(&s1, o, &o->instances[i], c, &r))
						continue;
					if (pin && !mw_perf_raw_sample_get(&s0, po, pin, c, &pr))
						vals += mw_perf_compute(&r, &pr, &v) == MW_PERF_VALUE;
				}
			}
		}
		mw_perf_snapshot_release(&s1);
		if (now_ms() - t0 < best)
			best = now_ms() - t0;
	}
	printf("perfdata: 300-process snapshot (%zu bytes), parse + %zu values computed: "
	       "best %.3f ms (target <= 1 ms)\n", l1, vals, best);
	mw_perf_snapshot_release(&s0);
	free(b0);
	free(b1);
}

static void bench_workingset(void)
{
	const size_t npages = 1u << 20, nalloc = 4096;
	struct mw_vm_regions v = { 0 };
	struct mw_ws_page *pg = malloc(npages * sizeof(*pg));
	struct mw_ws_result r = { 0 };
	struct mw_ws_range heap = { 0x10000000, 1, 0 };
	struct mw_ws_input in = { &v, NULL, 0, &heap, NULL, 1, 0, 4096 };
	uint64_t x = 88172645463325252ULL;
	double t0, ms;
	size_t i;

	v.lo = 0x10000000;
	v.hi = v.lo + nalloc * 0x100000ULL;
	for (i = 0; i < nalloc; i++)
		mw_vm_regions_add(&v, v.lo + i * 0x100000ULL, 0x100000, v.lo + i * 0x100000ULL,
				  MW_VM_COMMIT, (int)(i % 3), 0);
	for (i = 0; i < npages; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		pg[i].va = v.lo + (x % (nalloc * 256)) * 4096;
		pg[i].share_count = (uint8_t)(x >> 60) & 7;
		pg[i].shareable = (x >> 59) & 1;
	}
	t0 = now_ms();
	mw_ws_classify(&in, pg, npages, &r);
	ms = now_ms() - t0;
	printf("workingset: %zu pages in %zu allocations classified in %.1f ms: %.1f M pages/s\n",
	       npages, nalloc, ms, (double)npages / ms / 1000.0);
	mw_ws_result_release(&r);
	mw_vm_regions_release(&v);
	free(pg);
}

int main(void)
{
	bench_perfdata();
	bench_workingset();
	return 0;
}
