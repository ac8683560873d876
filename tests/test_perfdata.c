/* test_perfdata.c - the NT performance-data parser, perfmon's counter
 * arithmetic, the title database and counter paths, on buffers built to
 * the winperf.h layout (tests/support/perfdata_build.c) and on the recording
 * in tests/data/perfdata/sample/. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "collectors/perfdata.h"
#include "tests/support/perfdata_build.h"
#include "tests/support/test_main.h"

#define NPROC 8

static const struct mw_perf_instance *find_inst(const struct mw_perf_snapshot *s,
						const struct mw_perf_object *o, const char *full)
{
	size_t i;

	for (i = 0; i < o->ninstances; i++)
		if (o->instances[i].full_off != SIZE_MAX && !strcmp(s->names + o->instances[i].full_off, full))
			return &o->instances[i];
	return NULL;
}

static size_t find_ctr(const struct mw_perf_object *o, uint32_t idx)
{
	size_t c;

	for (c = 0; c < o->ncounters; c++)
		if (o->counters[c].name_index == idx)
			return c;
	fail_msg("counter %u not found", (unsigned)idx);
	return 0;
}

/* Value of object/instance/counter between two snapshots. */
static enum mw_perf_calc value_of(const struct mw_perf_snapshot *s1, const struct mw_perf_snapshot *s0,
				  uint32_t obj, const char *inst, uint32_t ctr, double *v)
{
	const struct mw_perf_object *o = mw_perf_snapshot_object(s1, obj), *po;
	const struct mw_perf_instance *in, *pin = NULL;
	struct mw_perf_raw_sample r, pr;
	bool changed;
	size_t c;

	assert_non_null(o);
	in = inst ? find_inst(s1, o, inst) : &o->instances[0];
	assert_non_null(in);
	c = find_ctr(o, ctr);
	assert_int_equal(mw_perf_raw_sample_get(s1, o, in, c, &r), 0);
	if (s0) {
		po = mw_perf_snapshot_object(s0, obj);
		assert_non_null(po);
		pin = mw_perf_match_instance(s1, o, in, s0, po, &changed);
		assert_non_null(pin);
		assert_int_equal(mw_perf_raw_sample_get(s0, po, pin, c, &pr), 0);
	}
	return mw_perf_compute(&r, s0 ? &pr : NULL, v);
}

static void titles_sample(void **state)
{
	struct mw_perf_titles t = { 0 };
	struct mw_err err;
	unsigned char *buf;
	size_t len;
	uint32_t idx[4];

	(void)state;
	buf = mw_pdbb_sample_titles(&len);
	assert_int_equal(mw_perf_titles_parse(&t, buf, len, &err), 0);
	assert_string_equal(mw_perf_title(&t, 230), "Process");
	assert_string_equal(mw_perf_title(&t, 1847), "End Marker");
	assert_null(mw_perf_title(&t, 231));
	assert_int_equal(t.last_index, 3000);
	assert_int_equal(t.skipped, 0);
	/* names are not unique: both indexes come back */
	assert_int_equal(mw_perf_title_find(&t, "available bytes", idx, 4), 2);
	assert_true((idx[0] == 24 && idx[1] == 3000) || (idx[0] == 3000 && idx[1] == 24));
	mw_perf_titles_release(&t);
	free(buf);
}

/* UTF-16LE from ASCII with embedded NULs given as '|'. */
static size_t u16(const char *s, unsigned char *out)
{
	size_t i, n = strlen(s);

	for (i = 0; i < n; i++) {
		out[2 * i] = s[i] == '|' ? 0 : (unsigned char)s[i];
		out[2 * i + 1] = 0;
	}
	return 2 * n;
}

static void titles_malformed(void **state)
{
	struct mw_perf_titles t = { 0 };
	struct mw_err err;
	unsigned char b[256];
	size_t n;

	(void)state;
	/* What Wine returns. */
	n = u16("1|1847|1846|End Marker||", b);
	assert_int_equal(mw_perf_titles_parse(&t, b, n, &err), 0);
	assert_int_equal(t.n, 2);
	assert_string_equal(mw_perf_title(&t, 1846), "End Marker");
	/* a non-numeric index and a pair without its name are skipped */
	n = u16("2|System|x7|Bad|4|Memory|9||", b);
	assert_int_equal(mw_perf_titles_parse(&t, b, n, &err), 0);
	assert_int_equal(t.n, 2);
	assert_string_equal(mw_perf_title(&t, 4), "Memory");
	assert_int_equal(t.skipped, 2);
	/* no terminating NUL, odd length */
	n = u16("2|System|4|Mem", b);
	assert_int_equal(mw_perf_titles_parse(&t, b, n + 1, &err), 0);
	assert_string_equal(mw_perf_title(&t, 4), "Mem");
	assert_true(t.skipped >= 1);
	/* duplicate index: one kept, counted */
	n = u16("5|A|5|B||", b);
	assert_int_equal(mw_perf_titles_parse(&t, b, n, &err), 0);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.skipped, 1);
	/* nothing usable */
	assert_int_equal(mw_perf_titles_parse(&t, b, 0, &err), -1);
	n = u16("abc|def||", b);
	assert_int_equal(mw_perf_titles_parse(&t, b, n, &err), -1);
	assert_non_null(strstr(err.msg, "no index/name pair"));
	mw_perf_titles_release(&t);
}

static void snapshot_structure(void **state)
{
	struct mw_perf_snapshot s;
	struct mw_err err;
	const struct mw_perf_object *o;
	const struct mw_perf_instance *in;
	unsigned char *buf;
	size_t len;

	(void)state;
	buf = mw_pdbb_sample_snapshot(0, NPROC, &len);
	assert_int_equal(mw_perf_snapshot_parse(&s, buf, len, &err), 0);
	assert_int_equal(s.nobjects, 6);
	assert_string_equal(s.system_name, "TESTBOX");
	assert_int_equal(s.perf_freq, 10000000);
	/* an object without instances has one, without a name */
	o = mw_perf_snapshot_object(&s, 4);
	assert_non_null(o);
	assert_int_equal(o->num_instances, -1);
	assert_int_equal(o->ninstances, 1);
	assert_null(mw_perf_name(&s, o->instances[0].full_off));
	/* same-name processes kept apart, perfmon style, with their pids */
	o = mw_perf_snapshot_object(&s, 230);
	assert_int_equal(o->ninstances, NPROC);
	assert_int_equal(o->ncounters, 28);
	in = find_inst(&s, o, "svchost");
	assert_non_null(in);
	assert_int_equal(in->pid, 8);
	in = find_inst(&s, o, "svchost#1");
	assert_non_null(in);
	assert_int_equal(in->pid, 12);
	assert_int_equal(in->dup_index, 1);
	assert_string_equal(s.names + in->name_off, "svchost");
	/* instances with parents */
	o = mw_perf_snapshot_object(&s, 232);
	assert_int_equal(o->ninstances, 6);
	assert_non_null(find_inst(&s, o, "svchost/0"));
	assert_non_null(find_inst(&s, o, "svchost/0#1"));
	in = find_inst(&s, o, "proc4/1");
	assert_non_null(in);
	assert_string_equal(mw_perf_name(&s, in->parent_off), "proc4");
	assert_string_equal(s.names + in->name_off, "1");
	/* a DWORD counter reads 4 bytes */
	o = mw_perf_snapshot_object(&s, 230);
	in = find_inst(&s, o, "proc4");
	assert_int_equal(mw_perf_raw(&s, in, &o->counters[find_ctr(o, 680)]), 2);
	mw_perf_snapshot_release(&s);
	free(buf);
}

