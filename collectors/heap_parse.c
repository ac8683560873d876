/*
 * heap_parse.c - the pure functions behind the Windows heap reader
 * (heap.h; heap_win32.c reads the process, these make figures of what it
 * read): HeapWalk accounting, heaps from the PEB heap list, the remote
 * summary (RtlQueryProcessDebugInformation) and SystemProcessInformation
 * thread parsers, the back-off table.  Portable, so tests run them on
 * constructed input on every platform.
 */
#include "heap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/unaligned.h"
#include "base/xalloc.h"
#include "process.h"

void mw_heap_account(struct mw_heap_totals *t, uint32_t flags, uint64_t cb, uint32_t overhead,
		     uint64_t region_committed, uint64_t region_uncommitted)
{
	if (flags & MW_HEAP_REGION) {
		/* A region (segment) header: its sizes, not a block. */
		t->regions++;
		t->committed += region_committed;
		t->uncommitted += region_uncommitted;
	} else if (flags & MW_HEAP_UNCOMMITTED_RANGE) {
		/* counted by the region entry already */
	} else if (flags & MW_HEAP_ENTRY_BUSY) {
		t->busy += cb;
		t->overhead += overhead;
		t->blocks++;
	} else {
		t->free += cb;
		t->overhead += overhead;
		t->free_blocks++;
	}
}

/* --- other processes from the PEB heap list -------------------------------- */

void mw_heap_from_ranges(const struct mw_vm_regions *v, const struct mw_vm_ranges *ranges,
			 struct mw_heap_list *out)
{
	uint64_t *claimed = NULL;
	size_t nclaimed = 0, claimed_cap = 0, i, j, k;

	out->n = 0;
	for (i = 0; i < ranges->n; i++) {
		const struct mw_vm_range *rg = &ranges->r[i];
		struct mw_heap_totals *t = NULL;

		for (k = 0; k < out->n; k++)
			if (out->h[k].id == rg->id)
				t = &out->h[k];
		if (!t) {
			MW_GROW(out->h, out->cap, out->n + 1);
			t = &out->h[out->n++];
			memset(t, 0, sizeof(*t));
			t->id = rg->id;
			t->segments = true;
			t->base = rg->base;
		}
		for (j = 0; j < v->n; j++) {
			const struct mw_vm_region *r = &v->r[j];
			uint64_t ab = r->alloc_base;
			size_t a;

			if (r->state == MW_VM_FREE || r->base >= rg->base + (rg->size ? rg->size : 1) ||
			    r->base + r->size <= rg->base)
				continue;
			for (k = 0; k < nclaimed && claimed[k] != ab; k++)
				;
			if (k < nclaimed)
				continue;	/* another range (or heap) has it */
			MW_GROW(claimed, claimed_cap, nclaimed + 1);
			claimed[nclaimed++] = ab;
			/* the whole allocation: the consecutive regions sharing ab */
			for (a = j; a > 0 && v->r[a - 1].state != MW_VM_FREE &&
				    v->r[a - 1].alloc_base == ab; a--)
				;
			for (; a < v->n && v->r[a].state != MW_VM_FREE && v->r[a].alloc_base == ab; a++) {
				if (v->r[a].state == MW_VM_COMMIT)
					t->committed += v->r[a].size;
				else
					t->uncommitted += v->r[a].size;
			}
			t->regions++;
		}
	}
	free(claimed);
}

/* --- how a target is read, and what the mode says about it --------------- */

enum mw_heap_how mw_heap_how(bool self, bool remote_summary, int wow64)
{
	if (self)
		return MW_HEAP_HOW_SELF;
	return remote_summary && wow64 == 0 ? MW_HEAP_HOW_REMOTE : MW_HEAP_HOW_PEB;
}

void mw_heap_notes_add(struct mw_heap_notes *sum, const struct mw_heap_notes *n)
{
	sum->segment_partial += n->segment_partial;
	sum->segment_header_only += n->segment_header_only;
	sum->wow64_no_remote += n->wow64_no_remote;
	sum->wow64_side_unread += n->wow64_side_unread;
}

void mw_heap_notes_text(const struct mw_heap_notes *n, char *buf, size_t size)
{
	size_t at = 0;

	if (!size)
		return;
	buf[0] = '\0';
	if (n->segment_header_only || n->segment_partial) {
		at += (size_t)snprintf(buf, size, "; segment heap: ");
		if (n->segment_header_only && at < size)
			at += (size_t)snprintf(buf + at, size - at, "%" PRIu32 " header only%s",
					       n->segment_header_only,
					       n->segment_partial ? ", " : "");
		if (n->segment_partial && at < size)
			at += (size_t)snprintf(buf + at, size - at, "%" PRIu32 " partial",
					       n->segment_partial);
	}
	if (n->wow64_no_remote && at < size)
		at += (size_t)snprintf(buf + at, size - at, "; WOW64: PEB, no remote summary");
	if (n->wow64_side_unread && at < size)
		snprintf(buf + at, size - at, "; WOW64: %" PRIu32 " side unread",
			 n->wow64_side_unread);
}

/* --- the remote summary --------------------------------------------------- */

size_t mw_heap_info_stride(uint32_t build)
{
	/* RTL_HEAP_INFORMATION gained HeapTag after Windows 11 21H2 (22000). */
	return build > 22000 ? MW_RHI_SIZE_V2 : MW_RHI_SIZE_V1;
}

