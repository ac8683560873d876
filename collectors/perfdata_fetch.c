/* perfdata_fetch.c - perfdata_fetch.h: the retry policy of one
 * HKEY_PERFORMANCE_DATA query, the registry call passed in. */
#include "perfdata_fetch.h"

#include <stdlib.h>

#include "base/xalloc.h"

/* A fresh buffer of size bytes.  Free first: after ERROR_MORE_DATA the
 * old contents are worth nothing, so nothing is copied and the old and
 * the new buffer are never held at once (near the cap, 32 and 64 MB). */
static void resize(struct mw_perf_fetch *f, size_t size)
{
	free(f->buf);
	f->buf = mw_xmalloc(size);
	f->size = size;
}

int mw_perf_fetch(struct mw_perf_fetch *f, const struct mw_perf_call_ops *ops, const char *value,
		  const unsigned char **out, size_t *len, struct mw_err *err)
{
	unsigned busy = 0;

	*out = NULL;
	*len = 0;
	if (!f->buf)
		resize(f, f->good ? f->good : MW_PERF_FETCH_FIRST);
	for (;;) {
		size_t got = 0;
		long code = 0;

		switch (ops->query(ops->arg, value, f->buf, f->size, &got, &code)) {
		case MW_PERF_CALL_OK:
			f->good = f->size;
			*out = f->buf;
			*len = got <= f->size ? got : f->size;
			return 0;
		case MW_PERF_CALL_MORE:
			if (f->size < MW_PERF_FETCH_MAX) {
				resize(f, f->size * 2 < MW_PERF_FETCH_MAX ? f->size * 2
									  : MW_PERF_FETCH_MAX);
				continue;
			}
			resize(f, f->good ? f->good : MW_PERF_FETCH_FIRST);
			return mw_error(err, "RegQueryValueEx(HKEY_PERFORMANCE_DATA, '%s'): still "
					"ERROR_MORE_DATA with %u bytes (the cap; the buffer is back "
					"at %zu bytes)", value, MW_PERF_FETCH_MAX, f->size);
		case MW_PERF_CALL_BUSY:
			if (busy < MW_PERF_FETCH_BUSY_TRIES) {
				ops->pause_ms(ops->arg, 10u << busy);
				busy++;
				continue;
			}
			return mw_error(err, "RegQueryValueEx(HKEY_PERFORMANCE_DATA, '%s'): "
					"ERROR_BUSY %u times in a row", value, busy + 1);
		case MW_PERF_CALL_FAILED:
		default:
			return mw_error(err, "RegQueryValueEx(HKEY_PERFORMANCE_DATA, '%s'): "
					"Win32 error %ld", value, code);
		}
	}
}

void mw_perf_fetch_release(struct mw_perf_fetch *f)
{
	free(f->buf);
	f->buf = NULL;
	f->size = f->good = 0;
}