static void sample_values(void **state)
{
	struct mw_perf_snapshot s0, s1;
	struct mw_err err;
	unsigned char *b0, *b1;
	size_t l0, l1;
	double v = -1;

	(void)state;
	b0 = mw_pdbb_sample_snapshot(0, NPROC, &l0);
	b1 = mw_pdbb_sample_snapshot(1, NPROC, &l1);
	assert_int_equal(mw_perf_snapshot_parse(&s0, b0, l0, &err), 0);
	assert_int_equal(mw_perf_snapshot_parse(&s1, b1, l1, &err), 0);

	/* raw values need one sample, rates two */
	assert_int_equal(value_of(&s1, NULL, 4, NULL, 24, &v), MW_PERF_VALUE);
	assert_true(v == 4.0 * 1024 * 1024 * 1024 - 1024 * 1024);
	assert_int_equal(value_of(&s1, NULL, 4, NULL, 28, &v), MW_PERF_NEED_PREVIOUS);
	assert_int_equal(value_of(&s1, &s0, 4, NULL, 28, &v), MW_PERF_VALUE);
	assert_true(v == 250.0);
	assert_int_equal(value_of(&s1, NULL, 4, NULL, 1406, &v), MW_PERF_VALUE);
	assert_true(v == 25.0);
	assert_int_equal(value_of(&s1, NULL, 700, "_Total", 702, &v), MW_PERF_VALUE);
	assert_true(v == 25.0);
	/* % Processor Time, inverse 100 ns timer */
	assert_int_equal(value_of(&s1, &s0, 238, "0", 6, &v), MW_PERF_VALUE);
	assert_true(v == 25.0);
	assert_int_equal(value_of(&s1, &s0, 238, "_Total", 6, &v), MW_PERF_VALUE);
	assert_true(v == 37.5);
	/* Process: 100 ns timer, counter, elapsed time on the object's base */
	assert_int_equal(value_of(&s1, &s0, 230, "proc5", 6, &v), MW_PERF_VALUE);
	assert_true(v == 20.0);
	assert_int_equal(value_of(&s1, &s0, 230, "proc5", 28, &v), MW_PERF_VALUE);
	assert_true(v == 50.0);
	assert_int_equal(value_of(&s1, NULL, 230, "proc5", 684, &v), MW_PERF_VALUE);
	assert_true(v == 8.0);
	assert_int_equal(value_of(&s1, &s0, 230, "svchost#1", 186, &v), MW_PERF_VALUE);
	assert_true(v == 5.0 * 1024 * 1024);
	assert_int_equal(value_of(&s1, &s0, 232, "svchost/1#1", 146, &v), MW_PERF_VALUE);
	assert_true(v == 100.0);
	/* LogicalDisk: averages with their bases, queue length, fractions */
	assert_int_equal(value_of(&s1, &s0, 236, "C:", 210, &v), MW_PERF_VALUE);
	assert_float_equal(v, 0.005, 1e-12);
	assert_int_equal(value_of(&s1, &s0, 236, "C:", 1484, &v), MW_PERF_VALUE);
	assert_true(v == 4096.0);
	assert_int_equal(value_of(&s1, &s0, 236, "C:", 408, &v), MW_PERF_VALUE);
	assert_true(v == 40.0);
	assert_int_equal(value_of(&s1, &s0, 236, "C:", 1400, &v), MW_PERF_VALUE);
	assert_true(v == 2.0);
	assert_int_equal(value_of(&s1, &s0, 236, "C:", 1482, &v), MW_PERF_VALUE);
	assert_true(v == 50.0);
	assert_int_equal(value_of(&s1, &s0, 236, "C:", 212, &v), MW_PERF_VALUE);
	assert_true(v == 50.0);
	assert_int_equal(value_of(&s1, &s0, 236, "C:", 1486, &v), MW_PERF_VALUE);
	assert_true(v == 100.0);
	/* going backwards in time drops every rate */
	assert_int_equal(value_of(&s0, &s1, 4, NULL, 28, &v), MW_PERF_DROPPED);
	mw_perf_snapshot_release(&s0);
	mw_perf_snapshot_release(&s1);
	free(b0);
	free(b1);
}

struct type_case {
	uint32_t type;
	uint64_t a0, b0, a1, b1;
	int64_t t0, t1, freq;
	enum mw_perf_calc want;
	double value;
};

