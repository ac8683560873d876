/*
 * smaps.c - /proc/PID/smaps parsing and classification (pure; see smaps.h
 * for the categories, sharing classes and regions).
 */
#include "smaps.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hex.h"
#include "base/xalloc.h"

#define ARENA_SIZE (64ULL << 20)	/* glibc HEAP_MAX_SIZE, 64-bit */
#define GUARD_MAX (1ULL << 20)		/* largest thread stack guard taken as one */
/* A thread's stack grows down from the top of its mapping: a stack pointer
 * deeper than this below a mapping's top is not taken to make the mapping
 * a stack.  Go runs its threads on stacks it allocates inside its own heap
 * (the arenas at 0xc000000000), low in the first mapping: that mapping,
 * the heap's first 4-20 MiB, read as a stack, and a Go heap leak was named
 * "stack" (recorded: tests/test_smaps.c go_heap_is_no_stack).  A glibc
 * thread deeper than this is still known by its guard. */
#define STACK_DEPTH_MAX (1ULL << 20)

void mw_smaps_release(struct mw_smaps *s)
{
	free(s->m);
	memset(s, 0, sizeof(*s));
}

/* Hex number at *p (< end); advances.  false if none or it overflows. */
static bool hex(const char **p, const char *end, uint64_t *v)
{
	const char *q = *p;
	uint64_t x = 0;
	int d;

	while (q < end && (d = mw_hex_digit(*q)) >= 0) {
		if (x >> 60)
			return false;
		x = x << 4 | (uint64_t)d;
		q++;
	}
	if (q == *p)
		return false;
	*v = x;
	*p = q;
	return true;
}

static bool dec(const char **p, const char *end, uint64_t *v)
{
	const char *q = *p;
	uint64_t x = 0;

	while (q < end && *q >= '0' && *q <= '9') {
		if (x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*q - '0');
		q++;
	}
	if (q == *p)
		return false;
	*v = x;
	*p = q;
	return true;
}

static bool expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return false;
	(*p)++;
	return true;
}

/* "start-end perms offset major:minor inode [path]" */
static bool header(const char *b, const char *line, const char *end, struct mw_smaps_map *m)
{
	const char *p = line;
	uint64_t dev;
	int i;

	memset(m, 0, sizeof(*m));
	if (!hex(&p, end, &m->start) || !expect(&p, end, '-') || !hex(&p, end, &m->end) ||
	    !expect(&p, end, ' ') || end - p < 5)
		return false;
	for (i = 0; i < 4; i++)
		m->perms[i] = p[i];
	if ((p[0] != 'r' && p[0] != '-') || (p[1] != 'w' && p[1] != '-') ||
	    (p[2] != 'x' && p[2] != '-') || (p[3] != 'p' && p[3] != 's'))
		return false;
	p += 4;
	if (!expect(&p, end, ' ') || !hex(&p, end, &m->offset) || !expect(&p, end, ' ') ||
	    !hex(&p, end, &dev) || !expect(&p, end, ':') || !hex(&p, end, &dev) ||
	    !expect(&p, end, ' ') || !dec(&p, end, &m->inode))
		return false;
	if (p < end && *p != ' ')
		return false;
	while (p < end && *p == ' ')
		p++;
	if ((size_t)(end - p) > UINT32_MAX || (size_t)(p - b) > UINT32_MAX)
		return false;
	m->path_off = (uint32_t)(p - b);
	m->path_len = (uint32_t)(end - p);
	return m->start < m->end;
}

static int field_of(const char *k, size_t n)
{
	switch (n) {
	case 3:
		return !memcmp(k, "Rss", 3) ? MW_SM_RSS : !memcmp(k, "Pss", 3) ? MW_SM_PSS : -1;
	case 4:
		return !memcmp(k, "Swap", 4) ? MW_SM_SWAP : -1;
	case 9:
		return !memcmp(k, "Anonymous", 9) ? MW_SM_ANONYMOUS : -1;
	case 12:
		return !memcmp(k, "Shared_Clean", 12) ? MW_SM_SHARED_CLEAN
		       : !memcmp(k, "Shared_Dirty", 12) ? MW_SM_SHARED_DIRTY : -1;
	case 13:
		return !memcmp(k, "Private_Clean", 13) ? MW_SM_PRIVATE_CLEAN
		       : !memcmp(k, "Private_Dirty", 13) ? MW_SM_PRIVATE_DIRTY : -1;
	default:
		return -1;
	}
}

