/* test_perfdata_fetch.c - the retry policy of a HKEY_PERFORMANCE_DATA
 * query (collectors/perfdata_fetch.c) driven by a registry call of the
 * test's own: how the buffer grows, that a query past the cap gives its
 * memory back, ERROR_BUSY's backoff, and the errors' words.  The real
 * call runs under Wine in test_collectors_wine_win32 and the e2e tests;
 * Wine cannot be made to answer ERROR_MORE_DATA or ERROR_BUSY on demand. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/perfdata_fetch.h"
#include "tests/support/test_main.h"

/* A registry that needs `needed` bytes (SIZE_MAX: more than any buffer),
 * answers ERROR_BUSY `busy` times first, or fails with `code`. */
struct fake_registry {
	size_t needed;
	unsigned busy;
	long code;
	unsigned calls;
	size_t sizes[64];	/* the buffer size of each call */
	unsigned pauses[8], npauses;
};

static enum mw_perf_call fake_query(void *arg, const char *value, unsigned char *buf, size_t size,
				    size_t *got, long *code)
{
	struct fake_registry *r = arg;

	assert_string_equal(value, "230 4");
	if (r->calls < 64)
		r->sizes[r->calls] = size;
	r->calls++;
	if (r->busy) {
		r->busy--;
		return MW_PERF_CALL_BUSY;
	}
	if (r->code) {
		*code = r->code;
		return MW_PERF_CALL_FAILED;
	}
	if (size < r->needed) {
		*got = 0;	/* what Wine writes back: not to be trusted */
		return MW_PERF_CALL_MORE;
	}
	memset(buf, 0xa5, r->needed);
	*got = r->needed;
	return MW_PERF_CALL_OK;
}

static void fake_pause(void *arg, unsigned ms)
{
	struct fake_registry *r = arg;

	if (r->npauses < 8)
		r->pauses[r->npauses] = ms;
	r->npauses++;
}

static int fetch(struct mw_perf_fetch *f, struct fake_registry *r, const unsigned char **out,
		 size_t *len, struct mw_err *err)
{
	const struct mw_perf_call_ops ops = { fake_query, fake_pause, r };

	r->calls = 0;
	r->npauses = 0;
	return mw_perf_fetch(f, &ops, "230 4", out, len, err);
}

/* 200 KB: 64 K, 128 K, 256 K; the next query starts at 256 K. */
static void grows_by_doubling_and_remembers(void **state)
{
	struct fake_registry r = { .needed = 200 * 1024 };
	struct mw_perf_fetch f = { 0 };
	struct mw_err err = { "" };
	const unsigned char *out;
	size_t len;

	(void)state;
	assert_int_equal(fetch(&f, &r, &out, &len, &err), 0);
	assert_int_equal(r.calls, 3);
	assert_int_equal(r.sizes[0], MW_PERF_FETCH_FIRST);
	assert_int_equal(r.sizes[1], 2 * MW_PERF_FETCH_FIRST);
	assert_int_equal(r.sizes[2], 4 * MW_PERF_FETCH_FIRST);
	assert_int_equal(len, 200 * 1024);
	assert_int_equal(out[0], 0xa5);
	assert_int_equal(out[len - 1], 0xa5);
	assert_int_equal(fetch(&f, &r, &out, &len, &err), 0);
	assert_int_equal(r.calls, 1);
	assert_int_equal(r.sizes[0], 4 * MW_PERF_FETCH_FIRST);
	mw_perf_fetch_release(&f);
}

/* A provider that wants more than any size: an error naming the value
 * and the cap, reached without overshooting it, and the buffer back at
 * the size that last worked (without that it would keep the cap, 64 MB,
 * for good in a collector that samples every second; the old loop kept
 * its 256 MB cap). */