static void every_counter_type(void **state)
{
	static const struct type_case cases[] = {
		{ MW_PERF_COUNTER_RAWCOUNT, 0, 0, 7, 0, 0, 0, 1, MW_PERF_VALUE, 7 },
		{ MW_PERF_COUNTER_RAWCOUNT_HEX, 0, 0, 7, 0, 0, 0, 1, MW_PERF_VALUE, 7 },
		{ MW_PERF_COUNTER_LARGE_RAWCOUNT, 0, 0, 1ULL << 40, 0, 0, 0, 1, MW_PERF_VALUE, 1099511627776.0 },
		{ MW_PERF_COUNTER_LARGE_RAWCOUNT_HEX, 0, 0, 9, 0, 0, 0, 1, MW_PERF_VALUE, 9 },
		{ MW_PERF_RAW_FRACTION, 0, 0, 1, 4, 0, 0, 1, MW_PERF_VALUE, 25 },
		{ MW_PERF_LARGE_RAW_FRACTION, 0, 0, 3, 4, 0, 0, 1, MW_PERF_VALUE, 75 },
		{ MW_PERF_RAW_FRACTION, 0, 0, 1, 0, 0, 0, 1, MW_PERF_DROPPED, 0 },
		{ MW_PERF_ELAPSED_TIME, 0, 0, 100, 0, 0, 600, 10, MW_PERF_VALUE, 50 },
		{ MW_PERF_COUNTER_COUNTER, 10, 0, 30, 0, 0, 200, 100, MW_PERF_VALUE, 10 },
		{ MW_PERF_COUNTER_BULK_COUNT, 0, 0, 1000, 0, 0, 50, 100, MW_PERF_VALUE, 2000 },
		{ MW_PERF_SAMPLE_COUNTER, 0, 0, 10, 0, 0, 100, 100, MW_PERF_VALUE, 10 },
		{ MW_PERF_COUNTER_TIMER, 0, 0, 30, 0, 0, 120, 1, MW_PERF_VALUE, 25 },
		{ MW_PERF_OBJ_TIME_TIMER, 0, 0, 60, 0, 0, 120, 1, MW_PERF_VALUE, 50 },
		{ MW_PERF_100NSEC_TIMER, 0, 0, 90, 0, 0, 120, 10000000, MW_PERF_VALUE, 75 },
		{ MW_PERF_COUNTER_TIMER_INV, 0, 0, 30, 0, 0, 120, 1, MW_PERF_VALUE, 75 },
		{ MW_PERF_100NSEC_TIMER_INV, 0, 0, 90, 0, 0, 120, 1, MW_PERF_VALUE, 25 },
		{ MW_PERF_COUNTER_QUEUELEN_TYPE, 0, 0, 300, 0, 0, 100, 1, MW_PERF_VALUE, 3 },
		{ MW_PERF_COUNTER_LARGE_QUEUELEN_TYPE, 0, 0, 300, 0, 0, 100, 1, MW_PERF_VALUE, 3 },
		{ MW_PERF_COUNTER_100NS_QUEUELEN_TYPE, 0, 0, 50, 0, 0, 100, 1, MW_PERF_VALUE, 0.5 },
		{ MW_PERF_COUNTER_OBJ_TIME_QUEUELEN_TYPE, 0, 0, 50, 0, 0, 100, 1, MW_PERF_VALUE, 0.5 },
		{ MW_PERF_COUNTER_DELTA, 5, 0, 12, 0, 0, 1, 1, MW_PERF_VALUE, 7 },
		{ MW_PERF_COUNTER_LARGE_DELTA, 5, 0, 12, 0, 0, 1, 1, MW_PERF_VALUE, 7 },
		{ MW_PERF_SAMPLE_FRACTION, 0, 0, 3, 12, 0, 1, 1, MW_PERF_VALUE, 25 },
		{ MW_PERF_AVERAGE_TIMER, 0, 0, 200, 4, 0, 1, 100, MW_PERF_VALUE, 0.5 },
		{ MW_PERF_AVERAGE_BULK, 0, 0, 4096, 4, 0, 1, 1, MW_PERF_VALUE, 1024 },
		{ MW_PERF_COUNTER_MULTI_TIMER, 0, 0, 100, 2, 0, 100, 1, MW_PERF_VALUE, 50 },
		{ MW_PERF_100NSEC_MULTI_TIMER, 0, 0, 100, 4, 0, 100, 1, MW_PERF_VALUE, 25 },
		{ MW_PERF_COUNTER_MULTI_TIMER_INV, 0, 0, 50, 2, 0, 100, 1, MW_PERF_VALUE, 150 },
		{ MW_PERF_100NSEC_MULTI_TIMER_INV, 0, 0, 50, 2, 0, 100, 1, MW_PERF_VALUE, 150 },
		{ MW_PERF_PRECISION_SYSTEM_TIMER, 0, 1000, 50, 1100, 0, 1, 1, MW_PERF_VALUE, 50 },
		{ MW_PERF_PRECISION_100NS_TIMER, 0, 1000, 50, 1200, 0, 1, 1, MW_PERF_VALUE, 25 },
		{ MW_PERF_PRECISION_OBJECT_TIMER, 0, 1000, 10, 1100, 0, 1, 1, MW_PERF_VALUE, 10 },
		/* drops: counter reset, time standing still, base not moving */
		{ MW_PERF_COUNTER_COUNTER, 30, 0, 10, 0, 0, 200, 100, MW_PERF_DROPPED, 0 },
		{ MW_PERF_COUNTER_BULK_COUNT, 0, 0, 10, 0, 200, 200, 100, MW_PERF_DROPPED, 0 },
		{ MW_PERF_100NSEC_TIMER, 0, 0, 10, 0, 300, 200, 100, MW_PERF_DROPPED, 0 },
		{ MW_PERF_AVERAGE_TIMER, 0, 5, 200, 5, 0, 1, 100, MW_PERF_DROPPED, 0 },
		{ MW_PERF_SAMPLE_FRACTION, 0, 9, 3, 2, 0, 1, 1, MW_PERF_DROPPED, 0 },
		{ MW_PERF_COUNTER_DELTA, 12, 0, 5, 0, 0, 1, 1, MW_PERF_DROPPED, 0 },
		/* not values */
		{ MW_PERF_RAW_BASE, 0, 0, 1, 0, 0, 1, 1, MW_PERF_BASE, 0 },
		{ MW_PERF_AVERAGE_BASE, 0, 0, 1, 0, 0, 1, 1, MW_PERF_BASE, 0 },
		{ MW_PERF_COUNTER_MULTI_BASE, 0, 0, 1, 0, 0, 1, 1, MW_PERF_BASE, 0 },
		{ MW_PERF_COUNTER_TEXT, 0, 0, 1, 0, 0, 1, 1, MW_PERF_UNSUPPORTED, 0 },
		{ MW_PERF_COUNTER_NODATA, 0, 0, 1, 0, 0, 1, 1, MW_PERF_UNSUPPORTED, 0 },
		{ 0x80000000u, 0, 0, 1, 0, 0, 1, 1, MW_PERF_UNSUPPORTED, 0 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < MW_ARRAY_SIZE(cases); i++) {
		const struct type_case *c = &cases[i];
		struct mw_perf_raw_sample r0 = { c->type, c->a0, c->b0, c->t0, c->freq };
		struct mw_perf_raw_sample r1 = { c->type, c->a1, c->b1, c->t1, c->freq };
		double v = -12345;
		enum mw_perf_calc got = mw_perf_compute(&r1, &r0, &v);

		if (got != c->want)
			fail_msg("case %zu (%s): got %d, want %d", i, mw_perf_type_name(c->type) ?
				 mw_perf_type_name(c->type) : "?", got, c->want);
		if (c->want == MW_PERF_VALUE && (v < c->value - 1e-9 || v > c->value + 1e-9))
			fail_msg("case %zu (%s): value %.17g, want %.17g", i,
				 mw_perf_type_name(c->type), v, c->value);
		/* every rate needs a previous sample */
		if (c->want == MW_PERF_VALUE && mw_perf_type_is_rate(c->type))
			assert_int_equal(mw_perf_compute(&r1, NULL, &v), MW_PERF_NEED_PREVIOUS);
	}
	/* a previous sample of another type is not comparable */
	{
		struct mw_perf_raw_sample a = { MW_PERF_COUNTER_COUNTER, 1, 0, 0, 1 };
		struct mw_perf_raw_sample b = { MW_PERF_COUNTER_BULK_COUNT, 5, 0, 10, 1 };
		double v;

		assert_int_equal(mw_perf_compute(&b, &a, &v), MW_PERF_DROPPED);
	}
}

/* A process restarted under the same name (new pid and start): its rates
 * are dropped, not computed across two different processes; a same-name
 * process that exited shifts "#n" but the survivor still matches by pid. */
static void instance_identity(void **state)
{
	static const struct mw_pdbb_counter ctrs[] = {
		{ 28, MW_PERF_COUNTER_COUNTER }, { 784, MW_PERF_COUNTER_RAWCOUNT },
	};
	struct mw_perf_snapshot s0, s1;
	struct mw_pdbb b;
	struct mw_err err;
	unsigned char *b0, *b1;
	size_t l0, l1;
	uint64_t v[2];
	const struct mw_perf_object *o0, *o1;
	const struct mw_perf_instance *m;
	bool changed;

	(void)state;
	mw_pdbb_begin(&b, 100, 10, 0, "X");
	mw_pdbb_object(&b, 230, ctrs, 2, 0, 0, 0);
	v[0] = 10, v[1] = 100;
	mw_pdbb_instance(&b, "app", 0, 0, -1, v);
	v[0] = 20, v[1] = 200;
	mw_pdbb_instance(&b, "app", 0, 0, -1, v);
	v[0] = 30, v[1] = 300;
	mw_pdbb_instance(&b, "db", 0, 0, -1, v);
	mw_pdbb_end_object(&b);
	b0 = mw_pdbb_finish(&b, &l0);

	mw_pdbb_begin(&b, 200, 10, 0, "X");
	mw_pdbb_object(&b, 230, ctrs, 2, 0, 0, 0);
	v[0] = 25, v[1] = 200;	/* the first "app" exited: pid 200 is now "app" */
	mw_pdbb_instance(&b, "app", 0, 0, -1, v);
	v[0] = 1, v[1] = 301;	/* "db" restarted with a new pid */
	mw_pdbb_instance(&b, "db", 0, 0, -1, v);
	mw_pdbb_end_object(&b);
	b1 = mw_pdbb_finish(&b, &l1);

	assert_int_equal(mw_perf_snapshot_parse(&s0, b0, l0, &err), 0);
	assert_int_equal(mw_perf_snapshot_parse(&s1, b1, l1, &err), 0);
	o0 = mw_perf_snapshot_object(&s0, 230);
	o1 = mw_perf_snapshot_object(&s1, 230);
	m = mw_perf_match_instance(&s1, o1, &o1->instances[0], &s0, o0, &changed);
	assert_ptr_equal(m, &o0->instances[1]);
	assert_false(changed);
	m = mw_perf_match_instance(&s1, o1, &o1->instances[1], &s0, o0, &changed);
	assert_null(m);
	assert_true(changed);
	mw_perf_snapshot_release(&s0);
	mw_perf_snapshot_release(&s1);
	free(b0);
	free(b1);
}

static void set32(unsigned char *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, 4);
}

