/* test_perfdata_corpus.c - replay the saved fuzz corpus
 * (fuzz/corpus/perfdata/, run from the repository root) through the fuzz
 * target's own function, so every `make test` re-checks the inputs that
 * once mattered.  MW_REGEN_DATA=1 rewrites the generated seeds. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <cmocka.h>

#include "tests/support/perfdata_build.h"
#include "tests/support/test_file.h"
#include "app/perfdata_cmd.h"
#include "fuzz/fuzz_perfdata.c"
#include "tests/support/test_main.h"

#define DIR_PATH "fuzz/corpus/perfdata"

static void put(const char *name, const unsigned char *b, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), DIR_PATH "/%s", name);
	mw_test_write_file(path, b, len);
}

static void set32(unsigned char *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, 4);
}

/* The seeds: valid blocks and a few broken in the ways that matter. */
static void regenerate(void)
{
	unsigned char *b, *c;
	size_t len, hdr;
	struct mw_pdbb bb;

	b = mw_pdbb_sample_snapshot(0, 5, &len);
	put("sample-tick0.bin", b, len);
	hdr = MW_PDB_SIZE + 16;
	c = malloc(len);
	memcpy(c, b, len);
	set32(c, MW_PDB_TOTAL_LENGTH, (uint32_t)len / 2);
	put("truncated-half.bin", c, len / 2);
	memcpy(c, b, len);
	set32(c, hdr + MW_POT_TOTAL_LENGTH, 0);
	put("object-zero-length.bin", c, len);
	memcpy(c, b, len);
	set32(c, hdr + MW_POT_NUM_COUNTERS, 0xffff);
	put("counters-lie.bin", c, len);
	memcpy(c, b, len);
	set32(c, hdr + MW_POT_SIZE + MW_PCD_COUNTER_OFFSET, 0xfffffff0u);
	put("counter-offset-past-end.bin", c, len);
	memcpy(c, b, len);
	c[0] = 'Q';
	put("bad-signature.bin", c, len);
	free(c);
	free(b);
	b = mw_pdbb_sample_snapshot(1, 5, &len);
	put("sample-tick1.bin", b, len);
	free(b);
	mw_pdbb_begin(&bb, 1, 1, 1, "WINE");
	b = mw_pdbb_finish(&bb, &len);
	put("empty-block.bin", b, len);
	free(b);
	b = mw_pdbb_sample_titles(&len);
	put("titles.bin", b, len);
	free(b);
	put("header-only.bin", (const unsigned char *)"P\0E\0R\0F\0\1\0\0\0", 12);
}

static void replay_corpus(void **state)
{
	DIR *d;
	struct dirent *e;
	size_t n = 0;

	(void)state;
	if (getenv("MW_REGEN_DATA"))
		regenerate();
	d = opendir(DIR_PATH);
	if (!d)
		fail_msg("cannot open %s (run from the repository root)", DIR_PATH);
	while ((e = readdir(d))) {
		char path[512];
		unsigned char *buf;
		size_t len;
		struct mw_err err;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), DIR_PATH "/%s", e->d_name);
		if (mw_read_whole_file(path, &buf, &len, &err))
			fail_msg("%s", err.msg);
		assert_int_equal(LLVMFuzzerTestOneInput(buf, len), 0);
		free(buf);
		n++;
	}
	closedir(d);
	/* the seeds are there: an empty directory would test nothing */
	assert_true(n >= 10);
}

/* The seeds that must parse still do, and the broken ones are refused. */
static void seeds_verdicts(void **state)
{
	static const struct {
		const char *name;
		int ok;
	} want[] = {
		{ "sample-tick0.bin", 1 }, { "sample-tick1.bin", 1 }, { "empty-block.bin", 1 },
		{ "truncated-half.bin", 0 }, { "object-zero-length.bin", 0 },
		{ "counters-lie.bin", 0 }, { "counter-offset-past-end.bin", 0 },
		{ "bad-signature.bin", 0 }, { "header-only.bin", 0 },
	};

	(void)state;
	for (size_t i = 0; i < MW_ARRAY_SIZE(want); i++) {
		char path[256];
		unsigned char *buf;
		size_t len;
		struct mw_err err;
		struct mw_perf_snapshot s;
		int rc;

		snprintf(path, sizeof(path), DIR_PATH "/%s", want[i].name);
		if (mw_read_whole_file(path, &buf, &len, &err))
			fail_msg("%s", err.msg);
		rc = mw_perf_snapshot_parse(&s, buf, len, &err);
		if ((rc == 0) != want[i].ok)
			fail_msg("%s: parse returned %d (%s)", want[i].name, rc, rc ? err.msg : "");
		if (rc == 0)
			mw_perf_snapshot_release(&s);
		free(buf);
	}
}

MW_TEST_MAIN(
	cmocka_unit_test(replay_corpus),
	cmocka_unit_test(seeds_verdicts),
)
