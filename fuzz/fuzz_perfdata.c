/*
 * fuzz_perfdata.c - libFuzzer target for the performance-data parser.
 *
 * The input is parsed as a PERF_DATA_BLOCK and as a title database; a
 * block that parses is then fully exercised: every counter's raw sample
 * and value against itself as the previous sample, instance matching and
 * the JSON decoder.  Built by scripts/fuzz.sh (clang, -fsanitize=fuzzer,
 * address); tests/test_perfdata_corpus.c replays fuzz/corpus/perfdata/
 * through this same function on every `make test`.
 */
#include "fuzz/fuzz_input.h"

#include "collectors/perfdata.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mw_perf_snapshot s;
	struct mw_perf_titles t = { 0 };
	struct mw_err err;
	/* A private copy of exactly `size` bytes, so ASan sees any overread. */
	unsigned char *buf = malloc(size ? size : 1);
	bool have_titles;

	memcpy(buf, data, size);
	have_titles = mw_perf_titles_parse(&t, buf, size, &err) == 0;
	if (mw_perf_snapshot_parse(&s, buf, size, &err) == 0) {
		for (size_t k = 0; k < s.nobjects; k++) {
			const struct mw_perf_object *o = &s.objects[k];

			for (size_t i = 0; i < o->ninstances; i++) {
				bool changed;
				const struct mw_perf_instance *m =
					mw_perf_match_instance(&s, o, &o->instances[i], &s, o, &changed);

				for (size_t c = 0; c < o->ncounters; c++) {
					struct mw_perf_raw_sample r, pr;
					double v;

					if (mw_perf_raw_sample_get(&s, o, &o->instances[i], c, &r))
						continue;
					if (m && !mw_perf_raw_sample_get(&s, o, m, c, &pr))
						(void)mw_perf_compute(&r, &pr, &v);
					(void)mw_perf_compute(&r, NULL, &v);
				}
			}
		}
		if (fuzz_null_out())
			mw_perf_decode_json(fuzz_null_out(), have_titles ? &t : NULL, &s, &s);
		mw_perf_snapshot_release(&s);
	}
	mw_perf_titles_release(&t);
	free(buf);
	return 0;
}
