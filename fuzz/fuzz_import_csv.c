/*
 * fuzz_import_csv.c - libFuzzer target for the CSV import parser
 * (import/parse.c): perfmon/typeperf/relog files a user hands to
 * `memwatchd import`.  The input is cut into lines as the importer does
 * and fed line by line, the first being the header; a bad row is skipped
 * as with --skip-bad so the rows after it are parsed too.  Every point
 * handed to the sink must carry a key and a metric name.  Built by
 * scripts/fuzz.sh.
 */
#include "fuzz/fuzz_input.h"

#include "fuzz/fuzz_import_sink.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mw_csv_import c;
	struct mw_err err;
	size_t at = 0;

	mw_csv_import_init(&c, fuzz_import_sink, NULL);
	while (at < size) {
		const uint8_t *nl = memchr(data + at, '\n', size - at);
		size_t len = nl ? (size_t)(nl - (data + at)) : size - at;
		/* each line its own allocation of exactly its length */
		char *line = malloc(len ? len : 1);

		if (!line)
			break;
		memcpy(line, data + at, len);
		(void)mw_csv_import_line(&c, line, len, &err);
		free(line);
		at += len + 1;
	}
	mw_csv_import_release(&c);
	return 0;
}
