/*
 * perfdata_fetch.h - how one HKEY_PERFORMANCE_DATA query is made and
 * retried, as pure code: the buffer grows by doubling on ERROR_MORE_DATA
 * up to a cap, ERROR_BUSY is retried with backoff, and a query that
 * needed more than the cap gives its memory back.
 *
 * Why pure: the registry call is the only Windows part
 * (perfdata_win32.c passes it in as `query`), and the policy around it
 * is what can go wrong for weeks unattended - a provider that answers
 * ERROR_MORE_DATA to every size once grew the buffer to 256 MB and kept
 * it (seen under Wine in CI).  tests/test_perfdata_fetch.c drives it
 * with calls of its own on any platform.
 *
 * Owner: the perfcounters collector's thread (through struct mw_perfreg).
 */
#ifndef MW_COLLECTORS_PERFDATA_FETCH_H
#define MW_COLLECTORS_PERFDATA_FETCH_H

#include <stddef.h>
#include "base/mwerr.h"

/* The first buffer, and the cap: the objects memwatch asks for (Memory,
 * Process, Paging File) are kilobytes to a few MB even with ten thousand
 * processes; a 64 MB answer is a provider gone wrong. */
#define MW_PERF_FETCH_FIRST (64u * 1024)
#define MW_PERF_FETCH_MAX (64u << 20)
/* ERROR_BUSY: retried after 10, 20, 40, 80 and 160 ms. */
#define MW_PERF_FETCH_BUSY_TRIES 5

/* What one registry call did. */
enum mw_perf_call {
	MW_PERF_CALL_OK,	/* *got bytes written */
	MW_PERF_CALL_MORE,	/* ERROR_MORE_DATA: the buffer is too small */
	MW_PERF_CALL_BUSY,	/* ERROR_BUSY */
	MW_PERF_CALL_FAILED,	/* any other error: *code */
};

struct mw_perf_call_ops {
	/* RegQueryValueEx(HKEY_PERFORMANCE_DATA, value) into buf[0, size).
	 * The size written back after ERROR_MORE_DATA is not trusted (it may
	 * be 0 or the old size), so the call need not report it. */
	enum mw_perf_call (*query)(void *arg, const char *value, unsigned char *buf, size_t size,
				   size_t *got, long *code);
	void (*pause_ms)(void *arg, unsigned ms);
	void *arg;
};

/* The buffer, kept between queries: the size that worked last time is
 * where the next query starts. */
struct mw_perf_fetch {
	unsigned char *buf;
	size_t size;	/* bytes allocated (0: none yet) */
	size_t good;	/* the size the last successful query fit in (0: none) */
};

/* Query value: 0 with *out (into f's buffer, valid until the next call)
 * and *len, or -1 with a message naming the value and what went wrong.
 * After a query that needed more than MW_PERF_FETCH_MAX the buffer is
 * back at the last size that worked (MW_PERF_FETCH_FIRST if none did). */
int mw_perf_fetch(struct mw_perf_fetch *f, const struct mw_perf_call_ops *ops, const char *value,
		  const unsigned char **out, size_t *len, struct mw_err *err);
void mw_perf_fetch_release(struct mw_perf_fetch *f);

#endif