static void past_the_cap_gives_memory_back(void **state)
{
	struct fake_registry r = { .needed = 100 * 1024 };
	struct mw_perf_fetch f = { 0 };
	struct mw_err err = { "" };
	const unsigned char *out;
	size_t len, calls = 0, s;

	(void)state;
	assert_int_equal(fetch(&f, &r, &out, &len, &err), 0);
	assert_int_equal(f.size, 2 * MW_PERF_FETCH_FIRST);
	r.needed = SIZE_MAX;
	assert_int_equal(fetch(&f, &r, &out, &len, &err), -1);
	for (s = 2 * MW_PERF_FETCH_FIRST; s <= MW_PERF_FETCH_MAX; s *= 2)
		calls++;
	assert_int_equal(r.calls, calls);
	assert_int_equal(r.sizes[r.calls - 1], MW_PERF_FETCH_MAX);
	assert_null(out);
	assert_int_equal(len, 0);
	assert_non_null(strstr(err.msg, "'230 4'"));
	assert_non_null(strstr(err.msg, "ERROR_MORE_DATA with 67108864 bytes"));
	assert_non_null(strstr(err.msg, "back at 131072 bytes"));
	assert_int_equal(f.size, 2 * MW_PERF_FETCH_FIRST);
	/* the provider recovers: the next query starts small again */
	r.needed = 1000;
	assert_int_equal(fetch(&f, &r, &out, &len, &err), 0);
	assert_int_equal(r.calls, 1);
	assert_int_equal(len, 1000);
	mw_perf_fetch_release(&f);

	/* never a success: back at the first size */
	r.needed = SIZE_MAX;
	assert_int_equal(fetch(&f, &r, &out, &len, &err), -1);
	assert_int_equal(f.size, MW_PERF_FETCH_FIRST);
	assert_non_null(strstr(err.msg, "back at 65536 bytes"));
	mw_perf_fetch_release(&f);
}

/* ERROR_BUSY: 10, 20, 40 ms, then the answer; busy for good: five
 * pauses and an error that says so. */
static void busy_is_retried_with_backoff(void **state)
{
	struct fake_registry r = { .needed = 100, .busy = 3 };
	struct mw_perf_fetch f = { 0 };
	struct mw_err err = { "" };
	const unsigned char *out;
	size_t len;

	(void)state;
	assert_int_equal(fetch(&f, &r, &out, &len, &err), 0);
	assert_int_equal(r.npauses, 3);
	assert_int_equal(r.pauses[0], 10);
	assert_int_equal(r.pauses[1], 20);
	assert_int_equal(r.pauses[2], 40);
	assert_int_equal(len, 100);

	r.busy = 1000;
	assert_int_equal(fetch(&f, &r, &out, &len, &err), -1);
	assert_int_equal(r.npauses, MW_PERF_FETCH_BUSY_TRIES);
	assert_int_equal(r.pauses[4], 160);
	assert_int_equal(r.calls, MW_PERF_FETCH_BUSY_TRIES + 1);
	assert_non_null(strstr(err.msg, "ERROR_BUSY 6 times in a row"));
	mw_perf_fetch_release(&f);
}

static void other_errors_name_the_code(void **state)
{
	struct fake_registry r = { .needed = 100, .code = 5 };
	struct mw_perf_fetch f = { 0 };
	struct mw_err err = { "" };
	const unsigned char *out;
	size_t len;

	(void)state;
	assert_int_equal(fetch(&f, &r, &out, &len, &err), -1);
	assert_int_equal(r.calls, 1);
	assert_string_equal(err.msg, "RegQueryValueEx(HKEY_PERFORMANCE_DATA, '230 4'): Win32 error 5");
	mw_perf_fetch_release(&f);
}

MW_TEST_MAIN(
	cmocka_unit_test(grows_by_doubling_and_remembers),
	cmocka_unit_test(past_the_cap_gives_memory_back),
	cmocka_unit_test(busy_is_retried_with_backoff),
	cmocka_unit_test(other_errors_name_the_code),
)