static uint32_t get32(const unsigned char *b, size_t off)
{
	uint32_t v;

	memcpy(&v, b + off, 4);
	return v;
}

/* Parse a corrupted copy; expect an error mentioning `want`. */
static void expect_error(const unsigned char *good, size_t len, size_t off, uint32_t value,
			 size_t parse_len, const char *want)
{
	unsigned char *b = malloc(len);
	struct mw_perf_snapshot s;
	struct mw_err err = { "" };

	memcpy(b, good, len);
	if (off != SIZE_MAX)
		set32(b, off, value);
	if (mw_perf_snapshot_parse(&s, b, parse_len, &err) != -1)
		fail_msg("corruption at %zu = 0x%x parsed without error", off, (unsigned)value);
	if (!strstr(err.msg, want))
		fail_msg("error '%s' does not mention '%s'", err.msg, want);
	mw_perf_snapshot_release(&s);
	free(b);
}

static void malformed_blocks(void **state)
{
	unsigned char *good;
	size_t len, hdr, obj, cdef, inst, blk;
	struct mw_perf_snapshot s;
	struct mw_err err;

	(void)state;
	good = mw_pdbb_sample_snapshot(0, NPROC, &len);
	hdr = get32(good, MW_PDB_HEADER_LENGTH);
	obj = hdr;	/* Memory: no instances */
	cdef = obj + MW_POT_SIZE;
	obj = hdr + get32(good, hdr + MW_POT_TOTAL_LENGTH);	/* Paging File */
	inst = obj + get32(good, obj + MW_POT_DEFINITION_LENGTH);
	blk = inst + get32(good, inst + MW_PID_BYTE_LENGTH);

	expect_error(good, len, SIZE_MAX, 0, 40, "truncated");
	expect_error(good, len, MW_PDB_SIGNATURE, 0x00410050, len, "signature");
	expect_error(good, len, MW_PDB_TOTAL_LENGTH, (uint32_t)len + 1, len, "exceeds");
	expect_error(good, len, MW_PDB_TOTAL_LENGTH, (uint32_t)len - 8, len - 8, "");
	expect_error(good, len, MW_PDB_HEADER_LENGTH, 8, len, "HeaderLength");
	expect_error(good, len, MW_PDB_NUM_OBJECTS, 0x7fffffff, len, "objects do not fit");
	expect_error(good, len, MW_PDB_NUM_OBJECTS, 7, len, "");
	expect_error(good, len, MW_PDB_SYSTEM_NAME_OFFSET, 4000, len, "system name");
	/* object lengths that lie */
	expect_error(good, len, hdr + MW_POT_TOTAL_LENGTH, 0, len, "lengths do not nest");
	expect_error(good, len, hdr + MW_POT_TOTAL_LENGTH, 0x10000000, len, "runs past");
	expect_error(good, len, hdr + MW_POT_DEFINITION_LENGTH, 8, len, "lengths do not nest");
	expect_error(good, len, hdr + MW_POT_NUM_COUNTERS, 1000, len, "counters do not fit");
	expect_error(good, len, cdef + MW_PCD_BYTE_LENGTH, 0, len, "ByteLength 0");
	expect_error(good, len, cdef + MW_PCD_COUNTER_OFFSET, 0x7ffffff0, len, "lies outside");
	expect_error(good, len, cdef + MW_PCD_COUNTER_OFFSET, 0xfffffffc, len, "lies outside");
	expect_error(good, len, obj + MW_POT_NUM_INSTANCES, 0x40000000, len, "instances do not fit");
	expect_error(good, len, obj + MW_POT_NUM_INSTANCES, (uint32_t)-5, len, "negative");
	expect_error(good, len, inst + MW_PID_BYTE_LENGTH, 0, len, "ByteLength 0");
	expect_error(good, len, inst + MW_PID_NAME_OFFSET, 4096, len, "name");
	expect_error(good, len, inst + MW_PID_NAME_LENGTH, 0xffffffff, len, "name");
	expect_error(good, len, blk + MW_PCB_BYTE_LENGTH, 0, len, "counter block");
	expect_error(good, len, blk + MW_PCB_BYTE_LENGTH, 0x00ffffff, len, "counter block");

	/* Every prefix, as a buffer cut short with TotalByteLength saying
	 * so: parsed or refused, never read past the end (ASan watches). */
	for (size_t cut = 0; cut < len; cut += 4) {
		unsigned char *b = malloc(cut ? cut : 1);

		memcpy(b, good, cut);
		if (cut >= MW_PDB_SIZE)
			set32(b, MW_PDB_TOTAL_LENGTH, (uint32_t)cut);
		if (mw_perf_snapshot_parse(&s, b, cut, &err) == 0)
			mw_perf_snapshot_release(&s);
		free(b);
	}
	/* Every 32-bit field set to 0 and to 0xffffffff in turn. */
	for (size_t off = 0; off + 4 <= len; off += 4) {
		unsigned char *b = malloc(len);
		static const uint32_t vals[] = { 0, 0xffffffffu, 0x7fffffffu, 1 };

		for (size_t k = 0; k < MW_ARRAY_SIZE(vals); k++) {
			memcpy(b, good, len);
			set32(b, off, vals[k]);
			if (mw_perf_snapshot_parse(&s, b, len, &err) == 0)
				mw_perf_snapshot_release(&s);
		}
		free(b);
	}
	/* and the untouched buffer still parses */
	assert_int_equal(mw_perf_snapshot_parse(&s, good, len, &err), 0);
	mw_perf_snapshot_release(&s);
	free(good);
}

