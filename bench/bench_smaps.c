/* bench_smaps.c - cost of the Linux workingset collector's pure part: a
 * generated /proc/PID/smaps text of 40,000 mappings (about 40 MB, the
 * kernel's format, a realistic mix of libraries, anonymous memory, arenas,
 * thread stacks and shared memory) parsed (target >= 100 MB/s) and
 * classified, against a baseline taken in the same run over the same
 * buffer: counting its lines with memchr.  Then the OS side for scale:
 * reading this process's own /proc/self/smaps.  The heap bar and the
 * address-space map on the same text (mw_smaps_uses, the bar, the vm
 * regions); and live, what procmaps' per-tick cache saves: heap, vmmap and
 * workingset of this process each reading its smaps, against one read
 * shared by the three. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectors/heap.h"
#include "collectors/procmaps.h"
#include "collectors/smaps.h"
#include "collectors/vmmap.h"
#include "collectors/workingset.h"
#include "base/clock.h"
#include "base/xalloc.h"

#define MAPPINGS 40000
#define ROUNDS 5

static double now_s(void)
{
	return (double)mw_clock_mono_ns() / 1e9;
}

static size_t ent(char *b, uint64_t start, uint64_t end, const char *perms, const char *path,
		  unsigned rss, unsigned priv)
{
	return (size_t)sprintf(
		b,
		"%012" PRIx64 "-%012" PRIx64 " %s 00000000 %s %-10u%s%s\n"
		"Size:           %8" PRIu64 " kB\nKernelPageSize:        4 kB\nMMUPageSize:           4 kB\n"
		"Rss:            %8u kB\nPss:            %8u kB\nPss_Dirty:             0 kB\n"
		"Shared_Clean:   %8u kB\nShared_Dirty:          0 kB\nPrivate_Clean:         0 kB\n"
		"Private_Dirty:  %8u kB\nReferenced:     %8u kB\nAnonymous:      %8u kB\n"
		"KSM:                   0 kB\nLazyFree:              0 kB\nAnonHugePages:         0 kB\n"
		"ShmemPmdMapped:        0 kB\nFilePmdMapped:         0 kB\nShared_Hugetlb:        0 kB\n"
		"Private_Hugetlb:       0 kB\nSwap:                  0 kB\nSwapPss:               0 kB\n"
		"Locked:                0 kB\nTHPeligible:           0\nVmFlags: rd wr mr mw me ac sd \n",
		start, end, perms, path[0] == '/' ? "fe:00" : "00:00", path[0] == '/' ? 131072u : 0u,
		path[0] ? "                 " : "", path, (end - start) / 1024, rss, priv + (rss - priv) / 3,
		rss - priv, priv, rss, path[0] == '/' ? 0 : priv);
}

static char *generate(size_t *len)
{
	size_t cap = (size_t)MAPPINGS * 1200, n = 0;
	char *b = mw_xmalloc(cap), lib[96];
	uint64_t a = 0x7f0000000000ULL;
	int i;

	for (i = 0; i < MAPPINGS; i++) {
		if (cap - n < 2048)
			break;
		switch (i % 8) {
		case 0: case 1: case 2:
			snprintf(lib, sizeof(lib), "/usr/lib/x86_64-linux-gnu/libgenerated%d.so.%d", i / 8, i % 3);
			n += ent(b + n, a, a + 0x20000, i % 8 == 1 ? "r-xp" : "r--p", lib, 64, 4);
			a += 0x20000;
			break;
		case 3:
			n += ent(b + n, a, a + 0x1000, "---p", "", 0, 0);
			n += ent(b + n, a + 0x1000, a + 0x801000, "rw-p", "", 32, 32);
			a += 0x801000;
			i++;
			break;
		case 5:
			n += ent(b + n, a, a + 0x100000, "rw-s", "/dev/shm/generated", 256, 0);
			a += 0x100000;
			break;
		default:
			n += ent(b + n, a, a + 0x40000, "rw-p", "", 200, 200);
			a += 0x40000;
			break;
		}
	}
	*len = n;
	return b;
}

int main(void)
{
	size_t len, lines = 0, r;
	char *text = generate(&len);
	struct mw_smaps s = { 0 };
	struct mw_ws_result res = { 0 };
	struct mw_smaps_totals tot;
	struct mw_smaps_facts f = { .pid = 1, .page_size = 4096, .exe = "/usr/bin/generated" };
	struct mw_err err = { "" };
	double base = 1e9, parse = 1e9, cls = 1e9, t0;
	double mb = (double)len / 1e6;

	for (r = 0; r < ROUNDS; r++) {
		const char *p = text, *end = text + len;
		size_t k = 0;

		t0 = now_s();
		while ((p = memchr(p, '\n', (size_t)(end - p)))) {
			k++;
			p++;
		}
		t0 = now_s() - t0;
		lines = k;
		if (t0 < base)
			base = t0;
	}
	for (r = 0; r < ROUNDS; r++) {
		t0 = now_s();
		if (mw_smaps_parse(text, len, &s, &err)) {
			fprintf(stderr, "bench_smaps: %s\n", err.msg);
			return 1;
		}
		t0 = now_s() - t0;
		if (t0 < parse)
			parse = t0;
		t0 = now_s();
		mw_smaps_classify(&s, &f, &res, &tot);
		t0 = now_s() - t0;
		if (t0 < cls)
			cls = t0;
	}
	printf("smaps text: %.1f MB, %zu lines, %zu mappings, %zu regions\n", mb, lines, s.n,
	       res.nregions);
	printf("parse: %.0f MB/s (%.2f ms; baseline memchr line count %.0f MB/s, ratio %.2f) "
	       "target >= 100 MB/s%s\n", mb / parse, parse * 1e3, mb / base, base / parse,
	       mb / parse >= 100 ? "" : "  BELOW TARGET");
	printf("classify: %.2f ms for %zu mappings (%.0f ns/mapping)\n", cls * 1e3, s.n,
	       cls * 1e9 / (double)s.n);
	/* the OS side, for scale: this process's own smaps */
	{
		char *buf = NULL;
		size_t cap = 0, n = 0, got;
		double best = 1e9;
		FILE *fp;

		for (r = 0; r < ROUNDS; r++) {
			t0 = now_s();
			fp = fopen("/proc/self/smaps", "r");
			if (!fp)
				break;
			n = 0;
			do {
				MW_GROW(buf, cap, n + 65536);
				got = fread(buf + n, 1, cap - n, fp);
				n += got;
			} while (got > 0);
			fclose(fp);
			if (mw_smaps_parse(buf, n, &s, &err) == 0)
				mw_smaps_classify(&s, &f, &res, &tot);
			t0 = now_s() - t0;
			if (t0 < best)
				best = t0;
		}
		if (best < 1e9)
			printf("/proc/self/smaps read + parse + classify: %.3f ms (%zu bytes, %zu "
			       "mappings)\n", best * 1e3, n, s.n);
		free(buf);
	}
	/* the bar and the map on the generated text */
	if (mw_smaps_parse(text, len, &s, &err) == 0) {
		struct mw_smaps_use *u = mw_xcalloc(s.n, sizeof(*u));
		struct mw_heap_breakdown bd;
		struct mw_vm_regions v = { 0 };
		double best = 1e9;

		for (r = 0; r < ROUNDS; r++) {
			t0 = now_s();
			mw_smaps_uses(&s, &f, u);
			mw_heap_breakdown_smaps(&s, u, &bd);
			mw_smaps_vm_regions(&s, u, &v);
			t0 = now_s() - t0;
			if (t0 < best)
				best = t0;
		}
		printf("heap bar + vm regions: %.2f ms for %zu mappings (%.0f ns/mapping)\n",
		       best * 1e3, s.n, best * 1e9 / (double)s.n);
		mw_vm_regions_release(&v);
		free(u);
	}
	/* live: three collectors' reads of this process, unshared and shared */
	{
		uint32_t self = (uint32_t)getpid();
		struct mw_heap_breakdown bd;
		struct mw_vm_regions v = { 0 };
		struct mw_ws_snapshot ws;
		double apart = 1e9, shared = 1e9;

		memset(&ws, 0, sizeof(ws));
		for (r = 0; r < ROUNDS; r++) {
			t0 = now_s();	/* each its own read: flush in between */
			mw_procmaps_flush();
			mw_heap_bar_read(self, &bd, &err);
			mw_procmaps_flush();
			mw_vm_walk(self, true, &v, &err);
			mw_procmaps_flush();
			mw_ws_read(self, true, &ws, &err);
			t0 = now_s() - t0;
			if (t0 < apart)
				apart = t0;
			t0 = now_s();	/* one tick: one read */
			mw_procmaps_flush();
			mw_heap_bar_read(self, &bd, &err);
			mw_vm_walk(self, true, &v, &err);
			mw_ws_read(self, true, &ws, &err);
			t0 = now_s() - t0;
			if (t0 < shared)
				shared = t0;
		}
		printf("heap + vmmap + workingset of this process: %.3f ms with a read each, "
		       "%.3f ms sharing one (%.1fx)\n", apart * 1e3, shared * 1e3, apart / shared);
		mw_vm_regions_release(&v);
		mw_ws_snapshot_release(&ws);
	}
	mw_smaps_release(&s);
	mw_ws_result_release(&res);
	free(text);
	return mb / parse >= 100 ? 0 : 1;
}