int mw_smaps_parse(const char *text, size_t len, struct mw_smaps *out, struct mw_err *err)
{
	const char *p = text, *end = text + len;
	size_t lineno = 0;
	struct mw_smaps_map *cur = NULL;

	out->text = text;
	out->n = 0;
	if (len > UINT32_MAX)
		return mw_error(err, "smaps: %zu bytes is too much text", len);
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		lineno++;
		if (p == le) {
			/* empty line: tolerated */
		} else if (mw_hex_digit(*p) >= 0 && !(*p >= 'A' && *p <= 'F')) {
			struct mw_smaps_map m;

			if (!header(text, p, le, &m))
				return mw_error(err, "smaps: line %zu: malformed mapping header", lineno);
			if (out->n && m.start < out->m[out->n - 1].end)
				return mw_error(err, "smaps: line %zu: mapping %" PRIx64
						" overlaps or precedes the one before", lineno, m.start);
			MW_GROW(out->m, out->cap, out->n + 1);
			out->m[out->n] = m;
			cur = &out->m[out->n++];
		} else {
			const char *c = memchr(p, ':', (size_t)(le - p));
			int f;

			if (!c)
				return mw_error(err, "smaps: line %zu: neither a mapping header nor "
						"a field", lineno);
			if (!cur)
				return mw_error(err, "smaps: line %zu: field before any mapping header",
						lineno);
			f = field_of(p, (size_t)(c - p));
			if (f >= 0) {
				const char *q = c + 1;
				uint64_t v;

				while (q < le && *q == ' ')
					q++;
				if (!dec(&q, le, &v) ||
				    (q != le && (le - q != 3 || memcmp(q, " kB", 3))))
					return mw_error(err, "smaps: line %zu: %.*s: not a number of kB",
							lineno, (int)(c - p), p);
				cur->kb[f] = v;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return 0;
}

int mw_smaps_syscall_sp(const char *text, uint64_t *sp)
{
	const char *p = text, *end = text + strlen(text);
	uint64_t words[9], v;
	int n = 0;

	while (p < end && n < 9) {
		while (p < end && (*p == ' ' || *p == '\n'))
			p++;
		if (p >= end)
			break;
		if (*p == '-') {	/* "-1 SP PC": blocked, not in a system call */
			if (n || p + 1 >= end || p[1] != '1')
				return -1;
			p += 2;
			v = UINT64_MAX;
		} else if (p + 1 < end && p[0] == '0' && p[1] == 'x') {
			p += 2;
			if (!hex(&p, end, &v))
				return -1;
		} else if (!dec(&p, end, &v)) {
			return -1;	/* "running" */
		}
		words[n++] = v;
	}
	while (p < end && (*p == ' ' || *p == '\n'))
		p++;
	if (p != end)
		return -1;
	if (n == 3 && words[0] == UINT64_MAX) {
		*sp = words[1];
		return 0;
	}
	if (n == 9 && words[0] != UINT64_MAX) {
		*sp = words[7];
		return 0;
	}
	return -1;
}

/* --- classification ----------------------------------------------------- */

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return n >= k && !memcmp(s, prefix, k);
}

/* The path without " (deleted)". */
static size_t path_len(const char *s, size_t n)
{
	if (n > 10 && !memcmp(s + n - 10, " (deleted)", 10))
		return n - 10;
	return n;
}

/* Base name ends in ".so" or ".so." followed by digits and dots. */
static bool is_so(const char *s, size_t n)
{
	size_t i, b = 0;

	for (i = 0; i < n; i++)
		if (s[i] == '/')
			b = i + 1;
	for (i = b; i + 3 <= n; i++) {
		size_t j;

		if (memcmp(s + i, ".so", 3))
			continue;
		j = i + 3;
		if (j == n)
			return true;
		if (s[j] != '.')
			continue;
		for (j++; j < n && ((s[j] >= '0' && s[j] <= '9') || s[j] == '.'); j++)
			;
		if (j == n && s[n - 1] != '.')
			return true;
	}
	return false;
}

static bool is_shm_path(const char *s, size_t n)
{
	return starts(s, n, "/dev/shm/") || starts(s, n, "/run/shm/") || starts(s, n, "/memfd:") ||
	       starts(s, n, "/SYSV") || starts(s, n, "/dev/zero") || starts(s, n, "[anon_shmem:");
}

static bool anon(const struct mw_smaps_map *m, const char *text)
{
	return m->path_len == 0 || starts(text + m->path_off, m->path_len, "[anon:");
}

static bool same_file(const struct mw_smaps *s, const struct mw_smaps_map *a,
		      const struct mw_smaps_map *b)
{
	return a->path_len && a->path_len == b->path_len && a->inode == b->inode &&
	       b->offset > a->offset && s->text[a->path_off] == '/' &&
	       !memcmp(s->text + a->path_off, s->text + b->path_off, a->path_len);
}

/* Anonymous private read-write, 64 MiB-aligned, alone or with its
 * PROT_NONE tail exactly 64 MiB: a glibc arena heap.  Returns how many
 * mappings it spans (1 or 2), 0 if not one. */
static size_t arena_at(const struct mw_smaps *s, size_t i)
{
	const struct mw_smaps_map *m = &s->m[i], *t = i + 1 < s->n ? &s->m[i + 1] : NULL;

	if (!anon(m, s->text) || memcmp(m->perms, "rw-p", 4) || (m->start & (ARENA_SIZE - 1)))
		return 0;
	if (m->end - m->start == ARENA_SIZE)
		return 1;
	if (t && t->start == m->end && t->path_len == 0 && !memcmp(t->perms, "---p", 4) &&
	    t->end - m->start == ARENA_SIZE)
		return 2;
	return 0;
}

static const struct mw_smaps_thread *thread_in(const struct mw_smaps_facts *f, uint64_t lo,
					       uint64_t hi)
{
	size_t i;

	for (i = 0; i < f->nthreads; i++)
		if (f->threads[i].sp >= lo && f->threads[i].sp < hi &&
		    hi - f->threads[i].sp <= STACK_DEPTH_MAX)
			return &f->threads[i];
	return NULL;
}

struct pages3 {
	uint64_t bytes[MW_WS_NSHARING];
};

static void sharing_of(const struct mw_smaps_map *m, bool file, struct pages3 *p)
{
	uint64_t shared = m->kb[MW_SM_SHARED_CLEAN] + m->kb[MW_SM_SHARED_DIRTY];
	uint64_t pc = m->kb[MW_SM_PRIVATE_CLEAN], pd = m->kb[MW_SM_PRIVATE_DIRTY];

	p->bytes[MW_WS_SHARED] += shared * 1024;
	if (m->perms[3] == 's') {
		p->bytes[MW_WS_SHAREABLE_PAGE] += (pc + pd) * 1024;
	} else if (file) {
		/* copy-on-write copies are anonymous pages; the rest is page
		 * cache (dirty too, when written through write(2)) */
		uint64_t cow = m->kb[MW_SM_ANONYMOUS] < pc + pd ? m->kb[MW_SM_ANONYMOUS] : pc + pd;

		p->bytes[MW_WS_SHAREABLE_PAGE] += (pc + pd - cow) * 1024;
		p->bytes[MW_WS_PRIV] += cow * 1024;
	} else {
		p->bytes[MW_WS_PRIV] += (pc + pd) * 1024;
	}
}

static uint32_t to_pages(uint64_t bytes, uint32_t page_size)
{
	uint64_t n = bytes / page_size;

	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* What the mapping at i is: fills reg (category, owner; owner string only
 * when want_owner) and *file, returns how many mappings its region spans. */
static size_t decide(const struct mw_smaps *s, const struct mw_smaps_facts *f, size_t i,
		     size_t exe_len, uint32_t *arenas, bool want_owner, struct mw_ws_region *reg,
		     bool *file)
{
	const struct mw_smaps_map *m = &s->m[i];
	const char *path = s->text + m->path_off;
	size_t plen = path_len(path, m->path_len);
	size_t span = 1, a, k;
	bool exec = false;
	const struct mw_smaps_thread *th;

	memset(reg, 0, sizeof(*reg));
	*file = false;
	reg->alloc_base = m->start;
	if (m->path_len && path[0] == '/' && !is_shm_path(path, plen)) {
		/* a file: its consecutive mappings */
		while (i + span < s->n && same_file(s, &s->m[i + span - 1], &s->m[i + span]) &&
		       s->m[i + span].start >= s->m[i + span - 1].end)
			span++;
		for (k = i; k < i + span; k++)
			exec |= s->m[k].perms[2] == 'x';
		*file = true;
		if (exec || is_so(path, plen) || (exe_len == plen && !memcmp(path, f->exe, plen))) {
			reg->category = MW_WS_IMAGE;
			reg->owner_kind = MW_WS_OWNER_MODULE;
		} else {
			reg->category = MW_WS_MAPPED;
			reg->owner_kind = MW_WS_OWNER_FILE;
		}
		if (want_owner)
			reg->owner = mw_xstrndup(path, m->path_len);
	} else if (m->path_len && is_shm_path(path, plen)) {
		reg->category = MW_WS_SHAREABLE;
		*file = true;
		if (!starts(path, plen, "/dev/zero")) {	/* MAP_SHARED|MAP_ANONYMOUS */
			reg->owner_kind = MW_WS_OWNER_FILE;
			if (want_owner)
				reg->owner = mw_xstrndup(path, m->path_len);
		}
	} else if (anon(m, s->text) && m->perms[3] == 's') {
		reg->category = MW_WS_SHAREABLE;
	} else if (m->path_len && !anon(m, s->text)) {
		/* [heap], [stack], [vdso], …  (a path not starting with '/' or
		 * '[' is not something the kernel writes: other too) */
		if (plen == 6 && !memcmp(path, "[heap]", 6)) {
			reg->category = MW_WS_HEAP;
			reg->owner_kind = MW_WS_OWNER_HEAP;
		} else if (plen == 7 && !memcmp(path, "[stack]", 7)) {
			reg->category = MW_WS_STACK;
			reg->owner_kind = MW_WS_OWNER_STACK;
			reg->owner_id = f->pid;
		} else if (starts(path, plen, "[stack:")) {
			reg->category = MW_WS_STACK;
			reg->owner_kind = MW_WS_OWNER_STACK;
			reg->owner_id = (uint32_t)strtoul(path + 7, NULL, 10);
		} else {
			reg->category = MW_WS_OTHER;
		}
	} else if ((a = arena_at(s, i))) {
		span = a;
		reg->category = MW_WS_HEAP;
		reg->owner_kind = MW_WS_OWNER_HEAP;
		reg->owner_id = ++*arenas;
	} else if (m->perms[0] == 'r' && m->perms[1] == 'w' &&
		   (th = thread_in(f, m->start, m->end))) {
		reg->category = MW_WS_STACK;
		reg->owner_kind = MW_WS_OWNER_STACK;
		reg->owner_id = th->tid;
	} else {
		reg->category = MW_WS_PRIVATE;
	}
	/* A PROT_NONE anonymous guard right below a read-write anonymous
	 * mapping: a thread stack (the guard joins its region). */
	if (reg->category == MW_WS_PRIVATE && m->path_len == 0 && !memcmp(m->perms, "---p", 4) &&
	    m->end - m->start <= GUARD_MAX && i + 1 < s->n) {
		const struct mw_smaps_map *n = &s->m[i + 1];

		if (n->start == m->end && n->path_len == 0 && !memcmp(n->perms, "rw-p", 4) &&
		    !arena_at(s, i + 1)) {
			span = 2;
			reg->category = MW_WS_STACK;
			reg->owner_kind = MW_WS_OWNER_STACK;
			th = thread_in(f, n->start, n->end);
			reg->owner_id = th ? th->tid : 0;
		}
	}
	return span;
}

void mw_smaps_classify(const struct mw_smaps *s, const struct mw_smaps_facts *f,
		       struct mw_ws_result *out, struct mw_smaps_totals *tot)
{
	uint32_t ps = f->page_size ? f->page_size : 4096;
	size_t exe_len = f->exe ? strlen(f->exe) : 0;
	uint32_t arenas = 0;
	size_t i = 0, k;

	mw_ws_result_release(out);
	out->page_size = ps;
	memset(tot, 0, sizeof(*tot));
	for (k = 0; k < s->n; k++) {
		const struct mw_smaps_map *m = &s->m[k];

		tot->rss += m->kb[MW_SM_RSS] * 1024;
		tot->pss += m->kb[MW_SM_PSS] * 1024;
		tot->uss += (m->kb[MW_SM_PRIVATE_CLEAN] + m->kb[MW_SM_PRIVATE_DIRTY]) * 1024;
		tot->swap += m->kb[MW_SM_SWAP] * 1024;
	}
	while (i < s->n) {
		struct mw_ws_region reg;
		struct pages3 pg;
		bool file;
		size_t span = decide(s, f, i, exe_len, &arenas, true, &reg, &file);

		memset(&pg, 0, sizeof(pg));
		for (k = i; k < i + span; k++)
			sharing_of(&s->m[k], file, &pg);
		reg.size = s->m[i + span - 1].end - s->m[i].start;
		for (k = 0; k < MW_WS_NSHARING; k++) {
			reg.pages[k] = to_pages(pg.bytes[k], ps);
			out->pages[reg.category][k] += reg.pages[k];
		}
		if (reg.pages[0] || reg.pages[1] || reg.pages[2]) {
			MW_GROW(out->regions, out->cap, out->nregions + 1);
			out->regions[out->nregions++] = reg;
		} else {
			free(reg.owner);
		}
		i += span;
	}
}

/* --- per mapping: the address-space map and the heap bar ---------------- */

void mw_smaps_uses(const struct mw_smaps *s, const struct mw_smaps_facts *f,
		   struct mw_smaps_use *u)
{
	size_t exe_len = f->exe ? strlen(f->exe) : 0;
	uint32_t arenas = 0;
	size_t i = 0, k;

	while (i < s->n) {
		struct mw_ws_region reg;
		bool file;
		size_t span = decide(s, f, i, exe_len, &arenas, false, &reg, &file);

		for (k = i; k < i + span; k++) {
			const struct mw_smaps_map *m = &s->m[k];
			struct mw_smaps_use *x = &u[k];

			memset(x, 0, sizeof(*x));
			x->alloc_base = s->m[i].start;
			x->owner_id = reg.owner_id;
			x->category = reg.category;
			x->reserved = !memcmp(m->perms, "---", 3);
			x->counted = m->start < MW_SMAPS_KERNEL_HALF;
			switch (reg.category) {
			case MW_WS_IMAGE:
				x->kind = m->perms[1] == 'w' ? MW_SK_STATIC_DATA : MW_SK_IMAGE;
				x->vm_type = MW_VM_IMAGE;
				break;
			case MW_WS_MAPPED:
			case MW_WS_SHAREABLE:
				x->kind = MW_SK_MAPPED;
				x->vm_type = MW_VM_MAPPED;
				break;
			case MW_WS_HEAP:
				x->kind = MW_SK_HEAP;
				x->vm_type = MW_VM_PRIVATE;
				break;
			case MW_WS_STACK:
				x->kind = MW_SK_STACK;
				x->vm_type = MW_VM_PRIVATE;
				break;
			default:
				x->kind = MW_SK_PRIVATE;
				x->vm_type = MW_VM_PRIVATE;
				/* the bss: anonymous read-write right after an image's
				 * writable file-backed segment */
				if (reg.category == MW_WS_PRIVATE && k > 0 && m->path_len == 0 &&
				    !memcmp(m->perms, "rw-p", 4) && s->m[k - 1].end == m->start &&
				    s->m[k - 1].path_len && u[k - 1].kind == MW_SK_STATIC_DATA) {
					x->kind = MW_SK_STATIC_DATA;
					x->vm_type = MW_VM_IMAGE;
					x->alloc_base = u[k - 1].alloc_base;
				}
				break;
			}
		}
		i += span;
	}
}

void mw_smaps_vm_regions(const struct mw_smaps *s, const struct mw_smaps_use *u,
			 struct mw_vm_regions *v)
{
	uint64_t top = 0;
	size_t i;

	v->n = 0;
	for (i = 0; i < s->n; i++) {
		const struct mw_smaps_map *m = &s->m[i];

		if (!u[i].counted)
			continue;
		mw_vm_regions_add(v, m->start, m->end - m->start, u[i].alloc_base,
				  u[i].reserved ? MW_VM_RESERVE : MW_VM_COMMIT, u[i].vm_type, 0);
		top = m->end;
	}
	v->lo = 0x10000;
	/* x86-64 user space: 47 bits, 56 with five-level page tables */
	v->hi = top > MW_SMAPS_USER_TOP_47 ? MW_SMAPS_USER_TOP_56 : MW_SMAPS_USER_TOP_47;
	v->wow64 = false;
}

void mw_smaps_stack_ranges(const struct mw_smaps *s, const struct mw_smaps_use *u,
			   struct mw_vm_ranges *out)
{
	size_t i;

	out->n = 0;
	for (i = 0; i < s->n; i++)
		if (u[i].counted && u[i].kind == MW_SK_STACK && !u[i].reserved)
			mw_vm_ranges_add(out, s->m[i].start, s->m[i].end - s->m[i].start,
					 u[i].owner_id);
}