static void empty_block_as_wine_returns(void **state)
{
	struct mw_pdbb b;
	struct mw_perf_snapshot s;
	struct mw_err err;
	unsigned char *buf;
	size_t len;

	(void)state;
	mw_pdbb_begin(&b, 1, 1, 1, "WINEBOX");
	buf = mw_pdbb_finish(&b, &len);
	assert_int_equal(mw_perf_snapshot_parse(&s, buf, len, &err), 0);
	assert_int_equal(s.nobjects, 0);
	assert_null(mw_perf_snapshot_object(&s, 4));
	mw_perf_snapshot_release(&s);
	free(buf);
}

static void counter_paths(void **state)
{
	struct mw_perf_path p;
	struct mw_err err;

	(void)state;
	assert_int_equal(mw_perf_path_parse("\\Memory\\Available Bytes", &p, &err), 0);
	assert_string_equal(p.object, "Memory");
	assert_false(p.has_instance);
	assert_string_equal(p.counter, "Available Bytes");
	assert_int_equal(mw_perf_path_parse("\\Process(*)\\Private Bytes", &p, &err), 0);
	assert_string_equal(p.object, "Process");
	assert_string_equal(p.instance, "*");
	assert_int_equal(mw_perf_path_parse("\\Paging File(_Total)\\% Usage", &p, &err), 0);
	assert_string_equal(p.object, "Paging File");
	assert_string_equal(p.instance, "_Total");
	assert_string_equal(p.counter, "% Usage");
	assert_int_equal(mw_perf_path_parse("\\Thread(explorer/3)\\ID Thread", &p, &err), 0);
	assert_string_equal(p.instance, "explorer/3");
	assert_int_equal(mw_perf_path_parse("\\LogicalDisk(C:)\\Avg. Disk sec/Transfer", &p, &err), 0);
	assert_string_equal(p.instance, "C:");
	assert_string_equal(p.counter, "Avg. Disk sec/Transfer");
	assert_int_equal(mw_perf_path_parse("\\\\HOST\\Memory\\Committed Bytes", &p, &err), 0);
	assert_string_equal(p.object, "Memory");
	assert_int_equal(mw_perf_path_parse("Memory\\Available Bytes", &p, &err), -1);
	assert_int_equal(mw_perf_path_parse("\\Memory\\", &p, &err), -1);
	assert_int_equal(mw_perf_path_parse("\\Memory", &p, &err), -1);
	assert_int_equal(mw_perf_path_parse("\\(x)\\y", &p, &err), -1);
	assert_int_equal(mw_perf_path_parse("\\Proc)\\y", &p, &err), -1);
}

static void path_instances(void **state)
{
	struct mw_perf_snapshot s;
	struct mw_perf_path p;
	struct mw_err err;
	const struct mw_perf_object *o;
	unsigned char *buf;
	size_t len, i, n;

	(void)state;
	buf = mw_pdbb_sample_snapshot(0, NPROC, &len);
	assert_int_equal(mw_perf_snapshot_parse(&s, buf, len, &err), 0);
	o = mw_perf_snapshot_object(&s, 230);
	assert_int_equal(mw_perf_path_parse("\\Process(SVCHOST#1)\\Private Bytes", &p, &err), 0);
	for (i = n = 0; i < o->ninstances; i++)
		if (mw_perf_path_match_instance(&p, &s, &o->instances[i])) {
			assert_int_equal(o->instances[i].pid, 12);
			n++;
		}
	assert_int_equal(n, 1);
	assert_int_equal(mw_perf_path_parse("\\Process(svchost#0)\\Private Bytes", &p, &err), 0);
	for (i = n = 0; i < o->ninstances; i++)
		if (mw_perf_path_match_instance(&p, &s, &o->instances[i])) {
			assert_int_equal(o->instances[i].pid, 8);
			n++;
		}
	assert_int_equal(n, 1);
	assert_int_equal(mw_perf_path_parse("\\Process(*)\\Private Bytes", &p, &err), 0);
	for (i = n = 0; i < o->ninstances; i++)
		n += mw_perf_path_match_instance(&p, &s, &o->instances[i]);
	assert_int_equal(n, NPROC);
	o = mw_perf_snapshot_object(&s, 232);
	assert_int_equal(mw_perf_path_parse("\\Thread(svchost/1#1)\\ID Thread", &p, &err), 0);
	for (i = n = 0; i < o->ninstances; i++)
		n += mw_perf_path_match_instance(&p, &s, &o->instances[i]);
	assert_int_equal(n, 1);
	mw_perf_snapshot_release(&s);
	free(buf);
}

static char *read_all(FILE *f)
{
	long n;
	char *text;

	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = malloc((size_t)n + 1);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	text[n] = '\0';
	return text;
}

