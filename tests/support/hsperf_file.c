/* hsperf_file.c - see hsperf_file.h. */
#include "hsperf_file.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "core/batch.h"
#include "core/collector.h"
#include "collectors/jvm.h"

uint8_t *mw_test_hsperf_load(size_t *len)
{
	FILE *f = fopen(MW_TEST_HSPERF_FILE, "rb");
	uint8_t *buf = malloc(65536);

	if (!f || !buf) {
		fprintf(stderr, "cannot read %s\n", MW_TEST_HSPERF_FILE);
		abort();
	}
	*len = fread(buf, 1, 65536, f);
	fclose(f);
	return buf;
}

void mw_test_hsperf_set_vm_start(uint8_t *buf, int64_t ms)
{
	uint32_t at, n, i;

	memcpy(&at, buf + 24, 4);
	memcpy(&n, buf + 28, 4);
	for (i = 0; i < n; i++) {
		uint32_t len, name_off, data_off;

		memcpy(&len, buf + at, 4);
		memcpy(&name_off, buf + at + 4, 4);
		memcpy(&data_off, buf + at + 16, 4);
		if (!strcmp((const char *)buf + at + name_off, "sun.rt.createVmBeginTime")) {
			memcpy(buf + at + data_off, &ms, 8);
			return;
		}
		at += len;
	}
	fprintf(stderr, "no sun.rt.createVmBeginTime in %s\n", MW_TEST_HSPERF_FILE);
	abort();
}

static bool same_ascii_nocase(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char x = *a >= 'A' && *a <= 'Z' ? (char)(*a + 32) : *a;
		char y = *b >= 'A' && *b <= 'Z' ? (char)(*b + 32) : *b;

		if (x != y)
			return false;
	}
	return *a == *b;
}

void mw_test_jvm_sample(const char *pid, const char *image, struct mw_test_jvm_seen *out)
{
	struct mw_collector_env env = { 0 };
	struct mw_sample_ctx ctx;
	struct mw_batch b;
	struct mw_err err = { "" };
	void *st = NULL;
	size_t i, j;

	memset(out, 0, sizeof(*out));
	out->old = -1;
	if (mw_collector_jvm.init(&st, &env, &err) != MW_COLLECTOR_OK) {
		fprintf(stderr, "jvm collector init: %s\n", err.msg);
		abort();
	}
	mw_batch_init(&b);
	memset(&ctx, 0, sizeof(ctx));
	ctx.ts_ms = mw_clock_wall_ms();
	ctx.batch = &b;
	if (mw_collector_jvm.sample(st, &ctx) != MW_COLLECTOR_OK) {
		fprintf(stderr, "jvm collector sample: %s\n", ctx.err.msg);
		abort();
	}
	for (i = 0; i < b.nsamples; i++) {
		const struct mw_sample *s = &b.samples[i];
		bool mine = false, old = false, named = false;

		for (j = 0; j < s->nlabels; j++) {
			const char *n = s->labels[j].name, *v = s->labels[j].value;

			mine |= !strcmp(n, "pid") && !strcmp(v, pid);
			old |= !strcmp(n, "space") && !strcmp(v, "old");
			named |= !strcmp(n, "process") && same_ascii_nocase(v, image);
		}
		if (!mine)
			continue;
		out->mine++;
		out->named += named;
		if (old && !strcmp(s->metric, "memwatch_jvm_heap_used_bytes"))
			out->old = s->value;
	}
	out->skipped = ctx.inaccessible;
	snprintf(out->mode, sizeof(out->mode), "%s", ctx.mode);
	mw_batch_release(&b);
	mw_collector_jvm.fini(st);
}