int mw_heap_parse_debug_info(const unsigned char *buf, size_t len, uint64_t buf_addr,
			     size_t stride, struct mw_heap_list *out, struct mw_err *err)
{
	uint64_t heaps, off;
	uint32_t n, i;

	out->n = 0;
	if (len < MW_RDI_HEAPS + 8)
		return mw_error(err, "debug buffer: %zu bytes, too short for its header", len);
	if (stride < MW_RHI_NUMBER_OF_ENTRIES + 4)
		return mw_error(err, "debug buffer: heap record size %zu too small", stride);
	heaps = mw_load64(buf + MW_RDI_HEAPS);
	if (!heaps)
		return mw_error(err, "RtlQueryProcessDebugInformation returned no heaps"), 1;
	off = heaps - buf_addr;
	if (heaps < buf_addr || off > len || len - off < MW_RPH_HEAPS)
		return mw_error(err, "debug buffer: Heaps 0x%" PRIx64 " is outside the %zu bytes "
				"at 0x%" PRIx64, heaps, len, buf_addr);
	n = mw_load32(buf + off);
	if (n > MW_HEAP_MAX_HEAPS || (len - off - MW_RPH_HEAPS) / stride < n)
		return mw_error(err, "debug buffer: %" PRIu32 " heaps of %zu bytes cannot fit in "
				"%" PRIu64 " bytes", n, stride, (uint64_t)(len - off - MW_RPH_HEAPS));
	MW_GROW(out->h, out->cap, n ? n : 1);
	for (i = 0; i < n; i++) {
		const unsigned char *e = buf + off + MW_RPH_HEAPS + (size_t)i * stride;
		struct mw_heap_totals *t = &out->h[i];

		memset(t, 0, sizeof(*t));
		t->summary = true;
		t->base = mw_load64(e + MW_RHI_BASE);
		t->busy = mw_load64(e + MW_RHI_BYTES_ALLOCATED);
		t->committed = mw_load64(e + MW_RHI_BYTES_COMMITTED);
		t->blocks = mw_load32(e + MW_RHI_NUMBER_OF_ENTRIES);
		t->free = t->committed > t->busy ? t->committed - t->busy : 0;
	}
	out->n = n;
	return 0;
}

int mw_heap_spi_find(const unsigned char *buf, size_t len, uint32_t pid,
		     struct mw_heap_proc_state *out, struct mw_err *err)
{
	size_t off = 0;

	memset(out, 0, sizeof(*out));
	for (;;) {
		const unsigned char *e = buf + off;
		uint32_t next, nthreads, k;
		size_t room;

		if (len - off < MW_SPI_SIZE)
			return mw_error(err, "process record at %zu: %zu bytes left, needs %d", off,
					len - off, MW_SPI_SIZE);
		next = mw_load32(e + MW_SPI_NEXT);
		if (next && (next < MW_SPI_SIZE || next > len - off))
			return mw_error(err, "process record at %zu: next offset %" PRIu32
					" is out of bounds", off, next);
		if (mw_load64(e + MW_SPI_PID) == pid) {
			room = (next ? next : len - off) - MW_SPI_SIZE;
			nthreads = mw_load32(e + MW_SPI_THREADS);
			if (nthreads > room / MW_STI_SIZE)
				return mw_error(err, "process %" PRIu32 ": %" PRIu32 " threads cannot fit "
						"in %zu bytes", pid, nthreads, room);
			out->found = true;
			out->create_time = mw_load64(e + MW_SPI_CREATE_TIME);
			out->threads = nthreads;
			for (k = 0; k < nthreads; k++) {
				const unsigned char *t = e + MW_SPI_SIZE + (size_t)k * MW_STI_SIZE;
				uint32_t wr = mw_load32(t + MW_STI_WAIT_REASON);

				if (mw_load32(t + MW_STI_STATE) == MW_THREAD_STATE_WAITING &&
				    (wr == MW_WAIT_SUSPENDED || wr == MW_WAIT_WR_SUSPENDED))
					out->suspended++;
			}
			return 0;
		}
		if (!next)
			return 0;
		off += next;
	}
}

void mw_heap_backoff_hold(struct mw_heap_backoff *b, uint32_t pid, uint64_t create_time,
			  int64_t until_ms, const char *why)
{
	struct mw_heap_held *h = NULL;
	size_t i;

	for (i = 0; i < b->n && !h; i++)
		if (b->e[i].pid == pid && b->e[i].create_time == create_time)
			h = &b->e[i];
	if (!h) {
		MW_GROW(b->e, b->cap, b->n + 1);
		h = &b->e[b->n++];
	}
	h->pid = pid;
	h->create_time = create_time;
	h->until_ms = until_ms;
	snprintf(h->why, sizeof(h->why), "%s", why);
}

const struct mw_heap_held *mw_heap_backoff_find(struct mw_heap_backoff *b, uint32_t pid,
						uint64_t create_time, int64_t now_ms)
{
	size_t i = 0;

	while (i < b->n) {
		if (b->e[i].until_ms <= now_ms) {
			b->e[i] = b->e[--b->n];	/* expired */
			continue;
		}
		i++;
	}
	for (i = 0; i < b->n; i++)
		if (b->e[i].pid == pid && b->e[i].create_time == create_time)
			return &b->e[i];
	return NULL;
}

void mw_heap_backoff_release(struct mw_heap_backoff *b)
{
	free(b->e);
	memset(b, 0, sizeof(*b));
}