static void decode_json(void **state)
{
	struct mw_perf_snapshot s0, s1;
	struct mw_perf_titles t = { 0 };
	struct mw_err err;
	unsigned char *b0, *b1, *tb;
	size_t l0, l1, tl;
	FILE *f;
	char *text;

	(void)state;
	b0 = mw_pdbb_sample_snapshot(0, NPROC, &l0);
	b1 = mw_pdbb_sample_snapshot(1, NPROC, &l1);
	tb = mw_pdbb_sample_titles(&tl);
	assert_int_equal(mw_perf_titles_parse(&t, tb, tl, &err), 0);
	assert_int_equal(mw_perf_snapshot_parse(&s0, b0, l0, &err), 0);
	assert_int_equal(mw_perf_snapshot_parse(&s1, b1, l1, &err), 0);

	f = tmpfile();
	assert_non_null(f);
	assert_int_equal(mw_perf_decode_json(f, &t, &s1, &s0), 0);
	text = read_all(f);
	fclose(f);
	assert_non_null(strstr(text, "{\"index\":4,\"name\":\"Memory\",\"instances\":[{\"name\":null,"
				     "\"parent\":null,\"counters\":{\"Available Bytes\":{\"type\":"
				     "\"PERF_COUNTER_LARGE_RAWCOUNT\",\"raw\":4293918720,\"value\":4293918720}"));
	assert_non_null(strstr(text, "\"Page Faults/sec\":{\"type\":\"PERF_COUNTER_COUNTER\",\"raw\":1500,\"value\":250}"));
	assert_non_null(strstr(text, "{\"name\":\"svchost#1\",\"parent\":null,\"pid\":12,"));
	assert_non_null(strstr(text, "{\"name\":\"svchost/0#1\",\"parent\":\"svchost\""));
	assert_non_null(strstr(text, "\"% Free Space\":{\"type\":\"PERF_RAW_FRACTION\",\"raw\":40,\"base\":100,\"value\":40}"));
	assert_null(strstr(text, "PERF_RAW_BASE"));
	free(text);

	/* one snapshot: rates are null, raw values are there */
	f = tmpfile();
	assert_int_equal(mw_perf_decode_json(f, &t, &s0, NULL), 0);
	text = read_all(f);
	fclose(f);
	assert_non_null(strstr(text, "\"Page Faults/sec\":{\"type\":\"PERF_COUNTER_COUNTER\",\"raw\":1000,\"value\":null,\"status\":\"needs two snapshots\"}"));
	assert_non_null(strstr(text, "\"Private Bytes\":{\"type\":\"PERF_COUNTER_LARGE_RAWCOUNT\""));
	free(text);
	/* no titles: names are the indexes */
	f = tmpfile();
	assert_int_equal(mw_perf_decode_json(f, NULL, &s0, NULL), 0);
	text = read_all(f);
	fclose(f);
	assert_non_null(strstr(text, "{\"index\":230,\"name\":\"#230\""));
	free(text);

	mw_perf_titles_release(&t);
	mw_perf_snapshot_release(&s0);
	mw_perf_snapshot_release(&s1);
	free(b0);
	free(b1);
	free(tb);
}

/* The committed recording is what the generator makes (MW_REGEN_DATA=1
 * rewrites it), and it parses. */
static void recording_is_generated(void **state)
{
	static const char *const names[] = { "titles-counter.bin", "snapshot1.bin", "snapshot2.bin" };
	size_t i;

	(void)state;
	for (i = 0; i < 3; i++) {
		char path[256];
		unsigned char *want, *got;
		size_t wlen, glen;
		FILE *f;

		snprintf(path, sizeof(path), "tests/data/perfdata/sample/%s", names[i]);
		want = i == 0 ? mw_pdbb_sample_titles(&wlen)
			      : mw_pdbb_sample_snapshot((int)i - 1, NPROC, &wlen);
		if (getenv("MW_REGEN_DATA")) {
			f = fopen(path, "wb");
			assert_non_null(f);
			assert_int_equal(fwrite(want, 1, wlen, f), wlen);
			fclose(f);
		}
		f = fopen(path, "rb");
		if (!f)
			fail_msg("cannot open %s (run from the repository root)", path);
		got = malloc(wlen + 1);
		glen = fread(got, 1, wlen + 1, f);
		fclose(f);
		assert_int_equal(glen, wlen);
		assert_memory_equal(got, want, wlen);
		free(got);
		free(want);
	}
}

/* --- Windows hardening ------------------------------------------------------ */

/* Offset of object k of a block, by the TotalByteLengths before it. */
static size_t object_at(const unsigned char *b, size_t k)
{
	size_t off = get32(b, MW_PDB_HEADER_LENGTH);

	while (k--)
		off += get32(b, off + MW_POT_TOTAL_LENGTH);
	return off;
}

/* One malformed object is left out and counted; the others are used. */
static void skip_bad_object(void **state)
{
	unsigned char *b0, *b1;
	size_t l0, l1, pf;
	struct mw_perf_snapshot s0, s1;
	struct mw_err err = { "" };
	double v = -1;

	(void)state;
	b0 = mw_pdbb_sample_snapshot(0, NPROC, &l0);
	b1 = mw_pdbb_sample_snapshot(1, NPROC, &l1);
	/* object 1 (Paging File): its first counter lies outside its block */
	pf = object_at(b1, 1);
	assert_int_equal(get32(b1, pf + MW_POT_NAME_INDEX), 700);
	set32(b1, pf + MW_POT_SIZE + MW_PCD_COUNTER_OFFSET, 0xfffffff0u);
	/* the strict parser refuses the whole block ... */
	assert_int_equal(mw_perf_snapshot_parse(&s1, b1, l1, &err), -1);
	assert_non_null(strstr(err.msg, "lies outside"));
	/* ... the collector's parse leaves that object out and says why */
	assert_int_equal(mw_perf_snapshot_parse_ex(&s1, b1, l1, MW_PERF_PARSE_SKIP_BAD_OBJECTS,
						   &err), 0);
	assert_int_equal(s1.nobjects, 5);
	assert_int_equal(s1.skipped_objects, 1);
	assert_non_null(strstr(s1.skip_note, "object 700"));
	assert_null(mw_perf_snapshot_object(&s1, 700));
	/* every other configured counter still has its value */
	assert_int_equal(mw_perf_snapshot_parse(&s0, b0, l0, &err), 0);
	assert_int_equal(value_of(&s1, &s0, 4, NULL, 24, &v), MW_PERF_VALUE);
	assert_non_null(find_inst(&s1, mw_perf_snapshot_object(&s1, 232), "svchost/0#1"));
	assert_int_equal(value_of(&s1, &s0, 230, "svchost#1", 6, &v), MW_PERF_VALUE);
	mw_perf_snapshot_release(&s1);
	/* a TotalByteLength that lies hides the objects after it: counted */
	set32(b1, pf + MW_POT_TOTAL_LENGTH, 0);
	assert_int_equal(mw_perf_snapshot_parse_ex(&s1, b1, l1, MW_PERF_PARSE_SKIP_BAD_OBJECTS,
						   &err), 0);
	assert_int_equal(s1.nobjects, 1);
	assert_int_equal(s1.skipped_objects, 5);
	mw_perf_snapshot_release(&s1);
	/* a bad data block header still fails */
	b1[0] = 'Q';
	assert_int_equal(mw_perf_snapshot_parse_ex(&s1, b1, l1, MW_PERF_PARSE_SKIP_BAD_OBJECTS,
						   &err), -1);
	mw_perf_snapshot_release(&s0);
	free(b0);
	free(b1);
}

/* The four multi timers, each followed by its PERF_COUNTER_MULTI_BASE
 * (B, the number of items timed), over two constructed samples.  The
 * expected values are the documented formulas (Windows Server 2003
 * Deployment Kit "Counter Types"; Win32 "Calculating Counter Values"):
 *   MULTI_TIMER, 100NSEC_MULTI_TIMER          100 * (dN / dD) / B1
 *   MULTI_TIMER_INV, 100NSEC_MULTI_TIMER_INV  100 * (B1 - dN / dD)
 * with D the system performance time (PerfTime) for the PERF_COUNTER_
 * ones and PerfTime100nSec for the 100NSEC ones. */
