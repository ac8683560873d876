/*
 * fuzz_import_json.c - libFuzzer target for the JSON import parser
 * (import/json.c): memwatch's own export files a user hands to `memwatchd
 * import`.  The parser takes blocks of any size, so the input is fed in
 * two blocks cut where its first byte says, then finished; every point
 * handed to the sink must carry a key and a metric name.  Built by
 * scripts/fuzz.sh.
 */
#include "fuzz/fuzz_input.h"

#include "fuzz/fuzz_import_sink.h"

/* Feed n bytes from a private copy of exactly n bytes. */
static int feed(struct mw_json_import *j, const uint8_t *p, size_t n, struct mw_err *err)
{
	char *block = malloc(n ? n : 1);
	int rc;

	if (!block)
		return -1;
	memcpy(block, p, n);
	rc = mw_json_import_feed(j, block, n, err);
	free(block);
	return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mw_json_import *j = mw_json_import_new(fuzz_import_sink, NULL);
	size_t cut = size ? data[0] % (size + 1) : 0;
	struct mw_err err;

	if (!j)
		return 0;
	if (feed(j, data, cut, &err) == 0 && feed(j, data + cut, size - cut, &err) == 0)
		(void)mw_json_import_finish(j, &err);
	(void)mw_json_import_line(j);
	(void)mw_json_import_stats(j);
	mw_json_import_free(j);
	return 0;
}
