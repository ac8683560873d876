/*
 * exit_report.c - the exit leak report's memory and its hand-over form
 * (exit_report.h): release, the detail record's bytes (encode, and a
 * decode that checks every length), and the helpers the parsers share
 * (exit_report_internal.h).
 *
 * The detail record, version 1, little-endian:
 *   u8 version (1), u8 source (1..3), u8 flags (bit 0: complete),
 *   i64 pid, i64 started_ms, i64 exited_ms, u64 leaks, u64 bytes,
 *   u32 length + process name bytes (no NUL),
 *   u32 nblocks, nblocks x (u64 entry, u64 heap, u64 size),
 *   u32 nstacks, nstacks x (u64 bytes, u64 count, u8 indirect,
 *                           u32 length + frames bytes)
 * and nothing after.  Used by collectors/exit_leaks.c and import/ (encode),
 * storage/ (decode).
 */
#include "exit_report_internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/xalloc.h"

#define XR_VERSION 1
#define XR_MAX_NAME 4096

void mw_exit_report_release(struct mw_exit_report *r)
{
	size_t i;

	if (!r)
		return;
	free(r->process);
	free(r->blocks);
	for (i = 0; i < r->nstacks; i++)
		free(r->stacks[i].frames);
	free(r->stacks);
	memset(r, 0, sizeof(*r));
}

/* ---- encode ---------------------------------------------------------------- */

struct wbuf {
	unsigned char *p;
	size_t n, cap;
};

static void put(struct wbuf *b, const void *src, size_t n)
{
	MW_GROW(b->p, b->cap, b->n + n);
	memcpy(b->p + b->n, src, n);
	b->n += n;
}

/* v as a little-endian unsigned of `bytes` bytes (at most 8). */
static void put_le(struct wbuf *b, uint64_t v, size_t bytes)
{
	unsigned char x[8];
	size_t i;

	for (i = 0; i < bytes; i++)
		x[i] = (unsigned char)(v >> (8 * i));
	put(b, x, bytes);
}

static void put_u64(struct wbuf *b, uint64_t v)
{
	put_le(b, v, 8);
}

static void put_u32(struct wbuf *b, uint32_t v)
{
	put_le(b, v, 4);
}

static void put_u8(struct wbuf *b, unsigned v)
{
	unsigned char x = (unsigned char)v;

	put(b, &x, 1);
}

static void put_str(struct wbuf *b, const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0;

	if (n > max)
		n = max;
	put_u32(b, (uint32_t)n);
	if (n)
		put(b, s, n);
}

void *mw_exit_report_encode(const struct mw_exit_report *r, size_t *len)
{
	struct wbuf b = { NULL, 0, 0 };
	size_t nb = r->nblocks < MW_EXIT_MAX_BLOCKS ? r->nblocks : MW_EXIT_MAX_BLOCKS;
	size_t ns = r->nstacks < MW_EXIT_MAX_STACKS ? r->nstacks : MW_EXIT_MAX_STACKS;
	size_t i;

	put_u8(&b, XR_VERSION);
	put_u8(&b, (unsigned)r->source);
	put_u8(&b, r->complete ? 1u : 0u);
	put_u64(&b, (uint64_t)r->pid);
	put_u64(&b, (uint64_t)r->started_ms);
	put_u64(&b, (uint64_t)r->exited_ms);
	put_u64(&b, r->leaks);
	put_u64(&b, r->bytes);
	put_str(&b, r->process, XR_MAX_NAME);
	put_u32(&b, (uint32_t)nb);
	for (i = 0; i < nb; i++) {
		put_u64(&b, r->blocks[i].entry);
		put_u64(&b, r->blocks[i].heap);
		put_u64(&b, r->blocks[i].size);
	}
	put_u32(&b, (uint32_t)ns);
	for (i = 0; i < ns; i++) {
		put_u64(&b, r->stacks[i].bytes);
		put_u64(&b, r->stacks[i].count);
		put_u8(&b, r->stacks[i].indirect ? 1u : 0u);
		put_str(&b, r->stacks[i].frames, MW_EXIT_MAX_FRAMES_BYTES);
	}
	*len = b.n;
	return b.p;
}

/* ---- decode ---------------------------------------------------------------- */

struct rbuf {
	const unsigned char *p;
	size_t n, at;
	const char *what;	/* the field being read, for the message */
};

static bool take(struct rbuf *b, size_t n, const char *what)
{
	b->what = what;
	if (b->n - b->at < n)
		return false;
	b->at += n;
	return true;
}

/* A little-endian unsigned of `bytes` bytes (at most 8). */
static bool get_le(struct rbuf *b, size_t bytes, uint64_t *v, const char *what)
{
	size_t i;

	if (!take(b, bytes, what))
		return false;
	*v = 0;
	for (i = 0; i < bytes; i++)
		*v |= (uint64_t)b->p[b->at - bytes + i] << (8 * i);
	return true;
}