static unsigned char *multi_block(int tick, uint64_t base_hi, uint32_t tenth_base, size_t *len)
{
	const struct mw_pdbb_counter ctr[] = {
		{ 1, MW_PERF_COUNTER_MULTI_TIMER }, { 2, MW_PERF_COUNTER_MULTI_BASE },
		{ 3, MW_PERF_COUNTER_MULTI_TIMER_INV }, { 4, MW_PERF_COUNTER_MULTI_BASE },
		{ 5, MW_PERF_100NSEC_MULTI_TIMER }, { 6, MW_PERF_COUNTER_MULTI_BASE },
		{ 7, MW_PERF_100NSEC_MULTI_TIMER_INV }, { 8, MW_PERF_COUNTER_MULTI_BASE },
		{ 9, MW_PERF_COUNTER_MULTI_TIMER }, { 10, tenth_base },
	};
	struct mw_pdbb b;
	/* PerfTime 1,000,000 -> 1,500,000 (freq 10 MHz); 100 ns time
	 * 10,000,000 -> 20,000,000.  B = 4 (the upper DWORD of the base is
	 * not part of the count: PDH keeps MultiCount as a DWORD). */
	uint64_t v[10] = { tick ? 1750000 : 1000000, base_hi | 4,
			   tick ? 2200000 : 1000000, base_hi | 4,
			   tick ? 45000000 : 20000000, base_hi | 4,
			   tick ? 40000000 : 10000000, base_hi | 4,
			   tick ? 1750000 : 1000000, 4 };

	mw_pdbb_begin(&b, tick ? 1500000 : 1000000, 10000000, tick ? 20000000 : 10000000, "MULTI");
	mw_pdbb_object(&b, 9000, ctr, MW_ARRAY_SIZE(ctr), 1, 0, 0);
	mw_pdbb_values(&b, v);
	mw_pdbb_end_object(&b);
	return mw_pdbb_finish(&b, len);
}

static void multi_timers(void **state)
{
	static const struct {
		uint32_t ctr;
		double want;
	} want[] = {
		{ 1, 100.0 * (750000.0 / 500000.0) / 4 },	/* 37.5 */
		{ 3, 100.0 * (4 - 1200000.0 / 500000.0) },	/* 160 */
		{ 5, 100.0 * (25000000.0 / 10000000.0) / 4 },	/* 62.5 */
		{ 7, 100.0 * (4 - 30000000.0 / 10000000.0) },	/* 100 */
	};
	unsigned char *b0, *b1;
	size_t l0, l1, i;
	struct mw_perf_snapshot s0, s1;
	struct mw_perf_raw_sample r;
	struct mw_err err;
	double v;

	(void)state;
	b0 = multi_block(0, 0, MW_PERF_RAW_BASE, &l0);
	b1 = multi_block(1, (uint64_t)7 << 32, MW_PERF_RAW_BASE, &l1);
	assert_int_equal(mw_perf_snapshot_parse(&s0, b0, l0, &err), 0);
	assert_int_equal(mw_perf_snapshot_parse(&s1, b1, l1, &err), 0);
	for (i = 0; i < MW_ARRAY_SIZE(want); i++) {
		const struct mw_perf_object *o = mw_perf_snapshot_object(&s1, 9000);

		assert_int_equal(mw_perf_raw_sample_get(&s1, o, &o->instances[0],
							find_ctr(o, want[i].ctr), &r), 0);
		assert_int_equal(r.b, 4);	/* from the multi base that follows */
		v = -1;
		assert_int_equal(value_of(&s1, &s0, 9000, NULL, want[i].ctr, &v), MW_PERF_VALUE);
		assert_float_equal(v, want[i].want, 1e-9);
		/* one sample is not enough */
		assert_int_equal(value_of(&s1, NULL, 9000, NULL, want[i].ctr, &v),
				 MW_PERF_NEED_PREVIOUS);
	}
	/* the time bases: PERF_COUNTER_ = PerfTime, 100NSEC = PerfTime100nSec */
	{
		const struct mw_perf_object *o = mw_perf_snapshot_object(&s1, 9000);

		assert_int_equal(mw_perf_raw_sample_get(&s1, o, &o->instances[0], 0, &r), 0);
		assert_int_equal(r.time, 1500000);
		assert_int_equal(mw_perf_raw_sample_get(&s1, o, &o->instances[0], 4, &r), 0);
		assert_int_equal(r.time, 20000000);
		/* a multi timer followed by another kind of base has no B */
		assert_int_equal(mw_perf_raw_sample_get(&s1, o, &o->instances[0], 8, &r), -1);
	}
	mw_perf_snapshot_release(&s0);
	mw_perf_snapshot_release(&s1);
	free(b0);
	free(b1);
}

/* Thread-style names: "parent/instance" needs the parent object. */
static unsigned char *thread_block(int with_process, size_t *len)
{
	static const struct mw_pdbb_counter pc[] = { { MW_PERF_IDX_ID_PROCESS,
						       MW_PERF_COUNTER_RAWCOUNT } };
	static const struct mw_pdbb_counter tc[] = { { 6, MW_PERF_COUNTER_RAWCOUNT } };
	struct mw_pdbb b;
	uint64_t v;

	mw_pdbb_begin(&b, 1, 10000000, 1, "T");
	if (with_process) {
		mw_pdbb_object(&b, MW_PERF_IDX_PROCESS, pc, 1, 0, 0, 0);
		v = 100;
		mw_pdbb_instance(&b, "notepad", 0, 0, -1, &v);
		v = 200;
		mw_pdbb_instance(&b, "notepad", 0, 0, -1, &v);
		mw_pdbb_end_object(&b);
	}
	mw_pdbb_object(&b, MW_PERF_IDX_THREAD, tc, 1, 0, 0, 0);
	v = 10;
	mw_pdbb_instance(&b, "0", MW_PERF_IDX_PROCESS, 0, -1, &v);
	v = 11;
	mw_pdbb_instance(&b, "1", MW_PERF_IDX_PROCESS, 0, -1, &v);
	v = 20;
	mw_pdbb_instance(&b, "0", MW_PERF_IDX_PROCESS, 1, -1, &v);
	mw_pdbb_end_object(&b);
	return mw_pdbb_finish(&b, len);
}

static const struct mw_perf_instance *first_match(const struct mw_perf_path *p,
						  const struct mw_perf_snapshot *s,
						  const struct mw_perf_object *o, size_t *count)
{
	const struct mw_perf_instance *first = NULL;
	size_t i;

	*count = 0;
	for (i = 0; i < o->ninstances; i++)
		if (mw_perf_path_match_instance(p, s, &o->instances[i])) {
			if (!first)
				first = &o->instances[i];
			(*count)++;
		}
	return first;
}

