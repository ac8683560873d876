/*
 * mapped_name.c - NT paths to DOS paths through a mount table, and a name
 * read with a growing buffer (mapped_name.h).  Pure: workingset_win32.c
 * supplies the table and the call.
 */
#include "mapped_name.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "base/xalloc.h"
#include "peb.h"

/* ASCII case-insensitive: NT device names are ASCII. */
static bool prefix_ci(const char *s, const char *p, size_t n)
{
	return strncasecmp(s, p, n) == 0;
}

/* head + tail into out, one backslash between them. */
static bool join(char *out, size_t size, const char *head, size_t hn, const char *tail)
{
	size_t tn;

	while (hn && head[hn - 1] == '\\')
		hn--;
	while (*tail == '\\')
		tail++;
	tn = strlen(tail);
	if (hn + 1 + tn + 1 > size)
		return false;
	memmove(out, head, hn);
	out[hn] = '\\';
	memcpy(out + hn + 1, tail, tn + 1);
	return true;
}

/* "\Device\Mup\srv\share\x" and the redirectors' "\Device\X\;Z:0000\srv\
 * share\x" (a per-session drive mapping's component, dropped) as UNC. */
static bool unc(const char *nt, char *out, size_t size)
{
	static const char *const redirectors[] = { "\\Device\\Mup\\", "\\Device\\LanmanRedirector\\",
						    "\\Device\\WebDavRedirector\\" };
	const char *rest = NULL;
	size_t i;

	for (i = 0; i < sizeof(redirectors) / sizeof(redirectors[0]) && !rest; i++)
		if (prefix_ci(nt, redirectors[i], strlen(redirectors[i])))
			rest = nt + strlen(redirectors[i]);
	if (!rest)
		return false;
	if (*rest == ';') {	/* ";Z:00000000000a1b2c\srv\share\x" */
		rest = strchr(rest, '\\');
		if (!rest)
			return false;
		rest++;
	}
	if (!*rest || *rest == '\\' || strlen(rest) + 3 > size)
		return false;
	out[0] = out[1] = '\\';
	memcpy(out + 2, rest, strlen(rest) + 1);
	return true;
}

bool mw_nt_path_to_dos(const char *nt, const struct mw_dos_mount *mounts, size_t n, char *out,
		       size_t size)
{
	size_t i, best = 0;
	const struct mw_dos_mount *m = NULL;

	if (!nt || !size)
		return false;
	/* "\??\C:\x" and its kin need no table (peb.c's prefixes) */
	if (mw_nt_to_dos_path(nt, NULL, out, size))
		return true;
	if (unc(nt, out, size))
		return true;
	for (i = 0; i < n; i++) {
		size_t dn = mw_nt_device_prefix_len(nt, mounts[i].device);

		if (dn > best && mounts[i].root && *mounts[i].root) {
			best = dn;
			m = &mounts[i];
		}
	}
	if (!m)
		return false;
	if (!nt[best]) {	/* the volume itself: its root as given */
		if (strlen(m->root) + 1 > size)
			return false;
		memcpy(out, m->root, strlen(m->root) + 1);
		return true;
	}
	return join(out, size, m->root, strlen(m->root), nt + best);
}

const char *mw_volume_root_choice(const char *paths)
{
	const char *p, *first = NULL;

	if (!paths)
		return NULL;
	for (p = paths; *p; p += strlen(p) + 1) {
		int c = tolower((unsigned char)p[0]);

		if (c >= 'a' && c <= 'z' && p[1] == ':' && p[2] == '\\' && !p[3])
			return p;
		if (!first)
			first = p;
	}
	return first;
}

size_t mw_read_grown_name(size_t (*get)(void *ctx, void *buf, size_t cap), void *ctx,
			  void **buf, size_t *cap, bool *truncated)
{
	size_t want = *cap >= MW_NAME_FIRST_UNITS ? *cap : MW_NAME_FIRST_UNITS;

	*truncated = false;
	for (;;) {
		size_t got;

		if (*cap < want) {
			*buf = mw_xrealloc(*buf, want * sizeof(uint16_t));
			*cap = want;
		}
		got = get(ctx, *buf, *cap);
		if (got == 0)
			return 0;
		if (got < *cap - 1)
			return got;
		if (*cap >= MW_NAME_MAX_UNITS) {
			/* full at the largest buffer: keep what fits, say so */
			*truncated = true;
			((uint16_t *)*buf)[*cap - 1] = 0;
			return *cap - 1;
		}
		want = *cap * 2 < MW_NAME_MAX_UNITS ? *cap * 2 : MW_NAME_MAX_UNITS;
	}
}
