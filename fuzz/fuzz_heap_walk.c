/*
 * fuzz_heap_walk.c - libFuzzer target for the walkers of another
 * process's heaps (collectors/peb.c, collectors/segheap.c): on Windows
 * they follow pointers and counts read out of a process that keeps
 * running, so any bytes at any address are possible mid-change, and each
 * walk must stop at what does not check out - never loop, never read
 * outside what it was given, never believe a count.
 *
 * The input is byte 0 (bit 0 a 32-bit process, bit 1 walk a segment heap
 * directly, bit 2 a WOW64 process: both PEBs), then the target's memory:
 * the rest of the input, mapped at IMAGE_BASE.  The PEB (64-bit and,
 * for WOW64, 32-bit), and a directly walked heap, are at the image's
 * start; every pointer read out of it that lands inside the image is
 * followed.  Built by scripts/fuzz.sh.
 */
#include "fuzz/fuzz_input.h"

#include "base/mwerr.h"
#include "collectors/peb.h"
#include "collectors/segheap.h"

#define IMAGE_BASE 0x10000ULL

struct image {
	const uint8_t *p;
	size_t n;
	unsigned reads;
};

static bool read_image(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct image *im = ctx;

	/* a walk that reads without end is a hang: bound it far above any
	 * legitimate walk of an image this small */
	if (++im->reads > 1000000)
		abort();
	if (addr < IMAGE_BASE || addr - IMAGE_BASE > im->n || len > im->n - (addr - IMAGE_BASE))
		return false;
	memcpy(buf, im->p + (addr - IMAGE_BASE), len);
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct image im;
	struct mw_vm_ranges out = { 0 };
	uint8_t flags, *copy;
	bool is32;

	if (size < 1)
		return 0;
	flags = data[0];
	is32 = flags & 1;
	/* A private copy of exactly the image, so ASan sees any overread. */
	copy = malloc(size);
	memcpy(copy, data + 1, size - 1);
	im.p = copy;
	im.n = size - 1;
	im.reads = 0;
	if (flags & 2) {
		struct mw_segheap_walk info;

		memset(&info, 0, sizeof(info));
		mw_segheap_walk(read_image, &im, IMAGE_BASE, is32, 1, &out, &info);
	} else {
		struct mw_peb_info info;
		struct mw_err err = { "" };
		int rc;

		memset(&info, 0, sizeof(info));
		rc = mw_process_heaps(read_image, &im, IMAGE_BASE, flags & 4 ? IMAGE_BASE + 0x800 : 0,
				      4096, &out, &info, &err);
		if (rc != 0 && !err.msg[0])
			abort();	/* a walk that fails says why */
	}
	mw_vm_ranges_release(&out);
	free(copy);
	return 0;
}