static void parent_instances(void **state)
{
	struct mw_perf_path p;
	struct mw_perf_snapshot s;
	struct mw_err err;
	const struct mw_perf_object *o;
	const struct mw_perf_instance *in;
	unsigned char *b;
	size_t len, n;
	uint32_t miss[4];
	char q[32] = "232";

	(void)state;
	assert_int_equal(mw_perf_path_parse("\\Thread(notepad/0)\\% Processor Time", &p, &err), 0);
	assert_string_equal(p.object, "Thread");
	assert_string_equal(p.instance, "notepad/0");
	assert_string_equal(p.parent, "notepad");
	assert_string_equal(p.counter, "% Processor Time");
	assert_int_equal(mw_perf_path_parse("\\Process(notepad)\\ID Process", &p, &err), 0);
	assert_string_equal(p.parent, "");

	/* Thread alone: the parent object is missing, so is the full name */
	b = thread_block(0, &len);
	assert_int_equal(mw_perf_snapshot_parse(&s, b, len, &err), 0);
	o = mw_perf_snapshot_object(&s, MW_PERF_IDX_THREAD);
	assert_int_equal(mw_perf_missing_parents(&s, o, miss, 4), 1);
	assert_int_equal(miss[0], MW_PERF_IDX_PROCESS);
	assert_int_equal(mw_perf_path_parse("\\Thread(notepad/0)\\x", &p, &err), 0);
	assert_null(first_match(&p, &s, o, &n));
	/* which is why the collector adds it to the query: whole words */
	assert_int_equal(mw_perf_query_add(q, sizeof(q), 230), 1);
	assert_string_equal(q, "232 230");
	assert_int_equal(mw_perf_query_add(q, sizeof(q), 230), 0);
	assert_int_equal(mw_perf_query_add(q, sizeof(q), 23), 1);
	assert_string_equal(q, "232 230 23");
	assert_int_equal(mw_perf_query_add(q, 12, 4000), -1);
	mw_perf_snapshot_release(&s);
	free(b);

	/* With Process in the answer the paths match, "#n" included */
	b = thread_block(1, &len);
	assert_int_equal(mw_perf_snapshot_parse(&s, b, len, &err), 0);
	o = mw_perf_snapshot_object(&s, MW_PERF_IDX_THREAD);
	assert_int_equal(mw_perf_missing_parents(&s, o, miss, 4), 0);
	in = first_match(&p, &s, o, &n);
	assert_non_null(in);
	assert_int_equal(n, 1);
	assert_string_equal(mw_perf_name(&s, in->full_off), "notepad/0");
	assert_int_equal(mw_perf_raw(&s, in, &o->counters[0]), 10);
	assert_int_equal(mw_perf_path_parse("\\Thread(notepad/0#1)\\x", &p, &err), 0);
	in = first_match(&p, &s, o, &n);
	assert_non_null(in);
	assert_int_equal(n, 1);
	assert_int_equal(mw_perf_raw(&s, in, &o->counters[0]), 20);
	assert_int_equal(mw_perf_path_parse("\\Thread(NOTEPAD/1)\\x", &p, &err), 0);
	in = first_match(&p, &s, o, &n);
	assert_non_null(in);
	assert_int_equal(mw_perf_raw(&s, in, &o->counters[0]), 11);
	assert_int_equal(mw_perf_path_parse("\\Thread(notepad/0#0)\\x", &p, &err), 0);
	in = first_match(&p, &s, o, &n);
	assert_non_null(in);
	assert_int_equal(mw_perf_raw(&s, in, &o->counters[0]), 10);
	assert_int_equal(mw_perf_path_parse("\\Thread(*)\\x", &p, &err), 0);
	first_match(&p, &s, o, &n);
	assert_int_equal(n, 3);
	mw_perf_snapshot_release(&s);
	free(b);
}

/* An instance with a UniqueID is named by that number, as PDH does. */
static void unique_id_names(void **state)
{
	static const struct mw_pdbb_counter c[] = { { 6, MW_PERF_COUNTER_RAWCOUNT } };
	struct mw_pdbb b;
	struct mw_perf_snapshot s;
	struct mw_perf_path p;
	struct mw_err err;
	const struct mw_perf_object *o;
	const struct mw_perf_instance *in;
	unsigned char *buf;
	size_t len, n;
	uint64_t v;

	(void)state;
	mw_pdbb_begin(&b, 1, 10000000, 1, "U");
	mw_pdbb_object(&b, 5000, c, 1, 0, 0, 0);
	v = 1;
	mw_pdbb_instance(&b, "", 0, 0, 42, &v);
	v = 2;
	mw_pdbb_instance(&b, "named", 0, 0, -1, &v);
	v = 3;
	mw_pdbb_instance(&b, "ignored", 0, 0, 7, &v);
	mw_pdbb_end_object(&b);
	mw_pdbb_object(&b, 5001, c, 1, 0, 0, 0);
	v = 4;
	mw_pdbb_instance(&b, "child", 5000, 0, -1, &v);
	mw_pdbb_end_object(&b);
	buf = mw_pdbb_finish(&b, &len);
	assert_int_equal(mw_perf_snapshot_parse(&s, buf, len, &err), 0);
	o = mw_perf_snapshot_object(&s, 5000);
	assert_string_equal(mw_perf_name(&s, o->instances[0].full_off), "42");
	assert_string_equal(mw_perf_name(&s, o->instances[1].full_off), "named");
	assert_string_equal(mw_perf_name(&s, o->instances[2].full_off), "7");
	assert_int_equal(mw_perf_path_parse("\\X(42)\\Y", &p, &err), 0);
	in = first_match(&p, &s, o, &n);
	assert_non_null(in);
	assert_int_equal(n, 1);
	assert_int_equal(mw_perf_raw(&s, in, &o->counters[0]), 1);
	/* a child of a numbered parent: "42/child" */
	o = mw_perf_snapshot_object(&s, 5001);
	assert_string_equal(mw_perf_name(&s, o->instances[0].full_off), "42/child");
	mw_perf_snapshot_release(&s);
	free(buf);
}

MW_TEST_MAIN(
	cmocka_unit_test(titles_sample),
	cmocka_unit_test(titles_malformed),
	cmocka_unit_test(snapshot_structure),
	cmocka_unit_test(sample_values),
	cmocka_unit_test(every_counter_type),
	cmocka_unit_test(instance_identity),
	cmocka_unit_test(malformed_blocks),
	cmocka_unit_test(empty_block_as_wine_returns),
	cmocka_unit_test(counter_paths),
	cmocka_unit_test(path_instances),
	cmocka_unit_test(decode_json),
	cmocka_unit_test(recording_is_generated),
	cmocka_unit_test(skip_bad_object),
	cmocka_unit_test(multi_timers),
	cmocka_unit_test(parent_instances),
	cmocka_unit_test(unique_id_names),
)