static bool get_u64(struct rbuf *b, uint64_t *v, const char *what)
{
	return get_le(b, 8, v, what);
}

static bool get_u32(struct rbuf *b, uint32_t *v, const char *what)
{
	uint64_t x;

	if (!get_le(b, 4, &x, what))
		return false;
	*v = (uint32_t)x;
	return true;
}

static bool get_u8(struct rbuf *b, unsigned *v, const char *what)
{
	if (!take(b, 1, what))
		return false;
	*v = b->p[b->at - 1];
	return true;
}

/* A record's count of blocks or stacks is at most what a report keeps:
 * more is a record memwatch did not write. */
static bool count_within(uint32_t count, int max, const char *what, struct mw_err *err)
{
	if (count <= (uint32_t)max)
		return true;
	mw_error(err, "exit report record: %u %s (at most %d)", (unsigned)count, what, max);
	return false;
}

/* A length-prefixed string of at most max bytes without NUL: -1 bad
 * length or NUL (err set), 0 truncated, 1 read. */
static int get_str(struct rbuf *b, char **out, size_t max, const char *what, struct mw_err *err)
{
	uint32_t n;

	if (!get_u32(b, &n, what))
		return 0;
	if (n > max)
		return mw_error(err, "exit report record: %s of %u bytes (at most %zu)", what,
				(unsigned)n, max);
	if (b->n - b->at < n)
		return 0;
	if (memchr(b->p + b->at, '\0', n))
		return mw_error(err, "exit report record: %s holds a NUL byte", what);
	*out = mw_xstrndup((const char *)b->p + b->at, n);
	b->at += n;
	return 1;
}

bool mw_exit_report_decode(const void *data, size_t len, struct mw_exit_report *out,
			   struct mw_err *err)
{
	struct rbuf b = { data, len, 0, "version" };
	struct mw_exit_report r;
	unsigned version = 0, source = 0, flags = 0, ind;
	uint64_t v;
	uint32_t count;
	size_t i;
	int s = 0;

	memset(&r, 0, sizeof(r));
	memset(out, 0, sizeof(*out));
	if (!data && len)
		goto truncated;
	if (!get_u8(&b, &version, "version"))
		goto truncated;
	if (version != XR_VERSION) {
		mw_error(err, "exit report record: version %u (this memwatch reads %d)", version,
			 XR_VERSION);
		return false;
	}
	if (!get_u8(&b, &source, "source") || !get_u8(&b, &flags, "flags"))
		goto truncated;
	if (source < MW_EXIT_NTDLL || source > MW_EXIT_UMDH) {
		mw_error(err, "exit report record: unknown source %u", source);
		return false;
	}
	r.source = (enum mw_exit_source)source;
	r.complete = (flags & 1) != 0;
	if (!get_u64(&b, &v, "pid"))
		goto truncated;
	r.pid = (int64_t)v;
	if (!get_u64(&b, &v, "start time"))
		goto truncated;
	r.started_ms = (int64_t)v;
	if (!get_u64(&b, &v, "exit time"))
		goto truncated;
	r.exited_ms = (int64_t)v;
	if (!get_u64(&b, &r.leaks, "leaks") || !get_u64(&b, &r.bytes, "bytes"))
		goto truncated;
	s = get_str(&b, &r.process, XR_MAX_NAME, "process name", err);
	if (s <= 0)
		goto fail_or_truncated;
	if (!get_u32(&b, &count, "block count"))
		goto truncated;
	if (!count_within(count, MW_EXIT_MAX_BLOCKS, "blocks", err))
		goto fail;
	if ((size_t)count * 24 > b.n - b.at) {
		b.what = "blocks";
		goto truncated;
	}
	r.blocks = count ? mw_xcalloc(count, sizeof(*r.blocks)) : NULL;
	for (i = 0; i < count; i++) {
		get_u64(&b, &r.blocks[i].entry, "block");
		get_u64(&b, &r.blocks[i].heap, "block");
		get_u64(&b, &r.blocks[i].size, "block");
	}
	r.nblocks = count;
	if (!get_u32(&b, &count, "stack count"))
		goto truncated;
	if (!count_within(count, MW_EXIT_MAX_STACKS, "stacks", err))
		goto fail;
	r.stacks = count ? mw_xcalloc(count, sizeof(*r.stacks)) : NULL;
	for (i = 0; i < count; i++) {
		struct mw_exit_stack *st = &r.stacks[i];

		if (!get_u64(&b, &st->bytes, "stack") || !get_u64(&b, &st->count, "stack") ||
		    !get_u8(&b, &ind, "stack"))
			goto truncated;
		st->indirect = ind != 0;
		r.nstacks = i + 1;	/* released with r from here on */
		s = get_str(&b, &st->frames, MW_EXIT_MAX_FRAMES_BYTES, "stack frames", err);
		if (s <= 0)
			goto fail_or_truncated;
	}
	if (b.at != b.n) {
		mw_error(err, "exit report record: %zu bytes after its end", b.n - b.at);
		goto fail;
	}
	*out = r;
	return true;

fail_or_truncated:
	if (s < 0)
		goto fail;
truncated:
	mw_error(err, "exit report record: truncated in its %s (%zu bytes)", b.what, len);
fail:
	mw_exit_report_release(&r);
	return false;
}

/* ---- the parsers' helpers ---------------------------------------------------- */

bool mw_xr_next_line(const char *text, size_t len, size_t *pos, struct mw_xr_line *l)
{
	const char *nl;
	size_t start = *pos, end;

	if (start >= len)
		return false;
	nl = memchr(text + start, '\n', len - start);
	end = nl ? (size_t)(nl - text) : len;
	*pos = nl ? end + 1 : len;
	if (end > start && text[end - 1] == '\r')
		end--;
	l->p = text + start;
	l->n = end - start;
	l->no++;
	return true;
}

size_t mw_xr_blanks(const char *p, size_t n)
{
	size_t i = 0;

	while (i < n && (p[i] == ' ' || p[i] == '\t'))
		i++;
	return i;
}

bool mw_xr_starts(const char *p, size_t n, const char *s)
{
	size_t k = strlen(s);

	return n >= k && !memcmp(p, s, k);
}

const char *mw_xr_find(const char *p, size_t n, const char *s)
{
	size_t k = strlen(s), i;

	for (i = 0; k && i + k <= n; i++)
		if (p[i] == s[0] && !memcmp(p + i, s, k))
			return p + i;
	return NULL;
}

static int digit(char c, int base)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (base == 16 && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (base == 16 && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

bool mw_xr_number(const char *p, size_t n, size_t *i, int base, uint64_t *v)
{
	size_t k = *i;
	uint64_t x = 0;
	int d;

	if (k >= n || digit(p[k], base) < 0)
		return false;
	for (; k < n && (d = digit(p[k], base)) >= 0; k++) {
		if (x > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return false;
		x = x * (uint64_t)base + (uint64_t)d;
	}
	*v = x;
	*i = k;
	return true;
}

uint64_t mw_xr_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

void mw_xr_keep_stack(struct mw_exit_report *r, struct mw_exit_stack *s)
{
	size_t i, small = 0;

	if (r->nstacks < MW_EXIT_MAX_STACKS) {
		r->stacks = mw_xrealloc(r->stacks, (r->nstacks + 1) * sizeof(*r->stacks));
		r->stacks[r->nstacks++] = *s;
		return;
	}
	for (i = 1; i < r->nstacks; i++)
		if (r->stacks[i].bytes < r->stacks[small].bytes)
			small = i;
	if (s->bytes > r->stacks[small].bytes) {
		free(r->stacks[small].frames);
		r->stacks[small] = *s;
	} else {
		free(s->frames);
	}
}

static int by_bytes_desc(const void *a, const void *b)
{
	const struct mw_exit_stack *x = a, *y = b;

	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	if (x->indirect != y->indirect)	/* direct leaks first */
		return x->indirect ? 1 : -1;
	return 0;
}

void mw_xr_sort_stacks(struct mw_exit_report *r)
{
	if (r->nstacks > 1)
		qsort(r->stacks, r->nstacks, sizeof(*r->stacks), by_bytes_desc);
}

void mw_xr_add_frame(struct mw_exit_stack *s, const char *p, size_t n)
{
	size_t have = s->frames ? strlen(s->frames) : 0;
	const char *nul = memchr(p, '\0', n);

	if (nul)
		n = (size_t)(nul - p);
	if (have + n + 1 > MW_EXIT_MAX_FRAMES_BYTES)
		return;
	s->frames = mw_xrealloc(s->frames, have + n + 2);
	memcpy(s->frames + have, p, n);
	s->frames[have + n] = '\n';
	s->frames[have + n + 1] = '\0';
}

void mw_xr_start(struct mw_exit_report *out, struct mw_exit_stack *cur, enum mw_exit_source src)
{
	memset(out, 0, sizeof(*out));
	memset(cur, 0, sizeof(*cur));
	out->source = src;
}

int mw_xr_fail(struct mw_exit_report *out, struct mw_exit_stack *cur)
{
	free(cur->frames);
	cur->frames = NULL;
	mw_exit_report_release(out);
	return -1;
}
